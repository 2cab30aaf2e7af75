"""``poptorch.ctc_beam_search_decoder`` (issue 15, item 3) against a straightforward
reference: every alignment of every input enumerated, collapsed to its label sequence
(repeats merged, blanks removed), the probabilities of equal sequences summed. With a
beam wider than the number of prefixes, beam search is exact, so the top paths and their
log probabilities must be the reference's; a narrow beam is checked against a plain
per-step beam search written here without the shared implementation."""

from __future__ import annotations

import itertools
import math

import pytest
import torch

import poptorch


def collapse(alignment: tuple[int, ...], blank: int) -> tuple[int, ...]:
    labels, previous = [], None
    for label in alignment:
        if label != previous and label != blank:
            labels.append(label)
        previous = label
    return tuple(labels)


def exhaustive(log_probs: torch.Tensor, length: int, blank: int) -> list[tuple[float, tuple[int, ...]]]:
    """(log probability, labels) of every label sequence of one input, most probable first."""
    totals: dict[tuple[int, ...], float] = {}
    classes = log_probs.shape[1]
    for alignment in itertools.product(range(classes), repeat=length):
        p = math.exp(sum(float(log_probs[t, c]) for t, c in enumerate(alignment)))
        key = collapse(alignment, blank)
        totals[key] = totals.get(key, 0.0) + p
    ranked = sorted(((math.log(p), labels) for labels, p in totals.items()), key=lambda item: (-item[0], item[1]))
    return ranked


class Decoder(torch.nn.Module):
    def __init__(self, **options) -> None:
        super().__init__()
        self.options = options

    def forward(self, probs, lengths):
        return poptorch.ctc_beam_search_decoder(probs, lengths, **self.options)


def _inputs(steps: int, batch: int, classes: int, seed: int) -> torch.Tensor:
    return torch.randn(steps, batch, classes, generator=torch.Generator().manual_seed(seed)).log_softmax(2)


@pytest.mark.parametrize("blank", [0, 2])
def test_wide_beam_finds_the_exact_top_paths(blank: int) -> None:
    probs, lengths, top = _inputs(4, 3, 3, seed=blank), torch.tensor([4, 2, 0]), 3
    compiled = poptorch.inferenceModel(Decoder(blank=blank, beam_width=100, top_paths=top))
    scores, path_lengths, paths = compiled(probs, lengths)
    assert scores.shape == (3, top) and path_lengths.dtype == paths.dtype == torch.int32 and paths.shape == (3, top, 4)
    for b in range(3):
        want = exhaustive(probs[:, b], int(lengths[b]), blank)[:top]
        want += [(-math.inf, ())] * (top - len(want))
        for k, (score, labels) in enumerate(want):
            n = int(path_lengths[b, k])
            assert tuple(paths[b, k, :n].tolist()) == labels, (b, k)
            assert paths[b, k, n:].eq(blank).all()  # padding
            if math.isinf(score):
                assert math.isinf(float(scores[b, k])) and float(scores[b, k]) < 0
            else:
                assert float(scores[b, k]) == pytest.approx(score, rel=1e-5, abs=1e-5), (b, k)
    # eager (off the IPU) gives the same
    for got, want in zip(compiled(probs, lengths), Decoder(blank=blank, beam_width=100, top_paths=top)(probs, lengths),
                         strict=True):
        torch.testing.assert_close(got, want, rtol=0, atol=0)


def simple_beam_search(log_probs: torch.Tensor, blank: int, width: int) -> tuple[float, tuple[int, ...]]:
    """The best path of a textbook prefix beam search in probability space."""
    beams = {(): (1.0, 0.0)}  # prefix -> (p ending in blank, p ending in its last label)
    for t in range(log_probs.shape[0]):
        probs = log_probs[t].double().exp().tolist()
        nxt: dict[tuple[int, ...], list[float]] = {}
        for prefix, (pb, pnb) in beams.items():
            for c, p in enumerate(probs):
                if c == blank:
                    e = nxt.setdefault(prefix, [0.0, 0.0])
                    e[0] += (pb + pnb) * p
                elif prefix and prefix[-1] == c:
                    nxt.setdefault(prefix + (c,), [0.0, 0.0])[1] += pb * p
                    nxt.setdefault(prefix, [0.0, 0.0])[1] += pnb * p
                else:
                    nxt.setdefault(prefix + (c,), [0.0, 0.0])[1] += (pb + pnb) * p
        kept = sorted(nxt.items(), key=lambda item: (-(item[1][0] + item[1][1]), len(item[0]), item[0]))[:width]
        beams = {prefix: tuple(v) for prefix, v in kept}
    prefix, (pb, pnb) = min(beams.items(), key=lambda item: (-(item[1][0] + item[1][1]), len(item[0]), item[0]))
    return math.log(pb + pnb), prefix


def test_narrow_beam_matches_a_textbook_beam_search() -> None:
    probs, lengths = _inputs(8, 2, 5, seed=7), torch.tensor([8, 6])
    scores, path_lengths, paths = poptorch.inferenceModel(Decoder(blank=0, beam_width=3))(probs, lengths)
    for b in range(2):
        score, labels = simple_beam_search(probs[: int(lengths[b]), b], 0, 3)
        assert tuple(paths[b, 0, : int(path_lengths[b, 0])].tolist()) == labels
        assert float(scores[b, 0]) == pytest.approx(score, rel=1e-5)


@pytest.mark.parametrize(("options", "error", "message"), [
    ({"top_paths": 3, "beam_width": 2}, ValueError, r"top_paths must be in \[1, 2\], got 3 \(top_paths <= beam_width\)"),
    ({"blank": 4}, ValueError, r"blank must be in \[0, 3\], got 4"),
    ({"beam_width": 0}, ValueError, r"beam_width must be at least 1, got 0"),
])
def test_argument_errors(options, error, message) -> None:
    with pytest.raises(error, match=message):
        poptorch.ctc_beam_search_decoder(_inputs(3, 2, 4, seed=0), torch.tensor([3, 3]), **options)


def test_a_length_past_the_input_is_an_error_when_it_runs() -> None:
    with pytest.raises(Exception, match=r"lengths\[1\] = 5 is outside \[0, 3\]"):
        poptorch.inferenceModel(Decoder())(_inputs(3, 2, 4, seed=0), torch.tensor([3, 5]))

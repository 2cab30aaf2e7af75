"""CTC prefix beam search (Graves' connectionist temporal classification decoding), on
plain Python numbers: the one algorithm behind ``poptorch.ctc_beam_search_decoder``,
its eager (off-IPU) form and the IPU Model's ``poplar.popnn_ctc_beam_search_decoder``.

A beam is a label prefix (blanks removed, repeats merged) with two log probabilities:
of the alignments so far that end in a blank, and of those that end in the prefix's last
label. Each time step extends every beam by every class, merges equal prefixes, and keeps
the ``beam_width`` most probable (ties: the shorter, then the lexicographically smaller
prefix first, so the result does not depend on dict order).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

NEG_INF = -math.inf


def _add(a: float, b: float) -> float:
    """log(exp(a) + exp(b))."""
    if a == NEG_INF:
        return b
    if b == NEG_INF:
        return a
    high, low = (a, b) if a >= b else (b, a)
    return high + math.log1p(math.exp(low - high))


def _ranked(beams: dict[tuple[int, ...], list[float]]) -> list[tuple[float, tuple[int, ...]]]:
    scored = [(_add(blank, label), prefix) for prefix, (blank, label) in beams.items()]
    scored.sort(key=lambda item: (-item[0], len(item[1]), item[1]))
    return scored


def beam_search(log_probs: Sequence[Sequence[float]], blank: int, beam_width: int,
                top_paths: int) -> list[tuple[float, tuple[int, ...]]]:
    """The ``top_paths`` most probable label sequences of one input (``log_probs``: one row
    of class log probabilities per time step), as ``(log probability, labels)``, most
    probable first. Fewer beams than ``top_paths`` (a short input) are padded with
    ``(-inf, ())``."""
    beams: dict[tuple[int, ...], list[float]] = {(): [0.0, NEG_INF]}
    for row in log_probs:
        following: dict[tuple[int, ...], list[float]] = {}
        for prefix, (p_blank, p_label) in beams.items():
            p_total = _add(p_blank, p_label)
            last = prefix[-1] if prefix else None
            for label, p in enumerate(row):
                if p == NEG_INF:
                    continue
                if label == blank:
                    entry = following.setdefault(prefix, [NEG_INF, NEG_INF])
                    entry[0] = _add(entry[0], p_total + p)
                    continue
                extended = following.setdefault((*prefix, label), [NEG_INF, NEG_INF])
                if label == last:
                    # A repeat merges unless a blank separates it: the extension needs one.
                    extended[1] = _add(extended[1], p_blank + p)
                    same = following.setdefault(prefix, [NEG_INF, NEG_INF])
                    same[1] = _add(same[1], p_label + p)
                else:
                    extended[1] = _add(extended[1], p_total + p)
        kept = _ranked(following)[:beam_width]
        beams = {prefix: following[prefix] for _, prefix in kept}
    best = _ranked(beams)[:top_paths]
    return best + [(NEG_INF, ())] * (top_paths - len(best))


def decode_batch(log_probs: Sequence[Sequence[Sequence[float]]], lengths: Sequence[int], blank: int,
                 beam_width: int, top_paths: int) -> tuple[list[list[float]], list[list[int]], list[list[list[int]]]]:
    """``log_probs`` [T][B][C] and ``lengths`` [B] -> (log probabilities [B][top_paths],
    path lengths [B][top_paths], paths [B][top_paths][T], each padded with ``blank``)."""
    steps = len(log_probs)
    probabilities, path_lengths, paths = [], [], []
    for b, length in enumerate(lengths):
        if not 0 <= length <= steps:
            raise ValueError(f"ctc_beam_search_decoder: lengths[{b}] = {length} is outside [0, {steps}] "
                             f"(the input has {steps} time steps)")
        found = beam_search([log_probs[t][b] for t in range(length)], blank, beam_width, top_paths)
        probabilities.append([score for score, _ in found])
        path_lengths.append([len(labels) for _, labels in found])
        paths.append([list(labels) + [blank] * (steps - len(labels)) for _, labels in found])
    return probabilities, path_lengths, paths

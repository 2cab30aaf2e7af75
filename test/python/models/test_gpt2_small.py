"""GPT-2 over four IPUs as bench/training.py trains GPT-2 small (``gpt2_over_ipus``):
embeddings on IPU 0, the blocks over IPUs 1-3, the final layer norm, the head tied to the
token table and the loss back on IPU 0 (ShardedExecution, AutoStage.AutoIncrement).
A small configuration here (the real 124 M-parameter one takes about a minute for one step
with its eager reference; the bench prints its difference from eager): two training steps
match eager, and the tied head on another IPU than the table is refused with the reason.
"""

from __future__ import annotations

import copy
import importlib.util
from pathlib import Path

import pytest
import torch

import poptorch
from helpers import FP32
from helpers.checks import assert_parameters_close

transformers = pytest.importorskip("transformers")

REPO = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("bench_training", REPO / "bench" / "training.py")
bench_training = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_training)

VOCAB = 64


def _config() -> object:
    return transformers.GPT2Config(vocab_size=VOCAB, n_positions=16, n_embd=16, n_layer=6, n_head=2,
                                   resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                                   bos_token_id=0, eos_token_id=0)


def _options() -> poptorch.Options:
    options = poptorch.Options()
    options.setExecutionStrategy(poptorch.ShardedExecution(poptorch.AutoStage.AutoIncrement))
    return options


def _tokens(seed: int) -> torch.Tensor:
    return torch.randint(0, VOCAB, (2, 8), generator=torch.Generator().manual_seed(seed))


def test_gpt2_over_four_ipus_trains_as_eager() -> None:
    torch.manual_seed(0)
    model = bench_training.gpt2_over_ipus(_config())
    reference = copy.deepcopy(model)
    training = poptorch.trainingModel(model, _options(), torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
    eager = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    for seed in range(2):
        ids = _tokens(seed)
        logits, loss = training(ids, ids)
        eager.zero_grad()
        want_logits, want_loss = reference(ids, ids)
        want_loss.backward()
        eager.step()
        torch.testing.assert_close(loss.detach(), want_loss.detach(), **FP32)
        torch.testing.assert_close(logits.detach(), want_logits.detach(), **FP32)
    training.copyWeightsToHost()
    assert_parameters_close(model, reference)
    training.destroy()


def test_tied_head_on_another_ipu_than_the_table_is_refused() -> None:
    torch.manual_seed(0)
    model = bench_training.gpt2_over_ipus(_config())
    head = model.model.transformer.ln_f
    poptorch.removeBlocks(head)
    poptorch.BeginBlock(head, "head", ipu_id=3)
    training = poptorch.trainingModel(model, _options(), torch.optim.SGD(model.parameters(), lr=0.1))
    ids = _tokens(0)
    with pytest.raises(RuntimeError, match=r"weight 'model\.transformer\.wte\.weight' is used on IPUs \[0, 3\]; "
                                             r"layers that share weights must be on the same IPU"):
        training(ids, ids)

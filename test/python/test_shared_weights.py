"""Shared weights (SEMANTICS.md "Training / Shared weights"): a parameter used in several
places gets the sum of the gradients of all its uses before the update, as in eager.
Tied embedding and output layer (GPT-2, T5), one module called twice, a parameter read by
two layers; with SGD and Adam over several steps, with gradient accumulation, with the
tied parameter in its own parameter group, and a tied-embedding transformers model.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from helpers import FP32
from helpers.checks import assert_parameters_close

import poptorch

VOCAB, WIDTH, B, T = 12, 8, 4, 5


class TiedLanguageModel(nn.Module):
    """An embedding and an output Linear sharing one weight (the output layer's ``weight``
    is the embedding's), as GPT-2 and T5 tie them."""

    def __init__(self) -> None:
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, WIDTH)
        self.hidden = nn.Linear(WIDTH, WIDTH)
        self.head = nn.Linear(WIDTH, VOCAB, bias=False)
        self.head.weight = self.embedding.weight

    def forward(self, ids: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits = self.head(torch.tanh(self.hidden(self.embedding(ids))))
        return logits, F.cross_entropy(logits.flatten(0, 1), labels.flatten())


class ModuleCalledTwice(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer = nn.Linear(WIDTH, WIDTH)
        self.out = nn.Linear(WIDTH, 3)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.layer(torch.relu(self.layer(x)))
        out = self.out(h)
        return out, F.cross_entropy(out, y)


class ParameterReadTwice(nn.Module):
    """One parameter read by two layers: a projection and its transpose, plus a scale."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(WIDTH, 4) * 0.3)
        self.out = nn.Linear(WIDTH, 3)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = torch.tanh(x @ self.weight) @ self.weight.t() + self.weight.sum()
        out = self.out(h)
        return out, F.cross_entropy(out, y)


def _tokens(steps: int, rows: int = B) -> list[tuple[torch.Tensor, torch.Tensor]]:
    return [(torch.randint(0, VOCAB, (rows, T)), torch.randint(0, VOCAB, (rows, T))) for _ in range(steps)]


def _features(steps: int, rows: int = B) -> list[tuple[torch.Tensor, torch.Tensor]]:
    return [(torch.randn(rows, WIDTH), torch.randint(0, 3, (rows,))) for _ in range(steps)]


OPTIMIZERS: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "SGD": (lambda p: poptorch.optim.SGD(p, lr=0.2, momentum=0.9), lambda p: torch.optim.SGD(p, lr=0.2, momentum=0.9)),
    "Adam": (lambda p: poptorch.optim.Adam(p, lr=0.01), lambda p: torch.optim.Adam(p, lr=0.01)),
}


def train_and_compare(model: nn.Module, batches: list[tuple[torch.Tensor, ...]], optimizer: str = "SGD",
                      accumulation: int = 1) -> None:
    """Train on the IPU Model and in eager, step by step; the losses of each step, then
    the weights, must match. With ``accumulation`` G, each batch holds G micro-batches
    whose mean gradient makes one update."""
    ipu_optimizer, eager_optimizer = OPTIMIZERS[optimizer]
    reference = copy.deepcopy(model)
    options = poptorch.Options()
    options.Training.gradientAccumulation(accumulation)
    training = poptorch.trainingModel(model, options=options, optimizer=ipu_optimizer(model.parameters()))
    eager = eager_optimizer(reference.parameters())
    for step, batch in enumerate(batches):
        _, got = training(*batch)
        eager.zero_grad()
        losses = []
        for micro in zip(*(t.chunk(accumulation) for t in batch), strict=True):
            _, loss = reference(*micro)
            (loss / accumulation).backward()
            losses.append(loss.detach())
        eager.step()
        want = torch.stack(losses)[-1] if accumulation > 1 else losses[0]
        got = got.reshape(-1)[-1] if accumulation > 1 else got
        torch.testing.assert_close(got.detach(), want, **FP32, msg=lambda m, s=step: f"loss of step {s}: {m}")
    training.copyWeightsToHost()
    assert_parameters_close(model, reference)


@pytest.mark.parametrize("optimizer", list(OPTIMIZERS))
def test_tied_embedding_and_output_layer_train_as_eager(optimizer: str) -> None:
    torch.manual_seed(0)
    model = TiedLanguageModel()
    train_and_compare(model, _tokens(4), optimizer)
    assert model.head.weight is model.embedding.weight  # still one tensor on the host


def test_tied_weights_with_gradient_accumulation() -> None:
    torch.manual_seed(0)
    train_and_compare(TiedLanguageModel(), _tokens(3, rows=2 * B), "Adam", accumulation=2)


def test_tied_weight_in_its_own_parameter_group() -> None:
    """The tied parameter's group (found by either of its paths) sets its learning rate."""
    torch.manual_seed(0)
    model = TiedLanguageModel()
    reference = copy.deepcopy(model)

    def groups(m: TiedLanguageModel) -> list[dict[str, Any]]:
        return [{"params": list(m.hidden.parameters())}, {"params": [m.head.weight], "lr": 0.5}]  # not group 0

    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(groups(model), lr=0.05))
    eager = torch.optim.SGD(groups(reference), lr=0.05)
    for ids, labels in _tokens(3):
        training(ids, labels)
        eager.zero_grad()
        reference(ids, labels)[1].backward()
        eager.step()
    training.copyWeightsToHost()
    assert_parameters_close(model, reference)


@pytest.mark.parametrize("optimizer", list(OPTIMIZERS))
def test_module_called_twice_trains_as_eager(optimizer: str) -> None:
    torch.manual_seed(0)
    train_and_compare(ModuleCalledTwice(), _features(3), optimizer)


@pytest.mark.parametrize("optimizer", list(OPTIMIZERS))
def test_parameter_read_by_two_layers_trains_as_eager(optimizer: str) -> None:
    torch.manual_seed(0)
    train_and_compare(ParameterReadTwice(), _features(3), optimizer)


def test_tied_transformers_model_trains_as_eager() -> None:
    """GPT-2 ties its input embedding and its language-model head."""
    transformers = pytest.importorskip("transformers")
    config = transformers.GPT2Config(vocab_size=VOCAB, n_positions=16, n_embd=WIDTH, n_layer=1, n_head=2,
                                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, tie_word_embeddings=True)
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(config)
    assert model.lm_head.weight is model.transformer.wte.weight
    reference = copy.deepcopy(model)
    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(model.parameters(), lr=0.1))
    eager = torch.optim.SGD(reference.parameters(), lr=0.1)
    for ids, _ in _tokens(3):
        got = training(input_ids=ids, labels=ids).loss
        eager.zero_grad()
        want = reference(input_ids=ids, labels=ids).loss
        want.backward()
        eager.step()
        torch.testing.assert_close(got.detach(), want.detach(), **FP32)
    training.copyWeightsToHost()
    assert_parameters_close(model, reference)

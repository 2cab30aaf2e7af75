"""poptorch.set_available_memory on embedding lookups and indexing ops (which the reference
lists as tunable) goes on the popops_multi_slice / popops_gather computing the value; on an op
that takes no proportion it is an identity and a warning (once per op kind) says so."""

from __future__ import annotations

import logging

import pytest
import torch
from helpers import FP32
from torch import nn

import poptorch
from ipu_mlir.compiler.transforms.convert_torch_to_poplar import ipu_ops


@pytest.fixture(autouse=True)
def _fresh_warnings():
    """The lowering warns once per op kind and process: start each test afresh."""
    saved = set(ipu_ops._warned_sources)
    ipu_ops._warned_sources.clear()
    yield
    ipu_ops._warned_sources.clear()
    ipu_ops._warned_sources.update(saved)


def _lines(wrapper: poptorch.PoplarExecutor, op: str) -> list[str]:
    return [line for line in wrapper._compiled.ir_text().splitlines() if f'"{op}"' in line]


class Lookup(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.table = nn.Embedding(10, 4)

    def forward(self, ids: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        looked_up = poptorch.set_available_memory(self.table(ids), 0.3)
        picked = poptorch.set_available_memory(torch.index_select(x, 0, ids), 0.1)
        gathered = poptorch.set_available_memory(torch.gather(x, 1, ids.reshape(-1, 1) % 3), 0.2)
        return looked_up, picked, gathered


def test_embedding_and_indexing_carry_the_available_memory(caplog) -> None:
    caplog.set_level(logging.WARNING)
    torch.manual_seed(0)
    model = Lookup()
    ids, x = torch.tensor([1, 7, 3, 3]), torch.randn(10, 3)
    wrapper = poptorch.inferenceModel(model)
    with torch.no_grad():
        for got, want in zip(wrapper(ids, x), model(ids, x), strict=True):
            torch.testing.assert_close(got, want, **FP32)
    proportions = sorted(line.split("poplar.available_memory = ")[1].split(" ")[0]
                         for line in _lines(wrapper, "poplar.popops_multi_slice") + _lines(wrapper, "poplar.popops_gather")
                         if "poplar.available_memory" in line)
    assert proportions == ["1.000000e-01", "2.000000e-01", "3.000000e-01"]
    assert not [r for r in caplog.records if "set_available_memory" in r.getMessage()]


class NotTunable(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = poptorch.set_available_memory(torch.tanh(x), 0.5)
        return poptorch.set_available_memory(torch.tanh(y), 0.5)  # the same op kind: no second warning


def test_an_op_without_a_proportion_warns_once_naming_it(caplog) -> None:
    caplog.set_level(logging.WARNING)
    model = NotTunable()
    x = torch.randn(3, 4)
    wrapper = poptorch.inferenceModel(model)
    torch.testing.assert_close(wrapper(x), model(x), **FP32)
    warnings = [r.getMessage() for r in caplog.records if "set_available_memory" in r.getMessage()]
    (warning,) = warnings
    assert "has no effect on a value that comes from poplar.popnn_nonlinearity" in warning
    assert "convolutions, matrix multiplications, embedding lookups and indexing operations" in warning

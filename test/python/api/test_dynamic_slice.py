"""poptorch.dynamic_slice: a slice whose start is computed at run time matches eager slicing."""

from __future__ import annotations

import pytest
import torch
from helpers import FP32

import poptorch


class Slicer(torch.nn.Module):
    def __init__(self, dim: int, size: int, step: int) -> None:
        super().__init__()
        self.dim, self.size, self.step = dim, size, step

    def forward(self, x, start):
        return poptorch.dynamic_slice(x * 2, self.dim, start, self.size, self.step)


@pytest.mark.parametrize("dim, size, step", [(0, 3, 1), (1, 4, 2), (-1, 5, 3)])
def test_dynamic_slice_matches_python_slicing(dim, size, step):
    x = torch.randn(6, 7)
    model = poptorch.inferenceModel(Slicer(dim, size, step))
    for start in (0, 2):  # one compiled program: start is a run-time input
        out = model(x, torch.tensor([start]))
        expected = (x * 2).narrow(dim, start, size)
        expected = expected.index_select(dim, torch.arange(0, size, step))
        torch.testing.assert_close(out, expected, **FP32)
        torch.testing.assert_close(Slicer(dim, size, step)(x, torch.tensor([start])), expected, **FP32)


def test_dynamic_slice_start_computed_on_the_device():
    class FromArgmax(torch.nn.Module):
        def forward(self, x, scores):
            return poptorch.dynamic_slice(x, 0, scores.argmax(), 2, 1)

    x, scores = torch.randn(5, 3), torch.tensor([0.1, 0.9, 0.3, 0.2, 0.0])
    out = poptorch.inferenceModel(FromArgmax())(x, scores)
    torch.testing.assert_close(out, x[1:3], **FP32)


@pytest.mark.parametrize("args, error, fragment", [
    ((0, 2, 3, 1), TypeError, "start must be a tensor holding one integer"),
    ((0, torch.tensor(1.0), 3, 1), TypeError, "start must be a tensor holding one integer"),
    ((0, torch.tensor(1), torch.tensor(3), 1), TypeError, "size must be a constant int"),
    ((0, torch.tensor(1), 3, 0), ValueError, "step must be at least 1"),
    ((2, torch.tensor(1), 3, 1), ValueError, "dim 2 is out of range"),
    ((0, torch.tensor(1), 9, 1), ValueError, "size 9 is larger than dim 0"),
])
def test_dynamic_slice_argument_errors(args, error, fragment):
    with pytest.raises(error, match=fragment):
        poptorch.dynamic_slice(torch.randn(6, 7), *args)

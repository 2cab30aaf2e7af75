"""Error catalogue, shapes: models whose shapes are not static, or do not fit.

A data-dependent shape names the op and the user's source line and says what to write
instead (issue 20: ``torch.nonzero`` surfaced torch's GuardOnDataDependentSymNode).
"""

from __future__ import annotations

import re

import pytest
import torch
from torch import nn

import poptorch
from ipu_mlir.compiler.frontend.capture import CaptureError


class NonZero(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nonzero(x)


class MaskSelect(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x[x > 0] * 2


class Branch(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum() > 0:
            return x
        return -x


class TrainNonZero(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return poptorch.identity_loss(self.fc(x).sum() + torch.nonzero(x).sum(), reduction="sum")


def _capture_error(model: nn.Module, *args: torch.Tensor, training: bool = False) -> str:
    wrap = poptorch.trainingModel if training else poptorch.inferenceModel
    with pytest.raises(CaptureError) as caught:
        wrap(model)(*args)
    message = str(caught.value)
    assert "GuardOnDataDependentSymNode" not in message and "TORCH_LOGS" not in message
    return message


def test_nonzero_names_the_op_the_line_and_the_fix() -> None:
    message = _capture_error(NonZero(), torch.tensor([0.0, 1.0, 2.0]))
    assert re.match(r"torch\.nonzero at .*test_errors_shapes\.py:\d+ \(`return torch\.nonzero\(x\)`\) gives a tensor "
                    r"whose size depends on the input's values \(a data-dependent shape\)", message), message
    assert "IPU programs have static shapes" in message and "use the mask itself (x != 0) with torch.where" in message


def test_nonzero_in_training_is_the_same_error() -> None:
    message = _capture_error(TrainNonZero(), torch.tensor([[0.0, 1.0, 2.0]]), training=True)
    assert message.startswith("torch.nonzero at ") and "a data-dependent shape" in message


def test_boolean_mask_indexing() -> None:
    message = _capture_error(MaskSelect(), torch.tensor([0.0, 1.0, 2.0]))
    assert message.startswith("boolean-mask indexing (x[mask]) at ") and "(`return x[x > 0] * 2`)" in message
    assert "torch.where(mask, x, torch.zeros_like(x))" in message


class TrainMaskSelect(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.fc(x)
        return poptorch.identity_loss(out[out > 0].sum(), reduction="sum")


def test_boolean_mask_indexing_in_training_is_the_same_error() -> None:
    """Training's trace reports the nonzero that torch's index kernel runs on the mask; the
    error still names x[mask] and gives its fix."""
    message = _capture_error(TrainMaskSelect(), torch.tensor([[0.0, 1.0, 2.0]]), training=True)
    assert message.startswith("boolean-mask indexing (x[mask]) at ") and "(`return poptorch.identity_loss(out[out > 0]" in message
    assert "torch.where(mask, x, torch.zeros_like(x))" in message


def test_branching_on_a_tensor_value() -> None:
    message = _capture_error(Branch(), torch.tensor([0.0, 1.0, 2.0]))
    assert re.match(r"the model's forward uses a tensor's value as a Python value at .*test_errors_shapes\.py:\d+ "
                    r"\(`if x\.sum\(\) > 0:`\)", message), message
    assert "torch.where(condition, a, b)" in message


def test_matmul_of_mismatched_shapes_keeps_torchs_reason() -> None:
    with pytest.raises(CaptureError, match=re.escape("could not capture the model with torch.export: RuntimeError: "
                                                     "a and b must have same reduction dim, but got [2, 4] X [5, 4]")):
        poptorch.inferenceModel(nn.Linear(5, 4))(torch.ones(2, 4))


def test_an_empty_batch_runs_as_in_eager() -> None:
    # 0 samples over 2 device iterations: two empty micro-batches (the host used to feed
    # one, and the run stopped with "host stream ... ran out of data").
    model = nn.Linear(4, 3)
    out = poptorch.inferenceModel(model, poptorch.Options().deviceIterations(2))(torch.ones(0, 4))
    assert out.shape == model(torch.ones(0, 4)).shape == (0, 3)

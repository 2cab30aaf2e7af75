"""Error catalogue, dtypes: element types a step cannot train with, store or stream.

Issue 20: an integer-valued loss got the internal "ipu-insert-training: expects exactly
one 'loss_grad' argument, found 0"; the driver now says what is wrong before any pass.
"""

from __future__ import annotations

import re

import pytest
import torch
from helpers import poptorch_warnings
from torch import nn

import poptorch
from ipu_mlir.compiler.frontend.capture import CaptureError

pytestmark = pytest.mark.usefixtures("fresh_poptorch_logging")


class CountLoss(nn.Module):
    """A "loss" that counts wrong answers: integer-valued, so it has no gradient."""

    def __init__(self, as_bool: bool = False) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.as_bool = as_bool

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        wrong = self.fc(x).argmax(-1) != target
        return poptorch.identity_loss(wrong.any() if self.as_bool else wrong.sum(), reduction="none")


@pytest.mark.parametrize(("as_bool", "element_type"), [(False, "si64"), (True, "i1")])
def test_integer_or_boolean_loss(as_bool: bool, element_type: str) -> None:
    with pytest.raises(CaptureError, match=re.escape(
            f"trainingModel(CountLoss): the loss is a tensor of element type {element_type} (integer or boolean "
            "values, from argmax, a comparison or an integer cast, for example), which has no gradient to train "
            "with. Compute the loss from floating-point values")) as caught:
        poptorch.trainingModel(CountLoss(as_bool))(torch.ones(2, 4), torch.zeros(2, dtype=torch.long))
    assert "loss_grad" not in str(caught.value)


def test_later_call_with_another_dtype() -> None:
    model = poptorch.inferenceModel(nn.Linear(4, 3))
    model(torch.ones(2, 4))
    with pytest.raises(ValueError, match=re.escape(
            "input 'input': the model was compiled for a tensor of shape [2, 4] and dtype torch.float32, got a tensor "
            "of shape [2, 4] and dtype torch.float64; shapes and dtypes cannot change between calls")):
        model(torch.ones(2, 4, dtype=torch.float64))


def test_optimizer_state_in_bfloat16() -> None:
    with pytest.raises(ValueError, match=re.escape(
            "poptorch.optim.SGD: accum_type=torch.bfloat16 is not a supported optimizer state type: it must be "
            "torch.float32 or torch.float16")):
        poptorch.optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1, accum_type=torch.bfloat16)


def test_integer_partials() -> None:
    with pytest.raises(ValueError, match=re.escape(
            "Options.Precision.setPartialsType(torch.int32): partials can only be stored as torch.float (float32) or "
            "torch.half (float16)")):
        poptorch.Options().Precision.setPartialsType(torch.int32)


def test_float64_input_says_what_the_ipu_model_does(caplog: pytest.LogCaptureFixture) -> None:
    model = nn.Linear(4, 3).double()
    x = torch.randn(2, 4, dtype=torch.float64)
    out = poptorch.inferenceModel(model)(x)
    torch.testing.assert_close(out, model(x), rtol=0, atol=0)
    assert any("IPUs have no 64-bit floating-point arithmetic" in m for m in poptorch_warnings(caplog))

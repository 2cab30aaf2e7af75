"""Linear algebra (``torch.linalg``) end to end: each function in a tiny model through
``poptorch.inferenceModel`` against eager PyTorch (FP32), one SGD step through the
differentiable ones, and the effect tokens of torch's error checks.

Eager ``torch.linalg`` functions check their ``info`` codes with ``aten._linalg_check_errors``,
which torch registers as effectful (the export threads a token through it). The capture
drops that check (an IPU program cannot raise on data); any other effectful op is refused
with a CaptureError that names it.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
from helpers.op_runs import FunctionModel

import poptorch
from ipu_mlir.compiler.frontend.capture import CaptureError


def _prints(x: torch.Tensor) -> torch.Tensor:
    torch.ops.aten._print("hello")
    return x * 2


class _PrintingLoss(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return poptorch.identity_loss(_prints(x * self.w).sum(), reduction="sum")


def test_other_effectful_op_is_refused_in_inference() -> None:
    with pytest.raises(CaptureError, match=r"the model calls aten\._print\.default, which has side effects"):
        poptorch.inferenceModel(FunctionModel(_prints))(torch.randn(3))


def test_other_effectful_op_is_refused_in_training() -> None:
    model = _PrintingLoss()
    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(model.parameters(), lr=0.1))
    with pytest.raises(CaptureError, match=r"the model calls aten\._print\.default, which has side effects"):
        training(torch.randn(3))


def test_linalg_error_check_keeps_its_effect_outside_capture() -> None:
    """The capture lifts the check's effect only while it traces: eager still raises."""
    from torch._higher_order_ops.effects import _get_effect

    poptorch.inferenceModel(FunctionModel(lambda x: x + 1))(torch.randn(2))
    assert _get_effect("aten::_linalg_check_errors") is not None
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.inv(torch.zeros(2, 2))

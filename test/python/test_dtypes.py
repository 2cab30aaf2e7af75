"""Inputs and outputs keep eager PyTorch's dtypes (issue "Real models", item 7): bool,
integer, float16, bfloat16 and float32 tensors go in and come out as eager gives them, with
eager's type promotion; float64, which IPUs cannot compute in, warns once and says what
the IPU Model does instead."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

import poptorch
from helpers import EXACT, poptorch_warnings

pytestmark = pytest.mark.usefixtures("fresh_poptorch_logging")

DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16, torch.bfloat16,
          torch.float32]


class Mixed(nn.Module):
    """Ops whose result dtype depends on the input's: same dtype, promotion to int64 (sum
    of integers and bools), comparisons (bool), and a float mean where there is one."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
        mean = x.mean(dim=1) if x.is_floating_point() else x.sum(dim=1)
        return x + y, (x * 2).sum(), x > y, mean, torch.where(x > y, x, y), x.to(torch.float32) * 0.5


def _inputs(dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    x, y = (torch.randn(4, 5, generator=generator) * 3 for _ in range(2))
    return x.to(dtype), y.to(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_outputs_keep_eager_dtypes(dtype: torch.dtype) -> None:
    x, y = _inputs(dtype)
    expected = Mixed()(x, y)
    actual = poptorch.inferenceModel(Mixed())(x, y)
    assert [a.dtype for a in actual] == [e.dtype for e in expected]
    for a, e in zip(actual, expected, strict=True):
        torch.testing.assert_close(a, e, **EXACT)


def test_mixed_input_dtypes_promote_as_eager() -> None:
    class Promote(nn.Module):
        def forward(self, i: torch.Tensor, h: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, ...]:
            return i + h, h * b, i * 1.5, b & (i > 0)

    i, h, b = torch.arange(6, dtype=torch.int32), torch.linspace(-1, 1, 6).half(), torch.tensor([True, False] * 3)
    expected = Promote()(i, h, b)
    actual = poptorch.inferenceModel(Promote())(i, h, b)
    assert [a.dtype for a in actual] == [e.dtype for e in expected]
    for a, e in zip(actual, expected, strict=True):
        torch.testing.assert_close(a, e, **EXACT)


def test_float64_runs_as_eager_and_warns_once(caplog: pytest.LogCaptureFixture) -> None:
    model = nn.Linear(3, 2).double()
    x = torch.randn(4, 3, dtype=torch.float64)
    ipu = poptorch.inferenceModel(model)
    out = ipu(x)
    assert out.dtype == torch.float64
    torch.testing.assert_close(out, model(x), rtol=1e-12, atol=1e-12)
    ipu(x)
    poptorch.inferenceModel(nn.Linear(3, 2).double())(x)
    messages = [m for m in poptorch_warnings(caplog) if "float64" in m]
    assert len(messages) == 1
    assert "IPUs have no 64-bit floating-point arithmetic" in messages[0]
    assert "weight, bias, input" in messages[0]
    assert "model.float()" in messages[0]


def test_float32_model_does_not_warn(caplog: pytest.LogCaptureFixture) -> None:
    poptorch.inferenceModel(nn.Linear(3, 2))(torch.randn(2, 3))
    assert not [m for m in poptorch_warnings(caplog) if "float64" in m]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_half_training_keeps_dtype(dtype: torch.dtype) -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3)).to(dtype)

    class WithLoss(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = model

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            out = self.body(x)
            return out, poptorch.identity_loss(out.float().square().sum(), reduction="sum")

    training = poptorch.trainingModel(WithLoss(), optimizer=poptorch.optim.SGD(model.parameters(), lr=0.01))
    out, loss = training(torch.randn(2, 4).to(dtype))
    assert out.dtype == dtype
    assert loss.dtype == torch.float32
    training.copyWeightsToHost()
    assert model[0].weight.dtype == dtype

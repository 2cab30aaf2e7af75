"""poptorch.serializedMatMul: every mode and factor splits the matmul in the IR, with the ordinary
matmul's result (forward and gradients); keep_precision adds float16 partials in float32."""

from __future__ import annotations

import pytest
import torch
from helpers import FP32

import poptorch
from poptorch.enums import MatMulSerializationMode as Mode


class Serialized(torch.nn.Module):
    def __init__(self, mode: Mode, factor: int, keep_precision: bool = False) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(8, 6))
        self.mode, self.factor, self.keep_precision = mode, factor, keep_precision

    def forward(self, x):
        return poptorch.serializedMatMul(x, self.weight, self.mode, self.factor, self.keep_precision)


def _matmuls(model) -> int:
    text = model._compiled.ir_text()
    return text.count('"poplar.poplin_matmul"') + text.count('"poplar.poplin_matmul_acc"')


@pytest.mark.parametrize("mode, factor", [(Mode.InputChannels, 2), (Mode.InputChannels, 4), (Mode.ReducingDim, 2),
                                          (Mode.ReducingDim, 8), (Mode.OutputChannels, 3), (Mode.Disabled, 4)])
def test_inference_matches_the_ordinary_matmul_and_splits(mode, factor):
    torch.manual_seed(0)
    layer = Serialized(mode, factor)
    x = torch.randn(4, 8)
    model = poptorch.inferenceModel(layer)
    torch.testing.assert_close(model(x), x @ layer.weight.detach(), **FP32)
    assert _matmuls(model) == (1 if mode is Mode.Disabled else factor)


@pytest.mark.parametrize("mode", [Mode.InputChannels, Mode.ReducingDim, Mode.OutputChannels])
def test_training_gradients_match_eager(mode):
    torch.manual_seed(0)
    layer = Serialized(mode, 2)
    reference = torch.nn.Parameter(layer.weight.detach().clone())
    x, target = torch.randn(4, 8), torch.randn(4, 6)

    class Loss(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = layer

        def forward(self, x, target):
            out = self.inner(x)
            return out, torch.nn.functional.mse_loss(out, target)

    step = poptorch.trainingModel(Loss(), optimizer=torch.optim.SGD(layer.parameters(), lr=0.5))
    step(x, target)
    step.copyWeightsToHost()
    torch.nn.functional.mse_loss(x @ reference, target).backward()
    torch.testing.assert_close(layer.weight.detach(), reference.detach() - 0.5 * reference.grad, **FP32)


@pytest.mark.parametrize("keep_precision", [False, True])
def test_half_inputs_keep_precision(keep_precision):
    torch.manual_seed(0)
    layer = Serialized(Mode.ReducingDim, 4, keep_precision).half()
    x = torch.randn(4, 8).half()
    out = poptorch.inferenceModel(layer)(x)
    assert out.dtype == torch.float16
    eager = poptorch.serializedMatMul(x, layer.weight.detach(), Mode.ReducingDim, 4, keep_precision)
    torch.testing.assert_close(out, eager, rtol=1e-3, atol=1e-3)
    exact = x.float() @ layer.weight.detach().float()
    torch.testing.assert_close(out.float(), exact, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("args, error, fragment", [
    ((Mode.ReducingDim, 3), ValueError, "factor 3 does not divide the ReducingDim dimension \\(8\\)"),
    (("sideways", 2), ValueError, "sideways"),
    ((Mode.ReducingDim, -1), ValueError, "factor must be an int >= 0"),
])
def test_argument_errors(args, error, fragment):
    with pytest.raises(error, match=fragment):
        poptorch.serializedMatMul(torch.randn(4, 8), torch.randn(8, 6), *args)

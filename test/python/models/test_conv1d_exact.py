"""Hugging Face's ``Conv1D`` (GPT-2's attention and MLP projections) is ``torch.addmm(bias,
x, weight)`` with an untransposed weight: the IPU Model makes eager's one BLAS call
(``poplin_matmul_acc``), so the layer's output is bit for bit eager's, where a matmul then
an add rounds differently (4.8e-7 on this layer)."""

from __future__ import annotations

import copy

import torch
from transformers.pytorch_utils import Conv1D

import poptorch


class _Projection(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = Conv1D(384, 256)
        torch.nn.init.normal_(self.proj.bias)  # a bias of zeros would hide the rounding

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(x)


class _WithLoss(_Projection):
    def forward(self, x: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:  # type: ignore[override]
        out = self.proj(x)
        return out, torch.nn.functional.mse_loss(out, target)


def test_conv1d_inference_is_eagers_addmm_bit_for_bit() -> None:
    torch.manual_seed(0)
    model = _Projection().eval()
    x = torch.randn(2, 64, 256)
    with torch.no_grad():
        expected = model(x)
        got = poptorch.inferenceModel(model)(x)
    assert torch.equal(got, expected), (got - expected).abs().max().item()


def test_conv1d_training_step_output_is_eagers_bit_for_bit() -> None:
    torch.manual_seed(0)
    model = _WithLoss()
    eager = copy.deepcopy(model)
    x, target = torch.randn(2, 64, 256), torch.randn(2, 64, 384)
    optimizer = torch.optim.SGD(eager.parameters(), lr=0.1)
    expected, expected_loss = eager(x, target)
    expected_loss.backward()
    optimizer.step()
    training = poptorch.trainingModel(model, optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    got, loss = training(x, target)
    assert torch.equal(got, expected.detach()), (got - expected).abs().max().item()
    torch.testing.assert_close(loss, expected_loss.detach(), rtol=1e-5, atol=1e-6)
    training.copyWeightsToHost()
    for name, parameter in eager.named_parameters():
        torch.testing.assert_close(dict(model.named_parameters())[name].detach(), parameter.detach(), rtol=1e-5, atol=1e-6)

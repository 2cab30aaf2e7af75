"""Training capture of real models (SEMANTICS.md "Training"): the model's Python runs
under the exporting flag that libraries check (``torch.compiler.is_exporting()``), so
Hugging Face models take their traced path, and models built the way ResNets are
(``Conv2d(bias=False)`` + BatchNorm) train. Each case trains a few steps and matches eager.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import torch
import torch.nn as nn
import torch.nn.functional as F
from helpers import FP32
from helpers.checks import assert_state_dicts_close

import poptorch


def train_both(model: nn.Module, batches: list[tuple], *, optimizer: Callable[[Any], Any] = lambda p: torch.optim.SGD(p, lr=0.1),
               loss_of: Callable[[Any], torch.Tensor] = lambda out: out[1], options: poptorch.Options | None = None,
               ) -> tuple[nn.Module, nn.Module]:
    """Train ``model`` with trainingModel and a deep copy in eager PyTorch, one step per
    batch (each an (args, kwargs) pair); the losses of every step must match. Returns
    (model, eager copy) for the caller to compare weights."""
    reference = copy.deepcopy(model)
    eager_optimizer = optimizer(reference.parameters())
    training = poptorch.trainingModel(model, options=options, optimizer=optimizer(model.parameters()))
    for step, (args, kwargs) in enumerate(batches):
        got = loss_of(training(*args, **kwargs))
        eager_optimizer.zero_grad()
        want = loss_of(reference(*args, **kwargs))
        want.backward()
        eager_optimizer.step()
        torch.testing.assert_close(got.detach(), want.detach(), **FP32, msg=lambda m, s=step: f"loss of step {s}: {m}")
    training.copyWeightsToHost()
    return model, reference


# =======================================================================================
# A ResNet block: Conv2d(bias=False) + BatchNorm + ReLU + residual
# =======================================================================================
class ResidualBlock(nn.Module):
    """The first convolution sees the model input (no input gradient) and has no bias, so
    its gradient op yields the weight gradient alone."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 3, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(3)
        self.conv2 = nn.Conv2d(3, 3, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(3)
        self.fc = nn.Linear(3, 4)
        self.loss = nn.CrossEntropyLoss()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.relu(self.bn2(self.conv2(h)) + x)
        out = self.fc(h.mean((2, 3)))
        return out, self.loss(out, y)


def test_resnet_block_without_conv_bias_trains_as_eager() -> None:
    torch.manual_seed(0)
    batches = [((torch.randn(4, 3, 6, 6), torch.randint(0, 4, (4,))), {}) for _ in range(3)]
    model, reference = train_both(ResidualBlock(), batches)
    assert_state_dicts_close(model, reference)  # weights and BatchNorm running statistics

"""Error catalogue, losses: training steps without a loss they can train with.

Issue 20: a model with every parameter frozen got the internal "ipu-insert-training:
expects exactly one 'loss_grad' argument, found 0"; the driver now names the cause.
"""

from __future__ import annotations

import re

import pytest
import torch
from torch import nn

import poptorch
from ipu_mlir.compiler.frontend.capture import CaptureError


class Regression(nn.Module):
    def __init__(self, detach: bool = False) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.detach = detach

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        out = self.fc(x)
        return nn.functional.mse_loss(out.detach() if self.detach else out, y)


def _data() -> tuple[torch.Tensor, torch.Tensor]:
    return torch.ones(2, 4), torch.zeros(2, 3)


def test_every_parameter_frozen() -> None:
    model = Regression()
    model.requires_grad_(False)
    with pytest.raises(CaptureError, match=re.escape(
            "trainingModel(Regression): no parameter of the model requires a gradient (every parameter is frozen "
            "with requires_grad=False, or the model has none), so a training step would change nothing.")) as caught:
        poptorch.trainingModel(model)(*_data())
    assert "loss_grad" not in str(caught.value)


def test_every_parameter_frozen_with_a_combined_loss() -> None:
    """Two losses without a gradient added up: no output is linked to them through autograd,
    and the error still names the frozen parameters, not a missing loss."""

    class Combined(Regression):
        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            out = self.fc(x)
            return nn.functional.mse_loss(out, y) + 0.5 * nn.functional.l1_loss(out, y)

    model = Combined()
    model.requires_grad_(False)
    with pytest.raises(CaptureError, match=re.escape(
            "trainingModel(Combined): no parameter of the model requires a gradient (every parameter is frozen")):
        poptorch.trainingModel(model)(*_data())


def test_one_trainable_parameter_is_enough() -> None:
    model = Regression()
    model.fc.weight.requires_grad_(False)
    bias = model.fc.bias.detach().clone()
    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(model.parameters(), lr=0.1))
    training(*_data())
    training.copyWeightsToHost()
    assert not torch.equal(model.fc.bias.detach(), bias)


def test_loss_computed_from_detached_values() -> None:
    with pytest.raises(CaptureError, match=re.escape(
            "trainingModel(Regression): the loss does not depend on any trainable parameter (it is computed from the "
            "inputs, constants or detached values only)")):
        poptorch.trainingModel(Regression(detach=True))(*_data())


def test_no_loss_returned() -> None:
    with pytest.raises(RuntimeError, match=re.escape(
            "the model's forward returns no loss, so there is nothing to train.")):
        poptorch.trainingModel(nn.Linear(4, 3))(torch.ones(2, 4))


def test_two_independent_losses() -> None:
    class TwoLosses(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            out = self.fc(x)
            return nn.functional.mse_loss(out, y), nn.functional.l1_loss(out, y)

    with pytest.raises(RuntimeError, match=re.escape(
            "the model returns several independent losses (outputs 0, 1); PopTorch trains on one final loss.")):
        poptorch.trainingModel(TwoLosses())(*_data())


def test_identity_loss_with_an_unknown_reduction() -> None:
    with pytest.raises(ValueError, match=re.escape('identity_loss: reduction must be "sum", "mean" or "none", got \'avg\'')):
        poptorch.identity_loss(torch.ones(2), reduction="avg")

"""Error catalogue, optimizers: what trainingModel and setOptimizer accept.

Issue 20: a list passed as the optimizer raised AttributeError 'state_dict'; lr=0.0 was
refused although torch accepts it (learning-rate warm-up starts from it). The lr check
is tested at its boundary: 0 accepted, below 0 and non-finite refused.
"""

from __future__ import annotations

import copy
import re

import pytest
import torch
from helpers import FP32
from helpers.checks import assert_parameters_close
from torch import nn

import poptorch


class Regression(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.fc(x)
        return out, nn.functional.mse_loss(out, y)


def _data() -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    return torch.randn(2, 4, generator=generator), torch.randn(2, 3, generator=generator)


def test_a_list_of_optimizers() -> None:
    model = Regression()
    with pytest.raises(TypeError, match=re.escape(
            "poptorch.trainingModel: optimizer must be a torch.optim.Optimizer, got a list of 1 item(s). A PopTorch "
            "model trains with one optimizer: pass the optimizer itself, not a list")):
        poptorch.trainingModel(model, optimizer=[torch.optim.SGD(model.parameters(), lr=0.1)])


def test_the_optimizer_class_instead_of_an_optimizer() -> None:
    with pytest.raises(TypeError, match=re.escape(
            "got the class torch.optim.sgd.SGD. Create an optimizer object with the model's parameters")):
        poptorch.trainingModel(Regression(), optimizer=torch.optim.SGD)


def test_a_learning_rate_scheduler_instead_of_its_optimizer() -> None:
    model = Regression()
    scheduler = torch.optim.lr_scheduler.StepLR(torch.optim.SGD(model.parameters(), lr=0.1), step_size=1)
    with pytest.raises(TypeError, match=re.escape(
            "got the learning-rate scheduler StepLR. Pass the optimizer the scheduler drives, and after "
            "scheduler.step() call model.setOptimizer(optimizer).")):
        poptorch.trainingModel(model, optimizer=scheduler)


def test_set_optimizer_with_a_list() -> None:
    model = Regression()
    training = poptorch.trainingModel(model, optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    with pytest.raises(TypeError, match=re.escape("setOptimizer(): optimizer must be a torch.optim.Optimizer, got a list")):
        training.setOptimizer([torch.optim.SGD(model.parameters(), lr=0.2)])


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "LAMB"])
def test_zero_learning_rate_is_accepted_and_leaves_the_weights(name: str) -> None:
    model = Regression()
    reference = copy.deepcopy(model)
    training = poptorch.trainingModel(model, optimizer=getattr(poptorch.optim, name)(model.parameters(), lr=0.0))
    x, y = _data()
    training(x, y)
    training.copyWeightsToHost()
    assert_parameters_close(model, reference, {"rtol": 0, "atol": 0})


def test_warm_up_from_zero_matches_torch() -> None:
    model, reference = Regression(), Regression()
    reference.load_state_dict(model.state_dict())
    optimizer = poptorch.optim.SGD(model.parameters(), lr=0.0, momentum=0.9)
    eager = torch.optim.SGD(reference.parameters(), lr=0.0, momentum=0.9)
    training = poptorch.trainingModel(model, optimizer=optimizer)
    x, y = _data()
    for lr in (0.0, 0.05, 0.1):
        for group in (*optimizer.param_groups, *eager.param_groups):
            group["lr"] = lr
        training.setOptimizer(optimizer)
        _, loss = training(x, y)
        eager.zero_grad()
        _, eager_loss = reference(x, y)
        eager_loss.backward()
        eager.step()
        torch.testing.assert_close(loss, eager_loss.detach(), **FP32)
    training.copyWeightsToHost()
    assert_parameters_close(model, reference)


@pytest.mark.parametrize(("lr", "shown"), [(-1e-9, "lr=-1e-09"), (float("nan"), "lr=nan"), (float("inf"), "lr=inf")])
def test_negative_or_non_finite_learning_rate(lr: float, shown: str) -> None:
    with pytest.raises(ValueError, match=re.escape(f"poptorch.optim.Adam: {shown}: lr must be a finite number, at least 0")):
        poptorch.optim.Adam(Regression().parameters(), lr=lr)


def test_amsgrad() -> None:
    with pytest.raises(ValueError, match=re.escape(
            "poptorch.optim.Adam: amsgrad=True is not supported: the IPU's Adam and AdamW updates have no AMSGrad variant")):
        poptorch.optim.Adam(Regression().parameters(), lr=0.1, amsgrad=True)


def test_a_subclass_of_a_torch_optimizer() -> None:
    class MySGD(torch.optim.SGD):
        pass

    model = Regression()
    with pytest.raises(TypeError, match=re.escape("MySGD is a subclass of torch.optim.SGD: the IPU would apply "
                                                  "torch.optim.SGD's update, not the subclass's step()")):
        poptorch.trainingModel(model, optimizer=MySGD(model.parameters(), lr=0.1))(*_data())


def test_set_optimizer_of_another_type() -> None:
    model = Regression()
    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(model.parameters(), lr=0.1))
    training(*_data())
    with pytest.raises(ValueError, match=re.escape(
            "setOptimizer(): the new optimizer differs from the compiled one in its type")):
        training.setOptimizer(poptorch.optim.Adam(model.parameters(), lr=0.1))


def test_set_optimizer_on_an_inference_model() -> None:
    with pytest.raises(RuntimeError, match=re.escape(
            "setOptimizer() applies to training models (poptorch.trainingModel) only")):
        poptorch.inferenceModel(nn.Linear(4, 3)).setOptimizer(torch.optim.SGD(nn.Linear(4, 3).parameters(), lr=0.1))


@pytest.mark.parametrize(("betas", "shown"), [((1.0, 0.999), "betas=(1.0, 0.999)"), ((-0.1, 0.999), "betas=(-0.1, 0.999)")])
def test_adam_beta1_outside_0_1(betas: tuple[float, float], shown: str) -> None:
    with pytest.raises(ValueError, match=re.escape(f"poptorch.optim.Adam: {shown}: beta1 must be in [0, 1)")):
        poptorch.optim.Adam(Regression().parameters(), lr=0.1, betas=betas)


def test_a_model_without_parameters() -> None:
    class Parameterless(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return poptorch.identity_loss(x.sum(), reduction="sum")

    with pytest.raises(ValueError, match=re.escape(
            "poptorch.trainingModel: Parameterless has no parameters, so there is nothing to train; use "
            "poptorch.inferenceModel to run it")):
        poptorch.trainingModel(Parameterless())

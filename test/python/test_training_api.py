"""poptorch.trainingModel API behaviour (SEMANTICS.md "Wrapping and weights", "Training",
"Batching"): the weight-sync rules, errors for bad inputs, output shapes in training,
randomSeed and fp16 training. Numerics per optimizer are in test_training.py.

Tests that fail because of a bug in poptorch are marked ``xfail(strict=True)`` with the
bug in the reason.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable
from typing import Any

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from helpers import EXACT, FP16_TRAINED, FP32
from helpers.checks import assert_state_dicts_close, eager_accumulated_step
from helpers.models import MLPClassifier, RefLAMB

import poptorch
from poptorch import OutputMode

B = 4  # micro-batch


class CNN(nn.Module):
    """Conv -> BatchNorm -> ReLU -> MaxPool -> Linear, with CrossEntropyLoss."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(4 * 4 * 4, 3)
        self.loss = nn.CrossEntropyLoss()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.pool(F.relu(self.bn(self.conv(x))))
        out = self.fc(h.flatten(1))
        return out, self.loss(out, y)


class DropoutMLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l1 = nn.Linear(6, 32)
        self.drop = nn.Dropout(0.5)
        self.l2 = nn.Linear(32, 3)
        self.loss = nn.CrossEntropyLoss()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.l2(self.drop(F.relu(self.l1(x))))
        return out, self.loss(out, y)


def _data(n: int = B, seed: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    return MLPClassifier.batch(n, torch.Generator().manual_seed(seed))


X, Y = _data()


def _mlp() -> MLPClassifier:
    torch.manual_seed(0)
    return MLPClassifier()


def _raw(module: nn.Module, name: str) -> torch.Tensor:
    """A parameter read without the host-sync hook (what the host holds right now)."""
    return module.__dict__["_parameters"][name]


def _sgd(model: nn.Module, **kwargs: Any) -> poptorch.optim.SGD:
    return poptorch.optim.SGD(model.parameters(), **{"lr": 0.1, **kwargs})


class Eager:
    """The eager reference: torch.optim.SGD steps on a copy of the model."""

    def __init__(self, model: nn.Module, **kwargs: Any) -> None:
        self.model = copy.deepcopy(model)
        self.optimizer = torch.optim.SGD(self.model.parameters(), **{"lr": 0.1, **kwargs})

    def step(self, n: int = 1, x: torch.Tensor = X, y: torch.Tensor = Y) -> list[torch.Tensor]:
        losses = []
        for _ in range(n):
            self.optimizer.zero_grad()
            loss = self.model(x, y)[1]
            loss.backward()
            self.optimizer.step()
            losses.append(loss.detach())
        return losses


@pytest.fixture
def wrappers():
    """Destroys the training wrappers a test made (restores the model classes)."""
    made: list[poptorch.PoplarExecutor] = []
    yield made
    for wrapper in made:
        wrapper.destroy()


def _train(model: nn.Module, wrappers: list, options: poptorch.Options | None = None, **sgd: Any):
    training = poptorch.trainingModel(model, options, _sgd(model, **sgd))
    wrappers.append(training)
    return training


# =======================================================================================
# Weight sync
# =======================================================================================
READERS: dict[str, Callable[[MLPClassifier], dict[str, torch.Tensor]]] = {
    "attribute": lambda m: {"l1.weight": m.l1.weight, "l1.bias": m.l1.bias, "l2.weight": m.l2.weight,
                            "l2.bias": m.l2.bias},
    "parameters": lambda m: dict(zip(["l1.weight", "l1.bias", "l2.weight", "l2.bias"], m.parameters(), strict=True)),
    "named_parameters": lambda m: dict(m.named_parameters()),
    "state_dict": lambda m: m.state_dict(),
    "submodule_state_dict": lambda m: {f"l1.{k}": v for k, v in m.l1.state_dict().items()}
    | {f"l2.{k}": v for k, v in m.l2.state_dict().items()},
}


@pytest.mark.parametrize("reader", list(READERS))
def test_reading_the_model_after_training_syncs_lazily(reader: str, wrappers: list) -> None:
    model = _mlp()
    initial = copy.deepcopy(model.state_dict())
    eager = Eager(model)
    training = _train(model, wrappers)
    for _ in range(3):
        training(X, Y)
    eager.step(3)
    # Lazy: nothing has come back to the host yet.
    torch.testing.assert_close(_raw(model.l1, "weight"), initial["l1.weight"], **EXACT)
    got = READERS[reader](model)
    want = dict(eager.model.named_parameters())
    for name, value in got.items():
        torch.testing.assert_close(value.detach(), want[name].detach(), **FP32, msg=lambda m, n=name: f"{n}: {m}")
    assert training.copyWeightsToHostIfNeeded() is False  # the read already synced


def test_copy_weights_to_host(wrappers: list) -> None:
    model = _mlp()
    initial = _raw(model.l1, "weight").detach().clone()
    eager = Eager(model)
    training = _train(model, wrappers)
    training(X, Y)
    training(X, Y)
    eager.step(2)
    assert torch.equal(_raw(model.l1, "weight"), initial)
    training.copyWeightsToHost()
    torch.testing.assert_close(_raw(model.l1, "weight").detach(), eager.model.l1.weight.detach(), **FP32)
    torch.testing.assert_close(_raw(model.l2, "bias").detach(), eager.model.l2.bias.detach(), **FP32)
    assert training.copyWeightsToHostIfNeeded() is False


def test_copy_weights_to_host_if_needed(wrappers: list) -> None:
    model = _mlp()
    training = _train(model, wrappers)
    assert training.copyWeightsToHostIfNeeded() is False  # not compiled
    training.compile(X, Y)
    assert training.copyWeightsToHostIfNeeded() is False  # compiled, nothing trained
    training(X, Y)
    assert training.copyWeightsToHostIfNeeded() is True  # the device copy is newer
    assert training.copyWeightsToHostIfNeeded() is False  # now the host is up to date
    training(X, Y)
    _ = model.l1.weight  # a host read syncs
    assert training.copyWeightsToHostIfNeeded() is False
    training(X, Y)
    training.copyWeightsToHost()
    assert training.copyWeightsToHostIfNeeded() is False


def test_copy_weights_to_device_uploads_host_changes(wrappers: list) -> None:
    model = _mlp()
    eager = Eager(model)
    training = _train(model, wrappers)
    training(X, Y)
    training(X, Y)
    eager.step(2)
    with torch.no_grad():
        for p in model.parameters():  # reading syncs first, then the host copy is changed
            p.mul_(0.5)
        for p in eager.model.parameters():
            p.mul_(0.5)
    training.copyWeightsToDevice()
    training(X, Y)
    eager.step(1)
    assert_state_dicts_close(model, eager.model)


def test_copy_weights_to_device_without_host_read_keeps_trained_weights(wrappers: list) -> None:
    model = _mlp()
    eager = Eager(model)
    training = _train(model, wrappers)
    training(X, Y)
    training(X, Y)
    training.copyWeightsToDevice()
    training(X, Y)
    eager.step(3)
    assert_state_dicts_close(model, eager.model)


def test_copy_weights_to_device_keeps_optimizer_state(wrappers: list) -> None:
    model = _mlp()
    eager = Eager(model, momentum=0.9)
    training = _train(model, wrappers, momentum=0.9)
    training(X, Y)
    training(X, Y)
    model.state_dict()  # sync the weights to the host first
    training.copyWeightsToDevice()
    training(X, Y)
    training(X, Y)
    eager.step(4)
    assert_state_dicts_close(model, eager.model)


def _inference_matches(inference: poptorch.PoplarExecutor, eager: Eager) -> None:
    with torch.no_grad():
        want = eager.model(X)
    torch.testing.assert_close(inference(X), want, **FP32)


def test_inference_wrapper_made_after_training_stays_in_sync(wrappers: list) -> None:
    model = _mlp()
    eager = Eager(model, momentum=0.9)
    training = _train(model, wrappers, momentum=0.9)
    training(X, Y)
    eager.step()
    inference = poptorch.inferenceModel(model)
    for _ in range(3):
        _inference_matches(inference, eager)
        training(X, Y)
        training(X, Y)
        eager.step(2)
    _inference_matches(inference, eager)


def test_inference_wrapper_made_before_training_stays_in_sync(wrappers: list) -> None:
    model = _mlp()
    eager = Eager(model)
    inference = poptorch.inferenceModel(model)
    _inference_matches(inference, eager)
    training = _train(model, wrappers)
    for _ in range(2):
        training(X, Y)
        training(X, Y)
        eager.step(2)
        _inference_matches(inference, eager)


def test_inference_wrapper_of_a_model_with_its_loss(wrappers: list) -> None:
    model = _mlp()
    eager = Eager(model)
    training = _train(model, wrappers)
    training(X, Y)
    eager.step()
    inference = poptorch.inferenceModel(model)
    out, loss = inference(X, Y)
    with torch.no_grad():
        want_out, want_loss = eager.model(X, Y)
    torch.testing.assert_close(out, want_out, **FP32)
    torch.testing.assert_close(loss, want_loss, **FP32)


def test_load_state_dict_then_copy_weights_to_device(wrappers: list) -> None:
    model = _mlp()
    initial = copy.deepcopy(model.state_dict())
    eager = Eager(model)
    training = _train(model, wrappers)
    training(X, Y)
    training(X, Y)
    model.load_state_dict(initial)
    training.copyWeightsToDevice()
    training(X, Y)
    eager.step(1)  # one step from the initial weights
    assert_state_dicts_close(model, eager.model)


def test_model_load_state_dict_after_training_is_what_reads_return(wrappers: list) -> None:
    model = _mlp()
    initial = copy.deepcopy(model.state_dict())
    training = _train(model, wrappers)
    training(X, Y)
    training(X, Y)
    model.load_state_dict(initial)
    torch.testing.assert_close(model.l1.weight.detach(), initial["l1.weight"], **EXACT)


def test_executor_load_state_dict_resyncs_the_device(wrappers: list) -> None:
    model = _mlp()
    initial = copy.deepcopy(model.state_dict())
    eager = Eager(model)
    training = _train(model, wrappers)
    training(X, Y)
    training(X, Y)
    training.load_state_dict(initial)
    training(X, Y)
    eager.step(1)
    assert_state_dicts_close(model, eager.model)


def test_batchnorm_running_statistics_are_updated_on_device(wrappers: list) -> None:
    torch.manual_seed(0)
    model = CNN()
    reference = copy.deepcopy(model)
    generator = torch.Generator().manual_seed(3)
    batches = [(torch.randn(2 * B, 2, 8, 8, generator=generator), torch.randint(0, 3, (2 * B,), generator=generator))
               for _ in range(3)]
    options = poptorch.Options()
    options.Training.gradientAccumulation(2)
    training = poptorch.trainingModel(model, options, _sgd(model, momentum=0.9))
    wrappers.append(training)
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    for x, y in batches:
        training(x, y)
        eager_accumulated_step(reference, optimizer, B, x, y)
    torch.testing.assert_close(model.bn.running_mean, reference.bn.running_mean, **FP32)
    torch.testing.assert_close(model.bn.running_var, reference.bn.running_var, **FP32)
    assert int(model.bn.num_batches_tracked) == int(reference.bn.num_batches_tracked) == 6
    assert_state_dicts_close(model, reference)


def test_torch_save_after_training_gives_trained_weights(tmp_path, wrappers: list) -> None:
    model = _mlp()
    eager = Eager(model, momentum=0.9)
    training = _train(model, wrappers, momentum=0.9)
    for _ in range(3):
        training(X, Y)
    eager.step(3)
    path = tmp_path / "model.pt"
    torch.save(model.state_dict(), path)
    loaded = torch.load(path)
    want = eager.model.state_dict()
    assert list(loaded) == list(want)
    for name in want:
        torch.testing.assert_close(loaded[name], want[name], **FP32)
    # And into a fresh model.
    fresh = MLPClassifier()
    fresh.load_state_dict(loaded)
    assert_state_dicts_close(fresh, eager.model)


def test_set_optimizer_changes_lr_without_recompiling(wrappers: list) -> None:
    model = _mlp()
    eager = Eager(model, momentum=0.9)
    optimizer = _sgd(model, momentum=0.9)
    training = poptorch.trainingModel(model, None, optimizer)
    wrappers.append(training)
    training(X, Y)
    training(X, Y)
    eager.step(2)
    compiled = training._compiled
    optimizer.param_groups[0]["lr"] = 0.02
    training.setOptimizer(optimizer)
    eager.optimizer.param_groups[0]["lr"] = 0.02
    losses = [training(X, Y)[1] for _ in range(2)]
    want = eager.step(2)
    assert training._compiled is compiled
    for got, expected in zip(losses, want, strict=True):
        torch.testing.assert_close(got.detach().as_subclass(torch.Tensor), expected, **FP32)
    assert_state_dicts_close(model, eager.model)


def test_set_optimizer_lr_really_changes_the_update(wrappers: list) -> None:
    """The new lr is used: a run that keeps lr = 0.1 ends with different weights."""
    results = []
    for new_lr in (0.1, 0.02):
        model = _mlp()
        optimizer = _sgd(model)
        training = poptorch.trainingModel(model, None, optimizer)
        wrappers.append(training)
        training(X, Y)
        optimizer.param_groups[0]["lr"] = new_lr
        training.setOptimizer(optimizer)
        training(X, Y)
        results.append(model.l1.weight.detach().clone())
    assert not torch.allclose(results[0], results[1])


# -- the optimizer's state_dict() holds the device state -----------------------------------
STATE_CASES: dict[str, tuple[Callable, Callable]] = {
    "sgd_momentum": (lambda p: poptorch.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1),
                     lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1)),
    "sgd_combined_velocity_scaling": (
        lambda p: poptorch.optim.SGD(p, lr=0.1, momentum=0.9, use_combined_accum=True, velocity_scaling=8.0,
                                     loss_scaling=4.0),
        lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9)),
    "adam": (lambda p: poptorch.optim.Adam(p, lr=0.01), lambda p: torch.optim.Adam(p, lr=0.01)),
    "adamw": (lambda p: poptorch.optim.AdamW(p, lr=0.01), lambda p: torch.optim.AdamW(p, lr=0.01)),
    "rmsprop_centered_momentum": (lambda p: poptorch.optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True),
                                  lambda p: torch.optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True)),
    "lamb": (lambda p: poptorch.optim.LAMB(p, lr=0.01, betas=(0.9, 0.999), weight_decay=0.01),
             lambda p: RefLAMB(p, lr=0.01, betas=(0.9, 0.999), weight_decay=0.01)),
}


@pytest.mark.parametrize(
    "case", STATE_CASES
)
def test_optimizer_state_dict_holds_the_device_state(case: str, wrappers: list) -> None:
    make, make_reference = STATE_CASES[case]
    model = _mlp()
    reference = copy.deepcopy(model)
    optimizer = make(model.parameters())
    training = poptorch.trainingModel(model, None, optimizer)
    wrappers.append(training)
    ref_optimizer = make_reference(reference.parameters())
    for _ in range(3):
        training(X, Y)
        ref_optimizer.zero_grad()
        reference(X, Y)[1].backward()
        ref_optimizer.step()
    state = optimizer.state_dict()["state"]
    ref_params = list(reference.parameters())
    assert sorted(state) == list(range(len(ref_params)))
    for index, ref_param in enumerate(ref_params):
        want = ref_optimizer.state[ref_param]
        got = state[index]
        for key, value in want.items():
            assert key in got, f"param {index}: state {key!r} missing (has {sorted(got)})"
            if key == "step":
                assert float(got[key]) == float(value), (key, got[key], value)
            else:
                torch.testing.assert_close(got[key], value, **FP32, msg=lambda m, i=index, k=key: f"{i} {k}: {m}")
    assert_state_dicts_close(model, reference)


def test_optimizer_state_dict_continues_on_the_cpu(wrappers: list) -> None:
    """The downloaded Adam state is torch's: loading it into torch.optim.Adam and stepping
    on the CPU continues the eager run."""
    model = _mlp()
    reference = copy.deepcopy(model)
    optimizer = poptorch.optim.Adam(model.parameters(), lr=0.01)
    training = poptorch.trainingModel(model, None, optimizer)
    wrappers.append(training)
    ref_optimizer = torch.optim.Adam(reference.parameters(), lr=0.01)
    for _ in range(3):
        training(X, Y)
        ref_optimizer.zero_grad()
        reference(X, Y)[1].backward()
        ref_optimizer.step()
    state = optimizer.state_dict()
    training.destroy()
    wrappers.remove(training)
    cpu = torch.optim.Adam(model.parameters(), lr=0.01)
    cpu.load_state_dict(state)
    for opt, net in ((cpu, model), (ref_optimizer, reference)):
        opt.zero_grad()
        net(X, Y)[1].backward()
        opt.step()
    assert_state_dicts_close(model, reference)


def test_destroy_restores_the_model_class(wrappers: list) -> None:
    model = _mlp()
    eager = Eager(model)
    classes = {name: type(module) for name, module in model.named_modules()}
    training = poptorch.trainingModel(model, None, _sgd(model))
    training(X, Y)
    training(X, Y)
    eager.step(2)
    assert type(model) is not MLPClassifier and isinstance(model, MLPClassifier)  # the host-sync subclass while wrapped
    training.destroy()
    for name, module in model.named_modules():
        assert type(module) is classes[name], name
    assert type(model) is MLPClassifier
    assert type(model.l1) is nn.Linear
    # destroy() brought the trained weights back first.
    assert_state_dicts_close(model, eager.model)
    # The model can be wrapped again.
    again = _train(model, wrappers)
    again(X, Y)
    eager.step()
    assert_state_dicts_close(model, eager.model)


# =======================================================================================
# Bad inputs
# =======================================================================================
class NoLoss(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l1 = nn.Linear(6, 3)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self.l1(x)


class TwoLosses(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l1 = nn.Linear(6, 3)
        self.a = nn.CrossEntropyLoss()
        self.b = nn.CrossEntropyLoss()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.l1(x)
        return self.a(out, y), self.b(out * 2, y)


def test_error_no_loss(wrappers: list) -> None:
    torch.manual_seed(0)
    model = NoLoss()
    training = _train(model, wrappers)
    with pytest.raises(RuntimeError, match=r"forward returns no loss, so there is nothing to train.*identity_loss"):
        training(X, Y)


def test_error_several_independent_losses(wrappers: list) -> None:
    torch.manual_seed(0)
    model = TwoLosses()
    training = _train(model, wrappers)
    with pytest.raises(RuntimeError, match=r"several independent losses \(outputs 0, 1\).*Combine them"):
        training(X, Y)




def test_combined_losses_are_accepted(wrappers: list) -> None:
    """The fix the message suggests works: one final identity_loss over both."""

    class Combined(TwoLosses):
        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            a, b = super().forward(x, y)
            return poptorch.identity_loss(a + b, reduction="none")

    torch.manual_seed(0)
    model = Combined()
    reference = copy.deepcopy(model)
    training = _train(model, wrappers)
    loss = training(X, Y)
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    want = reference(X, Y)
    want.backward()
    optimizer.step()
    torch.testing.assert_close(loss.detach().as_subclass(torch.Tensor), want.detach(), **FP32)
    assert_state_dicts_close(model, reference)


class SquaredOutput(nn.Module):
    def __init__(self, reduction: str) -> None:
        super().__init__()
        self.l1 = nn.Linear(6, 3)
        self.reduction = reduction

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return poptorch.identity_loss(self.l1(x) ** 2, reduction=self.reduction)


@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_identity_loss_trains(reduction: str, wrappers: list) -> None:
    torch.manual_seed(0)
    model = SquaredOutput(reduction)
    reference = copy.deepcopy(model)
    training = _train(model, wrappers)
    losses = [training(X) for _ in range(2)]
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    for got in losses:
        optimizer.zero_grad()
        squared = reference.l1(X) ** 2
        want = squared.sum() if reduction == "sum" else squared.mean()
        want.backward()
        optimizer.step()
        torch.testing.assert_close(got.detach().as_subclass(torch.Tensor), want.detach(), **FP32)
    assert_state_dicts_close(model, reference)


BACKWARD = re.escape("backward() was called on an output of a PopTorch training model")


def test_error_backward_on_the_loss(wrappers: list) -> None:
    model = _mlp()
    training = _train(model, wrappers)
    _, loss = training(X, Y)
    with pytest.raises(RuntimeError, match=r"backward\(\) was called on an output of a PopTorch training model.*"
                       r"remove the \.backward\(\)"):
        loss.backward()


def test_error_backward_on_another_output(wrappers: list) -> None:
    model = _mlp()
    training = _train(model, wrappers)
    out, _ = training(X, Y)
    with pytest.raises(RuntimeError, match=BACKWARD):
        out.backward(torch.ones_like(out))


@pytest.mark.parametrize("cls", [poptorch.optim.Adam, poptorch.optim.AdamW])
def test_error_amsgrad_poptorch_optimizer(cls: type) -> None:
    model = _mlp()
    with pytest.raises(ValueError, match=rf"poptorch.optim.{cls.__name__}: amsgrad=True is not supported"):
        cls(model.parameters(), lr=0.01, amsgrad=True)


@pytest.mark.parametrize("cls", [torch.optim.Adam, torch.optim.AdamW])
def test_error_amsgrad_torch_optimizer(cls: type, wrappers: list) -> None:
    model = _mlp()
    training = poptorch.trainingModel(model, None, cls(model.parameters(), lr=0.01, amsgrad=True))
    wrappers.append(training)
    with pytest.raises(ValueError, match=r"amsgrad=True is not supported.*amsgrad=False"):
        training(X, Y)


def test_error_gradient_accumulation_on_inference_model() -> None:
    options = poptorch.Options()
    options.Training.gradientAccumulation(2)
    with pytest.raises(ValueError, match=r"gradientAccumulation\(2\): gradient accumulation only applies to "
                       r"training, so an inference model needs 1"):
        poptorch.inferenceModel(_mlp(), options)


def test_error_double_wrapping(wrappers: list) -> None:
    model = _mlp()
    first = _train(model, wrappers)
    with pytest.raises(RuntimeError, match=r"already wrapped by poptorch.trainingModel; call destroy\(\)"):
        poptorch.trainingModel(model)
    with pytest.raises(TypeError, match=r"already a PopTorch model.*call destroy\(\)"):
        poptorch.trainingModel(first)
    first.destroy()
    wrappers.remove(first)
    _train(model, wrappers)  # fine after destroy()


# =======================================================================================
# Output shapes in training (D = 2, G = 2: four micro-batches per call)
# =======================================================================================
def _eager_micro_losses(model: MLPClassifier, x: torch.Tensor, y: torch.Tensor, d: int, g: int) -> torch.Tensor:
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for step in range(d):
        rows = slice(step * g * B, (step + 1) * g * B)
        losses += eager_accumulated_step(model, optimizer, B, x[rows], y[rows])[0]
    return torch.stack(losses)


# mode, period -> (loss shape, output shape, which micro-batch losses, reduce)
SHAPES = {
    "Default": (None, None, [], [B, 3], [3], None),
    "Final": (OutputMode.Final, None, [], [B, 3], [3], None),
    "All": (OutputMode.All, None, [4], [4 * B, 3], [0, 1, 2, 3], None),
    "EveryN2": (OutputMode.EveryN, 2, [2], [2 * B, 3], [1, 3], None),
    "Sum": (OutputMode.Sum, None, [], [B, 3], [0, 1, 2, 3], "sum"),
}


@pytest.mark.parametrize("mode_name", list(SHAPES))
def test_output_shapes_in_training(mode_name: str, wrappers: list) -> None:
    mode, period, loss_shape, out_shape, picked, reduce = SHAPES[mode_name]
    model = _mlp()
    reference = copy.deepcopy(model)
    options = poptorch.Options().deviceIterations(2)
    options.Training.gradientAccumulation(2)
    if mode is not None:
        options.outputMode(mode, period) if period is not None else options.outputMode(mode)
    training = _train(model, wrappers, options)
    x, y = _data(4 * B, seed=5)
    out, loss = training(x, y)
    assert list(loss.shape) == loss_shape
    assert list(out.shape) == out_shape
    micro = _eager_micro_losses(reference, x, y, 2, 2)
    want = micro[picked]
    want = want.sum() if reduce == "sum" else want.reshape(loss_shape)
    torch.testing.assert_close(loss.detach().as_subclass(torch.Tensor), want, **FP32)


# =======================================================================================
# randomSeed
# =======================================================================================
def _train_dropout(seed: int | None, base: nn.Module) -> tuple[list[float], torch.Tensor]:
    model = copy.deepcopy(base)
    options = poptorch.Options()
    if seed is not None:
        options.randomSeed(seed)
    training = poptorch.trainingModel(model, options, _sgd(model))
    x, y = _data(8 * B, seed=2)
    losses = [float(training(x, y)[1]) for _ in range(3)]
    training.destroy()
    return losses, model.l1.weight.detach().clone()


def test_random_seed_makes_dropout_training_repeatable() -> None:
    torch.manual_seed(0)
    base = DropoutMLP()
    first = _train_dropout(42, base)
    second = _train_dropout(42, base)
    other = _train_dropout(7, base)
    assert first[0] == second[0]
    assert torch.equal(first[1], second[1])
    assert first[0] != other[0]
    assert not torch.equal(first[1], other[1])


def test_dropout_is_active_in_training() -> None:
    """Dropout really drops on the device: the first loss differs from the no-dropout loss."""
    torch.manual_seed(0)
    base = DropoutMLP()
    losses, _ = _train_dropout(42, base)
    x, y = _data(8 * B, seed=2)
    with torch.no_grad():
        plain = float(base.loss(base.l2(F.relu(base.l1(x))), y))
    assert not math.isclose(losses[0], plain, rel_tol=1e-6)


# =======================================================================================
# fp16
# =======================================================================================
def test_half_model_trains(wrappers: list) -> None:
    torch.manual_seed(0)
    model = MLPClassifier().half()
    eager = Eager(model)
    training = _train(model, wrappers)
    x, y = _data(4 * B, seed=4)
    x = x.half()
    losses = [training(x, y)[1].detach().as_subclass(torch.Tensor) for _ in range(6)]
    want = eager.step(6, x, y)
    assert all(loss.dtype == torch.float16 for loss in losses)
    assert all(torch.isfinite(loss) for loss in losses)
    assert float(losses[-1]) < float(losses[0])
    torch.testing.assert_close(torch.stack(losses), torch.stack(want), **FP16_TRAINED)
    for p in model.parameters():
        assert p.dtype == torch.float16
    assert_state_dicts_close(model, eager.model, FP16_TRAINED)

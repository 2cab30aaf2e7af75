"""Replicated tensor sharding of the optimizer state (SEMANTICS "Tensor locations"):
``setOptimizerLocation(TensorLocationSettings().useReplicatedTensorSharding(True))`` with
replicationFactor R > 1 keeps 1/R of each state tensor (of at least
``minElementsForReplicatedTensorSharding`` elements, padded to R equal parts) on each
replica. Gradients are reduce-scattered, each replica updates its part of the weight, the
parts are all-gathered. The memory plan holds the state at 1/R bytes per replica, and the
numbers are eager PyTorch's (and the unsharded replicated run's)."""

from __future__ import annotations

import copy
import math

import pytest
import torch

import poptorch
from helpers import FP32, bounded_replicas  # noqa: F401 - the fixture, used by pytestmark
from helpers.models import Regression, regression_batches

STEPS = 3
MICRO = 3


pytestmark = pytest.mark.usefixtures("bounded_replicas")  # replicas meet at collectives: never wait forever


def _batches(size: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    return regression_batches(size, STEPS)


OPTIMIZERS = {
    "sgd_momentum": (lambda params: torch.optim.SGD(params, lr=0.05, momentum=0.9), ("momentum_buffer",)),
    "adam": (lambda params: torch.optim.Adam(params, lr=0.01), ("exp_avg", "exp_avg_sq")),
}


def _eager(model: torch.nn.Module, make, batches, micro: int) -> tuple[torch.nn.Module, torch.optim.Optimizer]:
    """One update per host batch over the mean of its micro-batches' losses."""
    model = copy.deepcopy(model)
    optimizer = make(model.parameters())
    for x, y in batches:
        optimizer.zero_grad()
        torch.stack([model(xs, ys)[1] for xs, ys in zip(x.split(micro), y.split(micro), strict=True)]).mean().backward()
        optimizer.step()
    return model, optimizer


def _train(make, replicas: int, optimizer_location: poptorch.TensorLocationSettings | None,
           accumulation: int = 1, optimizer_factory=None):
    model = Regression()
    options = poptorch.Options().replicationFactor(replicas)
    if accumulation > 1:
        options.Training.gradientAccumulation(accumulation)
    if optimizer_location is not None:
        options.TensorLocations.setOptimizerLocation(optimizer_location)
    optimizer = (optimizer_factory or make)(model.parameters())
    training = poptorch.trainingModel(model, options, optimizer)
    for x, y in _batches(MICRO * replicas * accumulation):
        training(x, y)
    training.copyWeightsToHost()
    return model, optimizer, training


def _sharded(min_elements: int = 0) -> poptorch.TensorLocationSettings:
    return poptorch.TensorLocationSettings().useReplicatedTensorSharding(True).minElementsForReplicatedTensorSharding(
        min_elements)


def _state_bytes(model: torch.nn.Module, states: int, replicas: int, sharded) -> int:
    """Bytes of the state tensors per replica: a sharded one ceil(n / R) elements, else n."""
    total = 0
    for _, param in model.named_parameters():
        n = param.numel()
        total += states * 4 * (math.ceil(n / replicas) if sharded(n) else n)
    return total


@pytest.mark.parametrize("replicas", [2, 4])
@pytest.mark.parametrize("kind", sorted(OPTIMIZERS))
def test_sharded_state_trains_as_eager_and_takes_one_rth_of_the_bytes(kind: str, replicas: int) -> None:
    make, torch_states = OPTIMIZERS[kind]
    reference, eager_optimizer = _eager(Regression(), make, _batches(MICRO * replicas), MICRO)
    whole_model, _, whole = _train(make, replicas, None)
    model, optimizer, training = _train(make, replicas, _sharded())
    for (name, got), (_, want), (_, unsharded) in zip(model.named_parameters(), reference.named_parameters(),
                                                      whole_model.named_parameters(), strict=True):
        torch.testing.assert_close(got, want, **FP32, msg=f"{name} against eager")
        torch.testing.assert_close(got, unsharded, **FP32, msg=f"{name} against the unsharded replicated run")
    # The state read back (state_dict) joins every replica's part: torch's state after the same steps.
    got_state, want_state = optimizer.state_dict()["state"], eager_optimizer.state_dict()["state"]
    for index, (name, _) in enumerate(model.named_parameters()):
        for key in torch_states:
            torch.testing.assert_close(got_state[index][key], want_state[index][key], **FP32, msg=f"{name} {key}")
    # Memory per replica: every state tensor (bias vectors too: minimum 0) at ceil(n / R) elements.
    states = len(torch_states)
    saved = _state_bytes(model, states, replicas, lambda n: False) - _state_bytes(model, states, replicas, lambda n: True)
    assert saved > 0
    assert training._compiled.memory_per_ipu()[0]["variables"] == whole._compiled.memory_per_ipu()[0]["variables"] - saved
    text = training._compiled.ir_text()
    assert "poplar.gcl_reduce_scatter" in text and "poplar.gcl_all_gather" in text
    assert "poplar.gcl_all_reduce" not in text  # every gradient is reduce-scattered
    assert "poplar.gcl_reduce_scatter" not in whole._compiled.ir_text()
    part = math.ceil(15 * 6 / replicas)
    assert (f'poplar.replica_shard = #poplar.replica_shard<array<i64: 15, 6>, {replicas} : i64>' in text
            and f"tensor<{part}xf32>" in text)


def test_min_elements_keeps_small_state_whole() -> None:
    """Only state of at least minElementsForReplicatedTensorSharding elements is sharded: the
    two matrices (90, 45 elements), not the biases (15, 3); the biases' gradients are all-reduced."""
    make, _ = OPTIMIZERS["adam"]
    reference, _ = _eager(Regression(), make, _batches(MICRO * 2), MICRO)
    whole_model, _, whole = _train(make, 2, None)
    model, _, training = _train(make, 2, _sharded(45))
    for (name, got), (_, want) in zip(model.named_parameters(), reference.named_parameters(), strict=True):
        torch.testing.assert_close(got, want, **FP32, msg=name)
    saved = 2 * 4 * ((90 - 45) + (45 - 23))  # two moments, each matrix at ceil(n / 2)
    assert training._compiled.memory_per_ipu()[0]["variables"] == whole._compiled.memory_per_ipu()[0]["variables"] - saved
    text = training._compiled.ir_text()
    assert text.count("poplar.replica_shard = ") == 4 and "poplar.gcl_all_reduce" in text


def test_sharded_state_with_gradient_accumulation() -> None:
    make, _ = OPTIMIZERS["adam"]
    reference, _ = _eager(Regression(), make, _batches(MICRO * 2 * 2), MICRO)
    model, _, training = _train(make, 2, _sharded(), accumulation=2)
    for (name, got), (_, want) in zip(model.named_parameters(), reference.named_parameters(), strict=True):
        torch.testing.assert_close(got, want, **FP32, msg=name)
    assert "poplar.gcl_reduce_scatter" in training._compiled.ir_text()


def test_sharded_state_with_gradient_clipping_matches_the_unsharded_run() -> None:
    """Clipping needs the global norm of whole gradients: they are all-reduced, then each
    replica takes its part (reduce_scatter op local); the numbers are the unsharded run's."""
    def make(params):
        return poptorch.optim.SGD(params, lr=0.05, momentum=0.9, max_grad_norm=0.05)

    whole_model, _, _ = _train(make, 2, None)
    model, _, training = _train(make, 2, _sharded())
    for (name, got), (_, want) in zip(model.named_parameters(), whole_model.named_parameters(), strict=True):
        torch.testing.assert_close(got, want, **FP32, msg=name)
    text = training._compiled.ir_text()
    assert 'op = "local"' in text and "poplar.gcl_all_reduce" in text


def test_sharded_state_off_chip_streams_one_rth() -> None:
    make, _ = OPTIMIZERS["adam"]
    reference, _ = _eager(Regression(), make, _batches(MICRO * 2), MICRO)
    off_chip = poptorch.TensorLocationSettings().useOnChipStorage(False)
    _, _, whole = _train(make, 2, off_chip)
    model, _, training = _train(make, 2, _sharded().useOnChipStorage(False))
    for (name, got), (_, want) in zip(model.named_parameters(), reference.named_parameters(), strict=True):
        torch.testing.assert_close(got, want, **FP32, msg=name)
    assert whole._compiled.memory_per_ipu()[0]["streaming"] == 2 * 4 * (90 + 15 + 45 + 3)
    assert training._compiled.memory_per_ipu()[0]["streaming"] == 2 * 4 * (45 + 8 + 23 + 2)


def test_lamb_refuses_sharded_state() -> None:
    model = Regression()
    options = poptorch.Options().replicationFactor(2)
    options.TensorLocations.setOptimizerLocation(_sharded())
    training = poptorch.trainingModel(model, options, poptorch.optim.LAMB(model.parameters(), lr=0.01))
    x, y = _batches(MICRO * 2)[0]
    with pytest.raises(Exception, match=r"replicated tensor sharding of the optimizer state \(.*net.0.weight.*\) is not "
                                        r"available for LAMB: its trust ratio needs the norms of the whole weight"):
        training(x, y)


def test_without_replication_it_warns_once_that_it_has_no_effect(caplog: pytest.LogCaptureFixture) -> None:
    from poptorch import _logging

    _logging.reset_warn_once()
    make, _ = OPTIMIZERS["sgd_momentum"]
    reference, _ = _eager(Regression(), make, _batches(MICRO), MICRO)
    with caplog.at_level("WARNING", logger="poptorch"):
        model, _, training = _train(make, 1, _sharded())
        _train(make, 1, _sharded())
    for (name, got), (_, want) in zip(model.named_parameters(), reference.named_parameters(), strict=True):
        torch.testing.assert_close(got, want, **FP32, msg=name)
    message = ("Options.TensorLocations.setOptimizerLocation(...).useReplicatedTensorSharding(True) was accepted but "
               "has no effect in the IPU Model emulator (it shards the optimizer state across replicas, and "
               "replicationFactor is 1)")
    assert caplog.text.count(message) == 1
    assert "replica_shard" not in training._compiled.ir_text()

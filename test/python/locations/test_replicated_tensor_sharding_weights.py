"""Replicated tensor sharding of weights and gradient accumulators (SEMANTICS "Tensor
locations"): ``setWeightLocation(TensorLocationSettings().useReplicatedTensorSharding(True))``
keeps 1/R of each weight (and of its optimizer state) on each replica, gathered once before
each pass reads it; the gradient is reduce-scattered and the update runs on the parts.
``setAccumulatorLocation(...)`` keeps 1/R of each gradient accumulator: each micro-batch's
gradient is reduce-scattered before it is added. The memory plan counts the parts; weights
and state are eager PyTorch's, and exactly the unsharded replicated run's for sharded weights.
Sharded accumulators sum over replicas before micro-batches (the unsharded run sums over
micro-batches first), so they match that run within fp32 rounding, not bit for bit."""

from __future__ import annotations

import copy
import math
import re

import pytest
import torch
import torch.nn.functional as F

import poptorch
from helpers import EXACT, FP32, bounded_replicas, poptorch_warnings  # noqa: F401 - the fixture, used by pytestmark
from helpers.models import Regression, regression_batches

STEPS = 3
MICRO = 3
SIZES = {"net.0.weight": 90, "net.0.bias": 15, "net.2.weight": 45, "net.2.bias": 3}


pytestmark = pytest.mark.usefixtures("bounded_replicas")  # replicas meet at collectives: never wait forever


def _batches(size: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    return regression_batches(size, STEPS)


OPTIMIZERS = {
    "sgd": (lambda params: torch.optim.SGD(params, lr=0.05), ()),
    "sgd_momentum": (lambda params: torch.optim.SGD(params, lr=0.05, momentum=0.9), ("momentum_buffer",)),
    "adam": (lambda params: torch.optim.Adam(params, lr=0.01), ("exp_avg", "exp_avg_sq")),
}


def _eager(make, micro_batches: int, replicas: int):
    """One update per host batch over the mean of its micro-batches' losses."""
    model = Regression()
    optimizer = make(model.parameters())
    for x, y in _batches(MICRO * replicas * micro_batches):
        optimizer.zero_grad()
        torch.stack([model(xs, ys)[1] for xs, ys in zip(x.split(MICRO), y.split(MICRO), strict=True)]).mean().backward()
        optimizer.step()
    return model, optimizer


def _sharded(min_elements: int = 0) -> poptorch.TensorLocationSettings:
    return poptorch.TensorLocationSettings().useReplicatedTensorSharding(True).minElementsForReplicatedTensorSharding(
        min_elements)


def _train(make, replicas: int, weight=None, optimizer_location=None, accumulator=None, accumulation: int = 1):
    model = Regression()
    options = poptorch.Options().replicationFactor(replicas)
    options.Training.gradientAccumulation(accumulation)
    for setter, location in (("setWeightLocation", weight), ("setOptimizerLocation", optimizer_location),
                             ("setAccumulatorLocation", accumulator)):
        if location is not None:
            getattr(options.TensorLocations, setter)(location)
    optimizer = make(model.parameters())
    training = poptorch.trainingModel(model, options, optimizer)
    losses = [training(x, y)[1].clone() for x, y in _batches(MICRO * replicas * accumulation)]
    training.copyWeightsToHost()
    return model, optimizer, training, losses


def _assert_weights(model, want, tolerance, label: str) -> None:
    for (name, got), (_, value) in zip(model.named_parameters(), want.named_parameters(), strict=True):
        torch.testing.assert_close(got, value, **tolerance, msg=f"{name} against {label}")


def _saved(replicas: int, copies: int, names=SIZES) -> int:
    """Bytes per replica that ``copies`` tensors per weight save by holding ceil(n / R) elements."""
    return copies * 4 * sum(SIZES[name] - math.ceil(SIZES[name] / replicas) for name in names)


def _function(text: str, name: str) -> str:
    """The body of the graph's poplar.function ``name`` in the IR text."""
    end = text.index(f'}}) {{name = "{name}"')
    return text[text.rindex('"poplar.function"() ({', 0, end):end]


@pytest.mark.parametrize("replicas", [2, 4])
@pytest.mark.parametrize("kind", ["sgd_momentum", "adam"])
def test_sharded_weights_train_as_the_unsharded_run_and_take_one_rth(kind: str, replicas: int) -> None:
    make, torch_states = OPTIMIZERS[kind]
    reference, eager_optimizer = _eager(make, 1, replicas)
    whole_model, _, whole, whole_losses = _train(make, replicas)
    model, optimizer, training, losses = _train(make, replicas, weight=_sharded())
    _assert_weights(model, reference, FP32, "eager")
    _assert_weights(model, whole_model, EXACT, "the unsharded replicated run")
    for got, want in zip(losses, whole_losses, strict=True):
        torch.testing.assert_close(got, want, **EXACT)
    got_state, want_state = optimizer.state_dict()["state"], eager_optimizer.state_dict()["state"]
    for index, (name, _) in enumerate(model.named_parameters()):
        for key in torch_states:
            torch.testing.assert_close(got_state[index][key], want_state[index][key], **FP32, msg=f"{name} {key}")
    # Each weight and its state at ceil(n / R) elements per replica.
    memory, before = training._compiled.memory_per_ipu()[0], whole._compiled.memory_per_ipu()[0]
    assert memory["variables"] == before["variables"] - _saved(replicas, 1 + len(torch_states))
    assert memory["total"] < before["total"]
    text = training._compiled.ir_text()
    part = math.ceil(90 / replicas)
    assert re.search(rf'kind = "weight", name = "net.0.weight", poplar.replica_shard = #poplar.replica_shard<array<i64: '
                     rf'15, 6>, {replicas} : i64>, tiles = array<i64: [0-9, ]+>}} : \(\) -> tensor<{part}xf32>', text)
    # Gathered where the passes read them: four weights in the forward pass, one in the
    # backward (the first layer's input gradient is not needed); none after the update, which
    # runs on the parts; every gradient reduce-scattered.
    step = _function(text, "step")
    assert step.count('"poplar.gcl_all_gather"') == 5, step
    assert step.count('"poplar.gcl_reduce_scatter"') == 4 and '"poplar.gcl_all_reduce"' not in step
    assert "replica_shard" not in whole._compiled.ir_text()


def test_sharded_weights_without_optimizer_state() -> None:
    make, _ = OPTIMIZERS["sgd"]
    reference, _ = _eager(make, 1, 2)
    whole_model, _, whole, _ = _train(make, 2)
    model, _, training, _ = _train(make, 2, weight=_sharded())
    _assert_weights(model, reference, FP32, "eager")
    _assert_weights(model, whole_model, EXACT, "the unsharded replicated run")
    assert training._compiled.memory_per_ipu()[0]["variables"] == \
        whole._compiled.memory_per_ipu()[0]["variables"] - _saved(2, 1)


def test_sharded_weights_with_gradient_accumulation_and_clipping() -> None:
    """G = 2 (whole accumulators, reduce-scattered in the update) and clipping by the global
    norm (whole gradients all-reduced, then each replica's part): the unsharded run's numbers."""
    def make(params):
        return poptorch.optim.SGD(params, lr=0.05, momentum=0.9, max_grad_norm=0.05)

    whole_model, _, _, _ = _train(make, 2, accumulation=2)
    model, _, training, _ = _train(make, 2, weight=_sharded(), accumulation=2)
    _assert_weights(model, whole_model, EXACT, "the unsharded replicated run")
    update = _function(training._compiled.ir_text(), "update")
    assert '"poplar.gcl_all_reduce"' in update and 'op = "local"' in update
    assert '"poplar.gcl_all_gather"' not in update  # the replica keeps its updated part


def test_min_elements_shards_only_the_matrices() -> None:
    """minElementsForReplicatedTensorSharding(45): the two matrices (90, 45 elements) and their
    velocities are sharded, the biases (15, 3) are whole and all-reduced."""
    make, _ = OPTIMIZERS["sgd_momentum"]
    reference, _ = _eager(make, 1, 2)
    _, _, whole, _ = _train(make, 2)
    model, _, training, _ = _train(make, 2, weight=_sharded(45))
    _assert_weights(model, reference, FP32, "eager")
    text = training._compiled.ir_text()
    assert text.count("poplar.replica_shard = ") == 4 and '"poplar.gcl_all_reduce"' in text
    assert training._compiled.memory_per_ipu()[0]["variables"] == \
        whole._compiled.memory_per_ipu()[0]["variables"] - _saved(2, 2, ["net.0.weight", "net.2.weight"])


@pytest.mark.parametrize("replicas", [2, 4])
def test_sharded_accumulators_reduce_scatter_each_micro_batch(replicas: int) -> None:
    make, _ = OPTIMIZERS["adam"]
    reference, _ = _eager(make, 2, replicas)
    whole_model, _, whole, _ = _train(make, replicas, accumulation=2)
    model, _, training, _ = _train(make, replicas, accumulator=_sharded(), accumulation=2)
    _assert_weights(model, reference, FP32, "eager")
    _assert_weights(model, whole_model, FP32, "the unsharded replicated run")
    assert training._compiled.memory_per_ipu()[0]["variables"] == \
        whole._compiled.memory_per_ipu()[0]["variables"] - _saved(replicas, 1)
    text = training._compiled.ir_text()
    step, update = _function(text, "step"), _function(text, "update")
    # Each micro-batch's gradients are reduce-scattered into the accumulators' parts; the update
    # (on whole weights and state) gathers the reduced parts instead of all-reducing.
    assert step.count('"poplar.gcl_reduce_scatter"') == 4 and '"poplar.gcl_all_reduce"' not in step
    assert update.count('"poplar.gcl_all_gather"') == 4 and '"poplar.gcl_all_reduce"' not in update
    assert re.search(rf'kind = "accumulator", name = "net.0.weight/accum", poplar.replica_shard = '
                     rf'#poplar.replica_shard<array<i64: 15, 6>, {replicas} : i64>', text)


def test_weights_state_and_accumulators_sharded_together() -> None:
    """Everything at 1/R: the update reads the accumulated parts and updates the parts; no
    collective in the update at all."""
    make, _ = OPTIMIZERS["sgd_momentum"]
    reference, _ = _eager(make, 2, 2)
    whole_model, _, whole, _ = _train(make, 2, accumulation=2)
    model, _, training, _ = _train(make, 2, weight=_sharded(), optimizer_location=_sharded(), accumulator=_sharded(),
                                   accumulation=2)
    _assert_weights(model, reference, FP32, "eager")
    _assert_weights(model, whole_model, FP32, "the unsharded replicated run")
    assert training._compiled.memory_per_ipu()[0]["variables"] == \
        whole._compiled.memory_per_ipu()[0]["variables"] - _saved(2, 3)
    assert "gcl_" not in _function(training._compiled.ir_text(), "update")


def test_off_chip_sharded_weights_stream_one_rth() -> None:
    make, _ = OPTIMIZERS["sgd_momentum"]
    reference, _ = _eager(make, 1, 2)
    model, _, training, _ = _train(make, 2, weight=_sharded().useOnChipStorage(False))
    _assert_weights(model, reference, FP32, "eager")
    assert training._compiled.memory_per_ipu()[0]["streaming"] == 4 * (45 + 8 + 23 + 2)


def test_inference_after_sharded_training_reads_whole_weights() -> None:
    make, _ = OPTIMIZERS["adam"]
    reference, _ = _eager(make, 1, 2)
    model, _, training, _ = _train(make, 2, weight=_sharded())
    training.detachFromDevice()
    inference = poptorch.inferenceModel(copy.deepcopy(model).eval())
    x, y = _batches(4)[0]
    torch.testing.assert_close(inference(x, y)[0], reference(x, y)[0], **FP32)


def test_lamb_refuses_sharded_weights() -> None:
    model = Regression()
    options = poptorch.Options().replicationFactor(2)
    options.TensorLocations.setWeightLocation(_sharded())
    training = poptorch.trainingModel(model, options, poptorch.optim.LAMB(model.parameters(), lr=0.01))
    x, y = _batches(MICRO * 2)[0]
    with pytest.raises(Exception, match=r"replicated tensor sharding of the weights \(.*net.0.weight.*\) is not "
                                        r"available for LAMB: .* Remove useReplicatedTensorSharding\(\) from "
                                        r"setWeightLocation,"):
        training(x, y)


@pytest.mark.parametrize(("setter", "replicas", "accumulation", "training", "reason"), [
    ("setWeightLocation", 1, 1, True, "it shards weights across replicas, and replicationFactor is 1"),
    ("setAccumulatorLocation", 2, 1, True,
     "gradient accumulators exist with Options.Training.gradientAccumulation > 1 only, and it is 1"),
    ("setWeightLocation", 2, 1, False,
     "an inference model's weights are read, never updated: every replica holds them whole"),
])
def test_where_sharding_cannot_apply_it_warns_once(setter: str, replicas: int, accumulation: int, training: bool,
                                                   reason: str, caplog: pytest.LogCaptureFixture) -> None:
    from poptorch import _logging

    _logging.reset_warn_once()
    model = Regression()
    options = poptorch.Options().replicationFactor(replicas)
    options.Training.gradientAccumulation(accumulation)
    getattr(options.TensorLocations, setter)(_sharded())
    with caplog.at_level("WARNING", logger="poptorch"):
        if training:
            wrapper = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.05))
        else:
            wrapper = poptorch.inferenceModel(model.eval(), options)
        x, y = _batches(MICRO * replicas * accumulation)[0]
        wrapper(x, y)
        wrapper(x, y)
    message = (f"Options.TensorLocations.{setter}(...).useReplicatedTensorSharding(True) was accepted but has no "
               f"effect in the IPU Model emulator ({reason})")
    assert sum(message in warning for warning in poptorch_warnings(caplog)) == 1, poptorch_warnings(caplog)
    assert "replica_shard" not in wrapper._compiled.ir_text()


def _settings() -> poptorch.TensorLocationSettings:
    return poptorch.TensorLocationSettings()


def _run_with_location(setter: str, settings: poptorch.TensorLocationSettings, caplog: pytest.LogCaptureFixture,
                       replicas: int = 1, accumulation: int = 1, training: bool = True, momentum: float = 0.9,
                       io_tiles: int = 0) -> list[str]:
    """Two calls of a model with ``settings`` given to ``setter``: the poptorch warnings."""
    from poptorch import _logging

    _logging.reset_warn_once()
    model = Regression()
    options = poptorch.Options().replicationFactor(replicas)
    options.Training.gradientAccumulation(accumulation)
    options.TensorLocations.numIOTiles(io_tiles)
    getattr(options.TensorLocations, setter)(settings)
    with caplog.at_level("WARNING", logger="poptorch"):
        if training:
            wrapper = poptorch.trainingModel(model, options,
                                             torch.optim.SGD(model.parameters(), lr=0.05, momentum=momentum))
        else:
            wrapper = poptorch.inferenceModel(model.eval(), options)
        x, y = _batches(MICRO * replicas * accumulation)[0]
        wrapper(x, y)
        wrapper(x, y)
    return poptorch_warnings(caplog)


_ON_CHIP = "stay on chip (useOnChipStorage(False) is not set)"


@pytest.mark.parametrize(("setter", "settings", "run", "option", "reason"), [
    ("setWeightLocation", lambda: _settings().useIOTilesToLoad(True), {"io_tiles": 32}, "useIOTilesToLoad(True)",
     f"weights {_ON_CHIP}: nothing is loaded from streaming memory through the I/O tiles"),
    ("setActivationLocation", lambda: _settings().useOnChipStorage(True).useIOTilesToStore(True), {"io_tiles": 32},
     "useIOTilesToStore(True)", f"activations {_ON_CHIP}: nothing is stored to streaming memory through the I/O tiles"),
    ("setOptimizerLocation", lambda: _settings().minElementsForOffChip(100), {}, "minElementsForOffChip(100)",
     f"the optimizer state {_ON_CHIP}: no tensor of the class is moved off chip, whatever its size"),
    ("setWeightLocation", lambda: _settings().minElementsForReplicatedTensorSharding(10), {"replicas": 2},
     "minElementsForReplicatedTensorSharding(10)", "weights are not sharded: useReplicatedTensorSharding(True) is "
                                                   "not set"),
    ("setAccumulatorLocation", lambda: _settings().useOnChipStorage(False), {}, "useOnChipStorage(False)",
     "gradient accumulators exist with Options.Training.gradientAccumulation > 1 only, and it is 1"),
    ("setOptimizerLocation", lambda: _settings().useOnChipStorage(False), {"training": False},
     "useOnChipStorage(False)", "an inference model has no optimizer state"),
    ("setOptimizerLocation", lambda: _settings().useOnChipStorage(False), {"momentum": 0.0}, "useOnChipStorage(False)",
     "the compiled model has no optimizer state (the optimizer keeps none, e.g. SGD without momentum): nothing is "
     "placed off chip"),
], ids=["io-load-on-chip", "io-store-on-chip", "min-off-chip-on-chip", "min-sharding-unsharded",
        "accumulators-without-accumulation", "optimizer-in-inference", "stateless-optimizer"])
def test_a_location_setting_without_effect_warns_once(setter: str, settings, run: dict, option: str, reason: str,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    warnings = _run_with_location(setter, settings(), caplog, **run)
    message = (f"Options.TensorLocations.{setter}(...).{option} was accepted but has no effect in the IPU Model "
               f"emulator ({reason}); the model runs as if the option had its default value.")
    assert sum(message in warning for warning in warnings) == 1, warnings
    assert not any("TensorLocations" in warning for warning in warnings if message not in warning), warnings


@pytest.mark.parametrize(("setter", "settings", "run"), [
    ("setWeightLocation", lambda: _settings().useOnChipStorage(False).useIOTilesToLoad(True).useIOTilesToStore(True),
     {"io_tiles": 32}),
    ("setWeightLocation", lambda: _settings().useOnChipStorage(False).minElementsForOffChip(20), {}),
    ("setWeightLocation", lambda: _sharded(10), {"replicas": 2}),
    ("setAccumulatorLocation", lambda: _settings().useOnChipStorage(False), {"accumulation": 2}),
    ("setOptimizerLocation", lambda: _settings().useOnChipStorage(False), {}),
], ids=["io-tiles-off-chip", "min-off-chip-off-chip", "min-sharding-sharded", "accumulators-accumulating",
        "optimizer-with-momentum"])
def test_a_location_setting_with_effect_does_not_warn(setter: str, settings, run: dict,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    warnings = _run_with_location(setter, settings(), caplog, **run)
    assert not any("TensorLocations" in warning for warning in warnings), warnings


class TwoBlocks(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.front, self.back = torch.nn.Linear(8, 16), torch.nn.Linear(16, 3)
        poptorch.BeginBlock(self.front, "front", ipu_id=0)
        poptorch.BeginBlock(self.back, "back", ipu_id=1)

    def forward(self, x: torch.Tensor, y: torch.Tensor):  # noqa: ANN201
        out = self.back(torch.tanh(self.front(x)))
        return out, F.mse_loss(out, y)


def _two_ipus(strategy, sharded: bool):
    model = TwoBlocks()
    options = poptorch.Options().replicationFactor(2)
    options.Training.gradientAccumulation(3)
    options.setExecutionStrategy(strategy)
    if sharded:
        options.TensorLocations.setWeightLocation(_sharded())
        options.TensorLocations.setAccumulatorLocation(_sharded())
    return model, poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))


def test_sharded_execution_over_two_ipus_gathers_on_each_ipu() -> None:
    generator = torch.Generator().manual_seed(1)
    batches = [(torch.randn(12, 8, generator=generator), torch.randn(12, 3, generator=generator)) for _ in range(2)]
    runs = {}
    for sharded in (False, True):
        model, training = _two_ipus(poptorch.ShardedExecution(), sharded)
        for x, y in batches:
            training(x, y)
        training.copyWeightsToHost()
        runs[sharded] = (model, training._compiled.memory_per_ipu())
    _assert_weights(runs[True][0], runs[False][0], FP32, "the unsharded replicated run")
    for ipu in (0, 1):
        assert runs[True][1][ipu]["variables"] < runs[False][1][ipu]["variables"], runs


def test_pipelining_refuses_sharded_weights_and_accumulators() -> None:
    _, training = _two_ipus(poptorch.PipelinedExecution(), True)
    with pytest.raises(Exception, match=re.escape(
            "replicated tensor sharding of the weights and gradient accumulators (back.bias, back.weight, front.bias, "
            "front.weight) is not available with PipelinedExecution (3 stages)")):
        training(torch.randn(12, 8), torch.randn(12, 3))


def _anchored(mode: poptorch.OutputMode):
    model = Regression()
    options = poptorch.Options().replicationFactor(2).deviceIterations(2)
    options.TensorLocations.setWeightLocation(_sharded())
    options.anchorTensor("w", "net.0.weight", mode)
    training = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.05))
    x, y = _batches(MICRO * 2 * 2)[0]
    return model, training, x, y


def test_a_sharded_weight_anchored_final_is_read_whole() -> None:
    model, training, x, y = _anchored(poptorch.OutputMode.Final)
    training(x, y)
    anchored = training.getAnchoredTensor("w")
    training.copyWeightsToHost()
    torch.testing.assert_close(anchored, model.net[0].weight.detach(), **EXACT)


def test_a_sharded_weight_cannot_be_streamed_after_each_step() -> None:
    _, training, x, y = _anchored(poptorch.OutputMode.All)
    with pytest.raises(Exception, match=re.escape(
            "the anchored tensor 'net.0.weight' is sharded across the replicas (TensorLocationSettings."
            "useReplicatedTensorSharding): each replica holds only its part, so it cannot be streamed after each step. "
            "Anchor it with OutputMode.Final")):
        training(x, y)

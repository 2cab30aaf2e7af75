"""Off-chip activations (SEMANTICS "Tensor locations"):
``setActivationLocation(TensorLocationSettings().useOnChipStorage(False))`` keeps each forward
activation that the backward pass reads in streaming memory between its forward producer and
its backward use (``pipeline.remote_store`` / ``remote_load``): the on-chip peak drops, the
streaming bytes rise by the moved activations, and the numbers are exactly those of the run
with activations on chip (and eager PyTorch's within fp32 tolerance). Pipelining and phased
execution refuse it; an inference model warns that it has no effect."""

from __future__ import annotations

import copy
import re

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import poptorch
from helpers import EXACT, FP32, poptorch_warnings
from helpers.models import TwoBlocks

BATCH = 512
OFF_CHIP = poptorch.TensorLocationSettings().useOnChipStorage(False)


class MLP(nn.Module):
    """Activations (512 x 128 floats, 256 KiB each) outweigh the weights (128 x 128)."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.net = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 128), nn.Tanh(),
                                 nn.Linear(128, 128), nn.GELU(), nn.Linear(128, 8))

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.net(x)
        return out, F.mse_loss(out, y)


def _batches(count: int, size: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    generator = torch.Generator().manual_seed(1)
    return [(torch.randn(size, 32, generator=generator), torch.randn(size, 8, generator=generator))
            for _ in range(count)]


def _train(activations: poptorch.TensorLocationSettings | None, steps: int = 2, accumulation: int = 1,
           iterations: int = 1, optimizer=lambda params: torch.optim.SGD(params, lr=0.05, momentum=0.9)):
    model = MLP()
    options = poptorch.Options().deviceIterations(iterations)
    options.Training.gradientAccumulation(accumulation)
    if activations is not None:
        options.TensorLocations.setActivationLocation(activations)
    training = poptorch.trainingModel(model, options, optimizer(model.parameters()))
    results = [tuple(t.clone() for t in training(x, y))
               for x, y in _batches(steps, BATCH // 4 * accumulation * iterations if accumulation * iterations > 1
                                    else BATCH)]
    training.copyWeightsToHost()
    return model, results, training


def _eager(steps: int, micro_batches: int, optimizer=lambda params: torch.optim.SGD(params, lr=0.05, momentum=0.9),
           size: int = BATCH):
    """One update per host batch, over the mean of its micro-batches' losses."""
    model = MLP()
    eager = optimizer(model.parameters())
    losses = []
    for x, y in _batches(steps, size):
        eager.zero_grad()
        parts = [model(xs, ys)[1] for xs, ys in zip(x.chunk(micro_batches), y.chunk(micro_batches), strict=True)]
        torch.stack(parts).mean().backward()
        eager.step()
        losses.append(torch.stack(parts).detach())
    return model, losses


def _moved_bytes(text: str) -> int:
    """Bytes of the activations' remote buffers (activation.<n>) in the IR."""
    total = 0
    for dims in re.findall(r'"poplar.remote_buffer"\(\) \{name = "activation\.\d+".*?type = tensor<([0-9x]+)xf32>', text):
        count = 1
        for dim in dims.split("x"):
            count *= int(dim)
        total += 4 * count
    return total


def test_off_chip_activations_lower_the_peak_and_keep_the_numbers() -> None:
    on_model, on_results, on_chip = _train(None)
    model, results, training = _train(OFF_CHIP)
    reference, eager_losses = _eager(2, 1)
    for (out, loss), (on_out, on_loss), want in zip(results, on_results, eager_losses, strict=True):
        torch.testing.assert_close(out, on_out, **EXACT)
        torch.testing.assert_close(loss, on_loss, **EXACT)
        torch.testing.assert_close(loss.reshape(-1), want, **FP32)
    for (name, got), (_, same), (_, want) in zip(model.named_parameters(), on_model.named_parameters(),
                                                 reference.named_parameters(), strict=True):
        torch.testing.assert_close(got, same, **EXACT, msg=name)
        torch.testing.assert_close(got, want, **FP32, msg=name)
    text = training._compiled.ir_text()
    # The four hidden activations (512 x 128) and the output (512 x 8), each read by the
    # backward pass: one store and one load each.
    assert text.count('"pipeline.remote_store"') == text.count('"pipeline.remote_load"') == 5
    assert _moved_bytes(text) == 4 * BATCH * (4 * 128 + 8)
    memory, before = training._compiled.memory_per_ipu()[0], on_chip._compiled.memory_per_ipu()[0]
    assert before["streaming"] == 0 and memory["streaming"] == _moved_bytes(text)
    assert memory["variables"] == before["variables"]
    # At the turn from forward to backward the activations no longer sit on chip together: the
    # peak of live temporaries drops by more than one of them (1347588 -> 939044 bytes).
    assert memory["temporaries"] < before["temporaries"] - 4 * BATCH * 128, (memory, before)
    assert memory["total"] < before["total"]
    assert "pipeline.remote" not in on_chip._compiled.ir_text()


def test_min_elements_for_off_chip_keeps_smaller_activations_on_chip() -> None:
    """512 x 8 = 4096 elements (the output) is below 10000: only the four hidden activations move."""
    _, _, training = _train(poptorch.TensorLocationSettings().useOnChipStorage(False).minElementsForOffChip(10000), steps=1)
    text = training._compiled.ir_text()
    assert text.count('"pipeline.remote_load"') == 4
    assert training._compiled.memory_per_ipu()[0]["streaming"] == 4 * 4 * BATCH * 128


def test_with_gradient_accumulation_and_device_iterations_as_eager() -> None:
    """G = 2 micro-batches per update, D = 2 updates per call: every micro-batch stores and
    loads its own activations in the step it runs."""
    def adam(params):
        return torch.optim.Adam(params, lr=0.01)

    on_model, on_results, _ = _train(None, steps=1, accumulation=2, iterations=2, optimizer=adam)
    model, results, _ = _train(OFF_CHIP, steps=1, accumulation=2, iterations=2, optimizer=adam)
    for (_, loss), (_, on_loss) in zip(results, on_results, strict=True):
        torch.testing.assert_close(loss, on_loss, **EXACT)
    # Eager: the call's 2 x 2 micro-batches of 128 samples, one Adam step per 2.
    reference = MLP()
    eager = adam(reference.parameters())
    x, y = _batches(1, BATCH // 4 * 4)[0]
    for xs, ys in zip(x.chunk(2), y.chunk(2), strict=True):
        eager.zero_grad()
        torch.stack([reference(a, b)[1] for a, b in zip(xs.chunk(2), ys.chunk(2), strict=True)]).mean().backward()
        eager.step()
    for (name, got), (_, same), (_, want) in zip(model.named_parameters(), on_model.named_parameters(),
                                                 reference.named_parameters(), strict=True):
        torch.testing.assert_close(got, same, **EXACT, msg=name)
        torch.testing.assert_close(got, want, **FP32, msg=name)


def _two_ipus(strategy: poptorch.ExecutionStrategy, activations: poptorch.TensorLocationSettings | None,
              accumulation: int = 1):
    model = TwoBlocks()
    reference = copy.deepcopy(model)
    options = poptorch.Options()
    options.Training.gradientAccumulation(accumulation)
    options.setExecutionStrategy(strategy)
    if activations is not None:
        options.TensorLocations.setActivationLocation(activations)
    training = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1))
    return model, reference, training


def test_sharded_over_two_ipus_each_ipu_streams_its_own_activations() -> None:
    x, y = torch.randn(4, 8), torch.randn(4, 3)
    model, reference, training = _two_ipus(poptorch.ShardedExecution(), OFF_CHIP)
    eager = torch.optim.SGD(reference.parameters(), lr=0.1)
    for _ in range(2):
        _, loss = training(x, y)
        eager.zero_grad()
        want = reference(x, y)[1]
        want.backward()
        eager.step()
        torch.testing.assert_close(loss, want.detach(), **FP32)
    training.copyWeightsToHost()
    for (name, got), (_, want) in zip(model.named_parameters(), reference.named_parameters(), strict=True):
        torch.testing.assert_close(got, want, **FP32, msg=name)
    memory = training._compiled.memory_per_ipu()
    assert memory[0]["streaming"] > 0 and memory[1]["streaming"] > 0, memory
    loads = re.findall(r'"pipeline.remote_load"\(\) \{buffer = "activation\.\d+", ipu_id = (\d)', training._compiled.ir_text())
    assert sorted(set(loads)) == ["0", "1"], loads


def test_pipelining_refuses_off_chip_activations() -> None:
    _, _, training = _two_ipus(poptorch.PipelinedExecution(), OFF_CHIP, accumulation=3)
    x, y = torch.randn(6, 8), torch.randn(6, 3)
    with pytest.raises(Exception, match=re.escape(
            "in a pipelined step (3 stages), which keeps the forward activations of the micro-batches in flight in "
            "on-chip stashes (pipeline.stash): off-chip activations are not available with pipelining")):
        training(x, y)


def test_phased_execution_refuses_off_chip_activations() -> None:
    strategy = poptorch.SerialPhasedExecution(poptorch.Phase(poptorch.Stage("front")),
                                              poptorch.Phase(poptorch.Stage("back")))
    strategy.phase(0).ipus(0)
    strategy.phase(1).ipus(0)
    _, _, training = _two_ipus(strategy, OFF_CHIP)
    with pytest.raises(Exception, match=re.escape(
            "in phased execution, where the liveness of the phases decides where activations live between phases: "
            "remove setActivationLocation and use strategy.setTensorsLiveness(poptorch.Liveness.OffChipAfterFwd)")):
        training(torch.randn(4, 8), torch.randn(4, 3))


def test_inference_warns_once_that_it_has_no_effect(caplog: pytest.LogCaptureFixture) -> None:
    from poptorch import _logging

    _logging.reset_warn_once()
    model = MLP().eval()
    options = poptorch.Options()
    options.TensorLocations.setActivationLocation(OFF_CHIP)
    x, y = _batches(1, 16)[0]
    with caplog.at_level("WARNING", logger="poptorch"):
        inference = poptorch.inferenceModel(model, options)
        out, _ = inference(x, y)
        inference(x, y)
    torch.testing.assert_close(out, model(x, y)[0], **FP32)
    warnings = [w for w in poptorch_warnings(caplog) if "setActivationLocation" in w]
    assert warnings == [
        "Options.TensorLocations.setActivationLocation(TensorLocationSettings(on_chip=False, "
        "min_elements_for_off_chip=2, replicated_tensor_sharding=False, min_elements_for_replicated_tensor_sharding="
        "8192, io_tiles_to_load=False, io_tiles_to_store=False)) was accepted but has no effect in the IPU Model "
        "emulator (off-chip activations are the forward values a training step's backward pass reads; an inference "
        "model has no backward pass); the model runs as if the option had its default value."], warnings
    assert "pipeline.remote" not in inference._compiled.ir_text()


def test_setting_it_alone_warns_nothing(caplog: pytest.LogCaptureFixture) -> None:
    from poptorch import _logging

    _logging.reset_warn_once()
    with caplog.at_level("WARNING", logger="poptorch"):
        poptorch.Options().TensorLocations.setActivationLocation(OFF_CHIP)
    assert poptorch_warnings(caplog) == []

"""Options.TensorLocations (SEMANTICS "Tensor locations"): weights, optimizer state and
accumulators of an off-chip class live in streaming memory (remote buffers), loaded on chip
before use and stored after update. The memory plan moves bytes from chip to streaming
memory and the numbers stay those of eager PyTorch."""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F

import poptorch
from helpers import FP32

STEPS = 3


class Regression(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.net = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.Tanh(), torch.nn.Linear(32, 4))

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.net(x)
        return out, F.mse_loss(out, y)


def _batches(count: int, batch: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    generator = torch.Generator().manual_seed(1)
    return [(torch.randn(batch, 8, generator=generator), torch.randn(batch, 4, generator=generator))
            for _ in range(count)]


def _eager(model: torch.nn.Module, batches: list, accumulation: int) -> tuple[torch.nn.Module, list[torch.Tensor]]:
    model = copy.deepcopy(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        parts = [model(xs, ys)[1] for xs, ys in zip(x.chunk(accumulation), y.chunk(accumulation), strict=True)]
        torch.stack(parts).mean().backward()
        optimizer.step()
        losses.append(torch.stack(parts).detach())
    return model, losses


def _train(placement: dict[str, poptorch.TensorLocationSettings], accumulation: int = 1):
    model = Regression()
    reference, eager_losses = _eager(model, _batches(STEPS, 4 * accumulation), accumulation)
    options = poptorch.Options()
    if accumulation > 1:
        options.Training.gradientAccumulation(accumulation)
    if "Weight" in placement:
        options.TensorLocations.setWeightLocation(placement["Weight"])
    if "Optimizer" in placement:
        options.TensorLocations.setOptimizerLocation(placement["Optimizer"])
    if "Accumulator" in placement:
        options.TensorLocations.setAccumulatorLocation(placement["Accumulator"])
    training = poptorch.trainingModel(model, options, optimizer=poptorch.optim.Adam(model.parameters(), lr=0.01))
    losses = []
    for x, y in _batches(STEPS, 4 * accumulation):
        losses.append(training(x, y)[1])
    training.copyWeightsToHost()
    for name, value in reference.state_dict().items():
        torch.testing.assert_close(model.state_dict()[name], value, **FP32, msg=f"weight {name}")
    for got, want in zip(losses, eager_losses, strict=True):
        torch.testing.assert_close(got.reshape(-1)[-1], want[-1], **FP32)
    memory = training._compiled.memory_per_ipu()[0]
    streaming = memory["streaming"]
    text = training._compiled.ir_text()
    if streaming:  # the schedule picture shows the streaming memory and the IR's remote copies
        picture = training._compiled.schedule().text()
        copies = _remote_copies(text)
        line = f"streaming memory: IPU0 {streaming:,} B; per step {copies['step'][0]} loads, {copies['step'][1]} stores"
        if any(copies.get("update", (0, 0))):
            line += f"; per update {copies['update'][0]} loads, {copies['update'][1]} stores"
        assert copies["step"][0] + copies.get("update", (0, 0))[0] > 0, copies
        assert line in picture.splitlines(), (line, picture)
    return memory, streaming, text


def _remote_copies(text: str) -> dict[str, tuple[int, int]]:
    """The remote loads and stores in the IR text of each poplar.function, by function name."""
    copies = {}
    for body in text.split('"poplar.function"() ({')[1:]:
        body, name = body.split('}) {name = "', 1)
        name = name.split('"', 1)[0]
        copies[name] = (body.count('"poplar.program_remote_load"') + body.count('"pipeline.remote_load"'),
                        body.count('"poplar.program_remote_store"') + body.count('"pipeline.remote_store"'))
    return copies


OFF_CHIP = poptorch.TensorLocationSettings().useOnChipStorage(False)


@pytest.mark.parametrize("kind", ["Weight", "Optimizer"])
def test_off_chip_class_moves_to_streaming_memory_same_numbers(kind: str) -> None:
    on_chip, on_chip_streaming, _ = _train({})
    off_chip, streaming, text = _train({kind: OFF_CHIP})
    assert on_chip_streaming == 0
    weights = (8 * 32 + 32 + 32 * 4 + 4) * 4
    # The off-chip class is in streaming memory (Adam: two moments per weight, step counts stay
    # on chip: below minElementsForOffChip's default of 2 elements)...
    assert streaming == (weights if kind == "Weight" else 2 * weights)
    # ...and no longer always on chip: variables shrink by that much, loads are temporaries.
    assert off_chip["variables"] == on_chip["variables"] - streaming
    assert off_chip["total"] < on_chip["total"]
    assert "poplar.program_remote_load" in text and "poplar.program_remote_store" in text


def test_off_chip_accumulators_with_gradient_accumulation() -> None:
    on_chip, _, _ = _train({}, accumulation=2)
    off_chip, streaming, _ = _train({"Accumulator": OFF_CHIP}, accumulation=2)
    assert streaming == (8 * 32 + 32 + 32 * 4 + 4) * 4  # one accumulator per weight
    assert off_chip["variables"] == on_chip["variables"] - streaming


def test_min_elements_for_off_chip_keeps_small_tensors_on_chip() -> None:
    settings = poptorch.TensorLocationSettings().useOnChipStorage(False).minElementsForOffChip(100)
    _, streaming, _ = _train({"Weight": settings})
    assert streaming == (8 * 32 + 32 * 4) * 4  # the two matrices; the biases (32, 4) stay on chip


def test_io_tiles_to_load_need_io_tiles() -> None:
    model = Regression()
    options = poptorch.Options()
    options.TensorLocations.setOptimizerLocation(
        poptorch.TensorLocationSettings().useOnChipStorage(False).useIOTilesToLoad(True))
    training = poptorch.trainingModel(model, options, optimizer=poptorch.optim.Adam(model.parameters(), lr=0.01))
    x, y = _batches(1, 4)[0]
    with pytest.raises(Exception, match=r"useIOTilesToLoad / useIOTilesToStore\) but no I/O tiles are allocated: "
                                        r"set Options.TensorLocations.numIOTiles\(32\)"):
        training(x, y)


def test_io_tiles_carry_the_remote_copies_same_numbers() -> None:
    """useIOTilesToLoad / useIOTilesToStore with numIOTiles: the optimizer state's remote copies
    go through the I/O tiles (poplar.io_tiles on each), the cost model charges them as exchanges
    from those tiles instead of Streaming Memory round trips, and the numbers stay eager's."""
    cycles = {}
    for io_tiles in (False, True):
        model = Regression()
        reference, eager_losses = _eager(model, _batches(STEPS, 4), 1)
        options = poptorch.Options()
        settings = poptorch.TensorLocationSettings().useOnChipStorage(False)
        if io_tiles:
            settings = settings.useIOTilesToLoad(True).useIOTilesToStore(True)
            options.TensorLocations.numIOTiles(32)
        options.TensorLocations.setOptimizerLocation(settings)
        training = poptorch.trainingModel(model, options, optimizer=poptorch.optim.Adam(model.parameters(), lr=0.01))
        losses = [training(x, y)[1] for x, y in _batches(STEPS, 4)]
        training.copyWeightsToHost()
        for got, want in zip(losses, eager_losses, strict=True):
            torch.testing.assert_close(got.reshape(-1)[-1], want[-1], **FP32)
        for name, value in reference.state_dict().items():
            torch.testing.assert_close(model.state_dict()[name], value, **FP32, msg=f"weight {name}")
        copies = [line for line in training._compiled.ir_text().splitlines()
                  if '"poplar.program_remote_load"' in line or '"poplar.program_remote_store"' in line]
        assert copies and all(("poplar.io_tiles" in line) == io_tiles for line in copies), copies
        cycles[io_tiles] = sum(int(line.split("poplar.cycles = ")[1].split(" ")[0]) for line in copies)
        training.destroy()
    assert cycles[True] < cycles[False], cycles

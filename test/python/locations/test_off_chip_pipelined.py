"""A pipelined step with its weights, optimizer state and gradient accumulators off chip
(Options.TensorLocations with PipelinedExecution): each stage loads what it uses inside the
stage, and the step gives the numbers of the same step on chip bit for bit. The loads used
to be placed outside the stages, where nothing runs them: the first stage's kernel got no
weight (TypeError: linear(): argument 'weight' must be Tensor, not NoneType)."""

from __future__ import annotations

import copy

import torch
import torch.nn as nn

import poptorch
from helpers.models import TwoBlocks

ACCUMULATION, STEPS = 4, 2


def _train(off_chip: bool, model: nn.Module) -> list[tuple[torch.Tensor, torch.Tensor]]:
    options = poptorch.Options()
    options.Training.gradientAccumulation(ACCUMULATION)
    options.setExecutionStrategy(poptorch.PipelinedExecution())
    if off_chip:
        where = poptorch.TensorLocationSettings().useOnChipStorage(False).minElementsForOffChip(0)
        options.TensorLocations.setWeightLocation(where)
        options.TensorLocations.setOptimizerLocation(where)
        options.TensorLocations.setAccumulatorLocation(where)
    training = poptorch.trainingModel(model, options, poptorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
    generator = torch.Generator().manual_seed(1)
    results = []
    for _ in range(STEPS):
        x, y = torch.randn(2 * ACCUMULATION, 8, generator=generator), torch.randn(2 * ACCUMULATION, 3, generator=generator)
        results.append(training(x, y))
    training.copyWeightsToHost()
    if off_chip:
        assert "poplar.program_remote_load" in training._compiled.ir_text()
    return results


def test_pipelined_step_off_chip_equals_on_chip() -> None:
    on_model = TwoBlocks()
    off_model = copy.deepcopy(on_model)
    on, off = _train(False, on_model), _train(True, off_model)
    for step, ((out, loss), (want_out, want_loss)) in enumerate(zip(off, on, strict=True)):
        assert torch.equal(out, want_out), f"step {step}: output"
        assert torch.equal(loss, want_loss), f"step {step}: loss"
    for (name, got), (_, want) in zip(off_model.named_parameters(), on_model.named_parameters(), strict=True):
        assert torch.equal(got, want), name

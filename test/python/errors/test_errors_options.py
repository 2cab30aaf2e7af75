"""Error catalogue, options: values poptorch.Options refuses, at the boundaries of each check."""

from __future__ import annotations

import re

import pytest
import torch
from torch import nn

import poptorch


@pytest.mark.parametrize("value", [0, -1])
def test_device_iterations_below_one(value: int) -> None:
    with pytest.raises(ValueError, match=re.escape(f"Options.deviceIterations({value}): the value must be at least 1")):
        poptorch.Options().deviceIterations(value)


@pytest.mark.parametrize(("value", "kind"), [(1.5, "float"), (True, "bool")])
def test_device_iterations_not_an_int(value: object, kind: str) -> None:
    with pytest.raises(TypeError, match=re.escape(f"Options.deviceIterations({value}): expected an int, got {kind}")):
        poptorch.Options().deviceIterations(value)


def test_device_iterations_of_one_is_accepted() -> None:
    assert poptorch.Options().deviceIterations(1).toDict()["device_iterations"] == 1


def test_gradient_accumulation_of_zero() -> None:
    with pytest.raises(ValueError, match=re.escape("Options.Training.gradientAccumulation(0): the value must be at least 1")):
        poptorch.Options().Training.gradientAccumulation(0)


def test_gradient_accumulation_for_inference() -> None:
    options = poptorch.Options()
    options.Training.gradientAccumulation(2)
    with pytest.raises(ValueError, match=re.escape(
            "Options.Training.gradientAccumulation(2): gradient accumulation only applies to training, so an "
            "inference model needs 1")):
        poptorch.inferenceModel(nn.Linear(4, 3), options)(torch.ones(4, 4))


def test_every_n_period_that_does_not_divide_the_steps() -> None:
    options = poptorch.Options().deviceIterations(4)
    options.outputMode(poptorch.OutputMode.EveryN, 3)
    with pytest.raises(ValueError, match=re.escape(
            "Options.outputMode(OutputMode.EveryN, 3): each call runs deviceIterations x gradientAccumulation = 4 x 1 "
            "= 4 steps, which is not a multiple of 3. Pick a period that divides 4.")):
        poptorch.inferenceModel(nn.Linear(4, 3), options)(torch.ones(8, 4))


def test_unknown_output_mode_lists_the_choices() -> None:
    with pytest.raises(ValueError, match=re.escape(
            "Options.outputMode: 'sometimes' is not a poptorch.OutputMode. Valid choices are All, Final, EveryN, Sum, "
            "Default.")):
        poptorch.Options().outputMode("sometimes")


@pytest.mark.parametrize("seed", [-1, 2**64])
def test_random_seed_outside_64_unsigned_bits(seed: int) -> None:
    with pytest.raises(ValueError, match=re.escape(f"Options.randomSeed({seed}): the value must be between 0 and "
                                                   "18446744073709551615")):
        poptorch.Options().randomSeed(seed)


def test_random_seed_at_the_top_of_the_range_is_accepted() -> None:
    assert poptorch.Options().randomSeed(2**64 - 1).toDict()["random_seed"] == 2**64 - 1


@pytest.mark.parametrize("proportion", [0.0, 1.5])
def test_available_memory_proportion_outside_0_1(proportion: float) -> None:
    with pytest.raises(ValueError, match=re.escape(
            f"Options.setAvailableMemoryProportion: the proportion for 'IPU0' is {proportion}, but it must be in (0, 1]")):
        poptorch.Options().setAvailableMemoryProportion({"IPU0": proportion})


def test_assigning_to_an_option_setter() -> None:
    options = poptorch.Options()
    with pytest.raises(AttributeError, match=re.escape(
            "Options.deviceIterations is a method: call it (Options.deviceIterations(4)) instead of assigning to it")):
        options.deviceIterations = 4
    assert options.toDict()["device_iterations"] == 1


def test_misspelt_option_suggests_the_right_one() -> None:
    with pytest.raises(AttributeError, match=re.escape(
            "Options.Training has no option or attribute 'gradientAccumulaton'. Did you mean gradientAccumulation")):
        poptorch.Options().Training.gradientAccumulaton(2)


def test_execution_strategy_given_as_a_string() -> None:
    with pytest.raises(TypeError, match=re.escape(
            "Options.setExecutionStrategy('pipelined'): expected a poptorch.ShardedExecution, PipelinedExecution, "
            "SerialPhasedExecution or ParallelPhasedExecution, got str.")):
        poptorch.Options().setExecutionStrategy("pipelined")


def test_odd_number_of_io_tiles() -> None:
    with pytest.raises(ValueError, match=re.escape("Options.TensorLocations.numIOTiles(7): IO tiles are reserved in pairs")):
        poptorch.Options().TensorLocations.numIOTiles(7)


def test_ipu_model_on_a_device_torch_does_not_have() -> None:
    with pytest.raises(ValueError, match=re.escape(
            "Options.setIpuModelDevices: device 'cuda:7' for IPU0 is not available in this process")):
        poptorch.Options().setIpuModelDevices({"IPU0": "cuda:7"})


def test_changing_options_that_a_model_uses() -> None:
    options = poptorch.Options()
    model = poptorch.inferenceModel(nn.Linear(4, 3), options)
    model(torch.ones(2, 4))
    with pytest.raises(RuntimeError, match=re.escape(
            "Options.deviceIterations: these options already belong to a wrapped model, so they can no longer change")):
        model.options.deviceIterations(2)

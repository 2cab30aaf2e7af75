"""PopTorch compatibility (issue 15, item 6): option forms PopTorch accepts are accepted here too,
with the effect PopTorch gives them."""

from __future__ import annotations

import pytest
import torch
from helpers import FP32, poptorch_warnings

import poptorch
from poptorch.enums import AutoStage, Liveness, OutputMode
from poptorch.execution_strategy import (
    ParallelPhasedExecution,
    PipelinedExecution,
    SerialPhasedExecution,
    ShardedExecution,
)

pytestmark = pytest.mark.usefixtures("fresh_poptorch_logging")


@pytest.mark.parametrize("mode", [OutputMode.All, OutputMode.Final, OutputMode.Sum, OutputMode.Default])
def test_output_mode_takes_a_period_with_every_mode(mode, caplog):
    opts = poptorch.Options().outputMode(mode, 2)
    assert (opts.output_mode, opts.output_return_period) == (mode, None)
    opts.outputMode(mode, 3)
    messages = poptorch_warnings(caplog)
    assert len(messages) == 1  # once per mode
    assert f"outputMode(OutputMode.{mode.name}, 2)" in messages[0]
    assert "only applies to OutputMode.EveryN" in messages[0]


def test_output_mode_all_with_a_period_returns_every_batch():
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    data = torch.randn(4, 3)
    opts = poptorch.Options().deviceIterations(4).outputMode(OutputMode.All, 2)
    out = poptorch.inferenceModel(model, opts)(data)
    torch.testing.assert_close(out, model(data), **FP32)


def test_output_mode_every_n_still_needs_its_period():
    with pytest.raises(ValueError, match="EveryN needs a period"):
        poptorch.Options().outputMode(OutputMode.EveryN)


def test_anchor_tensor_takes_a_period_with_every_mode(caplog):
    opts = poptorch.Options().anchorTensor("w", "weight", OutputMode.All, 4)
    assert opts.anchored_tensors[0].output_return_period == 4
    assert any("only applies to OutputMode.EveryN" in m for m in poptorch_warnings(caplog))


@pytest.mark.parametrize(
    "line, expected",
    [
        ("setExecutionStrategy(poptorch.ShardedExecution())", ShardedExecution()),
        ("setExecutionStrategy(ShardedExecution('0', '1'))", ShardedExecution("0", "1")),
        ("setExecutionStrategy(PipelinedExecution(AutoStage.AutoIncrement))",
         PipelinedExecution(AutoStage.AutoIncrement)),
        ("setExecutionStrategy(PipelinedExecution(poptorch.Stage('0'), Stage('1').ipu(1)))",
         PipelinedExecution(poptorch.Stage("0"), poptorch.Stage("1").ipu(1))),
        ("setExecutionStrategy(SerialPhasedExecution(Phase('0'), Phase('1')).setTensorsLiveness("
         "Liveness.OffChipAfterEachPhase))",
         SerialPhasedExecution(poptorch.Phase("0"), poptorch.Phase("1")).setTensorsLiveness(
             Liveness.OffChipAfterEachPhase)),
        ("setExecutionStrategy(ParallelPhasedExecution([Stage('0'), Stage('1')], [Stage('2'), Stage('3')]))",
         ParallelPhasedExecution([poptorch.Stage("0"), poptorch.Stage("1")],
                                 [poptorch.Stage("2"), poptorch.Stage("3")])),
    ],
)
def test_load_from_file_accepts_execution_strategies(tmp_path, line, expected):
    path = tmp_path / "opts.txt"
    path.write_text(f"{line}\n")
    opts = poptorch.Options().loadFromFile(path)
    assert type(opts.execution_strategy) is type(expected)
    assert opts.execution_strategy.to_dict() == expected.to_dict()


def test_load_from_file_accepts_chained_setters_as_in_a_script(tmp_path):
    path = tmp_path / "opts.txt"
    path.write_text("deviceIterations(2).randomSeed(5)\n"
                    "Training.gradientAccumulation(4).setAutomaticLossScaling(True)\n"
                    "outputMode(poptorch.OutputMode.Sum)\n")
    opts = poptorch.Options().loadFromFile(path)
    assert (opts.device_iterations, opts.random_seed) == (2, 5)
    assert (opts.Training.gradient_accumulation, opts.Training.auto_loss_scaling) == (4, True)
    assert opts.output_mode is OutputMode.Sum


def test_load_from_file_strategy_runs_like_the_same_strategy_in_code(tmp_path):
    class Two(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = torch.nn.Linear(3, 3)
            self.b = torch.nn.Linear(3, 2)

        def forward(self, x):
            with poptorch.Block("0", ipu_id=0):
                x = self.a(x)
            with poptorch.Block("1", ipu_id=1):
                return self.b(x)

    torch.manual_seed(0)
    model = Two()
    path = tmp_path / "opts.txt"
    path.write_text("setExecutionStrategy(ShardedExecution('0', '1'))\n")
    data = torch.randn(2, 3)
    compiled = poptorch.inferenceModel(model, poptorch.Options().loadFromFile(path))
    torch.testing.assert_close(compiled(data), model(data), **FP32)


def test_load_from_file_strategy_errors_name_the_line(tmp_path):
    path = tmp_path / "opts.txt"
    path.write_text("setExecutionStrategy(PipelinedExecution(Stage(1)))\n")
    with pytest.raises((TypeError, ValueError)) as info:
        poptorch.Options().loadFromFile(path)
    assert str(info.value).startswith(f"{path}:1: setExecutionStrategy(PipelinedExecution(Stage(1)))")

"""No option silently does nothing (issue 15, item 7).

Every setter of ``poptorch.Options`` and its groups is listed in SETTERS with the arguments to call
it with and its evidence: either WARNS (the call logs once, at warning level, that the option has no
effect on the emulator) or the test that shows its effect (``path::test_name``, relative to
test/python). A setter added without an entry fails here, and so does an entry whose test is gone."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import torch
from helpers import poptorch_warnings

import poptorch
from poptorch import options as options_module
from poptorch.enums import ConnectionType, HalfFloatCastingBehavior, ReductionType, MeanReductionStrategy, SyncPattern
from poptorch.execution_strategy import ShardedExecution
from poptorch.options import TensorLocationSettings

pytestmark = pytest.mark.usefixtures("fresh_poptorch_logging")

TESTS = Path(__file__).resolve().parents[1]
WARNS = "warns"
OFF_CHIP = TensorLocationSettings().useOnChipStorage(False)

SETTERS: dict[str, tuple[tuple, str]] = {
    "deviceIterations": ((4,), "test_batching.py::test_example_all"),
    "replicationFactor": ((2,), "replication/test_replicated_training.py::test_replicas_train_as_eager_on_the_whole_batch"),
    "inputReplicaGrouping": ((1, poptorch.CommGroupType.Consecutive),
                             "data/test_dataloader.py::test_replication_and_input_groups_count"),
    "outputMode": ((poptorch.OutputMode.Sum,), "test_batching.py::test_example_sum_adds_over_iterations_not_over_the_micro_batch"),
    "anchorTensor": (("w", "l.weight"), "api/test_anchors.py::test_anchored_weight_and_hyper_parameter_after_a_call"),
    "randomSeed": ((3,), "test_training_api.py::test_random_seed_makes_dropout_training_repeatable"),
    "setExecutionStrategy": ((ShardedExecution(),), "test_schedule.py::test_sharded_schedule_keeps_one_ipu_busy_per_step"),
    "autoRoundNumIPUs": ((True,), "test_multi_ipu.py::test_non_power_of_two_ipus_and_auto_round"),
    "setAvailableMemoryProportion": (({"IPU0": 0.5},),
                                     "api/test_planning_hints.py::test_available_memory_proportion_option_applies_to_every_matmul_of_the_ipu"),
    "setIpuModelDevices": (("cpu",), "test_devices.py::test_inference_on_placed_ipus_matches_eager"),
    "setIpuTarget": (("ipu-model-bow",), "costmodel/test_counters.py::test_set_ipu_target_selects_bow"),
    "autoBalancePipeline": ((2,), "costmodel/test_auto_balance.py::test_auto_balanced_training_matches_eager"),
    "useIpuModel": ((False,), "test_target_memory.py::test_hardware_request_warns_once"),
    "connectionType": ((ConnectionType.Never,),
                       "executables/test_export_load.py::test_offline_compiles_and_exports_but_does_not_run"),
    "syncPattern": ((SyncPattern.SinglePipeline,), WARNS),
    "useIpuId": ((1,), WARNS),
    "useOfflineIpuTarget": ((2,), WARNS),
    "broadcastBuffers": ((False,), "replication/test_replica_grouping.py::test_broadcast_buffers_keeps_replicas_in_sync"),
    "enableExecutableCaching": (("/tmp/cache",),
                                "executables/test_cache.py::test_two_processes_fill_one_cache_then_a_third_compile_hits"),
    "enableProfiling": (("/tmp/profile",), "costmodel/test_report.py::test_enable_profiling_writes_json_and_html"),
    "enableStableNorm": ((True,), WARNS),
    "enableSyntheticData": ((True,), WARNS),
    "logCycleCount": ((True,), "costmodel/test_counters.py::test_cycle_count_needs_log_cycle_count_and_is_logged"),
    "logDir": (("/tmp/logs",), WARNS),
    "maxRepeatLogs": ((None,), WARNS),
    "modelName": (("mine",), WARNS),
    "relaxOptimizerAttributesChecks": ((True,), WARNS),
    "showCompilationProgressBar": ((True,), WARNS),
    "sourceLocationExcludes": ((["mine/"],), WARNS),
    "appendToLocationExcludes": (("mine/",), WARNS),
    "disableModuleNamescope": ((), WARNS),
    "Training.gradientAccumulation": ((2,), "test_mutation.py::test_training_with_gradient_accumulation_updates_every_micro_batch_slice"),
    "Training.accumulationAndReplicationReductionType": ((ReductionType.Sum,), "test_training.py::test_matches_eager"),
    "Training.setMeanAccumulationAndReplicationReductionStrategy": ((MeanReductionStrategy.Post,),
                                                                    "test_training.py::test_matches_eager"),
    "Training.setAutomaticLossScaling": ((True,), "api/test_no_silent_options.py::test_automatic_loss_scaling_updates_the_scale_on_the_device"),
    "Training.setConvolutionDithering": ((True,), WARNS),
    "Precision.enableFloatingPointExceptions": ((True,),
                                                "api/test_precision.py::test_a_nan_made_on_the_device_is_an_error_naming_the_op"),
    "Precision.setFloatingPointBehaviour": ((True, True, True),
                                            "api/test_precision.py::test_division_by_zero_and_overflow_raise_only_when_asked"),
    "Precision.enableStochasticRounding": ((True,), WARNS),
    "Precision.halfFloatCasting": ((HalfFloatCastingBehavior.HalfUpcastToFloat,),
                                   "api/test_precision.py::test_half_float_casting_gives_the_documented_result_dtype"),
    "GraphProcessing.halfFloatCasting": ((HalfFloatCastingBehavior.HalfUpcastToFloat,),
                                         "api/test_precision.py::test_upcasting_runs_a_float16_input_through_float32_weights"),
    "Precision.runningStatisticsAlwaysFloat": ((False,), WARNS),
    "Precision.setPartialsType": ((torch.half,),
                                  "api/test_planning_hints.py::test_partials_type_is_recorded_and_half_partials_need_less_memory"),
    "Distributed.configureProcessId": ((1, 2), "data/test_dataloader.py::test_distributed_parts_are_disjoint"),
    "Distributed.setEnvVarNames": (("MY_SIZE", "MY_RANK"),
                                   "test_options.py::test_distributed_reads_openmpi_variables_and_custom_ones"),
    "Distributed.disable": ((), "test_options.py::test_distributed_reads_openmpi_variables_and_custom_ones"),
    "Distributed.setTimeout": ((5,), "replication/test_distributed.py::test_a_dead_or_hung_peer_fails_the_other_within_the_timeout"),
    "TensorLocations.numIOTiles": ((32,), "api/test_planning_hints.py::test_io_tiles_are_taken_from_the_compute_tiles"),
    "TensorLocations.setActivationLocation": (
        (OFF_CHIP,), "locations/test_off_chip_activations.py::test_off_chip_activations_lower_the_peak_and_keep_the_numbers"),
    "TensorLocations.setWeightLocation": (
        (OFF_CHIP,), "locations/test_tensor_locations.py::test_off_chip_class_moves_to_streaming_memory_same_numbers"),
    "TensorLocations.setOptimizerLocation": (
        (OFF_CHIP,), "locations/test_tensor_locations.py::test_off_chip_class_moves_to_streaming_memory_same_numbers"),
    "TensorLocations.setAccumulatorLocation": (
        (OFF_CHIP,), "locations/test_tensor_locations.py::test_off_chip_class_moves_to_streaming_memory_same_numbers"),
    "Jit.traceModel": ((True,), WARNS),
    # autoRecomputation recomputes pipelined activations; an unknown key warns (test_options.py).
    "_Popart.set": (("autoRecomputation", 3), "test_recompute.py::test_recomputation_over_more_stages_matches_sharded"),
}


def every_setter() -> list[str]:
    opts = poptorch.Options()
    found = []
    for prefix, cls in [("", poptorch.Options)] + [(f"{g}.", type(getattr(opts, g))) for g in options_module._GROUPS]:
        found += [prefix + name for name, value in vars(cls).items()
                  if callable(value) and not name.startswith("_") and name not in options_module._NOT_SETTERS]
    return found


def test_every_setter_is_classified():
    setters = every_setter()
    assert len(setters) > 40
    assert sorted(set(setters) - set(SETTERS)) == [], "classify these setters in SETTERS"
    assert sorted(set(SETTERS) - set(setters)) == [], "these are not setters any more"


def _call(name: str, args: tuple) -> None:
    opts = poptorch.Options()
    *group, method = name.split(".")
    getattr(getattr(opts, group[0]) if group else opts, method)(*args)


@pytest.mark.parametrize("name", [n for n, (_, evidence) in SETTERS.items() if evidence == WARNS])
def test_setter_without_effect_warns_once(name, caplog, monkeypatch):
    monkeypatch.delenv("POPTORCH_CACHE_DIR", raising=False)
    args, _ = SETTERS[name]
    _call(name, args)
    _call(name, args)
    messages = poptorch_warnings(caplog)
    assert len(messages) == 1, messages
    assert f"Options.{name}(" in messages[0] and "has no effect in the IPU Model emulator" in messages[0]


@pytest.mark.parametrize("name", [n for n, (_, evidence) in SETTERS.items() if evidence != WARNS])
def test_setter_with_effect_has_a_test_showing_it(name):
    args, evidence = SETTERS[name]
    _call(name, args)  # the listed arguments are valid
    path, test_name = evidence.split("::")
    source = (TESTS / path).read_text()
    functions = {node.name for node in ast.walk(ast.parse(source)) if isinstance(node, ast.FunctionDef)}
    assert test_name in functions, f"{evidence} does not exist"
    method = name.split(".")[-1]
    assert f"{method}(" in source, f"{path} never calls {method}"


def test_automatic_loss_scaling_updates_the_scale_on_the_device():
    class Model(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.l = torch.nn.Linear(3, 2)

        def forward(self, x, y):
            out = self.l(x)
            return out, torch.nn.functional.mse_loss(out, y)

    programs, weights = {}, {}
    x, y = torch.randn(2, 3), torch.randn(2, 2)
    for auto in (False, True):
        torch.manual_seed(0)
        model = Model()
        opts = poptorch.Options()
        opts.Training.setAutomaticLossScaling(auto)
        step = poptorch.trainingModel(model, opts, poptorch.optim.SGD(model.parameters(), lr=0.1, loss_scaling=4.0))
        step(x, y)
        programs[auto], weights[auto] = step._compiled.ir_text(), model.l.weight.detach().clone()
    # The step measures the gradients and writes a new scale back into the loss_scaling variable.
    assert programs[True].count("poplar.program_copy") == programs[False].count("poplar.program_copy") + 1
    assert programs[True].count("poplar.popops_reduce") > programs[False].count("poplar.popops_reduce")
    torch.testing.assert_close(weights[True], weights[False])  # the scale is divided out again

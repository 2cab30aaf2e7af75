"""User-visible behaviour of poptorch.Options, the enums, the execution strategies and logging:
validation messages, chaining, copies, options files, environment variables, warn-once."""

from __future__ import annotations

import importlib
import json
import logging

import pytest
from helpers import poptorch_warnings

from poptorch import _logging, enums, execution_strategy, options
from poptorch.enums import (
    AutoStage,
    CommGroupType,
    ConnectionType,
    Liveness,
    MatMulSerializationMode,
    MeanReductionStrategy,
    OutputMode,
    ReductionType,
    SyncPattern,
)
from poptorch.execution_strategy import (
    ExecutionStrategy,
    ParallelPhasedExecution,
    Phase,
    PipelinedExecution,
    SerialPhasedExecution,
    ShardedExecution,
    Stage,
)
from poptorch.options import Options, TensorLocationSettings

IGNORED_TEXT = "has no effect in the IPU Model emulator"

pytestmark = pytest.mark.usefixtures("fresh_poptorch_logging")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in (
        "POPTORCH_IPU_MODEL",
        "POPTORCH_CACHE_DIR",
        "OMPI_COMM_WORLD_SIZE",
        "OMPI_COMM_WORLD_RANK",
    ):
        monkeypatch.delenv(name, raising=False)


# --- defaults and chaining ----------------------------------------------------------------


def test_defaults_are_what_the_compiler_expects():
    opts = Options()
    assert opts.device_iterations == 1
    assert opts.replication_factor == 1
    assert opts.input_group_size == 1
    assert opts.output_mode is OutputMode.Default
    assert opts.output_return_period is None
    assert opts.random_seed is None
    assert opts.execution_strategy is None
    assert opts.auto_round_num_ipus is False
    assert opts.use_ipu_model is False
    assert opts.available_memory_proportion == {}
    assert opts.Training.gradient_accumulation == 1
    assert opts.Training.accumulation_and_replication_reduction_type is ReductionType.Mean
    assert opts.Training.mean_accumulation_and_replication_reduction_strategy is None
    assert opts.Training.auto_loss_scaling is False
    assert opts.Precision.half_float_casting is enums.HalfFloatCastingBehavior.Default
    assert opts.Distributed.numProcesses == 1 and opts.Distributed.processId == 0
    assert opts.defaultOutputMode() is True


def test_setters_chain_and_store():
    opts = Options()
    same = (
        opts.deviceIterations(4)
        .replicationFactor(2)
        .randomSeed(42)
        .autoRoundNumIPUs()
        .outputMode(OutputMode.Sum)
        .inputReplicaGrouping(2, CommGroupType.Orthogonal)
    )
    assert same is opts
    assert opts.Training.gradientAccumulation(8).setAutomaticLossScaling(True) is opts.Training
    assert (opts.device_iterations, opts.replication_factor, opts.random_seed) == (4, 2, 42)
    assert opts.auto_round_num_ipus is True
    assert opts.output_mode is OutputMode.Sum and opts.defaultOutputMode() is False
    assert (opts.input_group_size, opts.input_group_type) == (2, CommGroupType.Orthogonal)
    assert opts.Training.gradient_accumulation == 8
    assert opts.Training.auto_loss_scaling is True


@pytest.mark.parametrize(
    "path, args",
    [
        ("deviceIterations", (2,)),
        ("replicationFactor", (4,)),
        ("randomSeed", (0,)),
        ("broadcastBuffers", (False,)),
        ("connectionType", (ConnectionType.Always,)),
        ("syncPattern", (SyncPattern.Full,)),
        ("enableExecutableCaching", ("/tmp/cache",)),
        ("enableProfiling", ()),
        ("logCycleCount", (True,)),
        ("modelName", ("bert",)),
        ("relaxOptimizerAttributesChecks", ()),
        ("showCompilationProgressBar", (False,)),
        ("sourceLocationExcludes", (["x/"],)),
        ("appendToLocationExcludes", ("y/",)),
        ("disableModuleNamescope", ()),
        ("useIpuModel", (True,)),
        ("setAvailableMemoryProportion", ({"IPU0": 0.2},)),
        ("anchorTensor", ("a", "b")),
        ("Training.accumulationAndReplicationReductionType", (ReductionType.Sum,)),
        (
            "Training.setMeanAccumulationAndReplicationReductionStrategy",
            (MeanReductionStrategy.Running,),
        ),
        ("Precision.enableFloatingPointExceptions", (True,)),
        ("Distributed.configureProcessId", (1, 2)),
        ("Distributed.disable", ()),
        ("TensorLocations.numIOTiles", (32,)),
        ("TensorLocations.setWeightLocation", (TensorLocationSettings(),)),
    ],
)
def test_every_setter_returns_its_own_object(path, args):
    opts = Options()
    *group, method = path.split(".")
    target = getattr(opts, group[0]) if group else opts
    assert getattr(target, method)(*args) is target


# --- validation messages ------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, value, error, fragments",
    [
        ("deviceIterations", 0, ValueError, ["Options.deviceIterations(0)", "at least 1"]),
        ("deviceIterations", "4", TypeError, ["deviceIterations('4')", "expected an int", "str"]),
        ("deviceIterations", True, TypeError, ["expected an int", "bool"]),
        ("deviceIterations", 2.0, TypeError, ["expected an int", "float"]),
        ("replicationFactor", -1, ValueError, ["Options.replicationFactor(-1)", "at least 1"]),
        ("randomSeed", -3, ValueError, ["randomSeed(-3)", "between 0 and"]),
        ("randomSeed", 2**64, ValueError, ["randomSeed", "64 unsigned bits"]),
        ("useIpuId", -1, ValueError, ["useIpuId(-1)", "at least 0"]),
        (
            "useOfflineIpuTarget",
            3,
            ValueError,
            ["useOfflineIpuTarget(3)", "1 (Mk1), 2 (Mk2) or 21"],
        ),
        ("useIpuModel", 1, TypeError, ["useIpuModel(1)", "True or False"]),
        ("modelName", "", ValueError, ["modelName('')", "must not be empty"]),
        ("maxRepeatLogs", -1, ValueError, ["maxRepeatLogs(-1)", "at least 0"]),
        ("connectionType", 1, TypeError, ["connectionType", "Always, OnDemand, Never"]),
        (
            "syncPattern",
            "sometimes",
            ValueError,
            ["'sometimes'", "Full, SinglePipeline, ReplicaAndLadder"],
        ),
        (
            "sourceLocationExcludes",
            "torch/",
            TypeError,
            ["list of strings", "appendToLocationExcludes"],
        ),
        (
            "setExecutionStrategy",
            "pipelined",
            TypeError,
            ["setExecutionStrategy('pipelined')", "PipelinedExecution"],
        ),
        (
            "Training.gradientAccumulation",
            0,
            ValueError,
            ["Options.Training.gradientAccumulation(0)", "at least 1"],
        ),
        (
            "Training.accumulationAndReplicationReductionType",
            ReductionType.NoReduction,
            ValueError,
            ["NoReduction", "ReductionType.Mean or ReductionType.Sum"],
        ),
        (
            "Training.setMeanAccumulationAndReplicationReductionStrategy",
            ReductionType.Sum,
            TypeError,
            ["MeanReductionStrategy", "Running, Post, PostAndLoss"],
        ),
        (
            "Precision.enableStochasticRounding",
            "yes",
            TypeError,
            ["enableStochasticRounding('yes')", "True or False"],
        ),
        ("Precision.halfFloatCasting", "up", ValueError, ["'up'", "HalfUpcastToFloat"]),
        ("TensorLocations.numIOTiles", 33, ValueError, ["numIOTiles(33)", "pairs"]),
        ("TensorLocations.numIOTiles", 194, ValueError, ["numIOTiles(194)", "between 0 and 192"]),
        (
            "TensorLocations.setActivationLocation",
            {"on_chip": False},
            TypeError,
            ["setActivationLocation", "TensorLocationSettings"],
        ),
        ("Jit.traceModel", None, TypeError, ["traceModel(None)", "True or False"]),
    ],
)
def test_bad_values_are_rejected_with_the_option_the_value_and_the_rule(
    path, value, error, fragments
):
    opts = Options()
    *group, method = path.split(".")
    target = getattr(opts, group[0]) if group else opts
    with pytest.raises(error) as info:
        getattr(target, method)(value)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_output_mode_period_rules():
    opts = Options()
    with pytest.raises(ValueError, match=r"EveryN needs a period"):
        opts.outputMode(OutputMode.EveryN)
    with pytest.raises(ValueError, match=r"at least 0"):
        opts.outputMode(OutputMode.All, -1)  # a period with another mode: see api/test_compat.py
    with pytest.raises(ValueError, match=r"at least 1"):
        opts.outputMode(OutputMode.EveryN, 0)
    assert opts.output_mode is OutputMode.Default  # failed calls change nothing
    opts.outputMode(OutputMode.EveryN, 5)
    assert (opts.output_mode, opts.output_return_period) == (OutputMode.EveryN, 5)
    opts.outputMode("final")  # enum names are accepted in any case
    assert (opts.output_mode, opts.output_return_period) == (OutputMode.Final, None)
    with pytest.raises(ValueError, match="Valid choices are All, Final, EveryN, Sum, Default"):
        opts.outputMode("Everything")


def test_default_output_mode_resolves_per_model_kind():
    opts = Options()
    assert opts.resolved_output_mode(training=True) is OutputMode.Final
    assert opts.resolved_output_mode(training=False) is OutputMode.All
    opts.outputMode(OutputMode.Sum)
    assert opts.resolved_output_mode(training=True) is OutputMode.Sum


def test_input_replica_grouping_refuses_group_type_all():
    with pytest.raises(
        ValueError, match=r"CommGroupType.All.*Use CommGroupType.Consecutive or Orthogonal"
    ):
        Options().inputReplicaGrouping(2, CommGroupType.All)
    with pytest.raises(ValueError, match=r"inputReplicaGrouping\(0\)"):
        Options().inputReplicaGrouping(0)


def test_available_memory_proportion():
    opts = Options().setAvailableMemoryProportion({"IPU0": 0.5, "ipu3": 1})
    assert opts.available_memory_proportion == {0: 0.5, 3: 1.0}
    opts.available_memory_proportion[0] = 0.9  # a copy: the stored value is untouched
    assert opts.available_memory_proportion[0] == 0.5
    with pytest.raises(ValueError, match=r"'IPU1' is 0.0, but it must be in \(0, 1\]"):
        opts.setAvailableMemoryProportion({"IPU1": 0.0})
    with pytest.raises(ValueError, match=r"is 1.5, but it must be in \(0, 1\]"):
        opts.setAvailableMemoryProportion({"IPU1": 1.5})
    with pytest.raises(ValueError, match="key 'GPU0' does not name an IPU"):
        opts.setAvailableMemoryProportion({"GPU0": 0.5})
    with pytest.raises(TypeError, match="expected a dict"):
        opts.setAvailableMemoryProportion(0.5)


def test_anchor_tensor_rules():
    opts = Options().anchorTensor("grad", "Gradient___x", OutputMode.EveryN, 2)
    assert opts.anchored_tensors[0].output_return_period == 2
    with pytest.raises(ValueError, match="already anchored as 'grad'"):
        opts.anchorTensor("grad", "other")
    with pytest.raises(ValueError, match="at least 1"):
        opts.anchorTensor("w", "weight", OutputMode.All, 0)  # a period with another mode: api/test_compat.py


def test_partials_type_accepts_only_float_and_half():
    torch = pytest.importorskip("torch")
    precision = Options().Precision
    assert precision.partials_type is None
    assert precision.setPartialsType(torch.half).partials_type is torch.float16
    assert precision.setPartialsType(torch.float).partials_type is torch.float32
    with pytest.raises(
        ValueError, match=r"setPartialsType\(torch.int32\).*torch.float .*torch.half"
    ):
        precision.setPartialsType(torch.int32)
    with pytest.raises(TypeError, match="expected a torch.dtype, got str"):
        precision.setPartialsType("half")


def test_mean_reduction_strategy_post_and_loss_is_flagged_deprecated(caplog):
    training = Options().Training
    training.setMeanAccumulationAndReplicationReductionStrategy(MeanReductionStrategy.PostAndLoss)
    assert (
        training.mean_accumulation_and_replication_reduction_strategy
        is MeanReductionStrategy.PostAndLoss
    )
    assert any("deprecated" in m for m in poptorch_warnings(caplog))


def test_cross_option_rules_are_checked_by_validate():
    Options().replicationFactor(4).inputReplicaGrouping(2).validate(training=False)
    with pytest.raises(
        ValueError, match=r"inputReplicaGrouping\(3, ...\).*must divide replicationFactor \(4\)"
    ):
        Options().replicationFactor(4).inputReplicaGrouping(3).validate(training=True)
    opts = Options()
    opts.Training.gradientAccumulation(2)
    opts.validate(training=True)
    with pytest.raises(ValueError, match=r"gradientAccumulation\(2\).*inference model needs 1"):
        opts.validate(training=False)
    opts = Options().deviceIterations(10).outputMode(OutputMode.EveryN, 5)
    opts.validate(training=False)
    opts.outputMode(OutputMode.EveryN, 4)
    with pytest.raises(ValueError, match=r"10 steps, which is not a multiple of 4"):
        opts.validate(training=False)


# --- tensor locations ---------------------------------------------------------------------


def test_tensor_location_settings_are_copied_and_exposed_read_only():
    settings = TensorLocationSettings().useOnChipStorage(False).minElementsForOffChip(64)
    opts = Options()
    opts.TensorLocations.setActivationLocation(settings)
    settings.useOnChipStorage(True)  # later edits of the user's object do not leak in
    stored = opts.TensorLocations.activation_location
    assert (stored.on_chip, stored.min_elements_for_off_chip) == (False, 64)
    assert opts.TensorLocations.weight_location.on_chip is None
    with pytest.raises(RuntimeError, match="read-only view"):
        stored.useOnChipStorage(True)
    assert opts.TensorLocations.activation_location.on_chip is False


def test_tensor_location_settings_validation():
    with pytest.raises(ValueError, match=r"minElementsForOffChip\(-1\).*at least 0"):
        TensorLocationSettings().minElementsForOffChip(-1)
    with pytest.raises(TypeError, match=r"useReplicatedTensorSharding\('on'\)"):
        TensorLocationSettings().useReplicatedTensorSharding("on")
    sharded = TensorLocationSettings().useReplicatedTensorSharding(True)
    Options().TensorLocations.setWeightLocation(sharded).setOptimizerLocation(sharded)
    with pytest.raises(ValueError, match="not to activations"):
        Options().TensorLocations.setActivationLocation(sharded)


# --- distributed --------------------------------------------------------------------------


def test_distributed_reads_openmpi_variables_and_custom_ones(monkeypatch):
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "4")
    monkeypatch.setenv("OMPI_COMM_WORLD_RANK", "3")
    dist = Options().Distributed
    assert (dist.processId, dist.numProcesses, dist.is_distributed) == (3, 4, True)
    monkeypatch.setenv("MY_SIZE", "2")
    monkeypatch.setenv("MY_RANK", "oops")
    with pytest.raises(ValueError, match="MY_RANK='oops' is not an integer"):
        dist.setEnvVarNames("MY_SIZE", "MY_RANK")
    monkeypatch.setenv("MY_RANK", "1")
    assert dist.setEnvVarNames("MY_SIZE", "MY_RANK").process_id == 1
    assert dist.disable().num_processes == 1


def test_distributed_process_id_must_exist():
    with pytest.raises(ValueError, match=r"process id 2 does not exist among 2 process\(es\)"):
        Options().Distributed.configureProcessId(2, 2)
    with pytest.raises(ValueError, match="at least 1"):
        Options().Distributed.configureProcessId(0, 0)


# --- environment variables ----------------------------------------------------------------


def test_use_ipu_model_takes_precedence_over_environment(monkeypatch):
    opts = Options()
    monkeypatch.setenv("POPTORCH_IPU_MODEL", "1")
    assert opts.use_ipu_model is True
    opts.useIpuModel(False)
    assert opts.use_ipu_model is False
    monkeypatch.setenv("POPTORCH_IPU_MODEL", "0")
    assert Options().useIpuModel(True).use_ipu_model is True
    monkeypatch.setenv("POPTORCH_IPU_MODEL", "maybe")
    with pytest.raises(ValueError, match="POPTORCH_IPU_MODEL='maybe' is not a boolean"):
        _ = Options().use_ipu_model
    assert Options().useIpuModel(True).use_ipu_model is True


def test_executable_caching_overrides_environment(monkeypatch):
    monkeypatch.setenv("POPTORCH_CACHE_DIR", "/tmp/from_env")
    assert Options().executable_cache_dir == "/tmp/from_env"
    assert Options().enableExecutableCaching(None).executable_cache_dir is None
    assert Options().enableExecutableCaching("/tmp/mine").executable_cache_dir == "/tmp/mine"


def test_log_level_env_var_is_read_at_import(monkeypatch, caplog):
    try:
        monkeypatch.setenv("POPTORCH_LOG_LEVEL", "debug")
        importlib.reload(_logging)
        assert _logging.logger.level == logging.DEBUG
        monkeypatch.setenv("POPTORCH_LOG_LEVEL", "TRACE")
        importlib.reload(_logging)
        assert _logging.logger.level == _logging.TRACE < logging.DEBUG
        monkeypatch.setenv("POPTORCH_LOG_LEVEL", "LOUD")
        importlib.reload(_logging)
        assert _logging.logger.level == logging.INFO
        message = " ".join(poptorch_warnings(caplog))
        assert "POPTORCH_LOG_LEVEL" in message and "'LOUD'" in message
        assert "TRACE, DEBUG, INFO, WARN, ERR, OFF" in message
        assert len([h for h in _logging.logger.handlers if h.get_name() == "poptorch-console"]) == 1
    finally:
        monkeypatch.delenv("POPTORCH_LOG_LEVEL")
        importlib.reload(_logging)


@pytest.mark.parametrize(
    "level, expected",
    [
        ("trace", _logging.TRACE),
        ("DEBUG", logging.DEBUG),
        ("Info", logging.INFO),
        ("WARN", logging.WARNING),
        ("err", logging.ERROR),
        ("OFF", _logging.OFF),
        (3, logging.WARNING),  # PopTorch's integer numbering
        (logging.ERROR, logging.ERROR),  # standard logging levels
    ],
)
def test_set_log_level(level, expected):
    _logging.setLogLevel(level)
    assert _logging.logger.level == expected


def test_log_level_off_silences_everything(caplog):
    _logging.setLogLevel("OFF")
    _logging.logger.critical("not shown")
    assert not [r for r in caplog.records if r.name == "poptorch"]


@pytest.mark.parametrize(
    "bad, error", [("LOUD", ValueError), (8, ValueError), (2.5, TypeError), (True, TypeError)]
)
def test_set_log_level_rejects_unknown_levels(bad, error):
    with pytest.raises(error, match="TRACE, DEBUG, INFO, WARN, ERR, OFF"):
        _logging.setLogLevel(bad)


# --- no-effect warnings -------------------------------------------------------------------


def test_warn_once_fires_once_per_key(caplog):
    _logging.warn_once("k", "first")
    _logging.warn_once("k", "second")
    _logging.warn_once("other", "third")
    assert poptorch_warnings(caplog) == ["first", "third"]
    _logging.reset_warn_once()
    _logging.warn_once("k", "again")
    assert poptorch_warnings(caplog)[-1] == "again"


def test_ignored_option_warns_once_naming_the_option(caplog):
    Options().connectionType(ConnectionType.Always)  # the default: nothing to report
    assert poptorch_warnings(caplog) == []
    Options().connectionType(ConnectionType.Never)  # honoured: compiling only (see test_export_load.py)
    Options().connectionType(ConnectionType.OnDemand)
    Options().connectionType(ConnectionType.OnDemand)
    messages = poptorch_warnings(caplog)
    assert len(messages) == 1
    assert "Options.connectionType(ConnectionType.OnDemand)" in messages[0]
    assert IGNORED_TEXT in messages[0]


def test_honoured_options_do_not_warn(caplog):
    opts = Options().deviceIterations(3).logCycleCount(True).enableProfiling("/tmp/p")
    opts.Precision.enableFloatingPointExceptions(False)
    opts.Precision.enableStochasticRounding(False)
    assert poptorch_warnings(caplog) == []


@pytest.mark.parametrize("name", options.EMULATOR_IGNORED_OPTIONS)
def test_each_ignored_option_is_a_real_setter_that_warns(name, caplog):
    values = {
        "connectionType": ConnectionType.OnDemand,
        "syncPattern": SyncPattern.SinglePipeline,
        "useIpuId": 3,
        "useOfflineIpuTarget": 2,
        "logDir": "/tmp/logs",
        "maxRepeatLogs": None,
        "Precision.setFloatingPointBehaviour": (False, False, False, False, True),  # nanoo
        "Precision.runningStatisticsAlwaysFloat": False,
        "broadcastBuffers": False,
        "modelName": "m",
        "sourceLocationExcludes": ["x/"],
        "appendToLocationExcludes": "x/",
        "disableModuleNamescope": (),
    }
    for kind in ("Activation", "Weight", "Optimizer", "Accumulator"):
        values[f"TensorLocations.set{kind}Location"] = TensorLocationSettings().useOnChipStorage(False)
    opts = Options()
    *group, method = name.split(".")
    target = getattr(opts, group[0]) if group else opts
    args = values.get(name, True)
    getattr(target, method)(*(args if isinstance(args, tuple) else (args,)))
    messages = poptorch_warnings(caplog)
    assert len(messages) == 1
    assert f"Options.{name}(" in messages[0] and IGNORED_TEXT in messages[0]


# --- toDict, clone, freezing, repr ----------------------------------------------------------


def test_to_dict_is_plain_and_stable():
    opts = Options().deviceIterations(2).outputMode(OutputMode.EveryN, 2)
    opts.Training.gradientAccumulation(3)
    opts.setExecutionStrategy(PipelinedExecution("A", Stage("B").ipu(1)))
    values = opts.toDict()
    assert values["device_iterations"] == 2
    assert values["output_mode"] == "OutputMode.EveryN"
    assert values["Training.gradient_accumulation"] == 3
    assert values["Training.accumulation_and_replication_reduction_type"] == "ReductionType.Mean"
    assert values["TensorLocations.weight_location"]["on_chip"] is None
    assert values["execution_strategy"]["stages"][1] == {"stage_id": 1, "blocks": ["B"], "ipu": 1}
    json.dumps(values)  # plain data only
    assert Options().toDict().keys() == values.keys()


def test_clone_is_deep_and_independent():
    opts = Options().deviceIterations(2).setExecutionStrategy(SerialPhasedExecution(Phase("A")))
    opts.Training.gradientAccumulation(4)
    copy = opts.clone()
    copy.deviceIterations(8).Training.gradientAccumulation(16)
    copy.execution_strategy.phase(0).ipus(1)
    assert opts.device_iterations == 2 and opts.Training.gradient_accumulation == 4
    assert opts.execution_strategy.phase(0).stages[0].ipu_id is None
    assert copy.toDict() != opts.toDict()


def test_frozen_options_point_at_clone():
    opts = Options().deviceIterations(2)
    opts._freeze()
    with pytest.raises(RuntimeError, match=r"Options.deviceIterations.*options.clone\(\)"):
        opts.deviceIterations(3)
    with pytest.raises(RuntimeError, match="Options.Training.gradientAccumulation"):
        opts.Training.gradientAccumulation(2)
    editable = opts.clone()
    assert editable.deviceIterations(3).device_iterations == 3
    assert opts.frozen and not editable.frozen


def test_repr_lists_changed_options():
    assert repr(Options()) == "Options()"
    opts = Options().deviceIterations(4)
    opts.Training.gradientAccumulation(2)
    assert repr(opts) == "Options(device_iterations=4, Training.gradient_accumulation=2)"


# --- options files ------------------------------------------------------------------------


def test_load_from_file(tmp_path):
    path = tmp_path / "opts.txt"
    path.write_text(
        "# a comment\n"
        "deviceIterations(4)\n"
        "\n"
        "outputMode(OutputMode.EveryN, 2)   # trailing comment\n"
        "Training.gradientAccumulation(8)\n"
        "Training.accumulationAndReplicationReductionType(poptorch.ReductionType.Sum)\n"
        "setAvailableMemoryProportion({'IPU0': 0.3})\n"
        "TensorLocations.setWeightLocation(TensorLocationSettings().useOnChipStorage(False))\n"
        "randomSeed(random_seed=7)\n"
    )
    opts = Options()
    assert opts.loadFromFile(path) is opts
    assert opts.device_iterations == 4
    assert (opts.output_mode, opts.output_return_period) == (OutputMode.EveryN, 2)
    assert opts.Training.gradient_accumulation == 8
    assert opts.Training.accumulation_and_replication_reduction_type is ReductionType.Sum
    assert opts.available_memory_proportion == {0: 0.3}
    assert opts.TensorLocations.weight_location.on_chip is False
    assert opts.random_seed == 7


@pytest.mark.parametrize(
    "line, error, fragments",
    [
        ("deviceIterations(0)", ValueError, ["at least 1"]),
        ("deviceIterations('2')", TypeError, ["expected an int"]),
        ("deviceIterations(4", ValueError, ["cannot be parsed"]),
        ("deviceIterations = 4", ValueError, ["cannot be parsed"]),
        ("__import__('os').system('true')", ValueError, ["'__import__' is not an option setter"]),
        ("options.deviceIterations(4)", ValueError, ["without an 'options.' prefix"]),
        ("exec('x')", ValueError, ["'exec' is not an option setter of Options"]),
        ("clone()", ValueError, ["'clone' is not an option setter"]),
        (
            "Training.gradient_accumulation(2)",
            ValueError,
            ["not an option setter of Options.Training"],
        ),
        ("deviceIterations(len('ab'))", ValueError, ["unsupported argument"]),
        ("deviceIterations(x)", ValueError, ["unknown name 'x'"]),
        (
            "outputMode(OutputMode.Often)",
            ValueError,
            ["OutputMode has no member 'Often'", "All, Final"],
        ),
        ("TensorLocations.numIOTiles(*[2])", ValueError, ["* and ** arguments"]),
        (
            "TensorLocations.setWeightLocation(TensorLocationSettings().minElementsForOffChip(-1))",
            ValueError,
            ["at least 0"],
        ),
    ],
)
def test_load_from_file_reports_file_and_line(tmp_path, line, error, fragments):
    path = tmp_path / "bad.txt"
    path.write_text(f"# header\nrandomSeed(1)\n{line}\n")
    opts = Options()
    with pytest.raises(error) as info:
        opts.loadFromFile(str(path))
    message = str(info.value)
    assert message.startswith(f"{path}:3: ")
    for fragment in fragments:
        assert fragment in message


# --- enums --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, members",
    [
        ("OutputMode", ["All", "Final", "EveryN", "Sum", "Default"]),
        ("ConnectionType", ["Always", "OnDemand", "Never"]),
        ("SyncPattern", ["Full", "SinglePipeline", "ReplicaAndLadder"]),
        ("ReductionType", ["Sum", "Mean", "NoReduction"]),
        ("MeanReductionStrategy", ["Running", "Post", "PostAndLoss"]),
        ("AutoStage", ["SameAsIpu", "AutoIncrement"]),
        (
            "Liveness",
            ["AlwaysLive", "OffChipAfterFwd", "OffChipAfterFwdNoOverlap", "OffChipAfterEachPhase"],
        ),
        ("CommGroupType", ["All", "Consecutive", "Orthogonal", "NoGrouping"]),
        ("VariableRetrievalMode", ["OnePerGroup", "AllReplicas"]),
        ("DataLoaderMode", ["Sync", "Async", "AsyncRebatched"]),
        ("SharingStrategy", ["SharedMemory", "FileSystem", "Fork", "ForkServer"]),
        ("OverlapMode", ["NoOverlap", "OverlapAccumulationLoop", "OverlapDeviceIterationLoop"]),
        ("MatMulSerializationMode", ["InputChannels", "ReducingDim", "OutputChannels", "Disabled"]),
        ("MultiConvPlanType", ["Parallel", "Serial"]),
        ("HalfFloatCastingBehavior", ["Default", "FloatDowncastToHalf", "HalfUpcastToFloat"]),
    ],
)
def test_enums_of_the_api_reference(name, members):
    assert getattr(enums, name).choices() == members


def test_enum_parse():
    assert Liveness.parse("offchipaftereachphase") is Liveness.OffChipAfterEachPhase
    assert MatMulSerializationMode.parse("reducing_dim") is MatMulSerializationMode.ReducingDim
    with pytest.raises(TypeError, match="expected a poptorch.Liveness"):
        Liveness.parse(0)  # an int could belong to any enum
    with pytest.raises(ValueError, match="Valid choices are SameAsIpu, AutoIncrement"):
        AutoStage.parse("ByName")


# --- execution strategies -----------------------------------------------------------------


def test_stage_validation():
    stage = Stage("A", "B").ipu(1)
    assert (stage.blocks, stage.ipu_id, stage.stage_id) == (["A", "B"], 1, None)
    with pytest.raises(ValueError, match=r"Stage.ipu\(-1\): IPU indices start at 0"):
        Stage("A").ipu(-1)
    with pytest.raises(TypeError, match="must be an int"):
        Stage("A").ipu(True)
    with pytest.raises(ValueError, match="needs at least one block id"):
        Stage()
    with pytest.raises(TypeError, match="got 1 of type int"):
        Stage("A", 1)
    with pytest.raises(ValueError, match="block 'A' is listed twice"):
        Stage("A", "A")


def test_pipelined_execution_with_auto_stages():
    assert PipelinedExecution().auto_stage is AutoStage.SameAsIpu
    strategy = PipelinedExecution(AutoStage.AutoIncrement)
    assert (strategy.auto_stage, strategy.stages) == (AutoStage.AutoIncrement, [])
    with pytest.raises(
        ValueError, match="stages are made from blocks only when the model is compiled"
    ):
        strategy.stage("0")
    with pytest.raises(TypeError, match="must be the only argument"):
        PipelinedExecution(AutoStage.SameAsIpu, "A")


def test_pipelined_execution_with_explicit_stages():
    strategy = PipelinedExecution("A", Stage("B", "C").ipu(1), "D")
    assert [s.blocks for s in strategy.stages] == [["A"], ["B", "C"], ["D"]]
    assert [s.stage_id for s in strategy.stages] == [0, 1, 2]
    assert strategy.stage("C").ipu_id == 1
    assert strategy.auto_stage is None and strategy.block_ids == ["A", "B", "C", "D"]
    with pytest.raises(
        ValueError, match="no stage holds this block. Blocks in this strategy: 'A', 'B'"
    ):
        strategy.stage("Z")
    with pytest.raises(TypeError, match="got 3 of type int"):
        PipelinedExecution("A", 3)


def test_a_block_or_stage_cannot_appear_twice():
    with pytest.raises(ValueError, match=r"block 'A' is in stage 0 .* and again in stage 1"):
        ShardedExecution(Stage("A", "B"), Stage("C", "A"))
    stage = Stage("A")
    with pytest.raises(ValueError, match="the same Stage\\('A'\\) object is given twice"):
        PipelinedExecution(stage, stage)
    with pytest.raises(ValueError, match="block 'A' is in stage 0"):
        SerialPhasedExecution(Phase("A"), Phase("A"))


def test_serial_phased_execution_from_the_reference():
    strategy = SerialPhasedExecution(
        [
            Phase(Stage("A"), Stage("A2")),
            Phase(Stage("B"), Stage("B2")),
            Phase(Stage("C"), Stage("C2")),
        ]
    )
    for index in range(3):
        strategy.phase(index).ipus(0, 1)
    assert [p.phase_id for p in strategy.phases] == [0, 1, 2]
    assert strategy.stage("B2").phase_id == 1 and strategy.stage("B2").ipu_id == 1
    assert [strategy.backward_phase_id(i) for i in range(3)] == [4, 3, 2]
    strategy.useSeparateBackwardPhase()
    assert [strategy.backward_phase_id(i) for i in range(3)] == [6, 5, 4]
    assert strategy.tensors_liveness is Liveness.AlwaysLive
    assert strategy.setTensorsLiveness(Liveness.OffChipAfterFwd) is strategy
    assert Options().setExecutionStrategy(strategy).execution_strategy is strategy


def test_serial_phases_share_one_ipu_group():
    strategy = SerialPhasedExecution([["A"], ["B"]])
    strategy.phase(0).ipus(0)
    with pytest.raises(
        ValueError, match=r"phase 1 runs on IPUs \[1\] but phase 0 runs on IPUs \[0\]"
    ):
        strategy.phase(1).ipus(1)
    assert strategy.phase(1).stages[0].ipu_id is None  # the failed assignment was undone


def test_phase_arguments_and_indexing():
    assert [s.blocks for s in Phase("A", "B").stages] == [["A", "B"]]  # block ids: one stage
    with pytest.raises(TypeError, match="not a mix"):
        Phase(Stage("A"), "B")
    with pytest.raises(ValueError, match=r"this phase has 2 stage\(s\).*but 1 IPU\(s\) were given"):
        Phase(Stage("A"), Stage("B")).ipus(0)
    with pytest.raises(TypeError, match="is ambiguous"):
        SerialPhasedExecution(["A", "B"])
    with pytest.raises(ValueError, match="at least one phase is needed"):
        ParallelPhasedExecution()
    strategy = SerialPhasedExecution(Phase("A"), Phase("B"))
    with pytest.raises(
        ValueError, match=r"phase\(2\): this strategy has 2 phase\(s\).*between 0 and 1"
    ):
        strategy.phase(2)
    with pytest.raises(
        ValueError,
        match=r"phase 0 puts Stage\('C'\).* on IPU 1, but the stages of a phase run in parallel",
    ):
        SerialPhasedExecution(Phase(Stage("C"), Stage("D"))).phase(0).ipus(1, 1)
    with pytest.raises(TypeError, match="expected a poptorch.Liveness"):
        strategy.setTensorsLiveness(1)
    with pytest.raises(TypeError, match=r"useSeparateBackwardPhase\('yes'\)"):
        strategy.useSeparateBackwardPhase("yes")


def test_parallel_phased_execution_alternates_even_and_odd_ipus():
    strategy = ParallelPhasedExecution(
        [
            Phase(Stage("0"), Stage("1")),
            Phase(Stage("2"), Stage("3")),
            Phase(Stage("4"), Stage("5")),
        ]
    )
    strategy.phase(0).ipus(0, 2)
    strategy.phase(1).ipus(1, 3)
    strategy.phase(2).ipus(0, 2)
    with pytest.raises(
        ValueError, match="is in phase 1 but on IPU 2.*odd phases must run on odd IPUs"
    ):
        strategy.stage("3").ipu(2)
    assert strategy.stage("3").ipu_id == 3
    with pytest.raises(ValueError, match="even phases must run on even IPUs"):
        ParallelPhasedExecution(Phase(Stage("A").ipu(1)))
    assert strategy.sendTensorsOffChipAfterFwd().tensors_liveness is Liveness.OffChipAfterFwd
    assert strategy.sendTensorsOffChipAfterFwd(False).tensors_liveness is Liveness.AlwaysLive


def test_strategy_base_is_not_a_strategy():
    with pytest.raises(TypeError, match="is a base class"):
        ExecutionStrategy([], None)
    assert execution_strategy.AutoStage is AutoStage

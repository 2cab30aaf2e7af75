"""``poptorch.Options`` and its option groups, as in the PopTorch API reference. Setters validate,
store and return ``self``; the wrappers, compiler and runtime read the snake_case properties.
Nothing here acts on a value. The groups live in ``_option_groups.py`` and ``_option_locations.py``,
what they share in ``_option_base.py``, the options-file reader in ``_options_file.py``; all are
re-exported here under their PopTorch names (``poptorch.options._TrainingOptions``, ...)."""

from __future__ import annotations

import copy
import enum
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

from . import _logging, enums
from .enums import (
    CommGroupType,
    ConnectionType,
    OutputMode,
    SyncPattern,
    format_value,
)
from .execution_strategy import ExecutionStrategy

if TYPE_CHECKING:
    import torch

__all__ = [
    "EMULATOR_IGNORED_OPTIONS",
    "AnchoredTensor",
    "Options",
    "TensorLocationSettings",
]

from ._option_base import (  # noqa: F401 - re-exported: the names below are options.*
    _EMULATOR_IGNORED_REASONS,
    _MAX_IO_TILES,
    _MAX_RANDOM_SEED,
    _OFFLINE_IPU_VERSIONS,
    CACHE_DIR_ENV_VAR,
    DEFAULT_SOURCE_LOCATION_EXCLUDES,
    EMULATOR_IGNORED_OPTIONS,
    IPU_MODEL_ENV_VAR,
    _bool_arg,
    _env_flag,
    _ignored,
    _int_arg,
    _Lock,
    _OptionGroup,
    _plain,
    _str_arg,
)
from ._option_groups import (  # noqa: F401
    _PARTIALS_TYPES,
    _RECOMPUTATION_TYPES,
    _DistributedOptions,
    _GraphProcessingOptions,
    _JitOptions,
    _PopartOptions,
    _PrecisionOptions,
    _TrainingOptions,
)
from ._option_locations import TensorLocationSettings, _TensorLocationOptions  # noqa: F401



def _torch_device(label: str, what: str, value: Any) -> torch.device:
    """``value`` as a torch device this process can allocate on, else our error."""
    import torch

    try:
        device = torch.device(value)
    except (RuntimeError, TypeError) as error:
        raise ValueError(f"{label}: {value!r} for {what} is not a torch device ({error}); pass e.g. 'cpu' or "
                         "'cuda:0'") from None
    if device.type == "meta":
        raise ValueError(f"{label}: the 'meta' device holds no data, so it cannot emulate an IPU ({what}); pass "
                         "e.g. 'cpu' or 'cuda:0'")
    try:
        torch.empty(0, device=device)
    except (RuntimeError, AssertionError) as error:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ValueError(f"{label}: device '{device}' for {what} is not available in this process ({reason}); "
                         "use a device torch can allocate on, such as 'cpu'") from None
    return device



@dataclass(frozen=True)
class AnchoredTensor:
    """A tensor registered with ``Options.anchorTensor`` for retrieval after a run."""

    short_name: str
    long_name: str
    output_mode: OutputMode | None
    output_return_period: int


# --- Options -----------------------------------------------------------------------------

_GROUPS = ("Training", "Precision", "GraphProcessing", "Distributed", "TensorLocations", "Jit", "_Popart")
# Public methods that are not option setters and so cannot appear in an options file.
_NOT_SETTERS = frozenset(
    {
        "clone",
        "toDict",
        "loadFromFile",
        "defaultOutputMode",
        "validate",
        "resolved_output_mode",
        "ipu_model_device",
    }
)
_IPU_KEY = re.compile(r"IPU(\d+)\Z", re.IGNORECASE)


class Options(_OptionGroup):
    """Every option controlling how a model is compiled and run.

    Pass one to ``poptorch.inferenceModel`` or ``poptorch.trainingModel``. Setters return
    the object, so calls chain: ``Options().deviceIterations(4).randomSeed(0)``.
    """

    _prefix = "Options"

    def __init__(self) -> None:
        lock = _Lock()
        super().__init__(lock)
        self._training = _TrainingOptions(lock)
        self._precision = _PrecisionOptions(lock)
        self._graph_processing = _GraphProcessingOptions(lock, self._precision)
        self._distributed = _DistributedOptions(lock)
        self._tensor_locations = _TensorLocationOptions(lock)
        self._jit = _JitOptions(lock)
        self._popart = _PopartOptions(lock)

        self._device_iterations = 1
        self._replication_factor = 1
        self._input_group_size = 1
        self._input_group_type = CommGroupType.Consecutive
        self._output_mode = OutputMode.Default
        self._output_return_period: int | None = None
        self._random_seed: int | None = None
        self._execution_strategy: ExecutionStrategy | None = None
        self._auto_round_num_ipus = False
        self._use_ipu_model: bool | None = None  # None: POPTORCH_IPU_MODEL decides
        self._ipu_model_devices: dict[int | None, torch.device] = {}  # None: every IPU
        self._available_memory_proportion: dict[int, float] = {}
        self._connection_type = ConnectionType.Always
        self._sync_pattern = SyncPattern.Full
        self._ipu_id: int | None = None
        self._broadcast_buffers = True
        self._cache_dir_set = False  # False: POPTORCH_CACHE_DIR decides
        self._cache_dir: str | None = None
        self._profile_dir: str | None = None
        self._stable_norm = False
        self._synthetic_data = False
        self._log_cycle_count = False
        self._ipu_target: str | None = None  # setIpuTarget: the IPU of the cost model
        self._auto_balance_ipus: int | None = None  # autoBalancePipeline
        self._log_dir = "."
        self._max_repeat_logs: int | None = 4
        self._model_name: str | None = None
        self._relax_optimizer_attributes_checks = False
        self._show_compilation_progress_bar = True
        self._source_location_excludes = list(DEFAULT_SOURCE_LOCATION_EXCLUDES)
        self._module_namescope = True
        self._offline_ipu_version: int | None = None
        self._anchored_tensors: list[AnchoredTensor] = []

    # -- option groups ------------------------------------------------------------------

    @property
    def Training(self) -> _TrainingOptions:  # noqa: N802 - PopTorch's name
        """Options specific to training."""
        return self._training

    @property
    def Precision(self) -> _PrecisionOptions:  # noqa: N802
        """Numerical precision options."""
        return self._precision

    @property
    def GraphProcessing(self) -> _GraphProcessingOptions:  # noqa: N802
        """Processing of the captured graph (float16 / float32 casting)."""
        return self._graph_processing

    @property
    def Distributed(self) -> _DistributedOptions:  # noqa: N802
        """Options for runs over several processes."""
        return self._distributed

    @property
    def TensorLocations(self) -> _TensorLocationOptions:  # noqa: N802
        """Where tensors are stored."""
        return self._tensor_locations

    @property
    def Jit(self) -> _JitOptions:  # noqa: N802
        """Options of PyTorch's JIT (deprecated)."""
        return self._jit

    @property
    def _Popart(self) -> _PopartOptions:  # noqa: N802 - PopTorch's name
        """PopART session options by name (``_Popart.set("autoRecomputation", 3)``)."""
        return self._popart

    # -- batching and outputs -----------------------------------------------------------

    def deviceIterations(self, device_iterations: int) -> Options:  # noqa: N802
        """Batches the device processes per call (D, default 1)."""
        label = self._writable("deviceIterations")
        self._device_iterations = _int_arg(
            label,
            device_iterations,
            1,
            "Pass the number of batches the device runs per call, 1 or more.",
        )
        return self

    def replicationFactor(self, replication_factor: int) -> Options:  # noqa: N802
        """Number of replicas of the model (R, default 1)."""
        label = self._writable("replicationFactor")
        self._replication_factor = _int_arg(
            label, replication_factor, 1, "Pass the number of model replicas, 1 or more."
        )
        return self

    def inputReplicaGrouping(  # noqa: N802
        self,
        input_group_size: int,
        input_group_type: CommGroupType = CommGroupType.Consecutive,
    ) -> Options:
        """Send the same input to each group of ``input_group_size`` replicas."""
        label = self._writable("inputReplicaGrouping")
        size = _int_arg(
            label,
            input_group_size,
            1,
            "Pass the number of replicas per input group, a factor of replicationFactor.",
        )
        group_type = CommGroupType.parse(input_group_type, label)
        if group_type is CommGroupType.All:
            raise ValueError(
                f"{label}({size}, CommGroupType.All): All cannot group inputs, since every "
                f"replica would get the same data. Use CommGroupType.Consecutive or Orthogonal."
            )
        self._input_group_size, self._input_group_type = size, group_type
        return self

    def outputMode(  # noqa: N802
        self, output_mode: OutputMode, output_return_period: int | None = None
    ) -> Options:
        """Which results to return: All, Final, Sum, EveryN (with a period) or Default."""
        label = self._writable("outputMode")
        mode = OutputMode.parse(output_mode, label)
        if mode is OutputMode.EveryN:
            if output_return_period is None:
                raise ValueError(
                    f"{label}(OutputMode.EveryN): EveryN needs a period. Pass it as the second "
                    f"argument, e.g. outputMode(OutputMode.EveryN, 10)."
                )
            period = _int_arg(
                label, output_return_period, 1, "Pass a return period of 1 or more for EveryN."
            )
        else:  # PopTorch accepts a period with every mode; only EveryN reads it
            if output_return_period is not None:
                _int_arg(label, output_return_period, 0, "Pass a return period of 0 or more.")
                _logging.warn_once(f"outputMode.period.{mode.name}", (
                    f"{label}({format_value(mode)}, {output_return_period!r}): the return period only applies "
                    f"to OutputMode.EveryN, so it has no effect with {format_value(mode)}."))
            period = None
        self._output_mode, self._output_return_period = mode, period
        return self

    def defaultOutputMode(self) -> bool:  # noqa: N802
        """True while the output mode is still Default."""
        return self._output_mode is OutputMode.Default

    def anchorTensor(  # noqa: N802
        self,
        short_name: str,
        long_name: str,
        output_mode: OutputMode | None = None,
        output_return_period: int = 1,
    ) -> Options:
        """Keep tensor ``long_name`` so it can be read back as ``short_name`` after a run."""
        label = self._writable("anchorTensor")
        short = _str_arg(label, short_name, "Pass the name to retrieve the tensor by.")
        long = _str_arg(label, long_name, "Pass the name of the tensor in the compiled graph.")
        mode = None if output_mode is None else OutputMode.parse(output_mode, label)
        period = _int_arg(label, output_return_period, 1, "Pass a return period of 1 or more.")
        if period != 1 and mode is not OutputMode.EveryN:  # accepted as by outputMode
            _logging.warn_once(f"anchorTensor.period.{mode}", (
                f"{label}({short!r}, {long!r}, {format_value(mode)}, {period}): the return period only applies "
                f"to OutputMode.EveryN, so it has no effect with {format_value(mode)}."))
        if any(a.short_name == short for a in self._anchored_tensors):
            raise ValueError(
                f"{label}({short!r}, ...): a tensor is already anchored as {short!r}. "
                f"Choose another short name."
            )
        self._anchored_tensors.append(AnchoredTensor(short, long, mode, period))
        return self

    # -- randomness, placement, devices -------------------------------------------------

    def randomSeed(self, random_seed: int) -> Options:  # noqa: N802
        """Seed the device's random number generator."""
        label = self._writable("randomSeed")
        self._random_seed = _int_arg(
            label,
            random_seed,
            0,
            "Pass a seed that fits in 64 unsigned bits.",
            maximum=_MAX_RANDOM_SEED,
        )
        return self

    def setExecutionStrategy(self, strategy: ExecutionStrategy) -> Options:  # noqa: N802
        """Partition the graph with a Sharded, Pipelined or (Serial/Parallel)Phased strategy."""
        label = self._writable("setExecutionStrategy")
        if not isinstance(strategy, ExecutionStrategy):
            raise TypeError(
                f"{label}({strategy!r}): expected a poptorch.ShardedExecution, "
                f"PipelinedExecution, SerialPhasedExecution or ParallelPhasedExecution, got "
                f"{type(strategy).__name__}."
            )
        strategy.validate()
        self._execution_strategy = strategy
        return self

    def autoRoundNumIPUs(self, auto_round_num_ipus: bool = True) -> Options:  # noqa: N802
        """Round the number of IPUs up to a power of 2 instead of failing."""
        label = self._writable("autoRoundNumIPUs")
        self._auto_round_num_ipus = _bool_arg(label, auto_round_num_ipus)
        return self

    def setAvailableMemoryProportion(  # noqa: N802
        self, available_memory_proportion: Mapping[str, float]
    ) -> Options:
        """Temporary-memory proportion per IPU, e.g. ``{"IPU0": 0.5}``; values in (0, 1]."""
        label = self._writable("setAvailableMemoryProportion")
        if not isinstance(available_memory_proportion, Mapping):
            raise TypeError(
                f"{label}({available_memory_proportion!r}): expected a dict from IPU name to "
                f"proportion, such as {{'IPU0': 0.5}}; got {type(available_memory_proportion).__name__}."
            )
        parsed: dict[int, float] = {}
        for key, value in available_memory_proportion.items():
            match = _IPU_KEY.match(key) if isinstance(key, str) else None
            if match is None:
                raise ValueError(
                    f"{label}: key {key!r} does not name an IPU. Use 'IPU0', 'IPU1', ..."
                )
            if isinstance(value, bool) or not isinstance(value, Real):
                raise TypeError(
                    f"{label}: the proportion for {key!r} must be a number, got {value!r}."
                )
            if not 0.0 < float(value) <= 1.0:
                raise ValueError(
                    f"{label}: the proportion for {key!r} is {value!r}, but it must be in (0, 1]: "
                    f"it is a share of each tile's memory. Pass e.g. 0.6."
                )
            parsed[int(match.group(1))] = float(value)
        self._available_memory_proportion = parsed  # on each IPU's matmuls and convolutions (CompileOptions)
        return self

    def setIpuModelDevices(self, devices: str | torch.device | Mapping[str, str | torch.device]) -> Options:  # noqa: N802
        """Place the emulated IPUs on torch devices: one device for every IPU
        (``"cuda:0"``), or one per IPU (``{"IPU0": "cuda:0", "IPU1": "cuda:1"}``; IPUs not
        named stay on the CPU). Each IPU's weights, activations and kernels then live on
        its device, inter-IPU copies move tensors between devices, and inputs and outputs
        cross from and to the host CPU. An ipu-mlir extension (the IPU Model only)."""
        label = self._writable("setIpuModelDevices")
        if isinstance(devices, Mapping):
            parsed: dict[int | None, torch.device] = {}
            for key, value in devices.items():
                match = _IPU_KEY.match(key) if isinstance(key, str) else None
                if match is None:
                    raise ValueError(f"{label}: key {key!r} does not name an IPU. Use 'IPU0', 'IPU1', ...")
                parsed[int(match.group(1))] = _torch_device(label, key, value)
        else:
            parsed = {None: _torch_device(label, "every IPU", devices)}
        self._ipu_model_devices = parsed
        return self

    def setIpuTarget(self, target: str) -> Options:  # noqa: N802
        """The IPU the cost model estimates for (cycleCount, latencies, the profiling report):
        "ipu-model-mk2" (GC200, the default, or ``IPU_MLIR_TARGET``) or "ipu-model-bow". An
        ipu-mlir extension; numerics do not change."""
        from ipu_mlir.support.target import TARGETS

        label = self._writable("setIpuTarget")
        if target not in TARGETS:
            raise ValueError(f"{label}: unknown target {target!r}; choose one of {', '.join(TARGETS)}")
        self._ipu_target = target
        return self

    def autoBalancePipeline(self, num_ipus: int) -> Options:  # noqa: N802
        """Let the compiler split a model without block annotations into a pipeline over
        ``num_ipus`` IPUs at module boundaries (the children of its largest nn.ModuleList /
        nn.Sequential), minimising the slowest stage's estimated cycles with every IPU within
        memory. An ipu-mlir extension (PopTorch users place blocks by hand)."""
        label = self._writable("autoBalancePipeline")
        if isinstance(num_ipus, bool) or not isinstance(num_ipus, int) or num_ipus < 2:
            raise ValueError(f"{label}: num_ipus must be an int >= 2, got {num_ipus!r}")
        self._auto_balance_ipus = num_ipus
        return self

    @property
    def auto_balance_ipus(self) -> int | None:
        """The IPUs of ``autoBalancePipeline`` (None: off)."""
        return self._auto_balance_ipus

    @property
    def ipu_target(self) -> str | None:
        """The target set with ``setIpuTarget`` (None: the default)."""
        return self._ipu_target

    def ipu_model_device(self, ipu: int) -> torch.device:
        """The torch device emulating IPU ``ipu`` (``setIpuModelDevices``; the CPU by default)."""
        import torch

        devices = self._ipu_model_devices
        return devices.get(ipu, devices.get(None, torch.device("cpu")))

    @property
    def ipu_model_devices(self) -> dict[int | None, torch.device]:
        """The devices set with ``setIpuModelDevices`` (key None: every IPU)."""
        return dict(self._ipu_model_devices)

    def useIpuModel(self, use_model: bool) -> Options:  # noqa: N802
        """Run on the IPU Model (True) or hardware (False); overrides POPTORCH_IPU_MODEL."""
        self._use_ipu_model = _bool_arg(self._writable("useIpuModel"), use_model)
        return self

    def connectionType(self, connection_type: ConnectionType) -> Options:  # noqa: N802
        """When to attach to the IPU: Always, OnDemand or Never."""
        label = self._writable("connectionType")
        self._connection_type = ConnectionType.parse(connection_type, label)
        if self._connection_type is ConnectionType.OnDemand:  # Never is honoured: running is an error
            _ignored("connectionType", self._connection_type)
        return self

    def syncPattern(self, sync_pattern: SyncPattern) -> Options:  # noqa: N802
        """How IPUs synchronise: Full, SinglePipeline or ReplicaAndLadder."""
        label = self._writable("syncPattern")
        self._sync_pattern = SyncPattern.parse(sync_pattern, label)
        if self._sync_pattern is not SyncPattern.Full:
            _ignored("syncPattern", self._sync_pattern)
        return self

    def useIpuId(self, ipu_id: int) -> Options:  # noqa: N802
        """Use the physical device with this gc-info id."""
        label = self._writable("useIpuId")
        self._ipu_id = _int_arg(label, ipu_id, 0, "Pass a device id as listed by gc-info -l.")
        _ignored("useIpuId", self._ipu_id)
        return self

    def useOfflineIpuTarget(self, ipu_version: int = 2) -> Options:  # noqa: N802
        """Compile for an IPU version without attaching: 1 (Mk1), 2 (Mk2) or 21 (Mk2 with FP8)."""
        label = self._writable("useOfflineIpuTarget")
        if isinstance(ipu_version, bool) or not isinstance(ipu_version, Integral):
            raise TypeError(f"{label}({ipu_version!r}): expected an int IPU version (1, 2 or 21).")
        if ipu_version not in _OFFLINE_IPU_VERSIONS:
            raise ValueError(
                f"{label}({ipu_version!r}): there is no such IPU version. Pass 1 (Mk1), 2 (Mk2) "
                f"or 21 (Mk2 with FP8)."
            )
        self._offline_ipu_version = int(ipu_version)
        _ignored("useOfflineIpuTarget", self._offline_ipu_version)
        return self

    def broadcastBuffers(self, broadcast_buffers: bool = True) -> Options:  # noqa: N802
        """Keep buffers (e.g. running statistics) in sync across replicas: after each step every
        replica takes replica 0's buffers (True, the default); False lets each replica keep
        its own (the host reads replica 0's)."""
        self._broadcast_buffers = _bool_arg(self._writable("broadcastBuffers"), broadcast_buffers)
        return self

    # -- compilation, caching, diagnostics ----------------------------------------------

    def enableExecutableCaching(self, path: str | os.PathLike[str] | None) -> Options:  # noqa: N802
        """Cache executables in directory ``path``; None disables (overrides POPTORCH_CACHE_DIR)."""
        label = self._writable("enableExecutableCaching")
        value = None if path is None else _str_arg(label, path, "Pass a directory, or None.")
        self._cache_dir_set, self._cache_dir = True, value
        return self

    def enableProfiling(self, profile_dir: str | os.PathLike[str] | None = None) -> Options:  # noqa: N802
        """Write a profile report to ``profile_dir`` (default: the current directory)."""
        label = self._writable("enableProfiling")
        self._profile_dir = (
            "." if profile_dir is None else _str_arg(label, profile_dir, "Pass a directory.")
        )
        return self

    def enableStableNorm(self, enabled: bool) -> Options:  # noqa: N802
        """Use the slower, more accurate form of norm operators."""
        self._stable_norm = _bool_arg(self._writable("enableStableNorm"), enabled)
        if enabled:
            _ignored("enableStableNorm", enabled)
        return self

    def enableSyntheticData(self, enabled: bool) -> Options:  # noqa: N802
        """Generate random inputs on the device instead of streaming them from the host."""
        self._synthetic_data = _bool_arg(self._writable("enableSyntheticData"), enabled)
        if enabled:
            _ignored("enableSyntheticData", enabled)
        return self

    def logCycleCount(self, log_cycle_count: bool) -> Options:  # noqa: N802
        """Log the cycles used by the main program (from the emulator's cost model)."""
        self._log_cycle_count = _bool_arg(self._writable("logCycleCount"), log_cycle_count)
        return self

    def logDir(self, log_dir: str) -> Options:  # noqa: N802
        """Directory for PopTorch's log files."""
        label = self._writable("logDir")
        self._log_dir = _str_arg(label, log_dir, "Pass a directory.")
        if self._log_dir != ".":
            _ignored("logDir", self._log_dir)
        return self

    def maxRepeatLogs(self, max_lines: int | None) -> Options:  # noqa: N802
        """Suppress a repeated log line after ``max_lines`` repeats (None: never)."""
        label = self._writable("maxRepeatLogs")
        self._max_repeat_logs = (
            None
            if max_lines is None
            else _int_arg(label, max_lines, 0, "Pass a line count of 0 or more, or None.")
        )
        if self._max_repeat_logs != 4:
            _ignored("maxRepeatLogs", self._max_repeat_logs)
        return self

    def modelName(self, name: str) -> Options:  # noqa: N802
        """Name of the model (default: "inference" or "training"), used for reports."""
        self._model_name = _str_arg(self._writable("modelName"), name, "Pass a model name.")
        _ignored("modelName", self._model_name)
        return self

    def relaxOptimizerAttributesChecks(self, relax: bool = True) -> Options:  # noqa: N802
        """Report unexpected optimizer attributes at debug level instead of warning."""
        label = self._writable("relaxOptimizerAttributesChecks")
        self._relax_optimizer_attributes_checks = _bool_arg(label, relax)
        if relax:
            _ignored("relaxOptimizerAttributesChecks", relax)
        return self

    def showCompilationProgressBar(self, show: bool = True) -> Options:  # noqa: N802
        """Show or hide the progress bar while compiling."""
        label = self._writable("showCompilationProgressBar")
        self._show_compilation_progress_bar = _bool_arg(label, show)
        if show:
            _ignored("showCompilationProgressBar", show)
        return self

    def _excludes(self, label: str, excludes: Any) -> list[str]:
        bad = [e for e in excludes if not isinstance(e, str)]
        if bad:
            raise TypeError(f"{label}: exclusions are path fragments (strings); got {bad[0]!r}.")
        return list(excludes)

    def sourceLocationExcludes(self, excludes: list[str]) -> Options:  # noqa: N802
        """Replace the path fragments whose frames are skipped in IR source locations."""
        label = self._writable("sourceLocationExcludes")
        if isinstance(excludes, str) or not isinstance(excludes, (list, tuple)):
            raise TypeError(
                f"{label}({excludes!r}): expected a list of strings, such as ['torch/nn/']. "
                f"To add one fragment, use appendToLocationExcludes()."
            )
        self._source_location_excludes = self._excludes(label, excludes)
        _ignored("sourceLocationExcludes", self._source_location_excludes)
        return self

    def appendToLocationExcludes(self, *excludes: str) -> Options:  # noqa: N802
        """Add path fragments whose frames are skipped in IR source locations."""
        label = self._writable("appendToLocationExcludes")
        self._source_location_excludes += self._excludes(label, excludes)
        _ignored("appendToLocationExcludes", list(excludes))
        return self

    def disableModuleNamescope(self) -> Options:  # noqa: N802
        """Do not prefix op names with the name of their module."""
        self._writable("disableModuleNamescope")
        self._module_namescope = False
        _ignored("disableModuleNamescope", "")
        return self

    # -- read-only view for the wrappers, compiler and runtime ---------------------------

    @property
    def device_iterations(self) -> int:
        """D: batches per call."""
        return self._device_iterations

    @property
    def replication_factor(self) -> int:
        """R: replicas in this process."""
        return self._replication_factor

    @property
    def input_group_size(self) -> int:
        """I: replicas per input group (1 = every replica gets its own data)."""
        return self._input_group_size

    @property
    def input_group_type(self) -> CommGroupType:
        """How replicas are arranged into input groups."""
        return self._input_group_type

    @property
    def output_mode(self) -> OutputMode:
        """The output mode set (Default until ``outputMode`` is called)."""
        return self._output_mode

    @property
    def output_return_period(self) -> int | None:
        """N for OutputMode.EveryN, else None."""
        return self._output_return_period

    def resolved_output_mode(self, training: bool) -> OutputMode:
        """The output mode in effect: Default means Final for training, All for inference."""
        if self._output_mode is OutputMode.Default:
            return OutputMode.Final if training else OutputMode.All
        return self._output_mode

    @property
    def random_seed(self) -> int | None:
        """The seed set, or None."""
        return self._random_seed

    @property
    def execution_strategy(self) -> ExecutionStrategy | None:
        """The strategy set, or None (PipelinedExecution when the model has blocks)."""
        return self._execution_strategy

    @property
    def auto_round_num_ipus(self) -> bool:
        """Whether the IPU count is rounded up to a power of 2."""
        return self._auto_round_num_ipus

    @property
    def use_ipu_model(self) -> bool:
        """``useIpuModel()`` if called, else POPTORCH_IPU_MODEL (read now), else False."""
        if self._use_ipu_model is not None:
            return self._use_ipu_model
        return _env_flag(IPU_MODEL_ENV_VAR)

    @property
    def available_memory_proportion(self) -> dict[int, float]:
        """Temporary-memory proportion per IPU index (a copy; empty = compiler default)."""
        return dict(self._available_memory_proportion)

    @property
    def connection_type(self) -> ConnectionType:
        """The connection type set (no effect in the emulator)."""
        return self._connection_type

    @property
    def sync_pattern(self) -> SyncPattern:
        """The sync pattern set (no effect in the emulator)."""
        return self._sync_pattern

    @property
    def ipu_id(self) -> int | None:
        """The device id set with ``useIpuId`` (no effect in the emulator)."""
        return self._ipu_id

    @property
    def offline_ipu_version(self) -> int | None:
        """The version set with ``useOfflineIpuTarget`` (no effect in the emulator)."""
        return self._offline_ipu_version

    @property
    def broadcast_buffers(self) -> bool:
        """Whether buffers are broadcast across replicas."""
        return self._broadcast_buffers

    @property
    def executable_cache_dir(self) -> str | None:
        """``enableExecutableCaching()`` if called, else POPTORCH_CACHE_DIR, else None."""
        if self._cache_dir_set:
            return self._cache_dir
        return os.environ.get(CACHE_DIR_ENV_VAR) or None

    @property
    def profile_dir(self) -> str | None:
        """Where the profile report goes, or None when profiling is off."""
        return self._profile_dir

    @property
    def stable_norm(self) -> bool:
        """The value set (no effect in the emulator)."""
        return self._stable_norm

    @property
    def synthetic_data(self) -> bool:
        """The value set (no effect in the emulator)."""
        return self._synthetic_data

    @property
    def log_cycle_count(self) -> bool:
        """Whether to log the cycle count of each run."""
        return self._log_cycle_count

    @property
    def log_dir(self) -> str:
        """The log directory set (no effect in the emulator)."""
        return self._log_dir

    @property
    def max_repeat_logs(self) -> int | None:
        """The value set (no effect in the emulator)."""
        return self._max_repeat_logs

    @property
    def model_name(self) -> str | None:
        """The name set, or None ("inference"/"training" is used)."""
        return self._model_name

    @property
    def relax_optimizer_attributes_checks(self) -> bool:
        """Whether unexpected optimizer attributes are only logged at debug level."""
        return self._relax_optimizer_attributes_checks

    @property
    def show_compilation_progress_bar(self) -> bool:
        """Whether compilation shows a progress bar."""
        return self._show_compilation_progress_bar

    @property
    def source_location_excludes(self) -> list[str]:
        """Path fragments skipped in source locations (a copy)."""
        return list(self._source_location_excludes)

    @property
    def module_namescope(self) -> bool:
        """Whether op names are prefixed with their module's name."""
        return self._module_namescope

    @property
    def anchored_tensors(self) -> tuple[AnchoredTensor, ...]:
        """Tensors registered with ``anchorTensor``, in order."""
        return tuple(self._anchored_tensors)

    @property
    def frozen(self) -> bool:
        """True once a wrapped model uses these options (see ``clone``)."""
        return self._lock.frozen

    # -- whole-object operations --------------------------------------------------------

    def validate(self, training: bool) -> None:
        """Check the rules that involve several options; the wrappers call it before compiling."""
        if self._replication_factor % self._input_group_size:
            raise ValueError(
                f"Options.inputReplicaGrouping({self._input_group_size}, ...): the input group "
                f"size must divide replicationFactor ({self._replication_factor}). Pick a factor "
                f"of {self._replication_factor}, or change the replication factor."
            )
        accumulation = self._training.gradient_accumulation
        if not training and accumulation != 1:
            raise ValueError(
                f"Options.Training.gradientAccumulation({accumulation}): gradient accumulation "
                f"only applies to training, so an inference model needs 1. Use a separate "
                f"Options object (or clone()) for inference."
            )
        period = self._output_return_period
        if self._output_mode is OutputMode.EveryN and period is not None:
            steps = self._device_iterations * accumulation
            if steps % period:
                raise ValueError(
                    f"Options.outputMode(OutputMode.EveryN, {period}): each call runs "
                    f"deviceIterations x gradientAccumulation = {self._device_iterations} x "
                    f"{accumulation} = {steps} steps, which is not a multiple of {period}. "
                    f"Pick a period that divides {steps}."
                )

    def clone(self) -> Options:
        """A deep, editable copy (even of frozen options)."""
        duplicate = copy.deepcopy(self)
        duplicate._lock.frozen = False
        return duplicate

    def _freeze(self) -> None:
        """Called by the wrappers: later changes raise and point at ``clone``."""
        self._lock.frozen = True

    def toDict(self) -> dict[str, Any]:  # noqa: N802
        """Every option value as plain data (enums as "Enum.Member"), under stable keys."""
        strategy = self._execution_strategy
        values: dict[str, Any] = {
            "device_iterations": self._device_iterations,
            "replication_factor": self._replication_factor,
            "input_group_size": self._input_group_size,
            "input_group_type": self._input_group_type,
            "output_mode": self._output_mode,
            "output_return_period": self._output_return_period,
            "random_seed": self._random_seed,
            "execution_strategy": None if strategy is None else strategy.to_dict(),
            "auto_round_num_ipus": self._auto_round_num_ipus,
            "use_ipu_model": self.use_ipu_model,
            "ipu_model_devices": {("all" if ipu is None else f"IPU{ipu}"): str(device)
                                  for ipu, device in self._ipu_model_devices.items()},
            "available_memory_proportion": dict(self._available_memory_proportion),
            "connection_type": self._connection_type,
            "sync_pattern": self._sync_pattern,
            "ipu_id": self._ipu_id,
            "offline_ipu_version": self._offline_ipu_version,
            "broadcast_buffers": self._broadcast_buffers,
            "executable_cache_dir": self.executable_cache_dir,
            "profile_dir": self._profile_dir,
            "stable_norm": self._stable_norm,
            "synthetic_data": self._synthetic_data,
            "log_cycle_count": self._log_cycle_count,
            "ipu_target": self.ipu_target,
            "auto_balance_ipus": self._auto_balance_ipus,
            "log_dir": self._log_dir,
            "max_repeat_logs": self._max_repeat_logs,
            "model_name": self._model_name,
            "relax_optimizer_attributes_checks": self._relax_optimizer_attributes_checks,
            "show_compilation_progress_bar": self._show_compilation_progress_bar,
            "source_location_excludes": list(self._source_location_excludes),
            "module_namescope": self._module_namescope,
            "anchored_tensors": [
                {
                    "short_name": a.short_name,
                    "long_name": a.long_name,
                    "output_mode": a.output_mode,
                    "output_return_period": a.output_return_period,
                }
                for a in self._anchored_tensors
            ],
        }
        for group_name in _GROUPS:
            group = getattr(self, group_name)
            for key, value in group._to_dict().items():
                values[f"{group_name}.{key}"] = value
        return _plain(values)

    def __repr__(self) -> str:
        defaults = Options().toDict()
        changed = [f"{k}={v!r}" for k, v in self.toDict().items() if defaults.get(k) != v]
        return f"Options({', '.join(changed)})"

    # -- options files ------------------------------------------------------------------

    def loadFromFile(self, filepath: str | os.PathLike[str]) -> Options:  # noqa: N802
        """Apply one option call per line, written as in a script without the ``options.`` prefix.

        Lines look like ``deviceIterations(4)``, ``Training.gradientAccumulation(2)`` or
        ``setExecutionStrategy(PipelinedExecution(AutoStage.AutoIncrement))``; chains such as
        ``deviceIterations(2).randomSeed(1)`` work as in a script. Arguments may be literals, enum
        members, ``torch.float`` / ``torch.half``, ``TensorLocationSettings()`` and the execution
        strategies, ``Stage`` and ``Phase`` with their setters. Nothing is evaluated as Python code.
        Blank lines and ``#`` comments are skipped.
        """
        from ._options_file import load_options_file

        self._writable("loadFromFile")
        load_options_file(self, filepath, _GROUPS, _NOT_SETTERS)
        return self

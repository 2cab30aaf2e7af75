"""The option groups ``Training``, ``Precision``, ``Distributed``, ``Jit`` and ``_Popart``."""

from __future__ import annotations

import os
from typing import Any, ClassVar

from . import _logging
from ._option_base import _bool_arg, _ignored, _int_arg, _Lock, _OptionGroup, _str_arg
from .enums import HalfFloatCastingBehavior, MeanReductionStrategy, ReductionType


# --- the other option groups -------------------------------------------------------------


class _TrainingOptions(_OptionGroup):
    """Training-only options: gradient accumulation, reductions, loss scaling."""

    _prefix = "Options.Training"

    def __init__(self, lock: _Lock) -> None:
        super().__init__(lock)
        self._gradient_accumulation = 1
        self._reduction_type = ReductionType.Mean
        self._mean_reduction_strategy: MeanReductionStrategy | None = None
        self._auto_loss_scaling = False
        self._convolution_dithering = False

    def gradientAccumulation(self, gradient_accumulation: int) -> _TrainingOptions:  # noqa: N802
        """Accumulate gradients over this many micro-batches before each weight update."""
        label = self._writable("gradientAccumulation")
        self._gradient_accumulation = _int_arg(
            label,
            gradient_accumulation,
            1,
            "Pass the number of micro-batches per weight update, 1 or more.",
        )
        return self

    def accumulationAndReplicationReductionType(  # noqa: N802
        self, reduction_type: ReductionType
    ) -> _TrainingOptions:
        """Reduce accumulated and replicated gradients by Mean (default) or Sum."""
        label = self._writable("accumulationAndReplicationReductionType")
        value = ReductionType.parse(reduction_type, label)
        if value is ReductionType.NoReduction:
            raise ValueError(
                f"{label}(ReductionType.NoReduction): gradients from several micro-batches or "
                f"replicas must be combined into one update. Use ReductionType.Mean or "
                f"ReductionType.Sum."
            )
        self._reduction_type = value
        return self

    def setMeanAccumulationAndReplicationReductionStrategy(  # noqa: N802
        self, mean_reduction_strategy: MeanReductionStrategy
    ) -> _TrainingOptions:
        """Choose when a Mean reduction divides: Running, Post or (deprecated) PostAndLoss."""
        label = self._writable("setMeanAccumulationAndReplicationReductionStrategy")
        value = MeanReductionStrategy.parse(mean_reduction_strategy, label)
        if value is MeanReductionStrategy.PostAndLoss:
            _logging.warn_once(
                f"{label}.PostAndLoss",
                f"{label}(MeanReductionStrategy.PostAndLoss) is deprecated legacy behaviour; "
                f"prefer MeanReductionStrategy.Post or Running.",
            )
        self._mean_reduction_strategy = value
        return self

    def setAutomaticLossScaling(self, enabled: bool) -> _TrainingOptions:  # noqa: N802
        """Adjust the loss scale automatically from gradient statistics (float16 training)."""
        self._auto_loss_scaling = _bool_arg(self._writable("setAutomaticLossScaling"), enabled)
        return self

    def setConvolutionDithering(self, enabled: bool) -> _TrainingOptions:  # noqa: N802
        """Lay convolutions out from different tiles to balance tile use."""
        self._convolution_dithering = _bool_arg(self._writable("setConvolutionDithering"), enabled)
        if enabled:
            _ignored("Training.setConvolutionDithering", enabled)
        return self

    @property
    def gradient_accumulation(self) -> int:
        """G: micro-batches per weight update."""
        return self._gradient_accumulation

    @property
    def accumulation_and_replication_reduction_type(self) -> ReductionType:
        """Mean (default) or Sum."""
        return self._reduction_type

    @property
    def mean_accumulation_and_replication_reduction_strategy(self) -> MeanReductionStrategy | None:
        """The strategy set, or None: Running if the optimizer accumulates in float16, else Post."""
        return self._mean_reduction_strategy

    @property
    def auto_loss_scaling(self) -> bool:
        """Whether automatic loss scaling is on."""
        return self._auto_loss_scaling

    @property
    def convolution_dithering(self) -> bool:
        """Whether convolution dithering was requested (no effect in the emulator)."""
        return self._convolution_dithering

    def _to_dict(self) -> dict[str, Any]:
        return {
            "gradient_accumulation": self._gradient_accumulation,
            "accumulation_and_replication_reduction_type": self._reduction_type,
            "mean_accumulation_and_replication_reduction_strategy": self._mean_reduction_strategy,
            "auto_loss_scaling": self._auto_loss_scaling,
            "convolution_dithering": self._convolution_dithering,
        }


_PARTIALS_TYPES = {"float32": "float", "float16": "half"}
# Poplar's FloatingPointBehaviour inv / div0 / oflo, as the graph's poplar.floating_point_exceptions spells them.
_FP_TRAPS = ("invalid", "divide_by_zero", "overflow")


class _PrecisionOptions(_OptionGroup):
    """Numerical options: partials type, float16 behaviour, floating-point exceptions."""

    _prefix = "Options.Precision"

    def __init__(self, lock: _Lock) -> None:
        super().__init__(lock)
        self._fp_traps: tuple[str, ...] = ()  # poplar.floating_point_exceptions: what raises on the device
        self._stochastic_rounding = False
        self._half_float_casting = HalfFloatCastingBehavior.Default
        self._running_statistics_always_float = True
        self._partials_type: str | None = None

    def enableFloatingPointExceptions(self, enabled: bool) -> _PrecisionOptions:  # noqa: N802
        """Raise a RuntimeError when the device meets an invalid floating-point operation.

        True: a compute op that makes a NaN (an invalid operation) or an infinity (a division by
        zero, an overflow) from finite inputs raises ``FloatingPointException`` (a RuntimeError)
        naming the op; each op's results are checked only while this is on.
        """
        enabled = _bool_arg(self._writable("enableFloatingPointExceptions"), enabled)
        self._fp_traps = _FP_TRAPS if enabled else ()
        return self

    def setFloatingPointBehaviour(  # noqa: N802 - Poplar's FloatingPointBehaviour
        self, inv: bool = False, div0: bool = False, oflo: bool = False, esr: bool = False, nanoo: bool = False
    ) -> _PrecisionOptions:
        """Poplar's floating-point behaviour, flag by flag: raise on an invalid operation (``inv``),
        a division by zero (``div0``) or an overflow (``oflo``); ``esr``: stochastic rounding
        (as enableStochasticRounding); ``nanoo``: NaN instead of infinity on float16 overflow."""
        label = self._writable("setFloatingPointBehaviour")
        flags = {name: _bool_arg(f"{label}({name}=...)", value)
                 for name, value in (("inv", inv), ("div0", div0), ("oflo", oflo), ("esr", esr), ("nanoo", nanoo))}
        self._fp_traps = tuple(trap for flag, trap in zip(("inv", "div0", "oflo"), _FP_TRAPS, strict=True) if flags[flag])
        self._stochastic_rounding = flags["esr"]
        if flags["esr"]:
            _ignored("Precision.enableStochasticRounding", True)
        if flags["nanoo"]:
            _ignored("Precision.setFloatingPointBehaviour", "nanoo=True")
        return self

    def enableStochasticRounding(self, enabled: bool) -> _PrecisionOptions:  # noqa: N802
        """Round float16 results up or down at random, unbiased on average."""
        self._stochastic_rounding = _bool_arg(self._writable("enableStochasticRounding"), enabled)
        if enabled:
            _ignored("Precision.enableStochasticRounding", enabled)
        return self

    def halfFloatCasting(self, half_float_casting: HalfFloatCastingBehavior) -> _PrecisionOptions:  # noqa: N802
        """How ops mixing float16 and float32 inputs are cast: to float16 (Default,
        FloatDowncastToHalf: PopTorch's behaviour) or to float32 (HalfUpcastToFloat, as PyTorch)."""
        label = self._writable("halfFloatCasting")
        self._half_float_casting = HalfFloatCastingBehavior.parse(half_float_casting, label)  # _precision.py
        return self

    def runningStatisticsAlwaysFloat(self, value: bool) -> _PrecisionOptions:  # noqa: N802
        """Deprecated in PopTorch: keep norm running statistics in float32."""
        label = self._writable("runningStatisticsAlwaysFloat")
        self._running_statistics_always_float = _bool_arg(label, value)
        if not value:
            _ignored("Precision.runningStatisticsAlwaysFloat", value)
        return self

    def setPartialsType(self, dtype: Any) -> _PrecisionOptions:  # noqa: N802
        """Store matmul and convolution partials as torch.float or torch.half."""
        label = self._writable("setPartialsType")
        if type(dtype).__module__ != "torch" or type(dtype).__name__ != "dtype":
            raise TypeError(
                f"{label}({dtype!r}): expected a torch.dtype, got {type(dtype).__name__}. "
                f"Pass torch.float or torch.half."
            )
        name = str(dtype).removeprefix("torch.")
        if name not in _PARTIALS_TYPES:
            raise ValueError(
                f"{label}({dtype!r}): partials can only be stored as torch.float (float32) or "
                f"torch.half (float16). Pass one of those two dtypes."
            )
        self._partials_type = _PARTIALS_TYPES[name]  # recorded on matmuls and convolutions (CompileOptions)
        return self

    @property
    def floating_point_exceptions(self) -> bool:
        """Whether some floating-point exception raises on the device."""
        return bool(self._fp_traps)

    @property
    def floating_point_traps(self) -> tuple[str, ...]:
        """What raises on the device: "invalid", "divide_by_zero", "overflow" (for the compiler)."""
        return self._fp_traps

    @property
    def stochastic_rounding(self) -> bool:
        """Whether stochastic rounding was requested (no effect in the emulator)."""
        return self._stochastic_rounding

    @property
    def half_float_casting(self) -> HalfFloatCastingBehavior:
        """How ops mixing float16 and float32 inputs are cast."""
        return self._half_float_casting

    @property
    def running_statistics_always_float(self) -> bool:
        """The value set (no effect in the emulator)."""
        return self._running_statistics_always_float

    @property
    def partials_type(self) -> Any:
        """torch.float32 or torch.float16, or None when left to the compiler (float32)."""
        if self._partials_type is None:
            return None
        import torch  # only when asked: keeps ``import poptorch.options`` light

        return torch.float32 if self._partials_type == "float" else torch.float16

    def _to_dict(self) -> dict[str, Any]:
        return {
            "floating_point_exceptions": bool(self._fp_traps),
            "floating_point_traps": list(self._fp_traps),
            "stochastic_rounding": self._stochastic_rounding,
            "half_float_casting": self._half_float_casting,
            "running_statistics_always_float": self._running_statistics_always_float,
            "partials_type": self._partials_type,
        }


class _GraphProcessingOptions(_OptionGroup):
    """Processing of the captured graph: how ops mixing float16 and float32 inputs are cast
    (the setting ``Precision.halfFloatCasting`` also sets)."""

    _prefix = "Options.GraphProcessing"

    def __init__(self, lock: _Lock, precision: _PrecisionOptions) -> None:
        super().__init__(lock)
        self._precision = precision

    def halfFloatCasting(self, half_float_casting: HalfFloatCastingBehavior) -> _GraphProcessingOptions:  # noqa: N802
        """Cast ops mixing float16 and float32 inputs to float16 (Default, FloatDowncastToHalf)
        or to float32 (HalfUpcastToFloat, as PyTorch)."""
        label = self._writable("halfFloatCasting")
        self._precision._half_float_casting = HalfFloatCastingBehavior.parse(half_float_casting, label)
        return self

    @property
    def half_float_casting(self) -> HalfFloatCastingBehavior:
        """How ops mixing float16 and float32 inputs are cast."""
        return self._precision._half_float_casting

    def _to_dict(self) -> dict[str, Any]:
        return {}  # the setting is Precision.half_float_casting


class _DistributedOptions(_OptionGroup):
    """Which process this is among the processes of a distributed run."""

    _prefix = "Options.Distributed"
    DEFAULT_ENV_VARS: ClassVar[tuple[str, str]] = ("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK")
    TORCHRUN_ENV_VARS: ClassVar[tuple[str, str]] = ("WORLD_SIZE", "RANK")
    TIMEOUT_ENV_VAR = "IPU_MLIR_DISTRIBUTED_TIMEOUT"
    DEFAULT_TIMEOUT = 300.0  # seconds; runtime/distributed.py's DEFAULT_TIMEOUT

    def __init__(self, lock: _Lock) -> None:
        super().__init__(lock)
        self._process_id = 0
        self._num_processes = 1
        self._timeout: float | None = None  # None: IPU_MLIR_DISTRIBUTED_TIMEOUT, else the default
        if not self._read_env(*self.DEFAULT_ENV_VARS, label=f"{self._prefix} (default)"):
            # torchrun's variables, when OpenMPI's are not set.
            self._read_env(*self.TORCHRUN_ENV_VARS, label=f"{self._prefix} (torchrun)")

    def _read_env(self, var_num_processes: str, var_process_id: str, label: str) -> bool:
        """Read the pair of variables; False when neither is set."""
        raw_num = os.environ.get(var_num_processes)
        raw_id = os.environ.get(var_process_id)
        if raw_num is None and raw_id is None:
            return False
        if raw_num is None or raw_id is None:
            missing = var_num_processes if raw_num is None else var_process_id
            raise ValueError(
                f"{label}: {missing} is not set while the other variable of the pair "
                f"({var_num_processes}, {var_process_id}) is. Set both, or call "
                f"Options.Distributed.disable()."
            )
        values = []
        for var, raw in ((var_num_processes, raw_num), (var_process_id, raw_id)):
            try:
                values.append(int(raw))
            except ValueError:
                raise ValueError(
                    f"{label}: environment variable {var}={raw!r} is not an integer."
                ) from None
        self._store(values[1], values[0], label)
        return True

    def _store(self, process_id: Any, num_processes: Any, label: str) -> None:
        num = _int_arg(label, num_processes, 1, "The number of processes must be 1 or more.")
        pid = _int_arg(label, process_id, 0, "Process ids start at 0.")
        if pid >= num:
            raise ValueError(
                f"{label}: process id {pid} does not exist among {num} process(es); ids run "
                f"from 0 to {num - 1}."
            )
        self._process_id, self._num_processes = pid, num

    def configureProcessId(self, process_id: int, num_processes: int) -> _DistributedOptions:  # noqa: N802
        """Set this process's id and the total number of processes."""
        self._store(process_id, num_processes, self._writable("configureProcessId"))
        return self

    def setEnvVarNames(self, var_num_processes: str, var_process_id: str) -> _DistributedOptions:  # noqa: N802
        """Read the process count and id from these environment variables (default: OpenMPI's)."""
        label = self._writable("setEnvVarNames")
        hint = "Pass the name of an environment variable."
        self._read_env(
            _str_arg(label, var_num_processes, hint), _str_arg(label, var_process_id, hint), label
        )
        return self

    def disable(self) -> _DistributedOptions:
        """Run as a single process, whatever the environment says."""
        self._writable("disable")
        self._process_id, self._num_processes = 0, 1
        return self

    def setTimeout(self, seconds: float) -> _DistributedOptions:  # noqa: N802 - ipu-mlir's addition
        """How long a process waits for its peers (at the start, the weight broadcast and each
        collective) before failing with an error naming those that did not arrive. Default:
        the IPU_MLIR_DISTRIBUTED_TIMEOUT environment variable, else 300 s."""
        label = self._writable("setTimeout")
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not seconds > 0:
            raise ValueError(f"{label}: the timeout must be a positive number of seconds, got {seconds!r}.")
        self._timeout = float(seconds)
        return self

    @property
    def timeout(self) -> float:
        """Seconds a process waits for its peers (setTimeout, IPU_MLIR_DISTRIBUTED_TIMEOUT, 300)."""
        if self._timeout is not None:
            return self._timeout
        raw = os.environ.get(self.TIMEOUT_ENV_VAR)
        if raw is None:
            return self.DEFAULT_TIMEOUT
        try:
            value = float(raw)
        except ValueError:
            value = -1.0
        if not value > 0:
            raise ValueError(f"{self._prefix}: environment variable {self.TIMEOUT_ENV_VAR}={raw!r} is not a positive "
                             "number of seconds.")
        return value

    @property
    def processId(self) -> int:  # noqa: N802 - PopTorch's name
        """Id of this process."""
        return self._process_id

    @property
    def numProcesses(self) -> int:  # noqa: N802 - PopTorch's name
        """Number of processes the run is distributed over."""
        return self._num_processes

    @property
    def process_id(self) -> int:
        """Id of this process."""
        return self._process_id

    @property
    def num_processes(self) -> int:
        """Number of processes the run is distributed over."""
        return self._num_processes

    @property
    def is_distributed(self) -> bool:
        """True when more than one process takes part."""
        return self._num_processes > 1

    def _to_dict(self) -> dict[str, Any]:
        return {"process_id": self._process_id, "num_processes": self._num_processes, "timeout": self._timeout}


class _JitOptions(_OptionGroup):
    """Options of PyTorch's JIT (deprecated in PopTorch)."""

    _prefix = "Options.Jit"

    def __init__(self, lock: _Lock) -> None:
        super().__init__(lock)
        self._trace_model = False

    def traceModel(self, trace_model: bool) -> _JitOptions:  # noqa: N802
        """Deprecated in PopTorch: capture the model with torch.jit.trace."""
        self._trace_model = _bool_arg(self._writable("traceModel"), trace_model)
        if trace_model:
            _ignored("Jit.traceModel", trace_model)
        return self

    @property
    def trace_model(self) -> bool:
        """The value set (no effect in the emulator)."""
        return self._trace_model

    def _to_dict(self) -> dict[str, Any]:
        return {"trace_model": self._trace_model}


# PopART's RecomputationType, the values of ``_Popart.set("autoRecomputation", n)``.
_RECOMPUTATION_TYPES = {0: "None", 1: "Standard", 2: "NormOnly", 3: "Pipeline", 4: "RecomputeAll"}


class _PopartOptions(_OptionGroup):
    """PopART session options, set by name: ``opts._Popart.set("autoRecomputation", 3)``.

    ``autoRecomputation`` takes PopART's RecomputationType: 0 (None, the default) or 3
    (Pipeline: pipelined training recomputes each forward stage's activations in its
    backward stage, stashing only the stage inputs and the values marked with
    ``poptorch.recomputationCheckpoint``). Other PopART options are accepted and, having
    no counterpart in the emulator, logged once.
    """

    _prefix = "Options._Popart"

    def __init__(self, lock: _Lock) -> None:
        super().__init__(lock)
        self._values: dict[str, Any] = {}

    def set(self, key: str, value: Any) -> _PopartOptions:
        """Set the PopART session option ``key``."""
        label = self._writable("set")
        if not isinstance(key, str) or not key:
            raise TypeError(f"{label}: the option name must be a non-empty string, got {key!r}")
        if key == "autoRecomputation":
            if isinstance(value, bool) or not isinstance(value, int) or value not in _RECOMPUTATION_TYPES:
                raise ValueError(f"{label}('autoRecomputation', {value!r}): expected a RecomputationType value, "
                                 "0 (None) or 3 (Pipeline)")
            if value not in (0, 3):
                raise ValueError(
                    f"{label}('autoRecomputation', {value}): RecomputationType.{_RECOMPUTATION_TYPES[value]} is not "
                    "supported by the IPU Model; use 3 (RecomputationType.Pipeline), which recomputes the activations "
                    "of pipelined training stages from their inputs and poptorch.recomputationCheckpoint values")
        else:
            _logging.warn_once(f"{label}:{key}", f"{label}({key!r}, {value!r}) was accepted but has no effect in the IPU "
                                                 "Model emulator (it has no PopART session); the model runs as if the "
                                                 "option had its default value.")
        self._values[key] = value
        return self

    @property
    def recompute_pipeline(self) -> bool:
        """Whether pipelined training recomputes activations (autoRecomputation 3)."""
        return self._values.get("autoRecomputation", 0) == 3

    def _to_dict(self) -> dict[str, Any]:
        return dict(sorted(self._values.items()))



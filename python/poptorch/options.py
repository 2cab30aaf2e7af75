"""``poptorch.Options`` and its option groups, as in the PopTorch API reference. Setters validate,
store and return ``self``; the wrappers, compiler and runtime read the snake_case properties.
Nothing here acts on a value."""

from __future__ import annotations

import copy
import difflib
import enum
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, ClassVar

from . import _logging, enums
from .enums import (
    CommGroupType,
    ConnectionType,
    HalfFloatCastingBehavior,
    MeanReductionStrategy,
    OutputMode,
    ReductionType,
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

IPU_MODEL_ENV_VAR = "POPTORCH_IPU_MODEL"
CACHE_DIR_ENV_VAR = "POPTORCH_CACHE_DIR"

# Options that the IPU Model emulator accepts and validates but cannot honour, with the
# reason. Setting one to a non-default value logs a warning once per process (see
# _logging.warn_no_effect). Names are written as in an options file: the path below
# ``Options``.
_EMULATOR_IGNORED_REASONS: dict[str, str] = {
    # The emulator runs in-process: there is no physical IPU to attach to, address by
    # gc-info id, synchronise with the host, or compile offline for.
    "connectionType": "there is no physical IPU to attach to; OnDemand attaches on the first run, as Always",
    "syncPattern": "emulated IPUs have no host synchronisation pattern to choose",
    "useIpuId": "there are no physical IPU device ids",
    "useOfflineIpuTarget": "the emulator compiles for its own IPU Model target (the model compiles and exports, "
                           "and running it is an error)",
    # Host I/O is always real data: synthetic data is a hardware benchmarking knob.
    "enableSyntheticData": "inputs are always streamed from the host",
    # Numerics come from torch kernels, which match PyTorch on CPU; these hardware
    # arithmetic knobs (two of them deprecated in PopTorch) do not apply.
    "enableStableNorm": "norms are computed by torch kernels",
    "Precision.enableStochasticRounding": "float16 results are rounded to nearest by torch kernels",
    "Precision.halfFloatCasting": "mixed float16/float32 ops follow PyTorch's type promotion",
    "Precision.runningStatisticsAlwaysFloat": "running statistics keep the dtype of the module's buffers",
    # A tile-layout heuristic for convolutions, with no numerical effect.
    "Training.setConvolutionDithering": "convolution tile layout is not modelled",
    # Logs go through Python's logging module, never to PopTorch log files.
    "logDir": "logs go through Python's logging module, not log files",
    "maxRepeatLogs": "repeated log lines are not suppressed",
    # The frontend always captures the model with torch.export.
    "Jit.traceModel": "the model is always captured with torch.export",
    # Not implemented yet (issue 15): stored, validated and read back by the properties only.
    "Precision.setPartialsType": "matmul and convolution partials are computed by torch kernels in the "
                                 "inputs' dtype",
    "Precision.enableFloatingPointExceptions": "a NaN or Inf produced on the device is not detected yet",
    "setAvailableMemoryProportion": "the memory plan and the cost model do not read the proportion",
    "TensorLocations.numIOTiles": "the tile plan has no I/O tiles",
    "TensorLocations.setActivationLocation": "every tensor lives on chip: the memory plan does not read tensor "
                                             "locations",
    "TensorLocations.setWeightLocation": "every tensor lives on chip: the memory plan does not read tensor "
                                         "locations",
    "TensorLocations.setOptimizerLocation": "every tensor lives on chip: the memory plan does not read tensor "
                                            "locations",
    "TensorLocations.setAccumulatorLocation": "every tensor lives on chip: the memory plan does not read tensor "
                                              "locations",
    # Replication is not available in the emulator (replicationFactor > 1 is an error when run).
    "broadcastBuffers": "there is a single replica, so buffers have no other copies to keep in sync",
    # Presentation of the compiler's own output.
    "showCompilationProgressBar": "the compiler shows no progress bar (compile times are logged at INFO)",
    "relaxOptimizerAttributesChecks": "poptorch.optim checks attributes itself and warns about ignored ones either "
                                      "way",
    "modelName": "reports and logs name the model by its class",
    "sourceLocationExcludes": "IR source locations do not read the exclusions",
    "appendToLocationExcludes": "IR source locations do not read the exclusions",
    "disableModuleNamescope": "op names always carry the module path",
}
EMULATOR_IGNORED_OPTIONS: tuple[str, ...] = tuple(_EMULATOR_IGNORED_REASONS)

#: Frames from these paths are skipped when source locations are attached to the IR.
DEFAULT_SOURCE_LOCATION_EXCLUDES: tuple[str, ...] = (
    "torch/nn/modules/",
    "torch/_tensor.py",
    "poptorch/",
    "ipu_mlir/",
)

_OFFLINE_IPU_VERSIONS = (1, 2, 21)
_MAX_RANDOM_SEED = 2**64 - 1
_MAX_IO_TILES = 192


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


def _ignored(name: str, value: Any) -> None:
    _logging.warn_no_effect(f"Options.{name}", value, _EMULATOR_IGNORED_REASONS[name])


# --- argument checks shared by every setter ---------------------------------------------


def _int_arg(label: str, value: Any, minimum: int, hint: str, maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{label}({value!r}): expected an int, got {type(value).__name__}. {hint}")
    if value < minimum or (maximum is not None and value > maximum):
        bound = f"at least {minimum}" if maximum is None else f"between {minimum} and {maximum}"
        raise ValueError(f"{label}({value!r}): the value must be {bound}. {hint}")
    return int(value)


def _bool_arg(label: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{label}({value!r}): expected True or False, got {type(value).__name__}.")
    return value


def _str_arg(label: str, value: Any, hint: str) -> str:
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise TypeError(
            f"{label}({value!r}): expected a string, got {type(value).__name__}. {hint}"
        )
    if not value.strip():
        raise ValueError(f"{label}({value!r}): the string must not be empty. {hint}")
    return value


def _plain(value: Any) -> Any:
    """Turn enums and containers into plain data for ``toDict``."""
    if isinstance(value, enum.Enum):
        return format_value(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _env_flag(name: str) -> bool:
    """Read a 0/1 environment variable (also accepting true/false, yes/no, on/off)."""
    raw = os.environ.get(name, "").strip().lower()
    if raw in ("", "0", "false", "no", "off"):
        return False
    if raw in ("1", "true", "yes", "on"):
        return True
    raise ValueError(
        f"environment variable {name}={os.environ[name]!r} is not a boolean: set it to 1 to run "
        f"on the IPU Model or 0 (or unset it) for hardware. Options.useIpuModel() overrides it."
    )


class _Lock:
    """Shared by an Options object and its groups; set when a wrapped model uses them."""

    __slots__ = ("frozen",)

    def __init__(self) -> None:
        self.frozen = False


class _OptionGroup:
    """Base of Options and its groups: the frozen check and message labels."""

    _prefix: ClassVar[str] = "Options"

    def __init__(self, lock: _Lock) -> None:
        self._lock = lock

    def _label(self, method: str) -> str:
        return f"{self._prefix}.{method}"

    def __setattr__(self, name: str, value: Any) -> None:
        # `options.deviceIterations = 4` would replace the setter and change nothing.
        if not name.startswith("_") and callable(getattr(type(self), name, None)):
            label = self._label(name)
            raise AttributeError(
                f"{label} is a method: call it ({label}({value!r})) instead of assigning to it; an assignment "
                f"would replace the method and leave the option unchanged."
            )
        super().__setattr__(name, value)

    def __getattr__(self, name: str) -> Any:
        # Only reached for a name that does not exist: suggest the options it may mean.
        if name.startswith("_"):
            raise AttributeError(name)
        public = [n for n in dir(type(self)) if not n.startswith("_")]
        close = difflib.get_close_matches(name, public, n=3, cutoff=0.6)
        hint = f" Did you mean {' or '.join(close)}?" if close else ""
        raise AttributeError(f"{self._prefix} has no option or attribute '{name}'.{hint}")

    def _writable(self, method: str) -> str:
        """Refuse changes once frozen; return the label used in messages."""
        label = self._label(method)
        if self._lock.frozen:
            raise RuntimeError(
                f"{label}: these options already belong to a wrapped model, so they can no "
                f"longer change. Call options.clone() to get an editable copy, change that, "
                f"and wrap the model again with it."
            )
        return label


# --- tensor locations --------------------------------------------------------------------


class TensorLocationSettings:
    """Where one kind of tensor (activations, weights, ...) is stored."""

    def __init__(self) -> None:
        self._on_chip: bool | None = None
        self._min_elements_for_off_chip = 2
        self._replicated_tensor_sharding = False
        self._min_elements_for_replicated_tensor_sharding = 8192
        self._io_tiles_to_load = False
        self._io_tiles_to_store = False
        self._read_only = False

    def _writable(self, method: str) -> str:
        label = f"TensorLocationSettings.{method}"
        if self._read_only:
            raise RuntimeError(
                f"{label}: this TensorLocationSettings is a read-only view of stored options. "
                f"Build a new TensorLocationSettings and pass it to the matching "
                f"Options.TensorLocations.set...Location() method."
            )
        return label

    def useOnChipStorage(self, use: bool | None = True) -> TensorLocationSettings:  # noqa: N802
        """True: on-chip memory; False: off-chip streaming memory; None: leave it to the compiler."""
        label = self._writable("useOnChipStorage")
        self._on_chip = None if use is None else _bool_arg(label, use)
        return self

    def minElementsForOffChip(self, min_elements: int) -> TensorLocationSettings:  # noqa: N802
        """Tensors with fewer elements than this stay on chip."""
        label = self._writable("minElementsForOffChip")
        self._min_elements_for_off_chip = _int_arg(
            label, min_elements, 0, "Pass an element count of 0 or more."
        )
        return self

    def useReplicatedTensorSharding(self, use: bool = True) -> TensorLocationSettings:  # noqa: N802
        """Shard the tensor across replicas (for weights and optimiser state)."""
        self._replicated_tensor_sharding = _bool_arg(
            self._writable("useReplicatedTensorSharding"), use
        )
        return self

    def minElementsForReplicatedTensorSharding(  # noqa: N802
        self, min_elements: int
    ) -> TensorLocationSettings:
        """Only shard tensors with more than this many elements."""
        label = self._writable("minElementsForReplicatedTensorSharding")
        self._min_elements_for_replicated_tensor_sharding = _int_arg(
            label, min_elements, 0, "Pass an element count of 0 or more."
        )
        return self

    def useIOTilesToLoad(self, use: bool = True) -> TensorLocationSettings:  # noqa: N802
        """Load the tensor through IO tiles rather than compute tiles."""
        self._io_tiles_to_load = _bool_arg(self._writable("useIOTilesToLoad"), use)
        return self

    def useIOTilesToStore(self, use: bool = True) -> TensorLocationSettings:  # noqa: N802
        """Store the tensor through IO tiles rather than compute tiles."""
        self._io_tiles_to_store = _bool_arg(self._writable("useIOTilesToStore"), use)
        return self

    @property
    def on_chip(self) -> bool | None:
        """True on chip, False off chip, None when left to the compiler (on chip)."""
        return self._on_chip

    @property
    def min_elements_for_off_chip(self) -> int:
        """Smallest element count considered for off-chip storage."""
        return self._min_elements_for_off_chip

    @property
    def replicated_tensor_sharding(self) -> bool:
        """Whether the tensor is sharded across replicas."""
        return self._replicated_tensor_sharding

    @property
    def min_elements_for_replicated_tensor_sharding(self) -> int:
        """Element count above which replicated tensor sharding applies."""
        return self._min_elements_for_replicated_tensor_sharding

    @property
    def io_tiles_to_load(self) -> bool:
        """Whether loads go through IO tiles."""
        return self._io_tiles_to_load

    @property
    def io_tiles_to_store(self) -> bool:
        """Whether stores go through IO tiles."""
        return self._io_tiles_to_store

    def to_dict(self) -> dict[str, Any]:
        """The settings as plain data."""
        return {
            "on_chip": self._on_chip,
            "min_elements_for_off_chip": self._min_elements_for_off_chip,
            "replicated_tensor_sharding": self._replicated_tensor_sharding,
            "min_elements_for_replicated_tensor_sharding": (
                self._min_elements_for_replicated_tensor_sharding
            ),
            "io_tiles_to_load": self._io_tiles_to_load,
            "io_tiles_to_store": self._io_tiles_to_store,
        }

    def _view(self) -> TensorLocationSettings:
        view = copy.copy(self)
        view._read_only = True
        return view

    def _stored_copy(self) -> TensorLocationSettings:
        stored = copy.copy(self)
        stored._read_only = False
        return stored

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items())
        return f"TensorLocationSettings({fields})"


class _TensorLocationOptions(_OptionGroup):
    """Where activations, weights, optimiser state and accumulators are stored."""

    _prefix = "Options.TensorLocations"
    _KINDS: ClassVar[tuple[str, ...]] = ("activation", "weight", "optimizer", "accumulator")

    def __init__(self, lock: _Lock) -> None:
        super().__init__(lock)
        self._num_io_tiles = 0
        self._locations = {kind: TensorLocationSettings() for kind in self._KINDS}

    def numIOTiles(self, num_tiles: int) -> _TensorLocationOptions:  # noqa: N802
        """Reserve ``num_tiles`` tiles per IPU for I/O instead of compute (0 = none)."""
        label = self._writable("numIOTiles")
        hint = "Pass 0 for no IO tiles, or an even number up to 192."
        tiles = _int_arg(label, num_tiles, 0, hint, maximum=_MAX_IO_TILES)
        if tiles % 2:
            raise ValueError(f"{label}({num_tiles!r}): IO tiles are reserved in pairs. {hint}")
        self._num_io_tiles = tiles
        if tiles:
            _ignored("TensorLocations.numIOTiles", tiles)
        return self

    def _set(self, kind: str, method: str, location: Any) -> _TensorLocationOptions:
        label = self._writable(method)
        if not isinstance(location, TensorLocationSettings):
            raise TypeError(
                f"{label}({location!r}): expected a poptorch.TensorLocationSettings, got "
                f"{type(location).__name__}. Build one, e.g. "
                f"poptorch.TensorLocationSettings().useOnChipStorage(False)."
            )
        if kind == "activation" and location.replicated_tensor_sharding:
            raise ValueError(
                f"{label}: replicated tensor sharding applies to weights, optimiser state and "
                f"accumulators, not to activations. Remove useReplicatedTensorSharding() from "
                f"the activation settings."
            )
        self._locations[kind] = location._stored_copy()
        _ignored(f"TensorLocations.{method}", location)
        return self

    def setActivationLocation(self, location: TensorLocationSettings) -> _TensorLocationOptions:  # noqa: N802
        """Set where activations are stored."""
        return self._set("activation", "setActivationLocation", location)

    def setWeightLocation(self, location: TensorLocationSettings) -> _TensorLocationOptions:  # noqa: N802
        """Set where weights are stored."""
        return self._set("weight", "setWeightLocation", location)

    def setOptimizerLocation(self, location: TensorLocationSettings) -> _TensorLocationOptions:  # noqa: N802
        """Set where optimiser state is stored."""
        return self._set("optimizer", "setOptimizerLocation", location)

    def setAccumulatorLocation(self, location: TensorLocationSettings) -> _TensorLocationOptions:  # noqa: N802
        """Set where gradient accumulators are stored."""
        return self._set("accumulator", "setAccumulatorLocation", location)

    @property
    def num_io_tiles(self) -> int:
        """IO tiles per IPU (0 = none)."""
        return self._num_io_tiles

    @property
    def activation_location(self) -> TensorLocationSettings:
        """Read-only view of the activation settings."""
        return self._locations["activation"]._view()

    @property
    def weight_location(self) -> TensorLocationSettings:
        """Read-only view of the weight settings."""
        return self._locations["weight"]._view()

    @property
    def optimizer_location(self) -> TensorLocationSettings:
        """Read-only view of the optimiser-state settings."""
        return self._locations["optimizer"]._view()

    @property
    def accumulator_location(self) -> TensorLocationSettings:
        """Read-only view of the accumulator settings."""
        return self._locations["accumulator"]._view()

    def _to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {"num_io_tiles": self._num_io_tiles}
        for kind in self._KINDS:
            result[f"{kind}_location"] = self._locations[kind].to_dict()
        return result


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


class _PrecisionOptions(_OptionGroup):
    """Numerical options: partials type, float16 behaviour, floating-point exceptions."""

    _prefix = "Options.Precision"

    def __init__(self, lock: _Lock) -> None:
        super().__init__(lock)
        self._floating_point_exceptions = False
        self._stochastic_rounding = False
        self._half_float_casting = HalfFloatCastingBehavior.Default
        self._running_statistics_always_float = True
        self._partials_type: str | None = None

    def enableFloatingPointExceptions(self, enabled: bool) -> _PrecisionOptions:  # noqa: N802
        """Raise a RuntimeError when the device meets an invalid floating-point operation."""
        label = self._writable("enableFloatingPointExceptions")
        self._floating_point_exceptions = _bool_arg(label, enabled)
        if enabled:
            _ignored("Precision.enableFloatingPointExceptions", enabled)
        return self

    def enableStochasticRounding(self, enabled: bool) -> _PrecisionOptions:  # noqa: N802
        """Round float16 results up or down at random, unbiased on average."""
        self._stochastic_rounding = _bool_arg(self._writable("enableStochasticRounding"), enabled)
        if enabled:
            _ignored("Precision.enableStochasticRounding", enabled)
        return self

    def halfFloatCasting(self, half_float_casting: HalfFloatCastingBehavior) -> _PrecisionOptions:  # noqa: N802
        """Deprecated in PopTorch: how ops mixing float16 and float32 inputs are cast."""
        label = self._writable("halfFloatCasting")
        value = HalfFloatCastingBehavior.parse(half_float_casting, label)
        self._half_float_casting = value
        if value is not HalfFloatCastingBehavior.Default:
            _ignored("Precision.halfFloatCasting", value)
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
        self._partials_type = _PARTIALS_TYPES[name]
        _ignored("Precision.setPartialsType", dtype)
        return self

    @property
    def floating_point_exceptions(self) -> bool:
        """Whether invalid floating-point operations raise."""
        return self._floating_point_exceptions

    @property
    def stochastic_rounding(self) -> bool:
        """Whether stochastic rounding was requested (no effect in the emulator)."""
        return self._stochastic_rounding

    @property
    def half_float_casting(self) -> HalfFloatCastingBehavior:
        """The casting behaviour set (no effect in the emulator)."""
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
            "floating_point_exceptions": self._floating_point_exceptions,
            "stochastic_rounding": self._stochastic_rounding,
            "half_float_casting": self._half_float_casting,
            "running_statistics_always_float": self._running_statistics_always_float,
            "partials_type": self._partials_type,
        }


class _DistributedOptions(_OptionGroup):
    """Which process this is among the processes of a distributed run."""

    _prefix = "Options.Distributed"
    DEFAULT_ENV_VARS: ClassVar[tuple[str, str]] = ("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK")

    def __init__(self, lock: _Lock) -> None:
        super().__init__(lock)
        self._process_id = 0
        self._num_processes = 1
        self._read_env(*self.DEFAULT_ENV_VARS, label=f"{self._prefix} (default)")

    def _read_env(self, var_num_processes: str, var_process_id: str, label: str) -> None:
        raw_num = os.environ.get(var_num_processes)
        raw_id = os.environ.get(var_process_id)
        if raw_num is None and raw_id is None:
            return
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
        return {"process_id": self._process_id, "num_processes": self._num_processes}


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


@dataclass(frozen=True)
class AnchoredTensor:
    """A tensor registered with ``Options.anchorTensor`` for retrieval after a run."""

    short_name: str
    long_name: str
    output_mode: OutputMode | None
    output_return_period: int


# --- Options -----------------------------------------------------------------------------

_GROUPS = ("Training", "Precision", "Distributed", "TensorLocations", "Jit", "_Popart")
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
        self._available_memory_proportion = parsed
        _ignored("setAvailableMemoryProportion", dict(available_memory_proportion))
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
        """Keep buffers (e.g. running statistics) in sync across replicas."""
        self._broadcast_buffers = _bool_arg(self._writable("broadcastBuffers"), broadcast_buffers)
        if not broadcast_buffers:
            _ignored("broadcastBuffers", broadcast_buffers)
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

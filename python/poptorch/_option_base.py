"""What every option group shares: the no-effect reasons, argument checks, the freeze lock and
``_OptionGroup`` (the base of ``Options`` and its groups)."""

from __future__ import annotations

import copy
import difflib
import enum
import os
from numbers import Integral
from typing import Any, ClassVar

from . import _logging, enums
from .enums import format_value

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
    "Precision.runningStatisticsAlwaysFloat": "running statistics keep the dtype of the module's buffers",
    # A tile-layout heuristic for convolutions, with no numerical effect.
    "Training.setConvolutionDithering": "convolution tile layout is not modelled",
    # Logs go through Python's logging module, never to PopTorch log files.
    "logDir": "logs go through Python's logging module, not log files",
    "maxRepeatLogs": "repeated log lines are not suppressed",
    # The frontend always captures the model with torch.export.
    "Jit.traceModel": "the model is always captured with torch.export",
    # Not implemented yet (issue 15): stored, validated and read back by the properties only.
    "Precision.setFloatingPointBehaviour": "NaN on float16 overflow (nanoo) is not emulated: an overflow gives "
                                           "an infinity, as torch computes it",
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


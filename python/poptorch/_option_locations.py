"""``TensorLocationSettings`` and ``Options.TensorLocations``."""

from __future__ import annotations

import copy
from typing import Any, ClassVar

from . import _logging
from ._option_base import _MAX_IO_TILES, _bool_arg, _int_arg, _Lock, _OptionGroup


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
        """Only shard tensors with at least this many elements (PopART's rule)."""
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
        self._num_io_tiles = tiles  # the memory plan and the cost model read it (CompileOptions.io_tiles)
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
        self._locations[kind] = location._stored_copy()  # read by ipu-insert-training and poplar-place-tensors
        return self

    def _check_sharding(self, replicas: int, training: bool, accumulation: int = 1) -> None:
        """At compile time: what a setting cannot do for this model is said once to have no
        effect. Sharding needs replicas and training (accumulators exist with gradient
        accumulation only); off-chip activations need a backward pass that reads them."""
        what = {"weight": "weights", "optimizer": "the optimizer state", "accumulator": "the gradient accumulators"}
        for kind, method in (("weight", "setWeightLocation"), ("optimizer", "setOptimizerLocation"),
                             ("accumulator", "setAccumulatorLocation")):
            if not self._locations[kind].replicated_tensor_sharding:
                continue
            option = f"Options.TensorLocations.{method}(...).useReplicatedTensorSharding"
            if replicas == 1:
                _logging.warn_no_effect(option, True, f"it shards {what[kind]} across replicas, and "
                                                      "replicationFactor is 1")
            elif not training:
                _logging.warn_no_effect(option, True, "an inference model's weights are read, never updated: every "
                                                      "replica holds them whole" if kind == "weight" else
                                        f"an inference model has no {what[kind][4:]} to shard")
            elif kind == "accumulator" and accumulation == 1:
                _logging.warn_no_effect(option, True, "gradient accumulators exist with "
                                                      "Options.Training.gradientAccumulation > 1 only, and it is 1")
        if not training and self._locations["activation"].on_chip is False:
            _logging.warn_no_effect("Options.TensorLocations.setActivationLocation", self._locations["activation"],
                                    "off-chip activations are the forward values a training step's backward pass "
                                    "reads; an inference model has no backward pass")
        self._check_settings(training, accumulation)

    _SETTERS: ClassVar[dict[str, str]] = {"activation": "setActivationLocation", "weight": "setWeightLocation",
                                          "optimizer": "setOptimizerLocation",
                                          "accumulator": "setAccumulatorLocation"}
    _CLASSES: ClassVar[dict[str, str]] = {"activation": "activations", "weight": "weights",
                                          "optimizer": "the optimizer state", "accumulator": "the gradient accumulators"}

    def _check_settings(self, training: bool, accumulation: int) -> None:
        """The settings a class's other settings leave without effect, and off-chip classes
        that do not exist in this model (before compiling), each said once."""
        default = TensorLocationSettings()
        for kind, settings in self._locations.items():
            option = f"Options.TensorLocations.{self._SETTERS[kind]}(...)"
            what = self._CLASSES[kind]
            if settings.on_chip is not False:  # on chip (None: the compiler's choice, on chip)
                kept = f"{what} stay on chip (useOnChipStorage(False) is not set)"
                for name, value in (("useIOTilesToLoad", settings.io_tiles_to_load),
                                    ("useIOTilesToStore", settings.io_tiles_to_store)):
                    if value:
                        _logging.warn_no_effect(f"{option}.{name}", True, f"{kept}: nothing is "
                                                f"{'loaded from' if name.endswith('Load') else 'stored to'} "
                                                "streaming memory through the I/O tiles")
                if settings.min_elements_for_off_chip != default.min_elements_for_off_chip:
                    _logging.warn_no_effect(f"{option}.minElementsForOffChip", settings.min_elements_for_off_chip,
                                            f"{kept}: no tensor of the class is moved off chip, whatever its size")
            if (not settings.replicated_tensor_sharding and settings.min_elements_for_replicated_tensor_sharding
                    != default.min_elements_for_replicated_tensor_sharding):
                _logging.warn_no_effect(f"{option}.minElementsForReplicatedTensorSharding",
                                        settings.min_elements_for_replicated_tensor_sharding,
                                        f"{what} are not sharded: useReplicatedTensorSharding(True) is not set")
        for kind in ("optimizer", "accumulator"):
            if self._locations[kind].on_chip is not False:
                continue
            if not training:
                reason = f"an inference model has no {self._CLASSES[kind][4:]}"
            elif kind == "accumulator" and accumulation == 1:
                reason = "gradient accumulators exist with Options.Training.gradientAccumulation > 1 only, and it is 1"
            else:
                continue
            _logging.warn_no_effect(f"Options.TensorLocations.{self._SETTERS[kind]}(...).useOnChipStorage", False,
                                    reason)

    def _check_compiled(self, kinds: set[str]) -> None:
        """After compiling: an off-chip class of which the compiled model has no variable (an
        optimizer without state, such as SGD without momentum) is said once to have no effect.
        ``kinds`` are the compiled program's argument kinds (RoleKind values). The key is the
        one ``_check_settings`` uses: a class it already warned about is not warned twice."""
        for kind, role in (("weight", "parameter"), ("optimizer", "optimizer_state"), ("accumulator", "accumulator")):
            if self._locations[kind].on_chip is False and role not in kinds:
                _logging.warn_no_effect(f"Options.TensorLocations.{self._SETTERS[kind]}(...).useOnChipStorage", False,
                                        f"the compiled model has no {self._CLASSES[kind].removeprefix('the ')}"
                                        + (" (the optimizer keeps none, e.g. SGD without momentum)"
                                           if kind == "optimizer" else "") + ": nothing is placed off chip")

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

    def _placed(self) -> dict[str, dict[str, Any]]:
        """The classes whose settings differ from the defaults, as the compiler reads them."""
        default = TensorLocationSettings().to_dict()
        return {kind: settings.to_dict() for kind, settings in self._locations.items()
                if settings.to_dict() != default}

    def _to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {"num_io_tiles": self._num_io_tiles}
        for kind in self._KINDS:
            result[f"{kind}_location"] = self._locations[kind].to_dict()
        return result



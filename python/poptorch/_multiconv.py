"""``poptorch.MultiConv`` (convolutions grouped into one multi-convolution, with its plan) and
``set_overlap_for_input`` / ``set_overlap_for_output`` (host I/O overlapping computation).

Inside ``with poptorch.MultiConv():`` every convolution the model calls (``nn.Conv*``,
``F.conv*d``, ``F.conv_transpose*d``) becomes a member of the group: while the model is
compiled, its result goes through ``poptorch::multi_conv``, which the compiler turns into the
``poplar.multi_conv`` attribute of the convolution (its group, index and the plan options),
read by the cost model (a parallel plan runs the members in one compute set over all tiles).
Results are those of the convolutions: the options only change how Poplar plans them.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import torch
import torch.nn.functional as F
import torch.utils._pytree as pytree
from torch.overrides import TorchFunctionMode

from .enums import MultiConvPlanType, OverlapMode

_CONVOLUTIONS = frozenset({
    F.conv1d, F.conv2d, F.conv3d, F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d,
    torch.conv1d, torch.conv2d, torch.conv3d, torch.conv_transpose1d, torch.conv_transpose2d, torch.conv_transpose3d,
})
_PLAN_SPELLING = {MultiConvPlanType.Parallel: "parallel", MultiConvPlanType.Serial: "serial"}
_PARTIALS_SPELLING = {torch.float32: "float", torch.float16: "half"}
_groups = itertools.count()  # group ids: unique within a process, hence within a model


def _tracing() -> bool:
    from ipu_mlir.compiler.frontend.tracing import is_tracing

    return is_tracing()


def _per_conv(label: str, value: Any, check: Any) -> Any:
    """A single value, or a tuple / list of values (one per convolution), each checked by ``check``."""
    if isinstance(value, tuple | list):
        if not value:
            raise ValueError(f"MultiConv.{label}: the list is empty; give one value per convolution, or a single value")
        return [check(item) for item in value]
    return check(value)


class MultiConv:
    """Combines all convolution layers evaluated inside this scope into a single multi-convolution.

    >>> with poptorch.MultiConv():
    ...     y = self.convA(x)
    ...     v = self.convB(u)

    Every option is recorded on the convolutions in the IR (``poplar.multi_conv``,
    ``poplar.available_memory``, ``poplar.partials_type``); results are unchanged.
    """

    def __init__(self) -> None:
        self._available_memory: float | list[float] | None = None
        self._partials: str | list[str] | None = None
        self._dithering: bool | list[bool] | None = None
        self._reserved_tiles: int | None = None
        self._cycle_back_off: float | None = None
        self._plan = MultiConvPlanType.Parallel
        self._mode: _MemberConvolutions | None = None
        self._group = -1
        self._count = 0

    # -- plan options (each returns self, for chaining) --------------------------------------------
    def availableMemoryProportions(self, value: float | Sequence[float]) -> MultiConv:  # noqa: N802
        """The available memory proportion per convolution, each in [0, 1)."""
        def check(item: Any) -> float:
            if isinstance(item, bool) or not isinstance(item, int | float):
                raise TypeError(f"MultiConv.availableMemoryProportions: expected a float, got {item!r}")
            if not 0.0 <= float(item) < 1.0:
                raise ValueError(f"MultiConv.availableMemoryProportions: each proportion must be in [0, 1), got {item!r}")
            return float(item)

        self._available_memory = _per_conv("availableMemoryProportions", value, check)
        return self

    def partialsTypes(self, value: torch.dtype | Sequence[torch.dtype]) -> MultiConv:  # noqa: N802
        """The partials type used for each convolution: torch.float or torch.half."""
        def check(item: Any) -> str:
            if item not in _PARTIALS_SPELLING:
                raise ValueError(f"MultiConv.partialsTypes: partials are torch.float or torch.half, got {item!r}")
            return _PARTIALS_SPELLING[item]

        self._partials = _per_conv("partialsTypes", value, check)
        return self

    def enableConvDithering(self, value: bool | Sequence[bool]) -> MultiConv:  # noqa: N802
        """Enable per-convolution dithering."""
        def check(item: Any) -> bool:
            if not isinstance(item, bool):
                raise TypeError(f"MultiConv.enableConvDithering: expected a bool, got {item!r}")
            return item

        self._dithering = _per_conv("enableConvDithering", value, check)
        return self

    def perConvReservedTiles(self, value: int) -> MultiConv:  # noqa: N802
        """Tiles to reserve for each convolution."""
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"MultiConv.perConvReservedTiles: expected a number of tiles >= 1, got {value!r}")
        self._reserved_tiles = value
        return self

    def cycleBackOff(self, value: float) -> MultiConv:  # noqa: N802
        """Cycle back off proportion, a number between 0 and 1."""
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= float(value) <= 1.0:
            raise ValueError(f"MultiConv.cycleBackOff: expected a number between 0 and 1, got {value!r}")
        self._cycle_back_off = float(value)
        return self

    def planType(self, value: MultiConvPlanType) -> MultiConv:  # noqa: N802
        """Select the multi-convolution execution strategy (a poptorch.MultiConvPlanType)."""
        self._plan = MultiConvPlanType.parse(value, "MultiConv.planType")
        return self

    # -- the scope -------------------------------------------------------------------------------
    def __enter__(self) -> MultiConv:
        if self._mode is not None:
            raise RuntimeError("poptorch.MultiConv: this MultiConv is already open; a scope cannot be entered twice "
                               "at once (use one MultiConv object per with-statement)")
        self._group = next(_groups)
        self._count = 0
        self._mode = _MemberConvolutions(self)
        self._mode.__enter__()
        return self

    def __exit__(self, kind: Any, value: Any, traceback: Any) -> None:
        mode, self._mode = self._mode, None
        mode.__exit__(kind, value, traceback)
        if kind is not None:
            return
        if self._count == 0:
            raise RuntimeError("poptorch.MultiConv: no convolution ran inside the scope; put the convolutions to "
                               "combine (torch.nn.Conv*d, F.conv*d) inside the with-statement")
        for label, option in (("availableMemoryProportions", self._available_memory),
                              ("partialsTypes", self._partials), ("enableConvDithering", self._dithering)):
            if isinstance(option, list) and len(option) != self._count:
                raise ValueError(f"MultiConv.{label} has {len(option)} values but {self._count} convolutions ran in "
                                 f"the scope; give one value per convolution, or a single value")

    def _member(self, result: torch.Tensor) -> torch.Tensor:
        """The result of the scope's next convolution, marked as a member while compiling."""
        index = self._count
        self._count += 1

        def pick(option: Any, unset: Any) -> Any:
            if option is None:
                return unset
            if isinstance(option, list):
                if index >= len(option):
                    raise ValueError(f"MultiConv: convolution {index + 1} ran in the scope, but the options give "
                                     f"values for {len(option)} convolutions; give one value per convolution")
                return option[index]
            return option

        memory, partials = pick(self._available_memory, -1.0), pick(self._partials, "")
        dithering = pick(self._dithering, None)
        if not _tracing() or not isinstance(result, torch.Tensor):
            return result
        from ipu_mlir.compiler.frontend import custom_ops

        return custom_ops.multi_conv(result, self._group, index, _PLAN_SPELLING[self._plan], memory, partials,
                                     -1 if dithering is None else int(dithering),
                                     -1 if self._reserved_tiles is None else self._reserved_tiles,
                                     -1.0 if self._cycle_back_off is None else self._cycle_back_off)


class _MemberConvolutions(TorchFunctionMode):
    """Passes the result of every convolution called in a MultiConv scope to its ``_member``."""

    def __init__(self, owner: MultiConv) -> None:
        super().__init__()
        self.owner = owner

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        result = func(*args, **(kwargs or {}))
        if func in _CONVOLUTIONS:
            result = self.owner._member(result)
        return result


def _overlap(label: str, direction: str, tensors: Any, mode: OverlapMode) -> Any:
    mode = OverlapMode.parse(mode, f"{label}: mode")
    leaves = pytree.tree_leaves(tensors)
    if not leaves or not all(isinstance(leaf, torch.Tensor) for leaf in leaves):
        raise TypeError(f"{label}: expected a tensor, or a tuple, list or dict of tensors, got {tensors!r}")
    if not _tracing():
        return tensors
    from ipu_mlir.compiler.frontend import custom_ops

    op = custom_ops.set_overlap_for_input if direction == "input" else custom_ops.set_overlap_for_output
    return pytree.tree_map(lambda t: op(t, mode.value), tensors)


def set_overlap_for_input(input_tensors: Any, mode: OverlapMode) -> Any:
    """Sets host overlap setting for ``input_tensors`` (a tensor, or any tuple, list or dict of tensors).

    Use it at the start of forward on the model's inputs and use the tensors it returns. The
    input's host stream gets ``poplar.overlap``: its transfers are buffered on the IPU's I/O tiles
    (``Options.TensorLocations.numIOTiles``), which the memory plan and the cost model read.
    """
    return _overlap("set_overlap_for_input", "input", input_tensors, mode)


def set_overlap_for_output(output_tensors: Any, mode: OverlapMode) -> Any:
    """Sets host overlap setting for ``output_tensors`` (a tensor, or any tuple, list or dict of tensors).

    Use it at the end of forward, just before returning the tensors it returns.
    """
    return _overlap("set_overlap_for_output", "output", output_tensors, mode)

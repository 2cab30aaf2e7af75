"""Anchored tensors in the ``ipu`` dialect: ``Options.anchorTensor`` on an internal tensor.

The frontend returns an anchored tensor (an activation, an input, an output) as one more
result of ``@main``, with ``#ipu.role<"anchor", "<tensor name>">`` (the name
``getTensorNames()`` lists); the driver gives that result the output mode the user chose,
``ipu.output_mode = #ipu.output_mode<"every_n", 2 : i64>`` (the mode as
``poplar.OutputMode`` spells it and its return period). ``poplar-build-program`` streams the
result to the host under that mode, independently of the model outputs' mode.

An anchored *state* variable (a weight, a buffer, optimizer state, an accumulator, a
hyper-parameter: no result of ``@main``, a variable of the program) is listed on the module
instead, ``ipu.anchored_state = [#ipu.state_anchor<"fc1.weight", "all", 1 : i64>]`` (the
driver writes it; the variables of optimizer state only exist after ``ipu-insert-training``).
``poplar-build-program`` streams the variable under that mode, its value sampled at the end of
each step, where the last step of an iteration ends with the iteration's optimizer update.
"""

import dataclasses
from typing import Self

from torch_mlir import ir

from ipu_mlir.support.ir_build import i64, string

from .ipu_base import Ipu
from .poplar.enums import OutputMode

OUTPUT_MODE_ATTR = "ipu.output_mode"  # in res_attrs of an "anchor" result: its #ipu.output_mode
ANCHORED_STATE_ATTR = "ipu.anchored_state"  # on the module: [#ipu.state_anchor, ...]


class OutputModeAttr(Ipu.Attribute, name="output_mode"):
    """How an anchored result goes to the host: ``#ipu.output_mode<"all", 1 : i64>``.

    Parameters: the mode (``all``, ``final``, ``sum``, ``every_n``: ``poplar.OutputMode``)
    and the return period (>= 1; the n of ``every_n``, 1 otherwise). Written by the driver
    on results whose ``#ipu.role`` kind is ``anchor``; read by ``poplar-build-program``.
    """

    mode: ir.StringAttr
    period: ir.IntegerAttr


@dataclasses.dataclass(frozen=True)
class AnchorMode:
    """What ``#ipu.output_mode`` says, checked (see :class:`OutputModeAttr`)."""

    mode: OutputMode
    period: int = 1

    def attr(self) -> OutputModeAttr:
        return OutputModeAttr.get(string(self.mode.value), i64(self.period))

    @classmethod
    def from_attr(cls, attr: ir.Attribute) -> Self:
        if not isinstance(attr, OutputModeAttr):
            raise ValueError(f"'{OUTPUT_MODE_ATTR}' must be an #ipu.output_mode<mode, period>, got {attr}")
        return cls.parse(ir.StringAttr(attr.mode).value, ir.IntegerAttr(attr.period).value, f"'{OUTPUT_MODE_ATTR}'")

    @classmethod
    def parse(cls, text: str, period: int, where: str) -> Self:
        """A mode and period checked; errors start with ``where``."""
        mode = OutputMode.parse(text, f"{where} mode")
        if period < 1:
            raise ValueError(f"{where} period must be >= 1, got {period}")
        if period != 1 and mode != OutputMode.EVERY_N:
            raise ValueError(f"{where} period {period} only applies to every_n; give 1 with {mode.value}")
        return cls(mode, period)


class StateAnchorAttr(Ipu.Attribute, name="state_anchor"):
    """An anchored state variable: ``#ipu.state_anchor<"fc1.weight", "every_n", 2 : i64>``.

    Parameters: the variable's name (a weight or buffer path, ``fc1.weight/momentum``,
    ``fc1.weight/accum``, ``0.lr``: a name ``getTensorNames()`` lists), the output mode
    (``all``, ``final``, ``sum``, ``every_n``) and its return period (as in
    :class:`OutputModeAttr`). The driver lists them in the module's ``ipu.anchored_state``;
    ``poplar-build-program`` streams the variable after every step (after the update, for the
    last step of an iteration) under that mode, and fails on a name that is no variable.
    """

    name: ir.StringAttr
    mode: ir.StringAttr
    period: ir.IntegerAttr


@dataclasses.dataclass(frozen=True)
class StateAnchor:
    """What ``#ipu.state_anchor`` says, checked (see :class:`StateAnchorAttr`)."""

    name: str
    mode: AnchorMode

    def attr(self) -> StateAnchorAttr:
        return StateAnchorAttr.get(string(self.name), string(self.mode.mode.value), i64(self.mode.period))


def anchored_state(module: ir.Operation) -> list[StateAnchor]:
    """The module's ``ipu.anchored_state`` ([] without one); ValueError naming the bad entry."""
    if ANCHORED_STATE_ATTR not in module.attributes:
        return []
    attr = module.attributes[ANCHORED_STATE_ATTR]
    if not isinstance(attr, ir.ArrayAttr):
        raise ValueError(f"'{ANCHORED_STATE_ATTR}' must be an array of #ipu.state_anchor, got {attr}")
    found = []
    for index, item in enumerate(ir.ArrayAttr(attr)):
        where = f"'{ANCHORED_STATE_ATTR}' entry #{index}"
        if not isinstance(item, StateAnchorAttr):
            raise ValueError(f"{where} must be an #ipu.state_anchor<name, mode, period>, got {item}")
        name = ir.StringAttr(item.name).value
        if not name:
            raise ValueError(f"{where} must name a variable (a non-empty string)")
        try:
            mode = AnchorMode.parse(ir.StringAttr(item.mode).value, ir.IntegerAttr(item.period).value, "its")
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
        found.append(StateAnchor(name, mode))
    return found


def set_anchored_state(module: ir.Operation, anchors: list[StateAnchor]) -> None:
    """Write the module's ``ipu.anchored_state`` (nothing when ``anchors`` is empty)."""
    if anchors:
        module.attributes[ANCHORED_STATE_ATTR] = ir.ArrayAttr.get([anchor.attr() for anchor in anchors])


def result_output_modes(func: ir.Operation) -> list[AnchorMode | None]:
    """The ``#ipu.output_mode`` of each result of ``func`` (None where it has none);
    ValueError naming the result if one is malformed."""
    function_type = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    entries = list(ir.ArrayAttr(func.attributes["res_attrs"])) if "res_attrs" in func.attributes else []
    modes: list[AnchorMode | None] = []
    for index in range(len(function_type.results)):
        entry = ir.DictAttr(entries[index]) if index < len(entries) else None
        if entry is None or OUTPUT_MODE_ATTR not in entry:
            modes.append(None)
            continue
        try:
            modes.append(AnchorMode.from_attr(entry[OUTPUT_MODE_ATTR]))
        except ValueError as error:
            raise ValueError(f"result #{index}: {error}") from None
    return modes


def set_result_output_mode(func: ir.Operation, index: int, mode: AnchorMode) -> None:
    """Add ``ipu.output_mode`` to result ``index``'s attributes (its other attributes kept)."""
    entries = [ir.DictAttr(entry) for entry in ir.ArrayAttr(func.attributes["res_attrs"])]
    items = {entries[index][i].name: entries[index][i].attr for i in range(len(entries[index]))}
    items[OUTPUT_MODE_ATTR] = mode.attr()
    entries[index] = ir.DictAttr.get(items)
    func.attributes["res_attrs"] = ir.ArrayAttr.get(list(entries))

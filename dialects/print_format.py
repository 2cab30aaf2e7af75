"""How a printed tensor is laid out: the optional ``print_format`` dictionary of ``ipu.print_tensor``
(``ipu.print_format``) and ``poplar.program_print_tensor`` (``poplar.print_format``), as
``poptorch.ipu_print_tensor``'s formatting arguments and Poplar's ``PrintTensorFmt``.

Keys (each optional; an absent key or attribute takes the default below):
``summarise_threshold`` (i64 >= 0: more elements than this print only ``edge_items`` at each
end of every dimension), ``edge_items`` (i64 >= 0), ``max_line_width`` (i64 >= 1),
``digits`` (i64 >= 0: digits after the point), ``float_format`` (``"auto"``, ``"fixed"``,
``"scientific"`` or ``"none"``), ``separator``, ``open_bracket``, ``close_bracket`` (strings).

Example: ``{ipu.print_format = {digits = 2 : i64, open_bracket = "["}}``
"""

from __future__ import annotations

from typing import Any

from torch_mlir import ir

from ipu_mlir.support.print_format import INTEGER_MINIMUMS, FLOAT_FORMATS, PRINT_FORMAT_DEFAULTS, check_print_format_value

from ._base import RuleViolation

__all__ = ["FLOAT_FORMATS", "PRINT_FORMAT_DEFAULTS", "check_print_format_value", "print_format_attr", "read_print_format"]


def _python(attr: ir.Attribute) -> Any:
    if isinstance(attr, ir.BoolAttr):
        return bool(ir.BoolAttr(attr).value)
    if isinstance(attr, ir.IntegerAttr):
        return ir.IntegerAttr(attr).value
    if isinstance(attr, ir.StringAttr):
        return ir.StringAttr(attr).value
    return attr


def read_print_format(op: ir.Operation, name: str) -> dict[str, Any]:
    """The op's print format with defaults filled in; raises RuleViolation when it is malformed."""
    values = dict(PRINT_FORMAT_DEFAULTS)
    if name not in op.attributes:
        return values
    attr = op.attributes[name]
    if not isinstance(attr, ir.DictAttr):
        raise RuleViolation(f"attribute '{name}' must be a dictionary, got {attr}")
    attr = ir.DictAttr(attr)
    for i in range(len(attr)):
        entry = attr[i]
        value = _python(entry.attr)
        problem = check_print_format_value(entry.name, value)
        if problem is not None:
            raise RuleViolation(f"attribute '{name}': {problem}")
        values[entry.name] = value
    return values


def print_format_attr(values: dict[str, Any]) -> ir.DictAttr:
    """The dictionary attribute of the entries of ``values`` that differ from the defaults."""
    from ipu_mlir.support.ir_build import i64, string

    return ir.DictAttr.get({key: (i64(value) if key in INTEGER_MINIMUMS else string(value))
                            for key, value in values.items() if PRINT_FORMAT_DEFAULTS[key] != value})

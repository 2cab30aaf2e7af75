"""ipu-raise-custom-ops: ``torch.operator "torch.poptorch.*"`` -> ``ipu`` dialect ops.

Input: Torch-dialect IR as imported, where PopTorch's model ops (``ipu_print_tensor``,
``nop``, ``identity_loss``, ``set_available_memory``, ``recomputationCheckpoint``,
``set_overlap_for_input`` / ``_output``, a ``MultiConv`` member)
appear as raw ``torch.operator`` calls of the ``poptorch::`` custom ops. Output: the
matching ``ipu.*`` ops with their constant arguments as attributes.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from torch_mlir import ir

from ipu_mlir.dialects import ipu as ipu_d
from ipu_mlir.dialects._base import build
from ipu_mlir.dialects.print_format import PRINT_FORMAT_DEFAULTS, check_print_format_value, print_format_attr
from ipu_mlir.dialects.poplar.planning import HostOverlap
from ipu_mlir.support.ir_build import boolean, f64, i64, string

from ..control_flow import outline_control_flow
from ..pass_base import Diagnostics, ModulePass
from ..torch_ir import NotConstant, constant_value

PREFIX = "torch.poptorch."
# Operand count of each known op (the tensor, then its constant arguments).
# ipu_print_tensor: (tensor, title) or (tensor, title, print_gradient, <the layout keys of print_format.py>).
_PRINT_ARITIES = (2, 3 + len(PRINT_FORMAT_DEFAULTS))
_ARITY = {"nop": 1, "identity_loss": 2, "set_available_memory": 2, "recomputation_checkpoint": 1,
          "set_overlap_for_input": 2, "set_overlap_for_output": 2, "multi_conv": 9}
_MISSING = object()  # const() failed and reported why; distinct from a constant None


def _raise(op: ir.Operation, diag: Diagnostics) -> None:
    kind = ir.StringAttr(op.attributes["name"]).value[len(PREFIX) :]
    operands = list(op.operands)
    result = op.results[0]
    if kind in _ARITY and (len(operands), len(op.results)) != (_ARITY[kind], 1):
        diag.error(op, f"poptorch.{kind} takes {_ARITY[kind]} operands and gives 1 result, got {len(operands)} and {len(op.results)}")
        return
    if kind == "ipu_print_tensor" and (len(operands) not in _PRINT_ARITIES or len(op.results) != 1):
        diag.error(op, f"poptorch.ipu_print_tensor takes {' or '.join(map(str, _PRINT_ARITIES))} operands and gives "
                       f"1 result, got {len(operands)} and {len(op.results)}")
        return

    def const(index: int, what: str, expected: type | tuple[type, ...], expected_text: str) -> object:
        try:
            value = constant_value(operands[index])
        except NotConstant as reason:
            diag.error(op, f"poptorch.{kind}: {what} must be a constant, but it is {reason}")
            return _MISSING
        if isinstance(value, bool) or not isinstance(value, expected):
            diag.error(op, f"poptorch.{kind}: {what} must be {expected_text}, got {value!r}")
            return _MISSING
        return value

    with op.location, ir.InsertionPoint(op):
        if kind == "ipu_print_tensor":
            title = const(1, "the title", str, "a string")
            if title is _MISSING:
                return
            new = build(ipu_d.PrintTensorOp, operands[0], result.type, string(title))
            layout = dict(PRINT_FORMAT_DEFAULTS)
            for index, key in enumerate(PRINT_FORMAT_DEFAULTS, start=3):  # operand 2 is print_gradient (autograd's)
                if index >= len(operands):
                    break
                value = const(index, key, (int, str), "an int or a string")
                if value is _MISSING:
                    new.operation.erase()
                    return
                problem = check_print_format_value(key, value)
                if problem is not None:
                    diag.error(op, f"poptorch.ipu_print_tensor: {problem}")
                    new.operation.erase()
                    return
                layout[key] = value
            if layout != PRINT_FORMAT_DEFAULTS:
                new.operation.attributes[ipu_d.PRINT_FORMAT_ATTR] = print_format_attr(layout)
        elif kind == "nop":
            new = build(ipu_d.NopOp, operands[0], result.type)
        elif kind == "identity_loss":
            reduction = const(1, "the reduction", str, "a string")
            if reduction is _MISSING:
                return
            try:
                reduction = ipu_d.LossReduction.parse(reduction, "poptorch.identity_loss: reduction")
            except ValueError as error:
                diag.error(op, str(error))
                return
            new = build(ipu_d.IdentityLossOp, operands[0], string(reduction.value), result.type)
        elif kind == "set_available_memory":
            proportion = const(1, "the proportion", (int, float), "a number")
            if proportion is _MISSING:
                return
            if not 0.0 < float(proportion) <= 1.0:
                diag.error(op, f"poptorch.set_available_memory: proportion must be in (0, 1], got {proportion}")
                return
            new = build(ipu_d.SetAvailableMemoryOp, operands[0], result.type, f64(proportion))
        elif kind in ("set_overlap_for_input", "set_overlap_for_output"):
            mode = const(1, "the mode", str, "a string")
            if mode is _MISSING:
                return
            if mode not in set(HostOverlap):
                diag.error(op, f"poptorch.{kind}: mode must be one of: {HostOverlap.choices()}; got \"{mode}\"")
                return
            direction = kind.removeprefix("set_overlap_for_")
            new = build(ipu_d.SetOverlapOp, operands[0], result.type, string(direction), string(mode))
        elif kind == "multi_conv":
            new = _multi_conv(op, operands, result, const)
            if new is None:
                return
        elif kind == "recomputation_checkpoint":
            new = build(ipu_d.RecomputationCheckpointOp, operands[0], result.type)
        else:
            diag.error(op, f"'poptorch::{kind}' is not a PopTorch op this compiler knows")
            return
    result.replace_all_uses_with(new.results[0])
    op.erase()


def _multi_conv(op: ir.Operation, operands: list[ir.Value], result: ir.Value, const) -> ir.OpView | None:  # noqa: ANN001
    """``poptorch::multi_conv(x, group, index, plan_type, available_memory, partials_type,
    enable_conv_dithering, per_conv_reserved_tiles, cycle_back_off)`` -> ``ipu.multi_conv``
    (an unset option is -1 or "" and becomes no attribute)."""
    values = [const(1, "the group", int, "an int"), const(2, "the index", int, "an int"),
              const(3, "the plan type", str, "a string"), const(4, "the available memory", (int, float), "a number"),
              const(5, "the partials type", str, "a string"), const(6, "the dithering flag", int, "an int"),
              const(7, "the reserved tiles", int, "an int"), const(8, "the cycle back-off", (int, float), "a number")]
    if any(value is _MISSING for value in values):
        return None
    group, index, plan_type, memory, partials, dithering, reserved, back_off = values
    new = build(ipu_d.MultiConvOp, operands[0], result.type, i64(group), i64(index), string(plan_type))
    if memory >= 0:
        new.operation.attributes["available_memory"] = f64(memory)
    if partials:
        new.operation.attributes["partials_type"] = string(partials)
    if dithering >= 0:
        new.operation.attributes["enable_conv_dithering"] = boolean(bool(dithering))
    if reserved >= 0:
        new.operation.attributes["per_conv_reserved_tiles"] = i64(reserved)
    if back_off >= 0:
        new.operation.attributes["cycle_back_off"] = f64(back_off)
    return new


@dataclasses.dataclass(frozen=True)
class RaiseCustomOps(ModulePass):
    """Turn the imported poptorch:: custom ops into ipu dialect ops.

    Preconditions: constant arguments (titles, reductions, proportions) are
    ``torch.constant.*`` values; a computed one is a located error.

    Arguments: none.
    """

    name: ClassVar[str] = "ipu-raise-custom-ops"

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        outline_control_flow(module, diag)  # for_loop / cond markers -> ipu.for_loop / ipu.if
        if diag.failed:
            return
        found: list[ir.Operation] = []

        def visit(op: ir.Operation) -> ir.WalkResult:
            if op.name == "torch.operator" and ir.StringAttr(op.attributes["name"]).value.startswith(PREFIX):
                found.append(op)
            return ir.WalkResult.ADVANCE

        module.walk(visit)
        for op in found:
            _raise(op, diag)

"""Lowerings of user code and of the CTC decoder: the ``ipu_mlir::*`` custom ops of
``compiler/frontend/host_ops.py`` -> ``poplar.custom_op`` / ``custom_op_grad``,
``poplar.program_host_call`` and ``poplar.popnn_ctc_beam_search_decoder``, their constant
arguments as attributes."""

from __future__ import annotations

import json
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import f64, i64, i64_array, string
from ipu_mlir.support.registry import Registry

from ... import torch_ir
from ...lowering import Lowering, Pattern, Unsupported, result_type

NAMESPACE = "torch.ipu_mlir."


def _attribute(key: str, value: Any) -> ir.Attribute:
    """A custom op attribute value (float, int, str, or a list of one of them) as an MLIR attribute."""
    if isinstance(value, bool):
        return i64(int(value))
    if isinstance(value, int):
        return i64(value)
    if isinstance(value, float):
        return f64(value)
    if isinstance(value, str):
        return string(value)
    if isinstance(value, list):
        return ir.ArrayAttr.get([_attribute(key, item) for item in value])
    raise Unsupported(f"custom op attribute '{key}' = {value!r}: values are floats, ints, strings or lists of one of them")


def _identity(lw: Lowering, op: ir.Operation, first: int) -> tuple[ir.StringAttr, ir.StringAttr, ir.IntegerAttr, ir.DictAttr]:
    """(op_name, domain, domain_version, op_attributes) from operands ``first`` to ``first + 3``."""
    name = lw.const(op.operands[first], "the custom op name")
    domain = lw.const(op.operands[first + 1], "the custom op domain")
    version = lw.const(op.operands[first + 2], "the custom op domain version")
    attributes = json.loads(lw.const(op.operands[first + 3], "the custom op attributes"))
    return (string(name), string(domain), i64(version),
            ir.DictAttr.get({key: _attribute(key, value) for key, value in attributes.items()}))


def _list_result_types(op: ir.Operation, what: str) -> list[ir.Type]:
    """The tensor types of a list result, read off the ``prim.ListUnpack`` that takes it apart."""
    users = [use.owner for use in op.results[0].uses]
    unpacks = [user for user in users if user.name == "torch.prim.ListUnpack"]
    if len(unpacks) != len(users) or not unpacks:
        raise Unsupported(f"the result list of {what} must be unpacked (prim.ListUnpack) and used only so")
    return [torch_ir.to_builtin_tensor(r.type) for r in unpacks[0].results]


def _slots(values: list[Any], what: str) -> list[list[Any]]:
    """Values (or result types) as the ops' slots: one group of 0 or 1 per slot."""
    if len(values) > pd.CUSTOM_MAX_VALUES:
        raise Unsupported(f"{what}: at most {pd.CUSTOM_MAX_VALUES} of them (the op's slots), got {len(values)}")
    return [[value] for value in values] + [[] for _ in range(pd.CUSTOM_MAX_VALUES - len(values))]


def _values(emitted: Any) -> list[ir.Value]:
    """The results of an emitted op with a variadic result group (``emit`` gives a lone result as itself)."""
    return [emitted] if isinstance(emitted, ir.Value) else list(emitted.operation.results)


def lower_custom_op(lw: Lowering, op: ir.Operation) -> list[Any]:
    inputs = lw.list_operand(op.operands[0])
    identity = _identity(lw, op, 1)
    types = _list_result_types(op, "poptorch.custom_op")
    new = lw.emit(pd.CustomOp, *_slots(inputs, 'custom op inputs'), *identity,
                  *_slots(types, 'custom op outputs'))
    return [_values(new)]


def lower_custom_op_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    inputs, outputs, grads = (lw.list_operand(op.operands[i]) for i in range(3))
    identity = _identity(lw, op, 3)
    differentiable = lw.const(op.operands[7], "the differentiable inputs")
    types = [inputs[i].type for i in differentiable]
    new = lw.emit(pd.CustomOpGradOp, *_slots(inputs, 'custom op inputs'), *_slots(outputs, 'custom op outputs'),
                  *_slots(grads, 'custom op outputs'), *identity, i64_array(differentiable), *_slots(types, 'custom op inputs'))
    return [_values(new)]


def lower_host_call(lw: Lowering, op: ir.Operation) -> list[Any]:
    handle = lw.const(op.operands[1], "the host call handle")
    if lw.training:
        raise Unsupported(f"poptorch.CPU op \"{handle.rsplit('#', 1)[0]}\": CPU ops are only supported in inference "
                          "graphs; run the host function outside the training model")
    inputs = lw.list_operand(op.operands[0])
    types = _list_result_types(op, "poptorch.CPU")
    new = lw.emit(pd.HostCallOp, *_slots(inputs, 'poptorch.CPU inputs'), string(handle),
                  *_slots(types, 'poptorch.CPU outputs'))
    return [_values(new)]


def lower_ctc_beam_search_decoder(lw: Lowering, op: ir.Operation) -> list[Any]:
    probs, lengths = lw.v(op.operands[0]), lw.v(op.operands[1])
    blank, width, top = (lw.const(op.operands[i], what) for i, what in ((2, "blank"), (3, "beam_width"), (4, "top_paths")))
    new = lw.emit(pd.CtcBeamSearchDecoderOp, probs, lengths, i64(blank), i64(width), i64(top),
                  result_type(op, 0), result_type(op, 1), result_type(op, 2))
    return list(new.operation.results)


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: custom ops, host calls and the CTC decoder."""
    patterns.register(NAMESPACE + "custom_op")(lower_custom_op)
    patterns.register(NAMESPACE + "custom_op_grad")(lower_custom_op_grad)
    patterns.register(NAMESPACE + "host_call")(lower_host_call)
    patterns.register(NAMESPACE + "ctc_beam_search_decoder")(lower_ctc_beam_search_decoder)

"""Reading Torch-dialect IR from Python: op names, constant operands and tensor types.

Shared by the passes that consume the Torch dialect (``convert-torch-to-poplar`` and the
training passes). Nothing here imports torch.
"""

from __future__ import annotations

from typing import Any

from torch_mlir import ir

from ipu_mlir.support.element_types import BUILTIN_OF_TORCH_DIALECT
from ipu_mlir.support.torch_types import vtensor_shape_dtype as _parse_vtensor


class NotConstant(Exception):
    """An operand expected to be a compile-time constant is computed at run time."""


def aten_name(op: ir.Operation) -> str:
    """``torch.aten.relu`` for a registered op; the ``name`` attribute for ``torch.operator``."""
    name = op.name
    if name == "torch.operator":
        return ir.StringAttr(op.attributes["name"]).value
    return name


def is_vtensor(type_: ir.Type) -> bool:
    return _parse_vtensor(type_) is not None


def vtensor_shape_dtype(type_: ir.Type) -> tuple[list[int], str]:
    """([dims], torch dtype text) of a ``!torch.vtensor<[d0,d1],dt>``; dims -1 if dynamic."""
    parsed = _parse_vtensor(type_)
    if parsed is None:
        raise ValueError(f"not a value tensor with static rank: {type_}")
    return parsed


def builtin_element(dtype: str) -> ir.Type:
    if dtype not in BUILTIN_OF_TORCH_DIALECT:
        raise ValueError(f"element type {dtype} is not supported on the IPU Model")
    return ir.Type.parse(BUILTIN_OF_TORCH_DIALECT[dtype])


def to_builtin_tensor(type_: ir.Type) -> ir.RankedTensorType:
    """``!torch.vtensor<[2,3],f32>`` -> ``tensor<2x3xf32>``."""
    dims, dtype = vtensor_shape_dtype(type_)
    if any(d < 0 for d in dims):
        raise ValueError(f"dynamic shapes are not supported (IPU programs are static): {type_}")
    return ir.RankedTensorType.get(dims, builtin_element(dtype))


def constant_value(value: ir.Value) -> Any:
    """The Python value of a constant operand (int, float, bool, str, None or a list)."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        raise NotConstant("a function argument")
    op = owner.operation if hasattr(owner, "operation") else owner
    name = op.name
    if name in ("torch.constant.int", "torch.constant.float", "torch.constant.bool", "torch.constant.str"):
        attr = op.attributes["value"]
        if isinstance(attr, ir.BoolAttr):
            return bool(ir.BoolAttr(attr).value)
        if isinstance(attr, ir.IntegerAttr):
            value_int = ir.IntegerAttr(attr).value
            return bool(value_int) if name == "torch.constant.bool" else value_int
        if isinstance(attr, ir.FloatAttr):
            return ir.FloatAttr(attr).value
        if isinstance(attr, ir.StringAttr):
            return ir.StringAttr(attr).value
        raise NotConstant(f"unexpected constant attribute {attr}")
    if name == "torch.constant.none":
        return None
    if name == "torch.constant.device":
        return ir.StringAttr(op.attributes["value"]).value
    if name == "torch.aten.Int.bool":  # a bool passed as a Scalar (fill_(True))
        return int(constant_value(op.operands[0]))
    if name == "torch.prim.ListConstruct":
        return [constant_value(v) for v in op.operands]
    if name == "torch.aten.size.int":
        # Shapes are static: the size of a dim is known at compile time.
        dims, _ = vtensor_shape_dtype(op.operands[0].type)
        dim = constant_value(op.operands[1])
        size = dims[dim]
        if size < 0:
            raise NotConstant("the size of a dynamic dim")
        return size
    raise NotConstant(f"produced by '{name}'")


def is_none(value: ir.Value) -> bool:
    owner = value.owner
    return not isinstance(owner, ir.Block) and owner.operation.name == "torch.constant.none"

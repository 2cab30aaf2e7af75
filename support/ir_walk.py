"""Small walks over MLIR ops shared by passes and the runtime decoder."""

from __future__ import annotations

import math
from typing import Any

from torch_mlir import ir

def operands_within(op: ir.Operation) -> list[ir.Value]:
    """The operands of ``op`` and of every op nested in its regions (uses inside a loop body count)."""
    found = list(op.operands)
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                found.extend(operands_within(inner.operation))
    return found


def attr_value(attr: ir.Attribute) -> Any:
    """The Python value of an attribute: bool, int, float, str, a list of ints for a
    dense i64 array, a list for an array and a dict for a dictionary (recursively).
    Raises ValueError for any other attribute."""
    if isinstance(attr, ir.BoolAttr):
        return ir.BoolAttr(attr).value
    if isinstance(attr, ir.IntegerAttr):
        return ir.IntegerAttr(attr).value
    if isinstance(attr, ir.FloatAttr):
        return ir.FloatAttr(attr).value
    if isinstance(attr, ir.StringAttr):
        return ir.StringAttr(attr).value
    if isinstance(attr, ir.DenseI64ArrayAttr):
        return list(ir.DenseI64ArrayAttr(attr))
    if isinstance(attr, ir.ArrayAttr):
        return [attr_value(a) for a in attr]
    if isinstance(attr, ir.DictAttr):
        return {attr[i].name: attr_value(attr[i].attr) for i in range(len(attr))}
    raise ValueError(f"unexpected attribute {attr}")


def tensor_bytes(type_: ir.Type) -> int:
    """Bytes of a static ranked tensor (i1 counts one byte per element, as on the IPU)."""
    shaped = ir.RankedTensorType(type_)
    element = shaped.element_type
    width = ir.IntegerType(element).width if isinstance(element, ir.IntegerType) else {"f16": 16, "bf16": 16, "f32": 32, "f64": 64,
                                                                                       "complex<f32>": 64, "complex<f64>": 128}[str(element)]
    return math.prod(shaped.shape) * max(1, width // 8)

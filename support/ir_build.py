"""Builders for the builtin attributes and types that passes and dialect code create.

Each takes a plain Python value and returns the MLIR attribute or type. They need a
current ``ir.Context``; ``tensor_type`` also a current ``ir.Location`` (for its error).
"""

from __future__ import annotations

from collections.abc import Sequence

from torch_mlir import ir


def i64(value: int) -> ir.IntegerAttr:
    """A signless 64-bit integer attribute: ``3 : i64``."""
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))


def f64(value: float) -> ir.FloatAttr:
    """A 64-bit float attribute: ``5.000000e-01 : f64``."""
    return ir.FloatAttr.get_f64(float(value))


def boolean(value: bool) -> ir.BoolAttr:
    """A bool attribute: ``true`` / ``false``."""
    return ir.BoolAttr.get(bool(value))


def string(value: str) -> ir.StringAttr:
    """A string attribute: ``"relu"``."""
    return ir.StringAttr.get(value)


def i64_array(values: Sequence[int]) -> ir.DenseI64ArrayAttr:
    """A dense i64 array attribute: ``array<i64: 0, 2, 1>``."""
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


def tensor_type(shape: Sequence[int], element: ir.Type) -> ir.RankedTensorType:
    """A static ranked tensor type: ``tensor<2x3xf32>``."""
    return ir.RankedTensorType.get([int(d) for d in shape], element)

"""Norm and distance lowerings: ``linalg_vector_norm`` (``torch.norm``, ``F.normalize``),
``cdist`` and ``pdist`` with their gradients, from ``popops_map`` expressions,
``popops_reduce`` and (for large Euclidean ``cdist``) one ``poplin_matmul``.

The p-norm of a difference is a map (``|d|^p``) and an add reduction, then the 1/p power;
p = 1, 2, inf and 0 have their own forms, as in ATen. Euclidean ``cdist`` over many
points is the matmul form ATen (and a PopLibs program) uses:
``sqrt(max(|x|^2 - 2 x.y + |y|^2, 1e-30))``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import i64, tensor_type
from ipu_mlir.support.registry import Registry

from ...lowering import (
    Lowering,
    Pattern,
    Unsupported,
    dim_arg,
    element_of,
    is_float,
    literal,
    result_type,
    shape_of,
)
from ...torch_ir import is_none


# -- the p-norm of the last dim ----------------------------------------------------------------
def _p_norm(lw: Lowering, x: ir.Value, p: float, dims: list[int], keep: bool, out: ir.RankedTensorType) -> ir.Value:
    """The ``p``-norm of ``x`` over ``dims`` (ATen's forms for p = 0, 1, 2, inf, -inf)."""
    element = out.element_type
    x = lw.cast(x, element)
    shape = shape_of(x)
    reduced = tensor_type(list(out.shape), element)
    if not dims:  # a 0-d tensor: the norm of its one element
        return lw.cast(lw.map("ne(_1, 0.0)", [x], tensor_type(shape, ir.IntegerType.get_signless(1))), element) if p == 0 \
            else lw.map("abs(_1)", [x], out)
    if p == 2:
        return lw.map("sqrt(_1)", [lw.reduce(x, "square_add", dims, keep, 1.0, reduced)], out)
    if p == 1:
        return lw.reduce(lw.map("abs(_1)", [x], x.type), "add", dims, keep, 1.0, out)
    if math.isinf(p):
        return lw.reduce(lw.map("abs(_1)", [x], x.type), "max" if p > 0 else "min", dims, keep, 1.0, out)
    if p == 0:
        nonzero = lw.cast(lw.map("ne(_1, 0.0)", [x], tensor_type(shape, ir.IntegerType.get_signless(1))), element)
        return lw.reduce(nonzero, "add", dims, keep, 1.0, out)
    powered = lw.map(f"pow(abs(_1), {literal(float(p))})", [x], x.type)
    return lw.map(f"pow(_1, {literal(1.0 / p)})", [lw.reduce(powered, "add", dims, keep, 1.0, reduced)], out)


def lower_vector_norm(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``linalg_vector_norm(self, ord, dim, keepdim, *, dtype)``."""
    out = result_type(op)
    x = lw.v(op.operands[0])
    if not is_float(element_of(x)) or not is_float(out.element_type):
        raise Unsupported(f"vector norm of {element_of(x)} elements (floating-point tensors only)")
    p, dims, keep = _norm_arguments(lw, op, len(shape_of(x)))
    if isinstance(out.element_type, ir.F16Type | ir.BF16Type):  # ATen accumulates half-precision norms in f32
        wide = tensor_type(list(out.shape), ir.F32Type.get())
        x = lw.cast(lw.cast(x, out.element_type), wide.element_type)
        return [lw.cast(_p_norm(lw, x, p, dims, keep, wide), out.element_type)]
    return [_p_norm(lw, x, p, dims, keep, out)]


def _norm_arguments(lw: Lowering, op: ir.Operation, rank: int) -> tuple[float, list[int], bool]:
    """(ord, dims, keepdim) of ``linalg_vector_norm``; no dims (or an empty list) is every dim."""
    p = float(lw.const(op.operands[1], "ord"))
    dims = lw.const(op.operands[2], "dim") if len(op.operands) > 2 and not is_none(op.operands[2]) else None
    dims = sorted({dim_arg(d, rank) for d in dims}) if dims and rank else list(range(rank))  # a 0-d tensor's dim 0 is itself
    keep = bool(lw.const(op.operands[3], "keepdim")) if len(op.operands) > 3 else False
    return p, dims, keep


# -- cdist ------------------------------------------------------------------------------------
def _pair_differences(lw: Lowering, x1: ir.Value, x2: ir.Value, element: ir.Type) -> ir.Value:
    """``x1[..., i, None, :] - x2[..., None, j, :]``: ``[*, P, R, M]``."""
    s1, s2 = shape_of(x1), shape_of(x2)
    batch = s1[:-2]
    a = lw.reshape(x1, [*batch, s1[-2], 1, s1[-1]])
    b = lw.reshape(x2, [*s2[:-2], 1, s2[-2], s2[-1]])
    return lw.map("sub(_1, _2)", [a, b], tensor_type([*batch, s1[-2], s2[-2], s1[-1]], element))


def _use_matmul(p: float, mode: int | None, rows1: int, rows2: int) -> bool:
    """ATen's choice (``cdist_impl``): Euclidean distances by matmul when asked (mode 1) or,
    by default, when either side has more than 25 points; never with mode 2."""
    mode = 0 if mode is None else mode
    return p == 2 and (mode == 1 or (mode == 0 and (rows1 > 25 or rows2 > 25)))


def _euclidean_by_matmul(lw: Lowering, x1: ir.Value, x2: ir.Value, out: ir.RankedTensorType) -> ir.Value:
    """ATen's ``_euclidean_dist``: [-2 x1, |x1|^2, 1] . [x2, 1, |x2|^2]^T, clamped at 1e-30, sqrt."""
    element = out.element_type
    parts = []
    for x, first in ((x1, True), (x2, False)):
        shape = shape_of(x)
        column = tensor_type([*shape[:-1], 1], element)
        norm = lw.reduce(lw.map("mul(_1, _1)", [x], x.type), "add", [len(shape) - 1], True, 1.0, column)
        ones = lw.zeros_or_ones(1.0, [*shape[:-1], 1], element)
        scaled = lw.map("mul(_1, -2.0)", [x], x.type) if first else x
        parts.append(lw.concat([scaled, norm, ones] if first else [scaled, ones, norm], len(shape) - 1))
    squared = lw.matmul(parts[0], lw.transpose_last(parts[1]), out)
    return lw.map("sqrt(max(_1, 1e-30))", [squared], out)


def lower_cdist(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_cdist_forward(x1, x2, p, compute_mode)``: ``[*, P, M] x [*, R, M] -> [*, P, R]``."""
    out = result_type(op)
    x1, x2 = (lw.cast(lw.v(op.operands[i]), out.element_type) for i in range(2))
    p = float(lw.const(op.operands[2], "p"))
    if p < 0:
        raise Unsupported(f"cdist with p = {p} (p must be >= 0, as in PyTorch)")
    mode = lw.const(op.operands[3], "compute_mode") if len(op.operands) > 3 else None
    if _use_matmul(p, mode, shape_of(x1)[-2], shape_of(x2)[-2]):
        return [_euclidean_by_matmul(lw, x1, x2, out)]
    diff = _pair_differences(lw, x1, x2, out.element_type)
    return [_p_norm(lw, diff, p, [len(shape_of(diff)) - 1], False, out)]


def lower_euclidean_dist(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x1, x2 = (lw.cast(lw.v(op.operands[i]), out.element_type) for i in range(2))
    return [_euclidean_by_matmul(lw, x1, x2, out)]


def _distance_grad_terms(lw: Lowering, diff: ir.Value, grad: ir.Value, dist: ir.Value, p: float) -> ir.Value:
    """The gradient of each pair's distance with respect to the first point, times the pair's
    output gradient: ATen's ``cdist_backward`` / ``pdist_backward`` element formulas.
    ``grad`` and ``dist`` broadcast against ``diff`` (their last dim has size 1)."""
    if p == 0:
        return lw.zeros_or_ones(0.0, shape_of(diff), element_of(diff))
    if p == 1:
        return lw.map("mul(sign(_1), _2)", [diff, grad], diff.type)
    if p == 2:
        return lw.map("select(eq(_3, 0.0), 0.0, div(mul(_2, _1), _3))", [diff, grad, dist], diff.type)
    if math.isinf(p):
        return lw.map("select(eq(abs(_1), _3), mul(sign(_1), _2), 0.0)", [diff, grad, dist], diff.type)
    q = literal(float(p - 1))
    if p < 2:
        zero = "or(eq(_3, 0.0), eq(_1, 0.0))" if p < 1 else "eq(_3, 0.0)"
        expr = f"select({zero}, 0.0, div(mul(mul(sign(_1), pow(abs(_1), {q})), _2), pow(_3, {q})))"
    else:
        expr = f"select(eq(_3, 0.0), 0.0, div(mul(mul(_1, pow(abs(_1), {literal(float(p - 2))})), _2), pow(_3, {q})))"
    return lw.map(expr, [diff, grad, dist], diff.type)


def lower_cdist_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_cdist_backward(grad, x1, x2, p, cdist)``: the gradient for ``x1``, summed over the
    points of ``x2``."""
    out = result_type(op)
    element = out.element_type
    grad, x1, x2, dist = (lw.cast(lw.v(op.operands[i]), element) for i in (0, 1, 2, 4))
    p = float(lw.const(op.operands[3], "p"))
    diff = _pair_differences(lw, x1, x2, element)
    column = [*shape_of(grad), 1]
    terms = _distance_grad_terms(lw, diff, lw.reshape(grad, column), lw.reshape(dist, column), p)
    rank = len(shape_of(diff))
    return [lw.reduce(terms, "add", [rank - 2], False, 1.0, out)]


# -- pdist ------------------------------------------------------------------------------------
def _pairs(n: int) -> tuple[list[int], list[int]]:
    """The (i, j) rows of each ``pdist`` entry: i < j, in row-major order."""
    firsts, seconds = np.triu_indices(n, k=1)
    return firsts.tolist(), seconds.tolist()


def _row_indices(lw: Lowering, rows: list[int]) -> ir.Value:
    type_ = tensor_type([len(rows)], ir.IntegerType.get_signless(64))
    return lw.emit(pd.ConstantOp, ir.DenseElementsAttr.get(np.array(rows, dtype=np.int64), type=type_), i64(0), type_)


def _pair_rows(lw: Lowering, x: ir.Value) -> tuple[ir.Value, list[int], list[int]]:
    """``x[i] - x[j]`` for every pair (``popops_multi_slice`` of the rows): ``[K, M]``."""
    n, m = shape_of(x)
    firsts, seconds = _pairs(n)
    rows = tensor_type([len(firsts), m], element_of(x))
    a = lw.emit(pd.MultiSliceOp, x, _row_indices(lw, firsts), i64(0), rows)
    b = lw.emit(pd.MultiSliceOp, x, _row_indices(lw, seconds), i64(0), rows)
    return lw.map("sub(_1, _2)", [a, b], rows), firsts, seconds


def lower_pdist(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_pdist_forward(self, p)``: ``[N, M] -> [N (N - 1) / 2]``."""
    out = result_type(op)
    x = lw.cast(lw.v(op.operands[0]), out.element_type)
    p = float(lw.const(op.operands[1], "p"))
    if p < 0:
        raise Unsupported(f"pdist with p = {p} (p must be >= 0, as in PyTorch)")
    if shape_of(x)[0] < 2:
        return [lw.zeros_or_ones(0.0, list(out.shape), out.element_type)]
    diff, _, _ = _pair_rows(lw, x)
    return [_p_norm(lw, diff, p, [1], False, out)]


def lower_pdist_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_pdist_backward(grad, self, p, pdist)``: each pair's term is added to its first row
    and subtracted from its second (one ``popops_multi_update_add``)."""
    out = result_type(op)
    element = out.element_type
    grad, x, dist = (lw.cast(lw.v(op.operands[i]), element) for i in (0, 1, 3))
    p = float(lw.const(op.operands[2], "p"))
    n, m = shape_of(x)
    if n < 2:
        return [lw.zeros_or_ones(0.0, [n, m], element)]
    diff, firsts, seconds = _pair_rows(lw, x)
    count = len(firsts)
    terms = _distance_grad_terms(lw, diff, lw.reshape(grad, [count, 1]), lw.reshape(dist, [count, 1]), p)
    both = lw.concat([terms, lw.map("neg(_1)", [terms], terms.type)], 0)
    return [lw.emit(pd.MultiUpdateAddOp, both, _row_indices(lw, firsts + seconds), i64(-1), out)]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: vector norms and point distances."""
    patterns.register("torch.aten.linalg_vector_norm")(lower_vector_norm)
    patterns.register("torch.aten._cdist_forward")(lower_cdist)
    patterns.register("torch.aten._euclidean_dist")(lower_euclidean_dist)
    patterns.register("torch.aten._cdist_backward")(lower_cdist_grad)
    patterns.register("torch.aten._pdist_forward")(lower_pdist)
    patterns.register("torch.aten._pdist_backward")(lower_pdist_grad)

"""Padding lowerings: reflection, replication (edge) and circular padding, and the
gradients of reflection and replication padding.

``popops::pad`` with ``padding::Type::REFLECT`` or ``EDGE`` is a view: the padded tensor
concatenates slices of the input (reversed for a reflection, the edge element broadcast
for replication), and so is this lowering, one padded dim at a time. A gradient adds the
slices of the incoming gradient that came from each input element back onto it.
``aten.pad`` (``F.pad`` kept whole by the frontend) takes every mode here, ``constant``
included, so that all of ``F.pad`` is lowered in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import f64, i64_array, tensor_type
from ipu_mlir.support.registry import Registry

from ...lowering import Lowering, Pattern, Unsupported, element_of, result_type, shape_of


def slice_dim(lw: Lowering, x: ir.Value, dim: int, begin: int, end: int) -> ir.Value:
    """``x[begin:end]`` along ``dim`` (a view)."""
    shape = shape_of(x)
    if begin == 0 and end == shape[dim]:
        return x
    starts, stops = [0] * len(shape), list(shape)
    starts[dim], stops[dim] = begin, end
    out = list(shape)
    out[dim] = end - begin
    return lw.emit(pd.SliceOp, x, i64_array(starts), i64_array(stops), i64_array([1] * len(shape)), tensor_type(out, element_of(x)))


def reversed_slice(lw: Lowering, x: ir.Value, dim: int, begin: int, end: int) -> ir.Value:
    """``x[begin:end]`` along ``dim`` in reverse order: a concatenation of its single
    elements (``Tensor::reverse``, a view)."""
    return lw.concat([slice_dim(lw, x, dim, i, i + 1) for i in reversed(range(begin, end))], dim)


def _pad_dim(lw: Lowering, x: ir.Value, dim: int, low: int, high: int, mode: str) -> ir.Value:
    """``x`` padded by ``low`` / ``high`` elements along ``dim`` in ``mode``."""
    if low == 0 and high == 0:
        return x
    n = shape_of(x)[dim]
    if mode == "reflect":
        if low >= n or high >= n:
            raise Unsupported(f"reflection padding ({low}, {high}) of a dim of size {n}: each pad must be smaller than the dim")
        left = reversed_slice(lw, x, dim, 1, low + 1) if low else None
        right = reversed_slice(lw, x, dim, n - 1 - high, n - 1) if high else None
    elif mode == "replicate":
        if n == 0:
            raise Unsupported("replication padding of an empty dim")
        left = _repeat(lw, slice_dim(lw, x, dim, 0, 1), dim, low) if low else None
        right = _repeat(lw, slice_dim(lw, x, dim, n - 1, n), dim, high) if high else None
    else:  # circular
        if low > n or high > n:
            raise Unsupported(f"circular padding ({low}, {high}) of a dim of size {n}: each pad must be at most the dim")
        left = slice_dim(lw, x, dim, n - low, n) if low else None
        right = slice_dim(lw, x, dim, 0, high) if high else None
    return lw.concat([p for p in (left, x, right) if p is not None], dim)


def _repeat(lw: Lowering, edge: ir.Value, dim: int, count: int) -> ir.Value:
    shape = shape_of(edge)
    shape[dim] = count
    return lw.broadcast(edge, shape)


def _pairs(pads: list[int], rank: int, what: str) -> list[tuple[int, int, int]]:
    """(dim, low, high) of a torch padding list (last dim first)."""
    if len(pads) % 2 or len(pads) // 2 > rank:
        raise Unsupported(f"{what} padding {pads} must hold a (low, high) pair for each of at most {rank} dims")
    if any(p < 0 for p in pads) and what != "replicate":
        raise Unsupported(f"negative {what} padding {pads} (cropping); slice the tensor instead")
    return [(rank - 1 - i, pads[2 * i], pads[2 * i + 1]) for i in range(len(pads) // 2)]


def _replicate_runs(n: int, low: int, high: int) -> tuple[int, tuple[int, int], int]:
    """A replicate pad with a negative side (a crop): ATen's output element ``i`` copies
    input ``clamp(i - low, 0, n - 1)``, which is ``a`` copies of element 0, the input
    slice ``[begin, end)`` and ``c`` copies of element ``n - 1``; returns ``(a, (begin,
    end), c)``."""
    if n == 0:
        raise Unsupported("replication padding of an empty dim")
    m = n + low + high
    a = min(max(low, 0), m)
    first, last = max(low, 0), max(min(low + n, m), max(low, 0))
    c = m - max(last, a)
    return a, (first - low, last - low), c


def _replicate_cropping(lw: Lowering, x: ir.Value, dim: int, low: int, high: int) -> ir.Value:
    n = shape_of(x)[dim]
    a, (begin, end), c = _replicate_runs(n, low, high)
    pieces = [_repeat(lw, slice_dim(lw, x, dim, 0, 1), dim, a) if a else None,
              slice_dim(lw, x, dim, begin, end) if end > begin else None,
              _repeat(lw, slice_dim(lw, x, dim, n - 1, n), dim, c) if c else None]
    pieces = [p for p in pieces if p is not None]
    if not pieces:  # an empty result
        shape = shape_of(x)
        shape[dim] = 0
        return lw.zeros_or_ones(0, shape, element_of(x))
    return lw.concat(pieces, dim)


def _replicate_cropping_grad(lw: Lowering, g: ir.Value, dim: int, low: int, high: int, n: int) -> ir.Value:
    """The gradient of ``_replicate_cropping``: each run's gradient where it came from."""
    a, (begin, end), c = _replicate_runs(n, low, high)
    m = shape_of(g)[dim]
    terms = []
    if a:
        terms.append(_place(lw, _sum_dim(lw, slice_dim(lw, g, dim, 0, a), dim), dim, 0, n - 1))
    if end > begin:
        terms.append(_place(lw, slice_dim(lw, g, dim, a, a + end - begin), dim, begin, n - end))
    if c:
        terms.append(_place(lw, _sum_dim(lw, slice_dim(lw, g, dim, m - c, m), dim), dim, n - 1, 0))
    if not terms:
        shape = shape_of(g)
        shape[dim] = n
        return lw.zeros_or_ones(0, shape, element_of(g))
    total = terms[0]
    for term in terms[1:]:
        total = lw.map("add(_1, _2)", [total, term], total.type)
    return total


def pad(lw: Lowering, x: ir.Value, pads: list[int], mode: str) -> ir.Value:
    """``F.pad(x, pads, mode)`` for the modes reflect, replicate and circular (replicate
    also with negative pads, which crop)."""
    for dim, low, high in _pairs(pads, len(shape_of(x)), mode):
        if low < 0 or high < 0:
            x = _replicate_cropping(lw, x, dim, low, high)
        else:
            x = _pad_dim(lw, x, dim, low, high, mode)
    return x


def _pad_grad_dim(lw: Lowering, g: ir.Value, dim: int, low: int, high: int, mode: str) -> ir.Value:
    """The gradient of ``_pad_dim``: ``g`` has the padded size along ``dim``."""
    if low == 0 and high == 0:
        return g
    n = shape_of(g)[dim] - low - high
    center = slice_dim(lw, g, dim, low, low + n)
    if mode == "reflect":
        # Padded element low - j (j = 1..low) copies input element j; padded element
        # low + n + t (t = 0..high-1) copies input element n - 2 - t.
        left = (reversed_slice(lw, g, dim, 0, low), 1, n - 1 - low) if low else None
        right = (reversed_slice(lw, g, dim, low + n, low + n + high), n - 1 - high, 1) if high else None
    else:  # replicate: every padded element copies the edge element
        left = (_sum_dim(lw, slice_dim(lw, g, dim, 0, low), dim), 0, n - 1) if low else None
        right = (_sum_dim(lw, slice_dim(lw, g, dim, low + n, low + n + high), dim), n - 1, 0) if high else None
    terms = [center]
    for part in (left, right):
        if part is not None:
            value, before, after = part
            terms.append(_place(lw, value, dim, before, after))
    expr = {2: "add(_1, _2)", 3: "add(add(_1, _2), _3)"}[len(terms)]
    return lw.map(expr, terms, center.type)


def _sum_dim(lw: Lowering, x: ir.Value, dim: int) -> ir.Value:
    shape = shape_of(x)
    if shape[dim] == 1:
        return x
    shape[dim] = 1
    return lw.reduce(x, "add", [dim], True, 1.0, tensor_type(shape, element_of(x)))


def _place(lw: Lowering, x: ir.Value, dim: int, before: int, after: int) -> ir.Value:
    """``x`` with ``before`` / ``after`` zeros along ``dim`` (``popops::pad``)."""
    if before == 0 and after == 0:
        return x
    rank = len(shape_of(x))
    low, high = [0] * rank, [0] * rank
    low[dim], high[dim] = before, after
    shape = shape_of(x)
    shape[dim] += before + after
    return lw.emit(pd.PadOp, x, i64_array(low), i64_array(high), f64(0.0), tensor_type(shape, element_of(x)))


def pad_grad(lw: Lowering, g: ir.Value, pads: list[int], mode: str, input_shape: list[int]) -> ir.Value:
    for dim, low, high in _pairs(pads, len(shape_of(g)), mode):
        if low < 0 or high < 0:
            g = _replicate_cropping_grad(lw, g, dim, low, high, input_shape[dim])
        else:
            g = _pad_grad_dim(lw, g, dim, low, high, mode)
    return g


def _checked(lw: Lowering, op: ir.Operation, value: ir.Value) -> list[Any]:
    out = result_type(op)
    if shape_of(value) != list(out.shape):
        raise Unsupported(f"padding gives shape {shape_of(value)}, but the op's result is {list(out.shape)}")
    return [value]


def _mode_pad(mode: str) -> Callable[[Lowering, ir.Operation], list[Any]]:
    def lower(lw: Lowering, op: ir.Operation) -> list[Any]:
        """``reflection_pad{1,2,3}d`` / ``replication_pad{1,2,3}d(self, padding)``."""
        return _checked(lw, op, pad(lw, lw.v(op.operands[0]), lw.const(op.operands[1], "padding"), mode))

    return lower


def _mode_pad_grad(mode: str) -> Callable[[Lowering, ir.Operation], list[Any]]:
    def lower(lw: Lowering, op: ir.Operation) -> list[Any]:
        """``reflection_pad{1,2,3}d_backward`` / ``replication_pad{1,2,3}d_backward(grad_output, self, padding)``."""
        x = lw.v(op.operands[1])
        return _checked(lw, op, pad_grad(lw, lw.v(op.operands[0]), lw.const(op.operands[2], "padding"), mode, shape_of(x)))

    return lower


def lower_pad(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``aten.pad(self, pad, mode="constant", value=None)``: every mode of ``F.pad``."""
    x = lw.v(op.operands[0])
    pads = lw.const(op.operands[1], "padding")
    mode = lw.const(op.operands[2], "pad mode")
    if mode in ("reflect", "replicate", "circular"):
        return _checked(lw, op, pad(lw, x, pads, mode))
    if mode != "constant":
        raise Unsupported(f"pad mode '{mode}' (F.pad takes 'constant', 'reflect', 'replicate' and 'circular')")
    value = lw.const(op.operands[3], "pad value") if len(op.operands) > 3 else None
    rank = len(shape_of(x))
    low, high = [0] * rank, [0] * rank
    for dim, lo, hi in _pairs(pads, rank, "constant"):
        low[dim], high[dim] = lo, hi
    return [lw.emit(pd.PadOp, x, i64_array(low), i64_array(high), f64(value or 0.0), result_type(op))]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: F.pad, reflection and replication padding and their gradients."""
    patterns.register("torch.aten.pad")(lower_pad)
    for mode, name in (("reflect", "reflection"), ("replicate", "replication")):
        patterns.register(*(f"torch.aten.{name}_pad{n}d" for n in (1, 2, 3)))(_mode_pad(mode))
        patterns.register(*(f"torch.aten.{name}_pad{n}d_backward" for n in (1, 2, 3)))(_mode_pad_grad(mode))


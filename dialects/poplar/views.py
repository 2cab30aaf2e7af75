"""Tensor views of the ``poplar`` dialect (methods of ``poplar::Tensor``): reshape,
dim_shuffle, slice, concat, broadcast and reverse make new names for existing elements, with no
compute and no copy; ``POPLAR_VIEWS`` names them for the passes.
"""

import math

from torch_mlir import ir
from torch_mlir.dialects import ext

from .._base import I64ArrayAttr, Rules
from .base import PoplarOp, Tensor, TensorResult, broadcast_shapes, check_dim, element_of, shape_of


class _ShapeViewOp(PoplarOp):
    """A view of ``input`` in the result's shape, with the same element type."""

    input: Tensor
    result: TensorResult

    def check(self, v: Rules) -> None:
        self.check_shapes(v, shape_of(self.input, "input"), shape_of(self.result, "result"))
        v.require(element_of(self.input) == element_of(self.result), "element type must not change")

    def check_shapes(self, v: Rules, input_shape: list[int], result_shape: list[int]) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class ReshapeOp(_ShapeViewOp, name="reshape", traits=[ext.Pure]):
    """``Tensor::reshape``: same elements, new shape.

    Example:
      %r = "poplar.reshape"(%a) : (tensor<2x3xf32>) -> tensor<6xf32>
    """

    def check_shapes(self, v: Rules, a: list[int], r: list[int]) -> None:
        v.require(math.prod(a) == math.prod(r), f"cannot reshape {a} ({math.prod(a)} elements) to {r} ({math.prod(r)} elements)")


class DimShuffleOp(PoplarOp, name="dim_shuffle", traits=[ext.Pure]):
    """``Tensor::dimShuffle``: result dim i is input dim ``permutation[i]``.

    Example:
      %t = "poplar.dim_shuffle"(%a) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    """

    input: Tensor
    permutation: I64ArrayAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = shape_of(self.input, "input")
        perm = v.i64_array("permutation", size=len(shape))
        v.require(sorted(perm) == list(range(len(shape))), f"attribute 'permutation' {perm} is not a permutation of 0..{len(shape) - 1}")
        expected = [shape[p] for p in perm]
        v.require(shape_of(self.result, "result") == expected, f"result shape must be {expected}, got {shape_of(self.result, 'result')}")


class SliceOp(PoplarOp, name="slice", traits=[ext.Pure]):
    """``Tensor::slice`` with a stride (``subSample``): per dim, elements
    ``begin, begin + stride, ...`` below ``end``.

    Example:
      %s = "poplar.slice"(%a) {begin = array<i64: 0, 1>, end = array<i64: 2, 3>, stride = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
    """

    input: Tensor
    begin: I64ArrayAttr
    end: I64ArrayAttr
    stride: I64ArrayAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = shape_of(self.input, "input")
        begin = v.i64_array("begin", size=len(shape), min=0)
        end = v.i64_array("end", size=len(shape), min=0)
        stride = v.i64_array("stride", size=len(shape), min=1)
        for d, (b, e, s) in enumerate(zip(begin, end, shape, strict=True)):
            v.require(b <= e <= s, f"dim {d}: need 0 <= begin ({b}) <= end ({e}) <= size ({s})")
        expected = [-(-(e - b) // st) for b, e, st in zip(begin, end, stride, strict=True)]
        v.require(shape_of(self.result, "result") == expected, f"result shape must be {expected}, got {shape_of(self.result, 'result')}")


class ConcatOp(PoplarOp, name="concat", traits=[ext.Pure]):
    """``poplar::concat`` of two tensors along ``dim`` (longer lists chain: views are free).

    Example:
      %c = "poplar.concat"(%a, %b) {dim = 0 : i64} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
    """

    lhs: Tensor
    rhs: Tensor
    dim: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        a, b = shape_of(self.lhs, "lhs"), shape_of(self.rhs, "rhs")
        dim = v.int("dim", min=0)
        v.require(len(a) >= 1, "cannot concatenate rank-0 tensors")
        check_dim(v, dim, len(a))
        same = len(a) == len(b) and all(x == y for d, (x, y) in enumerate(zip(a, b, strict=True)) if d != dim)
        v.require(same, f"operand shapes {a} and {b} differ outside dim {dim}")
        v.require(element_of(self.lhs) == element_of(self.rhs) == element_of(self.result), "operands and result must share one element type")
        expected = list(a)
        expected[dim] = a[dim] + b[dim]
        v.require(shape_of(self.result, "result") == expected, f"result shape must be {expected}, got {shape_of(self.result, 'result')}")


class BroadcastOp(_ShapeViewOp, name="broadcast", traits=[ext.Pure]):
    """Broadcasts ``input`` to the result shape (NumPy rules; ``Tensor::broadcast``/``expand``).

    Example:
      %b = "poplar.broadcast"(%a) : (tensor<1x3xf32>) -> tensor<4x3xf32>
    """

    def check_shapes(self, v: Rules, a: list[int], r: list[int]) -> None:
        v.require(broadcast_shapes([a, r]) == r and len(a) <= len(r), f"cannot broadcast {a} to {r}")


class ReverseOp(PoplarOp, name="reverse", traits=[ext.Pure]):
    """``Tensor::reverse`` along each of ``dims``: element ``i`` of a reversed dim of size
    ``n`` is input element ``n - 1 - i`` (``torch.flip``).

    Example:
      %r = "poplar.reverse"(%a) {dims = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    """

    input: Tensor
    dims: I64ArrayAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = shape_of(self.input, "input")
        dims = v.i64_array("dims", min=0)
        v.require(len(set(dims)) == len(dims), f"attribute 'dims' has duplicates: {dims}")
        v.require(all(d < len(shape) for d in dims), f"attribute 'dims' {dims} out of range for rank {len(shape)}")
        v.require(self.result.type == self.input.type, f"result type {self.result.type} must be the input type {self.input.type}")


# The one list of view ops: they alias their inputs, take no memory of their own and
# cost nothing to recompute. Passes that treat views specially derive from it.
POPLAR_VIEWS: tuple[str, ...] = tuple(op.OPERATION_NAME for op in (ReshapeOp, DimShuffleOp, SliceOp, ConcatOp, BroadcastOp, ReverseOp))

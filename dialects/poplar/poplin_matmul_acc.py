"""``poplin::matMulAcc`` of the ``poplar`` dialect: a matrix product added to a tensor in
one pass (``addmm``, ``addmv``, ``baddbmm``, ``addbmm``)."""

from torch_mlir import ir
from torch_mlir.dialects import ext

from .._base import Rules
from .base import PoplarOp, Tensor, TensorResult, broadcast_shapes, element_of, shape_of


class MatMulAccOp(PoplarOp, name="poplin_matmul_acc", traits=[ext.Pure]):
    """``beta * acc + alpha * (lhs @ rhs)`` (``poplin::matMulAcc``, which adds the scaled
    product into its accumulator as the product is formed; a ``beta`` other than 1 scales
    the accumulator first).

    Semantics: ``lhs @ rhs`` is ``[m, k] x [k, n]``, ``[b, m, k] x [b, k, n]`` (grouped) or
    ``[m, k] x [k]`` (a matrix-vector product); ``acc`` broadcasts to the product's shape.
    With ``beta`` 0 the accumulator is not read (its NaNs do not propagate), as BLAS does.
    All operands and the result share one element type.

    Example:
      %r = "poplar.poplin_matmul_acc"(%c, %a, %b) {alpha = 2.0 : f64, beta = 5.0e-01 : f64}
             : (tensor<3x5xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
    """

    acc: Tensor
    lhs: Tensor
    rhs: Tensor
    alpha: ir.FloatAttr
    beta: ir.FloatAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        v.float("alpha")
        v.float("beta")
        a, b = shape_of(self.lhs, "lhs"), shape_of(self.rhs, "rhs")
        if len(a) == 2 and len(b) == 1:
            v.require(a[1] == b[0], f"contracting dims differ: lhs {a} and rhs {b}")
            product = a[:1]
        else:
            v.require(len(a) == len(b) and len(a) in (2, 3),
                      f"operands must be rank 2 x 2, 3 x 3 or 2 x 1, got ranks {len(a)} and {len(b)}")
            v.require(a[-1] == b[-2], f"contracting dims differ: lhs {a} and rhs {b}")
            v.require(a[:-2] == b[:-2], f"group dims differ: lhs {a} and rhs {b}")
            product = a[:-1] + [b[-1]]
        v.require(shape_of(self.result, "result") == product, f"result shape must be {product}, got {shape_of(self.result, 'result')}")
        acc = shape_of(self.acc, "acc")
        v.require(len(acc) <= len(product) and broadcast_shapes([acc, product]) == product,
                  f"acc shape {acc} must broadcast to the product's shape {product}")
        types = {str(element_of(value)) for value in (self.acc, self.lhs, self.rhs, self.result)}
        v.require(len(types) == 1, f"operands and result must share one element type, got {', '.join(sorted(types))}")

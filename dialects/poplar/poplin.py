"""``poplin`` ops of the ``poplar`` dialect: matrix products, the linear layer, and
convolution with its gradients.
"""

from collections.abc import Sequence

from torch_mlir import ir
from torch_mlir.dialects import ext

from .._base import I64ArrayAttr, Rules
from .base import PoplarOp, Tensor, TensorResult, element_of, shape_of


class MatMulOp(PoplarOp, name="poplin_matmul", traits=[ext.Pure]):
    """Matrix product (``poplin::matMul``; rank 3 operands are ``matMulGrouped``).

    Semantics: ``[.., m, k] x [.., k, n] -> [.., m, n]`` with the leading (group) dims
    equal; both operands rank 2 or both rank 3.

    Example:
      %c = "poplar.poplin_matmul"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    """

    lhs: Tensor
    rhs: Tensor
    result: TensorResult

    def check(self, v: Rules) -> None:
        a, b = shape_of(self.lhs, "lhs"), shape_of(self.rhs, "rhs")
        v.require(len(a) == len(b) and len(a) in (2, 3), f"operands must both be rank 2 or both rank 3, got ranks {len(a)} and {len(b)}")
        v.require(a[-1] == b[-2], f"contracting dims differ: lhs {a} and rhs {b}")
        v.require(a[:-2] == b[:-2], f"group dims differ: lhs {a} and rhs {b}")
        expected = a[:-1] + [b[-1]]
        v.require(shape_of(self.result, "result") == expected, f"result shape must be {expected}, got {shape_of(self.result, 'result')}")


class LinearOp(PoplarOp, name="poplin_linear", traits=[ext.Pure]):
    """A linear layer: ``input · weightsᵀ + bias``. Poplar runs it as ``poplin::matMul``
    of the input by the transposed weights, then ``popops::addInPlace`` of the bias.

    Semantics: ``input`` ``[m, k]``, ``weights`` ``[n, k]`` (PyTorch's out x in layout),
    ``bias`` ``[n]`` broadcast over the rows; the result is ``[m, n]``. All four share
    one element type. ``poplar-fuse-linear`` forms it from ``popops_add(poplin_matmul(x,
    dim_shuffle(w)), b)``.

    Example:
      %y = "poplar.poplin_linear"(%x, %w, %b) : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    """

    input: Tensor
    weights: Tensor
    bias: Tensor
    result: TensorResult

    def check(self, v: Rules) -> None:
        x, w, b = shape_of(self.input, "input"), shape_of(self.weights, "weights"), shape_of(self.bias, "bias")
        v.require(len(x) == 2 and len(w) == 2, f"input and weights must be rank 2, got ranks {len(x)} and {len(w)}")
        v.require(x[1] == w[1], f"input {x} and weights {w} must share the contracting (last) dim")
        v.require(b == [w[0]], f"bias shape must be [{w[0]}] (the weights' rows), got {b}")
        expected = [x[0], w[0]]
        v.require(shape_of(self.result, "result") == expected, f"result shape must be {expected}, got {shape_of(self.result, 'result')}")
        types = {str(element_of(value)) for value in (self.input, self.weights, self.bias, self.result)}
        v.require(len(types) == 1, f"input, weights, bias and result must share one element type, got {', '.join(sorted(types))}")


def _check_conv_window(v: Rules, x: list[int], w: list[int]) -> list[int]:
    """Check ``stride``, ``padding`` and ``dilation`` (one entry per spatial dim of the input
    shape ``x``); returns the output shape ``[N, O, *out]`` of the convolution with weights ``w``."""
    spatial = len(x) - 2
    stride = v.i64_array("stride", size=spatial, min=1)
    padding = v.i64_array("padding", size=spatial, min=0)
    dilation = v.i64_array("dilation", size=spatial, min=1)
    return [x[0], w[0]] + [
        (x[2 + i] + 2 * padding[i] - dilation[i] * (w[2 + i] - 1) - 1) // stride[i] + 1 for i in range(spatial)
    ]


class ConvOp(PoplarOp, name="poplin_conv", traits=[ext.Pure]):
    """N-d convolution (``poplin::convolution``) with an optional bias (``poplin::addBias``).

    Semantics: input ``[N, C, *spatial]``, weights ``[O, C / groups, *kernel]``, bias
    ``[O]`` (zero or one operand); ``stride``, ``dilation`` (>= 1) and ``padding``
    (>= 0, same low and high) have one entry per spatial dim.

    Example:
      %y = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
             dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>}
             : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    """

    input: Tensor
    weights: Tensor
    bias: Sequence[Tensor]
    stride: I64ArrayAttr
    padding: I64ArrayAttr
    dilation: I64ArrayAttr
    groups: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        x, w = shape_of(self.input, "input"), shape_of(self.weights, "weights")
        v.require(len(x) >= 3 and len(x) == len(w), f"input and weights must have the same rank >= 3, got {len(x)} and {len(w)}")
        expected = _check_conv_window(v, x, w)
        groups = v.int("groups", min=1)
        v.require(x[1] % groups == 0 and w[0] % groups == 0, f"channels ({x[1]} in, {w[0]} out) must be divisible by groups ({groups})")
        v.require(w[1] * groups == x[1], f"weights expect {w[1] * groups} input channels, input has {x[1]}")
        bias = list(self.bias)
        v.require(len(bias) <= 1, f"expects at most one bias, got {len(bias)}")
        if bias:
            v.require(shape_of(bias[0], "bias") == [w[0]], f"bias shape must be [{w[0]}], got {shape_of(bias[0], 'bias')}")
        v.require(shape_of(self.result, "result") == expected, f"result shape must be {expected}, got {shape_of(self.result, 'result')}")


class ConvGradOp(PoplarOp, name="poplin_conv_grad", traits=[ext.Pure]):
    """Gradients of ``poplin_conv`` (``poplin::calculateWeightDeltas`` and the input
    gradient convolution).

    Semantics: from the output gradient ``grad``, the forward ``input`` and ``weights``
    (and the forward's stride / padding / dilation / groups): ``grad_input`` (shape of
    input), ``grad_weights`` (shape of weights) and ``grad_bias`` (``[O]``); each result
    group holds zero or one value, as the program needs it.

    Example:
      %gi, %gw, %gb = "poplar.poplin_conv_grad"(%g, %x, %w) {stride = array<i64: 1, 1>,
             padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64,
             resultSegmentSizes = array<i32: 1, 1, 1>}
             : (tensor<1x4x8x8xf32>, tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>)
             -> (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
    """

    grad: Tensor
    input: Tensor
    weights: Tensor
    stride: I64ArrayAttr
    padding: I64ArrayAttr
    dilation: I64ArrayAttr
    groups: ir.IntegerAttr
    grad_input: Sequence[TensorResult]
    grad_weights: Sequence[TensorResult]
    grad_bias: Sequence[TensorResult]

    def check(self, v: Rules) -> None:
        x, w, g = shape_of(self.input, "input"), shape_of(self.weights, "weights"), shape_of(self.grad, "grad")
        v.require(len(x) >= 3 and len(x) == len(w) == len(g), f"grad, input and weights must have the same rank >= 3, got {len(g)}, {len(x)} and {len(w)}")
        expected = _check_conv_window(v, x, w)
        v.int("groups", min=1)
        v.require(g == expected, f"grad shape must be the forward output shape {expected}, got {g}")
        for what, values, shape in (("grad_input", self.grad_input, x), ("grad_weights", self.grad_weights, w), ("grad_bias", self.grad_bias, [w[0]])):
            values = list(values)
            v.require(len(values) <= 1, f"expects at most one {what} result, got {len(values)}")
            if values:
                v.require(shape_of(values[0], what) == shape, f"{what} must have shape {shape}, got {shape_of(values[0], what)}")

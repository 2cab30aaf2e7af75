"""``poplin`` transposed convolution of the ``poplar`` dialect (``nn.ConvTranspose1d/2d/3d``)
and its gradients.

Poplar has no separate function for it: ``poplin::convolution`` runs a transposed
convolution from ``ConvParams`` whose input transform dilates the input by the stride and
pads it by ``dilation * (kernel - 1) - padding`` (plus ``output_padding`` at the end), and
whose kernel transform flips the kernel and swaps its input and output channels (per
group). The op keeps PyTorch's parameters so the plan can choose that form.
"""

from collections.abc import Sequence

from torch_mlir import ir
from torch_mlir.dialects import ext

from .._base import I64ArrayAttr, Rules
from .base import PoplarOp, Tensor, TensorResult, element_of, shape_of


def _check_transpose_window(v: Rules, x: list[int], w: list[int]) -> list[int]:
    """Check the window attributes (one entry per spatial dim) and the channels; returns
    the output shape ``[N, C_out, *out]`` with ``out = (in - 1) * stride - 2 * padding +
    dilation * (kernel - 1) + output_padding + 1`` (PyTorch's formula)."""
    v.require(len(x) >= 3 and len(x) == len(w), f"input and weights must have the same rank >= 3, got {len(x)} and {len(w)}")
    spatial = len(x) - 2
    stride = v.i64_array("stride", size=spatial, min=1)
    padding = v.i64_array("padding", size=spatial, min=0)
    output_padding = v.i64_array("output_padding", size=spatial, min=0)
    dilation = v.i64_array("dilation", size=spatial, min=1)
    groups = v.int("groups", min=1)
    for i in range(spatial):
        v.require(output_padding[i] < max(stride[i], dilation[i]),
                  f"output_padding {output_padding} must be smaller than the stride or the dilation in each dim")
    v.require(w[0] == x[1], f"weights [C_in, C_out / groups, *kernel] must have the input's {x[1]} channels first, got {w[0]}")
    v.require(x[1] % groups == 0, f"input channels ({x[1]}) must be divisible by groups ({groups})")
    out = [(x[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (w[2 + i] - 1) + output_padding[i] + 1 for i in range(spatial)]
    v.require(all(o >= 1 for o in out), f"the output size {out} must be positive")
    return [x[0], w[1] * groups, *out]


class ConvTransposeOp(PoplarOp, name="poplin_conv_transpose", traits=[ext.Pure]):
    """N-d transposed convolution (``poplin::convolution`` with transposed ``ConvParams``,
    see the module docstring) with an optional bias (``poplin::addBias``).

    Semantics: the gradient of a convolution with respect to its input, as
    ``torch.nn.functional.conv_transpose{1,2,3}d``: input ``[N, C_in, *spatial]``, weights
    ``[C_in, C_out / groups, *kernel]``, bias ``[C_out]`` (zero or one operand);
    ``stride``, ``dilation`` (>= 1), ``padding`` (>= 0) and ``output_padding`` (smaller than
    the stride or the dilation, added at the end of each dim) have one entry per spatial
    dim; each spatial output size is ``(in - 1) * stride - 2 * padding + dilation *
    (kernel - 1) + output_padding + 1``.

    Example:
      %y = "poplar.poplin_conv_transpose"(%x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>,
             output_padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64,
             operandSegmentSizes = array<i32: 1, 1, 0>}
             : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x10x10xf32>
    """

    input: Tensor
    weights: Tensor
    bias: Sequence[Tensor]
    stride: I64ArrayAttr
    padding: I64ArrayAttr
    output_padding: I64ArrayAttr
    dilation: I64ArrayAttr
    groups: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        x, w = shape_of(self.input, "input"), shape_of(self.weights, "weights")
        expected = _check_transpose_window(v, x, w)
        bias = list(self.bias)
        v.require(len(bias) <= 1, f"expects at most one bias, got {len(bias)}")
        if bias:
            v.require(shape_of(bias[0], "bias") == [expected[1]], f"bias shape must be [{expected[1]}], got {shape_of(bias[0], 'bias')}")
        v.require(shape_of(self.result, "result") == expected, f"result shape must be {expected}, got {shape_of(self.result, 'result')}")
        types = {str(element_of(value)) for value in (self.input, self.weights, self.result, *bias)}
        v.require(len(types) == 1, f"operands and result must share one element type, got {', '.join(sorted(types))}")


class ConvTransposeGradOp(PoplarOp, name="poplin_conv_transpose_grad", traits=[ext.Pure]):
    """Gradients of ``poplin_conv_transpose``: the input gradient is an ordinary
    convolution of the output gradient (``poplin::convolution``), the weight gradient
    ``poplin::calculateWeightDeltas`` and the bias gradient a reduction of the output
    gradient over all dims but the channels.

    Semantics: from the output gradient ``grad``, the forward ``input`` and ``weights``
    (with the forward's window attributes): ``grad_input`` (shape of input),
    ``grad_weights`` (shape of weights) and ``grad_bias`` (``[C_out]``); each result group
    holds zero or one value, as the program needs it.

    Example:
      %gi, %gw, %gb = "poplar.poplin_conv_transpose_grad"(%g, %x, %w) {stride = array<i64: 2, 2>,
             padding = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
             groups = 1 : i64, resultSegmentSizes = array<i32: 1, 1, 1>}
             : (tensor<1x3x10x10xf32>, tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>)
             -> (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>)
    """

    grad: Tensor
    input: Tensor
    weights: Tensor
    stride: I64ArrayAttr
    padding: I64ArrayAttr
    output_padding: I64ArrayAttr
    dilation: I64ArrayAttr
    groups: ir.IntegerAttr
    grad_input: Sequence[TensorResult]
    grad_weights: Sequence[TensorResult]
    grad_bias: Sequence[TensorResult]

    def check(self, v: Rules) -> None:
        x, w, g = shape_of(self.input, "input"), shape_of(self.weights, "weights"), shape_of(self.grad, "grad")
        expected = _check_transpose_window(v, x, w)
        v.require(g == expected, f"grad shape must be the forward output shape {expected}, got {g}")
        for what, values, shape in (("grad_input", self.grad_input, x), ("grad_weights", self.grad_weights, w),
                                    ("grad_bias", self.grad_bias, [expected[1]])):
            values = list(values)
            v.require(len(values) <= 1, f"expects at most one {what} result, got {len(values)}")
            if values:
                v.require(shape_of(values[0], what) == shape, f"{what} must have shape {shape}, got {shape_of(values[0], what)}")

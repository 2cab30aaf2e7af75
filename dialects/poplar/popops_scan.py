"""Scan ``popops`` ops of the ``poplar`` dialect: running sums and products along one dim
(``torch.cumsum`` / ``torch.cumprod``), lowered from the Torch dialect by the reductions
family and run by the IPU Model's reduction kernels."""

from torch_mlir import ir
from torch_mlir.dialects import ext

from .._base import Rules
from .base import PoplarOp, Tensor, TensorResult, check_dim, element_of, shape_of


class _ScanOp(PoplarOp):
    """An inclusive scan of ``input`` along ``dim``; the result has the input's shape and
    its own element type (the input is converted to it first)."""

    input: Tensor
    dim: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = shape_of(self.input, "input")
        dim = v.int("dim", min=0)
        check_dim(v, dim, len(shape))
        v.require(shape_of(self.result, "result") == shape, f"result shape {shape_of(self.result, 'result')} must equal the input shape {shape}")
        element = element_of(self.result)
        v.require(not (isinstance(element, ir.IntegerType) and ir.IntegerType(element).width == 1),
                  "result must have numeric elements, got i1 (a scan of booleans counts in an integer type)")


class CumulativeSumOp(_ScanOp, name="popops_cumulative_sum", traits=[ext.Pure]):
    """Running sum along ``dim``: ``result[..., i, ...] = sum(input[..., :i+1, ...])``
    (``torch.cumsum``).

    Semantics: the input is converted to the result's element type, then summed in it
    (``cumsum(x, dim, dtype=...)``; booleans and integers count in ``i64`` unless a dtype
    says otherwise). A rank-0 input is its own sum (``dim`` 0). On the IPU this is a
    log-step (Hillis-Steele) scan: ``ceil(log2(n))`` shifted ``popops::add``s along ``dim``.

    Example:
      %s = "poplar.popops_cumulative_sum"(%a) {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    """


class CumulativeProductOp(_ScanOp, name="popops_cumulative_product", traits=[ext.Pure]):
    """Running product along ``dim``: ``result[..., i, ...] = prod(input[..., :i+1, ...])``
    (``torch.cumprod``; the gradient of ``prod`` uses it too).

    Semantics: as ``popops_cumulative_sum``, with multiplication (``ceil(log2(n))``
    shifted ``popops::mul``s on the IPU).

    Example:
      %p = "poplar.popops_cumulative_product"(%a) {dim = 0 : i64} : (tensor<4xi64>) -> tensor<4xi64>
    """

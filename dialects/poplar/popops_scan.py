"""Scan ``popops`` ops of the ``poplar`` dialect: running sums, products and log-sum-exps
along one dim (``torch.cumsum`` / ``torch.cumprod`` / ``torch.logcumsumexp``) and running
maxima / minima with their positions (``torch.cummax`` / ``torch.cummin``), lowered from the
Torch dialect by the reductions family and run by the IPU Model's reduction kernels."""

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


class CumulativeLogSumExpOp(_ScanOp, name="popops_cumulative_log_sum_exp", traits=[ext.Pure]):
    """Running log-sum-exp along ``dim``:
    ``result[..., i, ...] = log(sum(exp(input[..., :i+1, ...])))`` (``torch.logcumsumexp``).

    Semantics: floating-point elements only (input and result of one type). Computed
    stably, as eager does: each step combines the running value ``a`` and the next
    element ``b`` as ``max(a, b) + log1p(exp(-|a - b|))``, so large inputs do not overflow;
    ``-inf`` elements add nothing, ``+inf`` gives ``+inf`` and NaN propagates. A rank-0
    input is its own result. On the IPU this is a log-step scan of that combination
    (``ceil(log2(n))`` shifted ``popops::map``s).

    Example:
      %l = "poplar.popops_cumulative_log_sum_exp"(%a) {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    """

    def check(self, v: Rules) -> None:
        super().check(v)
        v.require(isinstance(element_of(self.input), ir.FloatType), f"input must have floating-point elements, got {element_of(self.input)}")
        v.require(self.result.type == self.input.type, f"result type {self.result.type} must equal the input type {self.input.type}")


class _CumulativeExtremumOp(PoplarOp):
    """A running maximum or minimum along ``dim`` with the position it was found at."""

    input: Tensor
    dim: ir.IntegerAttr
    values: TensorResult
    indices: TensorResult

    def check(self, v: Rules) -> None:
        shape = shape_of(self.input, "input")
        check_dim(v, v.int("dim", min=0), len(shape))
        v.require(self.values.type == self.input.type, f"values type {self.values.type} must equal the input type {self.input.type}")
        v.require(shape_of(self.indices, "indices") == shape, f"indices shape {shape_of(self.indices, 'indices')} must equal the input shape {shape}")
        element = element_of(self.indices)
        v.require(isinstance(element, ir.IntegerType) and ir.IntegerType(element).width > 1,
                  f"indices must have integer elements, got {element}")


class CumulativeMaxOp(_CumulativeExtremumOp, name="popops_cumulative_max", traits=[ext.Pure]):
    """Running maximum along ``dim`` and the position of each running maximum
    (``torch.cummax``).

    Semantics: ``values[..., i, ...] = max(input[..., :i+1, ...])``; ``indices[..., i, ...]``
    is the position along ``dim`` of the element that value came from: the last one
    when it occurs several times (an element equal to the running maximum takes over).
    NaN is larger than every number: once a NaN is met, the values are NaN and the index
    is that of the latest NaN. A rank-0 input is its own maximum at index 0. On the IPU
    this is a log-step scan over (value, index) pairs with ``popops::map`` selects.

    Example:
      %v, %i = "poplar.popops_cumulative_max"(%a) {dim = 1 : i64} : (tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xi64>)
    """


class CumulativeMinOp(_CumulativeExtremumOp, name="popops_cumulative_min", traits=[ext.Pure]):
    """Running minimum along ``dim`` and the position of each running minimum
    (``torch.cummin``).

    Semantics: as ``popops_cumulative_max`` with the minimum: an element equal to the
    running minimum takes over (the index is its last occurrence), NaN takes over too.

    Example:
      %v, %i = "poplar.popops_cumulative_min"(%a) {dim = 0 : i64} : (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi64>)
    """

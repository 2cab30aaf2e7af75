"""Sorting ``popops`` ops of the ``poplar`` dialect: sorting along one dim with a
permutation of values (``popops::sortKeyValue``: ``torch.sort``) and the k largest or
smallest elements with their positions (``popops::topKWithPermutation``: ``torch.topk``).
Lowered from the Torch dialect by the sorting family and run by the IPU Model's sorting
kernels."""

from torch_mlir import ir
from torch_mlir.dialects import ext

from .._base import Rules
from .base import PoplarOp, Tensor, TensorResult, check_dim, element_of, shape_of


def _is_integer(element: ir.Type) -> bool:
    return isinstance(element, ir.IntegerType) and ir.IntegerType(element).width > 1


class SortKeyValueOp(PoplarOp, name="popops_sort_key_value", traits=[ext.Pure]):
    """Sorts ``keys`` along ``dim`` and permutes ``values`` the same way
    (``popops::sortKeyValue``).

    Semantics: each line of ``keys`` along ``dim`` is sorted, ascending, or descending
    when ``descending``; ``sorted_values`` holds the elements of ``values`` (same shape as
    the keys) in the order the keys took. NaN sorts above every number, as in
    ``torch.sort``. With ``stable``, equal keys keep their order; without it, the order
    among equal keys is the one ``torch.sort(stable=False)`` gives. ``torch.sort`` is
    this op with ``values`` an iota along ``dim`` (the result's indices). A rank-0 key
    is its own line (``dim`` 0).

    Example:
      %k, %i = "poplar.popops_sort_key_value"(%x, %iota) {dim = 1 : i64, descending = true, stable = false}
             : (tensor<2x5xf32>, tensor<2x5xi64>) -> (tensor<2x5xf32>, tensor<2x5xi64>)
    """

    keys: Tensor
    values: Tensor
    dim: ir.IntegerAttr
    descending: ir.IntegerAttr
    stable: ir.IntegerAttr
    sorted_keys: TensorResult
    sorted_values: TensorResult

    def check(self, v: Rules) -> None:
        shape = shape_of(self.keys, "keys")
        check_dim(v, v.int("dim", min=0), len(shape))
        v.bool("descending")
        v.bool("stable")
        v.require(shape_of(self.values, "values") == shape, f"values shape {shape_of(self.values, 'values')} must equal the keys shape {shape}")
        v.require(self.sorted_keys.type == self.keys.type, f"sorted_keys type {self.sorted_keys.type} must equal the keys type {self.keys.type}")
        v.require(self.sorted_values.type == self.values.type,
                  f"sorted_values type {self.sorted_values.type} must equal the values type {self.values.type}")


class TopKOp(PoplarOp, name="popops_top_k", traits=[ext.Pure]):
    """The ``k`` largest (or smallest) elements along ``dim`` and their positions
    (``popops::topKWithPermutation``; ``torch.topk``).

    Semantics: ``values`` and ``indices`` have the input's shape with dim ``dim`` of
    size ``k`` (``0 <= k <= size``); ``indices`` (integer elements) give each value's
    position along ``dim``. ``largest`` picks the largest, otherwise the smallest;
    ``sorted`` orders them (descending for the largest, ascending for the smallest),
    otherwise their order is the one ``torch.topk(sorted=False)`` gives. NaN counts as
    larger than every number.

    Example:
      %v, %i = "poplar.popops_top_k"(%x) {dim = 1 : i64, k = 2 : i64, largest = true, sorted = true}
             : (tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
    """

    input: Tensor
    dim: ir.IntegerAttr
    k: ir.IntegerAttr
    largest: ir.IntegerAttr
    sorted: ir.IntegerAttr
    values: TensorResult
    indices: TensorResult

    def check(self, v: Rules) -> None:
        shape = shape_of(self.input, "input")
        dim = v.int("dim", min=0)
        check_dim(v, dim, len(shape))
        size = shape[dim] if shape else 1
        k = v.int("k", min=0, max=size)
        v.bool("largest")
        v.bool("sorted")
        expected = [k if d == dim else s for d, s in enumerate(shape)]
        v.require(shape_of(self.values, "values") == expected, f"values shape must be {expected}, got {shape_of(self.values, 'values')}")
        v.require(element_of(self.values) == element_of(self.input), "values and input must share one element type")
        v.require(shape_of(self.indices, "indices") == expected, f"indices shape must be {expected}, got {shape_of(self.indices, 'indices')}")
        v.require(_is_integer(element_of(self.indices)), f"indices must have integer elements, got {element_of(self.indices)}")

"""Sorting ``popops`` ops of the ``poplar`` dialect: sorting along one dim with a
permutation of values (``popops::sortKeyValue``: ``torch.sort``), the k largest or
smallest elements with their positions (``popops::topKWithPermutation``: ``torch.topk``),
order statistics along one dim with their positions (``torch.kthvalue`` / ``median`` /
``nanmedian`` / ``mode``) and binary search in sorted lines (``torch.searchsorted`` /
``bucketize``). Lowered from the Torch dialect by the sorting family and run by the IPU
Model's sorting kernels."""

from collections.abc import Sequence

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


ORDER_STATISTICS = ("kth_value", "median", "nan_median", "mode")


class OrderStatisticOp(PoplarOp, name="popops_order_statistic", traits=[ext.Pure]):
    """One order statistic of every line along ``dim`` and its position: the ``k``-th
    smallest, the median, the median of the numbers, or the most frequent value
    (``torch.kthvalue`` / ``median`` / ``nanmedian`` / ``mode``).

    Semantics: ``statistic`` is one of
      - ``kth_value``: the ``k``-th smallest element (``1 <= k <= size``; NaN is larger
        than every number);
      - ``median``: the lower median (the ``(size + 1) // 2``-th smallest), or NaN when
        the line holds a NaN, with the position of its first NaN;
      - ``nan_median``: the lower median of the line's numbers, NaNs left out (NaN when
        the line holds only NaNs);
      - ``mode``: the most frequent value, the smallest of several equally frequent ones;
    ``k`` is 0 for every statistic but ``kth_value``. ``values`` have the input's element
    type and shape without ``dim`` (kept with size 1 when ``keep_dims``); ``indices``
    (integer elements, the same shape) give each value's position along ``dim``. Where
    the value occurs several times, the position is the one the torch function of the
    statistic gives (PopLibs leaves it to the selection algorithm). The dim must not be
    empty; a rank-0 input is its own line (``dim`` 0). On the IPU this is
    ``popops::sortKeyValue`` of the line with an iota, then a gather of the selected
    position (for ``mode``, a run-length count of the sorted line first).

    Example:
      %v, %i = "poplar.popops_order_statistic"(%x) {statistic = "median", dim = 1 : i64, k = 0 : i64, keep_dims = false}
             : (tensor<2x5xf32>) -> (tensor<2xf32>, tensor<2xi64>)
    """

    input: Tensor
    statistic: ir.StringAttr
    dim: ir.IntegerAttr
    k: ir.IntegerAttr
    keep_dims: ir.IntegerAttr
    values: TensorResult
    indices: TensorResult

    def check(self, v: Rules) -> None:
        shape = shape_of(self.input, "input")
        statistic = v.string("statistic", choices=ORDER_STATISTICS)
        dim = v.int("dim", min=0)
        check_dim(v, dim, len(shape))
        size = shape[dim] if shape else 1
        v.require(size >= 1, f"dim {dim} is empty: a line without elements has no {statistic}")
        if statistic == "kth_value":
            v.int("k", min=1, max=size)
        else:
            v.int("k", min=0, max=0)
        keep = v.bool("keep_dims")
        expected = [1 if d == dim else s for d, s in enumerate(shape)] if keep else [s for d, s in enumerate(shape) if d != dim]
        v.require(shape_of(self.values, "values") == expected, f"values shape must be {expected}, got {shape_of(self.values, 'values')}")
        v.require(element_of(self.values) == element_of(self.input), "values and input must share one element type")
        v.require(shape_of(self.indices, "indices") == expected, f"indices shape must be {expected}, got {shape_of(self.indices, 'indices')}")
        v.require(_is_integer(element_of(self.indices)), f"indices must have integer elements, got {element_of(self.indices)}")


class SearchSortedOp(PoplarOp, name="popops_search_sorted", traits=[ext.Pure]):
    """Where each element of ``input`` would be inserted into the sorted lines of
    ``sorted_sequence`` to keep them sorted (``torch.searchsorted``; ``torch.bucketize``
    with the boundaries as the sequence).

    Semantics: ``sorted_sequence`` is ``[M]`` (one line for every element) or has the
    input's leading dims and ``M`` last (line ``i`` serves the elements ``input[i, :]``).
    Each result is the number of the line's elements ``< x`` (``right`` false: the first
    position) or ``<= x`` (``right`` true: the last), in ``[0, M]``. ``sorter`` (zero or
    one operand, integer, the sequence's shape) gives the order in which the line is
    sorted when the sequence itself is not (``argsort``'s result). NaN sorts above every
    number. The result has the input's shape and integer elements (i32 or i64). On the
    IPU this is ``ceil(log2(M + 1))`` halving steps of ``popops::map`` compares and
    ``multiSlice`` gathers.

    Example:
      %p = "poplar.popops_search_sorted"(%seq, %x) {right = false, operandSegmentSizes = array<i32: 1, 1, 0>}
             : (tensor<5xf32>, tensor<2x3xf32>) -> tensor<2x3xi64>
    """

    sorted_sequence: Tensor
    input: Tensor
    sorter: Sequence[Tensor]
    right: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        sequence, shape = shape_of(self.sorted_sequence, "sorted_sequence"), shape_of(self.input, "input")
        v.bool("right")
        v.require(len(sequence) >= 1, "sorted_sequence must have at least one dim (its lines are along the last)")
        v.require(len(sequence) == 1 or (len(sequence) == len(shape) and sequence[:-1] == shape[:-1]),
                  f"sorted_sequence shape {sequence} must be [M] or the input's leading dims {shape[:-1]} and M")
        v.require(element_of(self.sorted_sequence) == element_of(self.input),
                  f"sorted_sequence and input must share one element type, got {element_of(self.sorted_sequence)} and {element_of(self.input)}")
        sorter = list(self.sorter)
        v.require(len(sorter) <= 1, f"expects at most one sorter, got {len(sorter)}")
        if sorter:
            v.require(shape_of(sorter[0], "sorter") == sequence, f"sorter shape {shape_of(sorter[0], 'sorter')} must equal the sorted_sequence shape {sequence}")
            v.require(_is_integer(element_of(sorter[0])), f"sorter must have integer elements, got {element_of(sorter[0])}")
        v.require(shape_of(self.result, "result") == shape, f"result shape {shape_of(self.result, 'result')} must equal the input shape {shape}")
        element = element_of(self.result)
        v.require(isinstance(element, ir.IntegerType) and ir.IntegerType(element).width in (32, 64),
                  f"result must have i32 or i64 elements, got {element}")

"""Indexed-update ``popops`` ops of the ``poplar`` dialect: writing slices of a tensor at
run-time indices (``popops::multiUpdate`` / ``multiUpdateAdd``: ``x[idx] = v``,
``index_put``, ``index_add``) and writing its elements along one dim (``popops::scatter``
and its reducing forms: ``torch.scatter``, ``scatter_add``, ``scatter_reduce``).

Both ops have value semantics: the result is a new tensor holding ``table`` / ``input``
with the updates applied; the operand itself is unchanged (Poplar would copy it, then
update the copy in place).
"""

from torch_mlir import ir
from torch_mlir.dialects import ext

from .._base import Rules
from .base import PoplarOp, Tensor, TensorResult, check_dim, element_of, shape_of

# How an update combines with the element it lands on: ``copy`` replaces it, the others
# combine it (``add``: the sum, ``mul``: the product, ``max`` / ``min``: the extremum).
MULTI_UPDATE_OPS = ("copy", "add")
SCATTER_OPS = ("copy", "add", "mul", "max", "min")


def _require_integer_indices(v: Rules, indices: ir.Value) -> None:
    element = element_of(indices)
    v.require(isinstance(element, ir.IntegerType) and ir.IntegerType(element).width > 1,
              f"indices must have integer elements (not i1: a boolean mask is no index), got {element}")


class MultiUpdateOp(PoplarOp, name="popops_multi_update", traits=[ext.Pure]):
    """``table`` with its slices along ``dim`` at ``indices`` replaced by (``op = "copy"``,
    ``popops::multiUpdate``) or increased by (``op = "add"``, ``popops::multiUpdateAdd``
    with scale 1) the slices of ``updates``: the inverse of ``popops_multi_slice``.

    Semantics: ``updates`` has the shape ``popops_multi_slice`` gives, the table's shape
    with dim ``dim`` replaced by the indices' shape; its slice at index position ``p``
    goes to slice ``indices[p]`` of the table. Indices are in ``[0, table.shape[dim])``
    (the lowering wraps negative ones). With ``copy``, of several updates to one slice
    the last (in row-major order of ``indices``) wins; with ``add`` they all add up, in
    that order. The result has the table's type; ``updates`` shares its element type.

    Example:
      %r = "poplar.popops_multi_update"(%t, %u, %i) {dim = 0 : i64, op = "add"}
             : (tensor<10x4xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<10x4xf32>
    """

    table: Tensor
    updates: Tensor
    indices: Tensor
    dim: ir.IntegerAttr
    op: ir.StringAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        table = shape_of(self.table, "table")
        v.string("op", choices=MULTI_UPDATE_OPS)
        dim = v.int("dim", min=0)
        check_dim(v, dim, len(table))
        v.require(len(table) >= 1, "table must have rank >= 1 (it is updated in slices along dim)")
        _require_integer_indices(v, self.indices)
        index_shape = shape_of(self.indices, "indices")
        expected = table[:dim] + index_shape + table[dim + 1:]
        v.require(shape_of(self.updates, "updates") == expected,
                  f"updates shape must be {expected} (the table's with dim {dim} replaced by the indices' shape), got {shape_of(self.updates, 'updates')}")
        v.require(element_of(self.updates) == element_of(self.table), f"updates element type {element_of(self.updates)} must be the table's {element_of(self.table)}")
        v.require(self.result.type == self.table.type, f"result type {self.result.type} must be the table's type {self.table.type}")


class ScatterOp(PoplarOp, name="popops_scatter", traits=[ext.Pure]):
    """Element-wise scatter along ``dim`` (``popops::scatter``; ``torch.scatter`` /
    ``scatter_add`` / ``scatter_reduce`` semantics): for every position ``p`` of
    ``indices``, the element ``updates[p]`` lands on ``input`` at ``p`` with its coordinate
    ``dim`` replaced by ``indices[p]`` (for ``dim = 0``: ``result[indices[i][j]][j]``).

    Semantics: ``op = "copy"`` replaces the element (several updates to one element: one
    of them wins, as in torch), ``"add"``, ``"mul"``, ``"max"`` and ``"min"`` combine it
    with the updates; with ``include_self = false`` an element that receives updates
    starts from the updates alone (``scatter_reduce(..., include_self=False)``), which
    ``copy`` requires to be true. ``updates`` has the indices' shape, which fits in the
    input's outside ``dim``; indices are in ``[0, input.shape[dim])``. The result has the
    input's type; ``updates`` shares its element type.

    Example:
      %r = "poplar.popops_scatter"(%a, %i, %u) {dim = 1 : i64, op = "add", include_self = true}
             : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
    """

    input: Tensor
    indices: Tensor
    updates: Tensor
    dim: ir.IntegerAttr
    op: ir.StringAttr
    include_self: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = shape_of(self.input, "input")
        op = v.string("op", choices=SCATTER_OPS)
        include_self = v.bool("include_self")
        v.require(include_self or op != "copy", "op \"copy\" replaces elements: include_self must be true")
        dim = v.int("dim", min=0)
        check_dim(v, dim, len(shape))
        _require_integer_indices(v, self.indices)
        index_shape = shape_of(self.indices, "indices")
        v.require(len(index_shape) == len(shape),
                  f"indices rank {len(index_shape)} must equal input rank {len(shape)}")
        v.require(all(i <= s for d, (i, s) in enumerate(zip(index_shape, shape, strict=False)) if d != dim),
                  f"indices shape {index_shape} must not exceed input shape {shape} outside dim {dim}")
        v.require(shape_of(self.updates, "updates") == index_shape,
                  f"updates shape {shape_of(self.updates, 'updates')} must equal the indices' shape {index_shape}")
        v.require(element_of(self.updates) == element_of(self.input), f"updates element type {element_of(self.updates)} must be the input's {element_of(self.input)}")
        v.require(self.result.type == self.input.type, f"result type {self.result.type} must be the input's type {self.input.type}")

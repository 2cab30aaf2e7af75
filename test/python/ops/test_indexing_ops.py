"""Indexing, scatter/gather and strided-view core ATen ops end to end: each op in a tiny
model through ``poptorch.inferenceModel`` against eager PyTorch (FP32 for floats, integers
and booleans exact, eager's dtypes), one SGD step through the differentiable ones, and
the refusals.

Covers index.Tensor (advanced indexing: adjacent and separated index tensors, None
entries, negative and int32 indices), index_put (``x[idx] = v``, ``+=``, boolean masks
with one value), scatter.src / scatter.value / scatter_add / scatter_reduce.two (every
reduce, with and without include_self), masked_scatter, select_scatter, slice_scatter
(``x[:, 1:3] = v``, strided), diagonal and diagonal_scatter, as_strided (imported as
index.Tensor), flip and repeat, and the user idioms functionalisation turns into them on
local tensors: indexed assignment, ``copy_`` / ``add_`` / ``masked_fill_`` on a slice,
``index_add``, ``index_copy``; and the gradients of gather, index_select and embedding.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
import torch.nn.functional as F
from helpers.op_runs import FunctionModel, check_inference, check_training_step

import poptorch

_G = torch.Generator().manual_seed(0)
X = torch.randn(4, 5, generator=_G)
CUBE = torch.randn(3, 4, 5, generator=_G)
INTS = torch.randint(-9, 10, (4, 5), generator=_G)
BOOLS = X > 0
ROWS = torch.tensor([2, 0, 3])
COLS = torch.tensor([4, 1, 1])
NEGATIVE = torch.tensor([-1, 0, -3])
ROWS_2D = torch.tensor([[0, 3], [1, 1]])
COLUMN = torch.tensor([[1], [3]])  # broadcasts with COLS to [2, 3]
ROWS_I32 = ROWS.to(torch.int32)
SCATTER_INDEX = torch.tensor([[0, 4, 2], [1, 1, 0], [3, 3, 3], [4, 0, 1]])  # [4, 3] into dim 1 of X
SRC = torch.randn(4, 5, generator=_G)


def _assign(fn: Callable[[torch.Tensor], None]) -> Callable[..., torch.Tensor]:
    """A function that clones its first input, mutates the clone with ``fn`` (a local
    tensor, as a model's forward mutates its temporaries) and returns it."""

    def run(x: torch.Tensor, *rest: torch.Tensor) -> torch.Tensor:
        y = x.clone()
        fn(y, *rest)
        return y

    return run


def _set(y: torch.Tensor, key: object, value: object) -> None:
    y[key] = value


def _add_to_rows(y: torch.Tensor, i: torch.Tensor) -> None:
    y[i] += 1.0


def _add_to_slice(y: torch.Tensor) -> None:
    y[:, 1:3] += 1.5


def _copy_to_slice(y: torch.Tensor, v: torch.Tensor) -> None:
    y[1:3].copy_(v)


def _mask_slice(y: torch.Tensor) -> None:
    y[:, 1:4].masked_fill_(y[:, 1:4] > 0, 0.0)


def _strided_copy(y: torch.Tensor) -> None:
    y[::2, 1] = 7.0


def _diagonal_copy(y: torch.Tensor) -> None:
    y.diagonal(1).copy_(torch.arange(4.0))


# name -> (function of the inputs, inputs)
CASES: dict[str, tuple[Callable, tuple]] = {
    # -- index.Tensor -----------------------------------------------------------------
    "index_rows": (lambda x, i: x[i], (X, ROWS)),
    "index_rows_2d_index": (lambda x, i: x[i], (X, ROWS_2D)),
    "index_columns": (lambda x, i: x[:, i], (X, COLS)),
    "index_negative": (lambda x, i: x[i], (X, NEGATIVE)),
    "index_int32": (lambda x, i: x[i], (X, ROWS_I32)),
    "index_pairs": (lambda x, i, j: x[i, j], (X, ROWS, COLS)),
    "index_broadcast_pairs": (lambda x, i, j: x[i, j], (X, COLUMN, COLS)),
    "index_adjacent_inner_dims": (lambda c, i, j: c[:, i, j], (CUBE, ROWS, COLS)),
    "index_separated_dims_go_first": (lambda c, i, j: c[i.clamp(max=2), :, j], (CUBE, ROWS, COLS)),
    "index_with_none": (lambda x, i: x[i, None, 1:], (X, ROWS)),
    "index_ints": (lambda x, i: x[i], (INTS, ROWS)),
    "index_bools": (lambda x, i: x[:, i], (BOOLS, COLS)),
    "index_scalar_tensor": (lambda x: x[torch.tensor(2)], (X,)),
    # -- index_put: indexed assignment on a local tensor --------------------------------
    "put_rows_scalar": (_assign(lambda y, i: _set(y, i, 5.0)), (X, ROWS)),
    "put_rows_row": (_assign(lambda y, i: _set(y, i, torch.arange(5.0))), (X, ROWS)),
    "put_columns_tensor": (_assign(lambda y, i, v: _set(y, (slice(None), i), v)), (X, COLS[:2], SRC[:, :2])),
    "put_pairs": (_assign(lambda y, i, j: _set(y, (i, j), -1.0)), (X, ROWS, COLS)),
    "put_separated_dims": (_assign(lambda c, i, j: _set(c, (i.clamp(max=2), slice(None), j), 0.0)), (CUBE, ROWS, COLS)),
    "put_add_assign": (_assign(_add_to_rows), (X, ROWS)),
    "put_negative": (_assign(lambda y, i: _set(y, i, 2.0)), (X, NEGATIVE)),
    "put_accumulate_repeated": (lambda x, i, v: x.index_put((i,), v, accumulate=True), (X, torch.tensor([1, 3, 1, 1]), SRC)),
    "put_ints": (_assign(lambda y, i: _set(y, i, 7)), (INTS, ROWS)),
    "put_float_scalar_into_ints": (_assign(lambda y, i: _set(y, i, 2.7)), (INTS, ROWS)),
    "put_mask_scalar": (_assign(lambda y: _set(y, y > 0, 0.0)), (X,)),
    "put_mask_row": (_assign(lambda y, m: _set(y, m, torch.tensor(3.0))), (X, BOOLS)),
    "put_mask_inner_dims": (_assign(lambda c, m: _set(c, (slice(None), m), torch.arange(3.0).view(3, 1))), (CUBE, CUBE[0] > 0)),
    "put_mask_accumulate": (lambda x, m: x.index_put((m,), torch.tensor(10.0), accumulate=True), (X, BOOLS)),
    "index_add": (lambda x, i, v: x.index_add(0, i, v), (X, torch.tensor([1, 3, 1, 1]), SRC)),
    "index_add_alpha_dim1": (lambda x, i, v: x.index_add(1, i, v, alpha=0.5), (X, COLS, SRC[:, :3])),
    "index_copy": (lambda x, i, v: x.index_copy(0, i, v), (X, ROWS, SRC[:3])),
    "index_fill": (lambda x, i: x.index_fill(1, i, -2.0), (X, COLS)),
    # -- scatter ---------------------------------------------------------------------
    "scatter_src": (lambda x, i, s: torch.scatter(x, 1, i, s), (X, SCATTER_INDEX, SRC)),
    "scatter_value": (lambda x, i: torch.scatter(x, 1, i, 1.5), (X, SCATTER_INDEX)),
    "scatter_negative_dim": (lambda x, i, s: torch.scatter(x, -1, i, s), (X, SCATTER_INDEX, SRC)),
    "scatter_dim0": (lambda x, i, s: torch.scatter(x, 0, i, s), (X, SCATTER_INDEX.clamp(max=3), SRC)),
    "scatter_add": (lambda x, i, s: torch.scatter_add(x, 1, i, s), (X, SCATTER_INDEX, SRC)),
    "scatter_reduce_argument_add": (lambda x, i, s: torch.scatter(x, 1, i, s, reduce="add"), (X, SCATTER_INDEX, SRC)),
    "scatter_reduce_argument_multiply": (lambda x, i, s: torch.scatter(x, 1, i, s, reduce="multiply"), (X, SCATTER_INDEX, SRC)),
    "scatter_value_reduce_argument": (lambda x, i: torch.scatter(x, 1, i, 2.0, reduce="multiply"), (X, SCATTER_INDEX)),
    "scatter_add_ints": (lambda x, i: torch.scatter_add(x, 1, i, x), (INTS, SCATTER_INDEX)),
    "scatter_reduce_ints_mean": (lambda x, i: torch.scatter_reduce(x, 1, i, x * 3, "mean"), (INTS, SCATTER_INDEX)),
    "masked_scatter": (lambda x, m, s: x.masked_scatter(m, s), (X, BOOLS, SRC)),
    "masked_scatter_broadcast_mask": (lambda x, m, s: x.masked_scatter(m, s), (X, BOOLS[0], SRC)),
    "masked_scatter_ints": (lambda x, m: x.masked_scatter(m, x * 10), (INTS, BOOLS)),
    # -- slice and select assignment ---------------------------------------------------
    "slice_scatter": (lambda x, s: torch.slice_scatter(x, s, 1, 1, 3), (X, SRC[:, :2])),
    "slice_scatter_step": (lambda x, s: torch.slice_scatter(x, s, 0, 0, None, 2), (X, SRC[:2])),
    "slice_scatter_negative_end": (lambda x, s: torch.slice_scatter(x, s, 1, -3, -1), (X, SRC[:, :2])),
    "slice_assign": (_assign(lambda y, v: _set(y, (slice(None), slice(1, 3)), v)), (X, SRC[:, :2])),
    "slice_add_": (_assign(_add_to_slice), (X,)),
    "slice_copy_": (_assign(_copy_to_slice), (X, SRC[:2])),
    "slice_masked_fill_": (_assign(_mask_slice), (X,)),
    "slice_strided_assign": (_assign(_strided_copy), (X,)),
    "select_scatter": (lambda x, s: torch.select_scatter(x, s, 0, 2), (X, SRC[0])),
    "select_assign_negative": (_assign(lambda y, v: _set(y, (slice(None), -1), v)), (X, SRC[:, 0])),
    "select_assign_ints": (_assign(lambda y: _set(y, 1, 4)), (INTS,)),
    # -- diagonals ---------------------------------------------------------------------
    "diagonal": (torch.diagonal, (X,)),
    "diagonal_offset": (lambda x: torch.diagonal(x, 2), (X,)),
    "diagonal_negative_offset": (lambda x: torch.diagonal(x, -1), (X,)),
    "diagonal_dims": (lambda c: torch.diagonal(c, 1, 2, 0), (CUBE,)),
    "diagonal_past_the_end": (lambda x: torch.diagonal(x, 7), (X,)),
    "diagonal_scatter": (lambda x, s: torch.diagonal_scatter(x, s, -1), (X, SRC[0, :3])),
    "diagonal_copy_": (_assign(_diagonal_copy), (X,)),
    # -- strided views -----------------------------------------------------------------
    "as_strided": (lambda x: x.as_strided((3, 3), (1, 2), 1), (X,)),
    "as_strided_overlapping": (lambda x: x.as_strided((4, 3), (2, 1)), (X,)),
    "as_strided_scatter": (lambda x, s: torch.as_strided_scatter(x, s, (2, 3), (1, 4), 2), (X, SRC[:2, :3])),
    "index_select_0d_index": (lambda x: x.index_select(1, torch.tensor(3)), (X,)),
    "index_select_0d_tensor": (lambda x: x[0, 0].index_select(0, torch.tensor([0])), (X,)),
    "narrow_copy": (lambda x: x.narrow_copy(1, -3, 2), (X,)),
    "flip": (lambda x: torch.flip(x, [0]), (X,)),
    "flip_dims": (lambda c: torch.flip(c, [-1, 0]), (CUBE,)),
    "flip_ints": (lambda x: x.flip(1), (INTS,)),
    "repeat": (lambda x: x.repeat(2, 3), (X,)),
    "repeat_new_dims": (lambda x: x.repeat(2, 1, 1, 2), (X,)),
    "repeat_bools": (lambda x: x.repeat(1, 2), (BOOLS,)),
    "tile": (lambda x: x.tile((2,)), (X,)),
    "unfold": (lambda x: x.unfold(1, 2, 1), (X,)),
    "unfold_blocks": (lambda c: c.unfold(-1, 2, 2), (CUBE,)),
    "unfold_gaps": (lambda x: x.unfold(0, 1, 3), (X,)),
    # -- ops that decompose into the ones above, or reach the lowering as they are ------
    "take": (lambda x, i: torch.take(x, i), (X, torch.tensor([[0, 7], [19, -1]]))),
    "put": (lambda x, i, s: x.put(i, s), (X, torch.tensor([3, -2, 11]), SRC[0, :3])),
    "put_accumulate": (lambda x, i, s: x.put(i, s, accumulate=True), (X, torch.tensor([3, 3, 11]), SRC[0, :3])),
    "roll": (lambda x: torch.roll(x, (1, -2), (0, 1)), (X,)),
    "rot90": (lambda x: torch.rot90(x, 1, (0, 1)), (X,)),
    "one_hot": (lambda i: F.one_hot(i, 5), (ROWS,)),
    "triu_indices": (lambda x: x[tuple(torch.triu_indices(4, 5, 1))], (X,)),
    "tril_indices": (lambda: torch.tril_indices(3, 4, -1), ()),
}

INDEX_REDUCES = [(reduce, include_self) for reduce in ("prod", "mean", "amax", "amin") for include_self in (True, False)]

SCATTER_REDUCES = [(reduce, include_self) for reduce in ("sum", "prod", "mean", "amax", "amin") for include_self in (True, False)]


@pytest.mark.parametrize("name", CASES)
def test_op_matches_eager(name: str) -> None:
    fn, inputs = CASES[name]
    check_inference(fn, *inputs)


@pytest.mark.parametrize("reduce, include_self", SCATTER_REDUCES)
def test_scatter_reduce_matches_eager(reduce: str, include_self: bool) -> None:
    index = SCATTER_INDEX.clone()
    index[0, 0] = 2  # column 0 of row 0 gets nothing: include_self=False must keep x there
    check_inference(lambda x, i, s: torch.scatter_reduce(x, 1, i, s, reduce, include_self=include_self), X, index, SRC)


def _t(values: list) -> torch.Tensor:
    """An index tensor made inside the traced forward (a tensor closed over from outside
    the model is no graph constant in the training capture)."""
    return torch.tensor(values)


_R, _C, _N, _S = ROWS.tolist(), COLS.tolist(), NEGATIVE.tolist(), SCATTER_INDEX.tolist()
_M = BOOLS.tolist()

def test_index_reduce_of_a_0d_tensor_matches_eager() -> None:
    check_inference(lambda x, s: x.index_reduce(0, torch.tensor([0]), s, "amax", include_self=False), X[0, 0], X[1, 1])


@pytest.mark.parametrize("reduce, include_self", INDEX_REDUCES)
@pytest.mark.parametrize("x", [X, INTS], ids=["float", "int"])
def test_index_reduce_matches_eager(x: torch.Tensor, reduce: str, include_self: bool) -> None:
    check_inference(lambda x, i, s: x.index_reduce(1, i, s, reduce, include_self=include_self), x, COLS, x[:, 1:4] * 3)


# name -> (function of the weighted input, input): the op's gradient trains the weight.
TRAINING: dict[str, tuple[Callable, torch.Tensor]] = {
    "index": (lambda t: t[_t(_R), _t(_C)] * 2 + t[_t(_N)].sum(), X),
    "index_separated": (lambda c: c[_t([2, 0, 2]), :, _t(_C)], CUBE),
    "index_put": (lambda t: t.index_put((_t(_R),), t[:3] * 3), X),
    "index_put_accumulate": (lambda t: t.index_put((_t([1, 3, 1]),), t[1:4].exp(), accumulate=True), X),
    "index_put_mask": (_assign(lambda y: _set(y, y > 1.0, 0.0)), X),
    "indexed_assignment": (_assign(lambda y: _set(y, _t(_R), y[0] * 2)), X),
    "index_add": (lambda t: t.index_add(0, _t([1, 3, 1, 1]), t.sin()), X),
    "index_copy": (lambda t: t.index_copy(1, _t(_C[:2]), t[:, :2].cos()), X),
    "scatter_src": (lambda t: torch.scatter(t, 1, _t(_S), t[:, 1:4] * 3), X),
    "scatter_value": (lambda t: torch.scatter(t, 1, _t(_S), 0.5), X),
    "scatter_add": (lambda t: torch.scatter_add(t, 1, _t(_S), t[:, :3].exp()), X),
    "scatter_reduce_sum": (lambda t: torch.scatter_reduce(t, 1, _t(_S), t[:, 2:] * 2, "sum", include_self=False), X),
    "scatter_reduce_mean": (lambda t: torch.scatter_reduce(t, 1, _t(_S), t[:, 2:] * 2, "mean"), X),
    "scatter_reduce_prod": (lambda t: torch.scatter_reduce(t, 1, _t(_S), t[:, 2:] * 2, "prod"), X),
    "scatter_reduce_amax": (lambda t: torch.scatter_reduce(t, 1, _t(_S), t[:, 2:] * 2, "amax"), X),
    "scatter_reduce_amin": (lambda t: torch.scatter_reduce(t, 1, _t(_S), t[:, 2:] * 2, "amin", include_self=False), X),
    "masked_scatter": (lambda t: t.masked_scatter(_t(_M), t.flip(0) * 2), X),
    "slice_scatter": (lambda t: torch.slice_scatter(t, t[:, :2] * 3, 1, 2, 4), X),
    "slice_scatter_step": (lambda t: torch.slice_scatter(t, t[1::2] * 3, 0, 0, None, 2), X),
    "strided_slice": (lambda t: t[:, 1::2] * 3, X),
    "select_scatter": (lambda t: torch.select_scatter(t, t[0].exp(), 0, 3), X),
    "diagonal": (lambda t: torch.diagonal(t, 1) * 2, X),
    "diagonal_scatter": (lambda t: torch.diagonal_scatter(t, t[0, :3].exp(), -1), X),
    "as_strided": (lambda t: t.as_strided((4, 3), (2, 1)), X),
    "as_strided_scatter": (lambda t: torch.as_strided_scatter(t, t[:2, :3].exp(), (2, 3), (1, 4), 2), X),
    "flip": (lambda t: torch.flip(t, [0, 1]) * torch.arange(5.0), X),
    "repeat": (lambda t: t.repeat(2, 1, 3) * torch.arange(15.0), X),
    "unfold": (lambda t: t.unfold(1, 3, 1) * torch.arange(3.0), X),
    "take": (lambda t: torch.take(t, _t([[0, 7], [19, 7]])), X),
    "roll": (lambda t: torch.roll(t, 2, 1) * torch.arange(5.0), X),
    "gather": (lambda t: torch.gather(t, 1, _t(_S)), X),
    "index_select": (lambda t: t.index_select(0, _t([3, 3, 0])), X),
    "embedding": (lambda t: F.embedding(_t([[1, 3], [3, 0]]), t), X),
}


@pytest.mark.parametrize("name", TRAINING)
def test_training_step_matches_eager(name: str) -> None:
    fn, x = TRAINING[name]
    check_training_step(fn, x)


def _compile_error(fn: Callable, *inputs: torch.Tensor) -> str:
    with pytest.raises(Exception) as caught:  # noqa: PT011 - the message is what is checked
        poptorch.inferenceModel(FunctionModel(fn))(*inputs)
    return str(caught.value)


def test_boolean_mask_index_is_refused_naming_torch_where() -> None:
    # Refused when the model is captured (a data-dependent shape) or, failing that, by the
    # lowering of index.Tensor: either way the message says why and names torch.where.
    message = _compile_error(lambda x: x[x > 0].sum(), X)
    assert "data-dependent" in message
    assert "torch.where(mask, x" in message


def test_mask_assignment_of_one_value_per_element_is_refused() -> None:
    message = _compile_error(_assign(lambda y, v: _set(y, y > 0, v)), X, torch.arange(20.0).view(4, 5)[X > 0])
    assert "'torch.aten.index_put' cannot be lowered" in message
    selected = int((X > 0).sum())
    assert f"values of shape [{selected}] for x[mask] = values: the number of selected elements is data-dependent" in message
    assert "torch.where(mask, values, x)" in message

"""Indexing kernels against torch: popops_multi_update (copy and add), popops_scatter
(copy, add, mul, max, min, with and without the input's own elements) and the reverse view."""

from __future__ import annotations

import pytest
import torch

EXACT = {"rtol": 0, "atol": 0}


def test_multi_update_copy_replaces_slices_and_keeps_the_table(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%t: tensor<5x3xf32>, %u: tensor<2x3xf32>, %i: tensor<2xi64>",
                   '%0 = "poplar.popops_multi_update"(%t, %u, %i) {dim = 0 : i64, op = "copy"} '
                   ': (tensor<5x3xf32>, tensor<2x3xf32>, tensor<2xi64>) -> tensor<5x3xf32>')
    table, updates, indices = torch.randn(5, 3), torch.randn(2, 3), torch.tensor([4, 1])
    before = table.clone()
    expected = table.clone()
    expected[indices] = updates
    torch.testing.assert_close(fn(table, updates, indices), expected, **EXACT)
    torch.testing.assert_close(table, before, **EXACT)  # value semantics: the operand is unchanged


def test_multi_update_add_sums_repeated_indices_along_an_inner_dim(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%t: tensor<2x4xf32>, %u: tensor<2x2x2xf32>, %i: tensor<2x2xi32>",
                   '%0 = "poplar.popops_multi_update"(%t, %u, %i) {dim = 1 : i64, op = "add"} '
                   ': (tensor<2x4xf32>, tensor<2x2x2xf32>, tensor<2x2xi32>) -> tensor<2x4xf32>')
    table, updates = torch.randn(2, 4), torch.randn(2, 2, 2)
    indices = torch.tensor([[3, 0], [3, 3]], dtype=torch.int32)
    expected = table.clone()
    for a in range(2):
        for b in range(2):
            expected[:, indices[a, b]] += updates[:, a, b]
    torch.testing.assert_close(fn(table, updates, indices), expected, rtol=1e-6, atol=1e-6)


def test_multi_update_of_an_empty_table_is_empty(kernel_of) -> None:  # noqa: ANN001
    """A zero-size batch (the gradient of eigh over a [0, 5, 5] input) has updates whose
    folded shape -1 cannot be inferred: the kernel folds with the static index count."""
    fn = kernel_of("%t: tensor<0x5xf32>, %u: tensor<0x2xf32>, %i: tensor<2xi64>",
                   '%0 = "poplar.popops_multi_update"(%t, %u, %i) {dim = 1 : i64, op = "add"} '
                   ': (tensor<0x5xf32>, tensor<0x2xf32>, tensor<2xi64>) -> tensor<0x5xf32>')
    result = fn(torch.zeros(0, 5), torch.zeros(0, 2), torch.tensor([1, 3]))
    assert result.shape == (0, 5)


@pytest.mark.parametrize("op, include_self", [("copy", True), ("add", True), ("add", False), ("mul", True), ("mul", False),
                                              ("max", True), ("max", False), ("min", True), ("min", False)])
def test_scatter_matches_torch(kernel_of, op: str, include_self: bool) -> None:  # noqa: ANN001
    fn = kernel_of("%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>",
                   f'%0 = "poplar.popops_scatter"(%x, %i, %u) {{dim = 1 : i64, op = "{op}", include_self = {str(include_self).lower()}}} '
                   ': (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>')
    x, updates = torch.randn(3, 4), torch.randn(3, 2)
    indices = torch.tensor([[0, 2], [1, 1], [3, 0]])
    if op == "copy":
        expected = torch.scatter(x, 1, indices, updates)
    else:
        reduce = {"add": "sum", "mul": "prod", "max": "amax", "min": "amin"}[op]
        expected = torch.scatter_reduce(x, 1, indices, updates, reduce, include_self=include_self)
    torch.testing.assert_close(fn(x, indices, updates), expected, **EXACT)


def test_scatter_takes_int32_indices(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%x: tensor<4xi64>, %i: tensor<3xi32>, %u: tensor<3xi64>",
                   '%0 = "poplar.popops_scatter"(%x, %i, %u) {dim = 0 : i64, op = "add", include_self = true} '
                   ': (tensor<4xi64>, tensor<3xi32>, tensor<3xi64>) -> tensor<4xi64>')
    x, indices, updates = torch.arange(4), torch.tensor([1, 1, 3], dtype=torch.int32), torch.tensor([10, 20, 30])
    torch.testing.assert_close(fn(x, indices, updates), torch.tensor([0, 31, 2, 33]), **EXACT)


def test_reverse_flips_the_given_dims(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<2x3x4xf32>", '%0 = "poplar.reverse"(%a) {dims = array<i64: 0, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>')
    a = torch.randn(2, 3, 4)
    torch.testing.assert_close(fn(a), torch.flip(a, [0, 2]), **EXACT)

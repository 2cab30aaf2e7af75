"""Sorting kernels against torch: popops_sort_key_value (the values follow the keys'
permutation, stable or not, either direction) and popops_top_k (largest / smallest,
sorted, the indices in the result's integer type)."""

from __future__ import annotations

import torch

EXACT = {"rtol": 0, "atol": 0}


def _sort(kernel_of, descending: bool, stable: bool, keys: str = "f32", values: str = "i64"):  # noqa: ANN001, ANN202
    flags = f"descending = {str(descending).lower()}, stable = {str(stable).lower()}"
    return kernel_of(f"%k: tensor<2x5x{keys}>, %v: tensor<2x5x{values}>",
                     f'%0:2 = "poplar.popops_sort_key_value"(%k, %v) {{dim = 1 : i64, {flags}}}'
                     f" : (tensor<2x5x{keys}>, tensor<2x5x{values}>) -> (tensor<2x5x{keys}>, tensor<2x5x{values}>)")


def test_sort_key_value_with_an_iota_gives_torch_sort(kernel_of) -> None:  # noqa: ANN001
    keys = torch.tensor([[0.5, -1.0, float("nan"), 2.0, 0.0], [3.0, 3.0, -4.0, 1.0, float("inf")]])
    iota = torch.arange(5).expand(2, 5).contiguous()
    for descending in (False, True):
        values, indices = _sort(kernel_of, descending, False)(keys, iota)
        want_values, want_indices = torch.sort(keys, dim=1, descending=descending)
        torch.testing.assert_close(values, want_values, **EXACT, equal_nan=True)
        assert torch.equal(indices, want_indices)


def test_stable_sort_keeps_the_order_of_equal_keys(kernel_of) -> None:  # noqa: ANN001
    keys = torch.tensor([[2, 1, 2, 1, 2], [0, 0, 0, 0, 0]], dtype=torch.int32)
    iota = torch.arange(5).expand(2, 5).contiguous()
    _, ascending = _sort(kernel_of, False, True, keys="i32")(keys, iota)
    _, descending = _sort(kernel_of, True, True, keys="i32")(keys, iota)
    assert ascending.tolist() == [[1, 3, 0, 2, 4], [0, 1, 2, 3, 4]]
    assert descending.tolist() == [[0, 2, 4, 1, 3], [0, 1, 2, 3, 4]]


def test_values_are_permuted_as_the_keys(kernel_of) -> None:  # noqa: ANN001
    keys = torch.tensor([[3.0, 1.0, 2.0, 5.0, 4.0], [0.0, -1.0, -2.0, -3.0, -4.0]])
    values = keys * 10
    sorted_keys, sorted_values = _sort(kernel_of, False, False, values="f32")(keys, values)
    torch.testing.assert_close(sorted_values, sorted_keys * 10, **EXACT)


def test_top_k_largest_and_smallest(kernel_of) -> None:  # noqa: ANN001
    x = torch.randn(3, 6)
    for largest in (True, False):
        fn = kernel_of("%a: tensor<3x6xf32>",
                       f'%0:2 = "poplar.popops_top_k"(%a) {{dim = 0 : i64, k = 2 : i64, largest = {str(largest).lower()}, sorted = true}}'
                       " : (tensor<3x6xf32>) -> (tensor<2x6xf32>, tensor<2x6xi64>)")
        values, indices = fn(x)
        want_values, want_indices = torch.topk(x, 2, dim=0, largest=largest)
        torch.testing.assert_close(values, want_values, **EXACT)
        assert torch.equal(indices, want_indices)


def test_top_k_indices_take_the_result_element_type(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<6xi64>",
                   '%0:2 = "poplar.popops_top_k"(%a) {dim = 0 : i64, k = 3 : i64, largest = true, sorted = false}'
                   " : (tensor<6xi64>) -> (tensor<3xi64>, tensor<3xi32>)")
    x = torch.tensor([4, 9, 1, 7, 3, 8])
    values, indices = fn(x)
    want_values, want_indices = torch.topk(x, 3, sorted=False)
    assert indices.dtype == torch.int32
    assert torch.equal(values, want_values) and indices.tolist() == want_indices.tolist()


def _statistic(kernel_of, statistic: str, k: int = 0, keep: bool = False, index: str = "i64"):  # noqa: ANN001, ANN202
    out = "4x1" if keep else "4"
    return kernel_of("%a: tensor<4x9xf32>",
                     f'%0:2 = "poplar.popops_order_statistic"(%a) {{statistic = "{statistic}", dim = 1 : i64, k = {k} : i64, '
                     f'keep_dims = {str(keep).lower()}}} : (tensor<4x9xf32>) -> (tensor<{out}xf32>, tensor<{out}x{index}>)')


def test_order_statistics_give_eager_values_and_positions_of_repeats(kernel_of) -> None:  # noqa: ANN001
    generator = torch.Generator().manual_seed(3)
    x = torch.randint(0, 3, (4, 9), generator=generator).float()
    x[1, 2], x[2] = float("nan"), float("nan")  # a line with a NaN, a line of NaNs
    cases = {
        ("kth_value", 4): torch.kthvalue(x, 4, dim=1),
        ("median", 0): torch.median(x, dim=1),
        ("nan_median", 0): torch.nanmedian(x, dim=1),
        ("mode", 0): torch.mode(x, dim=1),
    }
    for (statistic, k), (want_values, want_indices) in cases.items():
        values, indices = _statistic(kernel_of, statistic, k)(x)
        torch.testing.assert_close(values, want_values, **EXACT, equal_nan=True, msg=statistic)
        assert torch.equal(indices, want_indices), statistic


def test_order_statistic_keeps_the_dim_and_takes_the_index_type(kernel_of) -> None:  # noqa: ANN001
    x = torch.randn(4, 9)
    values, indices = _statistic(kernel_of, "median", keep=True, index="i32")(x)
    want_values, want_indices = torch.median(x, dim=1, keepdim=True)
    torch.testing.assert_close(values, want_values, **EXACT)
    assert indices.dtype == torch.int32 and torch.equal(indices, want_indices.int())


def test_search_sorted_left_right_and_sorter(kernel_of) -> None:  # noqa: ANN001
    sequence = torch.tensor([3.0, -1.0, 0.0, 0.0, 2.0])
    order = torch.argsort(sequence)
    x = torch.tensor([[0.0, -5.0, 2.5], [3.0, 1.0, float("nan")]])
    for right in (False, True):
        fn = kernel_of("%s: tensor<5xf32>, %x: tensor<2x3xf32>, %o: tensor<5xi64>",
                       f'%0 = "poplar.popops_search_sorted"(%s, %x, %o) {{right = {str(right).lower()}, '
                       'operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<5xf32>, tensor<2x3xf32>, tensor<5xi64>) -> tensor<2x3xi32>')
        got = fn(sequence, x, order)
        assert got.dtype == torch.int32
        assert torch.equal(got, torch.searchsorted(sequence, x, right=right, sorter=order, out_int32=True))


def test_search_sorted_one_line_per_row(kernel_of) -> None:  # noqa: ANN001
    lines = torch.sort(torch.randn(2, 4), dim=1).values
    x = torch.randn(2, 3)
    fn = kernel_of("%s: tensor<2x4xf32>, %x: tensor<2x3xf32>",
                   '%0 = "poplar.popops_search_sorted"(%s, %x) {right = false, operandSegmentSizes = array<i32: 1, 1, 0>}'
                   " : (tensor<2x4xf32>, tensor<2x3xf32>) -> tensor<2x3xi64>")
    assert torch.equal(fn(lines, x), torch.searchsorted(lines, x))

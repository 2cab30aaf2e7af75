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

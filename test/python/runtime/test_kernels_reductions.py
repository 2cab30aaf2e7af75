"""Reduction kernels against torch: popops_reduce and the arg-max / arg-min ops."""

from __future__ import annotations

import torch

EXACT = {"rtol": 0, "atol": 0}


def test_add_with_scale_one_over_n_is_the_mean(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<2x3xf32>",
                   '%0 = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 1>, keep_dims = false, scale = 0.3333333333333333 : f64}'
                   " : (tensor<2x3xf32>) -> tensor<2xf32>")
    a = torch.randn(2, 3)
    torch.testing.assert_close(fn(a), a.mean(dim=1), **EXACT)


def test_scaled_sum_keeping_dims(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<2x3xf32>",
                   '%0 = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 0>, keep_dims = true, scale = 2.0 : f64}'
                   " : (tensor<2x3xf32>) -> tensor<1x3xf32>")
    a = torch.randn(2, 3)
    torch.testing.assert_close(fn(a), a.sum(dim=0, keepdim=True) * 2.0, **EXACT)


def test_max_square_add_and_product(kernel_of) -> None:  # noqa: ANN001
    a = torch.randn(2, 3, 4)
    for op, reference in (("max", a.amax(dim=(0, 2))), ("square_add", (a * a).sum(dim=(0, 2))), ("mul", a.prod(dim=2).prod(dim=0))):
        fn = kernel_of("%a: tensor<2x3x4xf32>",
                       f'%0 = "poplar.popops_reduce"(%a) {{op = "{op}", dims = array<i64: 0, 2>, keep_dims = false, scale = 1.0 : f64}}'
                       " : (tensor<2x3x4xf32>) -> tensor<3xf32>")
        torch.testing.assert_close(fn(a), reference, rtol=1e-5, atol=0)


def test_logical_or(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<2x3xi1>",
                   '%0 = "poplar.popops_reduce"(%a) {op = "logical_or", dims = array<i64: 1>, keep_dims = false, scale = 1.0 : f64}'
                   " : (tensor<2x3xi1>) -> tensor<2xi1>")
    a = torch.tensor([[False, True, False], [False, False, False]])
    assert fn(a).tolist() == [True, False]


def test_arg_max_and_arg_min_give_the_first_index_in_the_result_type(kernel_of) -> None:  # noqa: ANN001
    a = torch.tensor([[1.0, 3.0, 3.0], [2.0, 0.0, 0.0]])
    arg_max = kernel_of("%a: tensor<2x3xf32>", '%0 = "poplar.popops_arg_max"(%a) {dim = 1 : i64, keep_dims = false} : (tensor<2x3xf32>) -> tensor<2xi32>')
    arg_min = kernel_of("%a: tensor<2x3xf32>", '%0 = "poplar.popops_arg_min"(%a) {dim = 1 : i64, keep_dims = true} : (tensor<2x3xf32>) -> tensor<2x1xi64>')
    out = arg_max(a)
    assert out.dtype == torch.int32 and out.tolist() == [1, 0]
    assert arg_min(a).tolist() == [[0], [1]]


def test_cumulative_sum_converts_then_scans(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<2x3xi32>", '%0 = "poplar.popops_cumulative_sum"(%a) {dim = 1 : i64} : (tensor<2x3xi32>) -> tensor<2x3xi64>')
    a = torch.tensor([[1, -2, 3], [4, 5, -6]], dtype=torch.int32)
    out = fn(a)
    assert out.dtype == torch.int64
    assert out.tolist() == [[1, -1, 2], [4, 9, 3]]


def test_cumulative_sum_of_floats_is_torch_cumsum(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<3x4xf32>", '%0 = "poplar.popops_cumulative_sum"(%a) {dim = 0 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>')
    a = torch.randn(3, 4)
    torch.testing.assert_close(fn(a), torch.cumsum(a, 0), **EXACT)


def test_cumulative_product(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<4xf32>", '%0 = "poplar.popops_cumulative_product"(%a) {dim = 0 : i64} : (tensor<4xf32>) -> tensor<4xf64>')
    out = fn(torch.tensor([2.0, -1.5, 0.5, 4.0]))
    assert out.dtype == torch.float64
    assert out.tolist() == [2.0, -3.0, -1.5, -6.0]


def test_arg_max_of_booleans_is_the_first_true(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<2x3xi1>", '%0 = "poplar.popops_arg_max"(%a) {dim = 1 : i64, keep_dims = false} : (tensor<2x3xi1>) -> tensor<2xi64>')
    assert fn(torch.tensor([[False, True, True], [False, False, False]])).tolist() == [1, 0]

"""Pooling kernels against torch: window sums (the ATen average with divisor 1, exact with
ceil mode), 1-D pools and their gradients (run as 2-D pools over a height of 1)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

EXACT = {"rtol": 0, "atol": 0}
CLOSE = {"rtol": 1e-5, "atol": 1e-6}


def _grad(fn, x: torch.Tensor, grad: torch.Tensor) -> torch.Tensor:  # noqa: ANN001
    leaf = x.clone().requires_grad_(True)
    fn(leaf).backward(grad)
    return leaf.grad


def test_window_sums_count_clipped_windows_exactly(kernel_of) -> None:  # noqa: ANN001
    # 6 wide, kernel 3, stride 2, ceil mode: the last window hangs over the end (one element).
    fn = kernel_of("%x: tensor<1x2x6x6xf32>",
                   '%0 = "poplar.popnn_pool"(%x) {kind = "sum", kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>,'
                   " ceil_mode = true, count_include_pad = false} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>")
    x = torch.randn(1, 2, 6, 6)
    expected = F.pad(x, (0, 1, 0, 1)).unfold(2, 3, 2).unfold(3, 3, 2).sum((-1, -2))
    torch.testing.assert_close(fn(x), expected, **CLOSE)
    torch.testing.assert_close(fn(x), F.avg_pool2d(x, 3, 2, 0, True, True, divisor_override=1), **EXACT)


@pytest.mark.parametrize(("kind", "reference"), [
    ("max", lambda x: F.max_pool1d(x, 3, 2, 1)),
    ("avg", lambda x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False)),
    ("sum", lambda x: F.avg_pool1d(x, 3, 2, 1) * 3),
])
def test_one_dimensional_pools_and_their_gradients(kernel_of, kind, reference) -> None:  # noqa: ANN001
    window = "kernel = array<i64: 3>, stride = array<i64: 2>, padding = array<i64: 1>, ceil_mode = false, count_include_pad = false"
    pool = kernel_of("%x: tensor<2x3x9xf32>", f'%0 = "poplar.popnn_pool"(%x) {{kind = "{kind}", {window}}} : (tensor<2x3x9xf32>) -> tensor<2x3x5xf32>')
    grad = kernel_of("%x: tensor<2x3x9xf32>, %g: tensor<2x3x5xf32>",
                     f'%0 = "poplar.popnn_pool_grad"(%x, %g) {{kind = "{kind}", {window}}} : (tensor<2x3x9xf32>, tensor<2x3x5xf32>) -> tensor<2x3x9xf32>')
    x, g = torch.randn(2, 3, 9), torch.randn(2, 3, 5)
    torch.testing.assert_close(pool(x), reference(x), **CLOSE)
    torch.testing.assert_close(grad(x, g), _grad(reference, x, g), **CLOSE)


def test_one_dimensional_max_pool_gradient_from_kept_indices(kernel_of) -> None:  # noqa: ANN001
    window = "kernel = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 0>, ceil_mode = false"
    forward = kernel_of("%x: tensor<1x2x6xf32>", f'%0:2 = "poplar.popnn_max_pool_with_indices"(%x) {{{window}}}'
                                                 " : (tensor<1x2x6xf32>) -> (tensor<1x2x3xf32>, tensor<1x2x3xi64>)")
    backward = kernel_of("%x: tensor<1x2x6xf32>, %g: tensor<1x2x3xf32>, %i: tensor<1x2x3xi64>",
                         f'%0 = "poplar.popnn_max_pool_grad_with_indices"(%x, %g, %i) {{{window}}}'
                         " : (tensor<1x2x6xf32>, tensor<1x2x3xf32>, tensor<1x2x3xi64>) -> tensor<1x2x6xf32>")
    x, g = torch.randn(1, 2, 6), torch.randn(1, 2, 3)
    _, indices = forward(x)
    torch.testing.assert_close(backward(x, g, indices), _grad(lambda t: F.max_pool1d(t, 2), x, g), **EXACT)


def test_window_sum_gradient_spreads_each_output_gradient_over_its_window(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%x: tensor<1x2x5x5xf32>, %g: tensor<1x2x3x3xf32>",
                   '%0 = "poplar.popnn_pool_grad"(%x, %g) {kind = "sum", kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>,'
                   " padding = array<i64: 1, 1>, ceil_mode = true, count_include_pad = false}"
                   " : (tensor<1x2x5x5xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>")
    x, g = torch.randn(1, 2, 5, 5), torch.randn(1, 2, 3, 3)
    expected = _grad(lambda t: F.avg_pool2d(t, 3, 2, 1, True, True, divisor_override=1), x, g)
    torch.testing.assert_close(fn(x, g), expected, **EXACT)

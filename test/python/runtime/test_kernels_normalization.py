"""Kernels of the popnn forward ops against torch: pooling (and the argmax kept for the
gradient), normalisation, non-linearities."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

EXACT = {"rtol": 0, "atol": 0}
WINDOW = "kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true"


@pytest.mark.parametrize(("kind", "reference"), [
    ("max", lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True)),
    ("avg", lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)),
    ("sum", lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=True) * 9),
])
def test_pool(kernel_of, kind, reference) -> None:  # noqa: ANN001
    fn = kernel_of("%x: tensor<1x4x5x5xf32>",
                   f'%0 = "poplar.popnn_pool"(%x) {{kind = "{kind}", {WINDOW}, count_include_pad = false}} : (tensor<1x4x5x5xf32>) -> tensor<1x4x3x3xf32>')
    x = torch.randn(1, 4, 5, 5)
    torch.testing.assert_close(fn(x), reference(x), rtol=1e-5, atol=1e-6)


def test_max_pool_with_indices_gives_torch_argmax(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%x: tensor<1x4x5x5xf32>",
                   f'%0:2 = "poplar.popnn_max_pool_with_indices"(%x) {{{WINDOW}}} : (tensor<1x4x5x5xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x4x3x3xi64>)')
    x = torch.randn(1, 4, 5, 5)
    out, indices = fn(x)
    expected, expected_indices = F.max_pool2d(x, 3, 2, 1, ceil_mode=True, return_indices=True)
    torch.testing.assert_close(out, expected, **EXACT)
    assert torch.equal(indices, expected_indices)


def test_max_pool_with_i32_indices(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%x: tensor<1x2x6xf32>",
                   '%0:2 = "poplar.popnn_max_pool_with_indices"(%x) {kernel = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 0>, ceil_mode = false}'
                   " : (tensor<1x2x6xf32>) -> (tensor<1x2x3xf32>, tensor<1x2x3xi32>)")
    x = torch.randn(1, 2, 6)
    out, indices = fn(x)
    expected, expected_indices = F.max_pool1d(x, 2, 2, return_indices=True)
    assert indices.dtype == torch.int32 and indices.tolist() == expected_indices.tolist()
    torch.testing.assert_close(out, expected, **EXACT)


def test_batch_norm_with_running_statistics(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%x: tensor<2x4x3x3xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>",
                   '%0 = "poplar.popnn_norm"(%x, %w, %b, %m, %v) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64,'
                   " operandSegmentSizes = array<i32: 1, 1, 1, 2>}"
                   " : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>")
    x, w, b, m, v = torch.randn(2, 4, 3, 3), torch.randn(4), torch.randn(4), torch.randn(4), torch.rand(4) + 0.5
    torch.testing.assert_close(fn(x, w, b, m, v), F.batch_norm(x, m, v, w, b, False, 0.0, 1e-5), **EXACT)


def test_layer_and_group_norm(kernel_of) -> None:  # noqa: ANN001
    layer = kernel_of("%x: tensor<2x4xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>",
                      '%0 = "poplar.popnn_norm"(%x, %w, %b) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64,'
                      " operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>")
    group = kernel_of("%x: tensor<2x4x3xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>",
                      '%0 = "poplar.popnn_norm"(%x, %w, %b) {kind = "group", epsilon = 1.0e-03 : f64, num_groups = 2 : i64, num_dims = 1 : i64,'
                      " operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3xf32>")
    x, x3, w, b = torch.randn(2, 4), torch.randn(2, 4, 3), torch.randn(4), torch.randn(4)
    torch.testing.assert_close(layer(x, w, b), F.layer_norm(x, [4], w, b, 1e-5), **EXACT)
    torch.testing.assert_close(group(x3, w, b), F.group_norm(x3, 2, w, b, 1e-3), **EXACT)


def test_layer_norm_training_gives_the_statistics_the_gradient_reads(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%x: tensor<2x4xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>",
                   '%0:3 = "poplar.popnn_norm_training"(%x, %w, %b) {kind = "layer", epsilon = 1.0e-05 : f64, momentum = 0.0 : f64,'
                   " num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>}"
                   " : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)")
    x, w, b = torch.randn(2, 4), torch.randn(4), torch.randn(4)
    out, mean, rstd = fn(x, w, b)
    torch.testing.assert_close(out, F.layer_norm(x, [4], w, b, 1e-5), **EXACT)
    torch.testing.assert_close(mean, x.mean(dim=1, keepdim=True), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(rstd, torch.rsqrt(x.var(dim=1, unbiased=False, keepdim=True) + 1e-5), rtol=1e-5, atol=0)


@pytest.mark.parametrize(("kind", "reference"), [
    ("relu", torch.relu), ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh")), ("silu", F.silu),
    ("softmax", lambda x: torch.softmax(x, 1)), ("log_softmax", lambda x: torch.log_softmax(x, 1)),
])
def test_nonlinearity(kernel_of, kind, reference) -> None:  # noqa: ANN001
    fn = kernel_of("%x: tensor<2x5xf32>", f'%0 = "poplar.popnn_nonlinearity"(%x) {{kind = "{kind}", dim = 1 : i64}} : (tensor<2x5xf32>) -> tensor<2x5xf32>')
    x = torch.randn(2, 5)
    torch.testing.assert_close(fn(x), reference(x), **EXACT)


def test_group_norm_reads_expanded_tensors(kernel_of) -> None:  # noqa: ANN001
    """The gradient of a sum reaches the gradient kernel as an expanded (stride 0) tensor,
    and a broadcast input reaches the forward one: ATen's kernels read them densely."""
    forward = kernel_of("%x: tensor<2x6x3xf32>, %w: tensor<6xf32>, %b: tensor<6xf32>",
                        '%0:3 = "poplar.popnn_norm_training"(%x, %w, %b) {kind = "group", epsilon = 5.0e-01 : f64, momentum = 0.0 : f64,'
                        " num_groups = 2 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>,"
                        " resultSegmentSizes = array<i32: 1, 1, 1, 0>}"
                        " : (tensor<2x6x3xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<2x6x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>)")
    backward = kernel_of("%g: tensor<2x6x3xf32>, %x: tensor<2x6x3xf32>, %m: tensor<2x2xf32>, %r: tensor<2x2xf32>, %w: tensor<6xf32>",
                         '%0:3 = "poplar.popnn_norm_grad"(%g, %x, %m, %r, %w) {kind = "group", epsilon = 5.0e-01 : f64, num_groups = 2 : i64,'
                         " num_dims = 1 : i64} : (tensor<2x6x3xf32>, tensor<2x6x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<6xf32>)"
                         " -> (tensor<2x6x3xf32>, tensor<6xf32>, tensor<6xf32>)")
    x, w, b = torch.randn(1, 6, 3).expand(2, 6, 3), torch.randn(6), torch.randn(6)
    y, mean, rstd = forward(x, w, b)
    expected = torch.ops.aten.native_group_norm(x.contiguous(), w, b, 2, 6, 3, 2, 0.5)
    for got, want in zip((y, mean, rstd), expected, strict=True):
        torch.testing.assert_close(got, want, **EXACT)
    ones = torch.ones(()).expand(2, 6, 3)
    want = torch.ops.aten.native_group_norm_backward(ones.contiguous(), x.contiguous(), mean, rstd, w, 2, 6, 3, 2, [True, True, True])
    for got, expect in zip(backward(ones, x, mean, rstd, w), want, strict=True):
        torch.testing.assert_close(got, expect, **EXACT)

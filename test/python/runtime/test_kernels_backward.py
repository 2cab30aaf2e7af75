"""Gradient kernels against eager autograd: non-linearities, normalisation, convolution,
pooling (from the argmax kept by the forward too), the NLL loss and embeddings."""

from __future__ import annotations

import torch
import torch.nn.functional as F

EXACT = {"rtol": 0, "atol": 0}
CLOSE = {"rtol": 1e-5, "atol": 1e-6}


def _grad(fn, *inputs: torch.Tensor, grad: torch.Tensor) -> tuple[torch.Tensor, ...]:  # noqa: ANN001
    leaves = [t.clone().requires_grad_(True) for t in inputs]
    fn(*leaves).backward(grad)
    return tuple(leaf.grad for leaf in leaves)


def test_relu_and_softmax_gradients(kernel_of) -> None:  # noqa: ANN001
    relu = kernel_of("%g: tensor<2x5xf32>, %x: tensor<2x5xf32>",
                     '%0 = "poplar.popnn_nonlinearity_grad"(%g, %x) {kind = "relu", dim = 0 : i64} : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>')
    softmax = kernel_of("%g: tensor<2x5xf32>, %y: tensor<2x5xf32>",
                        '%0 = "poplar.popnn_nonlinearity_grad"(%g, %y) {kind = "softmax", dim = 1 : i64} : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>')
    x, g = torch.randn(2, 5), torch.randn(2, 5)
    torch.testing.assert_close(relu(g, x), _grad(torch.relu, x, grad=g)[0], **EXACT)
    torch.testing.assert_close(softmax(g, torch.softmax(x, 1)), _grad(lambda t: torch.softmax(t, 1), x, grad=g)[0], **CLOSE)


def test_layer_norm_gradients(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%g: tensor<3x4xf32>, %x: tensor<3x4xf32>, %m: tensor<3x1xf32>, %r: tensor<3x1xf32>, %w: tensor<4xf32>",
                   '%0:3 = "poplar.popnn_norm_grad"(%g, %x, %m, %r, %w) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64}'
                   " : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x1xf32>, tensor<3x1xf32>, tensor<4xf32>) -> (tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>)")
    x, w, b, g = torch.randn(3, 4), torch.randn(4), torch.randn(4), torch.randn(3, 4)
    _, mean, rstd = torch.ops.aten.native_layer_norm(x, [4], w, b, 1e-5)
    expected = _grad(lambda a, c, d: F.layer_norm(a, [4], c, d, 1e-5), x, w, b, grad=g)
    for got, want in zip(fn(g, x, mean, rstd, w), expected, strict=True):
        torch.testing.assert_close(got, want, **CLOSE)


def test_convolution_gradients_as_requested_by_the_result_groups(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%g: tensor<1x4x2x2xf32>, %x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>",
                   '%0:3 = "poplar.poplin_conv_grad"(%g, %x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 2, 2>,'
                   " groups = 2 : i64, resultSegmentSizes = array<i32: 1, 1, 1>}"
                   " : (tensor<1x4x2x2xf32>, tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>)")
    weights_only = kernel_of("%g: tensor<1x4x2x2xf32>, %x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>",
                             '%0 = "poplar.poplin_conv_grad"(%g, %x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 2, 2>,'
                             " groups = 2 : i64, resultSegmentSizes = array<i32: 0, 1, 0>}"
                             " : (tensor<1x4x2x2xf32>, tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<4x2x3x3xf32>")
    x, w, b, g = torch.randn(1, 4, 5, 5), torch.randn(4, 2, 3, 3), torch.randn(4), torch.randn(1, 4, 2, 2)
    expected = _grad(lambda a, c, d: F.conv2d(a, c, d, 2, 1, 2, 2), x, w, b, grad=g)
    for got, want in zip(fn(g, x, w), expected, strict=True):
        torch.testing.assert_close(got, want, **CLOSE)
    # One requested result (a first Conv2d(bias=False): no input gradient, no bias) is one tensor, as the decoder stores it.
    torch.testing.assert_close(weights_only(g, x, w), expected[1], **CLOSE)


WINDOW = "kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false"


def _tied_input() -> torch.Tensor:
    """Windows whose maximum appears twice: the gradient goes to the first, as eager's."""
    x = torch.randn(1, 2, 4, 4)
    x[0, 0, 0, 0] = x[0, 0, 0, 1] = x[0, 0, :2, :2].max() + 1.0
    return x


def test_max_pool_gradient_from_the_input(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%x: tensor<1x2x4x4xf32>, %g: tensor<1x2x2x2xf32>",
                   f'%0 = "poplar.popnn_pool_grad"(%x, %g) {{kind = "max", {WINDOW}, count_include_pad = true}}'
                   " : (tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32>")
    x, g = _tied_input(), torch.randn(1, 2, 2, 2)
    torch.testing.assert_close(fn(x, g), _grad(lambda t: F.max_pool2d(t, 2), x, grad=g)[0], **EXACT)


def test_max_pool_gradient_from_the_kept_indices(kernel_of) -> None:  # noqa: ANN001
    forward = kernel_of("%x: tensor<1x2x4x4xf32>",
                        f'%0:2 = "poplar.popnn_max_pool_with_indices"(%x) {{{WINDOW}}} : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)')
    backward = kernel_of("%x: tensor<1x2x4x4xf32>, %g: tensor<1x2x2x2xf32>, %i: tensor<1x2x2x2xi64>",
                         f'%0 = "poplar.popnn_max_pool_grad_with_indices"(%x, %g, %i) {{{WINDOW}}}'
                         " : (tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) -> tensor<1x2x4x4xf32>")
    x, g = _tied_input(), torch.randn(1, 2, 2, 2)
    _, indices = forward(x)
    torch.testing.assert_close(backward(x, g, indices), _grad(lambda t: F.max_pool2d(t, 2), x, grad=g)[0], **EXACT)


def test_average_pool_gradient(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%x: tensor<1x2x4x4xf32>, %g: tensor<1x2x2x2xf32>",
                   f'%0 = "poplar.popnn_pool_grad"(%x, %g) {{kind = "avg", {WINDOW}, count_include_pad = true}}'
                   " : (tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32>")
    x, g = torch.randn(1, 2, 4, 4), torch.randn(1, 2, 2, 2)
    torch.testing.assert_close(fn(x, g), _grad(lambda t: F.avg_pool2d(t, 2), x, grad=g)[0], **EXACT)


def test_nll_loss_gradient(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%g: tensor<f32>, %lp: tensor<4x3xf32>, %t: tensor<4xi64>",
                   '%0 = "poplar.popnn_nll_loss_grad"(%g, %lp, %t) {reduction = "mean", ignore_index = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>}'
                   " : (tensor<f32>, tensor<4x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>")
    log_probs, target, g = torch.log_softmax(torch.randn(4, 3), 1), torch.tensor([0, 1, 2, 2]), torch.tensor(1.5)
    expected = _grad(lambda t: F.nll_loss(t, target, ignore_index=1), log_probs, grad=g)[0]
    torch.testing.assert_close(fn(g, log_probs, target), expected, **EXACT)


def test_weighted_nll_loss_gradient(kernel_of) -> None:  # noqa: ANN001
    """With class weights, the mean's gradient divides by the selected weights' sum."""
    fn = kernel_of("%g: tensor<f32>, %lp: tensor<4x3xf32>, %t: tensor<4xi64>, %w: tensor<3xf32>",
                   '%0 = "poplar.popnn_nll_loss_grad"(%g, %lp, %t, %w) {reduction = "mean", ignore_index = 1 : i64, '
                   'operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<f32>, tensor<4x3xf32>, tensor<4xi64>, tensor<3xf32>) -> tensor<4x3xf32>')
    log_probs, target, g = torch.log_softmax(torch.randn(4, 3), 1), torch.tensor([0, 1, 2, 2]), torch.tensor(1.5)
    weight = torch.tensor([0.5, 3.0, 2.0])
    expected = _grad(lambda t: F.nll_loss(t, target, weight, ignore_index=1), log_probs, grad=g)[0]
    torch.testing.assert_close(fn(g, log_probs, target, weight), expected, **EXACT)


def test_embedding_gradient_skips_the_padding_row(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%u: tensor<2x3x4xf32>, %i: tensor<2x3xi64>",
                   '%0 = "poplar.popops_multi_update_add"(%u, %i) {padding_index = 0 : i64} : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>')
    table, ids, g = torch.randn(10, 4), torch.tensor([[0, 3, 3], [9, 0, 1]]), torch.randn(2, 3, 4)
    expected = _grad(lambda t: F.embedding(ids, t, padding_idx=0), table, grad=g)[0]
    torch.testing.assert_close(fn(g, ids), expected, **EXACT)

"""Linear algebra kernels against torch: matmul, the fused linear layer, convolution,
transposed convolution with its gradients, the DFTs and the complex views."""

from __future__ import annotations

import torch
import torch.nn.functional as F

EXACT = {"rtol": 0, "atol": 0}


def test_matmul_and_grouped_matmul(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>",
                   '%0 = "poplar.poplin_matmul"(%a, %b) : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>')
    a, b = torch.randn(2, 3, 4), torch.randn(2, 4, 5)
    torch.testing.assert_close(fn(a, b), torch.matmul(a, b), **EXACT)


def test_linear_is_eager_nn_linear(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%x: tensor<8x16xf32>, %w: tensor<5x16xf32>, %b: tensor<5xf32>",
                   '%0 = "poplar.poplin_linear"(%x, %w, %b) : (tensor<8x16xf32>, tensor<5x16xf32>, tensor<5xf32>) -> tensor<8x5xf32>')
    layer = torch.nn.Linear(16, 5)
    x = torch.randn(8, 16)
    with torch.no_grad():
        torch.testing.assert_close(fn(x, layer.weight, layer.bias), layer(x), **EXACT)


def test_convolution_with_and_without_bias(kernel_of) -> None:  # noqa: ANN001
    x, w, b = torch.randn(1, 4, 5, 5), torch.randn(4, 2, 3, 3), torch.randn(4)
    attributes = "stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 2, 2>, groups = 2 : i64"
    with_bias = kernel_of("%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>",
                          f'%0 = "poplar.poplin_conv"(%x, %w, %b) {{{attributes}, operandSegmentSizes = array<i32: 1, 1, 1>}}'
                          " : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>")
    without = kernel_of("%x: tensor<1x4x5x5xf32>, %w: tensor<4x2x3x3xf32>",
                        f'%0 = "poplar.poplin_conv"(%x, %w) {{{attributes}, operandSegmentSizes = array<i32: 1, 1, 0>}}'
                        " : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x2x2xf32>")
    torch.testing.assert_close(with_bias(x, w, b), F.conv2d(x, w, b, 2, 1, 2, 2), **EXACT)
    torch.testing.assert_close(without(x, w), F.conv2d(x, w, None, 2, 1, 2, 2), **EXACT)


def _grad(fn, *inputs: torch.Tensor, grad: torch.Tensor) -> tuple[torch.Tensor, ...]:  # noqa: ANN001
    leaves = [t.clone().requires_grad_(True) for t in inputs]
    fn(*leaves).backward(grad)
    return tuple(leaf.grad for leaf in leaves)


TRANSPOSE = ("stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, output_padding = array<i64: 1, 0>, dilation = array<i64: 1, 2>,"
             " groups = 2 : i64")


def test_transposed_convolution_with_and_without_bias(kernel_of) -> None:  # noqa: ANN001
    x, w, b = torch.randn(1, 4, 5, 5), torch.randn(4, 3, 3, 3), torch.randn(6)
    with_bias = kernel_of("%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<6xf32>",
                          f'%0 = "poplar.poplin_conv_transpose"(%x, %w, %b) {{{TRANSPOSE}, operandSegmentSizes = array<i32: 1, 1, 1>}}'
                          " : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>) -> tensor<1x6x10x11xf32>")
    without = kernel_of("%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>",
                        f'%0 = "poplar.poplin_conv_transpose"(%x, %w) {{{TRANSPOSE}, operandSegmentSizes = array<i32: 1, 1, 0>}}'
                        " : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x10x11xf32>")
    expected = F.conv_transpose2d(x, w, b, 2, 1, (1, 0), 2, (1, 2))
    torch.testing.assert_close(with_bias(x, w, b), expected, **EXACT)
    torch.testing.assert_close(without(x, w), F.conv_transpose2d(x, w, None, 2, 1, (1, 0), 2, (1, 2)), **EXACT)


def test_transposed_convolution_gradients_as_requested_by_the_result_groups(kernel_of) -> None:  # noqa: ANN001
    types = "(tensor<1x6x10x11xf32>, tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>)"
    args = "%g: tensor<1x6x10x11xf32>, %x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>"
    every = kernel_of(args, f'%0:3 = "poplar.poplin_conv_transpose_grad"(%g, %x, %w) {{{TRANSPOSE}, resultSegmentSizes = array<i32: 1, 1, 1>}}'
                            f" : {types} -> (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>)")
    weights_only = kernel_of(args, f'%0 = "poplar.poplin_conv_transpose_grad"(%g, %x, %w) {{{TRANSPOSE}, resultSegmentSizes = array<i32: 0, 1, 0>}}'
                                   f" : {types} -> tensor<4x3x3x3xf32>")
    x, w, b, g = torch.randn(1, 4, 5, 5), torch.randn(4, 3, 3, 3), torch.randn(6), torch.randn(1, 6, 10, 11)
    expected = _grad(lambda a, c, d: F.conv_transpose2d(a, c, d, 2, 1, (1, 0), 2, (1, 2)), x, w, b, grad=g)
    for got, want in zip(every(g, x, w), expected, strict=True):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(weights_only(g, x, w), expected[1], rtol=1e-5, atol=1e-6)


def test_dfts_are_atens_ffts(kernel_of) -> None:  # noqa: ANN001
    r2c = kernel_of("%x: tensor<2x9xf32>", '%0 = "poplar.poplin_dft_r2c"(%x) {dims = array<i64: 1>, normalization = "by_root_n", onesided = true}'
                                           " : (tensor<2x9xf32>) -> tensor<2x5xcomplex<f32>>")
    c2r = kernel_of("%s: tensor<2x5xcomplex<f32>>", '%0 = "poplar.poplin_dft_c2r"(%s) {dims = array<i64: 1>, normalization = "by_n", last_dim_size = 9 : i64}'
                                                    " : (tensor<2x5xcomplex<f32>>) -> tensor<2x9xf32>")
    c2c = kernel_of("%s: tensor<2x5xcomplex<f32>>", '%0 = "poplar.poplin_dft_c2c"(%s) {dims = array<i64: 0, 1>, normalization = "none", forward = false}'
                                                    " : (tensor<2x5xcomplex<f32>>) -> tensor<2x5xcomplex<f32>>")
    x = torch.randn(2, 9)
    spectrum = r2c(x)
    assert spectrum.dtype == torch.complex64
    torch.testing.assert_close(spectrum, torch.fft.rfft(x, norm="ortho"), **EXACT)
    torch.testing.assert_close(c2r(spectrum), torch.fft.irfft(spectrum, n=9), **EXACT)
    torch.testing.assert_close(c2c(spectrum), torch.fft.ifft2(spectrum, norm="forward"), **EXACT)


def test_complex_views_are_new_tensors(kernel_of) -> None:  # noqa: ANN001
    as_real = kernel_of("%s: tensor<2x5xcomplex<f32>>", '%0 = "poplar.view_as_real"(%s) : (tensor<2x5xcomplex<f32>>) -> tensor<2x5x2xf32>')
    as_complex = kernel_of("%r: tensor<2x5x2xf32>", '%0 = "poplar.view_as_complex"(%r) : (tensor<2x5x2xf32>) -> tensor<2x5xcomplex<f32>>')
    z = torch.complex(torch.randn(2, 5), torch.randn(2, 5))
    pairs = as_real(z)
    torch.testing.assert_close(pairs, torch.view_as_real(z), **EXACT)
    pairs.zero_()  # the result does not alias the operand
    assert z.abs().min() > 0
    torch.testing.assert_close(as_complex(torch.view_as_real(z)), z, **EXACT)


def test_matmul_acc_is_one_blas_call_as_eager(kernel_of) -> None:  # noqa: ANN001
    mm = kernel_of("%c: tensor<3x5xf32>, %a: tensor<3x4xf32>, %b: tensor<4x5xf32>",
                   '%0 = "poplar.poplin_matmul_acc"(%c, %a, %b) {alpha = 1.5 : f64, beta = 0.5 : f64}'
                   " : (tensor<3x5xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>")
    bmm = kernel_of("%c: tensor<5xf32>, %a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>",
                    '%0 = "poplar.poplin_matmul_acc"(%c, %a, %b) {alpha = 1.0 : f64, beta = 1.0 : f64}'
                    " : (tensor<5xf32>, tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>")
    mv = kernel_of("%c: tensor<3xf32>, %a: tensor<3x4xf32>, %v: tensor<4xf32>",
                   '%0 = "poplar.poplin_matmul_acc"(%c, %a, %v) {alpha = 1.0 : f64, beta = 0.0 : f64}'
                   " : (tensor<3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>")
    c, a, b = torch.randn(3, 5), torch.randn(3, 4), torch.randn(4, 5)
    torch.testing.assert_close(mm(c, a, b), torch.addmm(c, a, b, beta=0.5, alpha=1.5), **EXACT)
    row, a3, b3 = torch.randn(5), torch.randn(2, 3, 4), torch.randn(2, 4, 5)
    torch.testing.assert_close(bmm(row, a3, b3), torch.baddbmm(row, a3, b3), **EXACT)
    v = torch.randn(4)
    # beta 0: the accumulator is not read, NaNs and all
    torch.testing.assert_close(mv(torch.full((3,), float("nan")), a, v), a @ v, **EXACT)

// The poplar ops of transposed convolution, matMulAcc and the FFT: valid ops parse, verify and print
// (CHECK lines); each verifier rule has a case with the message a user sees.
// RUN: ipu-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: sym_name = "conv_transpose"
// CHECK: "poplar.poplin_conv_transpose"(%{{.*}}, %{{.*}}, %{{.*}}) {dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1>, output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x3x10x10xf32>
// CHECK: "poplar.poplin_conv_transpose"(%{{.*}}, %{{.*}}) {dilation = array<i64: 2>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>, output_padding = array<i64: 0>, padding = array<i64: 0>, stride = array<i64: 1>} : (tensor<2x4x7xf32>, tensor<4x3x2xf32>) -> tensor<2x6x9xf32>
// CHECK: "poplar.poplin_conv_transpose_grad"(%{{.*}}, %{{.*}}, %{{.*}}) {{{.*}}resultSegmentSizes = array<i32: 1, 1, 1>{{.*}}} : (tensor<1x3x10x10xf32>, tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>)
// CHECK: "poplar.poplin_conv_transpose_grad"(%{{.*}}, %{{.*}}, %{{.*}}) {{{.*}}resultSegmentSizes = array<i32: 0, 1, 0>{{.*}}} : (tensor<1x3x10x10xf32>, tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
func.func @conv_transpose(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>, %g: tensor<1x3x10x10xf32>,
                          %s: tensor<2x4x7xf32>, %k: tensor<4x3x2xf32>) {
  %y = "poplar.poplin_conv_transpose"(%x, %w, %b) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x3x10x10xf32>
  %z = "poplar.poplin_conv_transpose"(%s, %k) {stride = array<i64: 1>, padding = array<i64: 0>, output_padding = array<i64: 0>, dilation = array<i64: 2>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x4x7xf32>, tensor<4x3x2xf32>) -> tensor<2x6x9xf32>
  %gi, %gw, %gb = "poplar.poplin_conv_transpose_grad"(%g, %x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x3x10x10xf32>, tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>)
  %gw2 = "poplar.poplin_conv_transpose_grad"(%g, %x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, resultSegmentSizes = array<i32: 0, 1, 0>} : (tensor<1x3x10x10xf32>, tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_transpose_wrong_size(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv_transpose' op result shape must be [1, 3, 10, 10], got [1, 3, 9, 9]}}
  %y = "poplar.poplin_conv_transpose"(%x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x9x9xf32>
  return
}

// -----

func.func @conv_transpose_output_padding(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv_transpose' op output_padding [2, 2] must be smaller than the stride or the dilation in each dim}}
  %y = "poplar.poplin_conv_transpose"(%x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, output_padding = array<i64: 2, 2>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x11x11xf32>
  return
}

// -----

func.func @conv_transpose_channels(%x: tensor<1x4x5x5xf32>, %w: tensor<3x3x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv_transpose' op weights [C_in, C_out / groups, *kernel] must have the input's 4 channels first, got 3}}
  %y = "poplar.poplin_conv_transpose"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, output_padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x5x5xf32>, tensor<3x3x3x3xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @conv_transpose_bias(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv_transpose' op bias shape must be [3], got [4]}}
  %y = "poplar.poplin_conv_transpose"(%x, %w, %b) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, output_padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @conv_transpose_grad_shape(%g: tensor<1x3x9x9xf32>, %x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv_transpose_grad' op grad shape must be the forward output shape [1, 3, 10, 10], got [1, 3, 9, 9]}}
  %gw = "poplar.poplin_conv_transpose_grad"(%g, %x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, resultSegmentSizes = array<i32: 0, 1, 0>} : (tensor<1x3x9x9xf32>, tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
  return
}

// -----

// CHECK-LABEL: sym_name = "dft"
// CHECK: "poplar.poplin_dft_r2c"(%{{.*}}) {dims = array<i64: 2>, normalization = "none", onesided = true} : (tensor<2x4x9xf32>) -> tensor<2x4x5xcomplex<f32>>
// CHECK: "poplar.poplin_dft_r2c"(%{{.*}}) {dims = array<i64: 1, 2>, normalization = "by_root_n", onesided = false} : (tensor<2x4x9xf32>) -> tensor<2x4x9xcomplex<f32>>
// CHECK: "poplar.poplin_dft_c2r"(%{{.*}}) {dims = array<i64: 2>, last_dim_size = 8 : i64, normalization = "by_n"} : (tensor<2x4x5xcomplex<f32>>) -> tensor<2x4x8xf32>
// CHECK: "poplar.poplin_dft_c2c"(%{{.*}}) {dims = array<i64: 0, 2>, forward = false, normalization = "by_n"} : (tensor<2x4x5xcomplex<f32>>) -> tensor<2x4x5xcomplex<f32>>
// CHECK: "poplar.view_as_real"(%{{.*}}) : (tensor<2x4x5xcomplex<f32>>) -> tensor<2x4x5x2xf32>
// CHECK: "poplar.view_as_complex"(%{{.*}}) : (tensor<2x4x5x2xf32>) -> tensor<2x4x5xcomplex<f32>>
func.func @dft(%x: tensor<2x4x9xf32>) {
  %s = "poplar.poplin_dft_r2c"(%x) {dims = array<i64: 2>, normalization = "none", onesided = true} : (tensor<2x4x9xf32>) -> tensor<2x4x5xcomplex<f32>>
  %full = "poplar.poplin_dft_r2c"(%x) {dims = array<i64: 1, 2>, normalization = "by_root_n", onesided = false} : (tensor<2x4x9xf32>) -> tensor<2x4x9xcomplex<f32>>
  %y = "poplar.poplin_dft_c2r"(%s) {dims = array<i64: 2>, normalization = "by_n", last_dim_size = 8 : i64} : (tensor<2x4x5xcomplex<f32>>) -> tensor<2x4x8xf32>
  %t = "poplar.poplin_dft_c2c"(%s) {dims = array<i64: 0, 2>, normalization = "by_n", forward = false} : (tensor<2x4x5xcomplex<f32>>) -> tensor<2x4x5xcomplex<f32>>
  %r = "poplar.view_as_real"(%t) : (tensor<2x4x5xcomplex<f32>>) -> tensor<2x4x5x2xf32>
  %c = "poplar.view_as_complex"(%r) : (tensor<2x4x5x2xf32>) -> tensor<2x4x5xcomplex<f32>>
  return
}

// -----

func.func @r2c_onesided_size(%x: tensor<2x4x9xf32>) {
  // expected-error@+1 {{'poplar.poplin_dft_r2c' op result shape must be [2, 4, 5], got [2, 4, 9]}}
  %s = "poplar.poplin_dft_r2c"(%x) {dims = array<i64: 2>, normalization = "none", onesided = true} : (tensor<2x4x9xf32>) -> tensor<2x4x9xcomplex<f32>>
  return
}

// -----

func.func @r2c_result_element(%x: tensor<2x4x9xf32>) {
  // expected-error@+1 {{'poplar.poplin_dft_r2c' op result must have complex<f32> elements, got f32}}
  %s = "poplar.poplin_dft_r2c"(%x) {dims = array<i64: 2>, normalization = "none", onesided = true} : (tensor<2x4x9xf32>) -> tensor<2x4x5xf32>
  return
}

// -----

func.func @dft_normalization(%x: tensor<2x4x9xf32>) {
  // expected-error@+1 {{'poplar.poplin_dft_r2c' op attribute 'normalization' must be one of "none", "by_root_n", "by_n", got "ortho"}}
  %s = "poplar.poplin_dft_r2c"(%x) {dims = array<i64: 2>, normalization = "ortho", onesided = true} : (tensor<2x4x9xf32>) -> tensor<2x4x5xcomplex<f32>>
  return
}

// -----

func.func @dft_dims(%s: tensor<2x4x5xcomplex<f32>>) {
  // expected-error@+1 {{'poplar.poplin_dft_c2c' op attribute 'dims' [0, 3] out of range for rank 3}}
  %t = "poplar.poplin_dft_c2c"(%s) {dims = array<i64: 0, 3>, normalization = "none", forward = true} : (tensor<2x4x5xcomplex<f32>>) -> tensor<2x4x5xcomplex<f32>>
  return
}

// -----

func.func @c2r_input_element(%x: tensor<2x4x5xf32>) {
  // expected-error@+1 {{'poplar.poplin_dft_c2r' op input must have complex elements, got f32}}
  %y = "poplar.poplin_dft_c2r"(%x) {dims = array<i64: 2>, normalization = "by_n", last_dim_size = 8 : i64} : (tensor<2x4x5xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @c2r_size(%s: tensor<2x4x5xcomplex<f32>>) {
  // expected-error@+1 {{'poplar.poplin_dft_c2r' op result shape must be [2, 4, 9], got [2, 4, 8]}}
  %y = "poplar.poplin_dft_c2r"(%s) {dims = array<i64: 2>, normalization = "by_n", last_dim_size = 9 : i64} : (tensor<2x4x5xcomplex<f32>>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @view_as_complex_pairs(%r: tensor<2x4x3xf32>) {
  // expected-error@+1 {{'poplar.view_as_complex' op input must have a last dim of size 2, got shape [2, 4, 3]}}
  %c = "poplar.view_as_complex"(%r) : (tensor<2x4x3xf32>) -> tensor<2x4xcomplex<f32>>
  return
}

// -----

// CHECK-LABEL: sym_name = "matmul_acc"
// CHECK: "poplar.poplin_matmul_acc"(%{{.*}}, %{{.*}}, %{{.*}}) {alpha = 2.000000e+00 : f64, beta = 5.000000e-01 : f64} : (tensor<3x5xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
// CHECK: "poplar.poplin_matmul_acc"(%{{.*}}, %{{.*}}, %{{.*}}) {alpha = 1.000000e+00 : f64, beta = 1.000000e+00 : f64} : (tensor<5xf32>, tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
// CHECK: "poplar.poplin_matmul_acc"(%{{.*}}, %{{.*}}, %{{.*}}) {alpha = 1.000000e+00 : f64, beta = 0.000000e+00 : f64} : (tensor<3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
func.func @matmul_acc(%c: tensor<3x5xf32>, %a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %row: tensor<5xf32>, %a3: tensor<2x3x4xf32>,
                      %b3: tensor<2x4x5xf32>, %c1: tensor<3xf32>, %v: tensor<4xf32>) {
  %0 = "poplar.poplin_matmul_acc"(%c, %a, %b) {alpha = 2.0 : f64, beta = 0.5 : f64} : (tensor<3x5xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %1 = "poplar.poplin_matmul_acc"(%row, %a3, %b3) {alpha = 1.0 : f64, beta = 1.0 : f64} : (tensor<5xf32>, tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %2 = "poplar.poplin_matmul_acc"(%c1, %a, %v) {alpha = 1.0 : f64, beta = 0.0 : f64} : (tensor<3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @matmul_acc_broadcast(%c: tensor<4x5xf32>, %a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error@+1 {{'poplar.poplin_matmul_acc' op acc shape [4, 5] must broadcast to the product's shape [3, 5]}}
  %0 = "poplar.poplin_matmul_acc"(%c, %a, %b) {alpha = 1.0 : f64, beta = 1.0 : f64} : (tensor<4x5xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @matmul_acc_contracting(%c: tensor<3x5xf32>, %a: tensor<3x4xf32>, %b: tensor<3x5xf32>) {
  // expected-error@+1 {{'poplar.poplin_matmul_acc' op contracting dims differ: lhs [3, 4] and rhs [3, 5]}}
  %0 = "poplar.poplin_matmul_acc"(%c, %a, %b) {alpha = 1.0 : f64, beta = 1.0 : f64} : (tensor<3x5xf32>, tensor<3x4xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  return
}

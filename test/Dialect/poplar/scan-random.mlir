// Round trip of the scan ops (popops_cumulative_sum / _product / _log_sum_exp / _max / _min) and the
// random draws (poprand_uniform / poprand_normal): ipu-opt parses and
// verifies them, prints them, and parses its own output again; the stock torch-mlir-opt
// reads them through dialects/poplar.irdl.mlir. Invalid cases: scan-random-invalid.mlir.
// RUN: ipu-opt %s | FileCheck %s
// RUN: ipu-opt %s | ipu-opt | FileCheck %s
// RUN: torch-mlir-opt --irdl-file=%irdl_dir/poplar.irdl.mlir %s | FileCheck %s

// CHECK-LABEL: {{(@|sym_name = ")}}scans
func.func @scans(%a: tensor<2x3xf32>, %i: tensor<4xi32>, %s: tensor<f32>) {
  // A running sum along dim 1 in the input's type; a count of int32 in int64 (torch's
  // default for integers); a rank-0 input with dim 0; a running product.
  // CHECK: "poplar.popops_cumulative_sum"(%{{.*}}) {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = "poplar.popops_cumulative_sum"(%a) {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: "poplar.popops_cumulative_sum"(%{{.*}}) {dim = 0 : i64} : (tensor<4xi32>) -> tensor<4xi64>
  %1 = "poplar.popops_cumulative_sum"(%i) {dim = 0 : i64} : (tensor<4xi32>) -> tensor<4xi64>
  // CHECK: "poplar.popops_cumulative_sum"(%{{.*}}) {dim = 0 : i64} : (tensor<f32>) -> tensor<f64>
  %2 = "poplar.popops_cumulative_sum"(%s) {dim = 0 : i64} : (tensor<f32>) -> tensor<f64>
  // CHECK: "poplar.popops_cumulative_product"(%{{.*}}) {dim = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = "poplar.popops_cumulative_product"(%a) {dim = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // A running log-sum-exp (torch.logcumsumexp); running max / min with their positions
  // (torch.cummax over floats, torch.cummin over integers).
  // CHECK: "poplar.popops_cumulative_log_sum_exp"(%{{.*}}) {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = "poplar.popops_cumulative_log_sum_exp"(%a) {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: "poplar.popops_cumulative_max"(%{{.*}}) {dim = 0 : i64} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  %5:2 = "poplar.popops_cumulative_max"(%a) {dim = 0 : i64} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  // CHECK: "poplar.popops_cumulative_min"(%{{.*}}) {dim = 0 : i64} : (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi64>)
  %6:2 = "poplar.popops_cumulative_min"(%i) {dim = 0 : i64} : (tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi64>)
  return
}

// CHECK-LABEL: {{(@|sym_name = ")}}draws
func.func @draws() {
  // Uniform reals in [0, 1) (torch.rand), integers in [3, 9) (torch.randint), normals.
  // CHECK: "poplar.poprand_uniform"() {max_val = 1.000000e+00 : f64, min_val = 0.000000e+00 : f64} : () -> tensor<3x4xf32>
  %0 = "poplar.poprand_uniform"() {min_val = 0.0 : f64, max_val = 1.0 : f64} : () -> tensor<3x4xf32>
  // CHECK: "poplar.poprand_uniform"() {max_val = 9.000000e+00 : f64, min_val = 3.000000e+00 : f64} : () -> tensor<16xi64>
  %1 = "poplar.poprand_uniform"() {min_val = 3.0 : f64, max_val = 9.0 : f64} : () -> tensor<16xi64>
  // CHECK: "poplar.poprand_normal"() {mean = 2.000000e+00 : f64, std_dev = 5.000000e-01 : f64} : () -> tensor<8xf16>
  %2 = "poplar.poprand_normal"() {mean = 2.0 : f64, std_dev = 0.5 : f64} : () -> tensor<8xf16>
  return
}

// The sorting ops of the poplar dialect (dialects/poplar/popops_sort.py): ipu-opt parses,
// verifies and prints the valid ops (and reads its own output again); the stock
// torch-mlir-opt accepts them through dialects/poplar.irdl.mlir; each verifier rule
// rejects a wrong op with its message. Padding, resampling, im2col and grid sampling
// lower to existing ops (slices, concat, multi_slice, multi_update_add, gather, map).
// RUN: ipu-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: ipu-opt %s --split-input-file --verify-diagnostics | ipu-opt --split-input-file | FileCheck %s
// IRDL checks operand, attribute and result kinds only: torch-mlir-opt prints the valid
// sections and rejects, of the invalid ones, only the wrong result count (so it fails).
// RUN: not torch-mlir-opt --irdl-file=%irdl_dir/poplar.irdl.mlir --split-input-file %s 2>/dev/null | FileCheck %s --check-prefix=IRDL

// torch.sort(x, dim=1, descending=True): the keys, and an iota along dim 1 that becomes the indices.
// CHECK-LABEL: sym_name = "sort"
// IRDL-LABEL: func.func @sort
func.func @sort(%x: tensor<2x5xf32>, %iota: tensor<2x5xi64>) -> (tensor<2x5xf32>, tensor<2x5xi64>) {
  // CHECK: %[[S:.*]]:2 = "poplar.popops_sort_key_value"(%{{.*}}, %{{.*}}) {descending = true, dim = 1 : i64, stable = false} : (tensor<2x5xf32>, tensor<2x5xi64>) -> (tensor<2x5xf32>, tensor<2x5xi64>)
  // IRDL: "poplar.popops_sort_key_value"
  %0:2 = "poplar.popops_sort_key_value"(%x, %iota) {dim = 1 : i64, descending = true, stable = false} : (tensor<2x5xf32>, tensor<2x5xi64>) -> (tensor<2x5xf32>, tensor<2x5xi64>)
  return %0#0, %0#1 : tensor<2x5xf32>, tensor<2x5xi64>
}

// -----

// A stable sort of a rank-0 tensor (its own line, dim 0) with float values.
// CHECK-LABEL: sym_name = "stable_sort_of_a_scalar"
// IRDL-LABEL: func.func @stable_sort_of_a_scalar
func.func @stable_sort_of_a_scalar(%x: tensor<i32>, %v: tensor<f32>) -> tensor<f32> {
  // CHECK: "poplar.popops_sort_key_value"(%{{.*}}, %{{.*}}) {descending = false, dim = 0 : i64, stable = true} : (tensor<i32>, tensor<f32>) -> (tensor<i32>, tensor<f32>)
  %0:2 = "poplar.popops_sort_key_value"(%x, %v) {dim = 0 : i64, descending = false, stable = true} : (tensor<i32>, tensor<f32>) -> (tensor<i32>, tensor<f32>)
  return %0#1 : tensor<f32>
}

// -----

// torch.topk(x, 2, dim=1) and torch.topk(x, 3, dim=0, largest=False, sorted=False) with i32 indices.
// CHECK-LABEL: sym_name = "top_k"
// IRDL-LABEL: func.func @top_k
func.func @top_k(%x: tensor<4x5xf32>) -> (tensor<4x2xf32>, tensor<3x5xi32>) {
  // CHECK: "poplar.popops_top_k"(%{{.*}}) {dim = 1 : i64, k = 2 : i64, largest = true, sorted = true} : (tensor<4x5xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  // IRDL: "poplar.popops_top_k"
  %0:2 = "poplar.popops_top_k"(%x) {dim = 1 : i64, k = 2 : i64, largest = true, sorted = true} : (tensor<4x5xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  // CHECK: "poplar.popops_top_k"(%{{.*}}) {dim = 0 : i64, k = 3 : i64, largest = false, sorted = false} : (tensor<4x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xi32>)
  %1:2 = "poplar.popops_top_k"(%x) {dim = 0 : i64, k = 3 : i64, largest = false, sorted = false} : (tensor<4x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xi32>)
  return %0#0, %1#1 : tensor<4x2xf32>, tensor<3x5xi32>
}

// -----

func.func @sort_dim_out_of_range(%x: tensor<2x5xf32>, %iota: tensor<2x5xi64>) {
  // expected-error@+1 {{'poplar.popops_sort_key_value' op attribute 'dim' must be in [0, 2), got 2}}
  %0:2 = "poplar.popops_sort_key_value"(%x, %iota) {dim = 2 : i64, descending = false, stable = false} : (tensor<2x5xf32>, tensor<2x5xi64>) -> (tensor<2x5xf32>, tensor<2x5xi64>)
  return
}

// -----

func.func @sort_values_of_another_shape(%x: tensor<2x5xf32>, %iota: tensor<5xi64>) {
  // expected-error@+1 {{'poplar.popops_sort_key_value' op values shape [5] must equal the keys shape [2, 5]}}
  %0:2 = "poplar.popops_sort_key_value"(%x, %iota) {dim = 1 : i64, descending = false, stable = false} : (tensor<2x5xf32>, tensor<5xi64>) -> (tensor<2x5xf32>, tensor<5xi64>)
  return
}

// -----

func.func @sort_result_of_another_type(%x: tensor<2x5xf32>, %iota: tensor<2x5xi64>) {
  // expected-error@+1 {{'poplar.popops_sort_key_value' op sorted_values type tensor<2x5xi32> must equal the values type tensor<2x5xi64>}}
  %0:2 = "poplar.popops_sort_key_value"(%x, %iota) {dim = 1 : i64, descending = false, stable = false} : (tensor<2x5xf32>, tensor<2x5xi64>) -> (tensor<2x5xf32>, tensor<2x5xi32>)
  return
}

// -----

func.func @sort_flag_not_a_bool(%x: tensor<2x5xf32>, %iota: tensor<2x5xi64>) {
  // expected-error@+1 {{'poplar.popops_sort_key_value' op attribute 'stable' must be a bool (true/false), got 1 : i64}}
  %0:2 = "poplar.popops_sort_key_value"(%x, %iota) {dim = 1 : i64, descending = false, stable = 1} : (tensor<2x5xf32>, tensor<2x5xi64>) -> (tensor<2x5xf32>, tensor<2x5xi64>)
  return
}

// -----

func.func @top_k_larger_than_the_dim(%x: tensor<4x5xf32>) {
  // expected-error@+1 {{'poplar.popops_top_k' op attribute 'k' must be <= 5, got 6}}
  %0:2 = "poplar.popops_top_k"(%x) {dim = 1 : i64, k = 6 : i64, largest = true, sorted = true} : (tensor<4x5xf32>) -> (tensor<4x6xf32>, tensor<4x6xi64>)
  return
}

// -----

func.func @top_k_wrong_values_shape(%x: tensor<4x5xf32>) {
  // expected-error@+1 {{'poplar.popops_top_k' op values shape must be [4, 2], got [2, 5]}}
  %0:2 = "poplar.popops_top_k"(%x) {dim = 1 : i64, k = 2 : i64, largest = true, sorted = true} : (tensor<4x5xf32>) -> (tensor<2x5xf32>, tensor<4x2xi64>)
  return
}

// -----

func.func @top_k_values_of_another_element_type(%x: tensor<4x5xf32>) {
  // expected-error@+1 {{'poplar.popops_top_k' op values and input must share one element type}}
  %0:2 = "poplar.popops_top_k"(%x) {dim = 1 : i64, k = 2 : i64, largest = true, sorted = true} : (tensor<4x5xf32>) -> (tensor<4x2xf16>, tensor<4x2xi64>)
  return
}

// -----

func.func @top_k_float_indices(%x: tensor<4x5xf32>) {
  // expected-error@+1 {{'poplar.popops_top_k' op indices must have integer elements, got f32}}
  %0:2 = "poplar.popops_top_k"(%x) {dim = 1 : i64, k = 2 : i64, largest = true, sorted = true} : (tensor<4x5xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>)
  return
}

// -----

func.func @top_k_one_result(%x: tensor<4x5xf32>) {
  // expected-error@+1 {{'poplar.popops_top_k' op expects 2 results, got 1}}
  %0 = "poplar.popops_top_k"(%x) {dim = 1 : i64, k = 2 : i64, largest = true, sorted = true} : (tensor<4x5xf32>) -> tensor<4x2xf32>
  return
}

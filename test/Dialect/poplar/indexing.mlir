// The indexing ops of dialects/poplar/popops_indexing.py (popops_multi_update,
// popops_scatter) and the reverse view: valid ops round-trip through ipu-opt in generic
// form, and each verifier rule rejects a broken op with the message a user sees.
// RUN: ipu-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: ipu-opt %s --split-input-file --verify-diagnostics | ipu-opt --split-input-file | FileCheck %s

// CHECK-LABEL: sym_name = "multi_update"
func.func @multi_update(%t: tensor<10x4xf32>, %u: tensor<3x4xf32>, %i: tensor<3xi64>, %u2: tensor<10x2x3xf32>, %i2: tensor<2x3xi32>) -> (tensor<10x4xf32>, tensor<10x4xf32>) {
  // CHECK: "poplar.popops_multi_update"(%{{.*}}, %{{.*}}, %{{.*}}) {dim = 0 : i64, op = "copy"} : (tensor<10x4xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<10x4xf32>
  %0 = "poplar.popops_multi_update"(%t, %u, %i) {dim = 0 : i64, op = "copy"} : (tensor<10x4xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<10x4xf32>
  // Along dim 1, with a 2-D index: updates are the table's shape with dim 1 replaced by [2, 3].
  // CHECK: "poplar.popops_multi_update"(%{{.*}}, %{{.*}}, %{{.*}}) {dim = 1 : i64, op = "add"} : (tensor<10x4xf32>, tensor<10x2x3xf32>, tensor<2x3xi32>) -> tensor<10x4xf32>
  %1 = "poplar.popops_multi_update"(%t, %u2, %i2) {dim = 1 : i64, op = "add"} : (tensor<10x4xf32>, tensor<10x2x3xf32>, tensor<2x3xi32>) -> tensor<10x4xf32>
  return %0, %1 : tensor<10x4xf32>, tensor<10x4xf32>
}

// CHECK-LABEL: sym_name = "scatter"
func.func @scatter(%a: tensor<2x3xf32>, %i: tensor<2x2xi64>, %u: tensor<2x2xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK: "poplar.popops_scatter"(%{{.*}}, %{{.*}}, %{{.*}}) {dim = 1 : i64, include_self = true, op = "copy"} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
  %0 = "poplar.popops_scatter"(%a, %i, %u) {dim = 1 : i64, op = "copy", include_self = true} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
  // CHECK: "poplar.popops_scatter"(%{{.*}}, %{{.*}}, %{{.*}}) {dim = 0 : i64, include_self = false, op = "max"} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
  %1 = "poplar.popops_scatter"(%a, %i, %u) {dim = 0 : i64, op = "max", include_self = false} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: sym_name = "reverse"
func.func @reverse(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: "poplar.reverse"(%{{.*}}) {dims = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %0 = "poplar.reverse"(%a) {dims = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @multi_update_unknown_op(%t: tensor<10x4xf32>, %u: tensor<3x4xf32>, %i: tensor<3xi64>) {
  // expected-error@+1 {{'poplar.popops_multi_update' op attribute 'op' must be one of "copy", "add", got "max"}}
  %0 = "poplar.popops_multi_update"(%t, %u, %i) {dim = 0 : i64, op = "max"} : (tensor<10x4xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<10x4xf32>
  return
}

// -----

func.func @multi_update_updates_shape(%t: tensor<10x4xf32>, %u: tensor<3x4xf32>, %i: tensor<3xi64>) {
  // expected-error@+1 {{'poplar.popops_multi_update' op updates shape must be [10, 3] (the table's with dim 1 replaced by the indices' shape), got [3, 4]}}
  %0 = "poplar.popops_multi_update"(%t, %u, %i) {dim = 1 : i64, op = "copy"} : (tensor<10x4xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<10x4xf32>
  return
}

// -----

func.func @multi_update_mask_indices(%t: tensor<10x4xf32>, %u: tensor<3x4xf32>, %i: tensor<3xi1>) {
  // expected-error@+1 {{'poplar.popops_multi_update' op indices must have integer elements (not i1: a boolean mask is no index), got i1}}
  %0 = "poplar.popops_multi_update"(%t, %u, %i) {dim = 0 : i64, op = "copy"} : (tensor<10x4xf32>, tensor<3x4xf32>, tensor<3xi1>) -> tensor<10x4xf32>
  return
}

// -----

func.func @multi_update_dim(%t: tensor<10x4xf32>, %u: tensor<3x4xf32>, %i: tensor<3xi64>) {
  // expected-error@+1 {{'poplar.popops_multi_update' op attribute 'dim' must be in [0, 2), got 2}}
  %0 = "poplar.popops_multi_update"(%t, %u, %i) {dim = 2 : i64, op = "copy"} : (tensor<10x4xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<10x4xf32>
  return
}

// -----

func.func @multi_update_element_type(%t: tensor<10x4xf32>, %u: tensor<3x4xf16>, %i: tensor<3xi64>) {
  // expected-error@+1 {{'poplar.popops_multi_update' op updates element type f16 must be the table's f32}}
  %0 = "poplar.popops_multi_update"(%t, %u, %i) {dim = 0 : i64, op = "copy"} : (tensor<10x4xf32>, tensor<3x4xf16>, tensor<3xi64>) -> tensor<10x4xf32>
  return
}

// -----

func.func @multi_update_result(%t: tensor<10x4xf32>, %u: tensor<3x4xf32>, %i: tensor<3xi64>) {
  // expected-error@+1 {{'poplar.popops_multi_update' op result type tensor<3x4xf32> must be the table's type tensor<10x4xf32>}}
  %0 = "poplar.popops_multi_update"(%t, %u, %i) {dim = 0 : i64, op = "copy"} : (tensor<10x4xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return
}

// -----

func.func @scatter_copy_without_self(%a: tensor<2x3xf32>, %i: tensor<2x2xi64>, %u: tensor<2x2xf32>) {
  // expected-error@+1 {{'poplar.popops_scatter' op op "copy" replaces elements: include_self must be true}}
  %0 = "poplar.popops_scatter"(%a, %i, %u) {dim = 1 : i64, op = "copy", include_self = false} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @scatter_unknown_op(%a: tensor<2x3xf32>, %i: tensor<2x2xi64>, %u: tensor<2x2xf32>) {
  // expected-error@+1 {{'poplar.popops_scatter' op attribute 'op' must be one of "copy", "add", "mul", "max", "min", got "mean"}}
  %0 = "poplar.popops_scatter"(%a, %i, %u) {dim = 1 : i64, op = "mean", include_self = true} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @scatter_index_rank(%a: tensor<2x3xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) {
  // expected-error@+1 {{'poplar.popops_scatter' op indices rank 1 must equal input rank 2}}
  %0 = "poplar.popops_scatter"(%a, %i, %u) {dim = 1 : i64, op = "add", include_self = true} : (tensor<2x3xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @scatter_index_too_large(%a: tensor<2x3xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) {
  // expected-error@+1 {{'poplar.popops_scatter' op indices shape [3, 2] must not exceed input shape [2, 3] outside dim 1}}
  %0 = "poplar.popops_scatter"(%a, %i, %u) {dim = 1 : i64, op = "add", include_self = true} : (tensor<2x3xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @scatter_updates_shape(%a: tensor<2x3xf32>, %i: tensor<2x2xi64>, %u: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_scatter' op updates shape [2, 3] must equal the indices' shape [2, 2]}}
  %0 = "poplar.popops_scatter"(%a, %i, %u) {dim = 1 : i64, op = "add", include_self = true} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @scatter_float_indices(%a: tensor<2x3xf32>, %i: tensor<2x2xf32>, %u: tensor<2x2xf32>) {
  // expected-error@+1 {{'poplar.popops_scatter' op indices must have integer elements (not i1: a boolean mask is no index), got f32}}
  %0 = "poplar.popops_scatter"(%a, %i, %u) {dim = 1 : i64, op = "add", include_self = true} : (tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reverse_duplicate_dims(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.reverse' op attribute 'dims' has duplicates: [1, 1]}}
  %0 = "poplar.reverse"(%a) {dims = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reverse_dim_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.reverse' op attribute 'dims' [2] out of range for rank 2}}
  %0 = "poplar.reverse"(%a) {dims = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reverse_changes_type(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.reverse' op result type tensor<3x2xf32> must be the input type tensor<2x3xf32>}}
  %0 = "poplar.reverse"(%a) {dims = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

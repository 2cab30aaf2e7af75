// RUN: ipu-opt %s --split-input-file | FileCheck %s
// RUN: ipu-opt %s --split-input-file | ipu-opt --split-input-file | FileCheck %s

// Device control flow of the ipu dialect (dialects/ipu_control.py): poptorch.for_loop as
// ipu.for_loop and poptorch.cond as ipu.if. Values cross a region's boundary through
// ipu.carried (a loop's carried value), ipu.region_yield and ipu.region_result, matched
// by index, so carried values may have different types.

// A loop carrying two values of different types, reading a value from before it, then a
// conditional over its results, with Torch-dialect values (as ipu-raise-custom-ops makes it).
// CHECK-LABEL: sym_name = "loop_then_cond"
// CHECK: "ipu.for_loop"() ({
// CHECK-NEXT: %[[A:.*]] = "ipu.carried"(%arg0) {index = 0 : i64} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
// CHECK-NEXT: %[[N:.*]] = "ipu.carried"(%arg1) {index = 1 : i64} : (!torch.vtensor<[],si64>) -> !torch.vtensor<[],si64>
// CHECK-NEXT: %[[M:.*]] = "torch.aten.mul.Tensor"(%[[A]], %arg2)
// CHECK: "ipu.region_yield"(%[[M]]) {index = 0 : i64}
// CHECK: "ipu.region_yield"(%{{.*}}) {index = 1 : i64}
// CHECK-NEXT: }) {count = 5 : i64, name = "loop0", num_values = 2 : i64} : () -> ()
// CHECK: %[[R:.*]] = "ipu.region_result"() {index = 0 : i64, region = "loop0"} : () -> !torch.vtensor<[4],f32>
// CHECK: "ipu.if"(%{{.*}}) ({
// CHECK: "ipu.region_yield"(%{{.*}}) {index = 0 : i64}
// CHECK: }, {
// CHECK-NEXT: "ipu.region_yield"(%[[R]]) {index = 0 : i64}
// CHECK-NEXT: }) {name = "cond1", num_values = 1 : i64} : (!torch.vtensor<[],i1>) -> ()
// CHECK: "ipu.region_result"() {index = 0 : i64, region = "cond1"} : () -> !torch.vtensor<[4],f32>
func.func @loop_then_cond(%x: !torch.vtensor<[4],f32>, %n: !torch.vtensor<[],si64>, %w: !torch.vtensor<[4],f32>, %c: !torch.vtensor<[],i1>) -> !torch.vtensor<[4],f32> {
  "ipu.for_loop"() ({
    %a = "ipu.carried"(%x) {index = 0 : i64} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
    %k = "ipu.carried"(%n) {index = 1 : i64} : (!torch.vtensor<[],si64>) -> !torch.vtensor<[],si64>
    %m = torch.aten.mul.Tensor %a, %w : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
    %one = torch.constant.int 1
    %k1 = torch.aten.add.Scalar %k, %one, %one : !torch.vtensor<[],si64>, !torch.int, !torch.int -> !torch.vtensor<[],si64>
    "ipu.region_yield"(%m) {index = 0 : i64} : (!torch.vtensor<[4],f32>) -> ()
    "ipu.region_yield"(%k1) {index = 1 : i64} : (!torch.vtensor<[],si64>) -> ()
  }) {name = "loop0", count = 5 : i64, num_values = 2 : i64} : () -> ()
  %r = "ipu.region_result"() {region = "loop0", index = 0 : i64} : () -> !torch.vtensor<[4],f32>
  "ipu.if"(%c) ({
    %d = torch.aten.mul.Tensor %r, %r : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
    "ipu.region_yield"(%d) {index = 0 : i64} : (!torch.vtensor<[4],f32>) -> ()
  }, {
    "ipu.region_yield"(%r) {index = 0 : i64} : (!torch.vtensor<[4],f32>) -> ()
  }) {name = "cond1", num_values = 1 : i64} : (!torch.vtensor<[],i1>) -> ()
  %s = "ipu.region_result"() {region = "cond1", index = 0 : i64} : () -> !torch.vtensor<[4],f32>
  return %s : !torch.vtensor<[4],f32>
}

// -----

// Over builtin tensors (after convert-torch-to-poplar), a loop nested in a loop.
// CHECK-LABEL: sym_name = "nested"
// CHECK: "ipu.for_loop"() ({
// CHECK: "ipu.for_loop"() ({
// CHECK: }) {count = 3 : i64, name = "inner", num_values = 1 : i64}
// CHECK: "ipu.region_result"() {index = 0 : i64, region = "inner"} : () -> tensor<4xf32>
// CHECK: }) {count = 2 : i64, name = "outer", num_values = 1 : i64}
func.func @nested(%x: tensor<4xf32>) -> tensor<4xf32> {
  "ipu.for_loop"() ({
    %a = "ipu.carried"(%x) {index = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    "ipu.for_loop"() ({
      %b = "ipu.carried"(%a) {index = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
      %c = "poplar.popops_add"(%b, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      "ipu.region_yield"(%c) {index = 0 : i64} : (tensor<4xf32>) -> ()
    }) {name = "inner", count = 3 : i64, num_values = 1 : i64} : () -> ()
    %i = "ipu.region_result"() {region = "inner", index = 0 : i64} : () -> tensor<4xf32>
    "ipu.region_yield"(%i) {index = 0 : i64} : (tensor<4xf32>) -> ()
  }) {name = "outer", count = 2 : i64, num_values = 1 : i64} : () -> ()
  %r = "ipu.region_result"() {region = "outer", index = 0 : i64} : () -> tensor<4xf32>
  return %r : tensor<4xf32>
}

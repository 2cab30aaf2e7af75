// RUN: ipu-opt %s -p convert-torch-to-poplar --split-input-file | FileCheck %s

// The regions of ipu.for_loop and ipu.if are lowered like any block: the region op is
// rebuilt with its operands converted, its body's Torch ops become poplar ops, and
// ipu.carried / ipu.region_yield / ipu.region_result stay, over builtin tensors, for
// poplar-build-program. Values from before the region (%arg1, the product) are read as they are.

// CHECK-LABEL: sym_name = "loop_and_cond"
// CHECK: %[[Y2:.*]] = "poplar.popops_map"(%arg1) {expr = "mul(_1, 2.0)"
// CHECK: "ipu.for_loop"() ({
// CHECK-NEXT: %[[A:.*]] = "ipu.carried"(%arg0) {index = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[M:.*]] = "poplar.popops_mul"(%[[A]], %[[Y2]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: "ipu.region_yield"(%[[M]]) {index = 0 : i64} : (tensor<4xf32>) -> ()
// CHECK-NEXT: }) {count = 3 : i64, name = "loop0", num_values = 1 : i64} : () -> ()
// CHECK-NEXT: %[[R:.*]] = "ipu.region_result"() {index = 0 : i64, region = "loop0"} : () -> tensor<4xf32>
// CHECK: "ipu.if"(%arg2) ({
// CHECK-NEXT: %[[N:.*]] = "poplar.popops_map"(%[[R]]) {expr = "neg(_1)"
// CHECK-NEXT: "ipu.region_yield"(%[[N]]) {index = 0 : i64}
// CHECK-NEXT: }, {
// CHECK-NEXT: "ipu.region_yield"(%[[R]]) {index = 0 : i64}
// CHECK-NEXT: }) {name = "cond1", num_values = 1 : i64} : (tensor<i1>) -> ()
// CHECK-NEXT: %[[S:.*]] = "ipu.region_result"() {index = 0 : i64, region = "cond1"} : () -> tensor<4xf32>
// CHECK-NEXT: "func.return"(%[[S]])
func.func @loop_and_cond(%x: !torch.vtensor<[4],f32>, %y: !torch.vtensor<[4],f32>, %c: !torch.vtensor<[],i1>) -> !torch.vtensor<[4],f32> {
  %int2 = torch.constant.int 2
  %y2 = torch.aten.mul.Scalar %y, %int2 : !torch.vtensor<[4],f32>, !torch.int -> !torch.vtensor<[4],f32>
  "ipu.for_loop"() ({
    %a = "ipu.carried"(%x) {index = 0 : i64} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
    %m = torch.aten.mul.Tensor %a, %y2 : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
    "ipu.region_yield"(%m) {index = 0 : i64} : (!torch.vtensor<[4],f32>) -> ()
  }) {name = "loop0", count = 3 : i64, num_values = 1 : i64} : () -> ()
  %r = "ipu.region_result"() {region = "loop0", index = 0 : i64} : () -> !torch.vtensor<[4],f32>
  "ipu.if"(%c) ({
    %n = torch.aten.neg %r : !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
    "ipu.region_yield"(%n) {index = 0 : i64} : (!torch.vtensor<[4],f32>) -> ()
  }, {
    "ipu.region_yield"(%r) {index = 0 : i64} : (!torch.vtensor<[4],f32>) -> ()
  }) {name = "cond1", num_values = 1 : i64} : (!torch.vtensor<[],i1>) -> ()
  %s = "ipu.region_result"() {region = "cond1", index = 0 : i64} : () -> !torch.vtensor<[4],f32>
  return %s : !torch.vtensor<[4],f32>
}

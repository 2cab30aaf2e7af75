// Round trip of the user-code ops (custom_op / custom_op_grad, program_host_call) and the
// CTC beam search decoder: ipu-opt parses and verifies them, prints them, and parses its
// own output again; the stock torch-mlir-opt reads them through dialects/poplar.irdl.mlir.
// Values of different types sit in slots of their own (input0, input1, ...: one
// operandSegmentSizes entry each). Invalid cases: custom-invalid.mlir.
// RUN: ipu-opt %s | FileCheck %s
// RUN: ipu-opt %s | ipu-opt | FileCheck %s
// RUN: torch-mlir-opt --irdl-file=%irdl_dir/poplar.irdl.mlir %s | FileCheck %s

// CHECK-LABEL: {{(@|sym_name = ")}}custom_ops
func.func @custom_ops(%x: tensor<4xf32>, %y: tensor<4xi32>) {
  // Two inputs of different types, two results; attributes of each allowed kind.
  // CHECK: "poplar.custom_op"(%{{.*}}, %{{.*}}) {domain = "custom.ops", domain_version = 1 : i64, op_attributes = {alpha = 5.000000e-02 : f64, mode = "fast", sizes = [1, 2], steps = 3 : i64}, op_name = "LeakyRelu", operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>} : (tensor<4xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<f32>)
  %o:2 = "poplar.custom_op"(%x, %y) {op_name = "LeakyRelu", domain = "custom.ops", domain_version = 1 : i64,
         op_attributes = {alpha = 5.000000e-02 : f64, mode = "fast", sizes = [1, 2], steps = 3 : i64},
         operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>}
         : (tensor<4xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<f32>)
  // Its gradient: inputs, outputs, their gradients; only the float input has one.
  // CHECK: "poplar.custom_op_grad"(%{{.*}}, %{{.*}}, %{{.*}}#0, %{{.*}}#1, %{{.*}}, %{{.*}}) {differentiable = array<i64: 0>
  %g = "poplar.custom_op_grad"(%x, %y, %o#0, %o#1, %x, %o#1) {op_name = "LeakyRelu", domain = "custom.ops",
         domain_version = 1 : i64, op_attributes = {}, differentiable = array<i64: 0>,
         operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0>,
         resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
         : (tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// CHECK-LABEL: {{(@|sym_name = ")}}host_call
func.func @host_call(%x: tensor<2x3xf32>) {
  // CHECK: "poplar.program_host_call"(%{{.*}}) {handle = "MyCPUOp#1", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xi64>)
  %o:2 = "poplar.program_host_call"(%x) {handle = "MyCPUOp#1", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>,
         resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xi64>)
  return
}

// CHECK-LABEL: {{(@|sym_name = ")}}ctc
func.func @ctc(%x: tensor<5x2x4xf32>, %n: tensor<2xi64>) {
  // CHECK: "poplar.popnn_ctc_beam_search_decoder"(%{{.*}}, %{{.*}}) {beam_width = 10 : i64, blank = 0 : i64, top_paths = 2 : i64} : (tensor<5x2x4xf32>, tensor<2xi64>) -> (tensor<2x2xf32>, tensor<2x2xi32>, tensor<2x2x5xi32>)
  %p, %l, %d = "poplar.popnn_ctc_beam_search_decoder"(%x, %n) {blank = 0 : i64, beam_width = 10 : i64, top_paths = 2 : i64}
         : (tensor<5x2x4xf32>, tensor<2xi64>) -> (tensor<2x2xf32>, tensor<2x2xi32>, tensor<2x2x5xi32>)
  return
}

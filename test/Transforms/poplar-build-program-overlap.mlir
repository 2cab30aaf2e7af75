// RUN: ipu-opt %s -p poplar-build-program --split-input-file | FileCheck %s

// poptorch.set_overlap_for_input / _output, as convert-torch-to-poplar leaves them on the
// function's argument and result attributes, go on the host streams (poplar.overlap): the
// input x's, and the second output's; the weight and the first output have none.
// CHECK-LABEL: "poplar.graph"
// CHECK: "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", poplar.overlap = "overlap_accumulation_loop", type = tensor<2x4xf32>}
// CHECK: "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<2x3xf32>}
// CHECK: "poplar.host_stream"() {direction = "device_to_host", name = "host.output.1", poplar.overlap = "overlap_device_iteration_loop", type = tensor<2x3xf32>}
func.func @main(%x: tensor<2x4xf32> {ipu.role = #ipu.role<"input", "x">, poplar.overlap = "overlap_accumulation_loop"},
                %w: tensor<4x3xf32> {ipu.role = #ipu.role<"parameter", "w">})
    -> (tensor<2x3xf32> {ipu.role = #ipu.role<"output", "0">}, tensor<2x3xf32> {ipu.role = #ipu.role<"output", "1">, poplar.overlap = "overlap_device_iteration_loop"}) {
  %0 = "poplar.poplin_matmul"(%x, %w) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %1 = "poplar.popnn_nonlinearity"(%0) {dim = 0 : i64, kind = "relu"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

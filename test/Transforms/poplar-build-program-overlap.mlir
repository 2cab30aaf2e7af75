// RUN: ipu-opt %s -p poplar-build-program --split-input-file | FileCheck %s --check-prefixes=CHECK,NOFP
// RUN: ipu-opt %s -p 'poplar-build-program{floating-point-exceptions=invalid,overflow}' | FileCheck %s --check-prefixes=CHECK,FP
// RUN: not ipu-opt %s -p 'poplar-build-program{floating-point-exceptions=always}' 2>&1 | FileCheck %s --check-prefix=BADFP

// poptorch.set_overlap_for_input / _output, as convert-torch-to-poplar leaves them on the
// function's argument and result attributes, go on the host streams (poplar.overlap): the
// input x's, and the second output's; the weight and the first output have none.
// The floating-point exceptions the engine raises on (Precision.enableFloatingPointExceptions)
// go on the graph, read by the IPU Model (runtime/fp_exceptions.py).
// NOFP-NOT: poplar.floating_point_exceptions
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
// FP: }) {num_ipus = 1 : i64, poplar.floating_point_exceptions = ["invalid", "overflow"]
// BADFP: poplar-build-program: floating-point-exceptions entries must be one of: invalid, divide_by_zero, overflow; got "always"

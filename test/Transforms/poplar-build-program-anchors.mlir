// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=4 output-mode=final}' | FileCheck %s --check-prefixes=CHECK,FINAL
// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=4 output-mode=all}' | FileCheck %s --check-prefixes=CHECK,ALL

// An "anchor" result (Options.anchorTensor on a model tensor) goes to the host under its own
// #ipu.output_mode, through a stream "host.anchor.<k>" that the graph's poplar.anchors lists
// (the interface's outputs are the model's only). Here: "fc/add" every 2nd step, input x
// summed over the steps, while the output follows the pass's output-mode. The every_n anchor
// groups the steps in twos whatever the outputs' mode.
// CHECK-LABEL: "poplar.graph"
// CHECK: "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0"
// CHECK: %[[O:.*]] = "poplar.variable"() {{.*}}name = "anchor.0"
// CHECK: "poplar.host_stream"() {direction = "device_to_host", name = "host.anchor.0"
// CHECK: %[[A:.*]] = "poplar.variable"() {{.*}}name = "anchor.1"
// CHECK: "poplar.host_stream"() {direction = "device_to_host", name = "host.anchor.1"
// CHECK: %[[X:.*]] = "poplar.variable"() {{.*}}name = "anchor.2"
// CHECK: %[[S:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "sum", name = "sum.2"
// CHECK-NOT: name = "sum.0"
// CHECK: "poplar.program_sequence"() ({
// CHECK-NEXT: %[[ZERO:.*]] = "poplar.constant"()
// CHECK-NEXT: "poplar.program_copy"(%[[ZERO]], %[[S]])
// CHECK-NEXT: "poplar.program_repeat"() ({
// CHECK-NEXT: "poplar.program_call"() {callee = "step"}
// ALL-NEXT: "poplar.program_stream_copy"(%[[O]]) {stream = "host.output.0"}
// CHECK-NEXT: "poplar.popops_scaled_add_to"(%[[S]], %[[X]]) {scale = 1.000000e+00 : f64}
// CHECK-NEXT: "poplar.program_call"() {callee = "step"}
// ALL-NEXT: "poplar.program_stream_copy"(%[[O]]) {stream = "host.output.0"}
// CHECK-NEXT: "poplar.popops_scaled_add_to"(%[[S]], %[[X]]) {scale = 1.000000e+00 : f64}
// CHECK-NEXT: "poplar.program_stream_copy"(%[[A]]) {stream = "host.anchor.0"}
// CHECK-NEXT: }) {count = 2 : i64}
// FINAL-NEXT: "poplar.program_stream_copy"(%[[O]]) {stream = "host.output.0"}
// CHECK-NEXT: "poplar.program_stream_copy"(%[[S]]) {stream = "host.anchor.1"}
// CHECK-NEXT: }) {name = "main"}
// CHECK: poplar.anchors = [#poplar.anchor<"fc/add", "host.anchor.0", "every_n", 2 : i64>, #poplar.anchor<"x", "host.anchor.1", "sum", 1 : i64>]
// CHECK-SAME: poplar.interface = #poplar.interface<{x = "host.input.x"}, ["host.output.0"], [], "step", "", "main">
func.func @main(%x: tensor<2x3xf32> {ipu.role = #ipu.role<"input", "x">}) -> (
    tensor<2x3xf32> {ipu.role = #ipu.role<"output", "output.0">},
    tensor<2x3xf32> {ipu.role = #ipu.role<"anchor", "fc/add">, ipu.output_mode = #ipu.output_mode<"every_n", 2 : i64>},
    tensor<2x3xf32> {ipu.role = #ipu.role<"anchor", "x">, ipu.output_mode = #ipu.output_mode<"sum", 1 : i64>}) {
  %0 = "poplar.popops_add"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "poplar.popops_mul"(%0, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1, %0, %x : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=2 gradient-accumulation=2 output-mode=final}' | FileCheck %s --check-prefixes=CHECK,FINAL
// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=2 gradient-accumulation=2 output-mode=all}' | FileCheck %s --check-prefixes=CHECK,ALL

// Anchored state (Options.anchorTensor on a weight, optimizer state, an accumulator ...): the
// module's ipu.anchored_state lists it and the variable itself streams to the host under its
// mode, through the next "host.anchor.<k>" of the graph's poplar.anchors. Its value is taken at
// the end of each step, after the update for an iteration's last step: with G=2 each iteration
// is step, the copies, then step, the outputs' copies, update, the state's copies. Here the
// weight every step (all) and every 2nd (every_n), the accumulator summed over the steps.
// CHECK-NOT: ipu.anchored_state
// CHECK-LABEL: "poplar.graph"
// CHECK: %[[W:.*]] = "poplar.variable"() {{.*}}name = "w"
// CHECK: %[[ACC:.*]] = "poplar.variable"() {{.*}}name = "w/accum"
// CHECK: "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0"
// CHECK: %[[O:.*]] = "poplar.variable"() {{.*}}name = "anchor.0"
// CHECK-NEXT: "poplar.host_stream"() {direction = "device_to_host", name = "host.anchor.0", type = tensor<3xf32>}
// CHECK-NEXT: "poplar.host_stream"() {direction = "device_to_host", name = "host.anchor.1", type = tensor<3xf32>}
// CHECK-NEXT: %[[S:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "sum", name = "sum.anchor.1"
// CHECK-NEXT: "poplar.host_stream"() {direction = "device_to_host", name = "host.anchor.2", type = tensor<3xf32>}
// CHECK: "poplar.program_sequence"() ({
// CHECK-NEXT: %[[ZERO:.*]] = "poplar.constant"()
// CHECK-NEXT: "poplar.program_copy"(%[[ZERO]], %[[S]])
// CHECK-NEXT: "poplar.program_repeat"() ({
// CHECK-NEXT: "poplar.program_call"() {callee = "step"}
// ALL-NEXT: "poplar.program_stream_copy"(%[[O]]) {stream = "host.output.0"}
// CHECK-NEXT: "poplar.program_stream_copy"(%[[W]]) {stream = "host.anchor.0"}
// CHECK-NEXT: "poplar.popops_scaled_add_to"(%[[S]], %[[ACC]]) {scale = 1.000000e+00 : f64}
// CHECK-NEXT: "poplar.program_call"() {callee = "step"}
// ALL-NEXT: "poplar.program_stream_copy"(%[[O]]) {stream = "host.output.0"}
// CHECK-NEXT: "poplar.program_call"() {callee = "update"}
// CHECK-NEXT: "poplar.program_stream_copy"(%[[W]]) {stream = "host.anchor.0"}
// CHECK-NEXT: "poplar.popops_scaled_add_to"(%[[S]], %[[ACC]]) {scale = 1.000000e+00 : f64}
// CHECK-NEXT: "poplar.program_stream_copy"(%[[W]]) {stream = "host.anchor.2"}
// CHECK-NEXT: }) {count = 2 : i64}
// FINAL-NEXT: "poplar.program_stream_copy"(%[[O]]) {stream = "host.output.0"}
// CHECK-NEXT: "poplar.program_stream_copy"(%[[S]]) {stream = "host.anchor.1"}
// CHECK-NEXT: }) {name = "main"}
// CHECK: poplar.anchors = [#poplar.anchor<"w", "host.anchor.0", "all", 1 : i64>, #poplar.anchor<"w/accum", "host.anchor.1", "sum", 1 : i64>, #poplar.anchor<"w", "host.anchor.2", "every_n", 2 : i64>]
// CHECK-SAME: poplar.interface = #poplar.interface<{x = "host.input.x"}, ["host.output.0"], [["parameter", "w"], ["accumulator", "w/accum"]], "step", "update", "main">
module attributes {ipu.anchored_state = [#ipu.state_anchor<"w", "all", 1 : i64>, #ipu.state_anchor<"w/accum", "sum", 1 : i64>, #ipu.state_anchor<"w", "every_n", 2 : i64>]} {
  func.func @main(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %acc: tensor<3xf32> {ipu.role = #ipu.role<"accumulator", "w/accum">}, %x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> (
      tensor<3xf32> {ipu.role = #ipu.role<"output", "output.0">}, tensor<3xf32> {ipu.role = #ipu.role<"accumulator_update", "w/accum">}) {
    %0 = "poplar.popops_mul"(%w, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %1 = "poplar.popops_add"(%acc, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    return %0, %1 : tensor<3xf32>, tensor<3xf32>
  }
  func.func @update(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %acc: tensor<3xf32> {ipu.role = #ipu.role<"accumulator", "w/accum">}) -> (
      tensor<3xf32> {ipu.role = #ipu.role<"weight_update", "w">}, tensor<3xf32> {ipu.role = #ipu.role<"accumulator_update", "w/accum">}) {
    %0 = "poplar.popops_sub"(%w, %acc) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %1 = "poplar.popops_sub"(%acc, %acc) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    return %0, %1 : tensor<3xf32>, tensor<3xf32>
  }
}

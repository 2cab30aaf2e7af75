// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=4 output-mode=final}' | FileCheck %s --check-prefixes=CHECK,FINAL
// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=4 output-mode=sum}' | FileCheck %s --check-prefixes=CHECK,SUM
// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=6 output-mode=every_n return-period=3}' | FileCheck %s --check-prefixes=CHECK,EVERYN

// An "input_update" result (the model updated input x in place: x.mul_(2)) streams to
// the host after every step, whatever the output mode, so the host can write each
// micro-batch's new value into its slice of the caller's tensor. It is an output stream
// like the others (after them, in result order); the output mode applies to the others only.
// CHECK-LABEL: "poplar.graph"
// CHECK: %[[A0:.*]] = "poplar.variable"() {{.*}}name = "anchor.0"
// CHECK: %[[A1:.*]] = "poplar.variable"() {{.*}}name = "anchor.1"
// SUM: %[[S0:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "sum", name = "sum.0", tiles = array<i64>}
// SUM-NOT: name = "sum.1"
// CHECK: "poplar.program_sequence"() ({

// FINAL-NEXT: "poplar.program_repeat"() ({
// FINAL-NEXT: "poplar.program_call"() {callee = "step"}
// FINAL-NEXT: "poplar.program_stream_copy"(%[[A1]]) {stream = "host.output.1"}
// FINAL-NEXT: }) {count = 4 : i64}
// FINAL-NEXT: "poplar.program_stream_copy"(%[[A0]]) {stream = "host.output.0"}
// FINAL-NEXT: }) {name = "main"}

// SUM: "poplar.program_repeat"() ({
// SUM-NEXT: "poplar.program_call"() {callee = "step"}
// SUM-NEXT: "poplar.program_stream_copy"(%[[A1]]) {stream = "host.output.1"}
// SUM-NEXT: "poplar.popops_scaled_add_to"(%[[S0]], %[[A0]]) {scale = 1.000000e+00 : f64}
// SUM-NEXT: }) {count = 4 : i64}
// SUM-NEXT: "poplar.program_stream_copy"(%[[S0]]) {stream = "host.output.0"}
// SUM-NEXT: }) {name = "main"}

// EVERYN-NEXT: "poplar.program_repeat"() ({
// EVERYN-NEXT: "poplar.program_repeat"() ({
// EVERYN-NEXT: "poplar.program_call"() {callee = "step"}
// EVERYN-NEXT: "poplar.program_stream_copy"(%[[A1]]) {stream = "host.output.1"}
// EVERYN-NEXT: }) {count = 2 : i64}
// EVERYN-NEXT: "poplar.program_call"() {callee = "step"}
// EVERYN-NEXT: "poplar.program_stream_copy"(%[[A1]]) {stream = "host.output.1"}
// EVERYN-NEXT: "poplar.program_stream_copy"(%[[A0]]) {stream = "host.output.0"}
// EVERYN-NEXT: }) {count = 2 : i64}
// EVERYN-NEXT: }) {name = "main"}
func.func @main(%x: tensor<2x3xf32> {ipu.role = #ipu.role<"input", "x">}) -> (tensor<2x3xf32> {ipu.role = #ipu.role<"output", "output.0">}, tensor<2x3xf32> {ipu.role = #ipu.role<"input_update", "x">}) {
  %0 = "poplar.popops_add"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "poplar.popops_mul"(%0, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1, %0 : tensor<2x3xf32>, tensor<2x3xf32>
}

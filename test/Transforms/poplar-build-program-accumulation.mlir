// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=2 gradient-accumulation=4}' | FileCheck %s
// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=2 gradient-accumulation=4 output-mode=final}' | FileCheck %s --check-prefix=FINAL
// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=2 gradient-accumulation=4 output-mode=sum}' | FileCheck %s --check-prefix=SUM
// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=2 gradient-accumulation=4 output-mode=every_n return-period=2}' | FileCheck %s --check-prefix=EVERY2
// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=2 gradient-accumulation=4 output-mode=every_n return-period=4}' | FileCheck %s --check-prefix=EVERY4
// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=4 gradient-accumulation=4 output-mode=every_n return-period=8}' | FileCheck %s --check-prefix=EVERY8
// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=3 gradient-accumulation=2 output-mode=every_n return-period=6}' | FileCheck %s --check-prefix=EVERY6

// Input: ipu-insert-training{gradient-accumulation=4} then convert-torch-to-poplar
// on a one-weight model (loss = sum(w * x)) with SGD + momentum: @update (the
// optimizer, on the accumulated gradient) and @main (one micro-batch: loss, gradient,
// accumulation), in the order the passes emit them.

// One variable per name across both functions: @main's arguments first, then the
// ones only @update reads (optimizer state and hyper-parameters). The accumulators and
// the micro-batch counter are "accumulator" variables; only the input has a host
// stream, and only @main's loss goes to the host (@update has no host results).
// CHECK-LABEL: "poplar.graph"
// CHECK-NEXT: %[[W:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64>} : () -> tensor<3xf32>
// CHECK-NEXT: %[[X:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<3xf32>
// CHECK-NEXT: "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<3xf32>}
// CHECK-NEXT: %[[LS:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "loss_scaling", tiles = array<i64>} : () -> tensor<f32>
// CHECK-NEXT: %[[COUNT:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "accumulation_count", tiles = array<i64>} : () -> tensor<f32>
// CHECK-NEXT: %[[ACC:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "w/accum", tiles = array<i64>} : () -> tensor<3xf32>
// CHECK-NEXT: %[[V:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "w/velocity", tiles = array<i64>} : () -> tensor<3xf32>
// CHECK-NEXT: %[[T:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "w/step", tiles = array<i64>} : () -> tensor<f32>
// CHECK-NEXT: %[[LR:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.lr", tiles = array<i64>} : () -> tensor<f32>
// CHECK-NEXT: %[[MOM:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.momentum", tiles = array<i64>} : () -> tensor<f32>
// CHECK-NEXT: %[[DAMP:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.dampening", tiles = array<i64>} : () -> tensor<f32>
// CHECK-NEXT: %[[WD:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.weight_decay", tiles = array<i64>} : () -> tensor<f32>
// CHECK-NEXT: %[[VS:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.velocity_scaling", tiles = array<i64>} : () -> tensor<f32>
// CHECK-NEXT: "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<f32>}
// CHECK-NEXT: %[[A0:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<f32>
// CHECK-NOT: host.output.1

// @main becomes the function "step": it reads the input, computes the loss and the
// (loss-scaled) gradient, counts the micro-batch and adds the gradient into the
// accumulator; the counter and the accumulator are written back, the loss goes to
// its anchor. No weight is written.
// CHECK-NEXT: "poplar.function"() ({
// CHECK-NEXT: "poplar.program_stream_copy"(%[[X]]) {stream = "host.input.x"}
// CHECK-NEXT: "poplar.program_sync"() {kind = "internal"}
// CHECK-NEXT: %[[PROD:.*]] = "poplar.popops_mul"(%[[W]], %[[X]])
// CHECK-NEXT: %[[LOSS:.*]] = "poplar.popops_reduce"(%[[PROD]])
// CHECK-NEXT: %[[G:.*]] = "poplar.popops_mul"(%[[X]], %[[LS]])
// CHECK-NEXT: %[[NEXT:.*]] = "poplar.popops_map"(%[[COUNT]]) {expr = "add(_1, 1.0)"
// CHECK-NEXT: %[[SUMG:.*]] = "poplar.popops_map"(%[[ACC]], %[[G]]) {expr = "add(_1, _2)"
// CHECK-NEXT: "poplar.program_copy"(%[[LOSS]], %[[A0]]) : (tensor<f32>, tensor<f32>) -> ()
// CHECK-NEXT: "poplar.program_copy"(%[[NEXT]], %[[COUNT]]) : (tensor<f32>, tensor<f32>) -> ()
// CHECK-NEXT: "poplar.program_copy"(%[[SUMG]], %[[ACC]]) : (tensor<3xf32>, tensor<3xf32>) -> ()
// CHECK-NEXT: }) {name = "step"}

// @update becomes the function "update" on the same variables: no input copy; the
// mean gradient (accumulator / 4) feeds the SGD update; the new weight, velocity and
// step count are written back, and the accumulator and the counter are zeroed.
// CHECK-NEXT: "poplar.function"() ({
// CHECK-NEXT: "poplar.program_sync"() {kind = "internal"}
// CHECK-NEXT: %[[MEAN:.*]] = "poplar.popops_map"(%[[ACC]]) {expr = "div(_1, 4.0)"
// CHECK-NEXT: %[[UNSCALED:.*]] = "poplar.popops_map"(%[[MEAN]], %[[LS]]) {expr = "div(_1, _2)"
// CHECK-NEXT: %[[DECAYED:.*]] = "poplar.popops_map"(%[[UNSCALED]], %[[W]], %[[WD]]) {expr = "add(_1, mul(_2, _3))"
// CHECK-NEXT: %[[DAMPED:.*]] = "poplar.popops_map"(%[[DECAYED]], %[[DAMP]]) {expr = "mul(_1, sub(1.0, _2))"
// CHECK-NEXT: %[[LATER:.*]] = "poplar.popops_map"(%[[V]], %[[MOM]], %[[DAMPED]]) {expr = "add(mul(_1, _2), _3)"
// CHECK-NEXT: %[[FIRST:.*]] = "poplar.popops_map"(%[[T]]) {expr = "eq(_1, 0.0)"
// CHECK-NEXT: %[[VEL:.*]] = "poplar.popops_map"(%[[FIRST]], %[[DECAYED]], %[[LATER]]) {expr = "select(_1, _2, _3)"
// CHECK-NEXT: %[[NEXTT:.*]] = "poplar.popops_map"(%[[T]]) {expr = "add(_1, 1.0)"
// CHECK-NEXT: %[[NEWW:.*]] = "poplar.popops_map"(%[[W]], %[[VEL]], %[[LR]]) {expr = "sub(_1, mul(_2, _3))"
// CHECK-NEXT: %[[ZACC:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<0.000000e+00> : tensor<3xf32>}
// CHECK-NEXT: %[[ZCOUNT:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<0.000000e+00> : tensor<f32>}
// CHECK-NEXT: "poplar.program_copy"(%[[NEWW]], %[[W]]) : (tensor<3xf32>, tensor<3xf32>) -> ()
// CHECK-NEXT: "poplar.program_copy"(%[[VEL]], %[[V]]) : (tensor<3xf32>, tensor<3xf32>) -> ()
// CHECK-NEXT: "poplar.program_copy"(%[[NEXTT]], %[[T]]) : (tensor<f32>, tensor<f32>) -> ()
// CHECK-NEXT: "poplar.program_copy"(%[[ZACC]], %[[ACC]]) : (tensor<3xf32>, tensor<3xf32>) -> ()
// CHECK-NEXT: "poplar.program_copy"(%[[ZCOUNT]], %[[COUNT]]) : (tensor<f32>, tensor<f32>) -> ()
// CHECK-NEXT: }) {name = "update"}

// Output mode "all": each of the 2 device iterations runs the step 4 times (each
// streaming its loss: 8 results), then the update once.
// CHECK-NEXT: "poplar.program_sequence"() ({
// CHECK-NEXT: "poplar.program_repeat"() ({
// CHECK-NEXT: "poplar.program_repeat"() ({
// CHECK-NEXT: "poplar.program_call"() {callee = "step"}
// CHECK-NEXT: "poplar.program_stream_copy"(%[[A0]]) {stream = "host.output.0"}
// CHECK-NEXT: }) {count = 4 : i64}
// CHECK-NEXT: "poplar.program_call"() {callee = "update"}
// CHECK-NEXT: }) {count = 2 : i64}
// CHECK-NEXT: }) {name = "main"}
// CHECK-NOT: func.func

// "final": the same loop, then the last step's loss once.
// FINAL: %[[A0:.*]] = "poplar.variable"() {{.*}}name = "anchor.0"
// FINAL-LABEL: "poplar.program_sequence"() ({
// FINAL-NEXT: "poplar.program_repeat"() ({
// FINAL-NEXT: "poplar.program_repeat"() ({
// FINAL-NEXT: "poplar.program_call"() {callee = "step"}
// FINAL-NEXT: }) {count = 4 : i64}
// FINAL-NEXT: "poplar.program_call"() {callee = "update"}
// FINAL-NEXT: }) {count = 2 : i64}
// FINAL-NEXT: "poplar.program_stream_copy"(%[[A0]]) {stream = "host.output.0"}
// FINAL-NEXT: }) {name = "main"}

// "sum": a sum per host result, zeroed first, adds every step's loss (all 8); it goes
// to the host after the loop. The update does not touch it.
// SUM: %[[A0:.*]] = "poplar.variable"() {{.*}}name = "anchor.0"
// SUM: %[[S0:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "sum", name = "sum.0", tiles = array<i64>} : () -> tensor<f32>
// SUM-NOT: sum.1
// SUM-LABEL: "poplar.program_sequence"() ({
// SUM-NEXT: %[[ZERO:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<0.000000e+00> : tensor<f32>}
// SUM-NEXT: "poplar.program_copy"(%[[ZERO]], %[[S0]])
// SUM-NEXT: "poplar.program_repeat"() ({
// SUM-NEXT: "poplar.program_repeat"() ({
// SUM-NEXT: "poplar.program_call"() {callee = "step"}
// SUM-NEXT: "poplar.popops_scaled_add_to"(%[[S0]], %[[A0]]) {scale = 1.000000e+00 : f64}
// SUM-NEXT: }) {count = 4 : i64}
// SUM-NEXT: "poplar.program_call"() {callee = "update"}
// SUM-NEXT: }) {count = 2 : i64}
// SUM-NEXT: "poplar.program_stream_copy"(%[[S0]]) {stream = "host.output.0"}
// SUM-NEXT: }) {name = "main"}

// "every_n" counts steps: n = 2 divides G = 4, so each iteration streams twice
// (after steps 2 and 4 of its 4), then updates: steps 1, 3, 5, 7 (from 0) of 8.
// EVERY2: %[[A0:.*]] = "poplar.variable"() {{.*}}name = "anchor.0"
// EVERY2-LABEL: "poplar.program_sequence"() ({
// EVERY2-NEXT: "poplar.program_repeat"() ({
// EVERY2-NEXT: "poplar.program_repeat"() ({
// EVERY2-NEXT: "poplar.program_call"() {callee = "step"}
// EVERY2-NEXT: "poplar.program_call"() {callee = "step"}
// EVERY2-NEXT: "poplar.program_stream_copy"(%[[A0]]) {stream = "host.output.0"}
// EVERY2-NEXT: }) {count = 2 : i64}
// EVERY2-NEXT: "poplar.program_call"() {callee = "update"}
// EVERY2-NEXT: }) {count = 2 : i64}
// EVERY2-NEXT: }) {name = "main"}

// n = G: one output per iteration, the last micro-batch's, before the update.
// EVERY4: %[[A0:.*]] = "poplar.variable"() {{.*}}name = "anchor.0"
// EVERY4-LABEL: "poplar.program_sequence"() ({
// EVERY4-NEXT: "poplar.program_repeat"() ({
// EVERY4-NEXT: "poplar.program_repeat"() ({
// EVERY4-NEXT: "poplar.program_call"() {callee = "step"}
// EVERY4-NEXT: }) {count = 3 : i64}
// EVERY4-NEXT: "poplar.program_call"() {callee = "step"}
// EVERY4-NEXT: "poplar.program_stream_copy"(%[[A0]]) {stream = "host.output.0"}
// EVERY4-NEXT: "poplar.program_call"() {callee = "update"}
// EVERY4-NEXT: }) {count = 2 : i64}
// EVERY4-NEXT: }) {name = "main"}

// n = 2 G spans two iterations: 4 iterations are 2 blocks of (one plain iteration,
// then 3 steps, the streamed step and the update); steps 7 and 15 of 16 go out.
// EVERY8: %[[A0:.*]] = "poplar.variable"() {{.*}}name = "anchor.0"
// EVERY8-LABEL: "poplar.program_sequence"() ({
// EVERY8-NEXT: "poplar.program_repeat"() ({
// EVERY8-NEXT: "poplar.program_repeat"() ({
// EVERY8-NEXT: "poplar.program_call"() {callee = "step"}
// EVERY8-NEXT: }) {count = 4 : i64}
// EVERY8-NEXT: "poplar.program_call"() {callee = "update"}
// EVERY8-NEXT: "poplar.program_repeat"() ({
// EVERY8-NEXT: "poplar.program_call"() {callee = "step"}
// EVERY8-NEXT: }) {count = 3 : i64}
// EVERY8-NEXT: "poplar.program_call"() {callee = "step"}
// EVERY8-NEXT: "poplar.program_stream_copy"(%[[A0]]) {stream = "host.output.0"}
// EVERY8-NEXT: "poplar.program_call"() {callee = "update"}
// EVERY8-NEXT: }) {count = 2 : i64}
// EVERY8-NEXT: }) {name = "main"}

// n = 3 G (G = 2, 3 iterations): one block of two plain iterations (a repeat of 2),
// then the last iteration with its second step streamed: only step 5 of 6 goes out.
// EVERY6: %[[A0:.*]] = "poplar.variable"() {{.*}}name = "anchor.0"
// EVERY6-LABEL: "poplar.program_sequence"() ({
// EVERY6-NEXT: "poplar.program_repeat"() ({
// EVERY6-NEXT: "poplar.program_repeat"() ({
// EVERY6-NEXT: "poplar.program_repeat"() ({
// EVERY6-NEXT: "poplar.program_call"() {callee = "step"}
// EVERY6-NEXT: }) {count = 2 : i64}
// EVERY6-NEXT: "poplar.program_call"() {callee = "update"}
// EVERY6-NEXT: }) {count = 2 : i64}
// EVERY6-NEXT: "poplar.program_call"() {callee = "step"}
// EVERY6-NEXT: "poplar.program_call"() {callee = "step"}
// EVERY6-NEXT: "poplar.program_stream_copy"(%[[A0]]) {stream = "host.output.0"}
// EVERY6-NEXT: "poplar.program_call"() {callee = "update"}
// EVERY6-NEXT: }) {count = 1 : i64}
// EVERY6-NEXT: }) {name = "main"}
func.func @update(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %acc: tensor<3xf32> {ipu.role = #ipu.role<"accumulator", "w/accum">}, %v: tensor<3xf32> {ipu.role = #ipu.role<"optimizer_state", "w/velocity">}, %t: tensor<f32> {ipu.role = #ipu.role<"optimizer_state", "w/step">}, %lr: tensor<f32> {ipu.role = #ipu.role<"hyper", "0.lr">}, %mom: tensor<f32> {ipu.role = #ipu.role<"hyper", "0.momentum">}, %damp: tensor<f32> {ipu.role = #ipu.role<"hyper", "0.dampening">}, %wd: tensor<f32> {ipu.role = #ipu.role<"hyper", "0.weight_decay">}, %vs: tensor<f32> {ipu.role = #ipu.role<"hyper", "0.velocity_scaling">}, %ls: tensor<f32> {ipu.role = #ipu.role<"hyper", "loss_scaling">}, %count: tensor<f32> {ipu.role = #ipu.role<"accumulator", "accumulation_count">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"weight_update", "w">}, tensor<3xf32> {ipu.role = #ipu.role<"state_update", "w/velocity">}, tensor<f32> {ipu.role = #ipu.role<"state_update", "w/step">}, tensor<3xf32> {ipu.role = #ipu.role<"accumulator_update", "w/accum">}, tensor<f32> {ipu.role = #ipu.role<"accumulator_update", "accumulation_count">}) {
  %0 = "poplar.popops_map"(%acc) {expr = "div(_1, 4.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "poplar.popops_map"(%0, %ls) {expr = "div(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %2 = "poplar.popops_map"(%1, %w, %wd) {expr = "add(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<3xf32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %3 = "poplar.popops_map"(%2, %damp) {expr = "mul(_1, sub(1.0, _2))", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %4 = "poplar.popops_map"(%v, %mom, %3) {expr = "add(mul(_1, _2), _3)", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<3xf32>, tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  %5 = "poplar.popops_map"(%t) {expr = "eq(_1, 0.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<f32>) -> tensor<i1>
  %6 = "poplar.popops_map"(%5, %2, %4) {expr = "select(_1, _2, _3)", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %7 = "poplar.popops_map"(%t) {expr = "add(_1, 1.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<f32>) -> tensor<f32>
  %8 = "poplar.popops_map"(%w, %6, %lr) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<3xf32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %9 = "poplar.constant"() {ipu = 0 : i64, value = dense<0.000000e+00> : tensor<3xf32>} : () -> tensor<3xf32>
  %10 = "poplar.constant"() {ipu = 0 : i64, value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
  return %8, %6, %7, %9, %10 : tensor<3xf32>, tensor<3xf32>, tensor<f32>, tensor<3xf32>, tensor<f32>
}
func.func @main(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}, %ls: tensor<f32> {ipu.role = #ipu.role<"hyper", "loss_scaling">}, %count: tensor<f32> {ipu.role = #ipu.role<"accumulator", "accumulation_count">}, %acc: tensor<3xf32> {ipu.role = #ipu.role<"accumulator", "w/accum">}) -> (tensor<f32> {ipu.role = #ipu.role<"loss", "0">}, tensor<f32> {ipu.role = #ipu.role<"accumulator_update", "accumulation_count">}, tensor<3xf32> {ipu.role = #ipu.role<"accumulator_update", "w/accum">}) {
  %0 = "poplar.popops_mul"(%w, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = "poplar.popops_reduce"(%0) {dims = array<i64: 0>, keep_dims = false, op = "add", scale = 1.000000e+00 : f64} : (tensor<3xf32>) -> tensor<f32>
  %2 = "poplar.popops_mul"(%x, %ls) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %3 = "poplar.popops_map"(%count) {expr = "add(_1, 1.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<f32>) -> tensor<f32>
  %4 = "poplar.popops_map"(%acc, %2) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %1, %3, %4 : tensor<f32>, tensor<f32>, tensor<3xf32>
}

// RUN: ipu-opt %s -p poplar-build-program --split-input-file | FileCheck %s --check-prefixes=CHECK,DEFAULT
// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=4}' --split-input-file | FileCheck %s --check-prefixes=CHECK,ALL
// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=4 output-mode=final}' --split-input-file | FileCheck %s --check-prefixes=CHECK,FINAL
// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=4 output-mode=sum}' --split-input-file | FileCheck %s --check-prefixes=CHECK,SUM
// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=6 output-mode=every_n return-period=3}' --split-input-file | FileCheck %s --check-prefixes=CHECK,EVERYN
// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=4 output-mode=every_n return-period=1}' --split-input-file | FileCheck %s --check-prefixes=CHECK,EVERY1
// RUN: ipu-opt %s -p 'poplar-build-program{replication-factor=2 num-ipus=2 tiles-per-ipu=16}' --split-input-file | FileCheck %s --check-prefixes=CHECK,TARGET

// Input: Linear(4, 3) minus a buffer, then relu, after convert-torch-to-poplar; both
// the pre-relu value and the relu are returned (two outputs).

// One variable per argument, in argument order, named from ipu.name: parameters are
// "weight" variables, buffers stay "buffer", inputs are "input.<name>" with a
// host-to-device stream "host.input.<name>". Each result gets a device-to-host stream
// "host.output.<i>" and an "anchor.<i>" variable of kind "anchor". Nothing is tile-mapped
// yet. The graph's #poplar.interface names each input's and output's stream, the
// variables the host provides as [role kind, name] in argument order (inputs are not
// among them: they stream), and the step, update ("": none) and main programs, once,
// for the host side.
// CHECK-LABEL: "poplar.graph"
// CHECK: %[[W:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "l.weight", tiles = array<i64>} : () -> tensor<3x4xf32>
// CHECK: %[[B:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "l.bias", tiles = array<i64>} : () -> tensor<3xf32>
// CHECK: %[[SHIFT:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "buffer", name = "shift", tiles = array<i64>} : () -> tensor<3xf32>
// CHECK: %[[X:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<2x4xf32>
// CHECK: "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<2x4xf32>}
// CHECK: "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<2x3xf32>}
// CHECK: %[[A0:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<2x3xf32>
// CHECK: "poplar.host_stream"() {direction = "device_to_host", name = "host.output.1", type = tensor<2x3xf32>}
// CHECK: %[[A1:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.1", tiles = array<i64>} : () -> tensor<2x3xf32>
// The sum mode accumulates into one "sum.<i>" variable (kind "sum") per output.
// SUM: %[[S0:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "sum", name = "sum.0", tiles = array<i64>} : () -> tensor<2x3xf32>
// SUM: %[[S1:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "sum", name = "sum.1", tiles = array<i64>} : () -> tensor<2x3xf32>

// The step function: copy this iteration's input in, sync, the model body on the
// variables (the arguments are gone), then copy the results to the anchors.
// CHECK: "poplar.function"() ({
// CHECK-NEXT: "poplar.program_stream_copy"(%[[X]]) {stream = "host.input.x"} : (tensor<2x4xf32>) -> ()
// CHECK-NEXT: "poplar.program_sync"() {kind = "internal"}
// CHECK-NEXT: %[[WT:.*]] = "poplar.dim_shuffle"(%[[W]])
// CHECK-NEXT: %[[MM:.*]] = "poplar.poplin_matmul"(%[[X]], %[[WT]])
// CHECK-NEXT: %[[ADD:.*]] = "poplar.popops_add"(%[[MM]], %[[B]])
// CHECK-NEXT: %[[SUB:.*]] = "poplar.popops_sub"(%[[ADD]], %[[SHIFT]])
// CHECK-NEXT: %[[RELU:.*]] = "poplar.popnn_nonlinearity"(%[[SUB]])
// CHECK-NEXT: "poplar.program_copy"(%[[SUB]], %[[A0]])
// CHECK-NEXT: "poplar.program_copy"(%[[RELU]], %[[A1]])
// CHECK-NEXT: }) {name = "step"}

// The main sequence, per output mode.
// CHECK: "poplar.program_sequence"() ({

// Default: one iteration that streams both outputs.
// DEFAULT-NEXT: "poplar.program_repeat"() ({
// DEFAULT-NEXT: "poplar.program_call"() {callee = "step"}
// DEFAULT-NEXT: "poplar.program_stream_copy"(%[[A0]]) {stream = "host.output.0"}
// DEFAULT-NEXT: "poplar.program_stream_copy"(%[[A1]]) {stream = "host.output.1"}
// DEFAULT-NEXT: }) {count = 1 : i64}
// DEFAULT-NEXT: }) {name = "main"}
// DEFAULT-NEXT: }) {num_ipus = 1 : i64, poplar.interface = #poplar.interface<{x = "host.input.x"}, ["host.output.0", "host.output.1"], [["parameter", "l.weight"], ["parameter", "l.bias"], ["buffer", "shift"]], "step", "", "main">, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64}

// all: every one of the 4 iterations streams its outputs, inside the loop.
// ALL-NEXT: "poplar.program_repeat"() ({
// ALL-NEXT: "poplar.program_call"() {callee = "step"}
// ALL-NEXT: "poplar.program_stream_copy"(%[[A0]]) {stream = "host.output.0"}
// ALL-NEXT: "poplar.program_stream_copy"(%[[A1]]) {stream = "host.output.1"}
// ALL-NEXT: }) {count = 4 : i64}
// ALL-NEXT: }) {name = "main"}

// final: the loop only computes; the last iteration's anchors stream after it.
// FINAL-NEXT: "poplar.program_repeat"() ({
// FINAL-NEXT: "poplar.program_call"() {callee = "step"}
// FINAL-NEXT: }) {count = 4 : i64}
// FINAL-NEXT: "poplar.program_stream_copy"(%[[A0]]) {stream = "host.output.0"}
// FINAL-NEXT: "poplar.program_stream_copy"(%[[A1]]) {stream = "host.output.1"}
// FINAL-NEXT: }) {name = "main"}

// sum: zero the sums, add each iteration's anchors to them, stream the sums at the end.
// SUM-NEXT: %[[Z0:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<0.000000e+00> : tensor<2x3xf32>}
// SUM-NEXT: "poplar.program_copy"(%[[Z0]], %[[S0]])
// SUM-NEXT: %[[Z1:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<0.000000e+00> : tensor<2x3xf32>}
// SUM-NEXT: "poplar.program_copy"(%[[Z1]], %[[S1]])
// SUM-NEXT: "poplar.program_repeat"() ({
// SUM-NEXT: "poplar.program_call"() {callee = "step"}
// SUM-NEXT: "poplar.popops_scaled_add_to"(%[[S0]], %[[A0]]) {scale = 1.000000e+00 : f64}
// SUM-NEXT: "poplar.popops_scaled_add_to"(%[[S1]], %[[A1]]) {scale = 1.000000e+00 : f64}
// SUM-NEXT: }) {count = 4 : i64}
// SUM-NEXT: "poplar.program_stream_copy"(%[[S0]]) {stream = "host.output.0"}
// SUM-NEXT: "poplar.program_stream_copy"(%[[S1]]) {stream = "host.output.1"}
// SUM-NEXT: }) {name = "main"}

// every_n, n = 3 of 6 iterations: 6 / 3 = 2 rounds of (3 - 1 = 2 silent iterations,
// then one whose outputs stream), i.e. iterations 2 and 5 (0-based) are returned.
// EVERYN-NEXT: "poplar.program_repeat"() ({
// EVERYN-NEXT: "poplar.program_repeat"() ({
// EVERYN-NEXT: "poplar.program_call"() {callee = "step"}
// EVERYN-NEXT: }) {count = 2 : i64}
// EVERYN-NEXT: "poplar.program_call"() {callee = "step"}
// EVERYN-NEXT: "poplar.program_stream_copy"(%[[A0]]) {stream = "host.output.0"}
// EVERYN-NEXT: "poplar.program_stream_copy"(%[[A1]]) {stream = "host.output.1"}
// EVERYN-NEXT: }) {count = 2 : i64}
// EVERYN-NEXT: }) {name = "main"}

// every_n with n = 1 is "all": no inner loop.
// EVERY1-NEXT: "poplar.program_repeat"() ({
// EVERY1-NEXT: "poplar.program_call"() {callee = "step"}
// EVERY1-NEXT: "poplar.program_stream_copy"(%[[A0]]) {stream = "host.output.0"}
// EVERY1-NEXT: "poplar.program_stream_copy"(%[[A1]]) {stream = "host.output.1"}
// EVERY1-NEXT: }) {count = 4 : i64}
// EVERY1-NEXT: }) {name = "main"}

// The target options only annotate the graph.
// TARGET: }) {num_ipus = 2 : i64, poplar.interface = #poplar.interface<{x = "host.input.x"}, ["host.output.0", "host.output.1"], [["parameter", "l.weight"], ["parameter", "l.bias"], ["buffer", "shift"]], "step", "", "main">, replication_factor = 2 : i64, tiles_per_ipu = 16 : i64}

// CHECK-NOT: func.func
func.func @main(%arg0: tensor<3x4xf32> {ipu.role = #ipu.role<"parameter", "l.weight">}, %arg1: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "l.bias">}, %arg2: tensor<3xf32> {ipu.role = #ipu.role<"buffer", "shift">}, %arg3: tensor<2x4xf32> {ipu.role = #ipu.role<"input", "x">}) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = "poplar.dim_shuffle"(%arg0) {permutation = array<i64: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %1 = "poplar.poplin_matmul"(%arg3, %0) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %2 = "poplar.popops_add"(%1, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = "poplar.popops_sub"(%2, %arg2) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = "poplar.popnn_nonlinearity"(%3) {dim = 0 : i64, kind = "relu"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %3, %4 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Returning arguments unchanged: the step copies the argument's variable to the
// anchor. A "constant" argument is a "buffer" variable; two inputs get two streams,
// copied in argument order before the sync.
// CHECK-LABEL: "poplar.graph"
// CHECK: %[[C:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "buffer", name = "c", tiles = array<i64>} : () -> tensor<3xi32>
// CHECK: %[[X:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>}
// CHECK: "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<3xi32>}
// CHECK: %[[Y:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.y", tiles = array<i64>}
// CHECK: "poplar.host_stream"() {direction = "host_to_device", name = "host.input.y", type = tensor<3xi32>}
// CHECK: %[[A0:.*]] = "poplar.variable"() {{.*}}name = "anchor.0"
// CHECK: %[[A1:.*]] = "poplar.variable"() {{.*}}name = "anchor.1"
// CHECK: "poplar.function"() ({
// CHECK-NEXT: "poplar.program_stream_copy"(%[[X]]) {stream = "host.input.x"}
// CHECK-NEXT: "poplar.program_stream_copy"(%[[Y]]) {stream = "host.input.y"}
// CHECK-NEXT: "poplar.program_sync"()
// CHECK-NEXT: "poplar.program_copy"(%[[Y]], %[[A0]])
// CHECK-NEXT: "poplar.program_copy"(%[[C]], %[[A1]])
// CHECK-NEXT: }) {name = "step"}
// Integer sums start from an integer zero.
// SUM: "poplar.constant"() {ipu = 0 : i64, value = dense<0> : tensor<3xi32>}
// The interface lists "c" with its argument's role kind, "constant" (the host feeds it
// the captured constant), not its variable's kind.
// CHECK: poplar.interface = #poplar.interface<{x = "host.input.x", y = "host.input.y"}, ["host.output.0", "host.output.1"], [["constant", "c"]], "step", "", "main">
func.func @main(%arg0: tensor<3xi32> {ipu.role = #ipu.role<"constant", "c">}, %arg1: tensor<3xi32> {ipu.role = #ipu.role<"input", "x">}, %arg2: tensor<3xi32> {ipu.role = #ipu.role<"input", "y">}) -> (tensor<3xi32>, tensor<3xi32>) {
  return %arg2, %arg0 : tensor<3xi32>, tensor<3xi32>
}

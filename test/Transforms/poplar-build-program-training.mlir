// RUN: ipu-opt %s -p poplar-build-program --split-input-file | FileCheck %s
// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=4 output-mode=sum}' --split-input-file | FileCheck %s --check-prefix=SUM

// Input: a training step after ipu-insert-training and convert-torch-to-poplar,
// trimmed: one weight with SGD + momentum, a BatchNorm-style running mean, one input.
// The results come in the order ipu-insert-training gives them (buffer updates, loss,
// outputs, then per parameter its weight and state updates), each with its role in
// res_attrs.

// Every argument is a variable: parameters are "weight", buffers "buffer", hyper-
// parameters (loss_scaling, lr, momentum) "scalar", optimizer state "optimizer_state";
// only the input gets a host stream. Only the loss and the output go to the host: they
// are numbered 0 and 1 among the host results (not by result position) and get
// anchors and device-to-host streams; the updates get neither.
// CHECK-LABEL: "poplar.graph"
// CHECK: %[[W:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64>} : () -> tensor<3xf32>
// CHECK: %[[MEAN:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "buffer", name = "bn.running_mean", tiles = array<i64>} : () -> tensor<3xf32>
// CHECK: %[[X:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<3xf32>
// CHECK: "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<3xf32>}
// CHECK: %[[LS:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "loss_scaling", tiles = array<i64>} : () -> tensor<f32>
// CHECK: %[[V:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "w/velocity", tiles = array<i64>} : () -> tensor<3xf32>
// CHECK: %[[LR:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.lr", tiles = array<i64>} : () -> tensor<f32>
// CHECK: %[[MOM:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.momentum", tiles = array<i64>} : () -> tensor<f32>
// CHECK-NOT: "poplar.host_stream"() {direction = "host_to_device"
// CHECK: "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<f32>}
// CHECK: %[[A0:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<f32>
// CHECK: "poplar.host_stream"() {direction = "device_to_host", name = "host.output.1", type = tensor<3xf32>}
// CHECK: %[[A1:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.1", tiles = array<i64>} : () -> tensor<3xf32>
// CHECK-NOT: host.output.2
// CHECK-NOT: anchor.2

// The step computes on the variables; at its end the loss and the output are copied
// to their anchors, then each update is copied into the variable its ipu.name names
// (the new weight into w, the velocity into w/velocity, the running mean into
// bn.running_mean), so the next step reads the updated values.
// CHECK: "poplar.function"() ({
// CHECK-NEXT: "poplar.program_stream_copy"(%[[X]]) {stream = "host.input.x"}
// CHECK-NEXT: "poplar.program_sync"() {kind = "internal"}
// CHECK-NEXT: %[[Y:.*]] = "poplar.popops_map"(%[[W]], %[[X]]) {expr = "mul(_1, _2)"
// CHECK-NEXT: %[[LOSS:.*]] = "poplar.popops_reduce"(%[[Y]])
// CHECK-NEXT: %[[G:.*]] = "poplar.popops_map"(%[[X]], %[[LS]]) {expr = "mul(_1, _2)"
// CHECK-NEXT: %[[UNSCALED:.*]] = "poplar.popops_map"(%[[G]], %[[LS]]) {expr = "div(_1, _2)"
// CHECK-NEXT: %[[VEL:.*]] = "poplar.popops_map"(%[[V]], %[[MOM]], %[[UNSCALED]]) {expr = "add(mul(_1, _2), _3)"
// CHECK-NEXT: %[[NEWW:.*]] = "poplar.popops_map"(%[[W]], %[[VEL]], %[[LR]]) {expr = "sub(_1, mul(_2, _3))"
// CHECK-NEXT: %[[NEWMEAN:.*]] = "poplar.popops_map"(%[[MEAN]], %[[X]]) {expr = "add(mul(_1, 0.9), mul(_2, 0.1))"
// CHECK-NEXT: "poplar.program_copy"(%[[LOSS]], %[[A0]]) : (tensor<f32>, tensor<f32>) -> ()
// CHECK-NEXT: "poplar.program_copy"(%[[Y]], %[[A1]]) : (tensor<3xf32>, tensor<3xf32>) -> ()
// CHECK-NEXT: "poplar.program_copy"(%[[NEWMEAN]], %[[MEAN]]) : (tensor<3xf32>, tensor<3xf32>) -> ()
// CHECK-NEXT: "poplar.program_copy"(%[[NEWW]], %[[W]]) : (tensor<3xf32>, tensor<3xf32>) -> ()
// CHECK-NEXT: "poplar.program_copy"(%[[VEL]], %[[V]]) : (tensor<3xf32>, tensor<3xf32>) -> ()
// CHECK-NEXT: }) {name = "step"}

// The main program streams only the two host results.
// CHECK-NEXT: "poplar.program_sequence"() ({
// CHECK-NEXT: "poplar.program_repeat"() ({
// CHECK-NEXT: "poplar.program_call"() {callee = "step"}
// CHECK-NEXT: "poplar.program_stream_copy"(%[[A0]]) {stream = "host.output.0"}
// CHECK-NEXT: "poplar.program_stream_copy"(%[[A1]]) {stream = "host.output.1"}
// CHECK-NEXT: }) {count = 1 : i64}
// CHECK-NEXT: }) {name = "main"}

// Summed outputs: one sum per host result (loss and output), none for the updates;
// the updates stay in the step, so every one of the 4 iterations trains.
// SUM-LABEL: "poplar.graph"
// SUM: %[[SV:.*]] = "poplar.variable"() {{.*}}name = "w/velocity"
// SUM: %[[S0:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "sum", name = "sum.0", tiles = array<i64>} : () -> tensor<f32>
// SUM: %[[S1:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "sum", name = "sum.1", tiles = array<i64>} : () -> tensor<3xf32>
// SUM-NOT: sum.2
// SUM: "poplar.program_copy"(%{{.*}}, %[[SV]]) : (tensor<3xf32>, tensor<3xf32>) -> ()
// SUM-NEXT: }) {name = "step"}
// SUM: "poplar.program_repeat"() ({
// SUM-NEXT: "poplar.program_call"() {callee = "step"}
// SUM-NEXT: "poplar.popops_scaled_add_to"(%[[S0]], %{{.*}}) {scale = 1.000000e+00 : f64}
// SUM-NEXT: "poplar.popops_scaled_add_to"(%[[S1]], %{{.*}}) {scale = 1.000000e+00 : f64}
// SUM-NEXT: }) {count = 4 : i64}
// SUM-NEXT: "poplar.program_stream_copy"(%[[S0]]) {stream = "host.output.0"}
// SUM-NEXT: "poplar.program_stream_copy"(%[[S1]]) {stream = "host.output.1"}
// SUM-NEXT: }) {name = "main"}
func.func @main(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %mean: tensor<3xf32> {ipu.role = #ipu.role<"buffer", "bn.running_mean">}, %x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}, %ls: tensor<f32> {ipu.role = #ipu.role<"hyper", "loss_scaling">}, %v: tensor<3xf32> {ipu.role = #ipu.role<"optimizer_state", "w/velocity">}, %lr: tensor<f32> {ipu.role = #ipu.role<"hyper", "0.lr">}, %mom: tensor<f32> {ipu.role = #ipu.role<"hyper", "0.momentum">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"buffer_update", "bn.running_mean">}, tensor<f32> {ipu.role = #ipu.role<"loss", "0">}, tensor<3xf32> {ipu.role = #ipu.role<"output", "1">}, tensor<3xf32> {ipu.role = #ipu.role<"weight_update", "w">}, tensor<3xf32> {ipu.role = #ipu.role<"state_update", "w/velocity">}) {
  %0 = "poplar.popops_map"(%w, %x) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = "poplar.popops_reduce"(%0) {dims = array<i64: 0>, keep_dims = false, op = "add", scale = 1.000000e+00 : f64} : (tensor<3xf32>) -> tensor<f32>
  %2 = "poplar.popops_map"(%x, %ls) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %3 = "poplar.popops_map"(%2, %ls) {expr = "div(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %4 = "poplar.popops_map"(%v, %mom, %3) {expr = "add(mul(_1, _2), _3)", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<3xf32>, tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  %5 = "poplar.popops_map"(%w, %4, %lr) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<3xf32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %6 = "poplar.popops_map"(%mean, %x) {expr = "add(mul(_1, 0.9), mul(_2, 0.1))", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %6, %1, %0, %5, %4 : tensor<3xf32>, tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Updates that return a variable's own argument unchanged need no copy; one that
// returns another argument copies that argument's variable. A result without an
// ipu.role is an output. The si64 step counter (num_batches_tracked) is an i64
// buffer updated in place like the others.
// CHECK-LABEL: "poplar.graph"
// CHECK: %[[N:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "buffer", name = "bn.num_batches_tracked", tiles = array<i64>} : () -> tensor<i64>
// CHECK: %[[VAR:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "buffer", name = "bn.running_var", tiles = array<i64>} : () -> tensor<3xf32>
// CHECK: %[[W:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64>} : () -> tensor<3xf32>
// CHECK: %[[S:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "w/velocity", tiles = array<i64>} : () -> tensor<3xf32>
// CHECK: %[[A0:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<3xf32>
// CHECK-NOT: anchor.1
// CHECK: "poplar.function"() ({
// CHECK-NEXT: "poplar.program_sync"() {kind = "internal"}
// CHECK-NEXT: %[[N1:.*]] = "poplar.popops_map"(%[[N]]) {expr = "add(_1, 1)"
// CHECK-NEXT: "poplar.program_copy"(%[[W]], %[[A0]])
// CHECK-NEXT: "poplar.program_copy"(%[[N1]], %[[N]]) : (tensor<i64>, tensor<i64>) -> ()
// CHECK-NEXT: "poplar.program_copy"(%[[W]], %[[S]]) : (tensor<3xf32>, tensor<3xf32>) -> ()
// CHECK-NEXT: }) {name = "step"}
func.func @main(%n: tensor<i64> {ipu.role = #ipu.role<"buffer", "bn.num_batches_tracked">}, %var: tensor<3xf32> {ipu.role = #ipu.role<"buffer", "bn.running_var">}, %w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %v: tensor<3xf32> {ipu.role = #ipu.role<"optimizer_state", "w/velocity">}) -> (tensor<i64> {ipu.role = #ipu.role<"buffer_update", "bn.num_batches_tracked">}, tensor<3xf32> {ipu.role = #ipu.role<"buffer_update", "bn.running_var">}, tensor<3xf32>, tensor<3xf32> {ipu.role = #ipu.role<"state_update", "w/velocity">}) {
  %0 = "poplar.popops_map"(%n) {expr = "add(_1, 1)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<i64>) -> tensor<i64>
  return %0, %var, %w, %w : tensor<i64>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

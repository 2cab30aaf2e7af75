// RUN: ipu-opt %s -p poplar-share-buffers --split-input-file | FileCheck %s

// A training step's copies. Shared: an output anchor written from a fresh result, from
// a view of one (an anchor only feeds its device-to-host copy) and from an input; a
// weight and a running mean written from fresh results. Copied: a weight returned as an
// output (the anchor must not take the weight's buffer, which the next update writes),
// a weight written from a view, from an identity map (_1, its operand's buffer), from
// a constant or from another variable, and the exchange copy that gives IPU 1 its own
// copy of a value.
// CHECK-LABEL: "poplar.graph"
// CHECK: %[[RELU:.*]] = "poplar.popnn_nonlinearity"(%[[X:.*]]) {dim = 0 : i64, kind = "relu"}
// CHECK-NEXT: "poplar.program_copy"(%[[RELU]], %[[OUT0:.*]]) {poplar.copy_mode = "share"} : (tensor<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT: %[[FLAT:.*]] = "poplar.reshape"(%[[RELU]])
// CHECK-NEXT: "poplar.program_copy"(%[[FLAT]], %[[OUT1:.*]]) {poplar.copy_mode = "share"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
// CHECK-NEXT: "poplar.program_copy"(%[[X]], %[[OUT2:.*]]) {poplar.copy_mode = "share"} : (tensor<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT: "poplar.program_copy"(%[[W:.*]], %[[OUT3:.*]]) : (tensor<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT: %[[W2:.*]] = "poplar.popops_map"(%[[W]], %[[X]]) {expr = "sub(_1, _2)"
// CHECK-NEXT: "poplar.program_copy"(%[[W2]], %[[W]]) {poplar.copy_mode = "share"} : (tensor<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT: %[[MEAN2:.*]] = "poplar.popops_reduce"
// CHECK-NEXT: "poplar.program_copy"(%[[MEAN2]], %[[MEAN:.*]]) {poplar.copy_mode = "share"} : (tensor<f32>, tensor<f32>) -> ()
// CHECK-NEXT: %[[FLAT2:.*]] = "poplar.reshape"(%[[X]]) :
// CHECK-NEXT: %[[RELU2:.*]] = "poplar.popnn_nonlinearity"(%[[FLAT2]])
// CHECK-NEXT: %[[VIEW:.*]] = "poplar.reshape"(%[[RELU2]]) :
// CHECK-NEXT: "poplar.program_copy"(%[[VIEW]], %[[V:.*]]) : (tensor<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT: %[[NOP:.*]] = "poplar.popops_map"(%[[X]]) {expr = "_1"
// CHECK-NEXT: "poplar.program_copy"(%[[NOP]], %[[N:.*]]) : (tensor<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT: "poplar.program_copy"(%[[ZERO:.*]], %[[SUM:.*]]) : (tensor<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT: "poplar.program_copy"(%[[W]], %[[N]]) : (tensor<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT: "poplar.program_copy"(%[[RELU]], %[[E:.*]]) : (tensor<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT: }) {name = "step"}
// CHECK-NOT: poplar.copy_mode
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "fc.weight", tiles = array<i64>} : () -> tensor<4xf32>
  %v = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "v", tiles = array<i64>} : () -> tensor<4xf32>
  %n = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "n", tiles = array<i64>} : () -> tensor<4xf32>
  %mean = "poplar.variable"() {ipu = 0 : i64, kind = "buffer", name = "bn.running_mean", tiles = array<i64>} : () -> tensor<f32>
  %sum = "poplar.variable"() {ipu = 0 : i64, kind = "sum", name = "sum.0", tiles = array<i64>} : () -> tensor<4xf32>
  %e = "poplar.variable"() {ipu = 1 : i64, kind = "exchange", name = "exchange.0", tiles = array<i64>} : () -> tensor<4xf32>
  %out0 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<4xf32>
  %out1 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.1", tiles = array<i64>} : () -> tensor<2x2xf32>
  %out2 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.2", tiles = array<i64>} : () -> tensor<4xf32>
  %out3 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.3", tiles = array<i64>} : () -> tensor<4xf32>
  %zero = "poplar.constant"() {ipu = 0 : i64, value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
  "poplar.function"() ({
    %relu = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu"} : (tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%relu, %out0) : (tensor<4xf32>, tensor<4xf32>) -> ()
    %flat = "poplar.reshape"(%relu) : (tensor<4xf32>) -> tensor<2x2xf32>
    "poplar.program_copy"(%flat, %out1) : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
    "poplar.program_copy"(%x, %out2) : (tensor<4xf32>, tensor<4xf32>) -> ()
    "poplar.program_copy"(%w, %out3) : (tensor<4xf32>, tensor<4xf32>) -> ()
    %w2 = "poplar.popops_map"(%w, %x) {expr = "sub(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%w2, %w) : (tensor<4xf32>, tensor<4xf32>) -> ()
    %mean2 = "poplar.popops_reduce"(%x) {dims = array<i64: 0>, keep_dims = false, op = "add", scale = 2.500000e-01 : f64} : (tensor<4xf32>) -> tensor<f32>
    "poplar.program_copy"(%mean2, %mean) : (tensor<f32>, tensor<f32>) -> ()
    %flat2 = "poplar.reshape"(%x) : (tensor<4xf32>) -> tensor<2x2xf32>
    %relu2 = "poplar.popnn_nonlinearity"(%flat2) {dim = 0 : i64, kind = "relu"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %view = "poplar.reshape"(%relu2) : (tensor<2x2xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%view, %v) : (tensor<4xf32>, tensor<4xf32>) -> ()
    %nop = "poplar.popops_map"(%x) {expr = "_1", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%nop, %n) : (tensor<4xf32>, tensor<4xf32>) -> ()
    "poplar.program_copy"(%zero, %sum) : (tensor<4xf32>, tensor<4xf32>) -> ()
    "poplar.program_copy"(%w, %n) : (tensor<4xf32>, tensor<4xf32>) -> ()
    "poplar.program_copy"(%relu, %e) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// A pipelined step (pipeline.stage regions): stage 0 writes a state variable from a
// fresh result (shared) and stashes it; stage 2 writes the output anchor from a value
// restored from the stash and from a fresh sum (both shared), and the state's old value
// into a second anchor (a variable: copied). The device loop's copy into the sum, from
// a constant, stays a copy.
// CHECK-LABEL: "poplar.graph"
// CHECK: %[[N:.*]] = "poplar.popops_map"(%[[ST:.*]], %[[X:.*]]) {expr = "add(_1, _2)"
// CHECK-NEXT: "poplar.program_copy"(%[[N]], %[[ST]]) {pipeline.stage = 0 : i64, poplar.copy_mode = "share"}
// CHECK: %[[R:.*]] = "pipeline.restore"()
// CHECK-NEXT: "poplar.program_copy"(%[[R]], %[[OUT0:.*]]) {pipeline.stage = 2 : i64, poplar.copy_mode = "share"}
// CHECK-NEXT: %[[Z:.*]] = "poplar.popops_add"(%[[E1:.*]], %[[R]])
// CHECK-NEXT: "poplar.program_copy"(%[[Z]], %[[OUT1:.*]]) {pipeline.stage = 2 : i64, poplar.copy_mode = "share"}
// CHECK-NEXT: "poplar.program_copy"(%[[ST]], %[[OUT2:.*]]) {pipeline.stage = 2 : i64} :
// CHECK: "poplar.program_repeat"
// CHECK-NEXT: "poplar.program_copy"(%[[ZERO:.*]], %[[SUM:.*]]) : (tensor<2xf32>, tensor<2xf32>) -> ()
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<2xf32>
  %st = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "state", tiles = array<i64>} : () -> tensor<2xf32>
  %out0 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<2xf32>
  %out1 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.1", tiles = array<i64>} : () -> tensor<2xf32>
  %out2 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.2", tiles = array<i64>} : () -> tensor<2xf32>
  %sum = "poplar.variable"() {ipu = 0 : i64, kind = "sum", name = "sum.0", tiles = array<i64>} : () -> tensor<2xf32>
  %zero = "poplar.constant"() {ipu = 0 : i64, value = dense<0.0> : tensor<2xf32>} : () -> tensor<2xf32>
  "poplar.function"() ({
    "pipeline.schedule"() ({
      "pipeline.stage"() ({
        %n = "poplar.popops_map"(%st, %x) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
        "poplar.program_copy"(%n, %st) {pipeline.stage = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> ()
        "pipeline.stash"(%n) {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, stash_id = "s0"} : (tensor<2xf32>) -> ()
        "pipeline.send"(%x) {channel = "c0", dst_ipu = 1 : i64, pipeline.stage = 0 : i64, src_ipu = 0 : i64} : (tensor<2xf32>) -> ()
      }) {ipu_id = 0 : i64, stage_id = 0 : i64} : () -> ()
      "pipeline.stage"() ({
        %e = "pipeline.recv"() {channel = "c0", dst_ipu = 1 : i64, pipeline.stage = 1 : i64, src_ipu = 0 : i64} : () -> tensor<2xf32>
        %y = "poplar.popnn_nonlinearity"(%e) {dim = 0 : i64, kind = "relu", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2xf32>) -> tensor<2xf32>
        "pipeline.send"(%y) {channel = "c1", dst_ipu = 0 : i64, pipeline.stage = 1 : i64, src_ipu = 1 : i64} : (tensor<2xf32>) -> ()
      }) {ipu_id = 1 : i64, stage_id = 1 : i64} : () -> ()
      "pipeline.stage"() ({
        %e1 = "pipeline.recv"() {channel = "c1", dst_ipu = 0 : i64, pipeline.stage = 2 : i64, src_ipu = 1 : i64} : () -> tensor<2xf32>
        %r = "pipeline.restore"() {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, stash_id = "s0"} : () -> tensor<2xf32>
        "poplar.program_copy"(%r, %out0) {pipeline.stage = 2 : i64} : (tensor<2xf32>, tensor<2xf32>) -> ()
        %z = "poplar.popops_add"(%e1, %r) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
        "poplar.program_copy"(%z, %out1) {pipeline.stage = 2 : i64} : (tensor<2xf32>, tensor<2xf32>) -> ()
        "poplar.program_copy"(%st, %out2) {pipeline.stage = 2 : i64} : (tensor<2xf32>, tensor<2xf32>) -> ()
      }) {ipu_id = 0 : i64, stage_id = 2 : i64} : () -> ()
    }) {device_iterations = 4 : i64, gradient_accumulation = 1 : i64, kind = "pipelined", num_ipus = 2 : i64, num_stages = 3 : i64, training = false} : () -> ()
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 3 : i64, 3 : i64, 2 : i64, array<i64: 0, 1, 0>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_copy"(%zero, %sum) : (tensor<2xf32>, tensor<2xf32>) -> ()
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {count = 4 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// Output anchors from views (and identity maps) of a weight, of an off-chip weight and
// of a constant are copied: the host would hold the device's own memory, which the
// update after gradient accumulation writes in place, an off-chip weight's store
// overwrites, or the user's write into the output changes. A view of an input, and a
// view of a fresh result, are shared.
// CHECK-LABEL: "poplar.graph"
// CHECK: %[[T:.*]] = "poplar.dim_shuffle"(%[[W:.*]]) {permutation
// CHECK-NEXT: "poplar.program_copy"(%[[T]], %[[OUT0:.*]]) : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
// CHECK-NEXT: %[[ROW:.*]] = "poplar.slice"(%[[T]])
// CHECK-NEXT: %[[ID:.*]] = "poplar.popops_map"(%[[ROW]]) {expr = "_1"
// CHECK-NEXT: "poplar.program_copy"(%[[ID]], %[[OUT1:.*]]) : (tensor<1x2xf32>, tensor<1x2xf32>) -> ()
// CHECK-NEXT: "poplar.program_remote_load"(%[[R:.*]]) {buffer = "remote.r"}
// CHECK-NEXT: %[[RV:.*]] = "poplar.reshape"(%[[R]])
// CHECK-NEXT: "poplar.program_copy"(%[[RV]], %[[OUT2:.*]]) : (tensor<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT: %[[CV:.*]] = "poplar.reshape"(%[[C:.*]])
// CHECK-NEXT: "poplar.program_copy"(%[[CV]], %[[OUT3:.*]]) : (tensor<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT: %[[XV:.*]] = "poplar.reshape"(%[[X:[0-9]+]])
// CHECK-NEXT: "poplar.program_copy"(%[[XV]], %[[OUT4:.*]]) {poplar.copy_mode = "share"} : (tensor<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT: %[[E:.*]] = "poplar.popops_map"(%[[X]]) {expr = "exp(_1)"
// CHECK-NEXT: %[[EV:.*]] = "poplar.reshape"(%[[E]])
// CHECK-NEXT: "poplar.program_copy"(%[[EV]], %[[OUT5:.*]]) {poplar.copy_mode = "share"} : (tensor<4xf32>, tensor<4xf32>) -> ()
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<2x2xf32>
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64>} : () -> tensor<2x2xf32>
  %r = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "r", poplar.remote_buffer = "remote.r", tiles = array<i64>} : () -> tensor<2x2xf32>
  "poplar.remote_buffer"() {name = "remote.r", repeats = 1 : i64, type = tensor<2x2xf32>} : () -> ()
  %c = "poplar.constant"() {ipu = 0 : i64, value = dense<1.0> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %out0 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<2x2xf32>
  %out1 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.1", tiles = array<i64>} : () -> tensor<1x2xf32>
  %out2 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.2", tiles = array<i64>} : () -> tensor<4xf32>
  %out3 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.3", tiles = array<i64>} : () -> tensor<4xf32>
  %out4 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.4", tiles = array<i64>} : () -> tensor<4xf32>
  %out5 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.5", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.function"() ({
    %t = "poplar.dim_shuffle"(%w) {permutation = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    "poplar.program_copy"(%t, %out0) : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
    %row = "poplar.slice"(%t) {begin = array<i64: 0, 0>, end = array<i64: 1, 2>, stride = array<i64: 1, 1>} : (tensor<2x2xf32>) -> tensor<1x2xf32>
    %id = "poplar.popops_map"(%row) {expr = "_1", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1x2xf32>) -> tensor<1x2xf32>
    "poplar.program_copy"(%id, %out1) : (tensor<1x2xf32>, tensor<1x2xf32>) -> ()
    "poplar.program_remote_load"(%r) {buffer = "remote.r"} : (tensor<2x2xf32>) -> ()
    %rv = "poplar.reshape"(%r) : (tensor<2x2xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%rv, %out2) : (tensor<4xf32>, tensor<4xf32>) -> ()
    %cv = "poplar.reshape"(%c) : (tensor<2x2xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%cv, %out3) : (tensor<4xf32>, tensor<4xf32>) -> ()
    %xv = "poplar.reshape"(%x) : (tensor<2x2xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%xv, %out4) : (tensor<4xf32>, tensor<4xf32>) -> ()
    %e = "poplar.popops_map"(%x) {expr = "exp(_1)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %ev = "poplar.reshape"(%e) : (tensor<2x2xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%ev, %out5) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

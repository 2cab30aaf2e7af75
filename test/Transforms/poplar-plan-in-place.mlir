// RUN: ipu-opt %s -p poplar-plan-in-place --split-input-file | FileCheck %s

// SGD with momentum as the optimizer lowering writes it: v' = v * m + g, then
// w' = w - v' * lr, each copied back into its variable. Both run in place: the copies
// go, and the weight update reads the velocity variable, which then holds v'. The
// step counter's update (add(_1, 1.0)) is no update expression: it keeps its copy.
// CHECK-LABEL: "poplar.function"
// CHECK: "poplar.popops_map_in_place"(%[[V:.*]], %[[M:.*]], %[[G:.*]]) {expr = "add(mul(_1, _2), _3)", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.stage = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<4xf32>) -> ()
// CHECK-NEXT: %[[N:.*]] = "poplar.popops_map"(%[[STEP:.*]]) {expr = "add(_1, 1.0)"
// CHECK-NEXT: "poplar.popops_map_in_place"(%[[W:.*]], %[[V]], %[[LR:.*]]) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.stage = 0 : i64} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> ()
// CHECK-NEXT: "poplar.program_copy"(%[[N]], %[[STEP]])
// CHECK-NEXT: }) {name = "step"}
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "fc.weight", tiles = array<i64>} : () -> tensor<4xf32>
  %v = "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "fc.weight/velocity", tiles = array<i64>} : () -> tensor<4xf32>
  %step = "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "fc.weight/step", tiles = array<i64>} : () -> tensor<f32>
  %g = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.g", tiles = array<i64>} : () -> tensor<4xf32>
  %m = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.momentum", tiles = array<i64>} : () -> tensor<f32>
  %lr = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.lr", tiles = array<i64>} : () -> tensor<f32>
  "poplar.function"() ({
    %v2 = "poplar.popops_map"(%v, %m, %g) {expr = "add(mul(_1, _2), _3)", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.stage = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
    %n = "poplar.popops_map"(%step) {expr = "add(_1, 1.0)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.stage = 0 : i64} : (tensor<f32>) -> tensor<f32>
    %w2 = "poplar.popops_map"(%w, %v2, %lr) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.stage = 0 : i64} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    "poplar.program_copy"(%w2, %w) {pipeline.stage = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> ()
    "poplar.program_copy"(%v2, %v) {pipeline.stage = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> ()
    "poplar.program_copy"(%n, %step) {pipeline.stage = 0 : i64} : (tensor<f32>, tensor<f32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// What keeps its separate result: an update whose variable is read after it (%a: the
// old value is still needed), or through a view made before it (%c), an update read
// by a later op but copied into nothing (%d), an update into a value that is no
// variable (%e), one that also reads its variable as another operand (%f), one copied
// into another variable (%h), and one of the wrong shape for its variable (%k: x + a
// [2, 4] tensor broadcasts).
// CHECK-LABEL: "poplar.function"
// CHECK-NOT: "poplar.popops_map_in_place"
// CHECK-COUNT-7: "poplar.popops_map"
// CHECK-NOT: "poplar.popops_map_in_place"
"poplar.graph"() ({
  %a = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "a", tiles = array<i64>} : () -> tensor<4xf32>
  %c = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "c", tiles = array<i64>} : () -> tensor<4xf32>
  %d = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "d", tiles = array<i64>} : () -> tensor<4xf32>
  %f = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "f", tiles = array<i64>} : () -> tensor<4xf32>
  %h = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "h", tiles = array<i64>} : () -> tensor<4xf32>
  %h2 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "h2", tiles = array<i64>} : () -> tensor<4xf32>
  %k = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "k", tiles = array<i64>} : () -> tensor<4xf32>
  %g = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.g", tiles = array<i64>} : () -> tensor<4xf32>
  %big = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.big", tiles = array<i64>} : () -> tensor<2x4xf32>
  %out = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<4xf32>
  %out2 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.1", tiles = array<i64>} : () -> tensor<2x2xf32>
  %big_out = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.2", tiles = array<i64>} : () -> tensor<2x4xf32>
  "poplar.function"() ({
    %a2 = "poplar.popops_map"(%a, %g) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %old = "poplar.popnn_nonlinearity"(%a) {dim = 0 : i64, kind = "relu"} : (tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%a2, %a) : (tensor<4xf32>, tensor<4xf32>) -> ()
    %cv = "poplar.reshape"(%c) : (tensor<4xf32>) -> tensor<2x2xf32>
    %c2 = "poplar.popops_map"(%c, %g) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%c2, %c) : (tensor<4xf32>, tensor<4xf32>) -> ()
    "poplar.program_copy"(%cv, %out2) : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
    %d2 = "poplar.popops_map"(%d, %g) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%d2, %out) : (tensor<4xf32>, tensor<4xf32>) -> ()
    %e = "poplar.popnn_nonlinearity"(%g) {dim = 0 : i64, kind = "relu"} : (tensor<4xf32>) -> tensor<4xf32>
    %e2 = "poplar.popops_map"(%e, %g) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%e2, %out) : (tensor<4xf32>, tensor<4xf32>) -> ()
    %f2 = "poplar.popops_map"(%f, %f) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%f2, %f) : (tensor<4xf32>, tensor<4xf32>) -> ()
    %hh = "poplar.popops_map"(%h, %g) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%hh, %h2) : (tensor<4xf32>, tensor<4xf32>) -> ()
    %k2 = "poplar.popops_map"(%k, %big) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    "poplar.program_copy"(%k2, %big_out) : (tensor<2x4xf32>, tensor<2x4xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// A pipelined step (as pipeline-schedule leaves test_stash.py's program): stage 0
// updates a state variable, n = state + x, and stage 2 reads n from a stash. In a
// pipeline the next micro-batch's stage 0 updates the state before stage 2 reads it,
// so n keeps its own tensor. The same update without the stash (%u, read by nothing
// later) runs in place. Stages run as one block, in stage order: the read of %u2 in
// stage 2 comes after its update.
// CHECK-LABEL: "poplar.graph"
// CHECK: %[[N:.*]] = "poplar.popops_map"(%[[ST:.*]], %[[X:.*]]) {expr = "add(_1, _2)"
// CHECK: "poplar.program_copy"(%[[N]], %[[ST]])
// CHECK: "poplar.popops_map_in_place"(%[[U:.*]], %[[X]]) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64}
// CHECK: %[[U2N:.*]] = "poplar.popops_map"(%[[U2:.*]], %[[X]]) {expr = "add(_1, _2)"
// CHECK: "poplar.program_copy"(%[[U2N]], %[[U2]])
// CHECK: "pipeline.stash"(%[[N]])
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<2xf32>
  %st = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "state", tiles = array<i64>} : () -> tensor<2xf32>
  %u = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "u", tiles = array<i64>} : () -> tensor<2xf32>
  %u2 = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "u2", tiles = array<i64>} : () -> tensor<2xf32>
  %out = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<2xf32>
  "poplar.function"() ({
    "pipeline.schedule"() ({
      "pipeline.stage"() ({
        %n = "poplar.popops_map"(%st, %x) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
        "poplar.program_copy"(%n, %st) {pipeline.stage = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> ()
        %un = "poplar.popops_map"(%u, %x) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
        "poplar.program_copy"(%un, %u) {pipeline.stage = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> ()
        %u2n = "poplar.popops_map"(%u2, %x) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
        "poplar.program_copy"(%u2n, %u2) {pipeline.stage = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> ()
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
        %z = "poplar.popops_add"(%e1, %r) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
        %z2 = "poplar.popops_add"(%z, %u2) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
        "poplar.program_copy"(%z2, %out) {pipeline.stage = 2 : i64} : (tensor<2xf32>, tensor<2xf32>) -> ()
      }) {ipu_id = 0 : i64, stage_id = 2 : i64} : () -> ()
    }) {device_iterations = 4 : i64, gradient_accumulation = 1 : i64, kind = "pipelined", num_ipus = 2 : i64, num_stages = 3 : i64, training = false} : () -> ()
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 3 : i64, 3 : i64, 2 : i64, array<i64: 0, 1, 0>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {count = 4 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// Off-chip weight and velocity (after poplar-place-tensors: each update's run loads its
// variable, and the write-back at the step's end is a run of its own: load, copy,
// store). Both updates run in place on the loaded variable; the write-back's loads,
// copies and stores go, and one store follows the last reader of each new value: the
// velocity's after the weight update (which reads it), the weight's after the add that
// reads the new weight (the store keeps its I/O tiles). %a is read (its old value)
// by a later run after its update: it keeps its result, copy, loads and store.
// CHECK-LABEL: "poplar.graph"
// CHECK: "poplar.function"
// CHECK-NEXT: "poplar.program_remote_load"(%[[V:.*]]) {buffer = "remote.v"
// CHECK-NEXT: "poplar.popops_map_in_place"(%[[V]], %[[M:.*]], %[[G:.*]]) {expr = "add(mul(_1, _2), _3)"
// CHECK-NEXT: "poplar.program_remote_load"(%[[W:.*]]) {buffer = "remote.w"
// CHECK-NEXT: "poplar.popops_map_in_place"(%[[W]], %[[V]], %[[LR:.*]]) {expr = "sub(_1, mul(_2, _3))"
// CHECK-NEXT: "poplar.program_remote_store"(%[[V]]) {buffer = "remote.v", pipeline.stage = 0 : i64}
// CHECK-NEXT: %[[O:.*]] = "poplar.popops_add"(%[[W]], %[[G]])
// CHECK-NEXT: "poplar.program_remote_store"(%[[W]]) {buffer = "remote.w", pipeline.stage = 0 : i64, poplar.io_tiles}
// CHECK-NEXT: "poplar.program_copy"(%[[O]], %{{.*}})
// CHECK-NEXT: "poplar.program_remote_load"(%[[A:.*]]) {buffer = "remote.a"
// CHECK-NEXT: %[[A2:.*]] = "poplar.popops_map"(%[[A]], %[[G]]) {expr = "add(_1, _2)"
// CHECK-NEXT: "poplar.program_remote_load"(%[[A]]) {buffer = "remote.a"
// CHECK-NEXT: "poplar.popnn_nonlinearity"(%[[A]])
// CHECK-NEXT: "poplar.program_remote_load"(%[[A]]) {buffer = "remote.a"
// CHECK-NEXT: "poplar.program_copy"(%[[A2]], %[[A]])
// CHECK-NEXT: "poplar.program_remote_store"(%[[A]]) {buffer = "remote.a"
// CHECK-NEXT: }) {name = "step"}
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", poplar.remote_buffer = "remote.w", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.remote_buffer"() {name = "remote.w", pipeline.ipu = 0 : i64, repeats = 1 : i64, type = tensor<4xf32>} : () -> ()
  %v = "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "w/velocity", poplar.remote_buffer = "remote.v", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.remote_buffer"() {name = "remote.v", pipeline.ipu = 0 : i64, repeats = 1 : i64, type = tensor<4xf32>} : () -> ()
  %a = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "a", poplar.remote_buffer = "remote.a", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.remote_buffer"() {name = "remote.a", pipeline.ipu = 0 : i64, repeats = 1 : i64, type = tensor<4xf32>} : () -> ()
  %g = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.g", tiles = array<i64>} : () -> tensor<4xf32>
  %m = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.momentum", tiles = array<i64>} : () -> tensor<f32>
  %lr = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.lr", tiles = array<i64>} : () -> tensor<f32>
  %out = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.function"() ({
    "poplar.program_remote_load"(%v) {buffer = "remote.v", pipeline.stage = 0 : i64} : (tensor<4xf32>) -> ()
    %v2 = "poplar.popops_map"(%v, %m, %g) {expr = "add(mul(_1, _2), _3)", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.stage = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_remote_load"(%w) {buffer = "remote.w", pipeline.stage = 0 : i64} : (tensor<4xf32>) -> ()
    %w2 = "poplar.popops_map"(%w, %v2, %lr) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.stage = 0 : i64} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %o = "poplar.popops_add"(%w2, %g) {pipeline.stage = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%o, %out) {pipeline.stage = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> ()
    "poplar.program_remote_load"(%a) {buffer = "remote.a", pipeline.stage = 0 : i64} : (tensor<4xf32>) -> ()
    %a2 = "poplar.popops_map"(%a, %g) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.stage = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_remote_load"(%a) {buffer = "remote.a", pipeline.stage = 0 : i64} : (tensor<4xf32>) -> ()
    %old = "poplar.popnn_nonlinearity"(%a) {dim = 0 : i64, kind = "relu", pipeline.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_remote_load"(%w) {buffer = "remote.w", pipeline.stage = 0 : i64} : (tensor<4xf32>) -> ()
    "poplar.program_copy"(%w2, %w) {pipeline.stage = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> ()
    "poplar.program_remote_store"(%w) {buffer = "remote.w", pipeline.stage = 0 : i64, poplar.io_tiles} : (tensor<4xf32>) -> ()
    "poplar.program_remote_load"(%v) {buffer = "remote.v", pipeline.stage = 0 : i64} : (tensor<4xf32>) -> ()
    "poplar.program_copy"(%v2, %v) {pipeline.stage = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> ()
    "poplar.program_remote_store"(%v) {buffer = "remote.v", pipeline.stage = 0 : i64} : (tensor<4xf32>) -> ()
    "poplar.program_remote_load"(%a) {buffer = "remote.a", pipeline.stage = 0 : i64} : (tensor<4xf32>) -> ()
    "poplar.program_copy"(%a2, %a) {pipeline.stage = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> ()
    "poplar.program_remote_store"(%a) {buffer = "remote.a", pipeline.stage = 0 : i64} : (tensor<4xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

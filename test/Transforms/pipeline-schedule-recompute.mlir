// RUN: ipu-opt %s -p 'pipeline-schedule{recompute=true}' --split-input-file | FileCheck %s
// RUN: ipu-opt %s -p 'pipeline-schedule{recompute=true},poplar-plan-memory' --split-input-file | FileCheck %s --check-prefix=MEM

// Pipelined training over 2 IPUs with recomputation. Stage 0 on IPU 0: h = x @ w0,
// r = gelu(h), z = r @ w2; stage 1 on IPU 1: the loss and its gradients; stage 2 on
// IPU 0: the gradients of w2 (needs r) and w0 (needs h through gelu's gradient, and x).
// Only x, the stage's input, is stashed; stage 2 recomputes h and r from the restored
// x and the weights, right before their first stage-2 reader. Stash on IPU 0: x,
// 64 bytes x depth 2 = 128 (without recomputation: x, h and r = 640).
// CHECK-LABEL: "poplar.graph"
// CHECK: "poplar.program_stream_copy"(%[[X:.*]]) {pipeline.stage = 0 : i64
// CHECK-NEXT: "pipeline.stash"(%[[X]]) {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, stash_id = "[[ID:.*]]"}
// CHECK-NOT: "pipeline.stash"
// CHECK: %[[RX:.*]] = "pipeline.restore"() {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, stash_id = "[[ID]]"}
// CHECK-NEXT: %[[H:.*]] = "poplar.poplin_matmul"(%[[RX]], %[[W0:.*]]) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64}
// CHECK-NEXT: %[[R:.*]] = "poplar.popnn_nonlinearity"(%[[H]]) {dim = 0 : i64, kind = "gelu_erf", pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64}
// CHECK-NEXT: "poplar.dim_shuffle"(%[[R]])
// CHECK: "poplar.popnn_nonlinearity_grad"(%{{.*}}, %[[H]]) {{.*}}pipeline.stage = 2 : i64
// CHECK: "poplar.dim_shuffle"(%[[RX]]) {{.*}}pipeline.stage = 2 : i64
// CHECK-NOT: "pipeline.restore"
// CHECK: }) {name = "step"
// MEM-LABEL: "poplar.graph"
// MEM: #poplar.ipu_memory<0 : i64, {{[0-9]+}} : i64, {{[0-9]+}} : i64, 128 : i64,
"poplar.graph"() ({
  %ex1 = "poplar.variable"() {ipu = 0 : i64, kind = "exchange", name = "exchange.1", tiles = array<i64: 0, 1>} : () -> tensor<2x4xf32>
  %ex0 = "poplar.variable"() {ipu = 1 : i64, kind = "exchange", name = "exchange.0", tiles = array<i64: 0, 1>} : () -> tensor<2x4xf32>
  %w0 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w0", tiles = array<i64: 1, 1>} : () -> tensor<8x16xf32>
  %w2 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w2", tiles = array<i64: 2, 1>} : () -> tensor<16x4xf32>
  %w1 = "poplar.variable"() {ipu = 1 : i64, kind = "weight", name = "w1", tiles = array<i64: 1, 1>} : () -> tensor<4x4xf32>
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 0, 1>} : () -> tensor<2x8xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<2x8xf32>} : () -> ()
  %ls = "poplar.variable"() {ipu = 1 : i64, kind = "scalar", name = "loss_scaling", tiles = array<i64: 2, 1>} : () -> tensor<f32>
  %acc0 = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "w0/accum", tiles = array<i64: 1, 1>} : () -> tensor<8x16xf32>
  %acc2 = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "w2/accum", tiles = array<i64: 2, 1>} : () -> tensor<16x4xf32>
  %acc1 = "poplar.variable"() {ipu = 1 : i64, kind = "accumulator", name = "w1/accum", tiles = array<i64: 0, 1>} : () -> tensor<4x4xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<f32>} : () -> ()
  %out = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64: 0, 1>} : () -> tensor<f32>
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<2x8xf32>) -> ()
    "poplar.program_sync"() {kind = "internal"} : () -> ()
    %h = "poplar.poplin_matmul"(%x, %w0) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
    %r = "poplar.popnn_nonlinearity"(%h) {dim = 0 : i64, kind = "gelu_erf", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x16xf32>) -> tensor<2x16xf32>
    %z = "poplar.poplin_matmul"(%r, %w2) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x16xf32>, tensor<16x4xf32>) -> tensor<2x4xf32>
    "poplar.program_copy"(%z, %ex0) : (tensor<2x4xf32>, tensor<2x4xf32>) -> ()
    %y = "poplar.poplin_matmul"(%ex0, %w1) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %loss = "poplar.popops_reduce"(%y) {dims = array<i64: 0, 1>, keep_dims = false, op = "add", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64, scale = 1.000000e+00 : f64} : (tensor<2x4xf32>) -> tensor<f32>
    %g = "poplar.broadcast"(%ls) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<f32>) -> tensor<2x4xf32>
    %et = "poplar.dim_shuffle"(%ex0) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x4xf32>) -> tensor<4x2xf32>
    %gw1 = "poplar.poplin_matmul"(%et, %g) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
    %w1t = "poplar.dim_shuffle"(%w1) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %gz = "poplar.poplin_matmul"(%g, %w1t) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    "poplar.program_copy"(%gz, %ex1) : (tensor<2x4xf32>, tensor<2x4xf32>) -> ()
    %rt = "poplar.dim_shuffle"(%r) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x16xf32>) -> tensor<16x2xf32>
    %gw2 = "poplar.poplin_matmul"(%rt, %ex1) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<16x2xf32>, tensor<2x4xf32>) -> tensor<16x4xf32>
    %w2t = "poplar.dim_shuffle"(%w2) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<16x4xf32>) -> tensor<4x16xf32>
    %gr = "poplar.poplin_matmul"(%ex1, %w2t) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x4xf32>, tensor<4x16xf32>) -> tensor<2x16xf32>
    %gh = "poplar.popnn_nonlinearity_grad"(%gr, %h) {dim = 0 : i64, kind = "gelu_erf", pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
    %xt = "poplar.dim_shuffle"(%x) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x8xf32>) -> tensor<8x2xf32>
    %gw0 = "poplar.poplin_matmul"(%xt, %gh) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<8x2xf32>, tensor<2x16xf32>) -> tensor<8x16xf32>
    %a0 = "poplar.popops_map"(%acc0, %gw0) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %a2 = "poplar.popops_map"(%acc2, %gw2) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64} : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %a1 = "poplar.popops_map"(%acc1, %gw1) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 1 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    "poplar.program_copy"(%loss, %out) : (tensor<f32>, tensor<f32>) -> ()
    "poplar.program_copy"(%a0, %acc0) : (tensor<8x16xf32>, tensor<8x16xf32>) -> ()
    "poplar.program_copy"(%a2, %acc2) : (tensor<16x4xf32>, tensor<16x4xf32>) -> ()
    "poplar.program_copy"(%a1, %acc1) : (tensor<4x4xf32>, tensor<4x4xf32>) -> ()
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 3 : i64, 2 : i64, array<i64: 0, 1, 0>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_repeat"() ({
        "poplar.program_call"() {callee = "step"} : () -> ()
      }) {count = 3 : i64} : () -> ()
    }) {count = 1 : i64} : () -> ()
    "poplar.program_stream_copy"(%out) {stream = "host.output.0"} : (tensor<f32>) -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// The same step with r marked by poptorch.recomputationCheckpoint (pipeline.checkpoint
// on gelu): r is stashed like x, and only h is recomputed (gelu's gradient reads it).
// Stash on IPU 0: x 64 x 2 + r 128 x 2 = 384.
// CHECK-LABEL: "poplar.graph"
// CHECK: "pipeline.stash"(%[[X:.*]]) {depth = 2 : i64, {{.*}}stash_id = "[[IX:.*]]"}
// CHECK: %[[R:.*]] = "poplar.popnn_nonlinearity"{{.*}}pipeline.checkpoint = array<i64: 0>
// CHECK-NEXT: "pipeline.stash"(%[[R]]) {depth = 2 : i64, {{.*}}stash_id = "[[IR:.*]]"}
// CHECK: %[[RR:.*]] = "pipeline.restore"() {{.*}}stash_id = "[[IR]]"
// CHECK-NEXT: "poplar.dim_shuffle"(%[[RR]])
// CHECK: %[[RX:.*]] = "pipeline.restore"() {{.*}}stash_id = "[[IX]]"
// CHECK-NEXT: %[[H:.*]] = "poplar.poplin_matmul"(%[[RX]], %{{.*}}) {{.*}}pipeline.stage = 2 : i64
// CHECK-NEXT: "poplar.popnn_nonlinearity_grad"(%{{.*}}, %[[H]])
// CHECK-NOT: "poplar.popnn_nonlinearity"(
// CHECK: }) {name = "step"
// MEM-LABEL: "poplar.graph"
// MEM: #poplar.ipu_memory<0 : i64, {{[0-9]+}} : i64, {{[0-9]+}} : i64, 384 : i64,
"poplar.graph"() ({
  %ex1 = "poplar.variable"() {ipu = 0 : i64, kind = "exchange", name = "exchange.1", tiles = array<i64: 0, 1>} : () -> tensor<2x4xf32>
  %ex0 = "poplar.variable"() {ipu = 1 : i64, kind = "exchange", name = "exchange.0", tiles = array<i64: 0, 1>} : () -> tensor<2x4xf32>
  %w0 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w0", tiles = array<i64: 1, 1>} : () -> tensor<8x16xf32>
  %w2 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w2", tiles = array<i64: 2, 1>} : () -> tensor<16x4xf32>
  %w1 = "poplar.variable"() {ipu = 1 : i64, kind = "weight", name = "w1", tiles = array<i64: 1, 1>} : () -> tensor<4x4xf32>
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 0, 1>} : () -> tensor<2x8xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<2x8xf32>} : () -> ()
  %ls = "poplar.variable"() {ipu = 1 : i64, kind = "scalar", name = "loss_scaling", tiles = array<i64: 2, 1>} : () -> tensor<f32>
  %acc0 = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "w0/accum", tiles = array<i64: 1, 1>} : () -> tensor<8x16xf32>
  %acc2 = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "w2/accum", tiles = array<i64: 2, 1>} : () -> tensor<16x4xf32>
  %acc1 = "poplar.variable"() {ipu = 1 : i64, kind = "accumulator", name = "w1/accum", tiles = array<i64: 0, 1>} : () -> tensor<4x4xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<f32>} : () -> ()
  %out = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64: 0, 1>} : () -> tensor<f32>
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<2x8xf32>) -> ()
    "poplar.program_sync"() {kind = "internal"} : () -> ()
    %h = "poplar.poplin_matmul"(%x, %w0) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
    %r = "poplar.popnn_nonlinearity"(%h) {dim = 0 : i64, kind = "gelu_erf", pipeline.checkpoint = array<i64: 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x16xf32>) -> tensor<2x16xf32>
    %z = "poplar.poplin_matmul"(%r, %w2) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x16xf32>, tensor<16x4xf32>) -> tensor<2x4xf32>
    "poplar.program_copy"(%z, %ex0) : (tensor<2x4xf32>, tensor<2x4xf32>) -> ()
    %y = "poplar.poplin_matmul"(%ex0, %w1) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %loss = "poplar.popops_reduce"(%y) {dims = array<i64: 0, 1>, keep_dims = false, op = "add", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64, scale = 1.000000e+00 : f64} : (tensor<2x4xf32>) -> tensor<f32>
    %g = "poplar.broadcast"(%ls) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<f32>) -> tensor<2x4xf32>
    %et = "poplar.dim_shuffle"(%ex0) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x4xf32>) -> tensor<4x2xf32>
    %gw1 = "poplar.poplin_matmul"(%et, %g) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
    %w1t = "poplar.dim_shuffle"(%w1) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %gz = "poplar.poplin_matmul"(%g, %w1t) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    "poplar.program_copy"(%gz, %ex1) : (tensor<2x4xf32>, tensor<2x4xf32>) -> ()
    %rt = "poplar.dim_shuffle"(%r) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x16xf32>) -> tensor<16x2xf32>
    %gw2 = "poplar.poplin_matmul"(%rt, %ex1) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<16x2xf32>, tensor<2x4xf32>) -> tensor<16x4xf32>
    %w2t = "poplar.dim_shuffle"(%w2) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<16x4xf32>) -> tensor<4x16xf32>
    %gr = "poplar.poplin_matmul"(%ex1, %w2t) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x4xf32>, tensor<4x16xf32>) -> tensor<2x16xf32>
    %gh = "poplar.popnn_nonlinearity_grad"(%gr, %h) {dim = 0 : i64, kind = "gelu_erf", pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
    %xt = "poplar.dim_shuffle"(%x) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x8xf32>) -> tensor<8x2xf32>
    %gw0 = "poplar.poplin_matmul"(%xt, %gh) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<8x2xf32>, tensor<2x16xf32>) -> tensor<8x16xf32>
    %a0 = "poplar.popops_map"(%acc0, %gw0) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %a2 = "poplar.popops_map"(%acc2, %gw2) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64} : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %a1 = "poplar.popops_map"(%acc1, %gw1) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 1 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    "poplar.program_copy"(%loss, %out) : (tensor<f32>, tensor<f32>) -> ()
    "poplar.program_copy"(%a0, %acc0) : (tensor<8x16xf32>, tensor<8x16xf32>) -> ()
    "poplar.program_copy"(%a2, %acc2) : (tensor<16x4xf32>, tensor<16x4xf32>) -> ()
    "poplar.program_copy"(%a1, %acc1) : (tensor<4x4xf32>, tensor<4x4xf32>) -> ()
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 3 : i64, 2 : i64, array<i64: 0, 1, 0>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_repeat"() ({
        "poplar.program_call"() {callee = "step"} : () -> ()
      }) {count = 3 : i64} : () -> ()
    }) {count = 1 : i64} : () -> ()
    "poplar.program_stream_copy"(%out) {stream = "host.output.0"} : (tensor<f32>) -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// A random op's result is stashed, not recomputed: a second draw would give another
// dropout mask. Stash: the 2x4 i1 mask, 8 bytes x depth 2 = 16.
// CHECK-LABEL: "poplar.graph"
// CHECK: %[[D:.*]]:2 = "poplar.poprand_dropout"
// CHECK-NEXT: "pipeline.stash"(%[[D]]#1) {depth = 2 : i64
// CHECK: %[[M:.*]] = "pipeline.restore"()
// CHECK-NEXT: "poplar.popops_cast"(%[[M]])
// CHECK-NOT: poprand_dropout
// MEM-LABEL: "poplar.graph"
// MEM: #poplar.ipu_memory<0 : i64, {{[0-9]+}} : i64, {{[0-9]+}} : i64, 16 : i64,
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64>} : () -> tensor<2x4xf32>
  %g = "poplar.variable"() {ipu = 0 : i64, kind = "exchange", name = "exchange.0", tiles = array<i64>} : () -> tensor<2x4xf32>
  "poplar.function"() ({
    %h = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %d:2 = "poplar.poprand_dropout"(%h) {p = 2.500000e-01 : f64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi1>)
    %c = "poplar.popops_cast"(%d#1) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x4xi1>) -> tensor<2x4xf32>
    %k = "poplar.popops_mul"(%g, %c) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 3 : i64, 2 : i64, array<i64: 0, 1, 0>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {count = 3 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// An op reading state the step updates (a buffer, here %st) is stashed, not recomputed:
// by the time stage 2 runs, later micro-batches have updated %st. The relu of x is
// recomputed from the restored x.
// CHECK-LABEL: "poplar.graph"
// CHECK: %[[N:.*]] = "poplar.popops_map"(%[[ST:.*]], %{{.*}}) {expr = "add(_1, _2)"
// CHECK-NEXT: "pipeline.stash"(%[[N]])
// CHECK: %[[RN:.*]] = "pipeline.restore"()
// CHECK-NEXT: %[[RX:.*]] = "pipeline.restore"()
// CHECK-NEXT: %[[H:.*]] = "poplar.popnn_nonlinearity"(%[[RX]]) {{.*}}pipeline.stage = 2 : i64
// CHECK-NEXT: "poplar.popops_mul"(%[[RN]], %[[H]]) {{.*}}pipeline.stage = 2 : i64
// CHECK-NOT: expr = "add(_1, _2)"
// CHECK: }) {name = "step"
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<2xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<2xf32>} : () -> ()
  %st = "poplar.variable"() {ipu = 0 : i64, kind = "buffer", name = "state", tiles = array<i64>} : () -> tensor<2xf32>
  %g = "poplar.variable"() {ipu = 0 : i64, kind = "exchange", name = "exchange.0", tiles = array<i64>} : () -> tensor<2xf32>
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<2xf32>) -> ()
    %n = "poplar.popops_map"(%st, %x) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "poplar.program_copy"(%n, %st) : (tensor<2xf32>, tensor<2xf32>) -> ()
    %h = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2xf32>) -> tensor<2xf32>
    %k = "poplar.popops_mul"(%n, %h) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %j = "poplar.popops_mul"(%k, %g) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 3 : i64, 2 : i64, array<i64: 0, 1, 0>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {count = 3 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

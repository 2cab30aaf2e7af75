// RUN: ipu-opt %s -p poplar-plan-memory --split-input-file | FileCheck %s
// RUN: not ipu-opt %s -p 'poplar-plan-memory{bytes-per-tile=1024 tiles-per-ipu=3}' --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=OOM

// A 2-IPU pipelined training step as pipeline-schedule + poplar-map-tiles leave it
// (the @update function is left out: it is not part of the step's schedule). Stage 0
// on IPU 0: z = gelu(x @ w0) @ w2; stage 1 on IPU 1: loss = sum(z @ w1) and the
// gradients of w1 and z; stage 2 on IPU 0: the gradients of w2 and w0. Values cross
// IPUs through the exchange variables; stage 2 gets x, h and r from stage 0 through
// pipeline.stash / pipeline.restore.
//
// Variables. IPU 0: w0 8x16 f32 = 512, w2 16x4 = 256, input.x 2x8 = 64, w0/accum 512,
//   w2/accum 256, exchange.1 2x4 = 32, anchor.0 f32 = 4 -> 1636.
//   IPU 1: w1 4x4 = 64, loss_scaling 4, w1/accum 64, exchange.0 2x4 = 32 -> 164.
// Temporaries (peak of live compute results, per IPU, in program order; a restore's
// result is a temporary like any other):
//   IPU 0: stage 0: h 128, r 128 (h dies), z 32: at most 256.
//          stage 2: r2 128, gw2 256 (r2 dies), gr 128, h2 128, gh 128 -> 640 (gr, h2
//          die); x2 64, gw0 512 (gh, x2 die); a0 512 -> gw2 + gw0 + a0 = 1280 <- the
//          peak; a2 256 after gw0 died: 1024.
//   IPU 1: y 32, loss 4 (y dies), gw1 64, gz 32 -> 100, a1 64 -> 164 <- the peak (gz
//          lives on to its copy in stage 2).
// Stash: each pipeline.stash keeps `depth` copies of its value (one per micro-batch
// entering the pipeline meanwhile): x 64 x 2 + h 128 x 2 + r 128 x 2 = 640 on IPU 0.
// Totals: IPU 0 1636 + 1280 + 640 = 3556; IPU 1 164 + 164 + 0 = 328.
// CHECK-LABEL: "poplar.graph"
// CHECK: poplar.memory = {ipu0 = {stash = 640 : i64, temporaries = 1280 : i64, total = 3556 : i64, variables = 1636 : i64}, ipu1 = {stash = 0 : i64, temporaries = 164 : i64, total = 328 : i64, variables = 164 : i64}}

// IPUs of 3 tiles x 1 KiB = 3072 bytes: IPU 0 does not fit because of its stash (the
// same program run sharded, below, fits); the error says how much is stashed.
// OOM: poplar-plan-memory-pipelined.mlir:[[# @LINE + 2]]:1: error: the program does not fit on IPU 0: it needs 3556 bytes (1636 in variables, 1280 at the peak of live temporaries, 640 stashed for micro-batches in flight) but an IPU has 3072 bytes. Largest tensors:
// OOM-NOT: does not fit on IPU 1
"poplar.graph"() ({
  %ex1 = "poplar.variable"() {ipu = 0 : i64, kind = "activation", name = "exchange.1", tiles = array<i64: 0, 1>} : () -> tensor<2x4xf32>
  %ex0 = "poplar.variable"() {ipu = 1 : i64, kind = "activation", name = "exchange.0", tiles = array<i64: 0, 1>} : () -> tensor<2x4xf32>
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
  %out = "poplar.variable"() {ipu = 0 : i64, kind = "output", name = "anchor.0", tiles = array<i64: 0, 1>} : () -> tensor<f32>
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {pipeline.stage = 0 : i64, stream = "host.input.x"} : (tensor<2x8xf32>) -> ()
    "pipeline.stash"(%x) {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, stash_id = "stash.2"} : (tensor<2x8xf32>) -> ()
    "poplar.program_sync"() {kind = "internal", pipeline.stage = 0 : i64} : () -> ()
    %h = "poplar.poplin_matmul"(%x, %w0) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
    "pipeline.stash"(%h) {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, stash_id = "stash.1"} : (tensor<2x16xf32>) -> ()
    %r = "poplar.popnn_nonlinearity"(%h) {dim = 0 : i64, kind = "gelu_erf", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x16xf32>) -> tensor<2x16xf32>
    "pipeline.stash"(%r) {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, stash_id = "stash.0"} : (tensor<2x16xf32>) -> ()
    %z = "poplar.poplin_matmul"(%r, %w2) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x16xf32>, tensor<16x4xf32>) -> tensor<2x4xf32>
    "poplar.program_copy"(%z, %ex0) {pipeline.stage = 1 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> ()
    %y = "poplar.poplin_matmul"(%ex0, %w1) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %loss = "poplar.popops_reduce"(%y) {dims = array<i64: 0, 1>, keep_dims = false, op = "add", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64, scale = 1.000000e+00 : f64} : (tensor<2x4xf32>) -> tensor<f32>
    %g = "poplar.broadcast"(%ls) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<f32>) -> tensor<2x4xf32>
    %et = "poplar.dim_shuffle"(%ex0) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x4xf32>) -> tensor<4x2xf32>
    %gw1 = "poplar.poplin_matmul"(%et, %g) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
    %w1t = "poplar.dim_shuffle"(%w1) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %gz = "poplar.poplin_matmul"(%g, %w1t) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %a1 = "poplar.popops_map"(%acc1, %gw1) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    "poplar.program_copy"(%loss, %out) {pipeline.stage = 1 : i64} : (tensor<f32>, tensor<f32>) -> ()
    "poplar.program_copy"(%a1, %acc1) {pipeline.stage = 1 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> ()
    "poplar.program_copy"(%gz, %ex1) {pipeline.stage = 2 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> ()
    %r2 = "pipeline.restore"() {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, stash_id = "stash.0"} : () -> tensor<2x16xf32>
    %rt = "poplar.dim_shuffle"(%r2) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x16xf32>) -> tensor<16x2xf32>
    %gw2 = "poplar.poplin_matmul"(%rt, %ex1) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<16x2xf32>, tensor<2x4xf32>) -> tensor<16x4xf32>
    %w2t = "poplar.dim_shuffle"(%w2) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<16x4xf32>) -> tensor<4x16xf32>
    %gr = "poplar.poplin_matmul"(%ex1, %w2t) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x4xf32>, tensor<4x16xf32>) -> tensor<2x16xf32>
    %h2 = "pipeline.restore"() {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, stash_id = "stash.1"} : () -> tensor<2x16xf32>
    %gh = "poplar.popnn_nonlinearity_grad"(%gr, %h2) {dim = 0 : i64, kind = "gelu_erf", pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
    %x2 = "pipeline.restore"() {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, stash_id = "stash.2"} : () -> tensor<2x8xf32>
    %xt = "poplar.dim_shuffle"(%x2) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x8xf32>) -> tensor<8x2xf32>
    %gw0 = "poplar.poplin_matmul"(%xt, %gh) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<8x2xf32>, tensor<2x16xf32>) -> tensor<8x16xf32>
    %a0 = "poplar.popops_map"(%acc0, %gw0) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %a2 = "poplar.popops_map"(%acc2, %gw2) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    "poplar.program_copy"(%a0, %acc0) {pipeline.stage = 2 : i64} : (tensor<8x16xf32>, tensor<8x16xf32>) -> ()
    "poplar.program_copy"(%a2, %acc2) {pipeline.stage = 2 : i64} : (tensor<16x4xf32>, tensor<16x4xf32>) -> ()
  }) {name = "step", pipeline.plan = {forward_stages = 2 : i64, kind = "pipelined", stage_ipus = array<i64: 0, 1, 0>}} : () -> ()
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

// The same step run sharded (one micro-batch at a time, the IPUs taking turns): no
// micro-batch is in flight, so nothing is stashed and the report has no stash entry.
// IPU 0: 1636 + 1280 = 2916, IPU 1: 164 + 132 = 296; both fit in 3072 bytes.
// CHECK-LABEL: "poplar.graph"
// CHECK-NOT: stash
// CHECK: poplar.memory = {ipu0 = {temporaries = 1280 : i64, total = 2916 : i64, variables = 1636 : i64}, ipu1 = {temporaries = 132 : i64, total = 296 : i64, variables = 164 : i64}}
// CHECK-NOT: stash
// OOM-NOT: error
"poplar.graph"() ({
  %ex1 = "poplar.variable"() {ipu = 0 : i64, kind = "activation", name = "exchange.1", tiles = array<i64: 0, 1>} : () -> tensor<2x4xf32>
  %ex0 = "poplar.variable"() {ipu = 1 : i64, kind = "activation", name = "exchange.0", tiles = array<i64: 0, 1>} : () -> tensor<2x4xf32>
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
  %out = "poplar.variable"() {ipu = 0 : i64, kind = "output", name = "anchor.0", tiles = array<i64: 0, 1>} : () -> tensor<f32>
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
  }) {name = "step", pipeline.plan = {forward_stages = 2 : i64, kind = "sharded", stage_ipus = array<i64: 0, 1, 0>}} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_repeat"() ({
        "poplar.program_call"() {callee = "step"} : () -> ()
      }) {count = 3 : i64} : () -> ()
    }) {count = 1 : i64} : () -> ()
    "poplar.program_stream_copy"(%out) {stream = "host.output.0"} : (tensor<f32>) -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// RUN: ipu-opt %s -p poplar-plan-memory --split-input-file | FileCheck %s

// A 2-IPU pipelined training step as pipeline-schedule leaves it (for the step of
// poplar-build-program; the @update function is left out: it is not part of the
// step's schedule). Stage 0 on IPU 0: z = gelu(x @ w0) @ w2, sent to IPU 1; stage 1 on
// IPU 1: loss = sum(z @ w1) and the gradients of w1 and z (sent back); stage 2 on IPU
// 0: the gradients of w2 and w0, with x, h and r restored from stage 0's stash.
//
// Variables. IPU 0: w0 8x16 f32 = 512, w2 16x4 = 256, input.x 2x8 = 64, w0/accum 512,
//   w2/accum 256, anchor.0 f32 = 4 -> 1604.
//   IPU 1: w1 4x4 = 64, loss_scaling 4, w1/accum 64 -> 132.
// Temporaries: the peak of live compute results (received and restored values
// included) within a stage, the largest stage of each IPU:
//   IPU 0: stage 0: h 128, r 128 (h dies), z 32: 256. Stage 2: g 32, r2 128, gw2 256
//          (r2 dies), gr 128 (g dies), h2 128, gh 128 (gr, h2 die), x2 64, gw0 512
//          (gh, x2 die), a0 512 -> gw2 + gw0 + a0 = 1280 <- the peak.
//   IPU 1: e 32, y 32, loss 4 (y dies), gw1 64 (e dies), gz 32 (dies at its send),
//          a1 64 -> loss + gw1 + a1 = 132 <- the peak.
// Stash: each pipeline.stash keeps `depth` copies of its value (one per micro-batch
// entering the pipeline meanwhile): x 64 x 2 + h 128 x 2 + r 128 x 2 = 640 on IPU 0.
// Totals: IPU 0 1604 + 1280 + 640 = 3524; IPU 1 132 + 132 + 0 = 264.
// CHECK-LABEL: "poplar.graph"
// CHECK: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 1604 : i64, 1280 : i64, 640 : i64, 3524 : i64>, #poplar.ipu_memory<1 : i64, 132 : i64, 132 : i64, 0 : i64, 264 : i64>]>

"poplar.graph"() ({
  %0 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w0", tiles = array<i64: 1, 1>} : () -> tensor<8x16xf32>
  %1 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w2", tiles = array<i64: 2, 1>} : () -> tensor<16x4xf32>
  %2 = "poplar.variable"() {ipu = 1 : i64, kind = "weight", name = "w1", tiles = array<i64: 1, 1>} : () -> tensor<4x4xf32>
  %3 = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 0, 1>} : () -> tensor<2x8xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<2x8xf32>} : () -> ()
  %4 = "poplar.variable"() {ipu = 1 : i64, kind = "scalar", name = "loss_scaling", tiles = array<i64: 2, 1>} : () -> tensor<f32>
  %5 = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "w0/accum", tiles = array<i64: 1, 1>} : () -> tensor<8x16xf32>
  %6 = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "w2/accum", tiles = array<i64: 2, 1>} : () -> tensor<16x4xf32>
  %7 = "poplar.variable"() {ipu = 1 : i64, kind = "accumulator", name = "w1/accum", tiles = array<i64: 0, 1>} : () -> tensor<4x4xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<f32>} : () -> ()
  %8 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64: 0, 1>} : () -> tensor<f32>
  "poplar.function"() ({
    "pipeline.schedule"() ({
      "pipeline.stage"() ({
        "poplar.program_stream_copy"(%3) {pipeline.stage = 0 : i64, stream = "host.input.x"} : (tensor<2x8xf32>) -> ()
        "pipeline.stash"(%3) {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, stash_id = "stash.2"} : (tensor<2x8xf32>) -> ()
        "poplar.program_sync"() {kind = "internal", pipeline.stage = 0 : i64} : () -> ()
        %31 = "poplar.poplin_matmul"(%3, %0) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
        "pipeline.stash"(%31) {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, stash_id = "stash.1"} : (tensor<2x16xf32>) -> ()
        %32 = "poplar.popnn_nonlinearity"(%31) {dim = 0 : i64, kind = "gelu_erf", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x16xf32>) -> tensor<2x16xf32>
        "pipeline.stash"(%32) {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, stash_id = "stash.0"} : (tensor<2x16xf32>) -> ()
        %33 = "poplar.poplin_matmul"(%32, %1) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x16xf32>, tensor<16x4xf32>) -> tensor<2x4xf32>
        "pipeline.send"(%33) {channel = "exchange.0", dst_ipu = 1 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, src_ipu = 0 : i64} : (tensor<2x4xf32>) -> ()
      }) {ipu_id = 0 : i64, stage_id = 0 : i64} : () -> ()
      "pipeline.stage"() ({
        %22 = "pipeline.recv"() {channel = "exchange.0", dst_ipu = 1 : i64, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64, src_ipu = 0 : i64} : () -> tensor<2x4xf32>
        %23 = "poplar.poplin_matmul"(%22, %2) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
        %24 = "poplar.popops_reduce"(%23) {dims = array<i64: 0, 1>, keep_dims = false, op = "add", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64, scale = 1.000000e+00 : f64} : (tensor<2x4xf32>) -> tensor<f32>
        %25 = "poplar.broadcast"(%4) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<f32>) -> tensor<2x4xf32>
        %26 = "poplar.dim_shuffle"(%22) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x4xf32>) -> tensor<4x2xf32>
        %27 = "poplar.poplin_matmul"(%26, %25) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
        %28 = "poplar.dim_shuffle"(%2) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
        %29 = "poplar.poplin_matmul"(%25, %28) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
        "pipeline.send"(%29) {channel = "exchange.1", dst_ipu = 0 : i64, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64, src_ipu = 1 : i64} : (tensor<2x4xf32>) -> ()
        %30 = "poplar.popops_map"(%7, %27) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
        "poplar.program_copy"(%24, %8) {pipeline.stage = 1 : i64} : (tensor<f32>, tensor<f32>) -> ()
        "poplar.program_copy"(%30, %7) {pipeline.stage = 1 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> ()
      }) {ipu_id = 1 : i64, stage_id = 1 : i64} : () -> ()
      "pipeline.stage"() ({
        %9 = "pipeline.recv"() {channel = "exchange.1", dst_ipu = 0 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, src_ipu = 1 : i64} : () -> tensor<2x4xf32>
        %10 = "pipeline.restore"() {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, stash_id = "stash.0"} : () -> tensor<2x16xf32>
        %11 = "poplar.dim_shuffle"(%10) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x16xf32>) -> tensor<16x2xf32>
        %12 = "poplar.poplin_matmul"(%11, %9) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<16x2xf32>, tensor<2x4xf32>) -> tensor<16x4xf32>
        %13 = "poplar.dim_shuffle"(%1) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<16x4xf32>) -> tensor<4x16xf32>
        %14 = "poplar.poplin_matmul"(%9, %13) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x4xf32>, tensor<4x16xf32>) -> tensor<2x16xf32>
        %15 = "pipeline.restore"() {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, stash_id = "stash.1"} : () -> tensor<2x16xf32>
        %16 = "poplar.popnn_nonlinearity_grad"(%14, %15) {dim = 0 : i64, kind = "gelu_erf", pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
        %17 = "pipeline.restore"() {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, stash_id = "stash.2"} : () -> tensor<2x8xf32>
        %18 = "poplar.dim_shuffle"(%17) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x8xf32>) -> tensor<8x2xf32>
        %19 = "poplar.poplin_matmul"(%18, %16) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<8x2xf32>, tensor<2x16xf32>) -> tensor<8x16xf32>
        %20 = "poplar.popops_map"(%5, %19) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
        %21 = "poplar.popops_map"(%6, %12) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
        "poplar.program_copy"(%20, %5) {pipeline.stage = 2 : i64} : (tensor<8x16xf32>, tensor<8x16xf32>) -> ()
        "poplar.program_copy"(%21, %6) {pipeline.stage = 2 : i64} : (tensor<16x4xf32>, tensor<16x4xf32>) -> ()
      }) {ipu_id = 0 : i64, stage_id = 2 : i64} : () -> ()
    }) {device_iterations = 1 : i64, gradient_accumulation = 3 : i64, kind = "pipelined", num_ipus = 2 : i64, num_stages = 3 : i64, training = true} : () -> ()
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 3 : i64, 2 : i64, array<i64: 0, 1, 0>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_repeat"() ({
        "poplar.program_call"() {callee = "step"} : () -> ()
      }) {count = 3 : i64} : () -> ()
    }) {count = 1 : i64} : () -> ()
    "poplar.program_stream_copy"(%8) {stream = "host.output.0"} : (tensor<f32>) -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// The same step run sharded (one micro-batch at a time, the IPUs taking turns): no
// micro-batch is in flight, so nothing is stashed (stash 0 on both IPUs).
// IPU 0: 1636 + 1280 = 2916, IPU 1: 164 + 132 = 296; both fit in 3072 bytes.
// CHECK-LABEL: "poplar.graph"
// CHECK-NOT: pipeline.stash
// CHECK: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 1636 : i64, 1280 : i64, 0 : i64, 2916 : i64>, #poplar.ipu_memory<1 : i64, 164 : i64, 132 : i64, 0 : i64, 296 : i64>]>
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
  }) {name = "step", pipeline.plan = #pipeline.plan<"sharded", 2 : i64, 3 : i64, 2 : i64, array<i64: 0, 1, 0>>} : () -> ()
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

// A skip connection: h (stage 0, IPU 0) is sent to stage 2 (IPU 2). The value waits
// one pipeline step between its send and its recv, for which IPU 2 keeps a copy:
// 64 f32 = 256 bytes of stash on IPU 2, none on IPU 0.
// CHECK-LABEL: "poplar.graph"
// CHECK: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 256 : i64, 256 : i64, 0 : i64, 512 : i64>, #poplar.ipu_memory<1 : i64, 0 : i64, 512 : i64, 0 : i64, 512 : i64>, #poplar.ipu_memory<2 : i64, 256 : i64, 768 : i64, 256 : i64, 1280 : i64>]>
"poplar.graph"() ({
  %0 = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<64xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<64xf32>} : () -> ()
  %1 = "poplar.variable"() {ipu = 2 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<64xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<64xf32>} : () -> ()
  "poplar.function"() ({
    "pipeline.schedule"() ({
      "pipeline.stage"() ({
        "poplar.program_stream_copy"(%0) {pipeline.stage = 0 : i64, stream = "host.input.x"} : (tensor<64xf32>) -> ()
        %7 = "poplar.popnn_nonlinearity"(%0) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<64xf32>) -> tensor<64xf32>
        "pipeline.send"(%7) {channel = "exchange.2", dst_ipu = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, src_ipu = 0 : i64} : (tensor<64xf32>) -> ()
        "pipeline.send"(%7) {channel = "exchange.0", dst_ipu = 1 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, src_ipu = 0 : i64} : (tensor<64xf32>) -> ()
      }) {ipu_id = 0 : i64, stage_id = 0 : i64} : () -> ()
      "pipeline.stage"() ({
        %5 = "pipeline.recv"() {channel = "exchange.0", dst_ipu = 1 : i64, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64, src_ipu = 0 : i64} : () -> tensor<64xf32>
        %6 = "poplar.popnn_nonlinearity"(%5) {dim = 0 : i64, kind = "tanh", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<64xf32>) -> tensor<64xf32>
        "pipeline.send"(%6) {channel = "exchange.1", dst_ipu = 2 : i64, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64, src_ipu = 1 : i64} : (tensor<64xf32>) -> ()
      }) {ipu_id = 1 : i64, stage_id = 1 : i64} : () -> ()
      "pipeline.stage"() ({
        %2 = "pipeline.recv"() {channel = "exchange.1", dst_ipu = 2 : i64, pipeline.ipu = 2 : i64, pipeline.stage = 2 : i64, src_ipu = 1 : i64} : () -> tensor<64xf32>
        %3 = "pipeline.recv"() {channel = "exchange.2", dst_ipu = 2 : i64, pipeline.ipu = 2 : i64, pipeline.stage = 2 : i64, src_ipu = 0 : i64} : () -> tensor<64xf32>
        %4 = "poplar.popops_add"(%2, %3) {pipeline.ipu = 2 : i64, pipeline.stage = 2 : i64} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
        "poplar.program_copy"(%4, %1) {pipeline.stage = 2 : i64} : (tensor<64xf32>, tensor<64xf32>) -> ()
      }) {ipu_id = 2 : i64, stage_id = 2 : i64} : () -> ()
    }) {device_iterations = 4 : i64, gradient_accumulation = 1 : i64, kind = "pipelined", num_ipus = 4 : i64, num_stages = 3 : i64, training = false} : () -> ()
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 3 : i64, 3 : i64, 3 : i64, array<i64: 0, 1, 2>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
      "poplar.program_stream_copy"(%1) {stream = "host.output.0"} : (tensor<64xf32>) -> ()
    }) {count = 4 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 4 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

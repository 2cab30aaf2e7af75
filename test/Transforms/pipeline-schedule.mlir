// RUN: ipu-opt %s -p pipeline-schedule --split-input-file | FileCheck %s

// Pipelined training over 2 IPUs (poplar-build-program's output for
// poplar-build-program-multi-ipu.mlir): stage 0 forward on IPU 0, stage 1 loss and
// backward on IPU 1, stage 2 backward of stage 0 on IPU 0. The compiler-added ops get
// the stage their data gives them: the host read of x and the sync stage 0, the
// accumulation of b's gradient stage 1 and of a's stage 2, the counter stage 0, each
// write-back the stage of the value it writes. The step becomes one pipeline.schedule
// of three pipeline.stage regions: the inter-IPU copies become pipeline.send in the
// stage that computes the value and pipeline.recv in the stage that reads it (the
// exchange buffers of the step go; @update's stay), and x, read again by a's gradient in stage 2, is stashed on
// IPU 0 for the two micro-batches in between. The schedule takes G = 3 from the loop
// around the step. @update has no plan and is left alone.
// CHECK-LABEL: "poplar.graph"
// CHECK-NOT: name = "exchange.{{0|1}}"
// CHECK: "pipeline.schedule"() ({
// CHECK-NEXT: "pipeline.stage"() ({
// CHECK-NEXT: "poplar.program_stream_copy"(%[[X:.*]]) {pipeline.stage = 0 : i64, stream = "host.input.x"}
// CHECK-NEXT: "pipeline.stash"(%[[X]]) {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, stash_id = "[[ID:.*]]"}
// CHECK-NEXT: "poplar.program_sync"() {kind = "internal", pipeline.stage = 0 : i64}
// CHECK-NEXT: "poplar.dim_shuffle"
// CHECK-NEXT: %[[H:.*]] = "poplar.poplin_matmul"(%[[X]],
// CHECK-NEXT: "pipeline.send"(%[[H]]) {channel = "exchange.0", dst_ipu = 1 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, src_ipu = 0 : i64}
// CHECK-NEXT: "poplar.popops_map"{{.*}}expr = "add(_1, 1.0)"
// CHECK-NEXT: "poplar.program_copy"
// CHECK-NEXT: }) {ipu_id = 0 : i64, stage_id = 0 : i64}
// CHECK-NEXT: "pipeline.stage"() ({
// CHECK-NEXT: "poplar.dim_shuffle"
// CHECK-NEXT: %[[RH:.*]] = "pipeline.recv"() {channel = "exchange.0", dst_ipu = 1 : i64, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64, src_ipu = 0 : i64} : () -> tensor<1x2xf32>
// CHECK-NEXT: "poplar.poplin_matmul"(%[[RH]],
// CHECK-COUNT-8: pipeline.stage = 1 : i64
// CHECK-NEXT: "pipeline.send"(%{{.*}}) {channel = "exchange.1", dst_ipu = 0 : i64, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64, src_ipu = 1 : i64}
// CHECK-NEXT: "poplar.dim_shuffle"
// CHECK-NEXT: "poplar.popops_map"{{.*}}expr = "add(_1, _2)"{{.*}}pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64
// CHECK-NEXT: "poplar.program_copy"
// CHECK-NEXT: "poplar.program_copy"
// CHECK-NEXT: }) {ipu_id = 1 : i64, stage_id = 1 : i64}
// CHECK-NEXT: "pipeline.stage"() ({
// CHECK-NEXT: %[[G:.*]] = "pipeline.recv"() {channel = "exchange.1", dst_ipu = 0 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, src_ipu = 1 : i64}
// CHECK-NEXT: %[[GT:.*]] = "poplar.dim_shuffle"(%[[G]])
// CHECK-NEXT: %[[R:.*]] = "pipeline.restore"() {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, stash_id = "[[ID]]"} : () -> tensor<1x2xf32>
// CHECK-NEXT: "poplar.poplin_matmul"(%[[GT]], %[[R]])
// CHECK-NEXT: "poplar.dim_shuffle"
// CHECK-NEXT: "poplar.dim_shuffle"
// CHECK-NEXT: "poplar.popops_map"{{.*}}expr = "add(_1, _2)"{{.*}}pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64
// CHECK-NEXT: "poplar.program_copy"
// CHECK-NEXT: }) {ipu_id = 0 : i64, stage_id = 2 : i64}
// CHECK-NEXT: }) {device_iterations = 1 : i64, gradient_accumulation = 3 : i64, kind = "pipelined", num_ipus = 2 : i64, num_stages = 3 : i64, training = true}
// CHECK-NEXT: }) {name = "step", pipeline.plan =
// CHECK-NOT: pipeline.stage
// CHECK: name = "update"
"poplar.graph"() ({
  %0 = "poplar.variable"() {ipu = 1 : i64, kind = "exchange", name = "exchange.4", tiles = array<i64>} : () -> tensor<f32>
  %1 = "poplar.variable"() {ipu = 1 : i64, kind = "exchange", name = "exchange.3", tiles = array<i64>} : () -> tensor<f32>
  %2 = "poplar.variable"() {ipu = 0 : i64, kind = "exchange", name = "exchange.2", tiles = array<i64>} : () -> tensor<f32>
  %3 = "poplar.variable"() {ipu = 0 : i64, kind = "exchange", name = "exchange.1", tiles = array<i64>} : () -> tensor<1x2xf32>
  %4 = "poplar.variable"() {ipu = 1 : i64, kind = "exchange", name = "exchange.0", tiles = array<i64>} : () -> tensor<1x2xf32>
  %5 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "a.weight", tiles = array<i64>} : () -> tensor<2x2xf32>
  %6 = "poplar.variable"() {ipu = 1 : i64, kind = "weight", name = "b.weight", tiles = array<i64>} : () -> tensor<2x2xf32>
  %7 = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<1x2xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<1x2xf32>} : () -> ()
  %8 = "poplar.variable"() {ipu = 1 : i64, kind = "scalar", name = "loss_scaling", tiles = array<i64>} : () -> tensor<f32>
  %9 = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "accumulation_count", tiles = array<i64>} : () -> tensor<f32>
  %10 = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "a.weight/accum", tiles = array<i64>} : () -> tensor<2x2xf32>
  %11 = "poplar.variable"() {ipu = 1 : i64, kind = "accumulator", name = "b.weight/accum", tiles = array<i64>} : () -> tensor<2x2xf32>
  %12 = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.lr", tiles = array<i64>} : () -> tensor<f32>
  %13 = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.momentum", tiles = array<i64>} : () -> tensor<f32>
  %14 = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.dampening", tiles = array<i64>} : () -> tensor<f32>
  %15 = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.weight_decay", tiles = array<i64>} : () -> tensor<f32>
  %16 = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.velocity_scaling", tiles = array<i64>} : () -> tensor<f32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<f32>} : () -> ()
  %17 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<f32>
  "poplar.function"() ({
    "poplar.program_stream_copy"(%7) {stream = "host.input.x"} : (tensor<1x2xf32>) -> ()
    "poplar.program_sync"() {kind = "internal"} : () -> ()
    %28 = "poplar.dim_shuffle"(%5) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %29 = "poplar.poplin_matmul"(%7, %28) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    %30 = "poplar.dim_shuffle"(%6) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    "poplar.program_copy"(%29, %4) : (tensor<1x2xf32>, tensor<1x2xf32>) -> ()
    %31 = "poplar.poplin_matmul"(%4, %30) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    %32 = "poplar.popops_reduce"(%31) {dims = array<i64: 0, 1>, keep_dims = false, op = "add", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64, scale = 1.000000e+00 : f64} : (tensor<1x2xf32>) -> tensor<f32>
    %33 = "poplar.broadcast"(%8) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<f32>) -> tensor<1x2xf32>
    %34 = "poplar.dim_shuffle"(%33) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<1x2xf32>) -> tensor<2x1xf32>
    %35 = "poplar.poplin_matmul"(%34, %4) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x1xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
    %36 = "poplar.dim_shuffle"(%35) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %37 = "poplar.dim_shuffle"(%30) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %38 = "poplar.poplin_matmul"(%33, %37) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    %39 = "poplar.dim_shuffle"(%36) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    "poplar.program_copy"(%38, %3) : (tensor<1x2xf32>, tensor<1x2xf32>) -> ()
    %40 = "poplar.dim_shuffle"(%3) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<1x2xf32>) -> tensor<2x1xf32>
    %41 = "poplar.poplin_matmul"(%40, %7) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x1xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
    %42 = "poplar.dim_shuffle"(%41) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %43 = "poplar.dim_shuffle"(%42) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %44 = "poplar.popops_map"(%9) {expr = "add(_1, 1.0)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64} : (tensor<f32>) -> tensor<f32>
    %45 = "poplar.popops_map"(%10, %43) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %46 = "poplar.popops_map"(%11, %39) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 1 : i64} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    "poplar.program_copy"(%32, %17) : (tensor<f32>, tensor<f32>) -> ()
    "poplar.program_copy"(%44, %9) : (tensor<f32>, tensor<f32>) -> ()
    "poplar.program_copy"(%45, %10) : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
    "poplar.program_copy"(%46, %11) : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 3 : i64, 2 : i64, array<i64: 0, 1, 0>>} : () -> ()
  "poplar.function"() ({
    "poplar.program_sync"() {kind = "internal"} : () -> ()
    %18 = "poplar.popops_map"(%10) {expr = "div(_1, 3.0)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %19 = "poplar.popops_map"(%11) {expr = "div(_1, 3.0)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    "poplar.program_copy"(%8, %2) : (tensor<f32>, tensor<f32>) -> ()
    %20 = "poplar.popops_map"(%18, %2) {expr = "div(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64} : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
    %21 = "poplar.popops_map"(%20, %5, %15) {expr = "add(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.ipu = 0 : i64} : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
    %22 = "poplar.popops_map"(%5, %21, %12) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.ipu = 0 : i64} : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
    %23 = "poplar.popops_map"(%19, %8) {expr = "div(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 1 : i64} : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
    "poplar.program_copy"(%15, %1) : (tensor<f32>, tensor<f32>) -> ()
    %24 = "poplar.popops_map"(%23, %6, %1) {expr = "add(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.ipu = 1 : i64} : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
    "poplar.program_copy"(%12, %0) : (tensor<f32>, tensor<f32>) -> ()
    %25 = "poplar.popops_map"(%6, %24, %0) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.ipu = 1 : i64} : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
    %26 = "poplar.constant"() {ipu = 1 : i64, pipeline.ipu = 1 : i64, value = dense<0.000000e+00> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
    %27 = "poplar.constant"() {ipu = 0 : i64, pipeline.ipu = 0 : i64, value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
    "poplar.program_copy"(%22, %5) : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
    "poplar.program_copy"(%25, %6) : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
    "poplar.program_copy"(%26, %10) : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
    "poplar.program_copy"(%26, %11) : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
    "poplar.program_copy"(%27, %9) : (tensor<f32>, tensor<f32>) -> ()
  }) {name = "update"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_repeat"() ({
        "poplar.program_call"() {callee = "step"} : () -> ()
        "poplar.program_stream_copy"(%17) {stream = "host.output.0"} : (tensor<f32>) -> ()
      }) {count = 3 : i64} : () -> ()
      "poplar.program_call"() {callee = "update"} : () -> ()
    }) {count = 1 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// Pipelined inference over 2 IPUs: the host read goes with its first reader (stage 0),
// the inter-IPU copy becomes a send in stage 0 and a recv in stage 1, the anchor write
// goes with its value; D = 4 comes from the loop around the step.
// CHECK-LABEL: "poplar.graph"
// CHECK-NOT: exchange.0", tiles
// CHECK: "pipeline.schedule"() ({
// CHECK-NEXT: "pipeline.stage"() ({
// CHECK-NEXT: "poplar.program_stream_copy"{{.*}}pipeline.stage = 0 : i64
// CHECK-NEXT: %[[H:.*]] = "poplar.popnn_nonlinearity"{{.*}}pipeline.stage = 0 : i64
// CHECK-NEXT: "pipeline.send"(%[[H]]) {channel = "exchange.0", dst_ipu = 1 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, src_ipu = 0 : i64}
// CHECK-NEXT: }) {ipu_id = 0 : i64, stage_id = 0 : i64}
// CHECK-NEXT: "pipeline.stage"() ({
// CHECK-NEXT: %[[E:.*]] = "pipeline.recv"() {channel = "exchange.0", dst_ipu = 1 : i64, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64, src_ipu = 0 : i64}
// CHECK-NEXT: "poplar.popnn_nonlinearity"(%[[E]]) {{.*}}pipeline.stage = 1 : i64
// CHECK-NEXT: "poplar.program_copy"{{.*}} {pipeline.stage = 1 : i64}
// CHECK-NEXT: }) {ipu_id = 1 : i64, stage_id = 1 : i64}
// CHECK-NEXT: }) {device_iterations = 4 : i64, gradient_accumulation = 1 : i64, kind = "pipelined", num_ipus = 2 : i64, num_stages = 2 : i64, training = false}
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<4xf32>} : () -> ()
  %e = "poplar.variable"() {ipu = 1 : i64, kind = "exchange", name = "exchange.0", tiles = array<i64>} : () -> tensor<4xf32>
  %out = "poplar.variable"() {ipu = 1 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<4xf32>) -> ()
    %h = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%h, %e) : (tensor<4xf32>, tensor<4xf32>) -> ()
    %y = "poplar.popnn_nonlinearity"(%e) {dim = 0 : i64, kind = "tanh", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%y, %out) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 2 : i64, 2 : i64, array<i64: 0, 1>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
      "poplar.program_stream_copy"(%out) {stream = "host.output.0"} : (tensor<4xf32>) -> ()
    }) {count = 4 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// Sharded: the same labelling, no regions (stages run in order, one IPU at a time).
// CHECK-LABEL: "poplar.graph"
// CHECK-NOT: pipeline.schedule
// CHECK: "poplar.program_stream_copy"{{.*}}pipeline.stage = 0 : i64
// CHECK: "poplar.program_copy"{{.*}} {pipeline.stage = 1 : i64}
// CHECK: pipeline.plan = #pipeline.plan<"sharded", 2 : i64, 2 : i64, 2 : i64, array<i64: 0, 1>>
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<4xf32>} : () -> ()
  %e = "poplar.variable"() {ipu = 1 : i64, kind = "exchange", name = "exchange.0", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<4xf32>) -> ()
    %h = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%h, %e) : (tensor<4xf32>, tensor<4xf32>) -> ()
    %y = "poplar.popnn_nonlinearity"(%e) {dim = 0 : i64, kind = "tanh", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  }) {name = "step", pipeline.plan = #pipeline.plan<"sharded", 2 : i64, 2 : i64, 2 : i64, array<i64: 0, 1>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// Three stages on one IPU: h (stage 0) is read in stages 1 and 2, so it is stashed
// once per hop (0 -> 1 -> 2, depth 1 each) instead of twice from stage 0. The view v
// of h is not stashed: stage 2 makes its own view of the restored h. A micro-batch
// variable no data move writes (the input x here) is kept from its first reader.
// CHECK-LABEL: "poplar.graph"
// CHECK: "pipeline.stage"() ({
// CHECK-NEXT: %[[H:.*]] = "poplar.popnn_nonlinearity"(%[[X:[0-9]+]]) {{.*}}pipeline.stage = 0 : i64
// CHECK-NEXT: "pipeline.stash"(%[[X]]) {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, stash_id = "[[SX:.*]]"}
// CHECK-NEXT: "pipeline.stash"(%[[H]]) {depth = 1 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, stash_id = "[[S0:.*]]"}
// CHECK-NEXT: "poplar.reshape"(%[[H]]) {{.*}}pipeline.stage = 0 : i64
// CHECK-NEXT: }) {ipu_id = 0 : i64, stage_id = 0 : i64}
// CHECK-NEXT: "pipeline.stage"() ({
// CHECK-NEXT: %[[H1:.*]] = "pipeline.restore"() {depth = 1 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 1 : i64, stash_id = "[[S0]]"}
// CHECK-NEXT: "pipeline.stash"(%[[H1]]) {depth = 1 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 1 : i64, stash_id = "[[S1:.*]]"}
// CHECK-NEXT: "poplar.popops_add"(%[[H1]], %[[H1]]) {{.*}}pipeline.stage = 1 : i64
// CHECK-NEXT: }) {ipu_id = 0 : i64, stage_id = 1 : i64}
// CHECK-NEXT: "pipeline.stage"() ({
// CHECK-NEXT: %[[H2:.*]] = "pipeline.restore"() {depth = 1 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, stash_id = "[[S1]]"}
// CHECK-NEXT: %[[V2:.*]] = "poplar.reshape"(%[[H2]]) {{.*}}pipeline.stage = 2 : i64
// CHECK-NEXT: "poplar.popops_mul"(%[[V2]], %[[V2]]) {{.*}}pipeline.stage = 2 : i64
// CHECK-NEXT: %[[X2:.*]] = "pipeline.restore"() {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, stash_id = "[[SX]]"}
// CHECK-NEXT: "poplar.popops_mul"(%[[X2]], %[[X2]]) {{.*}}pipeline.stage = 2 : i64
// CHECK-NEXT: }) {ipu_id = 0 : i64, stage_id = 2 : i64}
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<2x4xf32>
  "poplar.function"() ({
    %h = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %v = "poplar.reshape"(%h) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x4xf32>) -> tensor<8xf32>
    %k = "poplar.popops_mul"(%v, %v) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %y = "poplar.popops_mul"(%x, %x) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %a = "poplar.popops_add"(%h, %h) {pipeline.ipu = 0 : i64, pipeline.stage = 1 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 3 : i64, 3 : i64, 1 : i64, array<i64: 0, 0, 0>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {count = 4 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// A skip connection over three IPUs: h (stage 0, IPU 0) goes to stage 1 (IPU 1) and to
// stage 2 (IPU 2). Both sends leave stage 0; the recv of the skip is in stage 2, and
// poplar-plan-memory counts the step it waits on IPU 2.
// CHECK-LABEL: "poplar.graph"
// CHECK: %[[H:.*]] = "poplar.popnn_nonlinearity"{{.*}}pipeline.stage = 0 : i64
// CHECK-NEXT: "pipeline.send"(%[[H]]) {channel = "exchange.2", dst_ipu = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, src_ipu = 0 : i64}
// CHECK-NEXT: "pipeline.send"(%[[H]]) {channel = "exchange.0", dst_ipu = 1 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, src_ipu = 0 : i64}
// CHECK: %[[A:.*]] = "pipeline.recv"() {channel = "exchange.1", {{.*}}pipeline.stage = 2 : i64
// CHECK-NEXT: %[[B:.*]] = "pipeline.recv"() {channel = "exchange.2", {{.*}}pipeline.stage = 2 : i64
// CHECK-NEXT: "poplar.popops_add"(%[[A]], %[[B]])
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<1024xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<1024xf32>} : () -> ()
  %e0 = "poplar.variable"() {ipu = 1 : i64, kind = "exchange", name = "exchange.0", tiles = array<i64>} : () -> tensor<1024xf32>
  %e1 = "poplar.variable"() {ipu = 2 : i64, kind = "exchange", name = "exchange.1", tiles = array<i64>} : () -> tensor<1024xf32>
  %e2 = "poplar.variable"() {ipu = 2 : i64, kind = "exchange", name = "exchange.2", tiles = array<i64>} : () -> tensor<1024xf32>
  %out = "poplar.variable"() {ipu = 2 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<1024xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<1024xf32>} : () -> ()
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<1024xf32>) -> ()
    %h = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<1024xf32>) -> tensor<1024xf32>
    "poplar.program_copy"(%h, %e0) : (tensor<1024xf32>, tensor<1024xf32>) -> ()
    %y = "poplar.popnn_nonlinearity"(%e0) {dim = 0 : i64, kind = "tanh", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<1024xf32>) -> tensor<1024xf32>
    "poplar.program_copy"(%y, %e1) : (tensor<1024xf32>, tensor<1024xf32>) -> ()
    "poplar.program_copy"(%h, %e2) : (tensor<1024xf32>, tensor<1024xf32>) -> ()
    %z = "poplar.popops_add"(%e1, %e2) {pipeline.ipu = 2 : i64, pipeline.stage = 2 : i64} : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
    "poplar.program_copy"(%z, %out) : (tensor<1024xf32>, tensor<1024xf32>) -> ()
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 3 : i64, 3 : i64, 3 : i64, array<i64: 0, 1, 2>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
      "poplar.program_stream_copy"(%out) {stream = "host.output.0"} : (tensor<1024xf32>) -> ()
    }) {count = 4 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 4 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

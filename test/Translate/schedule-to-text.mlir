// The pipeline schedule of a hand-written poplar.graph, drawn by ipu-translate: a step
// function of two forward stages, stage 0 on IPU 0 and stage 1 on IPU 1, called from a
// device loop of 3 iterations (3 micro-batches), so 3 + 2 - 1 = 4 steps: ramp-up
// (step 0), steady state (steps 1, 2), ramp-down (step 3). The step function is the one
// the graph's #poplar.interface names (written by poplar-build-program), its stages and
// IPUs come from its #pipeline.plan, and the peak memory of each IPU from the graph's
// #poplar.memory_plan (written by poplar-plan-memory).
// RUN: ipu-translate --schedule-to-text %s | FileCheck %s
// RUN: ipu-translate --schedule-to-html %s | FileCheck %s --check-prefix=HTML

// CHECK:      pipelined schedule: 2 stages on 2 IPUs, 3 micro-batches, 4 steps
// CHECK-NEXT: step  IPU0    IPU1
// CHECK-NEXT: 0     F0:mb0  -
// CHECK-NEXT: 1     F0:mb1  F1:mb0
// CHECK-NEXT: 2     F0:mb2  F1:mb1
// CHECK-NEXT: 3     -       F1:mb2
// CHECK-NEXT: busy steps: IPU0 3/4, IPU1 3/4
// CHECK-NEXT: peak memory: IPU0 1,024 B, IPU1 2,048 B

// HTML:      <!DOCTYPE html>
// HTML-SAME: <h1>pipelined schedule: 2 stages on 2 IPUs, 3 micro-batches</h1>
// HTML-SAME: <table><tr><th>step</th><th>IPU0</th><th>IPU1</th></tr>
// HTML-SAME: <tr><th>0</th><td style="background:#8ecae6">F0 mb0</td><td style="background:#eeeeee">idle</td></tr>
// HTML-SAME: <tr><th>1</th><td style="background:#8ecae6">F0 mb1</td><td style="background:#ffb703">F1 mb0</td></tr>
// HTML-SAME: <tr><th>3</th><td style="background:#eeeeee">idle</td><td style="background:#ffb703">F1 mb2</td></tr>
// HTML-SAME: </table><h2>Peak memory per IPU</h2><ul><li>IPU0: 1,024 bytes</li><li>IPU1: 2,048 bytes</li></ul>

"builtin.module"() ({
  "poplar.graph"() ({
    %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<2x4xf32>
    %act = "poplar.variable"() {name = "exchange.0", kind = "exchange", ipu = 1 : i64, tiles = array<i64>} : () -> tensor<2x4xf32>
    %out = "poplar.variable"() {name = "anchor.out", kind = "anchor", ipu = 1 : i64, tiles = array<i64>} : () -> tensor<2x4xf32>
    "poplar.host_stream"() {name = "h2d.x", direction = "host_to_device", type = tensor<2x4xf32>} : () -> ()
    "poplar.function"() ({
      "poplar.program_stream_copy"(%x) {stream = "h2d.x"} : (tensor<2x4xf32>) -> ()
      %r = "poplar.popnn_nonlinearity"(%x) {kind = "relu", dim = 0 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
      "poplar.program_copy"(%r, %act) : (tensor<2x4xf32>, tensor<2x4xf32>) -> ()
      %s = "poplar.popnn_nonlinearity"(%act) {kind = "relu", dim = 0 : i64, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
      "poplar.program_copy"(%s, %out) : (tensor<2x4xf32>, tensor<2x4xf32>) -> ()
    }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 2 : i64, 2 : i64, array<i64: 0, 1>>} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_repeat"() ({
        "poplar.program_call"() {callee = "step"} : () -> ()
      }) {count = 3 : i64} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 2 : i64, poplar.interface = #poplar.interface<{x = "h2d.x"}, [], [], "step", "", "main">, poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 768 : i64, 256 : i64, 0 : i64, 1024 : i64>, #poplar.ipu_memory<1 : i64, 1536 : i64, 512 : i64, 0 : i64, 2048 : i64>]>, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

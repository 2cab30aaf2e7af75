// RUN: ipu-opt %s -p poplar-place-tensors | FileCheck %s

// A pipelined step (a pipeline.schedule): the decoder and Poplar run only the ops of its
// stages, so each stage that uses an off-chip variable loads it (and stores it when it
// writes it) inside the stage, in the stage. The weight w is read in stages 0 and 2; the
// accumulator g (off chip too) is written in stage 2. Nothing is loaded outside the stages.

// CHECK-LABEL: "poplar.function"
// CHECK-NEXT: "pipeline.schedule"
// CHECK-NEXT: "pipeline.stage"
// CHECK-NEXT: "poplar.program_stream_copy"
// CHECK-NEXT: "poplar.program_remote_load"(%[[W:.*]]) {buffer = "remote.w", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64}
// CHECK-NEXT: "poplar.popops_mul"(%{{.*}}, %[[W]])
// CHECK-NOT: "poplar.program_remote_store"(%[[W]])
// CHECK: }) {ipu_id = 0 : i64, stage_id = 0 : i64}
// CHECK: }) {ipu_id = 1 : i64, stage_id = 1 : i64}
// CHECK: "poplar.program_remote_load"(%[[W]]) {buffer = "remote.w", pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64}
// CHECK-NEXT: "poplar.popops_mul"(%{{.*}}, %[[W]])
// CHECK-NEXT: "poplar.program_remote_load"(%[[G:.*]]) {buffer = "remote.w/grad", pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64}
// CHECK-NEXT: "poplar.popops_scaled_add_to"(%[[G]], %{{.*}})
// CHECK-NEXT: "poplar.program_remote_store"(%[[G]]) {buffer = "remote.w/grad", pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64}
// CHECK-NEXT: }) {ipu_id = 0 : i64, stage_id = 2 : i64}
// CHECK-NEXT: })
// CHECK-NEXT: }) {name = "step"

module attributes {poplar.tensor_locations = #poplar.tensor_locations<#poplar.tensor_location<0 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<0 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<0 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>>} {
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64: 0, 8>} : () -> tensor<256xf32>
  %g = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "w/grad", tiles = array<i64: 8, 8>} : () -> tensor<256xf32>
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 16, 8>} : () -> tensor<256xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<256xf32>} : () -> ()
  "poplar.function"() ({
    "pipeline.schedule"() ({
      "pipeline.stage"() ({
        "poplar.program_stream_copy"(%x) {pipeline.stage = 0 : i64, stream = "host.input.x"} : (tensor<256xf32>) -> ()
        %a = "poplar.popops_mul"(%x, %w) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
        "pipeline.send"(%a) {channel = "c0", dst_ipu = 1 : i64, pipeline.stage = 0 : i64, src_ipu = 0 : i64} : (tensor<256xf32>) -> ()
        "pipeline.stash"(%x) {depth = 3 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, stash_id = "s0"} : (tensor<256xf32>) -> ()
      }) {ipu_id = 0 : i64, stage_id = 0 : i64} : () -> ()
      "pipeline.stage"() ({
        %e = "pipeline.recv"() {channel = "c0", dst_ipu = 1 : i64, pipeline.stage = 1 : i64, src_ipu = 0 : i64} : () -> tensor<256xf32>
        %y = "poplar.popnn_nonlinearity"(%e) {dim = 0 : i64, kind = "relu", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<256xf32>) -> tensor<256xf32>
        "pipeline.send"(%y) {channel = "c1", dst_ipu = 0 : i64, pipeline.stage = 1 : i64, src_ipu = 1 : i64} : (tensor<256xf32>) -> ()
      }) {ipu_id = 1 : i64, stage_id = 1 : i64} : () -> ()
      "pipeline.stage"() ({
        %d = "pipeline.recv"() {channel = "c1", dst_ipu = 0 : i64, pipeline.stage = 2 : i64, src_ipu = 1 : i64} : () -> tensor<256xf32>
        %r = "pipeline.restore"() {depth = 3 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, stash_id = "s0"} : () -> tensor<256xf32>
        %b = "poplar.popops_mul"(%d, %w) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
        "poplar.popops_scaled_add_to"(%g, %b) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, scale = 1.000000e+00 : f64} : (tensor<256xf32>, tensor<256xf32>) -> ()
      }) {ipu_id = 0 : i64, stage_id = 2 : i64} : () -> ()
    }) {device_iterations = 1 : i64, gradient_accumulation = 4 : i64, kind = "pipelined", num_ipus = 2 : i64, num_stages = 3 : i64, training = true} : () -> ()
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 3 : i64, 3 : i64, 3 : i64, array<i64: 0, 1, 0>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {count = 4 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}

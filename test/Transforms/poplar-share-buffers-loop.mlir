// RUN: ipu-opt %s -p poplar-share-buffers | FileCheck %s

// A device loop's variables (kind "loop", poptorch.for_loop / cond) never take a source's
// buffer: the loop body copies into them again, which would overwrite the product %p that
// the step still reads after the loop. Their copies stay copies; the anchor's copy of a
// fresh result still shares.
// CHECK-LABEL: "poplar.graph"
// CHECK: "poplar.function"() ({
// CHECK-NEXT: %[[N:.*]] = "poplar.popops_add"
// CHECK-NEXT: "poplar.program_copy"(%[[N]], %{{.*}}) : (tensor<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT: }) {name = "step.loop0.body"}
// CHECK: %[[P:.*]] = "poplar.popops_mul"
// CHECK-NEXT: "poplar.program_copy"(%[[P]], %{{.*}}) : (tensor<4xf32>, tensor<4xf32>) -> ()
// CHECK: %[[Q:.*]] = "poplar.popops_add"(%[[P]]
// CHECK-NEXT: "poplar.program_copy"(%[[Q]], %{{.*}}) {poplar.copy_mode = "share"}
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<4xf32>} : () -> ()
  %o = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<4xf32>} : () -> ()
  %c = "poplar.variable"() {name = "step.loop0.carried.0", kind = "loop", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.function"() ({
    %n = "poplar.popops_add"(%c, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%n, %c) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {name = "step.loop0.body"} : () -> ()
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<4xf32>) -> ()
    %p = "poplar.popops_mul"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%p, %c) : (tensor<4xf32>, tensor<4xf32>) -> ()
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step.loop0.body"} : () -> ()
    }) {count = 3 : i64} : () -> ()
    %q = "poplar.popops_add"(%p, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%q, %o) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
    "poplar.program_stream_copy"(%o) {stream = "host.output.0"} : (tensor<4xf32>) -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 4 : i64} : () -> ()

// A graph's anchored tensors (poplar.anchors, dialects/poplar/attributes.py) round trip.
// RUN: ipu-opt %s | FileCheck %s
// RUN: ipu-opt %s | ipu-opt | FileCheck %s

// CHECK-LABEL: "poplar.graph"
// CHECK: poplar.anchors = [#poplar.anchor<"fc1/linear", "host.anchor.0", "every_n", 2 : i64>, #poplar.anchor<"x", "host.anchor.1", "all", 1 : i64>]
"poplar.graph"() ({
  %a = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.anchor.0", type = tensor<4xf32>} : () -> ()
  "poplar.host_stream"() {direction = "device_to_host", name = "host.anchor.1", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
    "poplar.program_stream_copy"(%a) {stream = "host.anchor.0"} : (tensor<4xf32>) -> ()
    "poplar.program_stream_copy"(%a) {stream = "host.anchor.1"} : (tensor<4xf32>) -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64,
    poplar.anchors = [#poplar.anchor<"fc1/linear", "host.anchor.0", "every_n", 2 : i64>, #poplar.anchor<"x", "host.anchor.1", "all", 1 : i64>]} : () -> ()

// RUN: ipu-opt %s -p poplar-estimate-cycles | FileCheck %s
// The cost model charges a remote copy over Streaming Memory (support/target.py: 20 GB/s per
// IPU, ~1330 cycles of latency; Mk2 1.33 GHz): 1024 bytes -> 1330 + ceil(1024 / 15.04) = 1399
// cycles; through the I/O tiles it is an exchange from them: sync 150 + the exchange of 1024
// bytes from the tiles they spread over = 173.
// CHECK-LABEL: "poplar.graph"
// CHECK: "poplar.program_remote_load"(%{{.*}}) {buffer = "remote.w", poplar.cycles = 1399 : i64}
// CHECK: "poplar.program_remote_store"(%{{.*}}) {buffer = "remote.w", poplar.cycles = 173 : i64, poplar.io_tiles}
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", poplar.remote_buffer = "remote.w", tiles = array<i64: 0, 8>} : () -> tensor<256xf32>
  "poplar.remote_buffer"() {name = "remote.w", repeats = 1 : i64, type = tensor<256xf32>} : () -> ()
  "poplar.function"() ({
    "poplar.program_remote_load"(%w) {buffer = "remote.w"} : (tensor<256xf32>) -> ()
    "poplar.program_remote_store"(%w) {buffer = "remote.w", poplar.io_tiles} : (tensor<256xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

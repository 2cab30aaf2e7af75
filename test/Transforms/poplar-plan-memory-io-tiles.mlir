// RUN: ipu-opt %s -p 'poplar-plan-memory{io-tiles=32}' | FileCheck %s
// RUN: ipu-opt %s -p 'poplar-plan-memory' | FileCheck %s --check-prefix=NONE

// I/O tiles (Options.TensorLocations.numIOTiles) set memory aside on each IPU: 32 tiles of
// 624 KiB = 20447232 bytes, recorded on the graph as #poplar.io_tile_memory beside the
// on-chip plan of the compute tiles (whose totals do not include it). Without I/O tiles the
// graph has no such attribute.
// CHECK: poplar.io_tile_memory = #poplar.io_tile_memory<32 : i64, 20447232 : i64>
// CHECK-SAME: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 64 : i64, 64 : i64, 0 : i64, 128 : i64>]>
// NONE-NOT: io_tile_memory
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64: 0, 1>} : () -> tensor<16xf32>
  "poplar.function"() ({
    %a = "poplar.popops_add"(%w, %w) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

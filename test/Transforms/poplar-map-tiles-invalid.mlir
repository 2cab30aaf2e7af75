// RUN: ipu-opt %s -p 'poplar-map-tiles{tiles-per-ipu=0}' --verify-diagnostics
// RUN: ipu-opt %s -p 'poplar-map-tiles{min-bytes-per-tile=0}' --verify-diagnostics

// An option below 1 is an error at the module, before any variable is mapped.
// expected-error @+1 {{poplar-map-tiles: tiles-per-ipu and min-bytes-per-tile must be >= 1}}
module {
  "poplar.graph"() ({
    %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64>} : () -> tensor<4xf32>
    "poplar.program_sequence"() ({
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}

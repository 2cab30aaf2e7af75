// RUN: ipu-opt %s -p poplar-place-tensors --split-input-file --verify-diagnostics

// Loading through I/O tiles needs I/O tiles (io-tiles, Options.TensorLocations.numIOTiles).
module attributes {poplar.tensor_locations = #poplar.tensor_locations<#poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<0 : i64, 2 : i64, 0 : i64, 8192 : i64, 1 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>>} {
// expected-error @+1 {{optimizer_state tensors are loaded or stored through I/O tiles (TensorLocationSettings.useIOTilesToLoad / useIOTilesToStore) but no I/O tiles are allocated: set Options.TensorLocations.numIOTiles(32) or more}}
"poplar.graph"() ({
  %m = "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "w/m", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.function"() ({
    %n = "poplar.popops_add"(%m, %m) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%n, %m) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}

// -----

// A malformed #poplar.tensor_locations names the class and the field.
// expected-error @+1 {{'poplar.tensor_locations' weight: on_chip must be 1 (on chip), 0 (off chip) or -1 (the compiler's choice), got 3}}
module attributes {poplar.tensor_locations = #poplar.tensor_locations<#poplar.tensor_location<3 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<0 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>>} {
}

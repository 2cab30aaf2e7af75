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

// -----

// Off-chip activations in a pipelined step (2 stages): the stash keeps the activations of the
// micro-batches in flight on chip.
#bwd = loc(fused<{bwd = true}>["m"])
module attributes {poplar.tensor_locations = #poplar.tensor_locations<#poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<0 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>>} {
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  // expected-error @+1 {{activations are placed off chip (TensorLocations.setActivationLocation(TensorLocationSettings().useOnChipStorage(False))) in a pipelined step (2 stages), which keeps the forward activations of the micro-batches in flight in on-chip stashes (pipeline.stash): off-chip activations are not available with pipelining. Keep activations on chip (the stash shrinks with recomputation: Options._Popart.set("autoRecomputation", 3)), or use ShardedExecution, or phased execution with Liveness.OffChipAfterFwd}}
  "poplar.function"() ({
    %a = "poplar.popops_mul"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %g = "poplar.popops_mul"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(#bwd)
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 1 : i64, 2 : i64, 1 : i64, array<i64: 0, 0>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}

// -----

// Off-chip activations in phased execution: the phases' liveness decides.
#bwd1 = loc(fused<{bwd = true}>["m"])
module attributes {poplar.tensor_locations = #poplar.tensor_locations<#poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<0 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>>} {
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  // expected-error @+1 {{activations are placed off chip (TensorLocations.setActivationLocation(TensorLocationSettings().useOnChipStorage(False))) in phased execution, where the liveness of the phases decides where activations live between phases: remove setActivationLocation and use strategy.setTensorsLiveness(poptorch.Liveness.OffChipAfterFwd) instead}}
  "poplar.function"() ({
    %a = "poplar.popops_mul"(%x, %x) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %g = "poplar.popops_mul"(%a, %a) {pipeline.ipu = 0 : i64, pipeline.stage = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(#bwd1)
  }) {name = "step", pipeline.plan = #pipeline.plan<"phased_serial", 1 : i64, 2 : i64, 1 : i64, array<i64: 0, 0>>, pipeline.phases = #pipeline.phases<"always_live", 1 : i64, array<i64: 0, 1>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}

// -----

// Activations through I/O tiles need I/O tiles.
module attributes {poplar.tensor_locations = #poplar.tensor_locations<#poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<0 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 1 : i64>>} {
// expected-error @+1 {{activations are loaded or stored through I/O tiles (TensorLocationSettings.useIOTilesToLoad / useIOTilesToStore) but no I/O tiles are allocated: set Options.TensorLocations.numIOTiles(32) or more}}
"poplar.graph"() ({
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}

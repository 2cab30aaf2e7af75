// RUN: ipu-opt %s --split-input-file --verify-diagnostics

// A remote load or store names a remote buffer of the enclosing graph, of the tensor's type.

"poplar.graph"() ({
  %m = "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "w/m", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.function"() ({
    // expected-error @+1 {{'poplar.program_remote_load' op refers to remote buffer "remote.w/m", which the enclosing 'poplar.graph' does not declare}}
    "poplar.program_remote_load"(%m) {buffer = "remote.w/m"} : (tensor<4xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

"poplar.graph"() ({
  %m = "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "w/m", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.remote_buffer"() {name = "remote.w/m", type = tensor<8xf32>, repeats = 1 : i64} : () -> ()
  "poplar.function"() ({
    // expected-error @+1 {{'poplar.program_remote_store' op tensor type tensor<4xf32> must equal the type of remote buffer "remote.w/m" (tensor<8xf32>)}}
    "poplar.program_remote_store"(%m) {buffer = "remote.w/m"} : (tensor<4xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

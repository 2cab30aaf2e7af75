// A replicated graph is refused as a whole: replication and its collectives (gcl::) have no
// C++ emission yet, and emitting one replica would silently drop the others.
// RUN: not ipu-translate --poplar-to-cpp %s 2>&1 | FileCheck %s

// CHECK: ipu-translate: error: the poplar.graph is replicated 2 times: replicated graphs and their collectives (gcl::) have no C++ emission yet; compile with replicationFactor(1)

"builtin.module"() ({
  "poplar.graph"() ({
    %a = "poplar.variable"() {name = "a", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x3xf32>
    "poplar.function"() ({
      %0 = "poplar.popnn_nonlinearity"(%a) {kind = "relu", dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 2 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()


// A graph without a #poplar.interface does not say which function is the step: drawing
// its schedule is an error that names the missing attribute and the pass that writes it.
// RUN: not ipu-translate --schedule-to-text %s 2>&1 >/dev/null | FileCheck %s

// CHECK: ipu-translate: error: the graph has no 'poplar.interface' (its step function and main program): run poplar-build-program first
"builtin.module"() ({
  "poplar.graph"() ({
    "poplar.function"() ({
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

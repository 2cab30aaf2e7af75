// An op without a C++ emission is an error that names the op, where it is, and the ops
// the emitter does emit; nothing is written to stdout. Every poplar op has an emission: the
// op here is another dialect's.
// RUN: not ipu-translate --poplar-to-cpp %s 2>&1 | FileCheck %s
// RUN: not ipu-translate --poplar-to-cpp %s 2>/dev/null | FileCheck %s --check-prefix=OUT --allow-empty

// CHECK: ipu-translate: error: 'arith.addf' at {{.*}}:{{[0-9]+}}:{{[0-9]+}} has no C++ emission yet (emitted compute ops: broadcast, concat, {{.*}})
// OUT-NOT: {{.}}

"builtin.module"() ({
  "poplar.graph"() ({
    %a = "poplar.variable"() {name = "a", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<3x3xf32>
    "poplar.function"() ({
      %0 = "arith.addf"(%a, %a) : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()


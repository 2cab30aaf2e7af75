// A function whose region has no block (not even an empty one) is an error naming the op
// and the function, not an internal error; nothing is written to stdout.
// RUN: not ipu-translate --poplar-to-cpp %s 2>&1 | FileCheck %s
// RUN: not ipu-translate --poplar-to-cpp %s 2>/dev/null | FileCheck %s --check-prefix=OUT --allow-empty

// CHECK: ipu-translate: error: 'poplar.function' at {{.*}}:{{[0-9]+}}:{{[0-9]+}} 'step' has an empty region (no block), so it has no body to emit; give it a block (an empty body is one block with no ops)
// CHECK-NOT: Traceback
// OUT-NOT: {{.}}

"builtin.module"() ({
  "poplar.graph"() ({
    "poplar.function"() ({
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

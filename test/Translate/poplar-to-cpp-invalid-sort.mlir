// A stable sort has no emission (popops::sortKeyValue does not promise to keep the order of
// equal keys): an error naming the op and what to do instead.
// RUN: not ipu-translate --poplar-to-cpp %s 2>&1 | FileCheck %s

// CHECK: ipu-translate: error: 'poplar.popops_sort_key_value' at {{.*}}: a stable sort has no emission (popops::sortKeyValue does not promise to keep the order of equal keys); sort with stable=False

"builtin.module"() ({
  "poplar.graph"() ({
    %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x5xf32>
    "poplar.function"() ({
      %k, %v = "poplar.popops_sort_key_value"(%x, %x) {dim = 1 : i64, descending = false, stable = true} : (tensor<2x5xf32>, tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>)
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

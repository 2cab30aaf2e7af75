// A stable sort has no emission (popops::sortKeyValue does not promise to keep the order of
// equal keys), nor an unsorted top-k: errors naming the op and what to do instead.
// RUN: not ipu-translate --poplar-to-cpp %s 2>&1 | FileCheck %s
// RUN: sed 's/stable = true/stable = false/' %s | not ipu-translate --poplar-to-cpp 2>&1 | FileCheck %s --check-prefix=TOPK

// CHECK: ipu-translate: error: 'poplar.popops_sort_key_value' at {{.*}}: a stable sort has no emission (popops::sortKeyValue does not promise to keep the order of equal keys); sort with stable=False
// TOPK: ipu-translate: error: 'poplar.popops_top_k' at {{.*}}: an unsorted top-k has no emission (its order is torch.topk's own); use sorted=True

"builtin.module"() ({
  "poplar.graph"() ({
    %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x5xf32>
    "poplar.function"() ({
      %k, %v = "poplar.popops_sort_key_value"(%x, %x) {dim = 1 : i64, descending = false, stable = true} : (tensor<2x5xf32>, tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>)
      %tv, %ti = "poplar.popops_top_k"(%x) {dim = 1 : i64, k = 2 : i64, largest = true, sorted = false} : (tensor<2x5xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

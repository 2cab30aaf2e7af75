// A histogram without a range (its edges are a fused multiply-add linspace of the data's
// extremes), a weighted one and a histogramdd have no emission: errors naming the op and
// what to do instead.
// RUN: not ipu-translate --poplar-to-cpp %s 2>&1 | FileCheck %s
// RUN: sed 's/range = \[\]/range = [0.0, 1.0]/' %s | not ipu-translate --poplar-to-cpp 2>&1 | FileCheck %s --check-prefix=WEIGHT

// CHECK: ipu-translate: error: 'poplar.popops_histogram' at {{.*}}: a histogram without a range has no emission (its edges are a fused multiply-add linspace of the data's minimum and maximum, which popops::map cannot reproduce exactly); give range=(min, max) or the bin edges
// WEIGHT: ipu-translate: error: 'poplar.popops_histogram' at {{.*}}: a weighted histogram has no emission yet (popops::histogram counts elements)

"builtin.module"() ({
  "poplar.graph"() ({
    %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x5xf32>
    "poplar.function"() ({
      %0, %1 = "poplar.popops_histogram"(%x) {convention = "histogram", bins = array<i64: 4>, range = [], density = false,
             operandSegmentSizes = array<i32: 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1>} : (tensor<2x5xf32>) -> (tensor<4xf32>, tensor<5xf32>)
      %2, %3 = "poplar.popops_histogram"(%x, %x) {convention = "histogram", bins = array<i64: 4>, range = [0.0, 1.0], density = false,
             operandSegmentSizes = array<i32: 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1>} : (tensor<2x5xf32>, tensor<2x5xf32>) -> (tensor<4xf32>, tensor<5xf32>)
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

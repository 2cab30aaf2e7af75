// A training op whose kind has no emission yet (group norm with the batch's statistics) is
// an error naming the op, the kind and the emitted kinds.
// RUN: not ipu-translate --poplar-to-cpp %s 2>&1 | FileCheck %s

// CHECK: ipu-translate: error: 'poplar.popnn_norm_training' at {{.*}}: kind 'group' has no emission yet (emitted: batch, layer)

"builtin.module"() ({
  "poplar.graph"() ({
    %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x4x3xf32>
    %c = "poplar.variable"() {name = "c", kind = "input", ipu = 0 : i64, tiles = array<i64: 1, 1>} : () -> tensor<4xf32>
    "poplar.function"() ({
      %y, %m, %r = "poplar.popnn_norm_training"(%x, %c, %c) {kind = "group", epsilon = 1.0e-05 : f64, momentum = 0.0 : f64, num_groups = 2 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

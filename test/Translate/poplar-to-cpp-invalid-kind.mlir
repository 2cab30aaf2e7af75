// A supported op with an attribute value that has no emission (a hard swish: popnn has
// no such non-linearity) is an error naming the op, the value and the emitted values.
// RUN: not ipu-translate --poplar-to-cpp %s 2>&1 | FileCheck %s

// CHECK: ipu-translate: error: 'poplar.popnn_nonlinearity' at {{.*}}: kind 'hard_swish' has no emission (emitted: relu, sigmoid, tanh, gelu_tanh, gelu_erf, silu, hard_sigmoid, softmax, log_softmax)

"builtin.module"() ({
  "poplar.graph"() ({
    %a = "poplar.variable"() {name = "a", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x3xf32>
    "poplar.function"() ({
      %0 = "poplar.popnn_nonlinearity"(%a) {kind = "hard_swish", dim = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()


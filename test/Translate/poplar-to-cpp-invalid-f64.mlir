// An f64 constant used by an op other than a cast to f32 (here a cast to i32) is an error
// naming both ops: Poplar has no 64-bit float type, so only a constant the program casts to
// f32 is emitted (as FLOAT).
// RUN: not ipu-translate --poplar-to-cpp %s 2>&1 | FileCheck %s

// CHECK: ipu-translate: error: 'poplar.constant' at {{.*}}: an f64 constant used by 'poplar.popops_cast' at {{.*}} has no emission: Poplar has no 64-bit float type, and an f64 constant is emitted (as a FLOAT constant) only when every use casts it to f32; compute in f32 instead

"builtin.module"() ({
  "poplar.graph"() ({
    "poplar.function"() ({
      %c = "poplar.constant"() {value = dense<1.000000e-01> : tensor<f64>, ipu = 0 : i64} : () -> tensor<f64>
      %0 = "poplar.popops_cast"(%c) : (tensor<f64>) -> tensor<f32>
      %1 = "poplar.popops_cast"(%c) : (tensor<f64>) -> tensor<i32>
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

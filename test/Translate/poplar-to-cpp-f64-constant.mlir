// An f64 constant (a Python number argument such as pinv's atol) that is only cast to f32
// is a FLOAT constant: Poplar has no 64-bit float, and the value rounded to float once is
// the f32 the cast gives.
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK: poplar::Tensor [[C:c[0-9]*]] = ipu[0].addConstant<float>(poplar::FLOAT, {}, 0.1f);
// CHECK: poplar::Tensor [[T:t[0-9]+]] = popops::cast(ipu[0], [[C]], poplar::FLOAT, f_step_0, "popops_cast");
// CHECK: popops::add(ipu[0], [[T]], v_a_0,

"builtin.module"() ({
  "poplar.graph"() ({
    %a = "poplar.variable"() {name = "a", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<f32>
    %o = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64: 1, 1>} : () -> tensor<f32>
    "poplar.function"() ({
      %c = "poplar.constant"() {value = dense<1.000000e-01> : tensor<f64>, ipu = 0 : i64} : () -> tensor<f64>
      %0 = "poplar.popops_cast"(%c) : (tensor<f64>) -> tensor<f32>
      %1 = "poplar.popops_add"(%0, %a) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "poplar.program_copy"(%1, %o) : (tensor<f32>, tensor<f32>) -> ()
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

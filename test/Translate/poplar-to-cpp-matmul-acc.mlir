// poplin_matmul_acc as poplin::matMulAcc / matMulGroupedAcc into a copy of the broadcast
// accumulator (scaled by beta; zeroed and not read when beta is 0); a matrix-vector product as
// [m, k] x [k, 1].
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK: // poplin_matmul_acc ({{.*}})
// CHECK-NEXT: poplar::Tensor t0 = ipu[0].addVariable(poplar::FLOAT, {3, 5}, "poplin_matmul_acc");
// CHECK-NEXT: mapLinearly(ipu[0], t0, 0, 1);
// CHECK-NEXT: f_step_0.add(poplar::program::Copy(v_c_0.reshape({1, 5}).broadcast(3, 0), t0));
// CHECK-NEXT: popops::mapInPlace(ipu[0], pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::_1, pe::Const(0.5f)), {t0}, f_step_0, "poplin_matmul_acc/beta");
// CHECK-NEXT: poplin::matMulAcc(ipu[0], t0, 2.0f, v_a_0, v_b_0, f_step_0, "poplin_matmul_acc");
// CHECK: f_step_0.add(poplar::program::Copy(v_c_0.reshape({1, 1, 5}).broadcast(2, 0).broadcast(3, 1), t1));
// CHECK-NEXT: poplin::matMulGroupedAcc(ipu[0], t1, 1.0f, v_g_0, v_h_0, f_step_0, "poplin_matmul_acc");
// CHECK: popops::zero(ipu[0], t2, f_step_0, "poplin_matmul_acc/zero");  // beta 0: the accumulator is not read
// CHECK-NEXT: poplin::matMulAcc(ipu[0], t2.expand({1}), 1.0f, v_a_0, v_v_0.expand({1}), f_step_0, "poplin_matmul_acc");

"builtin.module"() ({
  "poplar.graph"() ({
    %c = "poplar.variable"() {name = "c", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<5xf32>
    %a = "poplar.variable"() {name = "a", kind = "input", ipu = 0 : i64, tiles = array<i64: 1, 1>} : () -> tensor<3x4xf32>
    %b = "poplar.variable"() {name = "b", kind = "input", ipu = 0 : i64, tiles = array<i64: 2, 1>} : () -> tensor<4x5xf32>
    %g = "poplar.variable"() {name = "g", kind = "input", ipu = 0 : i64, tiles = array<i64: 3, 1>} : () -> tensor<2x3x4xf32>
    %h = "poplar.variable"() {name = "h", kind = "input", ipu = 0 : i64, tiles = array<i64: 4, 1>} : () -> tensor<2x4x5xf32>
    %v = "poplar.variable"() {name = "v", kind = "input", ipu = 0 : i64, tiles = array<i64: 5, 1>} : () -> tensor<4xf32>
    %w = "poplar.variable"() {name = "w", kind = "input", ipu = 0 : i64, tiles = array<i64: 6, 1>} : () -> tensor<3xf32>
    "poplar.function"() ({
      %0 = "poplar.poplin_matmul_acc"(%c, %a, %b) {alpha = 2.0 : f64, beta = 5.0e-01 : f64} : (tensor<5xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
      %1 = "poplar.poplin_matmul_acc"(%c, %g, %h) {alpha = 1.0 : f64, beta = 1.0 : f64} : (tensor<5xf32>, tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
      %2 = "poplar.poplin_matmul_acc"(%w, %a, %v) {alpha = 1.0 : f64, beta = 0.0 : f64} : (tensor<3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

// The factorisations PopLibs has: poplin_cholesky as poplin::cholesky (info from the factor's
// diagonal: the first column that is not positive), poplin_triangular_solve as
// poplin::triangularSolve over the broadcast batch, the Cholesky solve and inverse as two
// triangular solves with the factor and its transpose (the inverse solves the identity).
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK: #include <poplin/Cholesky.hpp>
// CHECK: #include <poplin/TriangularSolve.hpp>
// CHECK: // poplin_cholesky ({{.*}})
// CHECK-NEXT: poplar::Tensor t0 = poplin::cholesky(ipu[0], v_a_0, true, f_step_0, "poplin_cholesky");
// CHECK-NEXT: // info: the (1-based) order of the first column whose diagonal is not positive, 0 if none
// CHECK-NEXT: poplar::Tensor diagonal0 = t0.reshape({2, 9}).subSample(4, 1);
// CHECK-NEXT: static const int data0[] = {1, 2, 3};
// CHECK: poplar::Tensor firstBad0 = popops::reduce(ipu[0], popops::map(ipu[0], pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_2, pe::Const(4), pe::UnaryOp(pe::UnaryOpType::LOGICAL_NOT, pe::BinaryOp(pe::BinaryOpType::GREATER_THAN, pe::_1, pe::Const(0.0f)))), {diagonal0, order0}, f_step_0, "poplin_cholesky/info"), poplar::INT, {1}, popops::ReduceParams(popops::Operation::MIN), f_step_0, "poplin_cholesky/info");
// CHECK-NEXT: poplar::Tensor t1 = popops::map(ipu[0], pe::Cast(pe::TernaryOp(pe::TernaryOpType::SELECT, pe::Const(0), pe::_1, pe::BinaryOp(pe::BinaryOpType::EQUAL, pe::_1, pe::Const(4))), poplar::INT), {firstBad0}, f_step_0, "poplin_cholesky/info");
// CHECK: // poplin_triangular_solve ({{.*}})
// CHECK-NEXT: poplar::Tensor t2 = poplin::triangularSolve(ipu[0], v_a_0, v_b_0.reshape({1, 3, 4}).broadcast(2, 0), true, false, false, f_step_0, "poplin_triangular_solve");
// CHECK: // poplin_cholesky_solve ({{.*}})
// CHECK-NEXT: // A = L L^T (or U^T U, L = U^T): L y = b, then L^T x = y
// CHECK-NEXT: poplar::Tensor y0 = poplin::triangularSolve(ipu[0], t0, v_b_0.reshape({1, 3, 4}).broadcast(2, 0), true, true, false, f_step_0, "poplin_cholesky_solve/lower");
// CHECK-NEXT: poplar::Tensor t3 = poplin::triangularSolve(ipu[0], t0.dimShuffle({0, 2, 1}), y0, true, false, false, f_step_0, "poplin_cholesky_solve/upper");
// CHECK: // poplin_cholesky_inverse ({{.*}})
// CHECK-NEXT: static const float data1[] = {1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f};
// CHECK: poplar::Tensor y1 = poplin::triangularSolve(ipu[0], t0.dimShuffle({0, 2, 1}), identity0.reshape({1, 3, 3}).broadcast(2, 0), true, true, false, f_step_0, "poplin_cholesky_inverse/lower");
// CHECK-NEXT: poplar::Tensor t4 = poplin::triangularSolve(ipu[0], t0, y1, true, false, false, f_step_0, "poplin_cholesky_inverse/upper");

"builtin.module"() ({
  "poplar.graph"() ({
    %a = "poplar.variable"() {name = "a", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x3x3xf32>
    %b = "poplar.variable"() {name = "b", kind = "input", ipu = 0 : i64, tiles = array<i64: 1, 1>} : () -> tensor<3x4xf32>
    "poplar.function"() ({
      %l, %info = "poplar.poplin_cholesky"(%a) {upper = false} : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2xi32>)
      %x = "poplar.poplin_triangular_solve"(%a, %b) {left = true, unitriangular = false, upper = true} : (tensor<2x3x3xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
      %s = "poplar.poplin_cholesky_solve"(%b, %l) {upper = false} : (tensor<3x4xf32>, tensor<2x3x3xf32>) -> tensor<2x3x4xf32>
      %i = "poplar.poplin_cholesky_inverse"(%l) {upper = true} : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

// The LU family as Poplar programs of PopLibs calls (PopLibs has no LU): per column, the pivot
// from popops::argMax of |a[i, k]|, the rows swapped with multiSlice / multiUpdate on the
// flattened rows, L's column scaled and the trailing matrix updated with popops::mapInPlace;
// an LU solve swaps the right-hand side's rows by the pivots, then solves with L (unit
// diagonal) and U; the determinant is the product of U's diagonal with the permutation's sign
// (slogdet: of its signs, and the sum of its logs); lu_unpack selects the triangles and swaps
// the identity's rows; an adjoint LU solve is refused by name.
// RUN: sed '/adjoint = true/d' %s | ipu-translate --poplar-to-cpp | FileCheck %s
// RUN: not ipu-translate --poplar-to-cpp %s 2>&1 | FileCheck %s --check-prefix=ADJOINT

// CHECK: // poplin_lu_factor ({{.*}})
// CHECK-NEXT: static const int data0[] = {0, 3};
// CHECK: // LU with partial pivoting, column by column (LAPACK getf2): the pivot is the first largest |a[i, k]|, i >= k
// CHECK: for (unsigned k = 0; k < 3; ++k) {
// CHECK-NEXT:   poplar::Tensor column = lu0.slice({0, k, k}, {2, 3, k + 1}).reshape({2, 3 - k});
// CHECK-NEXT:   poplar::Tensor pivot = popops::cast(ipu[0], popops::argMax(ipu[0], popops::map(ipu[0], pe::UnaryOp(pe::UnaryOpType::ABSOLUTE, pe::_1), {column}
// CHECK:   popops::multiUpdate(ipu[0], lu0.reshape({6, 3}), rowThere, here, {0}, {1}, f_step_0, popops::SlicePlan(), poplar::OptionFlags(), "poplin_lu_factor/swap");
// CHECK-NEXT:   popops::multiUpdate(ipu[0], lu0.reshape({6, 3}), rowHere, there, {0}, {1}, f_step_0, popops::SlicePlan(), poplar::OptionFlags(), "poplin_lu_factor/swap");
// CHECK-NEXT:   if (k + 1 == 3) break;
// CHECK: // info: the (1-based) order of the first zero on U's diagonal, 0 if none
// CHECK: // poplin_lu_solve ({{.*}})
// CHECK: // the pivots' row swaps, in order
// CHECK: poplar::Tensor y0 = poplin::triangularSolve(ipu[0], lu1, x0, true, true, true, f_step_0, "poplin_lu_solve/lower");
// CHECK-NEXT: poplar::Tensor x1 = poplin::triangularSolve(ipu[0], lu1, y0, true, false, false, f_step_0, "poplin_lu_solve/upper");
// CHECK: // poplin_determinant ({{.*}})
// CHECK: popops::ReduceParams(popops::Operation::MUL)
// CHECK: // poplin_sign_log_determinant ({{.*}})
// CHECK: popops::mul(ipu[0], popops::reduce(ipu[0], popops::map(ipu[0], pe::UnaryOp(pe::UnaryOpType::SIGNUM, pe::_1)
// CHECK: popops::map(ipu[0], pe::UnaryOp(pe::UnaryOpType::LOGARITHM, pe::UnaryOp(pe::UnaryOpType::ABSOLUTE, pe::_1))
// CHECK: // poplin_lu_unpack ({{.*}})
// CHECK: static const bool {{data[0-9]+}}[] = {false, false, false, true, false, false, true, true, false};
// CHECK: pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_1, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::Const(1.0f), pe::Const(0.0f), pe::_3), pe::_2)
// CHECK: // the identity's rows swapped by the pivots in order is p^T
// CHECK: = permuted0.dimShuffle({0, 2, 1}).reshape({2, 3, 3});

// ADJOINT: ipu-translate: error: 'poplar.poplin_lu_solve' at {{.*}}: only a left, non-adjoint LU solve (A x = b) has an emission yet

"builtin.module"() ({
  "poplar.graph"() ({
    %a = "poplar.variable"() {name = "a", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x3x3xf32>
    %b = "poplar.variable"() {name = "b", kind = "input", ipu = 0 : i64, tiles = array<i64: 1, 1>} : () -> tensor<2x3x2xf32>
    "poplar.function"() ({
      %lu, %piv, %info = "poplar.poplin_lu_factor"(%a) {pivot = true} : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2x3xi32>, tensor<2xi32>)
      %x = "poplar.poplin_lu_solve"(%lu, %piv, %b) {adjoint = false, left = true} : (tensor<2x3x3xf32>, tensor<2x3xi32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
      %d, %lu2, %piv2 = "poplar.poplin_determinant"(%a) : (tensor<2x3x3xf32>) -> (tensor<2xf32>, tensor<2x3x3xf32>, tensor<2x3xi32>)
      %s, %l, %lu3, %piv3 = "poplar.poplin_sign_log_determinant"(%a) : (tensor<2x3x3xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2x3x3xf32>, tensor<2x3xi32>)
      %p, %lf, %uf = "poplar.poplin_lu_unpack"(%lu, %piv) {unpack_data = true, unpack_pivots = true} : (tensor<2x3x3xf32>, tensor<2x3xi32>) -> (tensor<2x3x3xf32>, tensor<2x3x3xf32>, tensor<2x3x3xf32>)
      %y = "poplar.poplin_lu_solve"(%lu, %piv, %b) {adjoint = true, left = true} : (tensor<2x3x3xf32>, tensor<2x3xi32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

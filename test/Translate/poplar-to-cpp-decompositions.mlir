// The decompositions PopLibs lacks, each one call of ipu-mlir's PopLibs-style
// poplin/Decompositions.hpp (included only when a unit calls one): the Householder QR
// family (qr in each mode, geqrf, householderProduct, ormqr), eigh, svd, pseudoInverse (its
// tolerances broadcast to the batch and flattened), matrixExp, eig (complex<f32> results as
// FLOAT (real, imaginary) pairs in a trailing dim), ldlFactor (pivots and info
// cast to the results' types) and ldlSolve (the factor broadcast to b's batch). A unit
// without them does not include the header; eig of a complex matrix is refused by name.
// RUN: sed '/zc, /d' %s | ipu-translate --poplar-to-cpp | FileCheck %s
// RUN: not ipu-translate --poplar-to-cpp %s 2>&1 | FileCheck %s --check-prefix=COMPLEX
// RUN: ipu-translate --poplar-to-cpp %S/poplar-to-cpp-linalg.mlir | FileCheck %s --check-prefix=NONE

// CHECK: #include <popnn/codelets.hpp>
// CHECK-NEXT: #include <poplin/Decompositions.hpp>
// CHECK: // poplin_qr ({{.*}})
// CHECK-NEXT: poplar::Tensor t0, t1;
// CHECK-NEXT: std::tie(t0, t1) = poplin::qr(ipu[0], v_a_0, poplin::QRMode::REDUCED, f_step_0, "poplin_qr");
// CHECK: poplin::qr(ipu[0], v_a_0, poplin::QRMode::COMPLETE, f_step_0, "poplin_qr");
// CHECK: poplin::qr(ipu[0], v_a_0, poplin::QRMode::R_ONLY, f_step_0, "poplin_qr");
// CHECK: // poplin_geqrf ({{.*}})
// CHECK-NEXT: poplar::Tensor [[G:t[0-9]+]], [[TAU:t[0-9]+]];
// CHECK-NEXT: std::tie([[G]], [[TAU]]) = poplin::geqrf(ipu[0], v_a_0, f_step_0, "poplin_geqrf");
// CHECK: poplar::Tensor {{t[0-9]+}} = poplin::householderProduct(ipu[0], [[G]], [[TAU]], f_step_0, "poplin_householder_product");
// CHECK: poplar::Tensor {{t[0-9]+}} = poplin::ormqr(ipu[0], [[G]], [[TAU]], v_c_0, false, true, f_step_0, "poplin_ormqr");
// CHECK: std::tie({{t[0-9]+}}, {{t[0-9]+}}) = poplin::eigh(ipu[0], v_sym_0, false, true, f_step_0, "poplin_eigh");
// CHECK: std::tie({{t[0-9]+}}, {{t[0-9]+}}, {{t[0-9]+}}) = poplin::svd(ipu[0], v_a_0, true, true, f_step_0, "poplin_svd");
// CHECK: std::tie({{t[0-9]+}}, {{t[0-9]+}}, {{t[0-9]+}}) = poplin::svd(ipu[0], v_a_0, false, false, f_step_0, "poplin_svd");
// CHECK: = poplin::pseudoInverse(ipu[0], v_a_0, v_atol_0.broadcast(2, 0).reshape({2}), v_rtol_0.reshape({2}), false, f_step_0, "poplin_pseudo_inverse");
// CHECK: = poplin::matrixExp(ipu[0], v_sym_0, f_step_0, "poplin_matrix_exp");
// CHECK: // poplin_eig ({{.*}})
// CHECK-NEXT: poplar::Tensor [[W:t[0-9]+]], [[V:t[0-9]+]];
// CHECK-NEXT: std::tie([[W]], [[V]]) = poplin::eig(ipu[0], v_sym_0, f_step_0, "poplin_eig");
// CHECK: // poplin_ldl_factor ({{.*}})
// CHECK-NEXT: poplar::Tensor [[LD:t[0-9]+]], pivots0, info0;
// CHECK-NEXT: std::tie([[LD]], pivots0, info0) = poplin::ldlFactor(ipu[0], v_sym_0, false, f_step_0, "poplin_ldl_factor");
// CHECK-NEXT: poplar::Tensor [[PIV:t[0-9]+]] = popops::cast(ipu[0], pivots0, poplar::INT, f_step_0, "poplin_ldl_factor/pivots");
// CHECK-NEXT: poplar::Tensor {{t[0-9]+}} = popops::cast(ipu[0], info0, poplar::LONGLONG, f_step_0, "poplin_ldl_factor/info");
// CHECK: = poplin::ldlSolve(ipu[0], [[LD]].reshape({1, 3, 3}).broadcast(2, 0), popops::cast(ipu[0], [[PIV]], poplar::INT, f_step_0, "poplin_ldl_solve/pivots").reshape({1, 3}).broadcast(2, 0), v_b_0, false, f_step_0, "poplin_ldl_solve").reshape({2, 3, 2});

// COMPLEX: ipu-translate: error: 'poplar.poplin_eig' at {{.*}}: the eigendecomposition of a complex matrix has no emission yet (emitted: real f32 matrices); decompose a real matrix

// NONE: #include <poplin/TriangularSolve.hpp>
// NONE-NOT: Decompositions.hpp

"builtin.module"() ({
  "poplar.graph"() ({
    %a = "poplar.variable"() {name = "a", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x4x3xf32>
    %c = "poplar.variable"() {name = "c", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x5x4xf32>
    %sym = "poplar.variable"() {name = "sym", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<3x3xf32>
    %b = "poplar.variable"() {name = "b", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x3x2xf32>
    %z = "poplar.variable"() {name = "z", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<3x3xcomplex<f32>>
    %atol = "poplar.variable"() {name = "atol", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<1xf32>
    %rtol = "poplar.variable"() {name = "rtol", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2xf32>
    "poplar.function"() ({
      %q, %r = "poplar.poplin_qr"(%a) {mode = "reduced"} : (tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x3x3xf32>)
      %qc, %rc = "poplar.poplin_qr"(%a) {mode = "complete"} : (tensor<2x4x3xf32>) -> (tensor<2x4x4xf32>, tensor<2x4x3xf32>)
      %q0, %rr = "poplar.poplin_qr"(%a) {mode = "r"} : (tensor<2x4x3xf32>) -> (tensor<0xf32>, tensor<2x3x3xf32>)
      %g, %tau = "poplar.poplin_geqrf"(%a) : (tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x3xf32>)
      %hp = "poplar.poplin_householder_product"(%g, %tau) : (tensor<2x4x3xf32>, tensor<2x3xf32>) -> tensor<2x4x3xf32>
      %o = "poplar.poplin_ormqr"(%g, %tau, %c) {left = false, transpose = true} : (tensor<2x4x3xf32>, tensor<2x3xf32>, tensor<2x5x4xf32>) -> tensor<2x5x4xf32>
      %w, %v = "poplar.poplin_eigh"(%sym) {compute_v = true, uplo = "U"} : (tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3x3xf32>)
      %u, %s, %vh = "poplar.poplin_svd"(%a) {compute_uv = true, full_matrices = true} : (tensor<2x4x3xf32>) -> (tensor<2x4x4xf32>, tensor<2x3xf32>, tensor<2x3x3xf32>)
      %u0, %s2, %vh0 = "poplar.poplin_svd"(%a) {compute_uv = false, full_matrices = false} : (tensor<2x4x3xf32>) -> (tensor<0xf32>, tensor<2x3xf32>, tensor<0xf32>)
      %p = "poplar.poplin_pseudo_inverse"(%a, %atol, %rtol) {hermitian = false} : (tensor<2x4x3xf32>, tensor<1xf32>, tensor<2xf32>) -> tensor<2x3x4xf32>
      %e = "poplar.poplin_matrix_exp"(%sym) : (tensor<3x3xf32>) -> tensor<3x3xf32>
      %ew, %ev = "poplar.poplin_eig"(%sym) : (tensor<3x3xf32>) -> (tensor<3xcomplex<f32>>, tensor<3x3xcomplex<f32>>)
      %zc, %zv = "poplar.poplin_eig"(%z) : (tensor<3x3xcomplex<f32>>) -> (tensor<3xcomplex<f32>>, tensor<3x3xcomplex<f32>>)
      %ld, %piv, %info = "poplar.poplin_ldl_factor"(%sym) {hermitian = false} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>, tensor<i64>)
      %x = "poplar.poplin_ldl_solve"(%ld, %piv, %b) {hermitian = false} : (tensor<3x3xf32>, tensor<3xi32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

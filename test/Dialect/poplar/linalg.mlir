// The poplar ops of linear algebra (poplin_linalg: factorisations; poplin_linalg_solve: solves,
// inverses, determinants): valid ops parse, verify and print (CHECK lines); each verifier rule
// has a case with the message a user sees.
// RUN: ipu-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: ipu-opt %s --split-input-file --verify-diagnostics | ipu-opt --split-input-file | FileCheck %s

// CHECK-LABEL: sym_name = "factorisations"
// CHECK: "poplar.poplin_cholesky"(%{{.*}}) {upper = false} : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2xi32>)
// CHECK: "poplar.poplin_lu_factor"(%{{.*}}) {pivot = true} : (tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3xi32>, tensor<i32>)
// CHECK: "poplar.poplin_lu_unpack"(%{{.*}}, %{{.*}}) {unpack_data = true, unpack_pivots = true} : (tensor<3x4xf32>, tensor<3xi32>) -> (tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x4xf32>)
// CHECK: "poplar.poplin_lu_unpack"(%{{.*}}, %{{.*}}) {unpack_data = false, unpack_pivots = true} : (tensor<3x4xf32>, tensor<3xi32>) -> (tensor<3x3xf32>, tensor<0xf32>, tensor<0xf32>)
// CHECK: "poplar.poplin_qr"(%{{.*}}) {mode = "reduced"} : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3x3xf32>)
// CHECK: "poplar.poplin_qr"(%{{.*}}) {mode = "r"} : (tensor<4x3xf32>) -> (tensor<0xf32>, tensor<3x3xf32>)
// CHECK: "poplar.poplin_geqrf"(%{{.*}}) : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>)
// CHECK: "poplar.poplin_householder_product"(%{{.*}}, %{{.*}}) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
// CHECK: "poplar.poplin_ldl_factor"(%{{.*}}) {hermitian = false} : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2x3xi32>, tensor<2xi32>)
// CHECK: "poplar.poplin_svd"(%{{.*}}) {compute_uv = true, full_matrices = true} : (tensor<4x3xf32>) -> (tensor<4x4xf32>, tensor<3xf32>, tensor<3x3xf32>)
// CHECK: "poplar.poplin_svd"(%{{.*}}) {compute_uv = false, full_matrices = false} : (tensor<4x3xf32>) -> (tensor<0xf32>, tensor<3xf32>, tensor<0xf32>)
// CHECK: "poplar.poplin_eigh"(%{{.*}}) {compute_v = true, uplo = "L"} : (tensor<2x3x3xf32>) -> (tensor<2x3xf32>, tensor<2x3x3xf32>)
// CHECK: "poplar.poplin_eig"(%{{.*}}) : (tensor<2x3x3xf32>) -> (tensor<2x3xcomplex<f32>>, tensor<2x3x3xcomplex<f32>>)
func.func @factorisations(%s: tensor<2x3x3xf32>, %w: tensor<3x4xf32>, %t: tensor<4x3xf32>) {
  %l, %info = "poplar.poplin_cholesky"(%s) {upper = false} : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2xi32>)
  %lu, %piv, %i2 = "poplar.poplin_lu_factor"(%w) {pivot = true} : (tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3xi32>, tensor<i32>)
  %p, %ll, %u = "poplar.poplin_lu_unpack"(%lu, %piv) {unpack_data = true, unpack_pivots = true} : (tensor<3x4xf32>, tensor<3xi32>) -> (tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x4xf32>)
  %p2, %ll2, %u2 = "poplar.poplin_lu_unpack"(%lu, %piv) {unpack_data = false, unpack_pivots = true} : (tensor<3x4xf32>, tensor<3xi32>) -> (tensor<3x3xf32>, tensor<0xf32>, tensor<0xf32>)
  %q, %r = "poplar.poplin_qr"(%t) {mode = "reduced"} : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3x3xf32>)
  %q2, %r2 = "poplar.poplin_qr"(%t) {mode = "r"} : (tensor<4x3xf32>) -> (tensor<0xf32>, tensor<3x3xf32>)
  %a, %tau = "poplar.poplin_geqrf"(%t) : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>)
  %h = "poplar.poplin_householder_product"(%a, %tau) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %ld, %lp, %li = "poplar.poplin_ldl_factor"(%s) {hermitian = false} : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2x3xi32>, tensor<2xi32>)
  %su, %ss, %sv = "poplar.poplin_svd"(%t) {compute_uv = true, full_matrices = true} : (tensor<4x3xf32>) -> (tensor<4x4xf32>, tensor<3xf32>, tensor<3x3xf32>)
  %nu, %ns, %nv = "poplar.poplin_svd"(%t) {compute_uv = false, full_matrices = false} : (tensor<4x3xf32>) -> (tensor<0xf32>, tensor<3xf32>, tensor<0xf32>)
  %ew, %ev = "poplar.poplin_eigh"(%s) {compute_v = true, uplo = "L"} : (tensor<2x3x3xf32>) -> (tensor<2x3xf32>, tensor<2x3x3xf32>)
  %gw, %gv = "poplar.poplin_eig"(%s) : (tensor<2x3x3xf32>) -> (tensor<2x3xcomplex<f32>>, tensor<2x3x3xcomplex<f32>>)
  return
}

// -----

// CHECK-LABEL: sym_name = "solves"
// CHECK: "poplar.poplin_triangular_solve"(%{{.*}}, %{{.*}}) {left = true, unitriangular = false, upper = true} : (tensor<2x1x3x3xf32>, tensor<5x3x4xf32>) -> tensor<2x5x3x4xf32>
// CHECK: "poplar.poplin_triangular_solve"(%{{.*}}, %{{.*}}) {left = false, unitriangular = true, upper = false} : (tensor<3x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: "poplar.poplin_lu_solve"(%{{.*}}, %{{.*}}, %{{.*}}) {adjoint = true, left = true} : (tensor<3x3xf32>, tensor<3xi32>, tensor<3x2xf32>) -> tensor<3x2xf32>
// CHECK: "poplar.poplin_solve"(%{{.*}}, %{{.*}}) {left = true} : (tensor<2x3x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3x3xf32>, tensor<2x3xi32>, tensor<2xi32>)
// CHECK: "poplar.poplin_solve"(%{{.*}}, %{{.*}}) {left = false} : (tensor<3x3xf32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3x3xf32>, tensor<3xi32>, tensor<i32>)
// CHECK: "poplar.poplin_inverse"(%{{.*}}) : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2xi32>)
// CHECK: "poplar.poplin_determinant"(%{{.*}}) : (tensor<3x3xf32>) -> (tensor<f32>, tensor<3x3xf32>, tensor<3xi32>)
// CHECK: "poplar.poplin_sign_log_determinant"(%{{.*}}) : (tensor<3x3xf32>) -> (tensor<f32>, tensor<f32>, tensor<3x3xf32>, tensor<3xi32>)
// CHECK: "poplar.poplin_cholesky_solve"(%{{.*}}, %{{.*}}) {upper = false} : (tensor<3x2xf32>, tensor<3x3xf32>) -> tensor<3x2xf32>
// CHECK: "poplar.poplin_cholesky_inverse"(%{{.*}}) {upper = true} : (tensor<3x3xf32>) -> tensor<3x3xf32>
// CHECK: "poplar.poplin_ormqr"(%{{.*}}, %{{.*}}, %{{.*}}) {left = true, transpose = false} : (tensor<4x3xf32>, tensor<3xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
// CHECK: "poplar.poplin_ldl_solve"(%{{.*}}, %{{.*}}, %{{.*}}) {hermitian = false} : (tensor<3x3xf32>, tensor<3xi32>, tensor<3x2xf32>) -> tensor<3x2xf32>
// CHECK: "poplar.poplin_pseudo_inverse"(%{{.*}}, %{{.*}}, %{{.*}}) {hermitian = false} : (tensor<4x3xf32>, tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
// CHECK: "poplar.poplin_matrix_exp"(%{{.*}}) : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
func.func @solves(%a4: tensor<2x1x3x3xf32>, %b4: tensor<5x3x4xf32>, %a: tensor<3x3xf32>, %bt: tensor<4x3xf32>, %b: tensor<3x2xf32>,
                  %piv: tensor<3xi32>, %s: tensor<2x3x3xf32>, %v: tensor<3xf32>, %t: tensor<4x3xf32>, %c: tensor<4x2xf32>, %tol: tensor<f32>) {
  %0 = "poplar.poplin_triangular_solve"(%a4, %b4) {upper = true, left = true, unitriangular = false} : (tensor<2x1x3x3xf32>, tensor<5x3x4xf32>) -> tensor<2x5x3x4xf32>
  %1 = "poplar.poplin_triangular_solve"(%a, %bt) {upper = false, left = false, unitriangular = true} : (tensor<3x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %2 = "poplar.poplin_lu_solve"(%a, %piv, %b) {left = true, adjoint = true} : (tensor<3x3xf32>, tensor<3xi32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %3:4 = "poplar.poplin_solve"(%s, %v) {left = true} : (tensor<2x3x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3x3xf32>, tensor<2x3xi32>, tensor<2xi32>)
  %4:4 = "poplar.poplin_solve"(%a, %bt) {left = false} : (tensor<3x3xf32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3x3xf32>, tensor<3xi32>, tensor<i32>)
  %5:2 = "poplar.poplin_inverse"(%s) : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2xi32>)
  %6:3 = "poplar.poplin_determinant"(%a) : (tensor<3x3xf32>) -> (tensor<f32>, tensor<3x3xf32>, tensor<3xi32>)
  %7:4 = "poplar.poplin_sign_log_determinant"(%a) : (tensor<3x3xf32>) -> (tensor<f32>, tensor<f32>, tensor<3x3xf32>, tensor<3xi32>)
  %8 = "poplar.poplin_cholesky_solve"(%b, %a) {upper = false} : (tensor<3x2xf32>, tensor<3x3xf32>) -> tensor<3x2xf32>
  %9 = "poplar.poplin_cholesky_inverse"(%a) {upper = true} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %10 = "poplar.poplin_ormqr"(%t, %v, %c) {left = true, transpose = false} : (tensor<4x3xf32>, tensor<3xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %11 = "poplar.poplin_ldl_solve"(%a, %piv, %b) {hermitian = false} : (tensor<3x3xf32>, tensor<3xi32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %12 = "poplar.poplin_pseudo_inverse"(%t, %tol, %tol) {hermitian = false} : (tensor<4x3xf32>, tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
  %13 = "poplar.poplin_matrix_exp"(%s) : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  return
}

// -----

func.func @cholesky_not_square(%x: tensor<3x4xf32>) {
  // expected-error@+1 {{'poplar.poplin_cholesky' op input must be square, got shape [3, 4]}}
  %l, %info = "poplar.poplin_cholesky"(%x) {upper = false} : (tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<i32>)
  return
}

// -----

func.func @cholesky_vector(%x: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.poplin_cholesky' op input must be a matrix or a batch of matrices (rank >= 2), got shape [3]}}
  %l, %info = "poplar.poplin_cholesky"(%x) {upper = false} : (tensor<3xf32>) -> (tensor<3xf32>, tensor<i32>)
  return
}

// -----

func.func @cholesky_integer_matrix(%x: tensor<3x3xi32>) {
  // expected-error@+1 {{'poplar.poplin_cholesky' op input must have f32, f64 or complex elements, got i32}}
  %l, %info = "poplar.poplin_cholesky"(%x) {upper = false} : (tensor<3x3xi32>) -> (tensor<3x3xi32>, tensor<i32>)
  return
}

// -----

func.func @cholesky_info_shape(%x: tensor<2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_cholesky' op info shape must be [2], got []}}
  %l, %info = "poplar.poplin_cholesky"(%x) {upper = false} : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<i32>)
  return
}

// -----

func.func @lu_without_pivoting(%x: tensor<3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_lu_factor' op attribute 'pivot' must be true: LU without pivoting is not supported}}
  %lu, %piv, %info = "poplar.poplin_lu_factor"(%x) {pivot = false} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>, tensor<i32>)
  return
}

// -----

func.func @lu_float_pivots(%x: tensor<3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_lu_factor' op pivots must have integer elements, got f32}}
  %lu, %piv, %info = "poplar.poplin_lu_factor"(%x) {pivot = true} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>, tensor<i32>)
  return
}

// -----

func.func @qr_mode(%x: tensor<4x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_qr' op attribute 'mode' must be one of "reduced", "complete", "r", got "full"}}
  %q, %r = "poplar.poplin_qr"(%x) {mode = "full"} : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3x3xf32>)
  return
}

// -----

func.func @svd_reduced_shape(%x: tensor<4x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_svd' op u shape must be [4, 3], got [4, 4]}}
  %u, %s, %vh = "poplar.poplin_svd"(%x) {compute_uv = true, full_matrices = false} : (tensor<4x3xf32>) -> (tensor<4x4xf32>, tensor<3xf32>, tensor<3x3xf32>)
  return
}

// -----

func.func @eig_real_results(%x: tensor<3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_eig' op eigenvalues must have complex<f32> elements, got f32}}
  %w, %v = "poplar.poplin_eig"(%x) : (tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3x3xcomplex<f32>>)
  return
}

// -----

func.func @eigh_uplo(%x: tensor<3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_eigh' op attribute 'uplo' must be one of "L", "U", got "X"}}
  %w, %v = "poplar.poplin_eigh"(%x) {compute_v = true, uplo = "X"} : (tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3x3xf32>)
  return
}

// -----

func.func @triangular_solve_rows(%a: tensor<3x3xf32>, %b: tensor<4x2xf32>) {
  // expected-error@+1 {{'poplar.poplin_triangular_solve' op b must have 3 rows (the size of the matrix), got shape [4, 2]}}
  %x = "poplar.poplin_triangular_solve"(%a, %b) {upper = true, left = true, unitriangular = false} : (tensor<3x3xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @triangular_solve_batches(%a: tensor<2x3x3xf32>, %b: tensor<5x3x2xf32>) {
  // expected-error@+1 {{'poplar.poplin_triangular_solve' op batch dims [[2], [5]] do not broadcast}}
  %x = "poplar.poplin_triangular_solve"(%a, %b) {upper = true, left = true, unitriangular = false} : (tensor<2x3x3xf32>, tensor<5x3x2xf32>) -> tensor<5x3x2xf32>
  return
}

// -----

func.func @solve_element(%a: tensor<3x3xf32>, %b: tensor<3xf64>) {
  // expected-error@+1 {{'poplar.poplin_solve' op b must have the element type of the matrix, f32, got f64}}
  %x:4 = "poplar.poplin_solve"(%a, %b) {left = true} : (tensor<3x3xf32>, tensor<3xf64>) -> (tensor<3xf32>, tensor<3x3xf32>, tensor<3xi32>, tensor<i32>)
  return
}

// -----

func.func @determinant_shape(%a: tensor<2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_determinant' op det shape must be [2], got []}}
  %d:3 = "poplar.poplin_determinant"(%a) : (tensor<2x3x3xf32>) -> (tensor<f32>, tensor<2x3x3xf32>, tensor<2x3xi32>)
  return
}

// -----

func.func @pinv_shape(%a: tensor<4x3xf32>, %t: tensor<f32>) {
  // expected-error@+1 {{'poplar.poplin_pseudo_inverse' op result shape must be [3, 4], got [4, 3]}}
  %p = "poplar.poplin_pseudo_inverse"(%a, %t, %t) {hermitian = false} : (tensor<4x3xf32>, tensor<f32>, tensor<f32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @pinv_hermitian_square(%a: tensor<4x3xf32>, %t: tensor<f32>) {
  // expected-error@+1 {{'poplar.poplin_pseudo_inverse' op input must be square, got shape [4, 3]}}
  %p = "poplar.poplin_pseudo_inverse"(%a, %t, %t) {hermitian = true} : (tensor<4x3xf32>, tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @householder_tau(%a: tensor<4x3xf32>, %tau: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.poplin_householder_product' op tau shape must be ['k'] with k <= 3, got [4]}}
  %q = "poplar.poplin_householder_product"(%a, %tau) : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return
}

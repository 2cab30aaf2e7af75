// RUN: ipu-opt %s -p convert-torch-to-poplar --split-input-file --verify-diagnostics | FileCheck %s

// The linalg family (convert_torch_to_poplar/linalg.py): the ATen linear algebra ops that
// survive decomposition become poplin_linalg / poplin_linalg_solve ops with ATen's
// parameters and results, and what is refused, with why.

// triangular_solve(B, A, transpose=True): a solve by A^T, whose other triangle is read
// (upper becomes lower); A broadcast to the batch dims is the second result.
// CHECK-LABEL: sym_name = "triangular_solve_transpose"
// CHECK: %[[T:.*]] = "poplar.dim_shuffle"(%arg1) {permutation = array<i64: 1, 0>} : (tensor<3x3xf32>) -> tensor<3x3xf32>
// CHECK: "poplar.poplin_triangular_solve"(%[[T]], %arg0) {left = true, unitriangular = false, upper = false} : (tensor<3x3xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
// CHECK: "poplar.broadcast"(%arg1) {{.*}} -> tensor<2x3x3xf32>
func.func @triangular_solve_transpose(%b: !torch.vtensor<[2,3,2],f32>, %a: !torch.vtensor<[3,3],f32>) -> (!torch.vtensor<[2,3,2],f32>, !torch.vtensor<[2,3,3],f32>) {
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %0:2 = torch.operator "torch.aten.triangular_solve"(%b, %a, %true, %true, %false) : (!torch.vtensor<[2,3,2],f32>, !torch.vtensor<[3,3],f32>, !torch.bool, !torch.bool, !torch.bool) -> (!torch.vtensor<[2,3,2],f32>, !torch.vtensor<[2,3,3],f32>)
  return %0#0, %0#1 : !torch.vtensor<[2,3,2],f32>, !torch.vtensor<[2,3,3],f32>
}

// -----

// linalg.solve reaches the lowering as _linalg_solve_ex (the capture drops the error check):
// one op with the solution, the LU factorisation and the info codes; a vector right-hand side
// broadcast against the batch.
// CHECK-LABEL: sym_name = "solve_vector"
// CHECK: "poplar.poplin_solve"(%arg0, %arg1) {left = true} : (tensor<2x3x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3x3xf32>, tensor<2x3xi32>, tensor<2xi32>)
func.func @solve_vector(%a: !torch.vtensor<[2,3,3],f32>, %b: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],f32> {
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %0:4 = torch.operator "torch.aten._linalg_solve_ex"(%a, %b, %true, %false) : (!torch.vtensor<[2,3,3],f32>, !torch.vtensor<[3],f32>, !torch.bool, !torch.bool) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3,3],f32>, !torch.vtensor<[2,3],si32>, !torch.vtensor<[2],si32>)
  return %0#0 : !torch.vtensor<[2,3],f32>
}

// -----

// pinv without tolerances: torch's defaults written out, atol 0 and rtol eps * max(m, n).
// CHECK-LABEL: sym_name = "pinv_defaults"
// CHECK: %[[ATOL:.*]] = "poplar.constant"() {{.*}}dense<0.000000e+00> : tensor<f32>
// CHECK: %[[RTOL:.*]] = "poplar.constant"() {{.*}}dense<4.76837158E-7> : tensor<f32>
// CHECK: "poplar.poplin_pseudo_inverse"(%arg0, %[[ATOL]], %[[RTOL]]) {hermitian = false} : (tensor<4x3xf32>, tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
func.func @pinv_defaults(%a: !torch.vtensor<[4,3],f32>) -> !torch.vtensor<[3,4],f32> {
  %none = torch.constant.none
  %false = torch.constant.bool false
  %0 = torch.operator "torch.aten.linalg_pinv.atol_rtol_tensor"(%a, %none, %none, %false) : (!torch.vtensor<[4,3],f32>, !torch.none, !torch.none, !torch.bool) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}

// -----

// linalg.lu: the factorisation, then its unpacking (as ATen computes it).
// CHECK-LABEL: sym_name = "lu"
// CHECK: %[[F:.*]]:3 = "poplar.poplin_lu_factor"(%arg0) {pivot = true} : (tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3xi32>, tensor<i32>)
// CHECK: "poplar.poplin_lu_unpack"(%[[F]]#0, %[[F]]#1) {unpack_data = true, unpack_pivots = true} : (tensor<3x4xf32>, tensor<3xi32>) -> (tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x4xf32>)
func.func @lu(%a: !torch.vtensor<[3,4],f32>) -> (!torch.vtensor<[3,3],f32>, !torch.vtensor<[3,3],f32>, !torch.vtensor<[3,4],f32>) {
  %true = torch.constant.bool true
  %0:3 = torch.operator "torch.aten.linalg_lu"(%a, %true) : (!torch.vtensor<[3,4],f32>, !torch.bool) -> (!torch.vtensor<[3,3],f32>, !torch.vtensor<[3,3],f32>, !torch.vtensor<[3,4],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[3,3],f32>, !torch.vtensor<[3,3],f32>, !torch.vtensor<[3,4],f32>
}

// -----

func.func @lu_without_pivoting(%a: !torch.vtensor<[3,3],f32>) -> !torch.vtensor<[3,3],f32> {
  %false = torch.constant.bool false
  // expected-error@+1 {{'torch.aten.linalg_lu_factor_ex' cannot be lowered to the poplar dialect: LU without pivoting (pivot=False) is not supported (eager refuses it on the CPU too): use pivot=True}}
  %0:3 = torch.operator "torch.aten.linalg_lu_factor_ex"(%a, %false, %false) : (!torch.vtensor<[3,3],f32>, !torch.bool, !torch.bool) -> (!torch.vtensor<[3,3],f32>, !torch.vtensor<[3],si32>, !torch.vtensor<[],si32>)
  return %0#0 : !torch.vtensor<[3,3],f32>
}

// -----

func.func @svd_driver(%a: !torch.vtensor<[4,3],f32>) -> !torch.vtensor<[3],f32> {
  %false = torch.constant.bool false
  %true = torch.constant.bool true
  %driver = torch.constant.str "gesvd"
  // expected-error@+1 {{'torch.aten._linalg_svd' cannot be lowered to the poplar dialect: svd driver 'gesvd' (a cuSOLVER choice; leave driver=None)}}
  %0:3 = torch.operator "torch.aten._linalg_svd"(%a, %false, %true, %driver) : (!torch.vtensor<[4,3],f32>, !torch.bool, !torch.bool, !torch.str) -> (!torch.vtensor<[4,3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3,3],f32>)
  return %0#1 : !torch.vtensor<[3],f32>
}

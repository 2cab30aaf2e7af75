// RUN: not ipu-opt %s -p poplar-build-program --split-input-file 2>&1 >/dev/null | FileCheck %s
// RUN: not ipu-opt %s -p 'poplar-build-program{device-iterations=4 output-mode=every_n return-period=3}' --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=PERIOD
// RUN: not ipu-opt %s -p 'poplar-build-program{device-iterations=0 output-mode=last}' --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=OPTIONS

// Bad options are reported before anything is built, all of them, against the module.
// PERIOD: error: poplar-build-program: return-period 3 must be >= 1 and divide device-iterations 4
// PERIOD-NOT: argument #0
// PERIOD-NOT: is not a poplar op
// OPTIONS-DAG: error: poplar-build-program: device-iterations must be >= 1, got 0
// OPTIONS-DAG: error: poplar-build-program: output-mode must be one of all, final, sum, every_n, got 'last'

// The frontend names every argument; an argument without ipu.kind is an error at the function.
// CHECK: poplar-build-program-invalid.mlir:[[# @LINE + 1]]:1: error: argument #0 has no 'ipu.name' / 'ipu.kind' attributes (set by the frontend)
func.func @main(%arg0: tensor<3xf32> {ipu.name = "w"}, %arg1: tensor<3xf32> {ipu.kind = "input", ipu.name = "x"}) -> tensor<3xf32> {
  return %arg1 : tensor<3xf32>
}

// -----

// CHECK: poplar-build-program-invalid.mlir:[[# @LINE + 1]]:1: error: argument #0 has no 'ipu.name' / 'ipu.kind' attributes (set by the frontend)
func.func @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  return %arg0 : tensor<3xf32>
}

// -----

// CHECK: poplar-build-program-invalid.mlir:[[# @LINE + 1]]:1: error: argument #0 has unknown kind 'activation' (expected one of parameter, buffer, constant, input, hyper, optimizer_state, accumulator)
func.func @main(%arg0: tensor<3xf32> {ipu.kind = "activation", ipu.name = "w"}) -> tensor<3xf32> {
  return %arg0 : tensor<3xf32>
}

// -----

// Ops that are not poplar ops (convert-torch-to-poplar did not run, or left some):
// every one is reported at its location.
// CHECK-DAG: poplar-build-program-invalid.mlir:[[# @LINE + 4]]:8: error: 'arith.addf' is not a poplar op; run convert-torch-to-poplar first
// CHECK-DAG: poplar-build-program-invalid.mlir:[[# @LINE + 4]]:8: error: 'arith.mulf' is not a poplar op; run convert-torch-to-poplar first
func.func @main(%arg0: tensor<3xf32> {ipu.kind = "input", ipu.name = "x"}) -> tensor<3xf32> {
  %0 = "poplar.popops_add"(%arg0, %arg0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = arith.addf %0, %0 : tensor<3xf32>
  %2 = arith.mulf %1, %1 : tensor<3xf32>
  return %2 : tensor<3xf32>
}

// -----

// The program is built from exactly one function.
// CHECK: error: poplar-build-program expects one func.func, or @main and @update; found @main, @other
func.func @main(%arg0: tensor<3xf32> {ipu.kind = "input", ipu.name = "x"}) -> tensor<3xf32> {
  return %arg0 : tensor<3xf32>
}
func.func @other(%arg0: tensor<3xf32> {ipu.kind = "input", ipu.name = "x"}) -> tensor<3xf32> {
  return %arg0 : tensor<3xf32>
}

// RUN: not ipu-opt %s -p poplar-build-program --split-input-file 2>&1 >/dev/null | FileCheck %s
// RUN: not ipu-opt %s -p 'poplar-build-program{device-iterations=4 output-mode=every_n return-period=3}' --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=PERIOD
// RUN: not ipu-opt %s -p 'poplar-build-program{device-iterations=3 gradient-accumulation=2 output-mode=every_n return-period=4}' --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=PERIOD-ACC
// RUN: not ipu-opt %s -p 'poplar-build-program{device-iterations=3 gradient-accumulation=4 output-mode=every_n return-period=6}' --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=PERIOD-G
// RUN: not ipu-opt %s -p 'poplar-build-program{device-iterations=0 gradient-accumulation=0 output-mode=last}' --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=OPTIONS

// Bad options are reported before anything is built, all of them, against the module.
// The return period counts steps (micro-batches): it must divide device-iterations x
// gradient-accumulation, and divide G or be a multiple of it (an output is streamed
// within an update period, or once every whole number of them).
// PERIOD: error: poplar-build-program: return-period 3 must be >= 1 and divide device-iterations x gradient-accumulation = 4
// PERIOD-NOT: argument #0
// PERIOD-NOT: is not a poplar op
// PERIOD-ACC: error: poplar-build-program: return-period 4 must be >= 1 and divide device-iterations x gradient-accumulation = 6
// PERIOD-ACC-NOT: gradient-accumulation 2 or be a multiple
// PERIOD-ACC-NOT: argument #0
// PERIOD-G: error: poplar-build-program: return-period 6 must divide gradient-accumulation 4 or be a multiple of it
// PERIOD-G-NOT: device-iterations x gradient-accumulation
// PERIOD-G-NOT: argument #0
// OPTIONS-DAG: error: poplar-build-program: device-iterations must be >= 1, got 0
// OPTIONS-DAG: error: poplar-build-program: gradient-accumulation must be >= 1, got 0
// OPTIONS-DAG: error: poplar-build-program: output-mode must be one of all, final, sum, every_n, got 'last'

// The frontend gives every argument a role; an argument without ipu.role is an error at the function.
// CHECK: poplar-build-program-invalid.mlir:[[# @LINE + 1]]:1: error: argument #0 has no 'ipu.role' (set by the frontend)
func.func @main(%arg0: tensor<3xf32> {ipu.name = "w"}, %arg1: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> tensor<3xf32> {
  return %arg1 : tensor<3xf32>
}

// -----

// CHECK: poplar-build-program-invalid.mlir:[[# @LINE + 1]]:1: error: argument #0 has no 'ipu.role' (set by the frontend)
func.func @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  return %arg0 : tensor<3xf32>
}

// -----

// A role kind is one of RoleKind's; the error lists them.
// CHECK: poplar-build-program-invalid.mlir:[[# @LINE + 1]]:1: error: argument #0: 'ipu.role' kind must be one of: parameter, buffer, constant, input, loss_grad, hyper, optimizer_state, accumulator, buffer_update, loss, output, grad, weight_update, state_update, accumulator_update; got "activation"
func.func @main(%arg0: tensor<3xf32> {ipu.role = #ipu.role<"activation", "w">}) -> tensor<3xf32> {
  return %arg0 : tensor<3xf32>
}

// -----

// A result's kind on an argument is an error too.
// CHECK: poplar-build-program-invalid.mlir:[[# @LINE + 1]]:1: error: argument #0 has kind 'weight_update', which is not an argument's (expected one of parameter, buffer, constant, input, hyper, optimizer_state, accumulator)
func.func @main(%arg0: tensor<3xf32> {ipu.role = #ipu.role<"weight_update", "w">}) -> tensor<3xf32> {
  return %arg0 : tensor<3xf32>
}

// -----

// Ops that are not poplar ops (convert-torch-to-poplar did not run, or left some):
// every one is reported at its location.
// CHECK-DAG: poplar-build-program-invalid.mlir:[[# @LINE + 4]]:8: error: 'arith.addf' is not a poplar op; run convert-torch-to-poplar first
// CHECK-DAG: poplar-build-program-invalid.mlir:[[# @LINE + 4]]:8: error: 'arith.mulf' is not a poplar op; run convert-torch-to-poplar first
func.func @main(%arg0: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> tensor<3xf32> {
  %0 = "poplar.popops_add"(%arg0, %arg0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = arith.addf %0, %0 : tensor<3xf32>
  %2 = arith.mulf %1, %1 : tensor<3xf32>
  return %2 : tensor<3xf32>
}

// -----

// The program is built from exactly one function.
// CHECK: error: poplar-build-program expects one func.func, or @main and @update; found @main, @other
func.func @main(%arg0: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> tensor<3xf32> {
  return %arg0 : tensor<3xf32>
}
func.func @other(%arg0: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> tensor<3xf32> {
  return %arg0 : tensor<3xf32>
}

// -----

// With gradient accumulation the module holds @main (the step) and @update (the
// optimizer). @update runs once per G steps and has no host stream: every one of its
// results must write a variable (weight_update, state_update, accumulator_update...).
// CHECK: poplar-build-program-invalid.mlir:[[# @LINE + 6]]:1: error: @update may only update variables; 1 results have no variable role
func.func @main(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}, %acc: tensor<3xf32> {ipu.role = #ipu.role<"accumulator", "w/accum">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"output", "0">}, tensor<3xf32> {ipu.role = #ipu.role<"accumulator_update", "w/accum">}) {
  %0 = "poplar.popops_map"(%w, %x) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = "poplar.popops_map"(%acc, %x) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
func.func @update(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %acc: tensor<3xf32> {ipu.role = #ipu.role<"accumulator", "w/accum">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"weight_update", "w">}, tensor<3xf32> {ipu.role = #ipu.role<"output", "1">}) {
  %0 = "poplar.popops_map"(%w, %acc) {expr = "sub(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %0 : tensor<3xf32>, tensor<3xf32>
}

// -----

// The two functions share variables by name, so a name must have one type in both.
// CHECK: poplar-build-program-invalid.mlir:[[# @LINE + 6]]:1: error: argument 'w/accum' has type tensor<2xf32> here but tensor<3xf32> in another function
func.func @main(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}, %acc: tensor<3xf32> {ipu.role = #ipu.role<"accumulator", "w/accum">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"output", "0">}, tensor<3xf32> {ipu.role = #ipu.role<"accumulator_update", "w/accum">}) {
  %0 = "poplar.popops_map"(%w, %x) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = "poplar.popops_map"(%acc, %x) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
func.func @update(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %acc: tensor<2xf32> {ipu.role = #ipu.role<"accumulator", "w/accum">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"weight_update", "w">}) {
  return %w : tensor<3xf32>
}

// -----

// An update in @update must name a variable of the program (an argument of either
// function); the error is at @update.
// CHECK: poplar-build-program-invalid.mlir:[[# @LINE + 6]]:1: error: a result updates 'w/velocity', which is not an argument of the function
func.func @main(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}, %acc: tensor<3xf32> {ipu.role = #ipu.role<"accumulator", "w/accum">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"output", "0">}, tensor<3xf32> {ipu.role = #ipu.role<"accumulator_update", "w/accum">}) {
  %0 = "poplar.popops_map"(%w, %x) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = "poplar.popops_map"(%acc, %x) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
func.func @update(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %acc: tensor<3xf32> {ipu.role = #ipu.role<"accumulator", "w/accum">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"weight_update", "w">}, tensor<3xf32> {ipu.role = #ipu.role<"state_update", "w/velocity">}) {
  return %w, %acc : tensor<3xf32>, tensor<3xf32>
}

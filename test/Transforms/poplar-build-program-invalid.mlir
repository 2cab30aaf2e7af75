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

// -----

// With gradient accumulation the module holds @main (the step) and @update (the
// optimizer). @update runs once per G steps and has no host stream: every one of its
// results must write a variable (weight_update, state_update, accumulator_update...).
// CHECK: poplar-build-program-invalid.mlir:[[# @LINE + 6]]:1: error: @update may only update variables; 1 results have no variable role
func.func @main(%w: tensor<3xf32> {ipu.kind = "parameter", ipu.name = "w"}, %x: tensor<3xf32> {ipu.kind = "input", ipu.name = "x"}, %acc: tensor<3xf32> {ipu.kind = "accumulator", ipu.name = "w/accum"}) -> (tensor<3xf32> {ipu.kind = "output", ipu.name = "0"}, tensor<3xf32> {ipu.kind = "accumulator_update", ipu.name = "w/accum"}) {
  %0 = "poplar.popops_map"(%w, %x) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = "poplar.popops_map"(%acc, %x) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
func.func @update(%w: tensor<3xf32> {ipu.kind = "parameter", ipu.name = "w"}, %acc: tensor<3xf32> {ipu.kind = "accumulator", ipu.name = "w/accum"}) -> (tensor<3xf32> {ipu.kind = "weight_update", ipu.name = "w"}, tensor<3xf32> {ipu.kind = "output", ipu.name = "1"}) {
  %0 = "poplar.popops_map"(%w, %acc) {expr = "sub(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %0 : tensor<3xf32>, tensor<3xf32>
}

// -----

// The two functions share variables by name, so a name must have one type in both.
// CHECK: poplar-build-program-invalid.mlir:[[# @LINE + 6]]:1: error: argument 'w/accum' has type tensor<2xf32> here but tensor<3xf32> in another function
func.func @main(%w: tensor<3xf32> {ipu.kind = "parameter", ipu.name = "w"}, %x: tensor<3xf32> {ipu.kind = "input", ipu.name = "x"}, %acc: tensor<3xf32> {ipu.kind = "accumulator", ipu.name = "w/accum"}) -> (tensor<3xf32> {ipu.kind = "output", ipu.name = "0"}, tensor<3xf32> {ipu.kind = "accumulator_update", ipu.name = "w/accum"}) {
  %0 = "poplar.popops_map"(%w, %x) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = "poplar.popops_map"(%acc, %x) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
func.func @update(%w: tensor<3xf32> {ipu.kind = "parameter", ipu.name = "w"}, %acc: tensor<2xf32> {ipu.kind = "accumulator", ipu.name = "w/accum"}) -> (tensor<3xf32> {ipu.kind = "weight_update", ipu.name = "w"}) {
  return %w : tensor<3xf32>
}

// -----

// An update in @update must name a variable of the program (an argument of either
// function); the error is at @update.
// CHECK: poplar-build-program-invalid.mlir:[[# @LINE + 6]]:1: error: a result updates 'w/velocity', which is not an argument of the function
func.func @main(%w: tensor<3xf32> {ipu.kind = "parameter", ipu.name = "w"}, %x: tensor<3xf32> {ipu.kind = "input", ipu.name = "x"}, %acc: tensor<3xf32> {ipu.kind = "accumulator", ipu.name = "w/accum"}) -> (tensor<3xf32> {ipu.kind = "output", ipu.name = "0"}, tensor<3xf32> {ipu.kind = "accumulator_update", ipu.name = "w/accum"}) {
  %0 = "poplar.popops_map"(%w, %x) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = "poplar.popops_map"(%acc, %x) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
func.func @update(%w: tensor<3xf32> {ipu.kind = "parameter", ipu.name = "w"}, %acc: tensor<3xf32> {ipu.kind = "accumulator", ipu.name = "w/accum"}) -> (tensor<3xf32> {ipu.kind = "weight_update", ipu.name = "w"}, tensor<3xf32> {ipu.kind = "state_update", ipu.name = "w/velocity"}) {
  return %w, %acc : tensor<3xf32>, tensor<3xf32>
}

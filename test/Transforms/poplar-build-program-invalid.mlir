// RUN: ipu-opt %s -p poplar-build-program --split-input-file --verify-diagnostics

// Errors in the functions poplar-build-program builds the graph from, each at the function
// (or the op) at fault. Bad options: poplar-build-program-options-invalid.mlir.

// The frontend gives every argument a role; an argument without ipu.role is an error at the function.
// expected-error @+1 {{argument #0 has no 'ipu.role' (set by the frontend)}}
func.func @main(%arg0: tensor<3xf32> {ipu.name = "w"}, %arg1: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> tensor<3xf32> {
  return %arg1 : tensor<3xf32>
}

// -----

// expected-error @+1 {{argument #0 has no 'ipu.role' (set by the frontend)}}
func.func @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  return %arg0 : tensor<3xf32>
}

// -----

// A role kind is one of RoleKind's; the error lists them.
// expected-error @+1 {{argument #0: 'ipu.role' kind must be one of: parameter, buffer, constant, input, loss_grad, hyper, optimizer_state, accumulator, buffer_update, loss, output, input_update, grad, anchor, weight_update, state_update, accumulator_update; got "activation"}}
func.func @main(%arg0: tensor<3xf32> {ipu.role = #ipu.role<"activation", "w">}) -> tensor<3xf32> {
  return %arg0 : tensor<3xf32>
}

// -----

// A buffer without a name: its variable would have no name (issue 20: an internal KeyError).
// expected-error @+1 {{argument #0 (buffer) has an empty name in its 'ipu.role'; its device variable and host stream are named after it: give every argument a unique name}}
func.func @main(%arg0: tensor<3xf32> {ipu.role = #ipu.role<"buffer", "">}, %arg1: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> tensor<3xf32> {
  return %arg1 : tensor<3xf32>
}

// -----

// Two arguments of one function with one name would share one device variable.
// expected-error @+1 {{arguments #0 and #1 are both named 'w'; each names its own device variable: give every argument a unique name}}
func.func @main(%arg0: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %arg1: tensor<3xf32> {ipu.role = #ipu.role<"buffer", "w">}) -> tensor<3xf32> {
  return %arg1 : tensor<3xf32>
}

// -----

// A result's kind on an argument is an error too.
// expected-error @+1 {{argument #0 has kind 'weight_update', which is not an argument's (expected one of parameter, buffer, constant, input, hyper, optimizer_state, accumulator)}}
func.func @main(%arg0: tensor<3xf32> {ipu.role = #ipu.role<"weight_update", "w">}) -> tensor<3xf32> {
  return %arg0 : tensor<3xf32>
}

// -----

// Ops that are not poplar ops (convert-torch-to-poplar did not run, or left some):
// every one is reported at its location.
func.func @main(%arg0: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> tensor<3xf32> {
  %0 = "poplar.popops_add"(%arg0, %arg0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // expected-error @+1 {{'arith.addf' is not a poplar op; run convert-torch-to-poplar first}}
  %1 = arith.addf %0, %0 : tensor<3xf32>
  // expected-error @+1 {{'arith.mulf' is not a poplar op; run convert-torch-to-poplar first}}
  %2 = arith.mulf %1, %1 : tensor<3xf32>
  return %2 : tensor<3xf32>
}

// -----

// The program is built from exactly one function: an error at the module.
// expected-error @+1 {{poplar-build-program expects one func.func, or @main and @update; found @main, @other}}
module {
  func.func @main(%arg0: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> tensor<3xf32> {
    return %arg0 : tensor<3xf32>
  }
  func.func @other(%arg0: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> tensor<3xf32> {
    return %arg0 : tensor<3xf32>
  }
}

// -----

// With gradient accumulation the module holds @main (the step) and @update (the
// optimizer). @update runs once per G steps and has no host stream: every one of its
// results must write a variable (weight_update, state_update, accumulator_update...).
func.func @main(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}, %acc: tensor<3xf32> {ipu.role = #ipu.role<"accumulator", "w/accum">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"output", "0">}, tensor<3xf32> {ipu.role = #ipu.role<"accumulator_update", "w/accum">}) {
  %0 = "poplar.popops_map"(%w, %x) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = "poplar.popops_map"(%acc, %x) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
// expected-error @+1 {{@update may only update variables; 1 results have no variable role}}
func.func @update(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %acc: tensor<3xf32> {ipu.role = #ipu.role<"accumulator", "w/accum">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"weight_update", "w">}, tensor<3xf32> {ipu.role = #ipu.role<"output", "1">}) {
  %0 = "poplar.popops_map"(%w, %acc) {expr = "sub(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %0 : tensor<3xf32>, tensor<3xf32>
}

// -----

// The two functions share variables by name, so a name must have one type in both.
func.func @main(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}, %acc: tensor<3xf32> {ipu.role = #ipu.role<"accumulator", "w/accum">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"output", "0">}, tensor<3xf32> {ipu.role = #ipu.role<"accumulator_update", "w/accum">}) {
  %0 = "poplar.popops_map"(%w, %x) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = "poplar.popops_map"(%acc, %x) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
// expected-error @+1 {{argument 'w/accum' has type tensor<2xf32> here but tensor<3xf32> in another function}}
func.func @update(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %acc: tensor<2xf32> {ipu.role = #ipu.role<"accumulator", "w/accum">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"weight_update", "w">}) {
  return %w : tensor<3xf32>
}

// -----

// An update in @update must name a variable of the program (an argument of either
// function); the error is at @update.
func.func @main(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}, %acc: tensor<3xf32> {ipu.role = #ipu.role<"accumulator", "w/accum">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"output", "0">}, tensor<3xf32> {ipu.role = #ipu.role<"accumulator_update", "w/accum">}) {
  %0 = "poplar.popops_map"(%w, %x) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = "poplar.popops_map"(%acc, %x) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
// expected-error @+1 {{a result updates 'w/velocity', which is not an argument of the function}}
func.func @update(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %acc: tensor<3xf32> {ipu.role = #ipu.role<"accumulator", "w/accum">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"weight_update", "w">}, tensor<3xf32> {ipu.role = #ipu.role<"state_update", "w/velocity">}) {
  return %w, %acc : tensor<3xf32>, tensor<3xf32>
}

// -----

// The #pipeline.plan of ipu-assign-stages is read at the function; a schedule kind is
// one of ScheduleKind's, and the error lists them.
// expected-error @+1 {{'pipeline.plan' kind must be one of: sharded, pipelined, phased_serial, phased_parallel; got "interleaved"}}
func.func @main(%x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> tensor<3xf32> attributes {pipeline.plan = #pipeline.plan<"interleaved", 1 : i64, 1 : i64, 1 : i64, array<i64>>} {
  return %x : tensor<3xf32>
}

// -----

// The untyped dictionary of earlier versions is not a plan.
// expected-error @+1 {{'pipeline.plan' must be a #pipeline.plan<kind, forward_stages, num_stages, num_ipus, stage_ipus>, got {forward_stages = 1 : i64, kind = "pipelined", num_ipus = 1 : i64, num_stages = 1 : i64}}}
func.func @main(%x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> tensor<3xf32> attributes {pipeline.plan = {kind = "pipelined", forward_stages = 1 : i64, num_stages = 1 : i64, num_ipus = 1 : i64}} {
  return %x : tensor<3xf32>
}

// -----

// A plan's stage counts must agree: forward stages are at most all stages.
// expected-error @+1 {{'pipeline.plan' needs 1 <= forward_stages <= num_stages, got 3 and 2}}
func.func @main(%x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> tensor<3xf32> attributes {pipeline.plan = #pipeline.plan<"pipelined", 3 : i64, 2 : i64, 2 : i64, array<i64>>} {
  return %x : tensor<3xf32>
}

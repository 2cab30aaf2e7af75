// RUN: ipu-opt %s -p ipu-raise-custom-ops --split-input-file --verify-diagnostics | FileCheck %s

// Each poptorch:: custom op becomes its ipu op; its constant argument becomes an
// attribute, the torch.operator is gone and its users read the new op. (Input as the
// frontend captures it; errors are located at the op, so they live in this file.)
// CHECK-LABEL: sym_name = "main"
// CHECK: %[[LIN:.*]] = "torch.aten.linear"
// CHECK: %[[PRINT:.*]] = "ipu.print_tensor"(%[[LIN]]) {title = "act"} : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
// CHECK: %[[NOP:.*]] = "ipu.nop"(%[[PRINT]]) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
// CHECK: %[[MEM:.*]] = "ipu.set_available_memory"(%[[NOP]]) {proportion = 3.000000e-01 : f64}
// CHECK: %[[CKPT:.*]] = "ipu.recomputation_checkpoint"(%[[MEM]])
// CHECK: %[[LOSS:.*]] = "ipu.identity_loss"(%[[CKPT]]) {reduction = "mean"} : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[],f32>
// CHECK: "func.return"(%[[LOSS]])
// CHECK-NOT: torch.operator
func.func @main(%arg0: !torch.vtensor<[3,4],f32> {ipu.role = #ipu.role<"parameter", "l.weight">}, %arg1: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "l.bias">}, %arg2: !torch.vtensor<[2,4],f32> {ipu.role = #ipu.role<"input", "x">}) -> !torch.vtensor<[],f32> {
  %0 = torch.aten.linear %arg2, %arg0, %arg1 : !torch.vtensor<[2,4],f32>, !torch.vtensor<[3,4],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[2,3],f32>
  %str = torch.constant.str "act"
  %1 = torch.operator "torch.poptorch.ipu_print_tensor"(%0, %str) : (!torch.vtensor<[2,3],f32>, !torch.str) -> !torch.vtensor<[2,3],f32>
  %2 = torch.operator "torch.poptorch.nop"(%1) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
  %float3.000000e-01 = torch.constant.float 3.000000e-01
  %3 = torch.operator "torch.poptorch.set_available_memory"(%2, %float3.000000e-01) : (!torch.vtensor<[2,3],f32>, !torch.float) -> !torch.vtensor<[2,3],f32>
  %4 = torch.operator "torch.poptorch.recomputation_checkpoint"(%3) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
  %str_0 = torch.constant.str "mean"
  %5 = torch.operator "torch.poptorch.identity_loss"(%4, %str_0) : (!torch.vtensor<[2,3],f32>, !torch.str) -> !torch.vtensor<[],f32>
  return %5 : !torch.vtensor<[],f32>
}

// -----

// identity_loss "sum" gives a scalar, "none" keeps the shape; a proportion of exactly
// 1 is allowed; other torch.operator ops (not poptorch::) are left alone.
// CHECK-LABEL: sym_name = "reductions"
// CHECK: "ipu.identity_loss"(%arg0) {reduction = "sum"} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[],f32>
// CHECK: "ipu.identity_loss"(%arg0) {reduction = "none"} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
// CHECK: "ipu.set_available_memory"(%arg0) {proportion = 1.000000e+00 : f64}
// CHECK: "torch.operator"(%arg0) <{name = "torch.aten.other_op"}>
func.func @reductions(%x: !torch.vtensor<[4],f32>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) {
  %sum = torch.constant.str "sum"
  %none = torch.constant.str "none"
  %one = torch.constant.int 1
  %0 = torch.operator "torch.poptorch.identity_loss"(%x, %sum) : (!torch.vtensor<[4],f32>, !torch.str) -> !torch.vtensor<[],f32>
  %1 = torch.operator "torch.poptorch.identity_loss"(%x, %none) : (!torch.vtensor<[4],f32>, !torch.str) -> !torch.vtensor<[4],f32>
  %2 = torch.operator "torch.poptorch.set_available_memory"(%x, %one) : (!torch.vtensor<[4],f32>, !torch.int) -> !torch.vtensor<[4],f32>
  %3 = torch.operator "torch.aten.other_op"(%x) : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  return %0, %1, %2, %3 : !torch.vtensor<[],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>
}

// -----

// The title is computed at run time (here a function argument): a located error.
func.func @computed_title(%x: !torch.vtensor<[2],f32>, %title: !torch.str) -> !torch.vtensor<[2],f32> {
  // expected-error@+1 {{poptorch.ipu_print_tensor: the title must be a constant, but it is a function argument}}
  %0 = torch.operator "torch.poptorch.ipu_print_tensor"(%x, %title) : (!torch.vtensor<[2],f32>, !torch.str) -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// A constant of the wrong type is an error too (a None title used to be skipped silently).
func.func @none_title(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %none = torch.constant.none
  // expected-error@+1 {{poptorch.ipu_print_tensor: the title must be a string, got None}}
  %0 = torch.operator "torch.poptorch.ipu_print_tensor"(%x, %none) : (!torch.vtensor<[2],f32>, !torch.none) -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// Every bad op of a function is reported in one run.
func.func @bad_reduction(%x: !torch.vtensor<[2],f32>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) {
  %max = torch.constant.str "max"
  %int = torch.constant.int 0
  // expected-error@+1 {{poptorch.identity_loss: reduction must be one of: sum, mean, none; got "max"}}
  %0 = torch.operator "torch.poptorch.identity_loss"(%x, %max) : (!torch.vtensor<[2],f32>, !torch.str) -> !torch.vtensor<[],f32>
  // expected-error@+1 {{poptorch.identity_loss: the reduction must be a string, got 0}}
  %1 = torch.operator "torch.poptorch.identity_loss"(%x, %int) : (!torch.vtensor<[2],f32>, !torch.int) -> !torch.vtensor<[],f32>
  return %0, %1 : !torch.vtensor<[],f32>, !torch.vtensor<[],f32>
}

// -----

// The proportion must be in (0, 1]: 0 and 1.5 are out of range, a string is not a number.
func.func @bad_proportion(%x: !torch.vtensor<[2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) {
  %zero = torch.constant.float 0.000000e+00
  %big = torch.constant.float 1.500000e+00
  %lots = torch.constant.str "lots"
  // expected-error@+1 {{poptorch.set_available_memory: proportion must be in (0, 1], got 0.0}}
  %0 = torch.operator "torch.poptorch.set_available_memory"(%x, %zero) : (!torch.vtensor<[2],f32>, !torch.float) -> !torch.vtensor<[2],f32>
  // expected-error@+1 {{poptorch.set_available_memory: proportion must be in (0, 1], got 1.5}}
  %1 = torch.operator "torch.poptorch.set_available_memory"(%x, %big) : (!torch.vtensor<[2],f32>, !torch.float) -> !torch.vtensor<[2],f32>
  // expected-error@+1 {{poptorch.set_available_memory: the proportion must be a number, got 'lots'}}
  %2 = torch.operator "torch.poptorch.set_available_memory"(%x, %lots) : (!torch.vtensor<[2],f32>, !torch.str) -> !torch.vtensor<[2],f32>
  return %0, %1, %2 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>
}

// -----

// A poptorch:: op this compiler does not know, and a known one with the wrong arity.
func.func @unknown_op(%x: !torch.vtensor<[2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) {
  // expected-error@+1 {{'poptorch::custom_op' is not a PopTorch op this compiler knows}}
  %0 = torch.operator "torch.poptorch.custom_op"(%x) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
  // expected-error@+1 {{poptorch.nop takes 1 operands and gives 1 result, got 2 and 1}}
  %1 = torch.operator "torch.poptorch.nop"(%x, %x) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
  return %0, %1 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>
}

// -----

// The full form of poptorch.ipu_print_tensor: title, print_gradient, then the layout. Values that
// differ from Poplar's defaults become the ipu.print_format dictionary; print_gradient is the
// frontend's (a second print in the backward graph) and leaves no attribute.
// CHECK-LABEL: sym_name = "print_layout"
// CHECK: "ipu.print_tensor"(%arg0) {ipu.print_format = {close_bracket = "]", digits = 2 : i64, float_format = "fixed", open_bracket = "["}, title = "t"}
// CHECK: "ipu.print_tensor"(%{{.*}}) {title = "d"}
func.func @print_layout(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %t = torch.constant.str "t"
  %d = torch.constant.str "d"
  %true = torch.constant.bool true
  %int1000 = torch.constant.int 1000
  %int3 = torch.constant.int 3
  %int75 = torch.constant.int 75
  %int2 = torch.constant.int 2
  %int8 = torch.constant.int 8
  %fixed = torch.constant.str "fixed"
  %auto = torch.constant.str "auto"
  %space = torch.constant.str " "
  %open = torch.constant.str "["
  %close = torch.constant.str "]"
  %lp = torch.constant.str "("
  %rp = torch.constant.str ")"
  %0 = torch.operator "torch.poptorch.ipu_print_tensor"(%x, %t, %true, %int1000, %int3, %int75, %int2, %fixed, %space, %open, %close) : (!torch.vtensor<[2],f32>, !torch.str, !torch.bool, !torch.int, !torch.int, !torch.int, !torch.int, !torch.str, !torch.str, !torch.str, !torch.str) -> !torch.vtensor<[2],f32>
  %1 = torch.operator "torch.poptorch.ipu_print_tensor"(%0, %d, %true, %int1000, %int3, %int75, %int8, %auto, %space, %lp, %rp) : (!torch.vtensor<[2],f32>, !torch.str, !torch.bool, !torch.int, !torch.int, !torch.int, !torch.int, !torch.str, !torch.str, !torch.str, !torch.str) -> !torch.vtensor<[2],f32>
  return %1 : !torch.vtensor<[2],f32>
}

// -----

func.func @print_bad_float_format(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %t = torch.constant.str "t"
  %true = torch.constant.bool true
  %int3 = torch.constant.int 3
  %bad = torch.constant.str "engineering"
  %s = torch.constant.str " "
  // expected-error@+1 {{poptorch.ipu_print_tensor: 'float_format' must be one of auto, fixed, scientific, none, got "engineering"}}
  %0 = torch.operator "torch.poptorch.ipu_print_tensor"(%x, %t, %true, %int3, %int3, %int3, %int3, %bad, %s, %s, %s) : (!torch.vtensor<[2],f32>, !torch.str, !torch.bool, !torch.int, !torch.int, !torch.int, !torch.int, !torch.str, !torch.str, !torch.str, !torch.str) -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}

// -----

func.func @print_wrong_arity(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %t = torch.constant.str "t"
  %true = torch.constant.bool true
  // expected-error@+1 {{poptorch.ipu_print_tensor takes 2 or 11 operands and gives 1 result, got 3 and 1}}
  %0 = torch.operator "torch.poptorch.ipu_print_tensor"(%x, %t, %true) : (!torch.vtensor<[2],f32>, !torch.str, !torch.bool) -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// set_overlap_for_input / _output and a MultiConv member: the mode and the plan become
// attributes; an unset member option (-1, "") gives no attribute.
// CHECK-LABEL: sym_name = "planning"
// CHECK: %[[IN:.*]] = "ipu.set_overlap"(%arg0) {direction = "input", mode = "overlap_accumulation_loop"}
// CHECK: %[[CONV:.*]] = "torch.aten.convolution"(%[[IN]]
// CHECK: %[[M0:.*]] = "ipu.multi_conv"(%[[CONV]]) {available_memory = 3.000000e-01 : f64, cycle_back_off = 5.000000e-01 : f64, enable_conv_dithering = true, group = 4 : i64, index = 0 : i64, partials_type = "half", per_conv_reserved_tiles = 8 : i64, plan_type = "parallel"}
// CHECK: %[[M1:.*]] = "ipu.multi_conv"(%[[M0]]) {group = 4 : i64, index = 1 : i64, plan_type = "serial"}
// CHECK: "ipu.set_overlap"(%[[M1]]) {direction = "output", mode = "overlap_device_iteration_loop"}
func.func @planning(%x: !torch.vtensor<[1,3,8,8],f32> {ipu.role = #ipu.role<"input", "x">}, %w: !torch.vtensor<[4,3,3,3],f32> {ipu.role = #ipu.role<"parameter", "w">}) -> !torch.vtensor<[1,4,8,8],f32> {
  %mode = torch.constant.str "overlap_accumulation_loop"
  %0 = torch.operator "torch.poptorch.set_overlap_for_input"(%x, %mode) : (!torch.vtensor<[1,3,8,8],f32>, !torch.str) -> !torch.vtensor<[1,3,8,8],f32>
  %none = torch.constant.none
  %false = torch.constant.bool false
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %ones = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %zeros = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.aten.convolution %0, %w, %none, %ones, %ones, %ones, %false, %zeros, %int1 : !torch.vtensor<[1,3,8,8],f32>, !torch.vtensor<[4,3,3,3],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int -> !torch.vtensor<[1,4,8,8],f32>
  %group = torch.constant.int 4
  %parallel = torch.constant.str "parallel"
  %memory = torch.constant.float 3.000000e-01
  %half = torch.constant.str "half"
  %tiles = torch.constant.int 8
  %back_off = torch.constant.float 5.000000e-01
  %2 = torch.operator "torch.poptorch.multi_conv"(%1, %group, %int0, %parallel, %memory, %half, %int1, %tiles, %back_off) : (!torch.vtensor<[1,4,8,8],f32>, !torch.int, !torch.int, !torch.str, !torch.float, !torch.str, !torch.int, !torch.int, !torch.float) -> !torch.vtensor<[1,4,8,8],f32>
  %serial = torch.constant.str "serial"
  %unset = torch.constant.int -1
  %unset_float = torch.constant.float -1.000000e+00
  %empty = torch.constant.str ""
  %3 = torch.operator "torch.poptorch.multi_conv"(%2, %group, %int1, %serial, %unset_float, %empty, %unset, %unset, %unset_float) : (!torch.vtensor<[1,4,8,8],f32>, !torch.int, !torch.int, !torch.str, !torch.float, !torch.str, !torch.int, !torch.int, !torch.float) -> !torch.vtensor<[1,4,8,8],f32>
  %out_mode = torch.constant.str "overlap_device_iteration_loop"
  %4 = torch.operator "torch.poptorch.set_overlap_for_output"(%3, %out_mode) : (!torch.vtensor<[1,4,8,8],f32>, !torch.str) -> !torch.vtensor<[1,4,8,8],f32>
  return %4 : !torch.vtensor<[1,4,8,8],f32>
}

// -----

func.func @unknown_overlap_mode(%x: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  %mode = torch.constant.str "always"
  // expected-error @+1 {{poptorch.set_overlap_for_input: mode must be one of: no_overlap, overlap_accumulation_loop, overlap_device_iteration_loop; got "always"}}
  %0 = torch.operator "torch.poptorch.set_overlap_for_input"(%x, %mode) : (!torch.vtensor<[4],f32>, !torch.str) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

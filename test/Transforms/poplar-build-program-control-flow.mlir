// RUN: ipu-opt %s -p poplar-build-program --split-input-file | FileCheck %s

// poptorch.for_loop / poptorch.cond (ipu.for_loop / ipu.if after convert-torch-to-poplar)
// become Poplar programs (compiler/device_control.py): one "loop" variable per carried
// value, result and value of the step a body reads; a poplar.function per body or
// branch; poplar.program_repeat / poplar.program_if calling them.

// The loop carries two values; the body returns (b, f(a, b)): the yield of carried value
// 0 is carried value 1, so it goes through a temporary, written before any carried
// variable is, and every copy reads the same iteration. The body reads a product computed in the step (copied to a captured variable
// before the loop), a weight (read directly) and a constant (cloned into the body).
// CHECK-LABEL: "poplar.graph"
// CHECK-DAG: %[[W:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w"
// CHECK-DAG: %[[X:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x"
// CHECK-DAG: %[[A0:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0"
// CHECK-DAG: %[[C0:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "loop", name = "step.loop0.carried.0"
// CHECK-DAG: %[[C1:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "loop", name = "step.loop0.carried.1"
// CHECK-DAG: %[[CAP:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "loop", name = "step.loop0.captured.0"
// CHECK-DAG: %[[N0:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "loop", name = "step.loop0.next.0"
// CHECK-DAG: %[[RES:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "loop", name = "step.cond1.result.0"
// The loop body: reads the variables, then copies through the temporaries.
// CHECK: "poplar.function"() ({
// CHECK-NEXT: %[[ONE:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<1.000000e+00> : tensor<4xf32>}
// CHECK-NEXT: %[[S:.*]] = "poplar.popops_add"(%[[C0]], %[[C1]])
// CHECK-NEXT: %[[T:.*]] = "poplar.popops_mul"(%[[S]], %[[CAP]])
// CHECK-NEXT: %[[U:.*]] = "poplar.popops_mul"(%[[T]], %[[W]])
// CHECK-NEXT: %[[V:.*]] = "poplar.popops_add"(%[[U]], %[[ONE]])
// CHECK-NEXT: "poplar.program_copy"(%[[C1]], %[[N0]])
// CHECK-NEXT: "poplar.program_copy"(%[[N0]], %[[C0]])
// CHECK-NEXT: "poplar.program_copy"(%[[V]], %[[C1]])
// CHECK-NEXT: }) {name = "step.loop0.body"}
// The branches copy their yields into the result variable.
// CHECK: "poplar.function"() ({
// CHECK-NEXT: %[[NEG:.*]] = "poplar.popops_map"(%[[C0]]) {expr = "neg(_1)"
// CHECK-NEXT: "poplar.program_copy"(%[[NEG]], %[[RES]])
// CHECK-NEXT: }) {name = "step.cond1.then"}
// CHECK: "poplar.function"() ({
// CHECK-NEXT: "poplar.program_copy"(%[[C1]], %[[RES]])
// CHECK-NEXT: }) {name = "step.cond1.else"}
// The step: initial values and the captured product copied in, the loop, the conditional
// on the device-computed condition, the result variable read afterwards.
// CHECK: "poplar.function"() ({
// CHECK: %[[P:.*]] = "poplar.popops_mul"(%[[X]], %[[X]])
// CHECK: "poplar.program_copy"(%[[X]], %[[C0]])
// CHECK-NEXT: "poplar.program_copy"(%[[P]], %[[C1]])
// CHECK-NEXT: "poplar.program_copy"(%[[P]], %[[CAP]])
// CHECK-NEXT: "poplar.program_repeat"() ({
// CHECK-NEXT: "poplar.program_call"() {callee = "step.loop0.body"}
// CHECK-NEXT: }) {count = 4 : i64}
// CHECK-NEXT: %[[SUM:.*]] = "poplar.popops_reduce"(%[[C0]])
// CHECK-NEXT: %[[COND:.*]] = "poplar.popops_map"(%[[SUM]]) {expr = "gt(_1, 0.0)"
// CHECK-NEXT: "poplar.program_if"(%[[COND]]) ({
// CHECK-NEXT: "poplar.program_call"() {callee = "step.cond1.then"}
// CHECK-NEXT: }, {
// CHECK-NEXT: "poplar.program_call"() {callee = "step.cond1.else"}
// CHECK-NEXT: }) : (tensor<i1>) -> ()
// CHECK-NEXT: "poplar.program_copy"(%[[RES]], %[[A0]])
// CHECK-NEXT: }) {name = "step"}
func.func @main(%w: tensor<4xf32> {ipu.role = #ipu.role<"parameter", "w">}, %x: tensor<4xf32> {ipu.role = #ipu.role<"input", "x">}) -> (tensor<4xf32> {ipu.role = #ipu.role<"output", "output.0">}) {
  %p = "poplar.popops_mul"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %one = "poplar.constant"() {value = dense<1.0> : tensor<4xf32>, ipu = 0 : i64} : () -> tensor<4xf32>
  "ipu.for_loop"() ({
    %a = "ipu.carried"(%x) {index = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %b = "ipu.carried"(%p) {index = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %s = "poplar.popops_add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %t = "poplar.popops_mul"(%s, %p) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %u = "poplar.popops_mul"(%t, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %v = "poplar.popops_add"(%u, %one) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "ipu.region_yield"(%b) {index = 0 : i64} : (tensor<4xf32>) -> ()
    "ipu.region_yield"(%v) {index = 1 : i64} : (tensor<4xf32>) -> ()
  }) {name = "loop0", count = 4 : i64, num_values = 2 : i64} : () -> ()
  %r0 = "ipu.region_result"() {region = "loop0", index = 0 : i64} : () -> tensor<4xf32>
  %r1 = "ipu.region_result"() {region = "loop0", index = 1 : i64} : () -> tensor<4xf32>
  %sum = "poplar.popops_reduce"(%r0) {op = "add", dims = array<i64: 0>, keep_dims = false, scale = 1.0 : f64} : (tensor<4xf32>) -> tensor<f32>
  %c = "poplar.popops_map"(%sum) {expr = "gt(_1, 0.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<f32>) -> tensor<i1>
  "ipu.if"(%c) ({
    %n = "poplar.popops_map"(%r0) {expr = "neg(_1)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>
    "ipu.region_yield"(%n) {index = 0 : i64} : (tensor<4xf32>) -> ()
  }, {
    "ipu.region_yield"(%r1) {index = 0 : i64} : (tensor<4xf32>) -> ()
  }) {name = "cond1", num_values = 1 : i64} : (tensor<i1>) -> ()
  %s = "ipu.region_result"() {region = "cond1", index = 0 : i64} : () -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// A body returning its carried value unchanged needs no copy; one returning only a
// view of another carried value goes through a temporary.
// CHECK-LABEL: "poplar.graph"
// CHECK: "poplar.function"() ({
// CHECK-NEXT: %[[V:.*]] = "poplar.reshape"(%[[C1:.*]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: "poplar.program_copy"(%[[V]], %[[N:.*]]) :
// CHECK-NEXT: "poplar.program_copy"(%[[N]], %[[C0:.*]]) :
// CHECK-NEXT: }) {name = "step.loop0.body"}
func.func @main(%x: tensor<4xf32> {ipu.role = #ipu.role<"input", "x">}) -> (tensor<4xf32> {ipu.role = #ipu.role<"output", "output.0">}) {
  "ipu.for_loop"() ({
    %a = "ipu.carried"(%x) {index = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %b = "ipu.carried"(%x) {index = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %v = "poplar.reshape"(%b) : (tensor<4xf32>) -> tensor<4xf32>
    "ipu.region_yield"(%v) {index = 0 : i64} : (tensor<4xf32>) -> ()
    "ipu.region_yield"(%b) {index = 1 : i64} : (tensor<4xf32>) -> ()
  }) {name = "loop0", count = 2 : i64, num_values = 2 : i64} : () -> ()
  %r = "ipu.region_result"() {region = "loop0", index = 0 : i64} : () -> tensor<4xf32>
  return %r : tensor<4xf32>
}

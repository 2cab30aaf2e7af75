// RUN: ipu-opt %s -p ipu-raise-custom-ops --split-input-file --verify-diagnostics | FileCheck %s

// poptorch.for_loop / poptorch.cond as the frontend captures them (the body traced once
// between begin and end markers, compiler/frontend/control_flow.py) become ipu.for_loop /
// ipu.if (compiler/control_flow.py): the ops that depend on the begin's results move into
// the region; ops that do not (here the product with the input y) stay before it.

// A loop carrying two values; the body reads a weight and a value computed before.
// CHECK-LABEL: sym_name = "loop"
// CHECK: %[[Y3:.*]] = "torch.aten.mul.Scalar"(%arg2
// CHECK: "ipu.for_loop"() ({
// CHECK-NEXT: %[[A:.*]] = "ipu.carried"(%arg1) {index = 0 : i64}
// CHECK-NEXT: %[[B:.*]] = "ipu.carried"(%arg2) {index = 1 : i64}
// CHECK-NEXT: %[[LIN:.*]] = "torch.aten.linear"(%[[A]], %arg0
// CHECK-NEXT: %[[ADD:.*]] = "torch.aten.add.Tensor"(%[[LIN]], %[[Y3]]
// CHECK-NEXT: "ipu.region_yield"(%[[ADD]]) {index = 0 : i64}
// CHECK-NEXT: "ipu.region_yield"(%[[B]]) {index = 1 : i64}
// CHECK-NEXT: }) {count = 5 : i64, name = "loop0", num_values = 2 : i64} : () -> ()
// CHECK-NEXT: %[[R0:.*]] = "ipu.region_result"() {index = 0 : i64, region = "loop0"} : () -> !torch.vtensor<[2,3],f32>
// CHECK-NEXT: %[[R1:.*]] = "ipu.region_result"() {index = 1 : i64, region = "loop0"} : () -> !torch.vtensor<[2,3],f32>
// CHECK: "func.return"(%{{.*}}, %[[R1]])
// CHECK-NOT: torch.operator
func.func @loop(%w: !torch.vtensor<[3,3],f32>, %x: !torch.vtensor<[2,3],f32>, %y: !torch.vtensor<[2,3],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) {
  %none = torch.constant.none
  %in = torch.prim.ListConstruct %x, %y : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) -> !torch.list<vtensor>
  %id = torch.constant.int 0
  %begin = torch.operator "torch.poptorch.for_loop_begin"(%in, %id) : (!torch.list<vtensor>, !torch.int) -> !torch.list<vtensor>
  %c:2 = torch.prim.ListUnpack %begin : !torch.list<vtensor> -> !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>
  %lin = torch.aten.linear %c#0, %w, %none : !torch.vtensor<[2,3],f32>, !torch.vtensor<[3,3],f32>, !torch.none -> !torch.vtensor<[2,3],f32>
  %int3 = torch.constant.int 3
  %y3 = torch.aten.mul.Scalar %y, %int3 : !torch.vtensor<[2,3],f32>, !torch.int -> !torch.vtensor<[2,3],f32>
  %int1 = torch.constant.int 1
  %add = torch.aten.add.Tensor %lin, %y3, %int1 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.int -> !torch.vtensor<[2,3],f32>
  %out = torch.prim.ListConstruct %add, %c#1 : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) -> !torch.list<vtensor>
  %count = torch.constant.int 5
  %end = torch.operator "torch.poptorch.for_loop_end"(%out, %id, %count) : (!torch.list<vtensor>, !torch.int, !torch.int) -> !torch.list<vtensor>
  %r:2 = torch.prim.ListUnpack %end : !torch.list<vtensor> -> !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>
  %s = torch.aten.add.Scalar %r#0, %int1, %int1 : !torch.vtensor<[2,3],f32>, !torch.int, !torch.int -> !torch.vtensor<[2,3],f32>
  return %s, %r#1 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>
}

// -----

// A conditional: each branch's ops go into its region; a branch returning its input
// yields the value it was given.
// CHECK-LABEL: sym_name = "conditional"
// CHECK: "ipu.if"(%arg1) ({
// CHECK-NEXT: %[[T:.*]] = "torch.aten.mul.Tensor"(%arg0, %arg0)
// CHECK-NEXT: "ipu.region_yield"(%[[T]]) {index = 0 : i64}
// CHECK-NEXT: }, {
// CHECK-NEXT: "ipu.region_yield"(%arg0) {index = 0 : i64}
// CHECK-NEXT: }) {name = "cond7", num_values = 1 : i64} : (!torch.vtensor<[],i1>) -> ()
// CHECK-NEXT: %[[R:.*]] = "ipu.region_result"() {index = 0 : i64, region = "cond7"} : () -> !torch.vtensor<[4],f32>
// CHECK-NEXT: "func.return"(%[[R]])
func.func @conditional(%x: !torch.vtensor<[4],f32>, %c: !torch.vtensor<[],i1>) -> !torch.vtensor<[4],f32> {
  %id = torch.constant.int 7
  %then = torch.constant.int 0
  %else = torch.constant.int 1
  %tin = torch.prim.ListConstruct %x : (!torch.vtensor<[4],f32>) -> !torch.list<vtensor>
  %tb = torch.operator "torch.poptorch.cond_begin"(%tin, %id, %then) : (!torch.list<vtensor>, !torch.int, !torch.int) -> !torch.list<vtensor>
  %t = torch.prim.ListUnpack %tb : !torch.list<vtensor> -> !torch.vtensor<[4],f32>
  %sq = torch.aten.mul.Tensor %t, %t : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
  %ein = torch.prim.ListConstruct %x : (!torch.vtensor<[4],f32>) -> !torch.list<vtensor>
  %eb = torch.operator "torch.poptorch.cond_begin"(%ein, %id, %else) : (!torch.list<vtensor>, !torch.int, !torch.int) -> !torch.list<vtensor>
  %e = torch.prim.ListUnpack %eb : !torch.list<vtensor> -> !torch.vtensor<[4],f32>
  %tout = torch.prim.ListConstruct %sq : (!torch.vtensor<[4],f32>) -> !torch.list<vtensor>
  %eout = torch.prim.ListConstruct %e : (!torch.vtensor<[4],f32>) -> !torch.list<vtensor>
  %end = torch.operator "torch.poptorch.cond_end"(%c, %tout, %eout, %id) : (!torch.vtensor<[],i1>, !torch.list<vtensor>, !torch.list<vtensor>, !torch.int) -> !torch.list<vtensor>
  %r = torch.prim.ListUnpack %end : !torch.list<vtensor> -> !torch.vtensor<[4],f32>
  return %r : !torch.vtensor<[4],f32>
}

// -----

// A value computed inside the body and read after the loop (outside the values the body
// returns) has no meaning: which iteration's? It is refused at the reader.
func.func @leaks(%x: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  %in = torch.prim.ListConstruct %x : (!torch.vtensor<[4],f32>) -> !torch.list<vtensor>
  %id = torch.constant.int 3
  %begin = torch.operator "torch.poptorch.for_loop_begin"(%in, %id) : (!torch.list<vtensor>, !torch.int) -> !torch.list<vtensor>
  %a = torch.prim.ListUnpack %begin : !torch.list<vtensor> -> !torch.vtensor<[4],f32>
  %sq = torch.aten.mul.Tensor %a, %a : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
  %out = torch.prim.ListConstruct %sq : (!torch.vtensor<[4],f32>) -> !torch.list<vtensor>
  %count = torch.constant.int 2
  %end = torch.operator "torch.poptorch.for_loop_end"(%out, %id, %count) : (!torch.list<vtensor>, !torch.int, !torch.int) -> !torch.list<vtensor>
  %r = torch.prim.ListUnpack %end : !torch.list<vtensor> -> !torch.vtensor<[4],f32>
  // expected-error@+1 {{poptorch.for_loop: this op reads a value computed inside the body, outside it; use the values the body returns}}
  %bad = torch.aten.mul.Tensor %r, %sq : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
  return %bad : !torch.vtensor<[4],f32>
}

// -----

// A body that does not read its inputs has no begin marker (the export drops it): the loop
// computes the same values in every iteration, so its results are the values the body
// returns and no loop is left. A branch without one has no ops of its own.
// CHECK-LABEL: sym_name = "no_begin"
// CHECK-NOT: ipu.for_loop
// CHECK: %[[Y2:.*]] = "torch.aten.mul.Tensor"(%arg1, %arg1)
// CHECK: "ipu.if"(%arg2) ({
// CHECK-NEXT: "ipu.region_yield"(%[[Y2]]) {index = 0 : i64}
// CHECK-NEXT: }, {
// CHECK-NEXT: %[[E:.*]] = "torch.aten.exp"(%arg0)
// CHECK-NEXT: "ipu.region_yield"(%[[E]]) {index = 0 : i64}
// CHECK-NEXT: })
// CHECK: "func.return"(%[[Y2]], %{{.*}})
func.func @no_begin(%x: !torch.vtensor<[4],f32>, %y: !torch.vtensor<[4],f32>, %c: !torch.vtensor<[],i1>) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) {
  %y2 = torch.aten.mul.Tensor %y, %y : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
  %out = torch.prim.ListConstruct %y2 : (!torch.vtensor<[4],f32>) -> !torch.list<vtensor>
  %id = torch.constant.int 4
  %count = torch.constant.int 3
  %end = torch.operator "torch.poptorch.for_loop_end"(%out, %id, %count) : (!torch.list<vtensor>, !torch.int, !torch.int) -> !torch.list<vtensor>
  %r = torch.prim.ListUnpack %end : !torch.list<vtensor> -> !torch.vtensor<[4],f32>
  %cid = torch.constant.int 5
  %else = torch.constant.int 1
  %ein = torch.prim.ListConstruct %x : (!torch.vtensor<[4],f32>) -> !torch.list<vtensor>
  %eb = torch.operator "torch.poptorch.cond_begin"(%ein, %cid, %else) : (!torch.list<vtensor>, !torch.int, !torch.int) -> !torch.list<vtensor>
  %e = torch.prim.ListUnpack %eb : !torch.list<vtensor> -> !torch.vtensor<[4],f32>
  %ex = torch.aten.exp %e : !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
  %tout = torch.prim.ListConstruct %y2 : (!torch.vtensor<[4],f32>) -> !torch.list<vtensor>
  %eout = torch.prim.ListConstruct %ex : (!torch.vtensor<[4],f32>) -> !torch.list<vtensor>
  %cend = torch.operator "torch.poptorch.cond_end"(%c, %tout, %eout, %cid) : (!torch.vtensor<[],i1>, !torch.list<vtensor>, !torch.list<vtensor>, !torch.int) -> !torch.list<vtensor>
  %s = torch.prim.ListUnpack %cend : !torch.list<vtensor> -> !torch.vtensor<[4],f32>
  return %r, %s : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>
}

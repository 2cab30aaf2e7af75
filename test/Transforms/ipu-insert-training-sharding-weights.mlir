// RUN: ipu-opt %s -p 'ipu-insert-training{replication-factor=2}' --split-input-file | FileCheck %s
// RUN: ipu-opt %s -p 'ipu-insert-training{replication-factor=2 gradient-accumulation=2}' --split-input-file | FileCheck %s --check-prefix=ACC

// Replicated tensor sharding of the weights (#poplar.tensor_locations: weight sharded = 1,
// minElementsForReplicatedTensorSharding 6) over R = 2 replicas, SGD with momentum. w (12
// elements) is sharded: its argument is the replica's part, tensor<[6]> with
// poplar.replica_shard<array<i64: 4, 3>, 2>, and so is its velocity (an update on parts needs
// parts of the state). Each pass gathers it once (ipu.replica_unshard) just before its first
// reader: the forward mm, and the backward pass, whose mm reads the forward view t = w^T and
// whose add reads t^T: both views are rebuilt from the backward gather (the forward t is gone,
// so the whole w is not held across the turn). The gradient is reduce-scattered and the update
// runs on the parts; the replica keeps its updated part (no gather after the update). b (3
// elements < 6) stays whole.
// CHECK-LABEL: "func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "w">, poplar.replica_shard = #poplar.replica_shard<array<i64: 4, 3>, 2 : i64>}, {ipu.role = #ipu.role<"parameter", "b">}, {ipu.role = #ipu.role<"input", "x">}, {ipu.role = #ipu.role<"hyper", "loss_scaling">}, {ipu.role = #ipu.role<"optimizer_state", "w/velocity">, poplar.replica_shard = #poplar.replica_shard<array<i64: 4, 3>, 2 : i64>}, {ipu.role = #ipu.role<"optimizer_state", "w/step">},
// CHECK-SAME: {ipu.role = #ipu.role<"optimizer_state", "b/velocity">}, {ipu.role = #ipu.role<"optimizer_state", "b/step">}]
// CHECK-SAME: -> (!torch.vtensor<[],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[6],f32>, !torch.vtensor<[6],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[3],f32>,
// CHECK: ^bb0(%[[W:arg[0-9]+]]: !torch.vtensor<[6],f32>, %[[B:arg[0-9]+]]: !torch.vtensor<[3],f32>, %[[X:arg[0-9]+]]: !torch.vtensor<[2,4],f32>, %{{.*}}: !torch.vtensor<[],f32>, %[[VW:arg[0-9]+]]: !torch.vtensor<[6],f32>,
// CHECK-NOT: "torch.aten.t"
// CHECK: %[[F:.*]] = "ipu.replica_unshard"(%[[W]]) {replication_factor = 2 : i64} : (!torch.vtensor<[6],f32>) -> !torch.vtensor<[4,3],f32>
// CHECK-NEXT: "torch.aten.mm"(%[[X]], %[[F]])
// CHECK: %[[G:.*]] = "torch.aten.mul.Tensor"
// CHECK-NEXT: %[[BW:.*]] = "ipu.replica_unshard"(%[[W]]) {replication_factor = 2 : i64} : (!torch.vtensor<[6],f32>) -> !torch.vtensor<[4,3],f32>
// CHECK-NEXT: %[[T:.*]] = "torch.aten.t"(%[[BW]]) : (!torch.vtensor<[4,3],f32>) -> !torch.vtensor<[3,4],f32>
// CHECK-NEXT: "torch.aten.mm"(%[[G]], %[[T]])
// CHECK-NEXT: "torch.aten.t"(%[[X]])
// CHECK-NEXT: %[[GW:.*]] = "torch.aten.mm"
// CHECK-NEXT: %[[TT:.*]] = "torch.aten.t"(%[[T]]) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[4,3],f32>
// CHECK-NEXT: %[[GW2:.*]] = "torch.aten.add.Tensor"(%[[GW]], %[[TT]],
// CHECK: %[[PG:.*]] = "ipu.replica_shard"(%[[GW2]]) {kind = "mean", replication_factor = 2 : i64} : (!torch.vtensor<[4,3],f32>) -> !torch.vtensor<[6],f32>
// CHECK-NEXT: "ipu.replica_reduce"
// CHECK-NEXT: %[[U:.*]]:3 = "ipu.sgd_update"(%[[W]], %[[PG]], %[[VW]],
// CHECK-SAME: -> (!torch.vtensor<[6],f32>, !torch.vtensor<[6],f32>, !torch.vtensor<[],f32>)
// CHECK-NEXT: "ipu.sgd_update"(%[[B]],
// CHECK-NEXT: "func.return"(%{{.*}}, %{{.*}}, %[[U]]#0, %[[U]]#1, %[[U]]#2,

// With gradient accumulation the step gathers w as above and accumulates whole gradients
// (the accumulator class is not sharded); @update reduce-scatters the accumulated gradient
// and updates w's part, which it keeps: its parameter argument and result are parts.
// ACC-LABEL: "func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "w">, poplar.replica_shard = #poplar.replica_shard<array<i64: 4, 3>, 2 : i64>}, {ipu.role = #ipu.role<"parameter", "b">}, {ipu.role = #ipu.role<"accumulator", "w/accum">}, {ipu.role = #ipu.role<"accumulator", "b/accum">}, {ipu.role = #ipu.role<"optimizer_state", "w/velocity">, poplar.replica_shard = #poplar.replica_shard<array<i64: 4, 3>, 2 : i64>}
// ACC-SAME: sym_name = "update"
// ACC: %[[PA:.*]] = "ipu.replica_shard"(%{{.*}}) {kind = "mean", replication_factor = 2 : i64} : (!torch.vtensor<[4,3],f32>) -> !torch.vtensor<[6],f32>
// ACC-NOT: ipu.replica_unshard
// ACC: "ipu.sgd_update"(%{{.*}}, %[[PA]],
// ACC-SAME: -> (!torch.vtensor<[6],f32>, !torch.vtensor<[6],f32>, !torch.vtensor<[],f32>)
// ACC-NOT: ipu.replica_unshard
// ACC: sym_name = "main"
// ACC: "ipu.replica_unshard"
// ACC: "ipu.replica_unshard"
// ACC-NOT: ipu.replica_
// ACC: "ipu.accumulate_grad"(%{{.*}}, %{{.*}}, %{{.*}}) {{.*}} : (!torch.vtensor<[4,3],f32>, !torch.vtensor<[4,3],f32>, !torch.vtensor<[],f32>)
// ACC: "func.return"

#fwd = loc(fused<{seq_nr = 1 : i64}>["m"])
#bwd = loc(fused<{bwd = true, seq_nr = 1 : i64}>["m"])
module attributes {poplar.tensor_locations = #poplar.tensor_locations<#poplar.tensor_location<-1 : i64, 2 : i64, 1 : i64, 6 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>>} {
func.func @main(%w: !torch.vtensor<[4,3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %b: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "b">}, %x: !torch.vtensor<[2,4],f32> {ipu.role = #ipu.role<"input", "x">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss", "0">}, !torch.vtensor<[2,4],f32> {ipu.role = #ipu.role<"output", "1">}, !torch.vtensor<[4,3],f32> {ipu.role = #ipu.role<"grad", "w">}, !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "b">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {nesterov = false, variant = "separate", with_momentum = true}, 1 : i64, {}, {}, []>} {
  %none = torch.constant.none loc(#fwd)
  %int1 = torch.constant.int 1 loc(#fwd)
  %t = torch.aten.t %w : !torch.vtensor<[4,3],f32> -> !torch.vtensor<[3,4],f32> loc(#fwd)
  %y = torch.aten.mm %x, %w : !torch.vtensor<[2,4],f32>, !torch.vtensor<[4,3],f32> -> !torch.vtensor<[2,3],f32> loc(#fwd)
  %o = torch.aten.add.Tensor %y, %b, %int1 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>, !torch.int -> !torch.vtensor<[2,3],f32> loc(#fwd)
  %l = torch.aten.sum %o, %none : !torch.vtensor<[2,3],f32>, !torch.none -> !torch.vtensor<[],f32> loc(#fwd)
  %g = torch.aten.mul.Tensor %o, %seed : !torch.vtensor<[2,3],f32>, !torch.vtensor<[],f32> -> !torch.vtensor<[2,3],f32> loc(#bwd)
  %dx = torch.aten.mm %g, %t : !torch.vtensor<[2,3],f32>, !torch.vtensor<[3,4],f32> -> !torch.vtensor<[2,4],f32> loc(#bwd)
  %xt = torch.aten.t %x : !torch.vtensor<[2,4],f32> -> !torch.vtensor<[4,2],f32> loc(#bwd)
  %gw = torch.aten.mm %xt, %g : !torch.vtensor<[4,2],f32>, !torch.vtensor<[2,3],f32> -> !torch.vtensor<[4,3],f32> loc(#bwd)
  %tt = torch.aten.t %t : !torch.vtensor<[3,4],f32> -> !torch.vtensor<[4,3],f32> loc(#bwd)
  %gw2 = torch.aten.add.Tensor %gw, %tt, %int1 : !torch.vtensor<[4,3],f32>, !torch.vtensor<[4,3],f32>, !torch.int -> !torch.vtensor<[4,3],f32> loc(#bwd)
  %int0 = torch.constant.int 0 loc(#bwd)
  %false = torch.constant.bool false loc(#bwd)
  %dims = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int> loc(#bwd)
  %gb = torch.aten.sum.dim_IntList %g, %dims, %false, %none : !torch.vtensor<[2,3],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[3],f32> loc(#bwd)
  return %l, %dx, %gw2, %gb : !torch.vtensor<[],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[4,3],f32>, !torch.vtensor<[3],f32>
}
}

// -----

// Replicated tensor sharding of the gradient accumulators (accumulator sharded = 1, minimum 6
// elements), R = 2, G = 2. Each micro-batch's gradient of w (10 elements) is reduce-scattered
// (ipu.replica_shard, kind mean) before it is added to w's accumulator, which is the replica's
// part (tensor<[5]>, poplar.replica_shard). In @update the accumulated part is already reduced:
// the update runs on whole tensors (neither weights nor state are sharded), so it is gathered
// (ipu.replica_unshard) instead of all-reduced; b's (5 elements < 6) is accumulated whole and
// all-reduced in @update.
// ACC-LABEL: "func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "w">}, {ipu.role = #ipu.role<"parameter", "b">}, {ipu.role = #ipu.role<"accumulator", "w/accum">, poplar.replica_shard = #poplar.replica_shard<array<i64: 2, 5>, 2 : i64>}, {ipu.role = #ipu.role<"accumulator", "b/accum">},
// ACC-SAME: sym_name = "update"
// ACC: ^bb0(%{{.*}}: !torch.vtensor<[2,5],f32>, %{{.*}}: !torch.vtensor<[5],f32>, %[[AW:arg[0-9]+]]: !torch.vtensor<[5],f32>, %[[AB:arg[0-9]+]]: !torch.vtensor<[5],f32>,
// ACC: %[[DW:.*]] = "torch.aten.div.Scalar"(%[[AW]],
// ACC: %[[DB:.*]] = "torch.aten.div.Scalar"(%[[AB]],
// ACC-NEXT: "ipu.replica_reduce"(%[[DB]])
// ACC-NEXT: %[[WW:.*]] = "ipu.replica_unshard"(%[[DW]]) {replication_factor = 2 : i64} : (!torch.vtensor<[5],f32>) -> !torch.vtensor<[2,5],f32>
// ACC-NEXT: "ipu.sgd_update"(%{{.*}}, %[[WW]],
// ACC-SAME: -> (!torch.vtensor<[2,5],f32>, !torch.vtensor<[2,5],f32>, !torch.vtensor<[],f32>)
// ACC: "torch.aten.zeros_like"(%[[AW]], {{.*}} -> !torch.vtensor<[5],f32>
// ACC: sym_name = "main"
// ACC: %[[GW:.*]] = "torch.aten.mul.Tensor"(%{{.*}}, %{{.*}}) : (!torch.vtensor<[2,5],f32>, !torch.vtensor<[],f32>)
// ACC: %[[P:.*]] = "ipu.replica_shard"(%[[GW]]) {kind = "mean", replication_factor = 2 : i64} : (!torch.vtensor<[2,5],f32>) -> !torch.vtensor<[5],f32>
// ACC-NEXT: "ipu.accumulate_grad"(%{{.*}}, %[[P]], %{{.*}}) {reduction = "mean", strategy = "post"} : (!torch.vtensor<[5],f32>, !torch.vtensor<[5],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[5],f32>
// ACC-NEXT: "ipu.accumulate_grad"(%{{.*}}, %{{.*}}, %{{.*}}) {{.*}} : (!torch.vtensor<[5],f32>, !torch.vtensor<[5],f32>,

// Without gradient accumulation there are no accumulators: nothing is sharded.
// CHECK-LABEL: "func.func"
// CHECK-NOT: replica_shard
// CHECK-NOT: replica_unshard
// CHECK: "func.return"
module attributes {poplar.tensor_locations = #poplar.tensor_locations<#poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 1 : i64, 6 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>>} {
func.func @main(%w: !torch.vtensor<[2,5],f32> {ipu.role = #ipu.role<"parameter", "w">}, %b: !torch.vtensor<[5],f32> {ipu.role = #ipu.role<"parameter", "b">}, %x: !torch.vtensor<[2,5],f32> {ipu.role = #ipu.role<"input", "x">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss", "0">}, !torch.vtensor<[2,5],f32> {ipu.role = #ipu.role<"grad", "w">}, !torch.vtensor<[5],f32> {ipu.role = #ipu.role<"grad", "b">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {nesterov = false, variant = "separate", with_momentum = true}, 1 : i64, {}, {}, []>} {
  %none = torch.constant.none
  %0 = torch.aten.mul.Tensor %w, %x : !torch.vtensor<[2,5],f32>, !torch.vtensor<[2,5],f32> -> !torch.vtensor<[2,5],f32>
  %1 = torch.aten.sum %0, %none : !torch.vtensor<[2,5],f32>, !torch.none -> !torch.vtensor<[],f32>
  %2 = torch.aten.mul.Tensor %x, %seed : !torch.vtensor<[2,5],f32>, !torch.vtensor<[],f32> -> !torch.vtensor<[2,5],f32>
  %int0 = torch.constant.int 0
  %false = torch.constant.bool false
  %dims = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  %3 = torch.aten.sum.dim_IntList %2, %dims, %false, %none : !torch.vtensor<[2,5],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[5],f32>
  return %1, %2, %3 : !torch.vtensor<[],f32>, !torch.vtensor<[2,5],f32>, !torch.vtensor<[5],f32>
}
}

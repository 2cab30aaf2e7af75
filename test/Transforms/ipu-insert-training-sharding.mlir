// RUN: ipu-opt %s -p 'ipu-insert-training{replication-factor=4}' --split-input-file | FileCheck %s
// RUN: ipu-opt %s -p 'ipu-insert-training{replication-factor=4 gradient-accumulation=2}' --split-input-file | FileCheck %s --check-prefix=ACC
// RUN: ipu-opt %s -p 'ipu-insert-training{replication-factor=1}' --split-input-file | FileCheck %s --check-prefix=ONE


// Replicated tensor sharding of the optimizer state (#poplar.tensor_locations: optimizer
// sharded = 1, minElementsForReplicatedTensorSharding 6) over R = 4 replicas, SGD with momentum.
// w (10 elements >= 6) has its velocity sharded: its argument is tensor<[3]> (ceil(10 / 4))
// with poplar.replica_shard<array<i64: 2, 5>, 4>. Its gradient is reduce-scattered
// (ipu.replica_shard kind mean, instead of replica_reduce), the replica takes its part of
// w (kind local), updates it with its part of the velocity, and the new parts are gathered
// into the whole new weight (ipu.replica_unshard). b (5 elements < 6) stays whole: all-reduced.
// The step count (a scalar) is never sharded.
// CHECK-LABEL: "func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "w">}, {ipu.role = #ipu.role<"parameter", "b">}, {ipu.role = #ipu.role<"input", "x">}, {ipu.role = #ipu.role<"hyper", "loss_scaling">}, {ipu.role = #ipu.role<"optimizer_state", "w/velocity">, poplar.replica_shard = #poplar.replica_shard<array<i64: 2, 5>, 4 : i64>}, {ipu.role = #ipu.role<"optimizer_state", "w/step">},
// CHECK-SAME: {ipu.role = #ipu.role<"optimizer_state", "b/velocity">}, {ipu.role = #ipu.role<"optimizer_state", "b/step">}]
// CHECK: ^bb0(%[[W:arg[0-9]+]]: !torch.vtensor<[2,5],f32>, %[[B:arg[0-9]+]]: !torch.vtensor<[5],f32>, %{{.*}}: !torch.vtensor<[2,5],f32>, %{{.*}}: !torch.vtensor<[],f32>, %[[VW:arg[0-9]+]]: !torch.vtensor<[3],f32>,
// CHECK: "torch.aten.sum"
// CHECK-NEXT: %[[GW:.*]] = "torch.aten.mul.Tensor"
// CHECK: %[[GB:.*]] = "torch.aten.sum.dim_IntList"
// CHECK-NEXT: %[[PG:.*]] = "ipu.replica_shard"(%[[GW]]) {kind = "mean", replication_factor = 4 : i64} : (!torch.vtensor<[2,5],f32>) -> !torch.vtensor<[3],f32>
// CHECK-NEXT: %[[RB:.*]] = "ipu.replica_reduce"(%[[GB]])
// CHECK-NEXT: %[[PW:.*]] = "ipu.replica_shard"(%[[W]]) {kind = "local", replication_factor = 4 : i64} : (!torch.vtensor<[2,5],f32>) -> !torch.vtensor<[3],f32>
// CHECK-NEXT: %[[U:.*]]:3 = "ipu.sgd_update"(%[[PW]], %[[PG]], %[[VW]],
// CHECK-SAME: -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[],f32>)
// CHECK-NEXT: %[[NW:.*]] = "ipu.replica_unshard"(%[[U]]#0) {replication_factor = 4 : i64} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[2,5],f32>
// CHECK-NEXT: "ipu.sgd_update"(%[[B]], %[[RB]],
// CHECK-NEXT: "func.return"(%{{.*}}, %[[NW]], %[[U]]#1, %[[U]]#2,

// With gradient accumulation the sharded update is in @update: the accumulated gradient is
// reduce-scattered there; @main only accumulates whole gradients.
// ACC-LABEL: "func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "w">}, {ipu.role = #ipu.role<"parameter", "b">}, {ipu.role = #ipu.role<"accumulator", "w/accum">}, {ipu.role = #ipu.role<"accumulator", "b/accum">}, {ipu.role = #ipu.role<"optimizer_state", "w/velocity">, poplar.replica_shard = #poplar.replica_shard<array<i64: 2, 5>, 4 : i64>}
// ACC-SAME: sym_name = "update"
// ACC: "ipu.replica_shard"(%{{.*}}) {kind = "mean", replication_factor = 4 : i64} : (!torch.vtensor<[2,5],f32>) -> !torch.vtensor<[3],f32>
// ACC: "ipu.replica_shard"(%{{.*}}) {kind = "local", replication_factor = 4 : i64}
// ACC: "ipu.replica_unshard"
// ACC: sym_name = "main"
// ACC-NOT: ipu.replica_
// ACC: "func.return"

// One replica: nothing to shard (poptorch warns that the setting has no effect).
// ONE-NOT: replica_shard
// ONE: "ipu.sgd_update"(%{{.*}}) {{.*}} : (!torch.vtensor<[2,5],f32>, !torch.vtensor<[2,5],f32>, !torch.vtensor<[2,5],f32>,

module attributes {poplar.tensor_locations = #poplar.tensor_locations<#poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 1 : i64, 6 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>>} {
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

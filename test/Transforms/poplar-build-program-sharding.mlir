// RUN: ipu-opt %s -p 'poplar-build-program{replication-factor=2}' --split-input-file | FileCheck %s

// Replicated tensor sharding: an argument with poplar.replica_shard (optimizer state that
// ipu-insert-training sharded) becomes a variable with the same attribute, holding the
// replica's part (ceil(5 / 2) = 3 elements of w's 5); other variables are whole.
// CHECK-LABEL: "poplar.graph"
// CHECK: "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64>} : () -> tensor<5xf32>
// CHECK: "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "w/velocity", poplar.replica_shard = #poplar.replica_shard<array<i64: 5>, 2 : i64>, tiles = array<i64>} : () -> tensor<3xf32>
// CHECK: replication_factor = 2 : i64
func.func @main(%w: tensor<5xf32> {ipu.role = #ipu.role<"parameter", "w">}, %x: tensor<6xf32> {ipu.role = #ipu.role<"input", "x">}, %v: tensor<3xf32> {ipu.role = #ipu.role<"optimizer_state", "w/velocity">, poplar.replica_shard = #poplar.replica_shard<array<i64: 5>, 2 : i64>}) -> (tensor<5xf32> {ipu.role = #ipu.role<"weight_update", "w">}, tensor<3xf32> {ipu.role = #ipu.role<"state_update", "w/velocity">}) {
  %0 = "poplar.gcl_reduce_scatter"(%x) {op = "local", group = #poplar.comm_group<"all", 0 : i64>} : (tensor<6xf32>) -> tensor<3xf32>
  return %w, %0 : tensor<5xf32>, tensor<3xf32>
}

// -----

// A sharded weight (setWeightLocation(...useReplicatedTensorSharding)): its variable holds the
// replica's part too, and the step's updated part is copied back into it.
// CHECK-LABEL: "poplar.graph"
// CHECK: %[[W:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", poplar.replica_shard = #poplar.replica_shard<array<i64: 5>, 2 : i64>, tiles = array<i64>} : () -> tensor<3xf32>
// CHECK: %[[G:.*]] = "poplar.gcl_all_gather"(%[[W]])
// CHECK: "poplar.program_copy"(%{{.*}}, %[[W]])
func.func @main(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">, poplar.replica_shard = #poplar.replica_shard<array<i64: 5>, 2 : i64>}, %x: tensor<6xf32> {ipu.role = #ipu.role<"input", "x">}) -> (tensor<6xf32> {ipu.role = #ipu.role<"output", "0">}, tensor<3xf32> {ipu.role = #ipu.role<"weight_update", "w">}) {
  %0 = "poplar.gcl_all_gather"(%w) {group = #poplar.comm_group<"all", 0 : i64>} : (tensor<3xf32>) -> tensor<6xf32>
  %1 = "poplar.popops_add"(%0, %x) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  %2 = "poplar.gcl_reduce_scatter"(%1) {op = "add", group = #poplar.comm_group<"all", 0 : i64>} : (tensor<6xf32>) -> tensor<3xf32>
  return %1, %2 : tensor<6xf32>, tensor<3xf32>
}

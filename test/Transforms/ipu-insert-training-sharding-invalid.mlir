// RUN: ipu-opt %s -p 'ipu-insert-training{replication-factor=2}' --split-input-file --verify-diagnostics

// LAMB's trust ratio needs the norms of the whole weight and update: its state is not
// sharded across replicas, and asking for it is an error naming the weights and the fixes.
module attributes {poplar.tensor_locations = #poplar.tensor_locations<#poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 1 : i64, 0 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>>} {
// expected-error@+1 {{ipu-insert-training: replicated tensor sharding of the optimizer state (w) is not available for LAMB: its trust ratio needs the norms of the whole weight and update, which no replica holds. Remove useReplicatedTensorSharding() from setOptimizerLocation, or raise minElementsForReplicatedTensorSharding above these weights' sizes}}
func.func @lamb(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"lamb", {bias_correction = true}, 1 : i64, {}, {}, []>} {
  return %w : !torch.vtensor<[3],f32>
}
}

// -----

// A malformed #poplar.tensor_locations is the pass's error at the function.
module attributes {poplar.tensor_locations = #poplar.tensor_locations<#poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 2 : i64, 0 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>>} {
// expected-error@+1 {{ipu-insert-training: 'poplar.tensor_locations' optimizer: sharded must be 0 or 1, got 2}}
func.func @main(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {nesterov = false, variant = "separate", with_momentum = true}, 1 : i64, {}, {}, []>} {
  return %w : !torch.vtensor<[3],f32>
}
}

// -----

// Sharded weights (weight class sharded = 1) update on parts: LAMB is refused for them too,
// and the fix names the weight setter.
module attributes {poplar.tensor_locations = #poplar.tensor_locations<#poplar.tensor_location<-1 : i64, 2 : i64, 1 : i64, 0 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>>} {
// expected-error@+1 {{ipu-insert-training: replicated tensor sharding of the weights (w) is not available for LAMB: its trust ratio needs the norms of the whole weight and update, which no replica holds. Remove useReplicatedTensorSharding() from setWeightLocation, or raise minElementsForReplicatedTensorSharding above these weights' sizes}}
func.func @lamb(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"lamb", {bias_correction = true}, 1 : i64, {}, {}, []>} {
  return %w : !torch.vtensor<[3],f32>
}
}

// -----

// A pipelined step (3 stages) would gather sharded weights inside its stages, which run at
// once on several IPUs: refused, naming the weights and the alternatives.
module attributes {poplar.tensor_locations = #poplar.tensor_locations<#poplar.tensor_location<-1 : i64, 2 : i64, 1 : i64, 0 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>>} {
// expected-error@+1 {{ipu-insert-training: replicated tensor sharding of the weights (w) is not available with PipelinedExecution (3 stages): their gathers and reduce-scatters would run inside the pipeline's stages, and the IPU Model's replicas meet for one collective at a time, an order that stages running at once on several IPUs cannot keep. Use ShardedExecution, or shard only the optimizer state (setOptimizerLocation), whose collectives run in the weight update}}
func.func @main(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {nesterov = false, variant = "separate", with_momentum = true}, 1 : i64, {}, {}, []>, pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 3 : i64, 2 : i64, array<i64>>} {
  return %w : !torch.vtensor<[3],f32>
}
}

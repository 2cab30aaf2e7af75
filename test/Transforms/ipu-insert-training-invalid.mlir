// RUN: not ipu-opt %s -p ipu-insert-training --split-input-file 2>&1 >/dev/null | FileCheck %s

// Missing or malformed training metadata is a located error.

// CHECK: ipu-insert-training-invalid.mlir:[[# @LINE + 1]]:1: error: ipu-insert-training: the function has no 'ipu.optimizer' attribute (set by the training frontend)
func.func @no_optimizer(%w: !torch.vtensor<[3],f32> {ipu.kind = "parameter", ipu.name = "w"}, %seed: !torch.vtensor<[],f32> {ipu.kind = "loss_grad", ipu.name = "loss_grad"}) -> (!torch.vtensor<[3],f32> {ipu.kind = "grad", ipu.name = "w"}) {
  return %w : !torch.vtensor<[3],f32>
}

// -----

// CHECK: ipu-insert-training-invalid.mlir:[[# @LINE + 1]]:1: error: ipu-insert-training: 'ipu.optimizer' puts parameters in groups that do not exist: {'w': 3} (groups = 1)
func.func @bad_group(%w: !torch.vtensor<[3],f32> {ipu.kind = "parameter", ipu.name = "w"}, %seed: !torch.vtensor<[],f32> {ipu.kind = "loss_grad", ipu.name = "loss_grad"}) -> (!torch.vtensor<[3],f32> {ipu.kind = "grad", ipu.name = "w"}) attributes {ipu.optimizer = {type = "sgd", flags = {}, groups = 1 : i64, param_groups = {w = 3 : i64}}} {
  return %w : !torch.vtensor<[3],f32>
}

// -----

// CHECK: ipu-insert-training-invalid.mlir:[[# @LINE + 1]]:1: error: ipu-insert-training: expects exactly one 'loss_grad' argument, found 0
func.func @no_seed(%w: !torch.vtensor<[3],f32> {ipu.kind = "parameter", ipu.name = "w"}) -> (!torch.vtensor<[3],f32> {ipu.kind = "grad", ipu.name = "w"}) attributes {ipu.optimizer = {type = "sgd", flags = {}, groups = 1 : i64, param_groups = {}}} {
  return %w : !torch.vtensor<[3],f32>
}

// -----

// CHECK: ipu-insert-training-invalid.mlir:[[# @LINE + 1]]:1: error: ipu-insert-training: 'ipu.optimizer' has type 'adagrad'; expected one of sgd, adam, rmsprop, lamb
func.func @bad_type(%w: !torch.vtensor<[3],f32> {ipu.kind = "parameter", ipu.name = "w"}, %seed: !torch.vtensor<[],f32> {ipu.kind = "loss_grad", ipu.name = "loss_grad"}) -> (!torch.vtensor<[3],f32> {ipu.kind = "grad", ipu.name = "w"}) attributes {ipu.optimizer = {type = "adagrad", flags = {}, groups = 1 : i64, param_groups = {}}} {
  return %w : !torch.vtensor<[3],f32>
}

// -----

// CHECK: ipu-insert-training-invalid.mlir:[[# @LINE + 1]]:1: error: ipu-insert-training: 'ipu.optimizer' needs max_grad_norm > 0, got -1.0
func.func @bad_clip(%w: !torch.vtensor<[3],f32> {ipu.kind = "parameter", ipu.name = "w"}, %seed: !torch.vtensor<[],f32> {ipu.kind = "loss_grad", ipu.name = "loss_grad"}) -> (!torch.vtensor<[3],f32> {ipu.kind = "grad", ipu.name = "w"}) attributes {ipu.optimizer = {type = "sgd", flags = {}, groups = 1 : i64, param_groups = {}, max_grad_norm = -1.0 : f64}} {
  return %w : !torch.vtensor<[3],f32>
}

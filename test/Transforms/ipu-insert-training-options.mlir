// Bad pass options are reported once, at the module, before any rewriting.
// RUN: not ipu-opt %s -p 'ipu-insert-training{gradient-accumulation=0 reduction=max strategy=later}' 2>&1 >/dev/null | FileCheck %s
// CHECK-DAG: error: ipu-insert-training: gradient-accumulation must be >= 1, got 0
// CHECK-DAG: error: ipu-insert-training: reduction must be mean or sum, got 'max'
// CHECK-DAG: error: ipu-insert-training: strategy must be post or running, got 'later'
func.func @main(%w: !torch.vtensor<[3],f32> {ipu.kind = "parameter", ipu.name = "w"}, %seed: !torch.vtensor<[],f32> {ipu.kind = "loss_grad", ipu.name = "loss_grad"}) -> (!torch.vtensor<[3],f32> {ipu.kind = "grad", ipu.name = "w"}) attributes {ipu.optimizer = {type = "sgd", flags = {}, groups = 1 : i64, param_groups = {}}} {
  return %w : !torch.vtensor<[3],f32>
}

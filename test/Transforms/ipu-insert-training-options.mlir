// Bad pass options are reported once, at the module, before any rewriting.
// RUN: not ipu-opt %s -p 'ipu-insert-training{gradient-accumulation=0 reduction=max strategy=later}' 2>&1 >/dev/null | FileCheck %s
// CHECK-DAG: error: ipu-insert-training: gradient-accumulation must be >= 1, got 0
// CHECK-DAG: error: ipu-insert-training: reduction must be one of: sum, mean; got "max"
// CHECK-DAG: error: ipu-insert-training: strategy must be one of: post, running; got "later"
func.func @main(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {}, 1 : i64, {}, {}, []>} {
  return %w : !torch.vtensor<[3],f32>
}

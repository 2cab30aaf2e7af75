// RUN: ipu-opt %s -p 'ipu-insert-training{gradient-accumulation=0 reduction=max strategy=later state-types=velocity:i8}' --verify-diagnostics

// Bad pass options are reported at the module, every one of them, before any rewriting
// (the function itself is valid). They have no op of their own, so the module is
// written out to give them a line.
// expected-error @+4 {{ipu-insert-training: gradient-accumulation must be >= 1, got 0}}
// expected-error @+3 {{ipu-insert-training: reduction must be one of: sum, mean; got "max"}}
// expected-error @+2 {{ipu-insert-training: strategy must be one of: post, running; got "later"}}
// expected-error @+1 {{ipu-insert-training: state-types entry 'velocity:i8' must be <state>:<dtype> with dtype one of f16, f32}}
module {
  func.func @main(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {}, 1 : i64, {}, {}, []>} {
    return %w : !torch.vtensor<[3],f32>
  }
}

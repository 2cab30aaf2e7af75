// RUN: ipu-opt %s -p ipu-insert-training --split-input-file --verify-diagnostics

// The pass turns the one joint function of a module into a training step; any other
// number of functions is an error at the module.

// expected-error @+1 {{ipu-insert-training expects one func.func, found 0}}
module {
}

// -----

// Its own output with gradient accumulation (@main and @update) is not an input: the
// pass runs once.
// expected-error @+1 {{ipu-insert-training expects one func.func, found 2}}
module {
  func.func @main(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {}, 1 : i64, {}, {}, []>} {
    return %w : !torch.vtensor<[3],f32>
  }
  func.func @update(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"weight_update", "w">}) {
    return %w : !torch.vtensor<[3],f32>
  }
}

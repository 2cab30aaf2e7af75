// RUN: ipu-opt %s -p ipu-insert-training --split-input-file --verify-diagnostics

// Roles of the function's arguments and results, and the entries of its #ipu.optimizer,
// that do not describe a training step: each an error at the function.

// A role is an #ipu.role, not its kind as a string.
// expected-error @+1 {{ipu-insert-training: argument #0: 'ipu.role' must be an #ipu.role<kind, name>, got "parameter"}}
func.func @role_not_a_role(%w: !torch.vtensor<[3],f32> {ipu.role = "parameter"}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {}, 1 : i64, {}, {}, []>} {
  return %w : !torch.vtensor<[3],f32>
}

// -----

// expected-error @+1 {{ipu-insert-training: result #1 has no 'ipu.role' (set by the training frontend)}}
func.func @result_without_role(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}, !torch.vtensor<[3],f32>) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {}, 1 : i64, {}, {}, []>} {
  return %w, %w : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
}

// -----

// Every gradient belongs to a parameter the optimizer can update.
// expected-error @+1 {{ipu-insert-training: result 'grad' of 'v' has no matching 'parameter' argument}}
func.func @grad_without_parameter(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}, !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "v">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {}, 1 : i64, {}, {}, []>} {
  return %w, %w : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
}

// -----

// param_groups maps a parameter to the index of its group.
// expected-error @+1 {{ipu-insert-training: 'ipu.optimizer' param_groups 'w' must be an integer, got "0"}}
func.func @group_not_an_integer(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {}, 1 : i64, {w = "0"}, {}, []>} {
  return %w : !torch.vtensor<[3],f32>
}

// -----

// constants maps "<group>.<name>" to the value compiled in; an integer is not a float.
// expected-error @+1 {{ipu-insert-training: 'ipu.optimizer' constants '0.lr' must be a float, got 1 : i64}}
func.func @constant_not_a_float(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {}, 1 : i64, {}, {"0.lr" = 1 : i64}, []>} {
  return %w : !torch.vtensor<[3],f32>
}

// RUN: ipu-opt %s -p ipu-insert-training --split-input-file --verify-diagnostics

// Missing or malformed training metadata (#ipu.optimizer, #ipu.role) is an error at the
// function; an enumeration's error lists its valid values.

// expected-error@+1 {{ipu-insert-training: the function has no 'ipu.optimizer' attribute (set by the training frontend)}}
func.func @no_optimizer(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) {
  return %w : !torch.vtensor<[3],f32>
}

// -----

// The untyped dictionary of earlier versions is not an optimizer description.
// expected-error@+1 {{ipu-insert-training: 'ipu.optimizer' must be an #ipu.optimizer<...>, got {flags = {}, groups = 1 : i64, param_groups = {}, type = "sgd"}}}
func.func @dictionary(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = {type = "sgd", flags = {}, groups = 1 : i64, param_groups = {}}} {
  return %w : !torch.vtensor<[3],f32>
}

// -----

// expected-error@+1 {{ipu-insert-training: 'ipu.optimizer' kind must be one of: sgd, adam, rmsprop, lamb; got "adagrad"}}
func.func @bad_kind(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"adagrad", {}, 1 : i64, {}, {}, []>} {
  return %w : !torch.vtensor<[3],f32>
}

// -----

// A flag is an attribute of the optimizer's update op.
// expected-error@+1 {{ipu-insert-training: 'ipu.optimizer' flag 'centered' is not a flag of sgd; its flags: variant, with_momentum, nesterov}}
func.func @unknown_flag(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {centered = true}, 1 : i64, {}, {}, []>} {
  return %w : !torch.vtensor<[3],f32>
}

// -----

// expected-error@+1 {{ipu-insert-training: 'ipu.optimizer' flag 'variant' must be one of: adam, adamw; got "lamb"}}
func.func @bad_variant(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"adam", {variant = "lamb"}, 1 : i64, {}, {}, []>} {
  return %w : !torch.vtensor<[3],f32>
}

// -----

// expected-error@+1 {{ipu-insert-training: 'ipu.optimizer' flag 'with_momentum' must be a bool (true/false), got 1 : i64}}
func.func @flag_not_bool(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {with_momentum = 1 : i64}, 1 : i64, {}, {}, []>} {
  return %w : !torch.vtensor<[3],f32>
}

// -----

// Flags that the update op rejects together are rejected here, before any rewriting.
// expected-error@+1 {{ipu-insert-training: 'ipu.optimizer' flags: nesterov requires with_momentum}}
func.func @nesterov_without_momentum(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {nesterov = true}, 1 : i64, {}, {}, []>} {
  return %w : !torch.vtensor<[3],f32>
}

// -----

// expected-error@+1 {{ipu-insert-training: 'ipu.optimizer' needs groups >= 1, got 0}}
func.func @no_groups(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {}, 0 : i64, {}, {}, []>} {
  return %w : !torch.vtensor<[3],f32>
}

// -----

// expected-error@+1 {{ipu-insert-training: 'ipu.optimizer' puts parameters in groups that do not exist: {'w': 3} (groups = 1)}}
func.func @bad_group(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {}, 1 : i64, {w = 3 : i64}, {}, []>} {
  return %w : !torch.vtensor<[3],f32>
}

// -----

// No clipping is an empty max_grad_norm; a clipping norm must be positive.
// expected-error@+1 {{ipu-insert-training: 'ipu.optimizer' needs max_grad_norm [] (no clipping) or one value > 0, got [-1.0]}}
func.func @bad_clip(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {}, 1 : i64, {}, {}, [-1.000000e+00 : f64]>} {
  return %w : !torch.vtensor<[3],f32>
}

// -----

// expected-error@+1 {{ipu-insert-training: expects exactly one 'loss_grad' argument, found 0}}
func.func @no_seed(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {}, 1 : i64, {}, {}, []>} {
  return %w : !torch.vtensor<[3],f32>
}

// -----

// expected-error@+1 {{ipu-insert-training: argument #1 has no 'ipu.role' (set by the training frontend)}}
func.func @no_role(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32>) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {}, 1 : i64, {}, {}, []>} {
  return %w : !torch.vtensor<[3],f32>
}

// -----

// expected-error@+1 {{ipu-insert-training: result #0: 'ipu.role' kind must be one of: parameter, buffer, constant, input, loss_grad, hyper, optimizer_state, accumulator, buffer_update, loss, output, input_update, grad, anchor, weight_update, state_update, accumulator_update; got "gradient"}}
func.func @bad_role_kind(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"gradient", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {}, 1 : i64, {}, {}, []>} {
  return %w : !torch.vtensor<[3],f32>
}

// RUN: ipu-opt %s --split-input-file --verify-diagnostics

// One case per verifier rule of the `ipu` dialect (dialects/ipu.py). The verifier
// reports the first broken rule of an op, located at the op.

// -----
// ipu.print_tensor

func.func @print_tensor_missing_title(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.print_tensor' op requires attribute 'title'}}
  %0 = "ipu.print_tensor"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @print_tensor_bad_format(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.print_tensor' op attribute 'ipu.print_format': 'digits' must be an integer, got 'two'}}
  %0 = "ipu.print_tensor"(%x) {title = "t", ipu.print_format = {digits = "two"}} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @print_tensor_title_not_string(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.print_tensor' op attribute 'title' must be a string, got 3 : i64}}
  %0 = "ipu.print_tensor"(%x) {title = 3} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @print_tensor_changes_type(%x: !torch.vtensor<[4],f32>) {
  // expected-error@+1 {{'ipu.print_tensor' op print_tensor: result type !torch.vtensor<[3],f32> must equal input type !torch.vtensor<[4],f32>}}
  %0 = "ipu.print_tensor"(%x) {title = "act"} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[3],f32>
  return
}

// -----

func.func @print_tensor_two_operands(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.print_tensor' op expects 1 operands, got 2}}
  %0 = "ipu.print_tensor"(%x, %x) {title = "act"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @print_tensor_no_result(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.print_tensor' op expects 1 results, got 0}}
  "ipu.print_tensor"(%x) {title = "act"} : (tensor<4xf32>) -> ()
  return
}

// -----
// ipu.identity_loss

func.func @identity_loss_missing_reduction(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.identity_loss' op requires attribute 'reduction'}}
  %0 = "ipu.identity_loss"(%x) : (tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @identity_loss_reduction_not_string(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.identity_loss' op attribute 'reduction' must be a string, got 1 : i64}}
  %0 = "ipu.identity_loss"(%x) {reduction = 1 : i64} : (tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @identity_loss_unknown_reduction(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.identity_loss' op attribute 'reduction' must be one of: sum, mean, none; got "max"}}
  %0 = "ipu.identity_loss"(%x) {reduction = "max"} : (tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @identity_loss_none_changes_type(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.identity_loss' op identity_loss with reduction "none": result type tensor<f32> must equal input type tensor<4xf32>}}
  %0 = "ipu.identity_loss"(%x) {reduction = "none"} : (tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @identity_loss_mean_not_scalar(%x: !torch.vtensor<[4],f32>) {
  // expected-error@+1 {{'ipu.identity_loss' op result must be a scalar (rank 0) for reduction "mean", got rank 1}}
  %0 = "ipu.identity_loss"(%x) {reduction = "mean"} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  return
}

// -----

func.func @identity_loss_sum_not_scalar(%x: tensor<4x4xf32>) {
  // expected-error@+1 {{'ipu.identity_loss' op result must be a scalar (rank 0) for reduction "sum", got rank 2}}
  %0 = "ipu.identity_loss"(%x) {reduction = "sum"} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @identity_loss_no_operand() {
  // expected-error@+1 {{'ipu.identity_loss' op expects 1 operands, got 0}}
  %0 = "ipu.identity_loss"() {reduction = "mean"} : () -> tensor<f32>
  return
}

// -----

func.func @identity_loss_two_results(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.identity_loss' op expects 1 results, got 2}}
  %0:2 = "ipu.identity_loss"(%x) {reduction = "mean"} : (tensor<4xf32>) -> (tensor<f32>, tensor<f32>)
  return
}

// -----
// ipu.nop

func.func @nop_changes_type(%x: !torch.vtensor<[2],f32>) {
  // expected-error@+1 {{'ipu.nop' op nop: result type !torch.vtensor<[2],f16> must equal input type !torch.vtensor<[2],f32>}}
  %0 = "ipu.nop"(%x) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f16>
  return
}

// -----

func.func @nop_two_results(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.nop' op expects 1 results, got 2}}
  %0:2 = "ipu.nop"(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @nop_no_operand() {
  // expected-error@+1 {{'ipu.nop' op expects 1 operands, got 0}}
  %0 = "ipu.nop"() : () -> tensor<4xf32>
  return
}

// -----
// ipu.recomputation_checkpoint: one value in, the same value out.

func.func @checkpoint_nothing() {
  // expected-error@+1 {{'ipu.recomputation_checkpoint' op expects 1 operands, got 0}}
  "ipu.recomputation_checkpoint"() : () -> ()
  return
}

// -----

func.func @checkpoint_two_values(%x: tensor<4xf32>, %y: tensor<2xf32>) {
  // expected-error@+1 {{'ipu.recomputation_checkpoint' op expects 1 operands, got 2}}
  %0:2 = "ipu.recomputation_checkpoint"(%x, %y) : (tensor<4xf32>, tensor<2xf32>) -> (tensor<4xf32>, tensor<2xf32>)
  return
}

// -----

func.func @checkpoint_two_results(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.recomputation_checkpoint' op expects 1 results, got 2}}
  %0:2 = "ipu.recomputation_checkpoint"(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @checkpoint_changes_type(%x: !torch.vtensor<[4],f32>) {
  // expected-error@+1 {{'ipu.recomputation_checkpoint' op recomputation_checkpoint: result type !torch.vtensor<[3],f32> must equal input type !torch.vtensor<[4],f32>}}
  %0 = "ipu.recomputation_checkpoint"(%x) : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[3],f32>
  return
}

// -----
// ipu.set_available_memory

func.func @available_memory_missing_proportion(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.set_available_memory' op requires attribute 'proportion'}}
  %0 = "ipu.set_available_memory"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @available_memory_proportion_not_float(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.set_available_memory' op attribute 'proportion' must be a float, got "0.3"}}
  %0 = "ipu.set_available_memory"(%x) {proportion = "0.3"} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @available_memory_nan(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.set_available_memory' op attribute 'proportion' must not be NaN}}
  %0 = "ipu.set_available_memory"(%x) {proportion = 0x7FF8000000000000 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @available_memory_zero(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.set_available_memory' op attribute 'proportion' must be > 0.0, got 0.0}}
  %0 = "ipu.set_available_memory"(%x) {proportion = 0.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @available_memory_above_one(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.set_available_memory' op attribute 'proportion' must be <= 1.0, got 1.5}}
  %0 = "ipu.set_available_memory"(%x) {proportion = 1.5 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @available_memory_changes_type(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.set_available_memory' op set_available_memory: result type tensor<4xf16> must equal input type tensor<4xf32>}}
  %0 = "ipu.set_available_memory"(%x) {proportion = 0.5 : f64} : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @available_memory_two_operands(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.set_available_memory' op expects 1 operands, got 2}}
  %0 = "ipu.set_available_memory"(%x, %x) {proportion = 0.5 : f64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @available_memory_no_result(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.set_available_memory' op expects 1 results, got 0}}
  "ipu.set_available_memory"(%x) {proportion = 0.5 : f64} : (tensor<4xf32>) -> ()
  return
}

// -----
// Rules shared by the optimizer updates (sgd/adam/rmsprop/lamb), shown on ipu.sgd_update.
// Operand groups: weight, grad, state, step, hyper; result groups: new_weight,
// new_state, new_step. The segment attributes come first.

func.func @update_missing_segments(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op requires attribute 'operandSegmentSizes' (weight, grad, state, step, hyper counts)}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = false, nesterov = false, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_segments_not_i32(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op attribute 'operandSegmentSizes' must be an array<i32: ...>, got array<i64: 1, 1, 0, 0, 1>}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i64: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_segments_old_layout(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op attribute 'operandSegmentSizes' must have 5 elements (weight, grad, state, step, hyper), got 4}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 1>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_negative_segment(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op attribute 'operandSegmentSizes' elements must be >= 0, got [1, 1, -1, 0, 2]}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, -1, 0, 2>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_segments_sum(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op attribute 'operandSegmentSizes' sums to 4 but the op has 3}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 2>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_missing_result_segments(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op requires attribute 'resultSegmentSizes' (new_weight, new_state, new_step counts)}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_result_segments_not_i32(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op attribute 'resultSegmentSizes' must be an array<i32: ...>, got array<i64: 1, 0, 0>}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i64: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_result_segments_size(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op attribute 'resultSegmentSizes' must have 3 elements (new_weight, new_state, new_step), got 2}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_negative_result_segment(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op attribute 'resultSegmentSizes' elements must be >= 0, got [2, -1, 0]}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i32: 2, -1, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_result_segments_sum(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op attribute 'resultSegmentSizes' sums to 2 but the op has 1}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_no_weight(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op expects exactly one weight and one grad operand, got segment sizes [0, 2, 0, 0, 1]}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 0, 2, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_missing_hyper_names(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op requires attribute 'hyper_names'}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_hyper_names_not_strings(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op attribute 'hyper_names' must be an array of strings, got ["lr", 1]}}
  %0 = "ipu.sgd_update"(%w, %g, %lr, %lr) {hyper_names = ["lr", 1], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 2>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_hyper_names_count(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op expects one name in 'hyper_names' per hyper-parameter operand (1), got 2}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr", "momentum"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_hyper_names_duplicate(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op 'hyper_names' has duplicates: ['lr', 'lr']}}
  %0 = "ipu.sgd_update"(%w, %g, %lr, %lr) {hyper_names = ["lr", "lr"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 2>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_unknown_hyper(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op unknown hyper-parameter "beta1"; allowed: lr, momentum, dampening, weight_decay, velocity_scaling, loss_scaling}}
  %0 = "ipu.sgd_update"(%w, %g, %lr, %lr) {hyper_names = ["lr", "beta1"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 2>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_without_lr(%w: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op requires hyper-parameter "lr"}}
  %0 = "ipu.sgd_update"(%w, %g, %m) {hyper_names = ["momentum"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_state_count(%w: tensor<4xf32>, %g: tensor<4xf32>, %v: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op expects 0 state operands, got 1}}
  %0:2 = "ipu.sgd_update"(%w, %g, %v, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @update_step_count(%w: tensor<4xf32>, %g: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op expects 0 step operands, got 1}}
  %0:2 = "ipu.sgd_update"(%w, %g, %t, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 1, 1>, resultSegmentSizes = array<i32: 1, 0, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<f32>) -> (tensor<4xf32>, tensor<i64>)
  return
}

// -----

func.func @update_result_groups(%w: tensor<4xf32>, %g: tensor<4xf32>, %v: tensor<4xf32>, %t: tensor<f32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op expects results (new_weight, new_state, new_step) sized [1, 1, 1], got [1, 0, 0]}}
  %0 = "ipu.sgd_update"(%w, %g, %v, %t, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = true, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_grad_type(%w: tensor<4xf32>, %g: tensor<4xf16>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op grad type tensor<4xf16> must equal weight type tensor<4xf32>}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf16>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_new_weight_type(%w: !torch.vtensor<[4],f32>, %g: !torch.vtensor<[4],f32>, %lr: !torch.vtensor<[],f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op new weight type !torch.vtensor<[2,2],f32> must equal weight type !torch.vtensor<[4],f32>}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 0, 0>} : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2,2],f32>
  return
}

// -----

func.func @update_state_type(%w: tensor<4xf32>, %g: tensor<4xf32>, %v: tensor<4xf16>, %t: tensor<f32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op state #0 type tensor<4xf16> must equal weight type tensor<4xf32>}}
  %0:3 = "ipu.sgd_update"(%w, %g, %v, %t, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = true, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf16>, tensor<f32>)
  return
}

// -----

func.func @update_new_state_type(%w: tensor<4xf32>, %g: tensor<4xf32>, %v: tensor<4xf32>, %t: tensor<f32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op new state #0 type tensor<4xf16> must equal weight type tensor<4xf32>}}
  %0:3 = "ipu.sgd_update"(%w, %g, %v, %t, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = true, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf16>, tensor<f32>)
  return
}

// -----

func.func @update_hyper_not_scalar(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<1xf32>) {
  // expected-error@+1 {{'ipu.sgd_update' op step and hyper-parameter operands must be scalars (rank 0); operand #2 has rank 1}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @update_torch_hyper_not_scalar(%w: !torch.vtensor<[4],f32>, %g: !torch.vtensor<[4],f32>, %lr: !torch.vtensor<[],f32>, %m: !torch.vtensor<[1,1],f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op step and hyper-parameter operands must be scalars (rank 0); operand #3 has rank 2}}
  %0 = "ipu.sgd_update"(%w, %g, %lr, %m) {hyper_names = ["lr", "momentum"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 2>, resultSegmentSizes = array<i32: 1, 0, 0>} : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[1,1],f32>) -> !torch.vtensor<[4],f32>
  return
}

// -----
// IRDL gives every variadic group one type variable: the hyper-parameters share a type.

func.func @update_hyper_types_differ(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>, %m: !torch.vtensor<[],f32>) {
  // expected-error@+1 {{expected 'tensor<f32>' but got '!torch.vtensor<[],f32>'}}
  %0 = "ipu.sgd_update"(%w, %g, %lr, %m) {hyper_names = ["lr", "momentum"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 2>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, !torch.vtensor<[],f32>) -> tensor<4xf32>
  return
}

// -----
// ipu.sgd_update

func.func @sgd_missing_variant(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op requires attribute 'variant'}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @sgd_unknown_variant(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op attribute 'variant' must be one of: separate, combined; got "adam"}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "adam", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @sgd_momentum_not_bool(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op attribute 'with_momentum' must be a bool (true/false), got 0 : i64}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = 0 : i64, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @sgd_nesterov_not_bool(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op attribute 'nesterov' must be a bool (true/false), got "no"}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = false, nesterov = "no", operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @sgd_nesterov_without_momentum(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op nesterov requires with_momentum}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = false, nesterov = true, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @sgd_momentum_without_velocity(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op expects 1 state operands, got 0}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = true, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----
// SGD with momentum counts steps (one scalar step operand, and a new step result): its
// first step sets the velocity to the gradient. Without momentum there is no step.

func.func @sgd_momentum_without_step(%w: tensor<4xf32>, %g: tensor<4xf32>, %v: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op expects 1 step operands, got 0}}
  %0:2 = "ipu.sgd_update"(%w, %g, %v, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = true, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @sgd_combined_without_step(%w: !torch.vtensor<[4],f32>, %g: !torch.vtensor<[4],f32>, %v: !torch.vtensor<[4],f32>, %lr: !torch.vtensor<[],f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op expects 1 step operands, got 0}}
  %0:2 = "ipu.sgd_update"(%w, %g, %v, %lr, %lr) {hyper_names = ["lr", "velocity_scaling"], variant = "combined", with_momentum = true, nesterov = true, operandSegmentSizes = array<i32: 1, 1, 1, 0, 2>, resultSegmentSizes = array<i32: 1, 1, 0>} : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>)
  return
}

// -----

func.func @sgd_momentum_two_steps(%w: tensor<4xf32>, %g: tensor<4xf32>, %v: tensor<4xf32>, %t: tensor<f32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op expects 1 step operands, got 2}}
  %0:4 = "ipu.sgd_update"(%w, %g, %v, %t, %t, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = true, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 1, 2, 1>, resultSegmentSizes = array<i32: 1, 1, 2>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>)
  return
}

// -----

func.func @sgd_momentum_without_new_step(%w: tensor<4xf32>, %g: tensor<4xf32>, %v: tensor<4xf32>, %t: tensor<f32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op expects results (new_weight, new_state, new_step) sized [1, 1, 1], got [1, 1, 0]}}
  %0:2 = "ipu.sgd_update"(%w, %g, %v, %t, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = true, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @sgd_step_not_scalar(%w: tensor<4xf32>, %g: tensor<4xf32>, %v: tensor<4xf32>, %t: tensor<1xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op step and hyper-parameter operands must be scalars (rank 0); operand #3 has rank 1}}
  %0:3 = "ipu.sgd_update"(%w, %g, %v, %t, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = true, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<1xf32>)
  return
}

// -----

func.func @sgd_new_step_type(%w: !torch.vtensor<[4],f32>, %g: !torch.vtensor<[4],f32>, %v: !torch.vtensor<[4],f32>, %t: !torch.vtensor<[],f32>, %lr: !torch.vtensor<[],f32>) {
  // expected-error@+1 {{'ipu.sgd_update' op new step type must equal step type}}
  %0:3 = "ipu.sgd_update"(%w, %g, %v, %t, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = true, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 1>} : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[],si64>)
  return
}

// -----
// ipu.adam_update

func.func @adam_missing_variant(%w: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.adam_update' op requires attribute 'variant'}}
  %0:4 = "ipu.adam_update"(%w, %g, %m, %v, %t, %lr) {hyper_names = ["lr"], bias_correction = true, operandSegmentSizes = array<i32: 1, 1, 2, 1, 1>, resultSegmentSizes = array<i32: 1, 2, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

func.func @adam_unknown_variant(%w: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.adam_update' op attribute 'variant' must be one of: adam, adamw; got "lamb"}}
  %0:4 = "ipu.adam_update"(%w, %g, %m, %v, %t, %lr) {hyper_names = ["lr"], variant = "lamb", bias_correction = true, operandSegmentSizes = array<i32: 1, 1, 2, 1, 1>, resultSegmentSizes = array<i32: 1, 2, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

func.func @adam_bias_correction_not_bool(%w: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.adam_update' op attribute 'bias_correction' must be a bool (true/false), got 1 : i64}}
  %0:4 = "ipu.adam_update"(%w, %g, %m, %v, %t, %lr) {hyper_names = ["lr"], variant = "adam", bias_correction = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 2, 1, 1>, resultSegmentSizes = array<i32: 1, 2, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

func.func @adam_three_states(%w: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.adam_update' op expects 2 state operands, got 3}}
  %0:5 = "ipu.adam_update"(%w, %g, %m, %v, %v, %t, %lr) {hyper_names = ["lr"], variant = "adam", bias_correction = true, operandSegmentSizes = array<i32: 1, 1, 3, 1, 1>, resultSegmentSizes = array<i32: 1, 3, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

func.func @adam_without_step(%w: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.adam_update' op expects 1 step operands, got 0}}
  %0:3 = "ipu.adam_update"(%w, %g, %m, %v, %lr) {hyper_names = ["lr"], variant = "adam", bias_correction = true, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1>, resultSegmentSizes = array<i32: 1, 2, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @adam_step_not_scalar(%w: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %t: tensor<1xi64>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.adam_update' op step and hyper-parameter operands must be scalars (rank 0); operand #4 has rank 1}}
  %0:4 = "ipu.adam_update"(%w, %g, %m, %v, %t, %lr) {hyper_names = ["lr"], variant = "adam", bias_correction = true, operandSegmentSizes = array<i32: 1, 1, 2, 1, 1>, resultSegmentSizes = array<i32: 1, 2, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xi64>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xi64>)
  return
}

// -----

func.func @adam_new_step_type(%w: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.adam_update' op new step type must equal step type}}
  %0:4 = "ipu.adam_update"(%w, %g, %m, %v, %t, %lr) {hyper_names = ["lr"], variant = "adam", bias_correction = true, operandSegmentSizes = array<i32: 1, 1, 2, 1, 1>, resultSegmentSizes = array<i32: 1, 2, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>)
  return
}

// -----

func.func @adam_unknown_hyper(%w: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.adam_update' op unknown hyper-parameter "momentum"; allowed: lr, beta1, beta2, eps, weight_decay, loss_scaling}}
  %0:4 = "ipu.adam_update"(%w, %g, %m, %v, %t, %lr, %lr) {hyper_names = ["lr", "momentum"], variant = "adam", bias_correction = true, operandSegmentSizes = array<i32: 1, 1, 2, 1, 2>, resultSegmentSizes = array<i32: 1, 2, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----
// ipu.rmsprop_update

func.func @rmsprop_tf_variant_not_bool(%w: tensor<4xf32>, %g: tensor<4xf32>, %s: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.rmsprop_update' op attribute 'use_tf_variant' must be a bool (true/false), got "tf"}}
  %0:2 = "ipu.rmsprop_update"(%w, %g, %s, %lr) {hyper_names = ["lr"], centered = false, with_momentum = false, use_tf_variant = "tf", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @rmsprop_momentum_not_bool(%w: tensor<4xf32>, %g: tensor<4xf32>, %s: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.rmsprop_update' op attribute 'with_momentum' must be a bool (true/false), got 1 : i64}}
  %0:2 = "ipu.rmsprop_update"(%w, %g, %s, %lr) {hyper_names = ["lr"], centered = false, with_momentum = 1 : i64, use_tf_variant = false, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @rmsprop_centered_not_bool(%w: tensor<4xf32>, %g: tensor<4xf32>, %s: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.rmsprop_update' op attribute 'centered' must be a bool (true/false), got 1 : i64}}
  %0:2 = "ipu.rmsprop_update"(%w, %g, %s, %lr) {hyper_names = ["lr"], centered = 1 : i64, with_momentum = false, use_tf_variant = false, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @rmsprop_centered_momentum_state_count(%w: tensor<4xf32>, %g: tensor<4xf32>, %s: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.rmsprop_update' op expects 3 state operands, got 1}}
  %0:2 = "ipu.rmsprop_update"(%w, %g, %s, %lr) {hyper_names = ["lr"], centered = true, with_momentum = true, use_tf_variant = false, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @rmsprop_with_step(%w: tensor<4xf32>, %g: tensor<4xf32>, %s: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.rmsprop_update' op expects 0 step operands, got 1}}
  %0:3 = "ipu.rmsprop_update"(%w, %g, %s, %t, %lr) {hyper_names = ["lr"], centered = false, with_momentum = false, use_tf_variant = false, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

func.func @rmsprop_unknown_hyper(%w: tensor<4xf32>, %g: tensor<4xf32>, %s: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.rmsprop_update' op unknown hyper-parameter "beta1"; allowed: lr, alpha, eps, momentum, weight_decay, loss_scaling}}
  %0:2 = "ipu.rmsprop_update"(%w, %g, %s, %lr, %lr) {hyper_names = ["lr", "beta1"], centered = false, with_momentum = false, use_tf_variant = false, operandSegmentSizes = array<i32: 1, 1, 1, 0, 2>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----
// ipu.lamb_update

func.func @lamb_bias_correction_not_bool(%w: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.lamb_update' op attribute 'bias_correction' must be a bool (true/false), got "yes"}}
  %0:4 = "ipu.lamb_update"(%w, %g, %m, %v, %t, %lr) {hyper_names = ["lr"], bias_correction = "yes", operandSegmentSizes = array<i32: 1, 1, 2, 1, 1>, resultSegmentSizes = array<i32: 1, 2, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

func.func @lamb_one_state(%w: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.lamb_update' op expects 2 state operands, got 1}}
  %0:3 = "ipu.lamb_update"(%w, %g, %m, %t, %lr) {hyper_names = ["lr"], bias_correction = true, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

func.func @lamb_without_step(%w: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.lamb_update' op expects 1 step operands, got 0}}
  %0:3 = "ipu.lamb_update"(%w, %g, %m, %v, %lr) {hyper_names = ["lr"], bias_correction = true, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1>, resultSegmentSizes = array<i32: 1, 2, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @lamb_new_step_type(%w: !torch.vtensor<[4],f32>, %g: !torch.vtensor<[4],f32>, %m: !torch.vtensor<[4],f32>, %v: !torch.vtensor<[4],f32>, %t: !torch.vtensor<[],si64>, %lr: !torch.vtensor<[],f32>) {
  // expected-error@+1 {{'ipu.lamb_update' op new step type must equal step type}}
  %0:4 = "ipu.lamb_update"(%w, %g, %m, %v, %t, %lr) {hyper_names = ["lr"], bias_correction = true, operandSegmentSizes = array<i32: 1, 1, 2, 1, 1>, resultSegmentSizes = array<i32: 1, 2, 1>} : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[],si64>, !torch.vtensor<[],f32>) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[],si32>)
  return
}

// -----

func.func @lamb_unknown_hyper(%w: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<f32>) {
  // expected-error@+1 {{'ipu.lamb_update' op unknown hyper-parameter "momentum"; allowed: lr, beta1, beta2, eps, weight_decay, max_weight_norm, loss_scaling}}
  %0:4 = "ipu.lamb_update"(%w, %g, %m, %v, %t, %lr, %lr) {hyper_names = ["lr", "momentum"], bias_correction = true, operandSegmentSizes = array<i32: 1, 1, 2, 1, 2>, resultSegmentSizes = array<i32: 1, 2, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----
// ipu.accumulate_grad

func.func @accumulate_two_operands(%a: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.accumulate_grad' op expects 3 operands, got 2}}
  %0 = "ipu.accumulate_grad"(%a, %g) {reduction = "sum", strategy = "running"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @accumulate_missing_reduction(%a: tensor<4xf32>, %g: tensor<4xf32>, %n: tensor<i64>) {
  // expected-error@+1 {{'ipu.accumulate_grad' op requires attribute 'reduction'}}
  %0 = "ipu.accumulate_grad"(%a, %g, %n) {strategy = "running"} : (tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
  return
}

// -----

func.func @accumulate_unknown_reduction(%a: tensor<4xf32>, %g: tensor<4xf32>, %n: tensor<i64>) {
  // expected-error@+1 {{'ipu.accumulate_grad' op attribute 'reduction' must be one of: sum, mean; got "none"}}
  %0 = "ipu.accumulate_grad"(%a, %g, %n) {reduction = "none", strategy = "running"} : (tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
  return
}

// -----

func.func @accumulate_unknown_strategy(%a: tensor<4xf32>, %g: tensor<4xf32>, %n: tensor<i64>) {
  // expected-error@+1 {{'ipu.accumulate_grad' op attribute 'strategy' must be one of: post, running; got "pre"}}
  %0 = "ipu.accumulate_grad"(%a, %g, %n) {reduction = "mean", strategy = "pre"} : (tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
  return
}

// -----

func.func @accumulate_grad_type(%a: tensor<4xf32>, %g: tensor<4xf16>, %n: tensor<i64>) {
  // expected-error@+1 {{'ipu.accumulate_grad' op grad type tensor<4xf16> must equal accumulator type tensor<4xf32>}}
  %0 = "ipu.accumulate_grad"(%a, %g, %n) {reduction = "sum", strategy = "running"} : (tensor<4xf32>, tensor<4xf16>, tensor<i64>) -> tensor<4xf32>
  return
}

// -----

func.func @accumulate_result_type(%a: !torch.vtensor<[4],f32>, %g: !torch.vtensor<[4],f32>, %n: !torch.vtensor<[],si64>) {
  // expected-error@+1 {{'ipu.accumulate_grad' op accumulate_grad: result type !torch.vtensor<[2],f32> must equal input type !torch.vtensor<[4],f32>}}
  %0 = "ipu.accumulate_grad"(%a, %g, %n) {reduction = "sum", strategy = "post"} : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[2],f32>
  return
}

// -----

func.func @accumulate_no_result(%a: tensor<4xf32>, %g: tensor<4xf32>, %n: tensor<i64>) {
  // expected-error@+1 {{'ipu.accumulate_grad' op expects 1 results, got 0}}
  "ipu.accumulate_grad"(%a, %g, %n) {reduction = "sum", strategy = "running"} : (tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> ()
  return
}

// -----
// ipu.replica_reduce

func.func @replica_reduce_no_result(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.replica_reduce' op expects 1 results, got 0}}
  "ipu.replica_reduce"(%x) {kind = "sum", replication_factor = 2 : i64, group = #poplar.comm_group<"all", 0 : i64>} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @replica_reduce_missing_kind(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.replica_reduce' op requires attribute 'kind'}}
  %0 = "ipu.replica_reduce"(%x) {replication_factor = 2 : i64, group = #poplar.comm_group<"all", 0 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @replica_reduce_unknown_kind(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.replica_reduce' op attribute 'kind' must be one of: sum, mean; got "max"}}
  %0 = "ipu.replica_reduce"(%x) {kind = "max", replication_factor = 2 : i64, group = #poplar.comm_group<"all", 0 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @replica_reduce_factor_zero(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.replica_reduce' op attribute 'replication_factor' must be >= 1, got 0}}
  %0 = "ipu.replica_reduce"(%x) {kind = "sum", replication_factor = 0 : i64, group = #poplar.comm_group<"all", 0 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @replica_reduce_factor_not_integer(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.replica_reduce' op attribute 'replication_factor' must be an integer, got 2.000000e+00 : f64}}
  %0 = "ipu.replica_reduce"(%x) {kind = "sum", replication_factor = 2.0 : f64, group = #poplar.comm_group<"all", 0 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @replica_reduce_changes_type(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.replica_reduce' op replica_reduce: result type tensor<2xf32> must equal input type tensor<4xf32>}}
  %0 = "ipu.replica_reduce"(%x) {kind = "mean", replication_factor = 2 : i64, group = #poplar.comm_group<"all", 0 : i64>} : (tensor<4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @replica_reduce_missing_group(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.replica_reduce' op requires attribute 'group'}}
  %0 = "ipu.replica_reduce"(%x) {kind = "sum", replication_factor = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @replica_reduce_group_does_not_divide(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.replica_reduce' op attribute 'group' a "consecutive" comm group of size 3 must divide the replication factor 4}}
  %0 = "ipu.replica_reduce"(%x) {kind = "sum", replication_factor = 4 : i64, group = #poplar.comm_group<"consecutive", 3 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @replica_reduce_group_not_a_comm_group(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.replica_reduce' op attribute 'group' must be a #poplar.comm_group<kind, size>}}
  %0 = "ipu.replica_reduce"(%x) {kind = "sum", replication_factor = 4 : i64, group = "all"} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----
// ipu.replica_broadcast

func.func @replica_broadcast_factor_zero(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.replica_broadcast' op attribute 'replication_factor' must be >= 1, got 0}}
  %0 = "ipu.replica_broadcast"(%x) {replication_factor = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @replica_broadcast_changes_type(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.replica_broadcast' op replica_broadcast: result type tensor<2xf32> must equal input type tensor<4xf32>}}
  %0 = "ipu.replica_broadcast"(%x) {replication_factor = 2 : i64} : (tensor<4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @replica_reduce_two_operands(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.replica_reduce' op expects 1 operands, got 2}}
  %0 = "ipu.replica_reduce"(%x, %x) {kind = "sum", replication_factor = 2 : i64, group = #poplar.comm_group<"all", 0 : i64>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----
// ipu.loss_scale

func.func @loss_scale_no_scale(%x: tensor<f32>) {
  // expected-error@+1 {{'ipu.loss_scale' op expects 2 operands, got 1}}
  %0 = "ipu.loss_scale"(%x) {mode = "scale"} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @loss_scale_missing_mode(%x: tensor<f32>, %s: tensor<f32>) {
  // expected-error@+1 {{'ipu.loss_scale' op requires attribute 'mode'}}
  %0 = "ipu.loss_scale"(%x, %s) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @loss_scale_unknown_mode(%x: tensor<f32>, %s: tensor<f32>) {
  // expected-error@+1 {{'ipu.loss_scale' op attribute 'mode' must be one of: scale, unscale; got "rescale"}}
  %0 = "ipu.loss_scale"(%x, %s) {mode = "rescale"} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @loss_scale_scale_not_scalar(%x: !torch.vtensor<[4],f32>, %s: !torch.vtensor<[1],f32>) {
  // expected-error@+1 {{'ipu.loss_scale' op scale must be a scalar (rank 0), got rank 1}}
  %0 = "ipu.loss_scale"(%x, %s) {mode = "unscale"} : (!torch.vtensor<[4],f32>, !torch.vtensor<[1],f32>) -> !torch.vtensor<[4],f32>
  return
}

// -----

func.func @loss_scale_changes_type(%x: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'ipu.loss_scale' op loss_scale: result type tensor<4xf16> must equal input type tensor<4xf32>}}
  %0 = "ipu.loss_scale"(%x, %s) {mode = "scale"} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf16>
  return
}

// -----

func.func @loss_scale_two_results(%x: tensor<f32>, %s: tensor<f32>) {
  // expected-error@+1 {{'ipu.loss_scale' op expects 1 results, got 2}}
  %0:2 = "ipu.loss_scale"(%x, %s) {mode = "scale"} : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return
}

// -----
// Attribute parameters are checked by the IRDL definition when the attribute is parsed.

func.func @block_user_id_not_string(%x: tensor<4xf32>) {
  // expected-error@+1 {{expected base attribute 'builtin.string' but got 'builtin.integer'}}
  %0 = "ipu.nop"(%x) {ipu.block = #ipu.block<1 : i64, 2 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @block_missing_ipu_id(%x: tensor<4xf32>) {
  // expected-error@+1 {{expected 2 type arguments, but had 1}}
  %0 = "ipu.nop"(%x) {ipu.block = #ipu.block<"enc">} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @tensor_location_sharding_not_bool(%x: tensor<4xf32>) {
  // expected-error@+1 {{expected base attribute 'builtin.integer' but got 'builtin.string'}}
  %0 = "ipu.nop"(%x) {ipu.tensor_location = #ipu.tensor_location<"off_chip", "yes", false>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----
// ipu.set_overlap, ipu.multi_conv

func.func @overlap_unknown_mode(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.set_overlap' op attribute 'mode' must be one of: no_overlap, overlap_accumulation_loop, overlap_device_iteration_loop; got "always"}}
  %0 = "ipu.set_overlap"(%x) {direction = "input", mode = "always"} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @overlap_unknown_direction(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.set_overlap' op attribute 'direction' must be one of "input", "output", got "both"}}
  %0 = "ipu.set_overlap"(%x) {direction = "both", mode = "no_overlap"} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @multi_conv_unknown_plan(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.multi_conv' op attribute 'plan_type' must be one of: parallel, serial; got "fastest"}}
  %0 = "ipu.multi_conv"(%x) {group = 0 : i64, index = 0 : i64, plan_type = "fastest"} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @multi_conv_memory_above_one(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.multi_conv' op attribute 'available_memory' must be <= 1.0, got 1.5}}
  %0 = "ipu.multi_conv"(%x) {group = 0 : i64, index = 0 : i64, plan_type = "serial", available_memory = 1.5 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @multi_conv_no_reserved_tiles(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.multi_conv' op attribute 'per_conv_reserved_tiles' must be >= 1, got 0}}
  %0 = "ipu.multi_conv"(%x) {group = 0 : i64, index = 0 : i64, plan_type = "serial", per_conv_reserved_tiles = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @multi_conv_partials_float64(%x: tensor<4xf32>) {
  // expected-error@+1 {{'ipu.multi_conv' op attribute 'partials_type' must be one of: float, half; got "double"}}
  %0 = "ipu.multi_conv"(%x) {group = 0 : i64, index = 0 : i64, plan_type = "serial", partials_type = "double"} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// ipu.replica_shard / ipu.replica_unshard

func.func @replica_shard_kind(%x: tensor<10xf32>) {
  // expected-error@+1 {{'ipu.replica_shard' op attribute 'kind' must be one of "sum", "mean", "local", got "max"}}
  %0 = "ipu.replica_shard"(%x) {kind = "max", replication_factor = 4 : i64} : (tensor<10xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @replica_shard_one_replica(%x: tensor<10xf32>) {
  // expected-error@+1 {{'ipu.replica_shard' op attribute 'replication_factor' must be >= 2, got 1}}
  %0 = "ipu.replica_shard"(%x) {kind = "sum", replication_factor = 1 : i64} : (tensor<10xf32>) -> tensor<10xf32>
  return
}

// -----

func.func @replica_shard_part(%x: tensor<2x5xf32>) {
  // expected-error@+1 {{'ipu.replica_shard' op replica_shard: the part of a tensor of shape [2, 5] (10 elements) across 4 replicas has shape [3] (ceil(n / R)), got [2]}}
  %0 = "ipu.replica_shard"(%x) {kind = "sum", replication_factor = 4 : i64} : (tensor<2x5xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @replica_unshard_element(%x: tensor<3xf32>) {
  // expected-error@+1 {{'ipu.replica_unshard' op replica_unshard: element types differ: f16 and f32}}
  %0 = "ipu.replica_unshard"(%x) {replication_factor = 4 : i64} : (tensor<3xf32>) -> tensor<2x5xf16>
  return
}

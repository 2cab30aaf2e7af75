// RUN: ipu-opt %s -p convert-ipu-to-poplar --split-input-file --verify-diagnostics

// The pass runs after convert-torch-to-poplar: an update over Torch-dialect tensors is
// an error that names the operand and the pass to run first.
func.func @unconverted(%w: !torch.vtensor<[2],f32>, %g: !torch.vtensor<[2],f32>, %lr: !torch.vtensor<[],f32>, %m: !torch.vtensor<[],f32>, %d: !torch.vtensor<[],f32>, %wd: !torch.vtensor<[],f32>, %ls: !torch.vtensor<[],f32>) -> !torch.vtensor<[2],f32> {
  // expected-error@+1 {{'ipu.sgd_update' cannot be lowered to the poplar dialect: operand %arg0 is !torch.vtensor<[2],f32>, not a converted tensor (run convert-torch-to-poplar first)}}
  %0 = "ipu.sgd_update"(%w, %g, %lr, %m, %d, %wd, %ls) {hyper_names = ["lr", "momentum", "dampening", "weight_decay", "loss_scaling"], nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 5>, resultSegmentSizes = array<i32: 1, 0, 0>, variant = "separate", with_momentum = false} : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// The dialect requires only lr; the lowering reads every hyper-parameter of its
// optimizer, so an update without them names the missing ones (ipu-insert-training
// passes all of them).
func.func @missing_hyper(%w: tensor<2xf32>, %g: tensor<2xf32>, %lr: tensor<f32>) -> tensor<2xf32> {
  // expected-error@+1 {{'ipu.sgd_update' cannot be lowered to the poplar dialect: the update needs the hyper-parameters momentum, dampening, weight_decay, loss_scaling as operands (ipu-insert-training passes all of them)}}
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 0, 0>, variant = "separate", with_momentum = false} : (tensor<2xf32>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// PopTorch's combined SGD variant keeps the velocity scaled: it also needs
// velocity_scaling; LAMB needs max_weight_norm.
func.func @missing_variant_hyper(%w: tensor<2xf32>, %g: tensor<2xf32>, %v: tensor<2xf32>, %m: tensor<2xf32>, %t: tensor<f32>, %lr: tensor<f32>, %mom: tensor<f32>, %damp: tensor<f32>, %wd: tensor<f32>, %ls: tensor<f32>, %b1: tensor<f32>, %b2: tensor<f32>, %eps: tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>) {
  // expected-error@+1 {{'ipu.sgd_update' cannot be lowered to the poplar dialect: the update needs the hyper-parameters velocity_scaling as operands (ipu-insert-training passes all of them)}}
  %0:3 = "ipu.sgd_update"(%w, %g, %v, %t, %lr, %mom, %damp, %wd, %ls) {hyper_names = ["lr", "momentum", "dampening", "weight_decay", "loss_scaling"], nesterov = false, operandSegmentSizes = array<i32: 1, 1, 1, 1, 5>, resultSegmentSizes = array<i32: 1, 1, 1>, variant = "combined", with_momentum = true} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<f32>)
  // expected-error@+1 {{'ipu.lamb_update' cannot be lowered to the poplar dialect: the update needs the hyper-parameters max_weight_norm as operands (ipu-insert-training passes all of them)}}
  %1:4 = "ipu.lamb_update"(%w, %g, %m, %v, %t, %lr, %b1, %b2, %eps, %wd, %ls) {bias_correction = true, hyper_names = ["lr", "beta1", "beta2", "eps", "weight_decay", "loss_scaling"], operandSegmentSizes = array<i32: 1, 1, 2, 1, 6>, resultSegmentSizes = array<i32: 1, 2, 1>} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>)
  return %0#0, %1#0 : tensor<2xf32>, tensor<2xf32>
}

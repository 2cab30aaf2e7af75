// RUN: ipu-opt %s -p convert-ipu-to-poplar --split-input-file | FileCheck %s

// The ipu dialect's training ops, as convert-torch-to-poplar leaves them (over builtin
// tensors; inputs from ipu-insert-training's output for small models), lower to
// popops maps and reductions that compute what torch.optim computes. Hyper-parameters
// are scalar tensor operands, so a new learning rate needs no recompilation.

// SGD without momentum (ipu-insert-training's ipu.sgd_update for Linear(3, 2)'s weight):
// the gradient is unscaled by loss_scaling, weight decay adds weight_decay * w, and the
// weight steps by lr times it. Momentum, dampening and velocity_scaling are not read.
// CHECK-LABEL: sym_name = "sgd_plain"
// CHECK: ^bb0(%[[W:arg[0-9]+]]: tensor<2x3xf32>, %[[G:arg[0-9]+]]: tensor<2x3xf32>, %[[LR:arg[0-9]+]]: tensor<f32>, %[[MOM:arg[0-9]+]]: tensor<f32>, %[[DAMP:arg[0-9]+]]: tensor<f32>, %[[WD:arg[0-9]+]]: tensor<f32>, %[[VS:arg[0-9]+]]: tensor<f32>, %[[LS:arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT: %[[UNSCALED:.*]] = "poplar.popops_map"(%[[G]], %[[LS]]) {expr = "div(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[DECAYED:.*]] = "poplar.popops_map"(%[[UNSCALED]], %[[W]], %[[WD]]) {expr = "add(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[NEW:.*]] = "poplar.popops_map"(%[[W]], %[[DECAYED]], %[[LR]]) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT: "func.return"(%[[NEW]])
func.func @sgd_plain(%w: tensor<2x3xf32>, %g: tensor<2x3xf32>, %lr: tensor<f32>, %mom: tensor<f32>, %damp: tensor<f32>, %wd: tensor<f32>, %vs: tensor<f32>, %ls: tensor<f32>) -> tensor<2x3xf32> {
  %0 = "ipu.sgd_update"(%w, %g, %lr, %mom, %damp, %wd, %vs, %ls) {hyper_names = ["lr", "momentum", "dampening", "weight_decay", "velocity_scaling", "loss_scaling"], nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 6>, resultSegmentSizes = array<i32: 1, 0, 0>, variant = "separate", with_momentum = false} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// SGD with momentum: v * momentum + (1 - dampening) * g, where on the first step (step
// count 0) momentum and dampening count as 0, so the velocity becomes the gradient
// itself (as torch.optim.SGD does) and one expression updates v in place. The new velocity is the step
// direction and the second result; the third is the step count plus one.
// velocity_scaling is not read (it belongs to the combined variant).
// CHECK-LABEL: sym_name = "sgd_momentum"
// CHECK: ^bb0(%[[W:arg[0-9]+]]: tensor<2xf32>, %[[G:arg[0-9]+]]: tensor<2xf32>, %[[V:arg[0-9]+]]: tensor<2xf32>, %[[T:arg[0-9]+]]: tensor<f32>, %[[LR:arg[0-9]+]]: tensor<f32>, %[[MOM:arg[0-9]+]]: tensor<f32>, %[[DAMP:arg[0-9]+]]: tensor<f32>, %[[WD:arg[0-9]+]]: tensor<f32>, %[[VS:arg[0-9]+]]: tensor<f32>, %[[LS:arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT: %[[UNSCALED:.*]] = "poplar.popops_map"(%[[G]], %[[LS]]) {expr = "div(_1, _2)"
// CHECK-NEXT: %[[DECAYED:.*]] = "poplar.popops_map"(%[[UNSCALED]], %[[W]], %[[WD]]) {expr = "add(_1, mul(_2, _3))"
// CHECK-NEXT: %[[FIRST:.*]] = "poplar.popops_map"(%[[T]]) {expr = "eq(_1, 0.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<f32>) -> tensor<i1>
// CHECK-NEXT: %[[MOMEFF:.*]] = "poplar.popops_map"(%[[FIRST]], %[[MOM]]) {expr = "select(_1, 0.0, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<i1>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[KEEP:.*]] = "poplar.popops_map"(%[[FIRST]], %[[DAMP]]) {expr = "select(_1, 1.0, sub(1.0, _2))", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<i1>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[DAMPED:.*]] = "poplar.popops_map"(%[[DECAYED]], %[[KEEP]]) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK-NEXT: %[[VEL:.*]] = "poplar.popops_map"(%[[V]], %[[MOMEFF]], %[[DAMPED]]) {expr = "add(mul(_1, _2), _3)", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2xf32>, tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %[[NEXT:.*]] = "poplar.popops_map"(%[[T]]) {expr = "add(_1, 1.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[NEW:.*]] = "poplar.popops_map"(%[[W]], %[[VEL]], %[[LR]]) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2xf32>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK-NEXT: "func.return"(%[[NEW]], %[[VEL]], %[[NEXT]])
func.func @sgd_momentum(%w: tensor<2xf32>, %g: tensor<2xf32>, %v: tensor<2xf32>, %t: tensor<f32>, %lr: tensor<f32>, %momentum: tensor<f32>, %dampening: tensor<f32>, %weight_decay: tensor<f32>, %velocity_scaling: tensor<f32>, %loss_scaling: tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<f32>) {
  %0:3 = "ipu.sgd_update"(%w, %g, %v, %t, %lr, %momentum, %dampening, %weight_decay, %velocity_scaling, %loss_scaling) {nesterov = false, variant = "separate", with_momentum = true, hyper_names = ["lr", "momentum", "dampening", "weight_decay", "velocity_scaling", "loss_scaling"], operandSegmentSizes = array<i32: 1, 1, 1, 1, 6>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<f32>)
  return %0#0, %0#1, %0#2 : tensor<2xf32>, tensor<2xf32>, tensor<f32>
}
// -----

// Nesterov momentum: the step direction is g + momentum * v_new (v_new, with the
// first-step rule, is still the state update).
// CHECK-LABEL: sym_name = "sgd_nesterov"
// CHECK: ^bb0(%[[W:arg[0-9]+]]: tensor<2xf32>, %[[G:arg[0-9]+]]: tensor<2xf32>, %[[V:arg[0-9]+]]: tensor<2xf32>, %[[T:arg[0-9]+]]: tensor<f32>, %[[LR:arg[0-9]+]]: tensor<f32>, %[[MOM:arg[0-9]+]]: tensor<f32>, %[[DAMP:arg[0-9]+]]: tensor<f32>, %[[WD:arg[0-9]+]]: tensor<f32>, %[[VS:arg[0-9]+]]: tensor<f32>, %[[LS:arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT: %[[UNSCALED:.*]] = "poplar.popops_map"(%[[G]], %[[LS]]) {expr = "div(_1, _2)"
// CHECK-NEXT: %[[DECAYED:.*]] = "poplar.popops_map"(%[[UNSCALED]], %[[W]], %[[WD]]) {expr = "add(_1, mul(_2, _3))"
// CHECK-NEXT: %[[FIRST:.*]] = "poplar.popops_map"(%[[T]]) {expr = "eq(_1, 0.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<f32>) -> tensor<i1>
// CHECK-NEXT: %[[MOMEFF:.*]] = "poplar.popops_map"(%[[FIRST]], %[[MOM]]) {expr = "select(_1, 0.0, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<i1>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[KEEP:.*]] = "poplar.popops_map"(%[[FIRST]], %[[DAMP]]) {expr = "select(_1, 1.0, sub(1.0, _2))", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<i1>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[DAMPED:.*]] = "poplar.popops_map"(%[[DECAYED]], %[[KEEP]]) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK-NEXT: %[[VEL:.*]] = "poplar.popops_map"(%[[V]], %[[MOMEFF]], %[[DAMPED]]) {expr = "add(mul(_1, _2), _3)", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2xf32>, tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %[[DIR:.*]] = "poplar.popops_map"(%[[DECAYED]], %[[VEL]], %[[MOM]]) {expr = "add(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2xf32>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK-NEXT: %[[NEXT:.*]] = "poplar.popops_map"(%[[T]]) {expr = "add(_1, 1.0)"
// CHECK-NEXT: %[[NEW:.*]] = "poplar.popops_map"(%[[W]], %[[DIR]], %[[LR]]) {expr = "sub(_1, mul(_2, _3))"
// CHECK-NEXT: "func.return"(%[[NEW]], %[[VEL]], %[[NEXT]])
func.func @sgd_nesterov(%w: tensor<2xf32>, %g: tensor<2xf32>, %v: tensor<2xf32>, %t: tensor<f32>, %lr: tensor<f32>, %momentum: tensor<f32>, %dampening: tensor<f32>, %weight_decay: tensor<f32>, %velocity_scaling: tensor<f32>, %loss_scaling: tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<f32>) {
  %0:3 = "ipu.sgd_update"(%w, %g, %v, %t, %lr, %momentum, %dampening, %weight_decay, %velocity_scaling, %loss_scaling) {nesterov = true, variant = "separate", with_momentum = true, hyper_names = ["lr", "momentum", "dampening", "weight_decay", "velocity_scaling", "loss_scaling"], operandSegmentSizes = array<i32: 1, 1, 1, 1, 6>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<f32>)
  return %0#0, %0#1, %0#2 : tensor<2xf32>, tensor<2xf32>, tensor<f32>
}
// -----

// PopTorch's combined variant (use_combined_accum): one velocity kept scaled by
// velocity_scaling (vs). The gradient is scaled by vs / loss_scaling (one scalar) and
// the decay by vs * weight_decay; the velocity follows the same first-step rule; the
// weight steps by lr / vs times it, which is the separate variant's update.
// CHECK-LABEL: sym_name = "sgd_combined"
// CHECK: ^bb0(%[[W:arg[0-9]+]]: tensor<2xf32>, %[[G:arg[0-9]+]]: tensor<2xf32>, %[[V:arg[0-9]+]]: tensor<2xf32>, %[[T:arg[0-9]+]]: tensor<f32>, %[[LR:arg[0-9]+]]: tensor<f32>, %[[MOM:arg[0-9]+]]: tensor<f32>, %[[DAMP:arg[0-9]+]]: tensor<f32>, %[[WD:arg[0-9]+]]: tensor<f32>, %[[VS:arg[0-9]+]]: tensor<f32>, %[[LS:arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT: %[[GSCALE:.*]] = "poplar.popops_map"(%[[VS]], %[[LS]]) {expr = "div(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[SCALED:.*]] = "poplar.popops_map"(%[[G]], %[[GSCALE]]) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK-NEXT: %[[DSCALE:.*]] = "poplar.popops_map"(%[[VS]], %[[WD]]) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[DECAYED:.*]] = "poplar.popops_map"(%[[SCALED]], %[[W]], %[[DSCALE]]) {expr = "add(_1, mul(_2, _3))"
// CHECK-NEXT: %[[FIRST:.*]] = "poplar.popops_map"(%[[T]]) {expr = "eq(_1, 0.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<f32>) -> tensor<i1>
// CHECK-NEXT: %[[MOMEFF:.*]] = "poplar.popops_map"(%[[FIRST]], %[[MOM]]) {expr = "select(_1, 0.0, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<i1>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[KEEP:.*]] = "poplar.popops_map"(%[[FIRST]], %[[DAMP]]) {expr = "select(_1, 1.0, sub(1.0, _2))", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<i1>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[DAMPED:.*]] = "poplar.popops_map"(%[[DECAYED]], %[[KEEP]]) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK-NEXT: %[[VEL:.*]] = "poplar.popops_map"(%[[V]], %[[MOMEFF]], %[[DAMPED]]) {expr = "add(mul(_1, _2), _3)", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2xf32>, tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %[[STEP:.*]] = "poplar.popops_map"(%[[LR]], %[[VS]]) {expr = "div(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[NEW:.*]] = "poplar.popops_map"(%[[W]], %[[VEL]], %[[STEP]]) {expr = "sub(_1, mul(_2, _3))"
// CHECK-NEXT: %[[NEXT:.*]] = "poplar.popops_map"(%[[T]]) {expr = "add(_1, 1.0)"
// CHECK-NEXT: "func.return"(%[[NEW]], %[[VEL]], %[[NEXT]])
func.func @sgd_combined(%w: tensor<2xf32>, %g: tensor<2xf32>, %v: tensor<2xf32>, %t: tensor<f32>, %lr: tensor<f32>, %momentum: tensor<f32>, %dampening: tensor<f32>, %weight_decay: tensor<f32>, %velocity_scaling: tensor<f32>, %loss_scaling: tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<f32>) {
  %0:3 = "ipu.sgd_update"(%w, %g, %v, %t, %lr, %momentum, %dampening, %weight_decay, %velocity_scaling, %loss_scaling) {nesterov = false, variant = "combined", with_momentum = true, hyper_names = ["lr", "momentum", "dampening", "weight_decay", "velocity_scaling", "loss_scaling"], operandSegmentSizes = array<i32: 1, 1, 1, 1, 6>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<f32>)
  return %0#0, %0#1, %0#2 : tensor<2xf32>, tensor<2xf32>, tensor<f32>
}
// -----

// Combined with Nesterov: the direction g' + momentum * v is in the scaled domain too,
// so lr / vs applies to it.
// CHECK-LABEL: sym_name = "sgd_combined_nesterov"
// CHECK: ^bb0(%[[W:arg[0-9]+]]: tensor<2xf32>, %{{.*}}, %[[MOM:arg[0-9]+]]: tensor<f32>, %[[DAMP:arg[0-9]+]]: tensor<f32>, %[[WD:arg[0-9]+]]: tensor<f32>, %[[VS:arg[0-9]+]]: tensor<f32>, %[[LS:arg[0-9]+]]: tensor<f32>):
// CHECK: %[[DECAYED:.*]] = "poplar.popops_map"(%{{.*}}, %[[W]], %{{.*}}) {expr = "add(_1, mul(_2, _3))"
// CHECK: %[[DAMPED:.*]] = "poplar.popops_map"(%[[DECAYED]], %{{.*}}) {expr = "mul(_1, _2)"
// CHECK-NEXT: %[[VEL:.*]] = "poplar.popops_map"(%{{.*}}, %{{.*}}, %[[DAMPED]]) {expr = "add(mul(_1, _2), _3)"
// CHECK-NEXT: %[[DIR:.*]] = "poplar.popops_map"(%[[DECAYED]], %[[VEL]], %[[MOM]]) {expr = "add(_1, mul(_2, _3))"
// CHECK-NEXT: %[[STEP:.*]] = "poplar.popops_map"(%{{.*}}, %[[VS]]) {expr = "div(_1, _2)"
// CHECK-NEXT: %[[NEW:.*]] = "poplar.popops_map"(%[[W]], %[[DIR]], %[[STEP]]) {expr = "sub(_1, mul(_2, _3))"
// CHECK: "func.return"(%[[NEW]], %[[VEL]], %{{.*}})
func.func @sgd_combined_nesterov(%w: tensor<2xf32>, %g: tensor<2xf32>, %v: tensor<2xf32>, %t: tensor<f32>, %lr: tensor<f32>, %momentum: tensor<f32>, %dampening: tensor<f32>, %weight_decay: tensor<f32>, %velocity_scaling: tensor<f32>, %loss_scaling: tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<f32>) {
  %0:3 = "ipu.sgd_update"(%w, %g, %v, %t, %lr, %momentum, %dampening, %weight_decay, %velocity_scaling, %loss_scaling) {nesterov = true, variant = "combined", with_momentum = true, hyper_names = ["lr", "momentum", "dampening", "weight_decay", "velocity_scaling", "loss_scaling"], operandSegmentSizes = array<i32: 1, 1, 1, 1, 6>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<f32>)
  return %0#0, %0#1, %0#2 : tensor<2xf32>, tensor<2xf32>, tensor<f32>
}
// -----

// Gradient accumulation: Sum, and Mean with the Post strategy (the update divides by
// G), add the gradient into the accumulator; Sum ignores the strategy. Mean with the
// Running strategy keeps the running mean acc + (g - acc) / count (count from 1, so
// the first micro-batch's gradient replaces the zeroed accumulator).
// CHECK-LABEL: sym_name = "accumulate_grad"
// CHECK: ^bb0(%[[ACC:arg[0-9]+]]: tensor<2x3xf32>, %[[G:arg[0-9]+]]: tensor<2x3xf32>, %[[COUNT:arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT: %[[POST:.*]] = "poplar.popops_map"(%[[ACC]], %[[G]]) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[SUM:.*]] = "poplar.popops_map"(%[[ACC]], %[[G]]) {expr = "add(_1, _2)"
// CHECK-NEXT: %[[SUMR:.*]] = "poplar.popops_map"(%[[ACC]], %[[G]]) {expr = "add(_1, _2)"
// CHECK-NEXT: %[[RUNNING:.*]] = "poplar.popops_map"(%[[ACC]], %[[G]], %[[COUNT]]) {expr = "add(_1, div(sub(_2, _1), _3))", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT: "func.return"(%[[POST]], %[[SUM]], %[[SUMR]], %[[RUNNING]])
func.func @accumulate_grad(%acc: tensor<2x3xf32>, %g: tensor<2x3xf32>, %count: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = "ipu.accumulate_grad"(%acc, %g, %count) {reduction = "mean", strategy = "post"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = "ipu.accumulate_grad"(%acc, %g, %count) {reduction = "sum", strategy = "post"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %2 = "ipu.accumulate_grad"(%acc, %g, %count) {reduction = "sum", strategy = "running"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %3 = "ipu.accumulate_grad"(%acc, %g, %count) {reduction = "mean", strategy = "running"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
// -----

// Adam as torch.optim.Adam computes it: the step count t = step + 1 (also the new
// step); g = grad / loss_scaling + weight_decay * w (L2); m = lerp(m, g, 1 - beta1);
// v = beta2 v + (1 - beta2) g^2; then w -= lr / (1 - beta1^t) * m / (sqrt(v) /
// sqrt(1 - beta2^t) + eps).
// CHECK-LABEL: sym_name = "adam"
// CHECK: ^bb0(%[[W:arg[0-9]+]]: tensor<2x3xf32>, %[[G:arg[0-9]+]]: tensor<2x3xf32>, %[[M:arg[0-9]+]]: tensor<2x3xf32>, %[[V:arg[0-9]+]]: tensor<2x3xf32>, %[[T:arg[0-9]+]]: tensor<f32>, %[[LR:arg[0-9]+]]: tensor<f32>, %[[B1:arg[0-9]+]]: tensor<f32>, %[[B2:arg[0-9]+]]: tensor<f32>, %[[EPS:arg[0-9]+]]: tensor<f32>, %[[WD:arg[0-9]+]]: tensor<f32>, %[[LS:arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT: %[[STEP:.*]] = "poplar.popops_map"(%[[T]]) {expr = "add(_1, 1.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[UNSCALED:.*]] = "poplar.popops_map"(%[[G]], %[[LS]]) {expr = "div(_1, _2)"
// CHECK-NEXT: %[[DECAYED:.*]] = "poplar.popops_map"(%[[UNSCALED]], %[[W]], %[[WD]]) {expr = "add(_1, mul(_2, _3))"
// CHECK-NEXT: %[[NEWM:.*]] = "poplar.popops_map"(%[[M]], %[[DECAYED]], %[[B1]]) {expr = "add(_1, mul(sub(1.0, _3), sub(_2, _1)))", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[VB2:.*]] = "poplar.popops_map"(%[[V]], %[[B2]]) {expr = "mul(_1, _2)"
// CHECK-NEXT: %[[NEWV:.*]] = "poplar.popops_map"(%[[VB2]], %[[DECAYED]], %[[B2]]) {expr = "add(_1, mul(mul(_2, _2), sub(1.0, _3)))"
// CHECK-NEXT: %[[STEPSIZE:.*]] = "poplar.popops_map"(%[[LR]], %[[B1]], %[[STEP]]) {expr = "div(_1, sub(1.0, pow(_2, _3)))", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[BC2:.*]] = "poplar.popops_map"(%[[B2]], %[[STEP]]) {expr = "sqrt(sub(1.0, pow(_1, _2)))", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[DENOM:.*]] = "poplar.popops_map"(%[[NEWV]], %[[BC2]], %[[EPS]]) {expr = "add(div(sqrt(_1), _2), _3)"
// CHECK-NEXT: %[[RATIO:.*]] = "poplar.popops_map"(%[[NEWM]], %[[DENOM]]) {expr = "div(_1, _2)"
// CHECK-NEXT: %[[NEW:.*]] = "poplar.popops_map"(%[[W]], %[[RATIO]], %[[STEPSIZE]]) {expr = "sub(_1, mul(_2, _3))"
// CHECK-NEXT: "func.return"(%[[NEW]], %[[NEWM]], %[[NEWV]], %[[STEP]])
func.func @adam(%w: tensor<2x3xf32>, %g: tensor<2x3xf32>, %m: tensor<2x3xf32>, %v: tensor<2x3xf32>, %t: tensor<f32>, %lr: tensor<f32>, %beta1: tensor<f32>, %beta2: tensor<f32>, %eps: tensor<f32>, %weight_decay: tensor<f32>, %loss_scaling: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>) {
  %0:4 = "ipu.adam_update"(%w, %g, %m, %v, %t, %lr, %beta1, %beta2, %eps, %weight_decay, %loss_scaling) {bias_correction = true, variant = "adam", hyper_names = ["lr", "beta1", "beta2", "eps", "weight_decay", "loss_scaling"], operandSegmentSizes = array<i32: 1, 1, 2, 1, 6>, resultSegmentSizes = array<i32: 1, 2, 1>} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>
}
// -----

// AdamW decouples the decay: w first becomes w * (1 - lr * weight_decay) and the
// gradient is only unscaled; the final step starts from the decayed weight.
// CHECK-LABEL: sym_name = "adamw"
// CHECK: ^bb0(%[[W:arg[0-9]+]]: tensor<2x3xf32>, %[[G:arg[0-9]+]]: tensor<2x3xf32>, %[[M:arg[0-9]+]]: tensor<2x3xf32>, %[[V:arg[0-9]+]]: tensor<2x3xf32>, %[[T:arg[0-9]+]]: tensor<f32>, %[[LR:arg[0-9]+]]: tensor<f32>, %[[B1:arg[0-9]+]]: tensor<f32>, %[[B2:arg[0-9]+]]: tensor<f32>, %[[EPS:arg[0-9]+]]: tensor<f32>, %[[WD:arg[0-9]+]]: tensor<f32>, %[[LS:arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT: %[[STEP:.*]] = "poplar.popops_map"(%[[T]]) {expr = "add(_1, 1.0)"
// CHECK-NEXT: %[[DECAYEDW:.*]] = "poplar.popops_map"(%[[W]], %[[LR]], %[[WD]]) {expr = "mul(_1, sub(1.0, mul(_2, _3)))", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[UNSCALED:.*]] = "poplar.popops_map"(%[[G]], %[[LS]]) {expr = "div(_1, _2)"
// CHECK-NEXT: %[[NEWM:.*]] = "poplar.popops_map"(%[[M]], %[[UNSCALED]], %[[B1]]) {expr = "add(_1, mul(sub(1.0, _3), sub(_2, _1)))"
// CHECK-NOT: %[[WD]]
// CHECK: %[[RATIO:.*]] = "poplar.popops_map"(%[[NEWM]], %{{.*}}) {expr = "div(_1, _2)"
// CHECK-NEXT: %[[NEW:.*]] = "poplar.popops_map"(%[[DECAYEDW]], %[[RATIO]], %{{.*}}) {expr = "sub(_1, mul(_2, _3))"
// CHECK-NEXT: "func.return"(%[[NEW]], %[[NEWM]], %{{.*}}, %[[STEP]])
func.func @adamw(%w: tensor<2x3xf32>, %g: tensor<2x3xf32>, %m: tensor<2x3xf32>, %v: tensor<2x3xf32>, %t: tensor<f32>, %lr: tensor<f32>, %beta1: tensor<f32>, %beta2: tensor<f32>, %eps: tensor<f32>, %weight_decay: tensor<f32>, %loss_scaling: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>) {
  %0:4 = "ipu.adam_update"(%w, %g, %m, %v, %t, %lr, %beta1, %beta2, %eps, %weight_decay, %loss_scaling) {bias_correction = true, variant = "adamw", hyper_names = ["lr", "beta1", "beta2", "eps", "weight_decay", "loss_scaling"], operandSegmentSizes = array<i32: 1, 1, 2, 1, 6>, resultSegmentSizes = array<i32: 1, 2, 1>} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>
}
// -----

// Without bias correction the step size is lr and the denominator sqrt(v) + eps.
// CHECK-LABEL: sym_name = "adam_no_bias_correction"
// CHECK: ^bb0(%[[W:arg[0-9]+]]: tensor<2x3xf32>, %{{.*}}, %[[LR:arg[0-9]+]]: tensor<f32>, %[[B1:arg[0-9]+]]: tensor<f32>, %[[B2:arg[0-9]+]]: tensor<f32>, %[[EPS:arg[0-9]+]]: tensor<f32>, %[[WD:arg[0-9]+]]: tensor<f32>, %[[LS:arg[0-9]+]]: tensor<f32>):
// CHECK: %[[NEWV:.*]] = "poplar.popops_map"(%{{.*}}, %{{.*}}, %[[B2]]) {expr = "add(_1, mul(mul(_2, _2), sub(1.0, _3)))"
// CHECK-NEXT: %[[DENOM:.*]] = "poplar.popops_map"(%[[NEWV]], %[[EPS]]) {expr = "add(sqrt(_1), _2)"
// CHECK-NEXT: %[[RATIO:.*]] = "poplar.popops_map"(%{{.*}}, %[[DENOM]]) {expr = "div(_1, _2)"
// CHECK-NEXT: "poplar.popops_map"(%[[W]], %[[RATIO]], %[[LR]]) {expr = "sub(_1, mul(_2, _3))"
// CHECK-NOT: pow(
// CHECK: "func.return"
func.func @adam_no_bias_correction(%w: tensor<2x3xf32>, %g: tensor<2x3xf32>, %m: tensor<2x3xf32>, %v: tensor<2x3xf32>, %t: tensor<f32>, %lr: tensor<f32>, %beta1: tensor<f32>, %beta2: tensor<f32>, %eps: tensor<f32>, %weight_decay: tensor<f32>, %loss_scaling: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>) {
  %0:4 = "ipu.adam_update"(%w, %g, %m, %v, %t, %lr, %beta1, %beta2, %eps, %weight_decay, %loss_scaling) {bias_correction = false, variant = "adam", hyper_names = ["lr", "beta1", "beta2", "eps", "weight_decay", "loss_scaling"], operandSegmentSizes = array<i32: 1, 1, 2, 1, 6>, resultSegmentSizes = array<i32: 1, 2, 1>} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>
}
// -----

// RMSprop as torch.optim.RMSprop: g = grad / loss_scaling + weight_decay * w;
// sq = alpha sq + (1 - alpha) g^2; w -= lr * g / (sqrt(sq) + eps). No step count.
// CHECK-LABEL: sym_name = "rmsprop"
// CHECK: ^bb0(%[[W:arg[0-9]+]]: tensor<3xf32>, %[[G:arg[0-9]+]]: tensor<3xf32>, %[[SQ:arg[0-9]+]]: tensor<3xf32>, %[[LR:arg[0-9]+]]: tensor<f32>, %[[ALPHA:arg[0-9]+]]: tensor<f32>, %[[EPS:arg[0-9]+]]: tensor<f32>, %[[MOM:arg[0-9]+]]: tensor<f32>, %[[WD:arg[0-9]+]]: tensor<f32>, %[[LS:arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT: %[[UNSCALED:.*]] = "poplar.popops_map"(%[[G]], %[[LS]]) {expr = "div(_1, _2)"
// CHECK-NEXT: %[[DECAYED:.*]] = "poplar.popops_map"(%[[UNSCALED]], %[[W]], %[[WD]]) {expr = "add(_1, mul(_2, _3))"
// CHECK-NEXT: %[[SQA:.*]] = "poplar.popops_map"(%[[SQ]], %[[ALPHA]]) {expr = "mul(_1, _2)"
// CHECK-NEXT: %[[NEWSQ:.*]] = "poplar.popops_map"(%[[SQA]], %[[DECAYED]], %[[ALPHA]]) {expr = "add(_1, mul(mul(_2, _2), sub(1.0, _3)))"
// CHECK-NEXT: %[[AVG:.*]] = "poplar.popops_map"(%[[NEWSQ]], %[[EPS]]) {expr = "add(sqrt(_1), _2)"
// CHECK-NEXT: %[[Q:.*]] = "poplar.popops_map"(%[[DECAYED]], %[[AVG]]) {expr = "div(_1, _2)"
// CHECK-NEXT: %[[NEW:.*]] = "poplar.popops_map"(%[[W]], %[[Q]], %[[LR]]) {expr = "sub(_1, mul(_2, _3))"
// CHECK-NEXT: "func.return"(%[[NEW]], %[[NEWSQ]])
func.func @rmsprop(%w: tensor<3xf32>, %g: tensor<3xf32>, %sq: tensor<3xf32>, %lr: tensor<f32>, %alpha: tensor<f32>, %eps: tensor<f32>, %momentum: tensor<f32>, %weight_decay: tensor<f32>, %loss_scaling: tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0:2 = "ipu.rmsprop_update"(%w, %g, %sq, %lr, %alpha, %eps, %momentum, %weight_decay, %loss_scaling) {centered = false, use_tf_variant = false, with_momentum = false, hyper_names = ["lr", "alpha", "eps", "momentum", "weight_decay", "loss_scaling"], operandSegmentSizes = array<i32: 1, 1, 1, 0, 6>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1 : tensor<3xf32>, tensor<3xf32>
}
// -----

// Centered RMSprop with momentum: state (square_avg, momentum_buffer, grad_avg). The
// gradient average is a lerp with weight 1 - alpha; the variance sq - grad_avg^2
// replaces sq under the root; buf = momentum * buf + g / avg; w -= lr * buf.
// CHECK-LABEL: sym_name = "rmsprop_centered_momentum"
// CHECK: ^bb0(%[[W:arg[0-9]+]]: tensor<3xf32>, %[[G:arg[0-9]+]]: tensor<3xf32>, %[[SQ:arg[0-9]+]]: tensor<3xf32>, %[[BUF:arg[0-9]+]]: tensor<3xf32>, %[[GAVG:arg[0-9]+]]: tensor<3xf32>, %[[LR:arg[0-9]+]]: tensor<f32>, %[[ALPHA:arg[0-9]+]]: tensor<f32>, %[[EPS:arg[0-9]+]]: tensor<f32>, %[[MOM:arg[0-9]+]]: tensor<f32>, %[[WD:arg[0-9]+]]: tensor<f32>, %[[LS:arg[0-9]+]]: tensor<f32>):
// CHECK: %[[DECAYED:.*]] = "poplar.popops_map"(%{{.*}}, %[[W]], %[[WD]]) {expr = "add(_1, mul(_2, _3))"
// CHECK: %[[NEWSQ:.*]] = "poplar.popops_map"(%{{.*}}, %[[DECAYED]], %[[ALPHA]]) {expr = "add(_1, mul(mul(_2, _2), sub(1.0, _3)))"
// CHECK-NEXT: %[[NEWGAVG:.*]] = "poplar.popops_map"(%[[GAVG]], %[[DECAYED]], %[[ALPHA]]) {expr = "add(_1, mul(sub(1.0, _3), sub(_2, _1)))"
// CHECK-NEXT: %[[VAR:.*]] = "poplar.popops_map"(%[[NEWSQ]], %[[NEWGAVG]]) {expr = "sub(_1, mul(_2, _2))"
// CHECK-NEXT: %[[AVG:.*]] = "poplar.popops_map"(%[[VAR]], %[[EPS]]) {expr = "add(sqrt(_1), _2)"
// CHECK-NEXT: %[[Q:.*]] = "poplar.popops_map"(%[[DECAYED]], %[[AVG]]) {expr = "div(_1, _2)"
// CHECK-NEXT: %[[NEWBUF:.*]] = "poplar.popops_map"(%[[BUF]], %[[MOM]], %[[Q]]) {expr = "add(mul(_1, _2), _3)"
// CHECK-NEXT: %[[NEW:.*]] = "poplar.popops_map"(%[[W]], %[[NEWBUF]], %[[LR]]) {expr = "sub(_1, mul(_2, _3))"
// CHECK-NEXT: "func.return"(%[[NEW]], %[[NEWSQ]], %[[NEWBUF]], %[[NEWGAVG]])
func.func @rmsprop_centered_momentum(%w: tensor<3xf32>, %g: tensor<3xf32>, %sq: tensor<3xf32>, %buf: tensor<3xf32>, %gavg: tensor<3xf32>, %lr: tensor<f32>, %alpha: tensor<f32>, %eps: tensor<f32>, %momentum: tensor<f32>, %weight_decay: tensor<f32>, %loss_scaling: tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0:4 = "ipu.rmsprop_update"(%w, %g, %sq, %buf, %gavg, %lr, %alpha, %eps, %momentum, %weight_decay, %loss_scaling) {centered = true, use_tf_variant = false, with_momentum = true, hyper_names = ["lr", "alpha", "eps", "momentum", "weight_decay", "loss_scaling"], operandSegmentSizes = array<i32: 1, 1, 3, 0, 6>, resultSegmentSizes = array<i32: 1, 3, 0>} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
// -----

// TensorFlow's RMSprop (use_tf_variant): eps inside the root, sqrt(sq + eps), and lr
// folded into the momentum: buf = momentum * buf + lr * g / avg; w -= buf.
// CHECK-LABEL: sym_name = "rmsprop_tf"
// CHECK: ^bb0(%[[W:arg[0-9]+]]: tensor<3xf32>, %[[G:arg[0-9]+]]: tensor<3xf32>, %[[SQ:arg[0-9]+]]: tensor<3xf32>, %[[BUF:arg[0-9]+]]: tensor<3xf32>, %[[LR:arg[0-9]+]]: tensor<f32>, %[[ALPHA:arg[0-9]+]]: tensor<f32>, %[[EPS:arg[0-9]+]]: tensor<f32>, %[[MOM:arg[0-9]+]]: tensor<f32>, %[[WD:arg[0-9]+]]: tensor<f32>, %[[LS:arg[0-9]+]]: tensor<f32>):
// CHECK: %[[DECAYED:.*]] = "poplar.popops_map"(%{{.*}}, %[[W]], %[[WD]]) {expr = "add(_1, mul(_2, _3))"
// CHECK: %[[NEWSQ:.*]] = "poplar.popops_map"(%{{.*}}, %[[DECAYED]], %[[ALPHA]]) {expr = "add(_1, mul(mul(_2, _2), sub(1.0, _3)))"
// CHECK-NEXT: %[[AVG:.*]] = "poplar.popops_map"(%[[NEWSQ]], %[[EPS]]) {expr = "sqrt(add(_1, _2))"
// CHECK-NEXT: %[[Q:.*]] = "poplar.popops_map"(%[[DECAYED]], %[[AVG]]) {expr = "div(_1, _2)"
// CHECK-NEXT: %[[LRQ:.*]] = "poplar.popops_map"(%[[Q]], %[[LR]]) {expr = "mul(_1, _2)"
// CHECK-NEXT: %[[NEWBUF:.*]] = "poplar.popops_map"(%[[BUF]], %[[MOM]], %[[LRQ]]) {expr = "add(mul(_1, _2), _3)"
// CHECK-NEXT: %[[NEW:.*]] = "poplar.popops_map"(%[[W]], %[[NEWBUF]]) {expr = "sub(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: "func.return"(%[[NEW]], %[[NEWSQ]], %[[NEWBUF]])
func.func @rmsprop_tf(%w: tensor<3xf32>, %g: tensor<3xf32>, %sq: tensor<3xf32>, %buf: tensor<3xf32>, %lr: tensor<f32>, %alpha: tensor<f32>, %eps: tensor<f32>, %momentum: tensor<f32>, %weight_decay: tensor<f32>, %loss_scaling: tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0:3 = "ipu.rmsprop_update"(%w, %g, %sq, %buf, %lr, %alpha, %eps, %momentum, %weight_decay, %loss_scaling) {centered = false, use_tf_variant = true, with_momentum = true, hyper_names = ["lr", "alpha", "eps", "momentum", "weight_decay", "loss_scaling"], operandSegmentSizes = array<i32: 1, 1, 2, 0, 6>, resultSegmentSizes = array<i32: 1, 2, 0>} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1, %0#2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
// -----

// LAMB: moments as Adam (m in the beta1 m + (1 - beta1) g form), bias-corrected; the
// update u = m^ / (sqrt(v^) + eps) + weight_decay * w; the trust ratio
// phi(||w||) / ||u|| with phi(z) = min(z, max_weight_norm) and ratio 1 when either
// norm is 0 (the norms are square_add reductions over all dims); w -= lr * ratio * u.
// CHECK-LABEL: sym_name = "lamb"
// CHECK: ^bb0(%[[W:arg[0-9]+]]: tensor<2x3xf32>, %[[G:arg[0-9]+]]: tensor<2x3xf32>, %[[M:arg[0-9]+]]: tensor<2x3xf32>, %[[V:arg[0-9]+]]: tensor<2x3xf32>, %[[T:arg[0-9]+]]: tensor<f32>, %[[LR:arg[0-9]+]]: tensor<f32>, %[[B1:arg[0-9]+]]: tensor<f32>, %[[B2:arg[0-9]+]]: tensor<f32>, %[[EPS:arg[0-9]+]]: tensor<f32>, %[[WD:arg[0-9]+]]: tensor<f32>, %[[MAXN:arg[0-9]+]]: tensor<f32>, %[[LS:arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT: %[[UNSCALED:.*]] = "poplar.popops_map"(%[[G]], %[[LS]]) {expr = "div(_1, _2)"
// CHECK-NEXT: %[[STEP:.*]] = "poplar.popops_map"(%[[T]]) {expr = "add(_1, 1.0)"
// CHECK-NEXT: %[[NEWM:.*]] = "poplar.popops_map"(%[[M]], %[[UNSCALED]], %[[B1]]) {expr = "add(mul(_1, _3), mul(_2, sub(1.0, _3)))"
// CHECK-NEXT: %[[VB2:.*]] = "poplar.popops_map"(%[[V]], %[[B2]]) {expr = "mul(_1, _2)"
// CHECK-NEXT: %[[NEWV:.*]] = "poplar.popops_map"(%[[VB2]], %[[UNSCALED]], %[[B2]]) {expr = "add(_1, mul(mul(_2, _2), sub(1.0, _3)))"
// CHECK-NEXT: %[[MHAT:.*]] = "poplar.popops_map"(%[[NEWM]], %[[B1]], %[[STEP]]) {expr = "div(_1, sub(1.0, pow(_2, _3)))"
// CHECK-NEXT: %[[VHAT:.*]] = "poplar.popops_map"(%[[NEWV]], %[[B2]], %[[STEP]]) {expr = "div(_1, sub(1.0, pow(_2, _3)))"
// CHECK-NEXT: %[[ADAM:.*]] = "poplar.popops_map"(%[[MHAT]], %[[VHAT]], %[[EPS]]) {expr = "div(_1, add(sqrt(_2), _3))"
// CHECK-NEXT: %[[U:.*]] = "poplar.popops_map"(%[[ADAM]], %[[W]], %[[WD]]) {expr = "add(_1, mul(_2, _3))"
// CHECK-NEXT: %[[WSQ:.*]] = "poplar.popops_reduce"(%[[W]]) {dims = array<i64: 0, 1>, keep_dims = false, op = "square_add", scale = 1.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<f32>
// CHECK-NEXT: %[[WNORM:.*]] = "poplar.popops_map"(%[[WSQ]]) {expr = "sqrt(_1)"
// CHECK-NEXT: %[[PHI:.*]] = "poplar.popops_map"(%[[WNORM]], %[[MAXN]]) {expr = "min(_1, _2)"
// CHECK-NEXT: %[[USQ:.*]] = "poplar.popops_reduce"(%[[U]]) {dims = array<i64: 0, 1>, keep_dims = false, op = "square_add", scale = 1.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<f32>
// CHECK-NEXT: %[[UNORM:.*]] = "poplar.popops_map"(%[[USQ]]) {expr = "sqrt(_1)"
// CHECK-NEXT: %[[RATIO:.*]] = "poplar.popops_map"(%[[PHI]], %[[UNORM]]) {expr = "select(or(eq(_1, 0.0), eq(_2, 0.0)), 1.0, div(_1, _2))", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[SCALE:.*]] = "poplar.popops_map"(%[[LR]], %[[RATIO]]) {expr = "mul(_1, _2)"
// CHECK-NEXT: %[[NEW:.*]] = "poplar.popops_map"(%[[W]], %[[U]], %[[SCALE]]) {expr = "sub(_1, mul(_2, _3))"
// CHECK-NEXT: "func.return"(%[[NEW]], %[[NEWM]], %[[NEWV]], %[[STEP]])
func.func @lamb(%w: tensor<2x3xf32>, %g: tensor<2x3xf32>, %m: tensor<2x3xf32>, %v: tensor<2x3xf32>, %t: tensor<f32>, %lr: tensor<f32>, %beta1: tensor<f32>, %beta2: tensor<f32>, %eps: tensor<f32>, %weight_decay: tensor<f32>, %max_weight_norm: tensor<f32>, %loss_scaling: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>) {
  %0:4 = "ipu.lamb_update"(%w, %g, %m, %v, %t, %lr, %beta1, %beta2, %eps, %weight_decay, %max_weight_norm, %loss_scaling) {bias_correction = true, hyper_names = ["lr", "beta1", "beta2", "eps", "weight_decay", "max_weight_norm", "loss_scaling"], operandSegmentSizes = array<i32: 1, 1, 2, 1, 7>, resultSegmentSizes = array<i32: 1, 2, 1>} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>
}
// -----

// LAMB without bias correction uses the moments directly.
// CHECK-LABEL: sym_name = "lamb_no_bias_correction"
// CHECK: %[[NEWM:.*]] = "poplar.popops_map"({{.*}}) {expr = "add(mul(_1, _3), mul(_2, sub(1.0, _3)))"
// CHECK: %[[NEWV:.*]] = "poplar.popops_map"({{.*}}) {expr = "add(_1, mul(mul(_2, _2), sub(1.0, _3)))"
// CHECK-NEXT: "poplar.popops_map"(%[[NEWM]], %[[NEWV]], %{{.*}}) {expr = "div(_1, add(sqrt(_2), _3))"
// CHECK-NOT: pow(
// CHECK: "func.return"
func.func @lamb_no_bias_correction(%w: tensor<2x3xf32>, %g: tensor<2x3xf32>, %m: tensor<2x3xf32>, %v: tensor<2x3xf32>, %t: tensor<f32>, %lr: tensor<f32>, %beta1: tensor<f32>, %beta2: tensor<f32>, %eps: tensor<f32>, %weight_decay: tensor<f32>, %max_weight_norm: tensor<f32>, %loss_scaling: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>) {
  %0:4 = "ipu.lamb_update"(%w, %g, %m, %v, %t, %lr, %beta1, %beta2, %eps, %weight_decay, %max_weight_norm, %loss_scaling) {bias_correction = false, hyper_names = ["lr", "beta1", "beta2", "eps", "weight_decay", "max_weight_norm", "loss_scaling"], operandSegmentSizes = array<i32: 1, 1, 2, 1, 7>, resultSegmentSizes = array<i32: 1, 2, 1>} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>
}
// -----

// The ops that replace an update inherit its placement (ipu.block, pipeline.stage,
// pipeline.ipu), so a pipelined step runs the update in the stage of its weight; the
// ops around it are untouched and no ipu op remains.
// CHECK-LABEL: sym_name = "placement"
// CHECK: ^bb0(%[[ACC:arg[0-9]+]]: tensor<3xf32>, %[[G:arg[0-9]+]]: tensor<3xf32>, %[[COUNT:arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT: %[[SCALED:.*]] = "poplar.popops_map"(%[[G]]) {expr = "mul(_1, 2.0)"
// CHECK-NEXT: %[[RUNNING:.*]] = "poplar.popops_map"(%[[ACC]], %[[SCALED]], %[[COUNT]]) {expr = "add(_1, div(sub(_2, _1), _3))", ipu.block = #ipu.block<"B", 1 : i64>, operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK-NEXT: "func.return"(%[[RUNNING]])
// CHECK-NOT: ipu.accumulate_grad
func.func @placement(%acc: tensor<3xf32>, %g: tensor<3xf32>, %count: tensor<f32>) -> tensor<3xf32> {
  %0 = "poplar.popops_map"(%g) {expr = "mul(_1, 2.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "ipu.accumulate_grad"(%acc, %0, %count) {reduction = "mean", strategy = "running", ipu.block = #ipu.block<"B", 1 : i64>, pipeline.stage = 1 : i64, pipeline.ipu = 1 : i64} : (tensor<3xf32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// Gradients reduced across replicas become gcl::allReduceCrossReplica within the op's
// group (the mean, or "add" for the sum); a broadcast buffer takes rank 0's value of the
// group of all replicas.
// CHECK-LABEL: sym_name = "replicas"
// CHECK: ^bb0(%[[G:arg[0-9]+]]: tensor<2x3xf32>, %[[M:arg[0-9]+]]: tensor<3xf32>):
// CHECK-NEXT: %[[MEAN:.*]] = "poplar.gcl_all_reduce"(%[[G]]) {group = #poplar.comm_group<"all", 0 : i64>, op = "mean"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[SUM:.*]] = "poplar.gcl_all_reduce"(%[[G]]) {group = #poplar.comm_group<"orthogonal", 2 : i64>, op = "add"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[B:.*]] = "poplar.gcl_broadcast"(%[[M]]) {group = #poplar.comm_group<"all", 0 : i64>, root = 0 : i64} : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: "func.return"(%[[MEAN]], %[[SUM]], %[[B]])
func.func @replicas(%g: tensor<2x3xf32>, %m: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>) {
  %0 = "ipu.replica_reduce"(%g) {kind = "mean", replication_factor = 4 : i64, group = #poplar.comm_group<"all", 0 : i64>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "ipu.replica_reduce"(%g) {kind = "sum", replication_factor = 4 : i64, group = #poplar.comm_group<"orthogonal", 2 : i64>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "ipu.replica_broadcast"(%m) {replication_factor = 4 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>
}

// -----

// Replicated tensor sharding: a replica's part is a gcl::reduceScatterCrossReplica of the
// flattened tensor zero-padded to R parts (10 elements + 2 zeros over 4 replicas: parts of
// 3), op mean / add for a gradient, local for the replica's own weight; the whole tensor is
// the parts all-gathered, the padding sliced off, reshaped. No padding when R divides n.
// CHECK-LABEL: sym_name = "sharding"
// CHECK: %[[F:.*]] = "poplar.reshape"(%arg0) : (tensor<2x5xf32>) -> tensor<10xf32>
// CHECK-NEXT: %[[Z:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<0.000000e+00> : tensor<2xf32>} : () -> tensor<2xf32>
// CHECK-NEXT: %[[P:.*]] = "poplar.concat"(%[[F]], %[[Z]]) {dim = 0 : i64} : (tensor<10xf32>, tensor<2xf32>) -> tensor<12xf32>
// CHECK-NEXT: %[[G:.*]] = "poplar.gcl_reduce_scatter"(%[[P]]) {group = #poplar.comm_group<"all", 0 : i64>, op = "mean"} : (tensor<12xf32>) -> tensor<3xf32>
// CHECK: "poplar.gcl_reduce_scatter"(%{{.*}}) {group = #poplar.comm_group<"all", 0 : i64>, op = "local"} : (tensor<12xf32>) -> tensor<3xf32>
// CHECK: %[[A:.*]] = "poplar.gcl_all_gather"(%[[G]]) {group = #poplar.comm_group<"all", 0 : i64>} : (tensor<3xf32>) -> tensor<12xf32>
// CHECK-NEXT: %[[S:.*]] = "poplar.slice"(%[[A]]) {begin = array<i64: 0>, end = array<i64: 10>, stride = array<i64: 1>} : (tensor<12xf32>) -> tensor<10xf32>
// CHECK-NEXT: %[[W:.*]] = "poplar.reshape"(%[[S]]) : (tensor<10xf32>) -> tensor<2x5xf32>
// CHECK-NEXT: %[[E:.*]] = "poplar.gcl_reduce_scatter"(%arg1) {group = #poplar.comm_group<"all", 0 : i64>, op = "add"} : (tensor<8xf32>) -> tensor<2xf32>
// CHECK-NEXT: "poplar.gcl_all_gather"(%[[E]]) {group = #poplar.comm_group<"all", 0 : i64>} : (tensor<2xf32>) -> tensor<8xf32>
// CHECK-NEXT: "func.return"(%[[W]],
func.func @sharding(%g: tensor<2x5xf32>, %b: tensor<8xf32>) -> (tensor<2x5xf32>, tensor<3xf32>, tensor<8xf32>) {
  %0 = "ipu.replica_shard"(%g) {kind = "mean", replication_factor = 4 : i64} : (tensor<2x5xf32>) -> tensor<3xf32>
  %1 = "ipu.replica_shard"(%g) {kind = "local", replication_factor = 4 : i64} : (tensor<2x5xf32>) -> tensor<3xf32>
  %2 = "ipu.replica_unshard"(%0) {replication_factor = 4 : i64} : (tensor<3xf32>) -> tensor<2x5xf32>
  %3 = "ipu.replica_shard"(%b) {kind = "sum", replication_factor = 4 : i64} : (tensor<8xf32>) -> tensor<2xf32>
  %4 = "ipu.replica_unshard"(%3) {replication_factor = 4 : i64} : (tensor<2xf32>) -> tensor<8xf32>
  return %2, %1, %4 : tensor<2x5xf32>, tensor<3xf32>, tensor<8xf32>
}

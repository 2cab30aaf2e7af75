// RUN: ipu-opt %s -p 'convert-torch-to-poplar{training=true}' --split-input-file | FileCheck %s
// RUN: ipu-opt %s -p convert-torch-to-poplar --split-input-file | FileCheck %s --check-prefix=INFER
// RUN: ipu-opt %s -p 'convert-torch-to-poplar{training=true},convert-ipu-to-poplar' --split-input-file | FileCheck %s --check-prefix=BOTH

// Inputs are trimmed from the joint forward + backward functions that capture_training
// gives for small models (Linear, Conv2d, BatchNorm2d, LayerNorm, GroupNorm, pooling,
// Dropout, Embedding with MSELoss / NLLLoss), and from ipu-insert-training's output for
// the optimizer updates. The backward ops lower to the gradient ops of the poplar
// dialect; the detach ops of the capture are identities. The optimizer updates and
// gradient accumulation stay ipu ops over the converted tensors: convert-ipu-to-poplar
// lowers them (its own test has one case per optimizer).

// Activation gradients are popnn_nonlinearity_grad. ReLU's reads the saved ReLU output
// (as the capture passes it to threshold_backward; it is > 0 exactly where the input
// is), GELU's the forward input (the approximation picks the kind), sigmoid's and tanh's
// the forward output.
// CHECK-LABEL: sym_name = "activation_grads"
// CHECK: ^bb0(%[[X:arg[0-9]+]]: tensor<2x4xf32>, %[[G:arg[0-9]+]]: tensor<2x4xf32>):
// CHECK: %[[RELU:.*]] = "poplar.popnn_nonlinearity"(%[[X]]) {dim = 0 : i64, kind = "relu"}
// CHECK: %[[SIG:.*]] = "poplar.popnn_nonlinearity"(%[[X]]) {dim = 0 : i64, kind = "sigmoid"}
// CHECK: %[[TANH:.*]] = "poplar.popnn_nonlinearity"(%[[X]]) {dim = 0 : i64, kind = "tanh"}
// CHECK: %[[GT:.*]] = "poplar.popnn_nonlinearity_grad"(%[[G]], %[[TANH]]) {dim = 0 : i64, kind = "tanh"} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[GS:.*]] = "poplar.popnn_nonlinearity_grad"(%[[G]], %[[SIG]]) {dim = 0 : i64, kind = "sigmoid"} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[GE:.*]] = "poplar.popnn_nonlinearity_grad"(%[[G]], %[[X]]) {dim = 0 : i64, kind = "gelu_erf"} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[GET:.*]] = "poplar.popnn_nonlinearity_grad"(%[[G]], %[[X]]) {dim = 0 : i64, kind = "gelu_tanh"} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[GR:.*]] = "poplar.popnn_nonlinearity_grad"(%[[G]], %[[RELU]]) {dim = 0 : i64, kind = "relu"} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: "func.return"(%[[GT]], %[[GS]], %[[GE]], %[[GET]], %[[GR]])
func.func @activation_grads(%x: !torch.vtensor<[2,4],f32>, %g: !torch.vtensor<[2,4],f32>) -> (!torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>) {
  %0 = torch.aten.relu %x : !torch.vtensor<[2,4],f32> -> !torch.vtensor<[2,4],f32>
  %1 = torch.aten.detach %0 : !torch.vtensor<[2,4],f32> -> !torch.vtensor<[2,4],f32>
  %2 = torch.aten.sigmoid %x : !torch.vtensor<[2,4],f32> -> !torch.vtensor<[2,4],f32>
  %3 = torch.aten.detach %2 : !torch.vtensor<[2,4],f32> -> !torch.vtensor<[2,4],f32>
  %4 = torch.aten.tanh %x : !torch.vtensor<[2,4],f32> -> !torch.vtensor<[2,4],f32>
  %5 = torch.aten.detach %4 : !torch.vtensor<[2,4],f32> -> !torch.vtensor<[2,4],f32>
  %6 = torch.aten.tanh_backward %g, %5 : !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32> -> !torch.vtensor<[2,4],f32>
  %7 = torch.aten.sigmoid_backward %g, %3 : !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32> -> !torch.vtensor<[2,4],f32>
  %str = torch.constant.str "none"
  %8 = torch.aten.gelu_backward %g, %x, %str : !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.str -> !torch.vtensor<[2,4],f32>
  %str_tanh = torch.constant.str "tanh"
  %9 = torch.aten.gelu_backward %g, %x, %str_tanh : !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.str -> !torch.vtensor<[2,4],f32>
  %int0 = torch.constant.int 0
  %10 = torch.aten.threshold_backward %g, %1, %int0 : !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.int -> !torch.vtensor<[2,4],f32>
  return %6, %7, %8, %9, %10 : !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>
}

// -----

// Softmax gradients read the forward output along the forward's dim (-1 normalised to
// 1); the input dtype operand (6 = f32) does not matter. _safe_softmax (from attention
// with a mask) is a "safe_softmax" non-linearity over dim -1 = 2.
// CHECK-LABEL: sym_name = "softmax_grads"
// CHECK: ^bb0(%[[X:arg[0-9]+]]: tensor<2x3xf32>, %[[G:arg[0-9]+]]: tensor<2x3xf32>, %[[S:arg[0-9]+]]: tensor<1x3x3xf32>):
// CHECK: %[[SM:.*]] = "poplar.popnn_nonlinearity"(%[[X]]) {dim = 1 : i64, kind = "softmax"}
// CHECK: %[[LSM:.*]] = "poplar.popnn_nonlinearity"(%[[X]]) {dim = 1 : i64, kind = "log_softmax"}
// CHECK: %[[GSM:.*]] = "poplar.popnn_nonlinearity_grad"(%[[G]], %[[SM]]) {dim = 1 : i64, kind = "softmax"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[GLSM:.*]] = "poplar.popnn_nonlinearity_grad"(%[[G]], %[[LSM]]) {dim = 1 : i64, kind = "log_softmax"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[SAFE:.*]] = "poplar.popnn_nonlinearity"(%[[S]]) {dim = 2 : i64, kind = "safe_softmax"} : (tensor<1x3x3xf32>) -> tensor<1x3x3xf32>
// CHECK: "func.return"(%[[GSM]], %[[GLSM]], %[[SAFE]])
func.func @softmax_grads(%x: !torch.vtensor<[2,3],f32>, %g: !torch.vtensor<[2,3],f32>, %scores: !torch.vtensor<[1,3,3],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[1,3,3],f32>) {
  %int-1 = torch.constant.int -1
  %int1 = torch.constant.int 1
  %int6 = torch.constant.int 6
  %false = torch.constant.bool false
  %none = torch.constant.none
  %0 = torch.aten._softmax %x, %int-1, %false : !torch.vtensor<[2,3],f32>, !torch.int, !torch.bool -> !torch.vtensor<[2,3],f32>
  %1 = torch.aten.detach %0 : !torch.vtensor<[2,3],f32> -> !torch.vtensor<[2,3],f32>
  %2 = torch.aten._log_softmax %x, %int1, %false : !torch.vtensor<[2,3],f32>, !torch.int, !torch.bool -> !torch.vtensor<[2,3],f32>
  %3 = torch.aten.detach %2 : !torch.vtensor<[2,3],f32> -> !torch.vtensor<[2,3],f32>
  %4 = torch.aten._softmax_backward_data %g, %1, %int-1, %int6 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.int, !torch.int -> !torch.vtensor<[2,3],f32>
  %5 = torch.aten._log_softmax_backward_data %g, %3, %int1, %int6 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.int, !torch.int -> !torch.vtensor<[2,3],f32>
  %6 = torch.aten._safe_softmax %scores, %int-1, %none : !torch.vtensor<[1,3,3],f32>, !torch.int, !torch.none -> !torch.vtensor<[1,3,3],f32>
  return %4, %5, %6 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[1,3,3],f32>
}

// -----

// NLLLoss(): nll_loss_forward / nll_loss_backward become popnn_nll_loss(_grad) with the
// reduction (1 = "mean", 2 = "sum") and ignore_index; the si64 targets become i64. The
// forward's total_weight result is not lowered: the gradient op recomputes it, so the
// backward does not read it.
// CHECK-LABEL: sym_name = "nll_loss"
// CHECK: ^bb0(%[[LP:arg[0-9]+]]: tensor<2x3xf32>, %[[T:arg[0-9]+]]: tensor<2xi64>, %[[SEED:arg[0-9]+]]: tensor<f32>):
// CHECK: %[[MEAN:.*]] = "poplar.popnn_nll_loss"(%[[LP]], %[[T]]) {ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 0>, reduction = "mean"} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
// CHECK: %[[GMEAN:.*]] = "poplar.popnn_nll_loss_grad"(%[[SEED]], %[[LP]], %[[T]]) {ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, reduction = "mean"} : (tensor<f32>, tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
// CHECK: %[[SUM:.*]] = "poplar.popnn_nll_loss"(%[[LP]], %[[T]]) {ignore_index = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 0>, reduction = "sum"} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
// CHECK: %[[GSUM:.*]] = "poplar.popnn_nll_loss_grad"(%[[SEED]], %[[LP]], %[[T]]) {ignore_index = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, reduction = "sum"} : (tensor<f32>, tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
// CHECK: "func.return"(%[[MEAN]], %[[GMEAN]], %[[SUM]], %[[GSUM]])
func.func @nll_loss(%lp: !torch.vtensor<[2,3],f32>, %t: !torch.vtensor<[2],si64>, %seed: !torch.vtensor<[],f32>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[2,3],f32>) {
  %none = torch.constant.none
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int0 = torch.constant.int 0
  %int-100 = torch.constant.int -100
  %output, %total_weight = torch.aten.nll_loss_forward %lp, %t, %none, %int1, %int-100 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2],si64>, !torch.none, !torch.int, !torch.int -> !torch.vtensor<[],f32>, !torch.vtensor<[],f32>
  %0 = torch.aten.nll_loss_backward %seed, %lp, %t, %none, %int1, %int-100, %total_weight : !torch.vtensor<[],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2],si64>, !torch.none, !torch.int, !torch.int, !torch.vtensor<[],f32> -> !torch.vtensor<[2,3],f32>
  %output_1, %total_weight_1 = torch.aten.nll_loss_forward %lp, %t, %none, %int2, %int0 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2],si64>, !torch.none, !torch.int, !torch.int -> !torch.vtensor<[],f32>, !torch.vtensor<[],f32>
  %1 = torch.aten.nll_loss_backward %seed, %lp, %t, %none, %int2, %int0, %total_weight_1 : !torch.vtensor<[],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2],si64>, !torch.none, !torch.int, !torch.int, !torch.vtensor<[],f32> -> !torch.vtensor<[2,3],f32>
  return %output, %0, %output_1, %1 : !torch.vtensor<[],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[2,3],f32>
}

// -----

// NLLLoss(weight): the class weights are the ops' third (optional) operand; the mean
// divides by the selected weights' sum, which the gradient op recomputes.
// CHECK-LABEL: sym_name = "weighted_nll_loss"
// CHECK: ^bb0(%[[LP:arg[0-9]+]]: tensor<2x3xf32>, %[[T:arg[0-9]+]]: tensor<2xi64>, %[[W:arg[0-9]+]]: tensor<3xf32>, %[[SEED:arg[0-9]+]]: tensor<f32>):
// CHECK: %[[L:.*]] = "poplar.popnn_nll_loss"(%[[LP]], %[[T]], %[[W]]) {ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 1>, reduction = "mean"} : (tensor<2x3xf32>, tensor<2xi64>, tensor<3xf32>) -> tensor<f32>
// CHECK: %[[G:.*]] = "poplar.popnn_nll_loss_grad"(%[[SEED]], %[[LP]], %[[T]], %[[W]]) {ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1>, reduction = "mean"} : (tensor<f32>, tensor<2x3xf32>, tensor<2xi64>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: "func.return"(%[[L]], %[[G]])
func.func @weighted_nll_loss(%lp: !torch.vtensor<[2,3],f32>, %t: !torch.vtensor<[2],si64>, %w: !torch.vtensor<[3],f32>, %seed: !torch.vtensor<[],f32>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[2,3],f32>) {
  %int1 = torch.constant.int 1
  %int-100 = torch.constant.int -100
  %output, %total_weight = torch.aten.nll_loss_forward %lp, %t, %w, %int1, %int-100 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2],si64>, !torch.vtensor<[3],f32>, !torch.int, !torch.int -> !torch.vtensor<[],f32>, !torch.vtensor<[],f32>
  %0 = torch.aten.nll_loss_backward %seed, %lp, %t, %w, %int1, %int-100, %total_weight : !torch.vtensor<[],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2],si64>, !torch.vtensor<[3],f32>, !torch.int, !torch.int, !torch.vtensor<[],f32> -> !torch.vtensor<[2,3],f32>
  return %output, %0 : !torch.vtensor<[],f32>, !torch.vtensor<[2,3],f32>
}

// -----

// F.threshold(x, 0.5, v)'s gradient: the incoming gradient where x > 0.5, else 0.
// CHECK-LABEL: sym_name = "threshold_grad"
// CHECK: ^bb0(%[[G:arg[0-9]+]]: tensor<2x4xf32>, %[[X:arg[0-9]+]]: tensor<2x4xf32>):
// CHECK: %[[GX:.*]] = "poplar.popops_map"(%[[G]], %[[X]]) {expr = "select(gt(_2, 0.5), _1, 0.0)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: "func.return"(%[[GX]])
func.func @threshold_grad(%g: !torch.vtensor<[2,4],f32>, %x: !torch.vtensor<[2,4],f32>) -> !torch.vtensor<[2,4],f32> {
  %float5.000000e-01 = torch.constant.float 5.000000e-01
  %0 = torch.aten.threshold_backward %g, %x, %float5.000000e-01 : !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.float -> !torch.vtensor<[2,4],f32>
  return %0 : !torch.vtensor<[2,4],f32>
}

// -----

// MSELoss over [2,4] (8 elements): the squared difference, reduced with scale 1/8 for
// "mean" (1) and 1 for "sum" (2), not reduced for "none" (0). The gradient is
// (x - y) * 2/N (mean: 2/8 = 0.25) or * 2 (sum, none), times the incoming gradient
// (the scalar seed, or a full tensor for "none").
// CHECK-LABEL: sym_name = "mse_loss"
// CHECK: ^bb0(%[[X:arg[0-9]+]]: tensor<2x4xf32>, %[[Y:arg[0-9]+]]: tensor<2x4xf32>, %[[SEED:arg[0-9]+]]: tensor<f32>, %[[GN:arg[0-9]+]]: tensor<2x4xf32>):
// CHECK: %[[SQ:.*]] = "poplar.popops_map"(%[[X]], %[[Y]]) {expr = "square(sub(_1, _2))", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[MEAN:.*]] = "poplar.popops_reduce"(%[[SQ]]) {dims = array<i64: 0, 1>, keep_dims = false, op = "add", scale = 1.250000e-01 : f64} : (tensor<2x4xf32>) -> tensor<f32>
// CHECK-NEXT: %[[GMEAN:.*]] = "poplar.popops_map"(%[[X]], %[[Y]], %[[SEED]]) {expr = "mul(mul(sub(_1, _2), 0.25), _3)", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[SQ2:.*]] = "poplar.popops_map"(%[[X]], %[[Y]]) {expr = "square(sub(_1, _2))"
// CHECK-NEXT: %[[SUM:.*]] = "poplar.popops_reduce"(%[[SQ2]]) {dims = array<i64: 0, 1>, keep_dims = false, op = "add", scale = 1.000000e+00 : f64} : (tensor<2x4xf32>) -> tensor<f32>
// CHECK-NEXT: %[[GSUM:.*]] = "poplar.popops_map"(%[[X]], %[[Y]], %[[SEED]]) {expr = "mul(mul(sub(_1, _2), 2.0), _3)"
// CHECK-NEXT: %[[NONE:.*]] = "poplar.popops_map"(%[[X]], %[[Y]]) {expr = "square(sub(_1, _2))", {{.*}} -> tensor<2x4xf32>
// CHECK-NEXT: %[[GNONE:.*]] = "poplar.popops_map"(%[[X]], %[[Y]], %[[GN]]) {expr = "mul(mul(sub(_1, _2), 2.0), _3)", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: "func.return"(%[[MEAN]], %[[GMEAN]], %[[SUM]], %[[GSUM]], %[[NONE]], %[[GNONE]])
func.func @mse_loss(%x: !torch.vtensor<[2,4],f32>, %y: !torch.vtensor<[2,4],f32>, %seed: !torch.vtensor<[],f32>, %gnone: !torch.vtensor<[2,4],f32>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>) {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %0 = torch.aten.mse_loss %x, %y, %int1 : !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.int -> !torch.vtensor<[],f32>
  %1 = torch.aten.mse_loss_backward %seed, %x, %y, %int1 : !torch.vtensor<[],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.int -> !torch.vtensor<[2,4],f32>
  %2 = torch.aten.mse_loss %x, %y, %int2 : !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.int -> !torch.vtensor<[],f32>
  %3 = torch.aten.mse_loss_backward %seed, %x, %y, %int2 : !torch.vtensor<[],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.int -> !torch.vtensor<[2,4],f32>
  %4 = torch.aten.mse_loss %x, %y, %int0 : !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.int -> !torch.vtensor<[2,4],f32>
  %5 = torch.aten.mse_loss_backward %gnone, %x, %y, %int0 : !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.int -> !torch.vtensor<[2,4],f32>
  return %0, %1, %2, %3, %4, %5 : !torch.vtensor<[],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>
}

// -----

// BatchNorm2d(4) in training (functionalised): one popnn_norm_training with the batch
// statistics, reading the running mean / var and giving their updates (momentum 0.1)
// as results #3 and #4, which the function returns as buffer updates. The backward
// reads the saved mean and invstd (results #1 and #2), not the running statistics.
// CHECK-LABEL: sym_name = "batch_norm_training"
// CHECK: ^bb0(%[[X:arg[0-9]+]]: tensor<1x4x8x8xf32>, %[[W:arg[0-9]+]]: tensor<4xf32>, %[[B:arg[0-9]+]]: tensor<4xf32>, %[[RM:arg[0-9]+]]: tensor<4xf32>, %[[RV:arg[0-9]+]]: tensor<4xf32>, %[[G:arg[0-9]+]]: tensor<1x4x8x8xf32>):
// CHECK: %[[BN:.*]]:5 = "poplar.popnn_norm_training"(%[[X]], %[[W]], %[[B]], %[[RM]], %[[RV]]) {epsilon = 1.000000e-05 : f64, kind = "batch", momentum = 1.000000e-01 : f64, num_dims = 1 : i64, num_groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>, resultSegmentSizes = array<i32: 1, 1, 1, 2>}
// CHECK-SAME: : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: %[[BG:.*]]:3 = "poplar.popnn_norm_grad"(%[[G]], %[[X]], %[[BN]]#1, %[[BN]]#2, %[[W]]) {epsilon = 1.000000e-05 : f64, kind = "batch", num_dims = 1 : i64, num_groups = 1 : i64}
// CHECK-SAME: : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: "func.return"(%[[BN]]#0, %[[BN]]#3, %[[BN]]#4, %[[BG]]#0, %[[BG]]#1, %[[BG]]#2)
func.func @batch_norm_training(%x: !torch.vtensor<[1,4,8,8],f32>, %w: !torch.vtensor<[4],f32>, %b: !torch.vtensor<[4],f32>, %rm: !torch.vtensor<[4],f32>, %rv: !torch.vtensor<[4],f32>, %g: !torch.vtensor<[1,4,8,8],f32>) -> (!torch.vtensor<[1,4,8,8],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[1,4,8,8],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) {
  %true = torch.constant.bool true
  %float1.000000e-01 = torch.constant.float 1.000000e-01
  %float1.000000e-05 = torch.constant.float 1.000000e-05
  %0:5 = torch.operator "torch.aten._native_batch_norm_legit_functional"(%x, %w, %b, %rm, %rv, %true, %float1.000000e-01, %float1.000000e-05) : (!torch.vtensor<[1,4,8,8],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.bool, !torch.float, !torch.float) -> (!torch.vtensor<[1,4,8,8],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>)
  %1 = torch.prim.ListConstruct %true, %true, %true : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  %result0, %result1, %result2 = torch.aten.native_batch_norm_backward %g, %x, %w, %0#3, %0#4, %0#1, %0#2, %true, %float1.000000e-05, %1 : !torch.vtensor<[1,4,8,8],f32>, !torch.vtensor<[1,4,8,8],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.bool, !torch.float, !torch.list<bool> -> !torch.vtensor<[1,4,8,8],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>
  return %0#0, %0#3, %0#4, %result0, %result1, %result2 : !torch.vtensor<[1,4,8,8],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[1,4,8,8],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>
}

// -----

// BatchNorm1d(3, affine=False, track_running_stats=False): the no_stats overload has
// no running statistics (no operands or results for them); scale 1 and bias 0 are
// constants.
// CHECK-LABEL: sym_name = "batch_norm_no_stats"
// CHECK: %[[ONE:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<1.000000e+00> : tensor<3xf32>}
// CHECK: %[[ZERO:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<0.000000e+00> : tensor<3xf32>}
// CHECK: %[[BN:.*]]:3 = "poplar.popnn_norm_training"(%arg0, %[[ONE]], %[[ZERO]]) {epsilon = 1.000000e-05 : f64, kind = "batch", momentum = 1.000000e-01 : f64, num_dims = 1 : i64, num_groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>}
// CHECK-SAME: : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK: "func.return"(%[[BN]]#0)
func.func @batch_norm_no_stats(%x: !torch.vtensor<[4,3],f32>) -> !torch.vtensor<[4,3],f32> {
  %none = torch.constant.none
  %true = torch.constant.bool true
  %float1.000000e-01 = torch.constant.float 1.000000e-01
  %float1.000000e-05 = torch.constant.float 1.000000e-05
  %0:3 = torch.operator "torch.aten._native_batch_norm_legit.no_stats"(%x, %none, %none, %true, %float1.000000e-01, %float1.000000e-05) : (!torch.vtensor<[4,3],f32>, !torch.none, !torch.none, !torch.bool, !torch.float, !torch.float) -> (!torch.vtensor<[4,3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>)
  return %0#0 : !torch.vtensor<[4,3],f32>
}

// -----

// LayerNorm(3) then GroupNorm(2, 4) on [2,4,3]: popnn_norm_training of kind "layer"
// (mean / rstd [2,4,1]) and "group" (mean / rstd [N, groups] = [2,2]), no running
// statistics, momentum 0. Each backward is a popnn_norm_grad of its kind reading the
// forward input and that norm's saved statistics; the layer norm's grad_input is
// computed even though output_mask does not ask for it (the capture gives !torch.none).
// CHECK-LABEL: sym_name = "layer_group_norm"
// CHECK: ^bb0(%[[LW:arg[0-9]+]]: tensor<3xf32>, %[[LB:arg[0-9]+]]: tensor<3xf32>, %[[GW:arg[0-9]+]]: tensor<4xf32>, %[[GB:arg[0-9]+]]: tensor<4xf32>, %[[X:arg[0-9]+]]: tensor<2x4x3xf32>, %[[G:arg[0-9]+]]: tensor<2x4x3xf32>):
// CHECK: %[[LN:.*]]:3 = "poplar.popnn_norm_training"(%[[X]], %[[LW]], %[[LB]]) {epsilon = 1.000000e-05 : f64, kind = "layer", momentum = 0.000000e+00 : f64, num_dims = 1 : i64, num_groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>}
// CHECK-SAME: : (tensor<2x4x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x4x3xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>)
// CHECK: %[[GN:.*]]:3 = "poplar.popnn_norm_training"(%[[LN]]#0, %[[GW]], %[[GB]]) {epsilon = 1.000000e-05 : f64, kind = "group", momentum = 0.000000e+00 : f64, num_dims = 1 : i64, num_groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>}
// CHECK-SAME: : (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
// CHECK: %[[GG:.*]]:3 = "poplar.popnn_norm_grad"(%[[G]], %[[LN]]#0, %[[GN]]#1, %[[GN]]#2, %[[GW]]) {epsilon = 1.000000e-05 : f64, kind = "group", num_dims = 1 : i64, num_groups = 2 : i64}
// CHECK-SAME: : (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<4xf32>) -> (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: %[[LG:.*]]:3 = "poplar.popnn_norm_grad"(%[[GG]]#0, %[[X]], %[[LN]]#1, %[[LN]]#2, %[[LW]]) {epsilon = 1.000000e-05 : f64, kind = "layer", num_dims = 1 : i64, num_groups = 1 : i64}
// CHECK-SAME: : (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x4x1xf32>, tensor<2x4x1xf32>, tensor<3xf32>) -> (tensor<2x4x3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK: "func.return"(%[[GN]]#0, %[[LG]]#1, %[[LG]]#2, %[[GG]]#1, %[[GG]]#2)
func.func @layer_group_norm(%lw: !torch.vtensor<[3],f32>, %lb: !torch.vtensor<[3],f32>, %gw: !torch.vtensor<[4],f32>, %gb: !torch.vtensor<[4],f32>, %x: !torch.vtensor<[2,4,3],f32>, %g: !torch.vtensor<[2,4,3],f32>) -> (!torch.vtensor<[2,4,3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) {
  %int3 = torch.constant.int 3
  %0 = torch.prim.ListConstruct %int3 : (!torch.int) -> !torch.list<int>
  %float1.000000e-05 = torch.constant.float 1.000000e-05
  %result0, %result1, %result2 = torch.aten.native_layer_norm %x, %0, %lw, %lb, %float1.000000e-05 : !torch.vtensor<[2,4,3],f32>, !torch.list<int>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.float -> !torch.vtensor<[2,4,3],f32>, !torch.vtensor<[2,4,1],f32>, !torch.vtensor<[2,4,1],f32>
  %int2 = torch.constant.int 2
  %int4 = torch.constant.int 4
  %result0_3, %result1_4, %result2_5 = torch.aten.native_group_norm %result0, %gw, %gb, %int2, %int4, %int3, %int2, %float1.000000e-05 : !torch.vtensor<[2,4,3],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.int, !torch.int, !torch.int, !torch.int, !torch.float -> !torch.vtensor<[2,4,3],f32>, !torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],f32>
  %1 = torch.aten.detach %result1_4 : !torch.vtensor<[2,2],f32> -> !torch.vtensor<[2,2],f32>
  %2 = torch.aten.detach %result2_5 : !torch.vtensor<[2,2],f32> -> !torch.vtensor<[2,2],f32>
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %3 = torch.prim.ListConstruct %true, %true, %true : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  %result0_13, %result1_14, %result2_15 = torch.aten.native_group_norm_backward %g, %result0, %1, %2, %gw, %int2, %int4, %int3, %int2, %3 : !torch.vtensor<[2,4,3],f32>, !torch.vtensor<[2,4,3],f32>, !torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],f32>, !torch.vtensor<[4],f32>, !torch.int, !torch.int, !torch.int, !torch.int, !torch.list<bool> -> !torch.vtensor<[2,4,3],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>
  %4 = torch.prim.ListConstruct %false, %true, %true : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  %result0_19, %result1_20, %result2_21 = torch.aten.native_layer_norm_backward %result0_13, %x, %0, %result1, %result2, %lw, %lb, %4 : !torch.vtensor<[2,4,3],f32>, !torch.vtensor<[2,4,3],f32>, !torch.list<int>, !torch.vtensor<[2,4,1],f32>, !torch.vtensor<[2,4,1],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.list<bool> -> !torch.none, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
  return %result0_3, %result1_20, %result2_21, %result1_14, %result2_15 : !torch.vtensor<[2,4,3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>
}

// -----

// convolution_backward: one poplin_conv_grad carrying the forward's stride / padding /
// dilation / groups; output_mask picks the results (grad_input, grad_weights,
// grad_bias), and resultSegmentSizes records which exist. From Conv2d(2, 4, 3,
// padding=1) as the first layer (no input gradient) and Conv2d(4, 2, 3, stride=2,
// bias=False) after it (no bias gradient); then the single-result masks.
// CHECK-LABEL: sym_name = "conv_grads"
// CHECK: ^bb0(%[[X:arg[0-9]+]]: tensor<1x2x8x8xf32>, %[[W1:arg[0-9]+]]: tensor<4x2x3x3xf32>, %[[H:arg[0-9]+]]: tensor<1x4x8x8xf32>, %[[W2:arg[0-9]+]]: tensor<2x4x3x3xf32>, %[[G2:arg[0-9]+]]: tensor<1x2x3x3xf32>):
// CHECK: %[[C2:.*]]:2 = "poplar.poplin_conv_grad"(%[[G2]], %[[H]], %[[W2]]) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0>, stride = array<i64: 2, 2>}
// CHECK-SAME: : (tensor<1x2x3x3xf32>, tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>) -> (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>)
// CHECK: %[[C1:.*]]:2 = "poplar.poplin_conv_grad"(%[[C2]]#0, %[[X]], %[[W1]]) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, resultSegmentSizes = array<i32: 0, 1, 1>, stride = array<i64: 1, 1>}
// CHECK-SAME: : (tensor<1x4x8x8xf32>, tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>) -> (tensor<4x2x3x3xf32>, tensor<4xf32>)
// CHECK: %[[ONLY_W:.*]] = "poplar.poplin_conv_grad"(%[[C2]]#0, %[[X]], %[[W1]]) {{.*}}resultSegmentSizes = array<i32: 0, 1, 0>{{.*}} -> tensor<4x2x3x3xf32>
// CHECK: %[[ONLY_X:.*]] = "poplar.poplin_conv_grad"(%[[C2]]#0, %[[X]], %[[W1]]) {{.*}}resultSegmentSizes = array<i32: 1, 0, 0>{{.*}} -> tensor<1x2x8x8xf32>
// CHECK: %[[ALL:.*]]:3 = "poplar.poplin_conv_grad"(%[[C2]]#0, %[[X]], %[[W1]]) {{.*}}resultSegmentSizes = array<i32: 1, 1, 1>{{.*}} -> (tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>)
// CHECK: "func.return"(%[[C2]]#1, %[[C1]]#0, %[[C1]]#1, %[[ONLY_W]], %[[ONLY_X]], %[[ALL]]#2)
func.func @conv_grads(%x: !torch.vtensor<[1,2,8,8],f32>, %w1: !torch.vtensor<[4,2,3,3],f32>, %h: !torch.vtensor<[1,4,8,8],f32>, %w2: !torch.vtensor<[2,4,3,3],f32>, %g2: !torch.vtensor<[1,2,3,3],f32>) -> (!torch.vtensor<[2,4,3,3],f32>, !torch.vtensor<[4,2,3,3],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4,2,3,3],f32>, !torch.vtensor<[1,2,8,8],f32>, !torch.vtensor<[4],f32>) {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int4 = torch.constant.int 4
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %none_sizes = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  %bias_sizes = torch.prim.ListConstruct %int4 : (!torch.int) -> !torch.list<int>
  %stride2 = torch.prim.ListConstruct %int2, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %ones = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %zeros = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %mask_no_bias = torch.prim.ListConstruct %true, %true, %false : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  %result0, %result1, %result2 = torch.aten.convolution_backward %g2, %h, %w2, %none_sizes, %stride2, %zeros, %ones, %false, %zeros, %int1, %mask_no_bias : !torch.vtensor<[1,2,3,3],f32>, !torch.vtensor<[1,4,8,8],f32>, !torch.vtensor<[2,4,3,3],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int, !torch.list<bool> -> !torch.vtensor<[1,4,8,8],f32>, !torch.vtensor<[2,4,3,3],f32>, !torch.none
  %mask_first = torch.prim.ListConstruct %false, %true, %true : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  %result0_44, %result1_45, %result2_46 = torch.aten.convolution_backward %result0, %x, %w1, %bias_sizes, %ones, %ones, %ones, %false, %zeros, %int1, %mask_first : !torch.vtensor<[1,4,8,8],f32>, !torch.vtensor<[1,2,8,8],f32>, !torch.vtensor<[4,2,3,3],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int, !torch.list<bool> -> !torch.none, !torch.vtensor<[4,2,3,3],f32>, !torch.vtensor<[4],f32>
  %mask_w = torch.prim.ListConstruct %false, %true, %false : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  %a:3 = torch.aten.convolution_backward %result0, %x, %w1, %bias_sizes, %ones, %ones, %ones, %false, %zeros, %int1, %mask_w : !torch.vtensor<[1,4,8,8],f32>, !torch.vtensor<[1,2,8,8],f32>, !torch.vtensor<[4,2,3,3],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int, !torch.list<bool> -> !torch.none, !torch.vtensor<[4,2,3,3],f32>, !torch.none
  %mask_x = torch.prim.ListConstruct %true, %false, %false : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  %b:3 = torch.aten.convolution_backward %result0, %x, %w1, %bias_sizes, %ones, %ones, %ones, %false, %zeros, %int1, %mask_x : !torch.vtensor<[1,4,8,8],f32>, !torch.vtensor<[1,2,8,8],f32>, !torch.vtensor<[4,2,3,3],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int, !torch.list<bool> -> !torch.vtensor<[1,2,8,8],f32>, !torch.none, !torch.none
  %mask_all = torch.prim.ListConstruct %true, %true, %true : (!torch.bool, !torch.bool, !torch.bool) -> !torch.list<bool>
  %c:3 = torch.aten.convolution_backward %result0, %x, %w1, %bias_sizes, %ones, %ones, %ones, %false, %zeros, %int1, %mask_all : !torch.vtensor<[1,4,8,8],f32>, !torch.vtensor<[1,2,8,8],f32>, !torch.vtensor<[4,2,3,3],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int, !torch.list<bool> -> !torch.vtensor<[1,2,8,8],f32>, !torch.vtensor<[4,2,3,3],f32>, !torch.vtensor<[4],f32>
  return %result1, %result1_45, %result2_46, %a#1, %b#0, %c#2 : !torch.vtensor<[2,4,3,3],f32>, !torch.vtensor<[4,2,3,3],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4,2,3,3],f32>, !torch.vtensor<[1,2,8,8],f32>, !torch.vtensor<[4],f32>
}

// -----

// max_pool2d(2) then avg_pool2d(2), and their backwards: the forward max pool with
// indices is a plain "max" popnn_pool (the indices are not lowered: popnn_pool_grad
// recomputes them from the forward input); each gradient is a popnn_pool_grad of its
// kind over the forward input with the forward's attributes (empty stride = kernel).
// CHECK-LABEL: sym_name = "pool_grads"
// CHECK: ^bb0(%[[X:arg[0-9]+]]: tensor<1x4x8x8xf32>, %[[G:arg[0-9]+]]: tensor<1x4x2x2xf32>):
// CHECK: %[[MAX:.*]] = "poplar.popnn_pool"(%[[X]]) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2, 2>, kind = "max", padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
// CHECK: %[[AVG:.*]] = "poplar.popnn_pool"(%[[MAX]]) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2, 2>, kind = "avg", padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x2x2xf32>
// CHECK: %[[GAVG:.*]] = "poplar.popnn_pool_grad"(%[[MAX]], %[[G]]) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2, 2>, kind = "avg", padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x4x4xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x4x4xf32>
// CHECK: %[[GMAX:.*]] = "poplar.popnn_pool_grad"(%[[X]], %[[GAVG]]) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2, 2>, kind = "max", padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
// CHECK: "func.return"(%[[AVG]], %[[GMAX]])
func.func @pool_grads(%x: !torch.vtensor<[1,4,8,8],f32>, %g: !torch.vtensor<[1,4,2,2],f32>) -> (!torch.vtensor<[1,4,2,2],f32>, !torch.vtensor<[1,4,8,8],f32>) {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %false = torch.constant.bool false
  %true = torch.constant.bool true
  %none = torch.constant.none
  %kernel = torch.prim.ListConstruct %int2, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct  : () -> !torch.list<int>
  %padding = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %dilation = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %result0, %result1 = torch.aten.max_pool2d_with_indices %x, %kernel, %stride, %padding, %dilation, %false : !torch.vtensor<[1,4,8,8],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool -> !torch.vtensor<[1,4,4,4],f32>, !torch.vtensor<[1,4,4,4],si64>
  %0 = torch.aten.avg_pool2d %result0, %kernel, %stride, %padding, %false, %true, %none : !torch.vtensor<[1,4,4,4],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[1,4,2,2],f32>
  %1 = torch.aten.avg_pool2d_backward %g, %result0, %kernel, %stride, %padding, %false, %true, %none : !torch.vtensor<[1,4,2,2],f32>, !torch.vtensor<[1,4,4,4],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[1,4,4,4],f32>
  %2 = torch.aten.max_pool2d_with_indices_backward %1, %x, %kernel, %stride, %padding, %dilation, %false, %result1 : !torch.vtensor<[1,4,4,4],f32>, !torch.vtensor<[1,4,8,8],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.vtensor<[1,4,4,4],si64> -> !torch.vtensor<[1,4,8,8],f32>
  return %0, %2 : !torch.vtensor<[1,4,2,2],f32>, !torch.vtensor<[1,4,8,8],f32>
}

// -----

// Dropout(0.25) in training: poprand_dropout draws the output and an i1 keep-mask; the
// backward keeps the gradient where the mask is set, scaled by 1 / (1 - 0.25).
// In inference native_dropout is the identity and its mask is all true.
// CHECK-LABEL: sym_name = "dropout"
// CHECK: ^bb0(%[[X:arg[0-9]+]]: tensor<2x4xf32>, %[[G:arg[0-9]+]]: tensor<2x4xf32>):
// CHECK: %[[D:.*]]:2 = "poplar.poprand_dropout"(%[[X]]) {p = 2.500000e-01 : f64} : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi1>)
// CHECK: %[[GX:.*]] = "poplar.popops_map"(%[[G]], %[[D]]#1) {expr = "select(_2, mul(_1, 1.3333333333333333), 0.0)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x4xf32>, tensor<2x4xi1>) -> tensor<2x4xf32>
// CHECK: "func.return"(%[[D]]#0, %[[GX]])
// INFER-LABEL: sym_name = "dropout"
// INFER-NOT: poprand_dropout
// INFER: %[[KEEP:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<true> : tensor<2x4xi1>}
// INFER: "func.return"(%arg0, %{{.*}})
func.func @dropout(%x: !torch.vtensor<[2,4],f32>, %g: !torch.vtensor<[2,4],f32>) -> (!torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>) {
  %float2.500000e-01 = torch.constant.float 2.500000e-01
  %true = torch.constant.bool true
  %result0, %result1 = torch.aten.native_dropout %x, %float2.500000e-01, %true : !torch.vtensor<[2,4],f32>, !torch.float, !torch.bool -> !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],i1>
  %float1.333330e00 = torch.constant.float 1.3333333333333333
  %0 = torch.aten.native_dropout_backward %g, %result1, %float1.333330e00 : !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],i1>, !torch.float -> !torch.vtensor<[2,4],f32>
  return %result0, %0 : !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>
}

// -----

// Embedding(10, 4, padding_idx=0) then h[:, 1] + h[:, 0:2].sum(1): the weight gradient
// is a popops_multi_update_add of the row gradients at the indices (padding row 0
// gets none; -1 = no padding row). select_backward / slice_backward put the gradient
// back into the input's shape with zero padding: index 1 of 3 pads 1 low and 1 high,
// slice 0:2 of 3 pads 1 high.
// CHECK-LABEL: sym_name = "embedding_grads"
// CHECK: ^bb0(%[[IDS:arg[0-9]+]]: tensor<2x3xi64>, %[[G:arg[0-9]+]]: tensor<2x4xf32>, %[[GS:arg[0-9]+]]: tensor<2x2x4xf32>):
// CHECK: %[[GS1:.*]] = "poplar.popops_pad"(%[[GS]]) {high = array<i64: 0, 1, 0>, low = array<i64: 0, 0, 0>, value = 0.000000e+00 : f64} : (tensor<2x2x4xf32>) -> tensor<2x3x4xf32>
// CHECK: %[[G3:.*]] = "poplar.reshape"(%[[G]]) : (tensor<2x4xf32>) -> tensor<2x1x4xf32>
// CHECK: %[[GSEL:.*]] = "poplar.popops_pad"(%[[G3]]) {high = array<i64: 0, 1, 0>, low = array<i64: 0, 1, 0>, value = 0.000000e+00 : f64} : (tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
// CHECK: %[[SUM:.*]] = "poplar.popops_add"(%[[GS1]], %[[GSEL]])
// CHECK: %[[GW:.*]] = "poplar.popops_multi_update_add"(%[[SUM]], %[[IDS]]) {padding_index = 0 : i64} : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>
// CHECK: %[[GW2:.*]] = "poplar.popops_multi_update_add"(%[[SUM]], %[[IDS]]) {padding_index = -1 : i64} : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>
// CHECK: "func.return"(%[[GW]], %[[GW2]])
func.func @embedding_grads(%ids: !torch.vtensor<[2,3],si64>, %g: !torch.vtensor<[2,4],f32>, %gslice: !torch.vtensor<[2,2,4],f32>) -> (!torch.vtensor<[10,4],f32>, !torch.vtensor<[10,4],f32>) {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %int4 = torch.constant.int 4
  %int10 = torch.constant.int 10
  %int-1 = torch.constant.int -1
  %false = torch.constant.bool false
  %sizes = torch.prim.ListConstruct %int2, %int3, %int4 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.operator "torch.aten.slice_backward"(%gslice, %sizes, %int1, %int0, %int2, %int1) : (!torch.vtensor<[2,2,4],f32>, !torch.list<int>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,3,4],f32>
  %1 = torch.operator "torch.aten.select_backward"(%g, %sizes, %int1, %int1) : (!torch.vtensor<[2,4],f32>, !torch.list<int>, !torch.int, !torch.int) -> !torch.vtensor<[2,3,4],f32>
  %2 = torch.aten.add.Tensor %0, %1, %int1 : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>, !torch.int -> !torch.vtensor<[2,3,4],f32>
  %3 = torch.aten.embedding_dense_backward %2, %ids, %int10, %int0, %false : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3],si64>, !torch.int, !torch.int, !torch.bool -> !torch.vtensor<[10,4],f32>
  %4 = torch.aten.embedding_dense_backward %2, %ids, %int10, %int-1, %false : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3],si64>, !torch.int, !torch.int, !torch.bool -> !torch.vtensor<[10,4],f32>
  return %3, %4 : !torch.vtensor<[10,4],f32>, !torch.vtensor<[10,4],f32>
}

// -----

// Negative select index and an open-ended slice (end = INT64_MAX) are normalised: x[:, -1]
// of 3 pads 2 low; x[:, 1:] of 3 pads 1 low.
// CHECK-LABEL: sym_name = "select_slice_normalised"
// CHECK: %[[R:.*]] = "poplar.reshape"(%arg0) : (tensor<2x4xf32>) -> tensor<2x1x4xf32>
// CHECK: "poplar.popops_pad"(%[[R]]) {high = array<i64: 0, 0, 0>, low = array<i64: 0, 2, 0>, value = 0.000000e+00 : f64} : (tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
// CHECK: "poplar.popops_pad"(%arg1) {high = array<i64: 0, 0, 0>, low = array<i64: 0, 1, 0>, value = 0.000000e+00 : f64} : (tensor<2x2x4xf32>) -> tensor<2x3x4xf32>
func.func @select_slice_normalised(%g: !torch.vtensor<[2,4],f32>, %gslice: !torch.vtensor<[2,2,4],f32>) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>) {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %int4 = torch.constant.int 4
  %int-1 = torch.constant.int -1
  %int9223372036854775807 = torch.constant.int 9223372036854775807
  %sizes = torch.prim.ListConstruct %int2, %int3, %int4 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.operator "torch.aten.select_backward"(%g, %sizes, %int1, %int-1) : (!torch.vtensor<[2,4],f32>, !torch.list<int>, !torch.int, !torch.int) -> !torch.vtensor<[2,3,4],f32>
  %1 = torch.operator "torch.aten.slice_backward"(%gslice, %sizes, %int1, %int1, %int9223372036854775807, %int1) : (!torch.vtensor<[2,2,4],f32>, !torch.list<int>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,3,4],f32>
  return %0, %1 : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>
}

// -----

// The @update function of ipu-insert-training{gradient-accumulation=4} (SGD without
// momentum, max_grad_norm = 1): the mean (accumulator / 4) is one map, the global-norm
// clipping is a reduction, a root, a division by the loss scale and the clamp
// min(max_norm / (norm + 1e-6), 1), and the zeroed accumulator and counter are
// constants. The ipu.sgd_update stays, with its attributes, over the converted clipped
// gradient and the function's tensor arguments; with convert-ipu-to-poplar after it
// (BOTH) the function lowers whole, the update's maps in the op's place.
// CHECK-LABEL: sym_name = "update"
// CHECK: ^bb0(%[[W:arg[0-9]+]]: tensor<3xf32>, %[[ACC:arg[0-9]+]]: tensor<3xf32>, %[[LS:arg[0-9]+]]: tensor<f32>, %[[LR:arg[0-9]+]]: tensor<f32>,
// CHECK-NEXT: %[[MEAN:.*]] = "poplar.popops_map"(%[[ACC]]) {expr = "div(_1, 4.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: %[[SQ:.*]] = "poplar.popops_mul"(%[[MEAN]], %[[MEAN]])
// CHECK-NEXT: %[[SUMSQ:.*]] = "poplar.popops_reduce"(%[[SQ]]) {dims = array<i64: 0>, keep_dims = false, op = "add", scale = 1.000000e+00 : f64} : (tensor<3xf32>) -> tensor<f32>
// CHECK-NEXT: %[[ROOT:.*]] = "poplar.popops_map"(%[[SUMSQ]]) {expr = "sqrt(_1)"
// CHECK-NEXT: %[[NORM:.*]] = "poplar.popops_div"(%[[ROOT]], %[[LS]])
// CHECK-NEXT: %[[SHIFTED:.*]] = "poplar.popops_map"(%[[NORM]]) {expr = "add(_1, 1e-06)"
// CHECK-NEXT: %[[INV:.*]] = "poplar.popops_map"(%[[SHIFTED]]) {expr = "reciprocal(_1)"
// CHECK-NEXT: %[[RATIO:.*]] = "poplar.popops_map"(%[[INV]]) {expr = "mul(_1, 1.0)"
// CHECK-NEXT: %[[COEF:.*]] = "poplar.popops_map"(%[[RATIO]]) {expr = "min(_1, 1.0)"
// CHECK-NEXT: %[[CLIPPED:.*]] = "poplar.popops_mul"(%[[MEAN]], %[[COEF]]) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT: %[[NEW:.*]] = "ipu.sgd_update"(%[[W]], %[[CLIPPED]], %[[LR]], %[[MOM:arg[0-9]+]], %[[DAMP:arg[0-9]+]], %[[WD:arg[0-9]+]], %[[VS:arg[0-9]+]], %[[LS]]) {hyper_names = ["lr", "momentum", "dampening", "weight_decay", "velocity_scaling", "loss_scaling"], nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 6>, resultSegmentSizes = array<i32: 1, 0, 0>, variant = "separate", with_momentum = false} : (tensor<3xf32>, tensor<3xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT: %[[ZACC:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<0.000000e+00> : tensor<3xf32>} : () -> tensor<3xf32>
// CHECK-NEXT: %[[ZCOUNT:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
// CHECK-NEXT: "func.return"(%[[NEW]], %[[ZACC]], %[[ZCOUNT]])
// BOTH-LABEL: sym_name = "update"
// BOTH: ^bb0(%[[W:arg[0-9]+]]: tensor<3xf32>, %[[ACC:arg[0-9]+]]: tensor<3xf32>, %[[LS:arg[0-9]+]]: tensor<f32>, %[[LR:arg[0-9]+]]: tensor<f32>, %[[MOM:arg[0-9]+]]: tensor<f32>, %[[DAMP:arg[0-9]+]]: tensor<f32>, %[[WD:arg[0-9]+]]: tensor<f32>,
// BOTH: %[[CLIPPED:.*]] = "poplar.popops_mul"(%{{.*}}, %{{.*}}) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// BOTH-NEXT: %[[UNSCALED:.*]] = "poplar.popops_map"(%[[CLIPPED]], %[[LS]]) {expr = "div(_1, _2)"
// BOTH-NEXT: %[[DECAYED:.*]] = "poplar.popops_map"(%[[UNSCALED]], %[[W]], %[[WD]]) {expr = "add(_1, mul(_2, _3))"
// BOTH-NEXT: %[[NEW:.*]] = "poplar.popops_map"(%[[W]], %[[DECAYED]], %[[LR]]) {expr = "sub(_1, mul(_2, _3))"
// BOTH-NEXT: %[[ZACC:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<0.000000e+00> : tensor<3xf32>}
// BOTH-NEXT: %[[ZCOUNT:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<0.000000e+00> : tensor<f32>}
// BOTH-NEXT: "func.return"(%[[NEW]], %[[ZACC]], %[[ZCOUNT]])
// BOTH-NOT: ipu.sgd_update
"func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "w">}, {ipu.role = #ipu.role<"accumulator", "w/accum">}, {ipu.role = #ipu.role<"hyper", "loss_scaling">}, {ipu.role = #ipu.role<"hyper", "0.lr">}, {ipu.role = #ipu.role<"hyper", "0.momentum">}, {ipu.role = #ipu.role<"hyper", "0.dampening">}, {ipu.role = #ipu.role<"hyper", "0.weight_decay">}, {ipu.role = #ipu.role<"hyper", "0.velocity_scaling">}, {ipu.role = #ipu.role<"accumulator", "accumulation_count">}], function_type = (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[],f32>), res_attrs = [{ipu.role = #ipu.role<"weight_update", "w">}, {ipu.role = #ipu.role<"accumulator_update", "w/accum">}, {ipu.role = #ipu.role<"accumulator_update", "accumulation_count">}], sym_name = "update"}> ({
^bb0(%arg5: !torch.vtensor<[3],f32>, %arg6: !torch.vtensor<[3],f32>, %arg7: !torch.vtensor<[],f32>, %arg8: !torch.vtensor<[],f32>, %arg9: !torch.vtensor<[],f32>, %arg10: !torch.vtensor<[],f32>, %arg11: !torch.vtensor<[],f32>, %arg12: !torch.vtensor<[],f32>, %arg13: !torch.vtensor<[],f32>):
  %7 = "torch.constant.int"() <{value = 4 : i64}> : () -> !torch.int
  %8 = "torch.aten.div.Scalar"(%arg6, %7) : (!torch.vtensor<[3],f32>, !torch.int) -> !torch.vtensor<[3],f32>
  %9 = "torch.constant.none"() : () -> !torch.none
  %10 = "torch.aten.mul.Tensor"(%8, %8) : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  %11 = "torch.aten.sum"(%10, %9) : (!torch.vtensor<[3],f32>, !torch.none) -> !torch.vtensor<[],f32>
  %12 = "torch.aten.sqrt"(%11) : (!torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
  %13 = "torch.aten.div.Tensor"(%12, %arg7) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
  %14 = "torch.constant.float"() <{value = 9.9999999999999995E-7 : f64}> : () -> !torch.float
  %15 = "torch.constant.int"() <{value = 1 : i64}> : () -> !torch.int
  %16 = "torch.aten.add.Scalar"(%13, %14, %15) : (!torch.vtensor<[],f32>, !torch.float, !torch.int) -> !torch.vtensor<[],f32>
  %17 = "torch.aten.reciprocal"(%16) : (!torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
  %18 = "torch.constant.float"() <{value = 1.000000e+00 : f64}> : () -> !torch.float
  %19 = "torch.aten.mul.Scalar"(%17, %18) : (!torch.vtensor<[],f32>, !torch.float) -> !torch.vtensor<[],f32>
  %20 = "torch.constant.float"() <{value = 1.000000e+00 : f64}> : () -> !torch.float
  %21 = "torch.aten.clamp_max"(%19, %20) : (!torch.vtensor<[],f32>, !torch.float) -> !torch.vtensor<[],f32>
  %22 = "torch.aten.mul.Tensor"(%8, %21) : (!torch.vtensor<[3],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[3],f32>
  %23 = "ipu.sgd_update"(%arg5, %22, %arg8, %arg9, %arg10, %arg11, %arg12, %arg7) {hyper_names = ["lr", "momentum", "dampening", "weight_decay", "velocity_scaling", "loss_scaling"], nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 6>, resultSegmentSizes = array<i32: 1, 0, 0>, variant = "separate", with_momentum = false} : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[3],f32>
  %24 = "torch.constant.none"() : () -> !torch.none
  %25 = "torch.aten.zeros_like"(%arg6, %24, %24, %24, %24, %24) : (!torch.vtensor<[3],f32>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[3],f32>
  %26 = "torch.aten.zeros_like"(%arg13, %24, %24, %24, %24, %24) : (!torch.vtensor<[],f32>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[],f32>
  "func.return"(%23, %25, %26) : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[],f32>) -> ()
}) : () -> ()

// -----

// Gradient accumulation and every optimizer update stay, over the converted tensors,
// with their attributes and the placement that later passes read (here ipu.block and
// pipeline.stage of a pipelined step); in inference (INFER) too: the pass keeps
// whatever it finds. With convert-ipu-to-poplar after it (BOTH), none remains.
// CHECK-LABEL: sym_name = "kept_training_ops"
// CHECK: ^bb0(%[[W:arg[0-9]+]]: tensor<2xf32>, %[[G:arg[0-9]+]]: tensor<2xf32>, %[[M:arg[0-9]+]]: tensor<2xf32>, %[[V:arg[0-9]+]]: tensor<2xf32>, %[[T:arg[0-9]+]]: tensor<f32>, %[[COUNT:arg[0-9]+]]: tensor<f32>, %[[LR:arg[0-9]+]]: tensor<f32>, %[[H1:arg[0-9]+]]: tensor<f32>, %[[H2:arg[0-9]+]]: tensor<f32>, %[[H3:arg[0-9]+]]: tensor<f32>, %[[H4:arg[0-9]+]]: tensor<f32>, %[[H5:arg[0-9]+]]: tensor<f32>, %[[H6:arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT: %[[ACC:.*]] = "ipu.accumulate_grad"(%[[M]], %[[G]], %[[COUNT]]) {ipu.block = #ipu.block<"B", 1 : i64>, pipeline.stage = 1 : i64, reduction = "sum", strategy = "post"} : (tensor<2xf32>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK-NEXT: %[[SGD:.*]] = "ipu.sgd_update"(%[[W]], %[[ACC]], %[[LR]], %[[H1]], %[[H2]], %[[H3]], %[[H4]], %[[H5]]) {hyper_names = ["lr", "momentum", "dampening", "weight_decay", "velocity_scaling", "loss_scaling"], ipu.block = #ipu.block<"B", 1 : i64>, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 6>, pipeline.stage = 1 : i64, resultSegmentSizes = array<i32: 1, 0, 0>, variant = "separate", with_momentum = false} : (tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<2xf32>
// CHECK-NEXT: %[[ADAM:.*]]:4 = "ipu.adam_update"(%[[W]], %[[G]], %[[M]], %[[V]], %[[T]], %[[LR]], %[[H1]], %[[H2]], %[[H6]], %[[H3]], %[[H5]]) {bias_correction = true, hyper_names = ["lr", "beta1", "beta2", "eps", "weight_decay", "loss_scaling"], operandSegmentSizes = array<i32: 1, 1, 2, 1, 6>, resultSegmentSizes = array<i32: 1, 2, 1>, variant = "adamw"} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>)
// CHECK-NEXT: "func.return"(%[[SGD]], %[[ADAM]]#1, %[[ADAM]]#3)
// INFER-LABEL: sym_name = "kept_training_ops"
// INFER: "ipu.accumulate_grad"
// INFER-NEXT: "ipu.sgd_update"
// INFER-NEXT: "ipu.adam_update"
// BOTH-LABEL: sym_name = "kept_training_ops"
// BOTH-NOT: "ipu.
// BOTH: "func.return"
func.func @kept_training_ops(%w: !torch.vtensor<[2],f32>, %g: !torch.vtensor<[2],f32>, %m: !torch.vtensor<[2],f32>, %v: !torch.vtensor<[2],f32>, %t: !torch.vtensor<[],f32>, %count: !torch.vtensor<[],f32>, %lr: !torch.vtensor<[],f32>, %h1: !torch.vtensor<[],f32>, %h2: !torch.vtensor<[],f32>, %h3: !torch.vtensor<[],f32>, %h4: !torch.vtensor<[],f32>, %h5: !torch.vtensor<[],f32>, %h6: !torch.vtensor<[],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[],f32>) {
  %acc = "ipu.accumulate_grad"(%m, %g, %count) {reduction = "sum", strategy = "post", ipu.block = #ipu.block<"B", 1 : i64>, pipeline.stage = 1 : i64} : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2],f32>
  %0 = "ipu.sgd_update"(%w, %acc, %lr, %h1, %h2, %h3, %h4, %h5) {hyper_names = ["lr", "momentum", "dampening", "weight_decay", "velocity_scaling", "loss_scaling"], nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 6>, resultSegmentSizes = array<i32: 1, 0, 0>, variant = "separate", with_momentum = false, ipu.block = #ipu.block<"B", 1 : i64>, pipeline.stage = 1 : i64} : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2],f32>
  %1:4 = "ipu.adam_update"(%w, %g, %m, %v, %t, %lr, %h1, %h2, %h6, %h3, %h5) {bias_correction = true, variant = "adamw", hyper_names = ["lr", "beta1", "beta2", "eps", "weight_decay", "loss_scaling"], operandSegmentSizes = array<i32: 1, 1, 2, 1, 6>, resultSegmentSizes = array<i32: 1, 2, 1>} : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[],f32>)
  return %0, %1#1, %1#3 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[],f32>
}

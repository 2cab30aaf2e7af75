// RUN: ipu-opt %s --split-input-file | FileCheck %s
// RUN: ipu-opt %s --split-input-file | ipu-opt --split-input-file | FileCheck %s
// The stock C++ tool parses and verifies the same IR with the generated IRDL (operand
// counts, segment sizes, attribute kinds, and one type per variadic group; the Python
// rules of ipu-opt are not part of the IRDL). ipu.replica_reduce takes poplar's
// #poplar.comm_group, so the poplar dialect's IRDL is loaded first (one file: the tool
// keeps only the last --irdl-file).
// RUN: cat %irdl_dir/poplar.irdl.mlir %irdl_dir/ipu.irdl.mlir > %t.irdl.mlir
// RUN: torch-mlir-opt --irdl-file=%t.irdl.mlir --split-input-file --mlir-print-op-generic %s | FileCheck %s

// Round trip of every op and attribute of the `ipu` dialect. Operands and results are
// open types, so each op is shown with Torch-dialect values and with builtin tensors.

// #ipu.block and #ipu.tensor_location annotate ops of other dialects.
// CHECK-LABEL: sym_name = "attributes"
// CHECK: "torch.aten.relu"(%arg0) {ipu.block = #ipu.block<"encoder", 1 : i64>} : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
// CHECK: "torch.aten.tanh"(%{{.*}}) {ipu.block = #ipu.block<"unplaced", -1 : i64>, ipu.tensor_location = #ipu.tensor_location<"off_chip", true, false>} : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
// CHECK: "ipu.nop"(%{{.*}}) {ipu.tensor_location = #ipu.tensor_location<"on_chip", false, true>} : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
func.func @attributes(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %0 = "torch.aten.relu"(%x) {ipu.block = #ipu.block<"encoder", 1 : i64>} : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
  %1 = "torch.aten.tanh"(%0) {ipu.block = #ipu.block<"unplaced", -1 : i64>, ipu.tensor_location = #ipu.tensor_location<"off_chip", true, false>} : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
  %2 = "ipu.nop"(%1) {ipu.tensor_location = #ipu.tensor_location<"on_chip", false, true>} : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
  return %2 : !torch.vtensor<[2],f32>
}

// -----

// The contracts between the driver, the frontend and the ipu passes: #ipu.role on each
// argument and result, #ipu.strategy (with its #ipu.stage list) and #ipu.optimizer on the
// function. The optimizer's max_grad_norm is [] (no clipping) or one value.
// CHECK-LABEL: "func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "fc.weight">}, {ipu.role = #ipu.role<"input", "x">}, {ipu.role = #ipu.role<"loss_grad", "loss_grad">}]
// CHECK-SAME: res_attrs = [{ipu.role = #ipu.role<"loss", "0">}, {ipu.role = #ipu.role<"grad", "fc.weight">}]
// CHECK-SAME: sym_name = "contracts"
// CHECK: }) {ipu.optimizer = #ipu.optimizer<"sgd", {nesterov = false, variant = "combined", with_momentum = true}, 2 : i64, {fc.weight = 1 : i64}, {"0.lr" = 1.000000e-02 : f64, loss_scaling = 1.280000e+02 : f64}, [5.000000e-01]>, ipu.strategy = #ipu.strategy<"pipelined", "auto_increment", [#ipu.stage<["enc"], 0 : i64>, #ipu.stage<["dec", "head"], -1 : i64>], true, 4 : i64, 8 : i64, 1 : i64, false, array<i64>, "always_live", false>} : () -> ()
// CHECK: sym_name = "no_clipping"
// CHECK: }) {ipu.optimizer = #ipu.optimizer<"adam", {variant = "adamw"}, 1 : i64, {}, {}, []>} : () -> ()
func.func @contracts(%w: !torch.vtensor<[2],f32> {ipu.role = #ipu.role<"parameter", "fc.weight">}, %x: !torch.vtensor<[2],f32> {ipu.role = #ipu.role<"input", "x">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss", "0">}, !torch.vtensor<[2],f32> {ipu.role = #ipu.role<"grad", "fc.weight">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {nesterov = false, variant = "combined", with_momentum = true}, 2 : i64, {fc.weight = 1 : i64}, {"0.lr" = 1.000000e-02 : f64, loss_scaling = 1.280000e+02 : f64}, [5.000000e-01]>, ipu.strategy = #ipu.strategy<"pipelined", "auto_increment", [#ipu.stage<["enc"], 0 : i64>, #ipu.stage<["dec", "head"], -1 : i64>], true, 4 : i64, 8 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  return %seed, %w : !torch.vtensor<[],f32>, !torch.vtensor<[2],f32>
}
func.func @no_clipping() attributes {ipu.optimizer = #ipu.optimizer<"adam", {variant = "adamw"}, 1 : i64, {}, {}, []>} {
  return
}

// -----

// The model ops of poptorch: identities with a meaning, and the loss marker.
// recomputation_checkpoint takes one value: one op per checkpointed tensor.
// CHECK-LABEL: sym_name = "model_ops"
// CHECK: %[[P:.*]] = "ipu.print_tensor"(%arg0) {title = "act"} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
// CHECK: "ipu.print_tensor"(%[[P]]) {ipu.print_format = {float_format = "none", open_bracket = "<"}, title = "act"}
// CHECK: %[[N:.*]] = "ipu.nop"(%[[P]]) : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
// CHECK: %[[C:.*]] = "ipu.recomputation_checkpoint"(%[[N]]) : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
// CHECK: "ipu.recomputation_checkpoint"(%arg1) : (tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: "ipu.set_available_memory"(%arg1) {proportion = 3.000000e-01 : f64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: "ipu.set_available_memory"(%arg1) {proportion = 1.000000e+00 : f32} : (tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK: "ipu.identity_loss"(%[[C]]) {reduction = "mean"} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[],f32>
// CHECK: "ipu.identity_loss"(%arg1) {reduction = "sum"} : (tensor<3x4xf32>) -> tensor<f32>
// CHECK: "ipu.identity_loss"(%arg1) {reduction = "sum"} : (tensor<3x4xf32>) -> tensor<*xf32>
// CHECK: "ipu.identity_loss"(%[[C]]) {reduction = "none"} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
func.func @model_ops(%x: !torch.vtensor<[4],f32>, %t: tensor<3x4xf32>) -> !torch.vtensor<[],f32> {
  %0 = "ipu.print_tensor"(%x) {title = "act"} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  %p = "ipu.print_tensor"(%0) {title = "act", ipu.print_format = {float_format = "none", open_bracket = "<"}} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  %1 = "ipu.nop"(%0) : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  %2 = "ipu.recomputation_checkpoint"(%1) : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  %3 = "ipu.recomputation_checkpoint"(%t) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %4 = "ipu.set_available_memory"(%t) {proportion = 0.3 : f64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %5 = "ipu.set_available_memory"(%t) {proportion = 1.0 : f32} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %6 = "ipu.identity_loss"(%2) {reduction = "mean"} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[],f32>
  %7 = "ipu.identity_loss"(%t) {reduction = "sum"} : (tensor<3x4xf32>) -> tensor<f32>
  %8 = "ipu.identity_loss"(%t) {reduction = "sum"} : (tensor<3x4xf32>) -> tensor<*xf32>
  %9 = "ipu.identity_loss"(%2) {reduction = "none"} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  return %6 : !torch.vtensor<[],f32>
}

// -----

// Optimizer updates. Operand groups: weight, grad, state (each of the weight's type,
// fixed order per op), step (Adam, LAMB and SGD with momentum: one scalar; none for
// SGD without momentum and RMSprop), hyper (named scalars of one type);
// result groups: new_weight, new_state, new_step. The groups have different types: f32
// weights and state, an i64 step, f32 hyper-parameters.
// CHECK-LABEL: sym_name = "optimizer_updates"
// CHECK: "ipu.sgd_update"(%arg0, %arg1, %arg4) {hyper_names = ["lr"], nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 0, 0>, variant = "separate", with_momentum = false} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: "ipu.sgd_update"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg4, %arg4) {hyper_names = ["lr", "momentum", "weight_decay"], nesterov = true, operandSegmentSizes = array<i32: 1, 1, 1, 1, 3>, resultSegmentSizes = array<i32: 1, 1, 1>, variant = "combined", with_momentum = true} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<i64>)
// CHECK: "ipu.adam_update"(%arg0, %arg1, %arg2, %arg2, %arg3, %arg4, %arg4, %arg4) {bias_correction = true, hyper_names = ["lr", "beta1", "beta2"], operandSegmentSizes = array<i32: 1, 1, 2, 1, 3>, resultSegmentSizes = array<i32: 1, 2, 1>, variant = "adamw"} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
// CHECK: "ipu.adam_update"(%arg0, %arg1, %arg2, %arg2, %arg3, %arg4) {bias_correction = false, hyper_names = ["lr"], operandSegmentSizes = array<i32: 1, 1, 2, 1, 1>, resultSegmentSizes = array<i32: 1, 2, 1>, variant = "adam"}
// CHECK: "ipu.rmsprop_update"(%arg0, %arg1, %arg2, %arg4, %arg4) {centered = false, hyper_names = ["alpha", "lr"], operandSegmentSizes = array<i32: 1, 1, 1, 0, 2>, resultSegmentSizes = array<i32: 1, 1, 0>, use_tf_variant = true, with_momentum = false} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK: "ipu.rmsprop_update"(%arg0, %arg1, %arg2, %arg2, %arg2, %arg4) {centered = true, hyper_names = ["lr"], operandSegmentSizes = array<i32: 1, 1, 3, 0, 1>, resultSegmentSizes = array<i32: 1, 3, 0>, use_tf_variant = false, with_momentum = true}
// CHECK: "ipu.lamb_update"(%arg0, %arg1, %arg2, %arg2, %arg3, %arg4, %arg4) {bias_correction = true, hyper_names = ["lr", "max_weight_norm"], operandSegmentSizes = array<i32: 1, 1, 2, 1, 2>, resultSegmentSizes = array<i32: 1, 2, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
func.func @optimizer_updates(%w: tensor<4xf32>, %g: tensor<4xf32>, %s: tensor<4xf32>, %t: tensor<i64>, %lr: tensor<f32>) {
  %0 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = false, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1:3 = "ipu.sgd_update"(%w, %g, %s, %t, %lr, %lr, %lr) {hyper_names = ["lr", "momentum", "weight_decay"], variant = "combined", with_momentum = true, nesterov = true, operandSegmentSizes = array<i32: 1, 1, 1, 1, 3>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  %2:4 = "ipu.adam_update"(%w, %g, %s, %s, %t, %lr, %lr, %lr) {hyper_names = ["lr", "beta1", "beta2"], variant = "adamw", bias_correction = true, operandSegmentSizes = array<i32: 1, 1, 2, 1, 3>, resultSegmentSizes = array<i32: 1, 2, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  %3:4 = "ipu.adam_update"(%w, %g, %s, %s, %t, %lr) {hyper_names = ["lr"], variant = "adam", bias_correction = false, operandSegmentSizes = array<i32: 1, 1, 2, 1, 1>, resultSegmentSizes = array<i32: 1, 2, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  %4:2 = "ipu.rmsprop_update"(%w, %g, %s, %lr, %lr) {hyper_names = ["alpha", "lr"], centered = false, with_momentum = false, use_tf_variant = true, operandSegmentSizes = array<i32: 1, 1, 1, 0, 2>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  %5:4 = "ipu.rmsprop_update"(%w, %g, %s, %s, %s, %lr) {hyper_names = ["lr"], centered = true, with_momentum = true, use_tf_variant = false, operandSegmentSizes = array<i32: 1, 1, 3, 0, 1>, resultSegmentSizes = array<i32: 1, 3, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  %6:4 = "ipu.lamb_update"(%w, %g, %s, %s, %t, %lr, %lr) {hyper_names = ["lr", "max_weight_norm"], bias_correction = true, operandSegmentSizes = array<i32: 1, 1, 2, 1, 2>, resultSegmentSizes = array<i32: 1, 2, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  return
}

// -----

// The same updates on Torch-dialect values, as the frontend produces them: an f16
// weight with f32 hyper-parameters, and a !torch.vtensor step count (SGD with momentum
// counts steps too: its first step sets the velocity to the gradient).
// CHECK-LABEL: sym_name = "torch_updates"
// CHECK: %[[S:.*]]:3 = "ipu.sgd_update"(%arg0, %arg1, %arg2, %arg3, %arg4) {hyper_names = ["lr"], nesterov = false, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 1>, variant = "separate", with_momentum = true} : (!torch.vtensor<[2,3],f16>, !torch.vtensor<[2,3],f16>, !torch.vtensor<[2,3],f16>, !torch.vtensor<[],si64>, !torch.vtensor<[],f32>) -> (!torch.vtensor<[2,3],f16>, !torch.vtensor<[2,3],f16>, !torch.vtensor<[],si64>)
// CHECK: "ipu.lamb_update"(%[[S]]#0, %arg1, %arg2, %arg2, %arg3, %arg4, %arg4) {bias_correction = false, hyper_names = ["lr", "weight_decay"], operandSegmentSizes = array<i32: 1, 1, 2, 1, 2>, resultSegmentSizes = array<i32: 1, 2, 1>} : (!torch.vtensor<[2,3],f16>, !torch.vtensor<[2,3],f16>, !torch.vtensor<[2,3],f16>, !torch.vtensor<[2,3],f16>, !torch.vtensor<[],si64>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> (!torch.vtensor<[2,3],f16>, !torch.vtensor<[2,3],f16>, !torch.vtensor<[2,3],f16>, !torch.vtensor<[],si64>)
func.func @torch_updates(%w: !torch.vtensor<[2,3],f16>, %g: !torch.vtensor<[2,3],f16>, %v: !torch.vtensor<[2,3],f16>, %t: !torch.vtensor<[],si64>, %lr: !torch.vtensor<[],f32>) -> !torch.vtensor<[2,3],f16> {
  %0:3 = "ipu.sgd_update"(%w, %g, %v, %t, %lr) {hyper_names = ["lr"], variant = "separate", with_momentum = true, nesterov = false, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 1>} : (!torch.vtensor<[2,3],f16>, !torch.vtensor<[2,3],f16>, !torch.vtensor<[2,3],f16>, !torch.vtensor<[],si64>, !torch.vtensor<[],f32>) -> (!torch.vtensor<[2,3],f16>, !torch.vtensor<[2,3],f16>, !torch.vtensor<[],si64>)
  %1:4 = "ipu.lamb_update"(%0#0, %g, %v, %v, %t, %lr, %lr) {hyper_names = ["lr", "weight_decay"], bias_correction = false, operandSegmentSizes = array<i32: 1, 1, 2, 1, 2>, resultSegmentSizes = array<i32: 1, 2, 1>} : (!torch.vtensor<[2,3],f16>, !torch.vtensor<[2,3],f16>, !torch.vtensor<[2,3],f16>, !torch.vtensor<[2,3],f16>, !torch.vtensor<[],si64>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> (!torch.vtensor<[2,3],f16>, !torch.vtensor<[2,3],f16>, !torch.vtensor<[2,3],f16>, !torch.vtensor<[],si64>)
  return %1#0 : !torch.vtensor<[2,3],f16>
}

// -----

// Gradient accumulation, replica reduction and loss scaling.
// CHECK-LABEL: sym_name = "training_ops"
// CHECK: %[[A:.*]] = "ipu.accumulate_grad"(%arg0, %arg1, %arg2) {reduction = "sum", strategy = "running"} : (tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
// CHECK: %[[M:.*]] = "ipu.accumulate_grad"(%[[A]], %arg1, %arg2) {reduction = "mean", strategy = "post"} : (tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
// CHECK: %[[R:.*]] = "ipu.replica_reduce"(%[[M]]) {group = #poplar.comm_group<"all", 0 : i64>, kind = "mean", replication_factor = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: "ipu.replica_reduce"(%[[R]]) {group = #poplar.comm_group<"all", 0 : i64>, kind = "sum", replication_factor = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: "ipu.replica_reduce"(%[[R]]) {group = #poplar.comm_group<"orthogonal", 2 : i64>, kind = "mean", replication_factor = 4 : i64} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: "ipu.replica_broadcast"(%[[R]]) {replication_factor = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[L:.*]] = "ipu.loss_scale"(%arg4, %arg3) {mode = "scale"} : (!torch.vtensor<[],f32>, tensor<f32>) -> !torch.vtensor<[],f32>
// CHECK: "ipu.loss_scale"(%arg0, %arg3) {mode = "unscale"} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
func.func @training_ops(%acc: tensor<4xf32>, %g: tensor<4xf32>, %count: tensor<i64>, %scale: tensor<f32>, %loss: !torch.vtensor<[],f32>) -> !torch.vtensor<[],f32> {
  %0 = "ipu.accumulate_grad"(%acc, %g, %count) {reduction = "sum", strategy = "running"} : (tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
  %1 = "ipu.accumulate_grad"(%0, %g, %count) {reduction = "mean", strategy = "post"} : (tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
  %2 = "ipu.replica_reduce"(%1) {kind = "mean", replication_factor = 2 : i64, group = #poplar.comm_group<"all", 0 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "ipu.replica_reduce"(%2) {kind = "sum", replication_factor = 1 : i64, group = #poplar.comm_group<"all", 0 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
  %6 = "ipu.replica_reduce"(%2) {kind = "mean", replication_factor = 4 : i64, group = #poplar.comm_group<"orthogonal", 2 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
  %7 = "ipu.replica_broadcast"(%2) {replication_factor = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %4 = "ipu.loss_scale"(%loss, %scale) {mode = "scale"} : (!torch.vtensor<[],f32>, tensor<f32>) -> !torch.vtensor<[],f32>
  %5 = "ipu.loss_scale"(%acc, %scale) {mode = "unscale"} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %4 : !torch.vtensor<[],f32>
}

// -----

// Torch-dialect accumulator, count and scale.
// CHECK-LABEL: sym_name = "torch_training_ops"
// CHECK: "ipu.accumulate_grad"(%arg0, %arg1, %arg2) {reduction = "mean", strategy = "running"} : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[4],f32>
// CHECK: "ipu.replica_reduce"(%{{.*}}) {group = #poplar.comm_group<"all", 0 : i64>, kind = "sum", replication_factor = 4 : i64} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
// CHECK: "ipu.loss_scale"(%{{.*}}, %arg3) {mode = "unscale"} : (!torch.vtensor<[4],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[4],f32>
func.func @torch_training_ops(%acc: !torch.vtensor<[4],f32>, %g: !torch.vtensor<[4],f32>, %count: !torch.vtensor<[],si64>, %scale: !torch.vtensor<[],f32>) -> !torch.vtensor<[4],f32> {
  %0 = "ipu.accumulate_grad"(%acc, %g, %count) {reduction = "mean", strategy = "running"} : (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[4],f32>
  %1 = "ipu.replica_reduce"(%0) {kind = "sum", replication_factor = 4 : i64, group = #poplar.comm_group<"all", 0 : i64>} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  %2 = "ipu.loss_scale"(%1, %scale) {mode = "unscale"} : (!torch.vtensor<[4],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[4],f32>
  return %2 : !torch.vtensor<[4],f32>
}

// -----

// The planning model ops: a host stream's overlap, a member of a multi-convolution with
// every option of its plan, and one with only the required ones.
// CHECK-LABEL: sym_name = "planning_ops"
// CHECK: "ipu.set_overlap"(%arg0) {direction = "input", mode = "overlap_accumulation_loop"} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: "ipu.multi_conv"(%{{.*}}) {available_memory = 3.000000e-01 : f64, cycle_back_off = 5.000000e-01 : f64, enable_conv_dithering = true, group = 0 : i64, index = 1 : i64, partials_type = "half", per_conv_reserved_tiles = 20 : i64, plan_type = "parallel"}
// CHECK: "ipu.multi_conv"(%{{.*}}) {group = 2 : i64, index = 0 : i64, plan_type = "serial"}
// CHECK: "ipu.set_overlap"(%{{.*}}) {direction = "output", mode = "overlap_device_iteration_loop"}
func.func @planning_ops(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "ipu.set_overlap"(%x) {direction = "input", mode = "overlap_accumulation_loop"} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "ipu.multi_conv"(%0) {group = 0 : i64, index = 1 : i64, plan_type = "parallel", available_memory = 0.3 : f64, partials_type = "half", enable_conv_dithering = true, per_conv_reserved_tiles = 20 : i64, cycle_back_off = 0.5 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "ipu.multi_conv"(%1) {group = 2 : i64, index = 0 : i64, plan_type = "serial"} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "ipu.set_overlap"(%2) {direction = "output", mode = "overlap_device_iteration_loop"} : (tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// Replicated tensor sharding: a replica's part of a tensor (flattened, padded to R parts of
// ceil(n / R): 10 elements over 4 replicas are parts of 3), of the mean or sum over the
// replicas or of its own value, and the whole tensor gathered back from the parts.
// CHECK-LABEL: sym_name = "sharding_ops"
// CHECK: %[[P:.*]] = "ipu.replica_shard"(%arg0) {kind = "mean", replication_factor = 4 : i64} : (!torch.vtensor<[2,5],f32>) -> !torch.vtensor<[3],f32>
// CHECK: "ipu.replica_shard"(%arg0) {kind = "local", replication_factor = 4 : i64} : (!torch.vtensor<[2,5],f32>) -> !torch.vtensor<[3],f32>
// CHECK: "ipu.replica_shard"(%arg1) {kind = "sum", replication_factor = 2 : i64} : (tensor<6xf16>) -> tensor<3xf16>
// CHECK: "ipu.replica_unshard"(%[[P]]) {replication_factor = 4 : i64} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[2,5],f32>
func.func @sharding_ops(%w: !torch.vtensor<[2,5],f32>, %x: tensor<6xf16>) -> !torch.vtensor<[2,5],f32> {
  %0 = "ipu.replica_shard"(%w) {kind = "mean", replication_factor = 4 : i64} : (!torch.vtensor<[2,5],f32>) -> !torch.vtensor<[3],f32>
  %1 = "ipu.replica_shard"(%w) {kind = "local", replication_factor = 4 : i64} : (!torch.vtensor<[2,5],f32>) -> !torch.vtensor<[3],f32>
  %2 = "ipu.replica_shard"(%x) {kind = "sum", replication_factor = 2 : i64} : (tensor<6xf16>) -> tensor<3xf16>
  %3 = "ipu.replica_unshard"(%0) {replication_factor = 4 : i64} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[2,5],f32>
  return %3 : !torch.vtensor<[2,5],f32>
}

// RUN: ipu-opt %s -p ipu-insert-training --split-input-file | FileCheck %s

// A Linear + MSELoss joint function (as capture_training gives it) with SGD + momentum:
// the loss-gradient argument is gone (the backward pass starts from the loss scale),
// the gradients leave the results, and each parameter gets an ipu.sgd_update whose
// new weight and velocity are results that write the variables back.
// CHECK-LABEL: "func.func"() <{arg_attrs = [{ipu.kind = "parameter", ipu.name = "fc.weight"}, {ipu.kind = "parameter", ipu.name = "fc.bias"}, {ipu.kind = "input", ipu.name = "x"}, {ipu.kind = "input", ipu.name = "y"}, {ipu.kind = "hyper", ipu.name = "loss_scaling"}, {ipu.kind = "optimizer_state", ipu.name = "fc.weight/velocity"}, {ipu.kind = "hyper", ipu.name = "0.lr"}, {ipu.kind = "hyper", ipu.name = "0.momentum"}, {ipu.kind = "hyper", ipu.name = "0.dampening"}, {ipu.kind = "hyper", ipu.name = "0.weight_decay"}, {ipu.kind = "hyper", ipu.name = "0.velocity_scaling"}, {ipu.kind = "optimizer_state", ipu.name = "fc.bias/velocity"}]
// CHECK-SAME: res_attrs = [{ipu.kind = "loss", ipu.name = "0"}, {ipu.kind = "output", ipu.name = "1"}, {ipu.kind = "weight_update", ipu.name = "fc.weight"}, {ipu.kind = "state_update", ipu.name = "fc.weight/velocity"}, {ipu.kind = "weight_update", ipu.name = "fc.bias"}, {ipu.kind = "state_update", ipu.name = "fc.bias/velocity"}]
// CHECK-NOT: ipu.optimizer
// CHECK-SAME: sym_name = "main"
// CHECK: ^bb0(%[[W:.*]]: !torch.vtensor<[2,3],f32>, %[[B:.*]]: !torch.vtensor<[2],f32>, %[[X:.*]]: !torch.vtensor<[4,3],f32>, %[[Y:.*]]: !torch.vtensor<[4,2],f32>, %[[LS:.*]]: !torch.vtensor<[],f32>, %[[VW:.*]]: !torch.vtensor<[2,3],f32>, %[[LR:.*]]: !torch.vtensor<[],f32>, %[[MOM:.*]]: !torch.vtensor<[],f32>, %[[DAMP:.*]]: !torch.vtensor<[],f32>, %[[WD:.*]]: !torch.vtensor<[],f32>, %[[VS:.*]]: !torch.vtensor<[],f32>, %[[VB:.*]]: !torch.vtensor<[2],f32>):
// CHECK: "torch.aten.mse_loss_backward"(%[[LS]],
// CHECK: %[[UW:.*]]:2 = "ipu.sgd_update"(%[[W]], %{{.*}}, %[[VW]], %[[LR]], %[[MOM]], %[[DAMP]], %[[WD]], %[[VS]], %[[LS]]) {hyper_names = ["lr", "momentum", "dampening", "weight_decay", "velocity_scaling", "loss_scaling"], nesterov = false, operandSegmentSizes = array<i32: 1, 1, 1, 0, 6>, resultSegmentSizes = array<i32: 1, 1, 0>, variant = "separate", with_momentum = true}
// CHECK: %[[UB:.*]]:2 = "ipu.sgd_update"(%[[B]], %{{.*}}, %[[VB]], %[[LR]], %[[MOM]], %[[DAMP]], %[[WD]], %[[VS]], %[[LS]])
// CHECK: "func.return"(%{{.*}}, %{{.*}}, %[[UW]]#0, %[[UW]]#1, %[[UB]]#0, %[[UB]]#1)
func.func @main(%arg0: !torch.vtensor<[2,3],f32> {ipu.kind = "parameter", ipu.name = "fc.weight"}, %arg1: !torch.vtensor<[2],f32> {ipu.kind = "parameter", ipu.name = "fc.bias"}, %arg2: !torch.vtensor<[4,3],f32> {ipu.kind = "input", ipu.name = "x"}, %arg3: !torch.vtensor<[4,2],f32> {ipu.kind = "input", ipu.name = "y"}, %arg4: !torch.vtensor<[],f32> {ipu.kind = "loss_grad", ipu.name = "loss_grad"}) -> (!torch.vtensor<[],f32> {ipu.kind = "loss", ipu.name = "0"}, !torch.vtensor<[4,2],f32> {ipu.kind = "output", ipu.name = "1"}, !torch.vtensor<[2,3],f32> {ipu.kind = "grad", ipu.name = "fc.weight"}, !torch.vtensor<[2],f32> {ipu.kind = "grad", ipu.name = "fc.bias"}) attributes {ipu.optimizer = {type = "sgd", flags = {with_momentum = true, nesterov = false, variant = "separate"}, groups = 1 : i64, param_groups = {}}} {
  %0 = torch.aten.t %arg0 : !torch.vtensor<[2,3],f32> -> !torch.vtensor<[3,2],f32>
  %int1 = torch.constant.int 1
  %1 = torch.aten.addmm %arg1, %arg2, %0, %int1, %int1 : !torch.vtensor<[2],f32>, !torch.vtensor<[4,3],f32>, !torch.vtensor<[3,2],f32>, !torch.int, !torch.int -> !torch.vtensor<[4,2],f32>
  %2 = torch.aten.mse_loss %1, %arg3, %int1 : !torch.vtensor<[4,2],f32>, !torch.vtensor<[4,2],f32>, !torch.int -> !torch.vtensor<[],f32>
  %3 = torch.aten.detach %1 : !torch.vtensor<[4,2],f32> -> !torch.vtensor<[4,2],f32>
  %4 = torch.aten.mse_loss_backward %arg4, %1, %arg3, %int1 : !torch.vtensor<[],f32>, !torch.vtensor<[4,2],f32>, !torch.vtensor<[4,2],f32>, !torch.int -> !torch.vtensor<[4,2],f32>
  %5 = torch.aten.t %4 : !torch.vtensor<[4,2],f32> -> !torch.vtensor<[2,4],f32>
  %6 = torch.aten.mm %5, %arg2 : !torch.vtensor<[2,4],f32>, !torch.vtensor<[4,3],f32> -> !torch.vtensor<[2,3],f32>
  %int0 = torch.constant.int 0
  %8 = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  %true = torch.constant.bool true
  %none = torch.constant.none
  %9 = torch.aten.sum.dim_IntList %4, %8, %true, %none : !torch.vtensor<[4,2],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[1,2],f32>
  %int2 = torch.constant.int 2
  %10 = torch.prim.ListConstruct %int2 : (!torch.int) -> !torch.list<int>
  %11 = torch.aten.view %9, %10 : !torch.vtensor<[1,2],f32>, !torch.list<int> -> !torch.vtensor<[2],f32>
  return %2, %3, %6, %11 : !torch.vtensor<[],f32>, !torch.vtensor<[4,2],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2],f32>
}

// -----

// Adam keeps two moments per parameter and one step count; parameters in group 1 read
// group 1's hyper-parameters; a non-scalar loss (identity_loss "none") is seeded with
// the loss scale broadcast to its shape.
// CHECK-LABEL: "func.func"() <{arg_attrs = [{ipu.kind = "parameter", ipu.name = "w"}, {ipu.kind = "hyper", ipu.name = "loss_scaling"}, {ipu.kind = "optimizer_state", ipu.name = "w/exp_avg"}, {ipu.kind = "optimizer_state", ipu.name = "w/exp_avg_sq"}, {ipu.kind = "optimizer_state", ipu.name = "w/step"}, {ipu.kind = "hyper", ipu.name = "1.lr"}
// CHECK-SAME: sym_name = "adam"
// CHECK: %[[SEED:.*]] = "torch.aten.expand"(%{{.*}}, %{{.*}}, %{{.*}}) : (!torch.vtensor<[],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[3],f32>
// CHECK: "torch.aten.mul.Tensor"(%[[SEED]], %arg0)
// CHECK: "ipu.adam_update"({{.*}}) {bias_correction = true, hyper_names = ["lr", "beta1", "beta2", "eps", "weight_decay", "loss_scaling"], operandSegmentSizes = array<i32: 1, 1, 2, 1, 6>, resultSegmentSizes = array<i32: 1, 2, 1>, variant = "adamw"}
func.func @adam(%w: !torch.vtensor<[3],f32> {ipu.kind = "parameter", ipu.name = "w"}, %seed: !torch.vtensor<[3],f32> {ipu.kind = "loss_grad", ipu.name = "loss_grad"}) -> (!torch.vtensor<[3],f32> {ipu.kind = "loss", ipu.name = "0"}, !torch.vtensor<[3],f32> {ipu.kind = "grad", ipu.name = "w"}) attributes {ipu.optimizer = {type = "adam", flags = {variant = "adamw", bias_correction = true}, groups = 2 : i64, param_groups = {w = 1 : i64}}} {
  %0 = torch.aten.mul.Tensor %seed, %w : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[3],f32>
  return %w, %0 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
}

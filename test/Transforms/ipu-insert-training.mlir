// RUN: ipu-opt %s -p ipu-insert-training --split-input-file | FileCheck %s
// RUN: ipu-opt %s -p 'ipu-insert-training{gradient-accumulation=4}' --split-input-file | FileCheck %s --check-prefix=ACC
// RUN: ipu-opt %s -p 'ipu-insert-training{gradient-accumulation=4 strategy=running}' --split-input-file | FileCheck %s --check-prefix=RUNNING
// RUN: ipu-opt %s -p 'ipu-insert-training{gradient-accumulation=4 reduction=sum}' --split-input-file | FileCheck %s --check-prefix=SUM
// RUN: ipu-opt %s -p 'ipu-insert-training{replication-factor=4}' --split-input-file | FileCheck %s --check-prefix=REPL
// RUN: ipu-opt %s -p 'ipu-insert-training{replication-factor=4 gradient-accumulation=2 reduction=sum broadcast-buffers=false}' --split-input-file | FileCheck %s --check-prefix=REPLACC

// A Linear + MSELoss joint function (as capture_training gives it) with SGD + momentum:
// the loss-gradient argument is gone (the backward pass starts from the loss scale),
// the gradients leave the results, and each parameter gets an ipu.sgd_update whose
// new weight, velocity and step count are results that write the variables back. With
// momentum, each parameter has a step count (optimizer state "<param>/step"): the
// first step sets the velocity to the gradient.
// CHECK-LABEL: "func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "fc.weight">}, {ipu.role = #ipu.role<"parameter", "fc.bias">}, {ipu.role = #ipu.role<"input", "x">}, {ipu.role = #ipu.role<"input", "y">}, {ipu.role = #ipu.role<"hyper", "loss_scaling">}, {ipu.role = #ipu.role<"optimizer_state", "fc.weight/velocity">}, {ipu.role = #ipu.role<"optimizer_state", "fc.weight/step">}, {ipu.role = #ipu.role<"hyper", "0.lr">}, {ipu.role = #ipu.role<"hyper", "0.momentum">}, {ipu.role = #ipu.role<"hyper", "0.dampening">}, {ipu.role = #ipu.role<"hyper", "0.weight_decay">}, {ipu.role = #ipu.role<"hyper", "0.velocity_scaling">}, {ipu.role = #ipu.role<"optimizer_state", "fc.bias/velocity">}, {ipu.role = #ipu.role<"optimizer_state", "fc.bias/step">}]
// CHECK-SAME: res_attrs = [{ipu.role = #ipu.role<"loss", "0">}, {ipu.role = #ipu.role<"output", "1">}, {ipu.role = #ipu.role<"weight_update", "fc.weight">}, {ipu.role = #ipu.role<"state_update", "fc.weight/velocity">}, {ipu.role = #ipu.role<"state_update", "fc.weight/step">}, {ipu.role = #ipu.role<"weight_update", "fc.bias">}, {ipu.role = #ipu.role<"state_update", "fc.bias/velocity">}, {ipu.role = #ipu.role<"state_update", "fc.bias/step">}]
// CHECK-NOT: ipu.optimizer
// CHECK-SAME: sym_name = "main"
// CHECK: ^bb0(%[[W:arg[0-9]+]]: !torch.vtensor<[2,3],f32>, %[[B:arg[0-9]+]]: !torch.vtensor<[2],f32>, %[[X:arg[0-9]+]]: !torch.vtensor<[4,3],f32>, %[[Y:arg[0-9]+]]: !torch.vtensor<[4,2],f32>, %[[LS:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[VW:arg[0-9]+]]: !torch.vtensor<[2,3],f32>, %[[SW:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[LR:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[MOM:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[DAMP:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[WD:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[VS:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[VB:arg[0-9]+]]: !torch.vtensor<[2],f32>, %[[SB:arg[0-9]+]]: !torch.vtensor<[],f32>):
// CHECK: "torch.aten.mse_loss_backward"(%[[LS]],
// CHECK: %[[UW:.*]]:3 = "ipu.sgd_update"(%[[W]], %{{.*}}, %[[VW]], %[[SW]], %[[LR]], %[[MOM]], %[[DAMP]], %[[WD]], %[[VS]], %[[LS]]) {hyper_names = ["lr", "momentum", "dampening", "weight_decay", "velocity_scaling", "loss_scaling"], nesterov = false, operandSegmentSizes = array<i32: 1, 1, 1, 1, 6>, resultSegmentSizes = array<i32: 1, 1, 1>, variant = "separate", with_momentum = true}
// CHECK-SAME: -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[],f32>)
// CHECK: %[[UB:.*]]:3 = "ipu.sgd_update"(%[[B]], %{{.*}}, %[[VB]], %[[SB]], %[[LR]], %[[MOM]], %[[DAMP]], %[[WD]], %[[VS]], %[[LS]])
// CHECK: "func.return"(%{{.*}}, %{{.*}}, %[[UW]]#0, %[[UW]]#1, %[[UW]]#2, %[[UB]]#0, %[[UB]]#1, %[[UB]]#2)

// Gradient accumulation (G = 4, Mean reduction, Post strategy): a second function,
// @update, applies the optimizer. It reads the parameters and the accumulators
// "<param>/accum", then the optimizer state and hyper-parameters in the order the
// updates ask for them, then the micro-batch counter; it divides each accumulator by
// G, updates the weights and state, and returns zeroed accumulators and counter
// (role accumulator_update) for the next G micro-batches.
// ACC-LABEL: "func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "fc.weight">}, {ipu.role = #ipu.role<"parameter", "fc.bias">}, {ipu.role = #ipu.role<"accumulator", "fc.weight/accum">}, {ipu.role = #ipu.role<"accumulator", "fc.bias/accum">}, {ipu.role = #ipu.role<"optimizer_state", "fc.weight/velocity">}, {ipu.role = #ipu.role<"optimizer_state", "fc.weight/step">}, {ipu.role = #ipu.role<"hyper", "0.lr">}, {ipu.role = #ipu.role<"hyper", "0.momentum">}, {ipu.role = #ipu.role<"hyper", "0.dampening">}, {ipu.role = #ipu.role<"hyper", "0.weight_decay">}, {ipu.role = #ipu.role<"hyper", "0.velocity_scaling">}, {ipu.role = #ipu.role<"hyper", "loss_scaling">}, {ipu.role = #ipu.role<"optimizer_state", "fc.bias/velocity">}, {ipu.role = #ipu.role<"optimizer_state", "fc.bias/step">}, {ipu.role = #ipu.role<"accumulator", "accumulation_count">}]
// ACC-SAME: res_attrs = [{ipu.role = #ipu.role<"weight_update", "fc.weight">}, {ipu.role = #ipu.role<"state_update", "fc.weight/velocity">}, {ipu.role = #ipu.role<"state_update", "fc.weight/step">}, {ipu.role = #ipu.role<"weight_update", "fc.bias">}, {ipu.role = #ipu.role<"state_update", "fc.bias/velocity">}, {ipu.role = #ipu.role<"state_update", "fc.bias/step">}, {ipu.role = #ipu.role<"accumulator_update", "fc.weight/accum">}, {ipu.role = #ipu.role<"accumulator_update", "fc.bias/accum">}, {ipu.role = #ipu.role<"accumulator_update", "accumulation_count">}]
// ACC-SAME: sym_name = "update"
// ACC: ^bb0(%[[UPW:arg[0-9]+]]: !torch.vtensor<[2,3],f32>, %[[UPB:arg[0-9]+]]: !torch.vtensor<[2],f32>, %[[ACCW:arg[0-9]+]]: !torch.vtensor<[2,3],f32>, %[[ACCB:arg[0-9]+]]: !torch.vtensor<[2],f32>, %[[UVW:arg[0-9]+]]: !torch.vtensor<[2,3],f32>, %[[USW:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[ULR:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[UMOM:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[UDAMP:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[UWD:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[UVS:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[ULS:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[UVB:arg[0-9]+]]: !torch.vtensor<[2],f32>, %[[USB:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[UCOUNT:arg[0-9]+]]: !torch.vtensor<[],f32>):
// ACC-NEXT: %[[G1:.*]] = "torch.constant.int"() <{value = 4 : i64}>
// ACC-NEXT: %[[MEANW:.*]] = "torch.aten.div.Scalar"(%[[ACCW]], %[[G1]]) : (!torch.vtensor<[2,3],f32>, !torch.int) -> !torch.vtensor<[2,3],f32>
// ACC-NEXT: %[[G2:.*]] = "torch.constant.int"() <{value = 4 : i64}>
// ACC-NEXT: %[[MEANB:.*]] = "torch.aten.div.Scalar"(%[[ACCB]], %[[G2]]) : (!torch.vtensor<[2],f32>, !torch.int) -> !torch.vtensor<[2],f32>
// ACC-NEXT: %[[NEWW:.*]]:3 = "ipu.sgd_update"(%[[UPW]], %[[MEANW]], %[[UVW]], %[[USW]], %[[ULR]], %[[UMOM]], %[[UDAMP]], %[[UWD]], %[[UVS]], %[[ULS]]) {{{.*}}operandSegmentSizes = array<i32: 1, 1, 1, 1, 6>, resultSegmentSizes = array<i32: 1, 1, 1>, variant = "separate", with_momentum = true}
// ACC-NEXT: %[[NEWB:.*]]:3 = "ipu.sgd_update"(%[[UPB]], %[[MEANB]], %[[UVB]], %[[USB]], %[[ULR]], %[[UMOM]], %[[UDAMP]], %[[UWD]], %[[UVS]], %[[ULS]])
// ACC-NEXT: %[[NONE:.*]] = "torch.constant.none"()
// ACC-NEXT: %[[ZW:.*]] = "torch.aten.zeros_like"(%[[ACCW]], %[[NONE]], %[[NONE]], %[[NONE]], %[[NONE]], %[[NONE]]) {{.*}} -> !torch.vtensor<[2,3],f32>
// ACC-NEXT: %[[ZB:.*]] = "torch.aten.zeros_like"(%[[ACCB]], {{.*}} -> !torch.vtensor<[2],f32>
// ACC-NEXT: %[[ZC:.*]] = "torch.aten.zeros_like"(%[[UCOUNT]], {{.*}} -> !torch.vtensor<[],f32>
// ACC-NEXT: "func.return"(%[[NEWW]]#0, %[[NEWW]]#1, %[[NEWW]]#2, %[[NEWB]]#0, %[[NEWB]]#1, %[[NEWB]]#2, %[[ZW]], %[[ZB]], %[[ZC]])

// The step (@main) keeps the loss and the output, and instead of updating the weights
// increments the counter and adds each gradient into its accumulator; the optimizer's
// state and hyper-parameters (but loss_scaling, which seeds the backward pass) are not
// its arguments.
// ACC-LABEL: "func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "fc.weight">}, {ipu.role = #ipu.role<"parameter", "fc.bias">}, {ipu.role = #ipu.role<"input", "x">}, {ipu.role = #ipu.role<"input", "y">}, {ipu.role = #ipu.role<"hyper", "loss_scaling">}, {ipu.role = #ipu.role<"accumulator", "accumulation_count">}, {ipu.role = #ipu.role<"accumulator", "fc.weight/accum">}, {ipu.role = #ipu.role<"accumulator", "fc.bias/accum">}]
// ACC-SAME: res_attrs = [{ipu.role = #ipu.role<"loss", "0">}, {ipu.role = #ipu.role<"output", "1">}, {ipu.role = #ipu.role<"accumulator_update", "accumulation_count">}, {ipu.role = #ipu.role<"accumulator_update", "fc.weight/accum">}, {ipu.role = #ipu.role<"accumulator_update", "fc.bias/accum">}]
// ACC-SAME: sym_name = "main"
// ACC: ^bb0(%[[MW:arg[0-9]+]]: !torch.vtensor<[2,3],f32>, %[[MB:arg[0-9]+]]: !torch.vtensor<[2],f32>, %[[MX:arg[0-9]+]]: !torch.vtensor<[4,3],f32>, %[[MY:arg[0-9]+]]: !torch.vtensor<[4,2],f32>, %[[MLS:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[COUNT:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[MACCW:arg[0-9]+]]: !torch.vtensor<[2,3],f32>, %[[MACCB:arg[0-9]+]]: !torch.vtensor<[2],f32>):
// ACC-NOT: ipu.sgd_update
// ACC: "torch.aten.mse_loss_backward"(%[[MLS]],
// ACC: %[[GW:.*]] = "torch.aten.mm"
// ACC: %[[GB:.*]] = "torch.aten.view"
// ACC-NEXT: %[[ONE:.*]] = "torch.constant.int"() <{value = 1 : i64}>
// ACC-NEXT: %[[NEXT:.*]] = "torch.aten.add.Scalar"(%[[COUNT]], %[[ONE]], %[[ONE]]) : (!torch.vtensor<[],f32>, !torch.int, !torch.int) -> !torch.vtensor<[],f32>
// ACC-NEXT: %[[AW:.*]] = "ipu.accumulate_grad"(%[[MACCW]], %[[GW]], %[[NEXT]]) {reduction = "mean", strategy = "post"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2,3],f32>
// ACC-NEXT: %[[AB:.*]] = "ipu.accumulate_grad"(%[[MACCB]], %[[GB]], %[[NEXT]]) {reduction = "mean", strategy = "post"}
// ACC-NEXT: "func.return"(%{{.*}}, %{{.*}}, %[[NEXT]], %[[AW]], %[[AB]])

// Mean with the Running strategy: the accumulator holds the running mean (the
// accumulate op divides by the counter), so @update does not divide by G.
// RUNNING-LABEL: sym_name = "update"
// RUNNING: ^bb0(%[[RW:arg[0-9]+]]: !torch.vtensor<[2,3],f32>, %[[RB:arg[0-9]+]]: !torch.vtensor<[2],f32>, %[[RACCW:arg[0-9]+]]: !torch.vtensor<[2,3],f32>, %[[RACCB:arg[0-9]+]]: !torch.vtensor<[2],f32>,
// RUNNING-NOT: torch.aten.div
// RUNNING: "ipu.sgd_update"(%[[RW]], %[[RACCW]],
// RUNNING-NEXT: "ipu.sgd_update"(%[[RB]], %[[RACCB]],
// RUNNING-LABEL: sym_name = "main"
// RUNNING: %[[RNEXT:.*]] = "torch.aten.add.Scalar"
// RUNNING-NEXT: "ipu.accumulate_grad"(%{{.*}}, %{{.*}}, %[[RNEXT]]) {reduction = "mean", strategy = "running"}
// RUNNING-NEXT: "ipu.accumulate_grad"(%{{.*}}, %{{.*}}, %[[RNEXT]]) {reduction = "mean", strategy = "running"}

// Sum: the accumulated sum is the gradient; @update does not divide either.
// SUM-LABEL: sym_name = "update"
// SUM: ^bb0(%[[SW:arg[0-9]+]]: !torch.vtensor<[2,3],f32>, %[[SB:arg[0-9]+]]: !torch.vtensor<[2],f32>, %[[SACCW:arg[0-9]+]]: !torch.vtensor<[2,3],f32>, %[[SACCB:arg[0-9]+]]: !torch.vtensor<[2],f32>,
// SUM-NOT: torch.aten.div
// SUM: "ipu.sgd_update"(%[[SW]], %[[SACCW]],
// SUM-NEXT: "ipu.sgd_update"(%[[SB]], %[[SACCB]],
// SUM-LABEL: sym_name = "main"
// SUM: %[[SNEXT:.*]] = "torch.aten.add.Scalar"
// SUM-NEXT: "ipu.accumulate_grad"(%{{.*}}, %{{.*}}, %[[SNEXT]]) {reduction = "sum", strategy = "post"}
// SUM-NEXT: "ipu.accumulate_grad"(%{{.*}}, %{{.*}}, %[[SNEXT]]) {reduction = "sum", strategy = "post"}
func.func @main(%arg0: !torch.vtensor<[2,3],f32> {ipu.role = #ipu.role<"parameter", "fc.weight">}, %arg1: !torch.vtensor<[2],f32> {ipu.role = #ipu.role<"parameter", "fc.bias">}, %arg2: !torch.vtensor<[4,3],f32> {ipu.role = #ipu.role<"input", "x">}, %arg3: !torch.vtensor<[4,2],f32> {ipu.role = #ipu.role<"input", "y">}, %arg4: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss", "0">}, !torch.vtensor<[4,2],f32> {ipu.role = #ipu.role<"output", "1">}, !torch.vtensor<[2,3],f32> {ipu.role = #ipu.role<"grad", "fc.weight">}, !torch.vtensor<[2],f32> {ipu.role = #ipu.role<"grad", "fc.bias">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {nesterov = false, variant = "separate", with_momentum = true}, 1 : i64, {}, {}, []>} {
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
// CHECK-LABEL: "func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "w">}, {ipu.role = #ipu.role<"hyper", "loss_scaling">}, {ipu.role = #ipu.role<"optimizer_state", "w/exp_avg">}, {ipu.role = #ipu.role<"optimizer_state", "w/exp_avg_sq">}, {ipu.role = #ipu.role<"optimizer_state", "w/step">}, {ipu.role = #ipu.role<"hyper", "1.lr">}
// CHECK-SAME: sym_name = "adam"
// CHECK: ^bb0(%[[AW:arg[0-9]+]]: !torch.vtensor<[3],f32>, %[[ALS:arg[0-9]+]]: !torch.vtensor<[],f32>,
// CHECK: %[[SEED:.*]] = "torch.aten.expand"(%[[ALS]], %{{.*}}, %{{.*}}) : (!torch.vtensor<[],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[3],f32>
// CHECK: "torch.aten.mul.Tensor"(%[[SEED]], %[[AW]])
// CHECK: "ipu.adam_update"({{.*}}) {bias_correction = true, hyper_names = ["lr", "beta1", "beta2", "eps", "weight_decay", "loss_scaling"], operandSegmentSizes = array<i32: 1, 1, 2, 1, 6>, resultSegmentSizes = array<i32: 1, 2, 1>, variant = "adamw"}

// With G = 4, Adam's moments, step and group-1 hyper-parameters move to @update, which
// feeds the mean gradient (accumulator / 4) to ipu.adam_update.
// ACC-LABEL: "func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "w">}, {ipu.role = #ipu.role<"accumulator", "w/accum">}, {ipu.role = #ipu.role<"optimizer_state", "w/exp_avg">}, {ipu.role = #ipu.role<"optimizer_state", "w/exp_avg_sq">}, {ipu.role = #ipu.role<"optimizer_state", "w/step">}, {ipu.role = #ipu.role<"hyper", "1.lr">}, {ipu.role = #ipu.role<"hyper", "1.beta1">}, {ipu.role = #ipu.role<"hyper", "1.beta2">}, {ipu.role = #ipu.role<"hyper", "1.eps">}, {ipu.role = #ipu.role<"hyper", "1.weight_decay">}, {ipu.role = #ipu.role<"hyper", "loss_scaling">}, {ipu.role = #ipu.role<"accumulator", "accumulation_count">}]
// ACC-SAME: res_attrs = [{ipu.role = #ipu.role<"weight_update", "w">}, {ipu.role = #ipu.role<"state_update", "w/exp_avg">}, {ipu.role = #ipu.role<"state_update", "w/exp_avg_sq">}, {ipu.role = #ipu.role<"state_update", "w/step">}, {ipu.role = #ipu.role<"accumulator_update", "w/accum">}, {ipu.role = #ipu.role<"accumulator_update", "accumulation_count">}]
// ACC-SAME: sym_name = "update"
// ACC: ^bb0(%[[AW:arg[0-9]+]]: !torch.vtensor<[3],f32>, %[[AACC:arg[0-9]+]]: !torch.vtensor<[3],f32>, %[[AM:arg[0-9]+]]: !torch.vtensor<[3],f32>, %[[AV:arg[0-9]+]]: !torch.vtensor<[3],f32>, %[[AT:arg[0-9]+]]: !torch.vtensor<[],f32>,
// ACC: %[[AG:.*]] = "torch.constant.int"() <{value = 4 : i64}>
// ACC-NEXT: %[[AMEAN:.*]] = "torch.aten.div.Scalar"(%[[AACC]], %[[AG]])
// ACC-NEXT: "ipu.adam_update"(%[[AW]], %[[AMEAN]], %[[AM]], %[[AV]], %[[AT]], {{.*}}) {bias_correction = true, {{.*}}variant = "adamw"}
// ACC-LABEL: sym_name = "adam"
// ACC-NOT: ipu.adam_update
// ACC: "ipu.accumulate_grad"
func.func @adam(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"loss", "0">}, !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"adam", {bias_correction = true, variant = "adamw"}, 2 : i64, {w = 1 : i64}, {}, []>} {
  %0 = torch.aten.mul.Tensor %seed, %w : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[3],f32>
  return %w, %0 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
}

// -----

// SGD without momentum has neither velocity nor step count: the update op has empty
// state and step groups, and only the new weight is a result.
// CHECK-LABEL: "func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "w">}, {ipu.role = #ipu.role<"input", "x">}, {ipu.role = #ipu.role<"hyper", "loss_scaling">}, {ipu.role = #ipu.role<"hyper", "0.lr">}, {ipu.role = #ipu.role<"hyper", "0.momentum">}, {ipu.role = #ipu.role<"hyper", "0.dampening">}, {ipu.role = #ipu.role<"hyper", "0.weight_decay">}, {ipu.role = #ipu.role<"hyper", "0.velocity_scaling">}]
// CHECK-SAME: res_attrs = [{ipu.role = #ipu.role<"loss", "0">}, {ipu.role = #ipu.role<"weight_update", "w">}]
// CHECK-SAME: sym_name = "sgd_plain"
// CHECK: ^bb0(%[[W:arg[0-9]+]]: !torch.vtensor<[3],f32>, %[[X:arg[0-9]+]]: !torch.vtensor<[3],f32>, %[[LS:arg[0-9]+]]: !torch.vtensor<[],f32>,
// CHECK: %[[G:.*]] = "torch.aten.mul.Tensor"(%[[X]], %[[LS]])
// CHECK-NEXT: %[[NEW:.*]] = "ipu.sgd_update"(%[[W]], %[[G]], {{.*}}) {{{.*}}operandSegmentSizes = array<i32: 1, 1, 0, 0, 6>, resultSegmentSizes = array<i32: 1, 0, 0>, variant = "separate", with_momentum = false} : {{.*}} -> !torch.vtensor<[3],f32>
// CHECK-NEXT: "func.return"(%{{.*}}, %[[NEW]])
func.func @sgd_plain(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %x: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"input", "x">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss", "0">}, !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {nesterov = false, variant = "separate", with_momentum = false}, 1 : i64, {}, {}, []>} {
  %none = torch.constant.none
  %0 = torch.aten.mul.Tensor %w, %x : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[3],f32>
  %1 = torch.aten.sum %0, %none : !torch.vtensor<[3],f32>, !torch.none -> !torch.vtensor<[],f32>
  %2 = torch.aten.mul.Tensor %x, %seed : !torch.vtensor<[3],f32>, !torch.vtensor<[],f32> -> !torch.vtensor<[3],f32>
  return %1, %2 : !torch.vtensor<[],f32>, !torch.vtensor<[3],f32>
}

// -----

// Hyper-parameters named in the optimizer's `constants` are compiled in: a
// torch.vtensor.literal (f32) replaces the argument, here lr = 0.01, dampening = 0
// and loss_scaling = 128 (which then also seeds the backward pass). The others stay
// arguments.
// CHECK-LABEL: "func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "w">}, {ipu.role = #ipu.role<"input", "x">}, {ipu.role = #ipu.role<"optimizer_state", "w/velocity">}, {ipu.role = #ipu.role<"optimizer_state", "w/step">}, {ipu.role = #ipu.role<"hyper", "0.momentum">}, {ipu.role = #ipu.role<"hyper", "0.weight_decay">}, {ipu.role = #ipu.role<"hyper", "0.velocity_scaling">}]
// CHECK-SAME: sym_name = "constants"
// CHECK: ^bb0(%[[W:arg[0-9]+]]: !torch.vtensor<[3],f32>, %[[X:arg[0-9]+]]: !torch.vtensor<[3],f32>, %[[V:arg[0-9]+]]: !torch.vtensor<[3],f32>, %[[T:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[MOM:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[WD:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[VS:arg[0-9]+]]: !torch.vtensor<[],f32>):
// CHECK-DAG: %[[DAMP:.*]] = "torch.vtensor.literal"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> !torch.vtensor<[],f32>
// CHECK-DAG: %[[LR:.*]] = "torch.vtensor.literal"() <{value = dense<0.00999999977> : tensor<f32>}> : () -> !torch.vtensor<[],f32>
// CHECK-DAG: %[[LS:.*]] = "torch.vtensor.literal"() <{value = dense<1.280000e+02> : tensor<f32>}> : () -> !torch.vtensor<[],f32>
// CHECK: %[[G:.*]] = "torch.aten.mul.Tensor"(%[[X]], %[[LS]])
// CHECK-NEXT: "ipu.sgd_update"(%[[W]], %[[G]], %[[V]], %[[T]], %[[LR]], %[[MOM]], %[[DAMP]], %[[WD]], %[[VS]], %[[LS]])

// With G = 4 the literals are made where they are read: loss_scaling in the step
// (the seed), lr, dampening and loss_scaling again in @update.
// ACC-LABEL: "func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "w">}, {ipu.role = #ipu.role<"accumulator", "w/accum">}, {ipu.role = #ipu.role<"optimizer_state", "w/velocity">}, {ipu.role = #ipu.role<"optimizer_state", "w/step">}, {ipu.role = #ipu.role<"hyper", "0.momentum">}, {ipu.role = #ipu.role<"hyper", "0.weight_decay">}, {ipu.role = #ipu.role<"hyper", "0.velocity_scaling">}, {ipu.role = #ipu.role<"accumulator", "accumulation_count">}]
// ACC-SAME: sym_name = "update"
// ACC: ^bb0(%[[CW:arg[0-9]+]]: !torch.vtensor<[3],f32>, %[[CACC:arg[0-9]+]]: !torch.vtensor<[3],f32>, %[[CV:arg[0-9]+]]: !torch.vtensor<[3],f32>, %[[CT:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[CMOM:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[CWD:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[CVS:arg[0-9]+]]: !torch.vtensor<[],f32>, %[[CCOUNT:arg[0-9]+]]: !torch.vtensor<[],f32>):
// ACC-DAG: %[[CLS:.*]] = "torch.vtensor.literal"() <{value = dense<1.280000e+02> : tensor<f32>}>
// ACC-DAG: %[[CDAMP:.*]] = "torch.vtensor.literal"() <{value = dense<0.000000e+00> : tensor<f32>}>
// ACC-DAG: %[[CLR:.*]] = "torch.vtensor.literal"() <{value = dense<0.00999999977> : tensor<f32>}>
// ACC: %[[CMEAN:.*]] = "torch.aten.div.Scalar"(%[[CACC]],
// ACC-NEXT: "ipu.sgd_update"(%[[CW]], %[[CMEAN]], %[[CV]], %[[CT]], %[[CLR]], %[[CMOM]], %[[CDAMP]], %[[CWD]], %[[CVS]], %[[CLS]])
// ACC-LABEL: "func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "w">}, {ipu.role = #ipu.role<"input", "x">}, {ipu.role = #ipu.role<"accumulator", "accumulation_count">}, {ipu.role = #ipu.role<"accumulator", "w/accum">}]
// ACC-SAME: sym_name = "constants"
// ACC: %[[SLS:.*]] = "torch.vtensor.literal"() <{value = dense<1.280000e+02> : tensor<f32>}>
// ACC-NOT: torch.vtensor.literal
// ACC: "torch.aten.mul.Tensor"(%{{.*}}, %[[SLS]])
func.func @constants(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %x: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"input", "x">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss", "0">}, !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {nesterov = false, variant = "separate", with_momentum = true}, 1 : i64, {}, {"0.dampening" = 0.000000e+00 : f64, "0.lr" = 1.000000e-02 : f64, loss_scaling = 1.280000e+02 : f64}, []>} {
  %none = torch.constant.none
  %0 = torch.aten.mul.Tensor %w, %x : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[3],f32>
  %1 = torch.aten.sum %0, %none : !torch.vtensor<[3],f32>, !torch.none -> !torch.vtensor<[],f32>
  %2 = torch.aten.mul.Tensor %x, %seed : !torch.vtensor<[3],f32>, !torch.vtensor<[],f32> -> !torch.vtensor<[3],f32>
  return %1, %2 : !torch.vtensor<[],f32>, !torch.vtensor<[3],f32>
}

// -----

// max_grad_norm clips all gradients by their global norm before the updates, as
// torch.nn.utils.clip_grad_norm_ does: the norm of the unscaled gradients is
// sqrt(sum of squares of all of them) / loss_scaling, and every gradient is scaled by
// min(1, max_norm / (norm + 1e-6)) with max_norm = 0.5.
// CHECK-LABEL: sym_name = "clip"
// CHECK: ^bb0(%[[W:arg[0-9]+]]: !torch.vtensor<[2,3],f32>, %[[B:arg[0-9]+]]: !torch.vtensor<[2],f32>, %{{arg[0-9]+}}: !torch.vtensor<[4,3],f32>, %{{arg[0-9]+}}: !torch.vtensor<[4,2],f32>, %[[LS:arg[0-9]+]]: !torch.vtensor<[],f32>,
// CHECK: %[[GW:.*]] = "torch.aten.mm"
// CHECK: %[[GB:.*]] = "torch.aten.view"
// CHECK-NEXT: %[[NONE:.*]] = "torch.constant.none"()
// CHECK-NEXT: %[[SQW:.*]] = "torch.aten.mul.Tensor"(%[[GW]], %[[GW]])
// CHECK-NEXT: %[[SUMW:.*]] = "torch.aten.sum"(%[[SQW]], %[[NONE]]) : (!torch.vtensor<[2,3],f32>, !torch.none) -> !torch.vtensor<[],f32>
// CHECK-NEXT: %[[SQB:.*]] = "torch.aten.mul.Tensor"(%[[GB]], %[[GB]])
// CHECK-NEXT: %[[SUMB:.*]] = "torch.aten.sum"(%[[SQB]], %[[NONE]]) : (!torch.vtensor<[2],f32>, !torch.none) -> !torch.vtensor<[],f32>
// CHECK-NEXT: %[[ONE:.*]] = "torch.constant.int"() <{value = 1 : i64}>
// CHECK-NEXT: %[[TOTAL:.*]] = "torch.aten.add.Tensor"(%[[SUMW]], %[[SUMB]], %[[ONE]])
// CHECK-NEXT: %[[ROOT:.*]] = "torch.aten.sqrt"(%[[TOTAL]])
// CHECK-NEXT: %[[NORM:.*]] = "torch.aten.div.Tensor"(%[[ROOT]], %[[LS]])
// CHECK-NEXT: %[[EPS:.*]] = "torch.constant.float"() <{value = 9.9999999999999995E-7 : f64}>
// CHECK-NEXT: %[[ONE2:.*]] = "torch.constant.int"() <{value = 1 : i64}>
// CHECK-NEXT: %[[SHIFTED:.*]] = "torch.aten.add.Scalar"(%[[NORM]], %[[EPS]], %[[ONE2]])
// CHECK-NEXT: %[[INV:.*]] = "torch.aten.reciprocal"(%[[SHIFTED]])
// CHECK-NEXT: %[[MAX:.*]] = "torch.constant.float"() <{value = 5.000000e-01 : f64}>
// CHECK-NEXT: %[[RATIO:.*]] = "torch.aten.mul.Scalar"(%[[INV]], %[[MAX]])
// CHECK-NEXT: %[[CAP:.*]] = "torch.constant.float"() <{value = 1.000000e+00 : f64}>
// CHECK-NEXT: %[[COEF:.*]] = "torch.aten.clamp_max"(%[[RATIO]], %[[CAP]])
// CHECK-NEXT: %[[CW:.*]] = "torch.aten.mul.Tensor"(%[[GW]], %[[COEF]]) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2,3],f32>
// CHECK-NEXT: %[[CB:.*]] = "torch.aten.mul.Tensor"(%[[GB]], %[[COEF]]) : (!torch.vtensor<[2],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2],f32>
// CHECK-NEXT: "ipu.sgd_update"(%[[W]], %[[CW]],
// CHECK-NEXT: "ipu.sgd_update"(%[[B]], %[[CB]],

// With G = 4 the clipping moves to @update and clips the mean gradients (accumulator
// / 4), unscaled by @update's loss_scaling argument; the step does not clip.
// ACC-LABEL: sym_name = "update"
// ACC: ^bb0(%{{.*}}: !torch.vtensor<[2,3],f32>, %{{.*}}: !torch.vtensor<[2],f32>, %[[KACCW:arg[0-9]+]]: !torch.vtensor<[2,3],f32>, %[[KACCB:arg[0-9]+]]: !torch.vtensor<[2],f32>, %[[KLS:arg[0-9]+]]: !torch.vtensor<[],f32>,
// ACC: %[[KMEANW:.*]] = "torch.aten.div.Scalar"(%[[KACCW]],
// ACC: %[[KMEANB:.*]] = "torch.aten.div.Scalar"(%[[KACCB]],
// ACC-NEXT: "torch.constant.none"
// ACC-NEXT: "torch.aten.mul.Tensor"(%[[KMEANW]], %[[KMEANW]])
// ACC: "torch.aten.mul.Tensor"(%[[KMEANB]], %[[KMEANB]])
// ACC: %[[KROOT:.*]] = "torch.aten.sqrt"
// ACC-NEXT: "torch.aten.div.Tensor"(%[[KROOT]], %[[KLS]])
// ACC: %[[KCOEF:.*]] = "torch.aten.clamp_max"
// ACC-NEXT: %[[KCW:.*]] = "torch.aten.mul.Tensor"(%[[KMEANW]], %[[KCOEF]])
// ACC-NEXT: %[[KCB:.*]] = "torch.aten.mul.Tensor"(%[[KMEANB]], %[[KCOEF]])
// ACC-NEXT: "ipu.sgd_update"(%{{.*}}, %[[KCW]],
// ACC-NEXT: "ipu.sgd_update"(%{{.*}}, %[[KCB]],
// ACC-LABEL: sym_name = "clip"
// ACC-NOT: torch.aten.clamp_max
// ACC: "ipu.accumulate_grad"
func.func @clip(%arg0: !torch.vtensor<[2,3],f32> {ipu.role = #ipu.role<"parameter", "fc.weight">}, %arg1: !torch.vtensor<[2],f32> {ipu.role = #ipu.role<"parameter", "fc.bias">}, %arg2: !torch.vtensor<[4,3],f32> {ipu.role = #ipu.role<"input", "x">}, %arg3: !torch.vtensor<[4,2],f32> {ipu.role = #ipu.role<"input", "y">}, %arg4: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss", "0">}, !torch.vtensor<[4,2],f32> {ipu.role = #ipu.role<"output", "1">}, !torch.vtensor<[2,3],f32> {ipu.role = #ipu.role<"grad", "fc.weight">}, !torch.vtensor<[2],f32> {ipu.role = #ipu.role<"grad", "fc.bias">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {nesterov = false, variant = "separate", with_momentum = true}, 1 : i64, {}, {}, [5.000000e-01]>} {
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

// Replicas (replication-factor=4): each gradient is reduced across the replicas before
// its update, all of them or, for a weight grouped across replicas (ipu.replica_group),
// its groups; an updated buffer is replica 0's on every replica (broadcast-buffers). With
// gradient accumulation the reduction happens once, in @update, after the accumulation.
// REPL-LABEL: sym_name = "replicated"
// REPL: ^bb0(%[[W:arg[0-9]+]]: !torch.vtensor<[3],f32>, %[[B:arg[0-9]+]]: !torch.vtensor<[3],f32>,
// REPL: %[[RW:.*]] = "ipu.replica_reduce"(%[[GW:.*]]) {group = #poplar.comm_group<"orthogonal", 2 : i64>, kind = "mean", replication_factor = 4 : i64}
// REPL-NEXT: %[[RB:.*]] = "ipu.replica_reduce"(%[[GW]]) {group = #poplar.comm_group<"all", 0 : i64>, kind = "mean", replication_factor = 4 : i64}
// REPL: "ipu.sgd_update"(%[[W]], %[[RW]],
// REPL: "ipu.sgd_update"(%[[B]], %[[RB]],
// REPL: %[[M:.*]] = "ipu.replica_broadcast"(%{{.*}}) {replication_factor = 4 : i64}
// REPL: "func.return"(%{{.*}}, %[[M]],
// REPLACC-LABEL: sym_name = "update"
// REPLACC: "ipu.replica_reduce"(%{{.*}}) {group = #poplar.comm_group<"orthogonal", 2 : i64>, kind = "sum", replication_factor = 4 : i64}
// REPLACC: "ipu.replica_reduce"(%{{.*}}) {group = #poplar.comm_group<"all", 0 : i64>, kind = "sum", replication_factor = 4 : i64}
// REPLACC-LABEL: sym_name = "replicated"
// REPLACC-NOT: ipu.replica_
// REPLACC: "func.return"
func.func @replicated(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">, ipu.replica_group = #poplar.comm_group<"orthogonal", 2 : i64>}, %b: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "b">}, %m: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"buffer", "m">}, %x: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"input", "x">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss", "0">}, !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"buffer_update", "m">}, !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}, !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "b">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {nesterov = false, variant = "separate", with_momentum = false}, 1 : i64, {}, {}, []>} {
  %none = torch.constant.none
  %int1 = torch.constant.int 1
  %0 = torch.aten.mul.Tensor %w, %x : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[3],f32>
  %1 = torch.aten.sum %0, %none : !torch.vtensor<[3],f32>, !torch.none -> !torch.vtensor<[],f32>
  %2 = torch.aten.mul.Tensor %x, %seed : !torch.vtensor<[3],f32>, !torch.vtensor<[],f32> -> !torch.vtensor<[3],f32>
  %3 = torch.aten.add.Tensor %m, %x, %int1 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.int -> !torch.vtensor<[3],f32>
  return %1, %3, %2, %2 : !torch.vtensor<[],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
}

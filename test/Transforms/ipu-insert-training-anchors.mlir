// RUN: ipu-opt %s -p ipu-insert-training | FileCheck %s

// An anchored forward tensor (role "anchor", Options.anchorTensor) passes through
// ipu-insert-training like an output, and keeps its #ipu.output_mode: the rewritten
// signature has it after the loss and the output, before the weight updates.
// CHECK-LABEL: "func.func"()
// CHECK-SAME: res_attrs = [{ipu.role = #ipu.role<"loss", "0">}, {ipu.role = #ipu.role<"output", "1">}, {ipu.output_mode = #ipu.output_mode<"every_n", 2 : i64>, ipu.role = #ipu.role<"anchor", "addmm">}, {ipu.role = #ipu.role<"weight_update", "fc.weight">}, {ipu.role = #ipu.role<"weight_update", "fc.bias">}]
// CHECK: %[[ADDMM:.*]] = "torch.aten.addmm"
// CHECK: "func.return"(%{{.*}}, %{{.*}}, %[[ADDMM]], %{{.*}}, %{{.*}})
func.func @main(%arg0: !torch.vtensor<[2,3],f32> {ipu.role = #ipu.role<"parameter", "fc.weight">}, %arg1: !torch.vtensor<[2],f32> {ipu.role = #ipu.role<"parameter", "fc.bias">}, %arg2: !torch.vtensor<[4,3],f32> {ipu.role = #ipu.role<"input", "x">}, %arg3: !torch.vtensor<[4,2],f32> {ipu.role = #ipu.role<"input", "y">}, %arg4: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss", "0">}, !torch.vtensor<[4,2],f32> {ipu.role = #ipu.role<"output", "1">}, !torch.vtensor<[2,3],f32> {ipu.role = #ipu.role<"grad", "fc.weight">}, !torch.vtensor<[2],f32> {ipu.role = #ipu.role<"grad", "fc.bias">}, !torch.vtensor<[4,2],f32> {ipu.role = #ipu.role<"anchor", "addmm">, ipu.output_mode = #ipu.output_mode<"every_n", 2 : i64>}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {nesterov = false, variant = "separate", with_momentum = false}, 1 : i64, {}, {}, []>} {
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
  return %2, %3, %6, %11, %1 : !torch.vtensor<[],f32>, !torch.vtensor<[4,2],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[4,2],f32>
}

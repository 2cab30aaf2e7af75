// RUN: ipu-opt %s -p 'ipu-insert-training{auto-loss-scaling=true}' | FileCheck %s
// RUN: ipu-opt %s -p 'ipu-insert-training{auto-loss-scaling=true gradient-accumulation=2}' | FileCheck %s --check-prefix=ACC

// Automatic loss scaling: the proportion of gradient elements whose scaled magnitude
// reaches 8192 decides the next scale (halve above 1e-7, else double, within [1, 32768]);
// it is written back to the loss_scaling variable as a state update. With gradient
// accumulation the @update function decides it from the accumulated gradients.
// CHECK-LABEL: "func.func"()
// CHECK-SAME: {ipu.role = #ipu.role<"state_update", "loss_scaling">}
// CHECK-SAME: sym_name = "main"
// CHECK: %[[ABS:.*]] = "torch.aten.abs"(%[[G:.*]]) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
// CHECK: %[[HIGH:.*]] = "torch.aten.ge.Scalar"(%[[ABS]], %{{.*}}) : (!torch.vtensor<[3],f32>, !torch.float) -> !torch.vtensor<[3],i1>
// CHECK: %[[PROP:.*]] = "torch.aten.div.Scalar"(%{{.*}}, %{{.*}})
// CHECK: %[[TOO_HIGH:.*]] = "torch.aten.gt.Scalar"(%[[PROP]], %{{.*}})
// CHECK: %[[DOWN:.*]] = "torch.aten.mul.Scalar"(%[[LS:.*]], %{{.*}})
// CHECK: %[[UP:.*]] = "torch.aten.mul.Scalar"(%[[LS]], %{{.*}})
// CHECK: %[[NEXT:.*]] = "torch.aten.where.self"(%[[TOO_HIGH]], %[[DOWN]], %[[UP]])
// CHECK: %[[CLAMPED:.*]] = "torch.aten.clamp"(%[[NEXT]], %{{.*}}, %{{.*}})
// CHECK: "func.return"({{.*}}, %[[CLAMPED]])
// ACC: sym_name = "update"
// ACC: "torch.aten.ge.Scalar"
// ACC: "torch.aten.where.self"
// ACC: sym_name = "main"
// ACC-NOT: "torch.aten.ge.Scalar"
func.func @main(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss", "0">}, !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {}, 1 : i64, {}, {}, []>} {
  %int1 = torch.constant.int 1
  %0 = torch.aten.mul.Scalar %w, %int1 : !torch.vtensor<[3],f32>, !torch.int -> !torch.vtensor<[3],f32>
  return %seed, %0 : !torch.vtensor<[],f32>, !torch.vtensor<[3],f32>
}

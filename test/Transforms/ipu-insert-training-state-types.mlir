// RUN: ipu-opt %s -p 'ipu-insert-training{state-types=velocity:f16}' | FileCheck %s
// RUN: ipu-opt %s -p 'ipu-insert-training{gradient-accumulation=2 strategy=running state-types=accum:f16,velocity:f16}' | FileCheck %s --check-prefix=ACC

// velocity_accum_type=float16 with a float32 weight: the velocity argument is float16, the
// update runs in float32 (the velocity cast up) and the new velocity is cast back down.
// CHECK: "func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "w">}, {ipu.role = #ipu.role<"hyper", "loss_scaling">}, {ipu.role = #ipu.role<"optimizer_state", "w/velocity">}
// CHECK-SAME: function_type = (!torch.vtensor<[3],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[3],f16>,
// CHECK-SAME: -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f16>, !torch.vtensor<[],f32>)
// CHECK: ^bb0(%[[W:[^:]*]]: !torch.vtensor<[3],f32>, %{{[^:]*}}: !torch.vtensor<[],f32>, %[[V:[^:]*]]: !torch.vtensor<[3],f16>
// CHECK: %[[V32:.*]] = "torch.aten.to.dtype"(%[[V]], {{.*}} -> !torch.vtensor<[3],f32>
// CHECK: %[[U:.*]]:3 = "ipu.sgd_update"(%[[W]], %{{.*}}, %[[V32]], {{.*}} -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[],f32>)
// CHECK: %[[V16:.*]] = "torch.aten.to.dtype"(%[[U]]#1, {{.*}} -> !torch.vtensor<[3],f16>
// CHECK: "func.return"(%[[U]]#0, %[[V16]], %[[U]]#2)

// accum_type=float16: @update takes the float16 accumulator (and velocity) and runs the
// update in float32; the step casts the gradient to float16 before adding it.
// ACC: "func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "w">}, {ipu.role = #ipu.role<"accumulator", "w/accum">}, {ipu.role = #ipu.role<"optimizer_state", "w/velocity">}
// ACC-SAME: function_type = (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f16>, !torch.vtensor<[3],f16>,
// ACC-SAME: sym_name = "update"
// ACC: "ipu.sgd_update"({{.*}} -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[],f32>)
// ACC: "func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "w">}, {ipu.role = #ipu.role<"hyper", "loss_scaling">}, {ipu.role = #ipu.role<"accumulator", "accumulation_count">}, {ipu.role = #ipu.role<"accumulator", "w/accum">}]
// ACC: %[[G16:.*]] = "torch.aten.to.dtype"({{.*}} -> !torch.vtensor<[3],f16>
// ACC: "ipu.accumulate_grad"(%{{.*}}, %[[G16]], %{{.*}}) {reduction = "mean", strategy = "running"} : (!torch.vtensor<[3],f16>, !torch.vtensor<[3],f16>, !torch.vtensor<[],f32>) -> !torch.vtensor<[3],f16>
func.func @main(%w: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "w">}, %seed: !torch.vtensor<[],f32> {ipu.role = #ipu.role<"loss_grad", "loss_grad">}) -> (!torch.vtensor<[3],f32> {ipu.role = #ipu.role<"grad", "w">}) attributes {ipu.optimizer = #ipu.optimizer<"sgd", {nesterov = false, variant = "separate", with_momentum = true}, 1 : i64, {}, {}, []>} {
  %int1 = torch.constant.int 1
  %0 = torch.aten.mul.Scalar %w, %int1 : !torch.vtensor<[3],f32>, !torch.int -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

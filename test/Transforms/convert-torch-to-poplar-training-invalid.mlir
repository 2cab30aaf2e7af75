// RUN: ipu-opt %s -p 'convert-torch-to-poplar{training=true}' --split-input-file --verify-diagnostics

// Backward ops used in ways the poplar gradient ops do not cover are located errors,
// every one reported in one run; nothing falls back silently. threshold_backward is
// only ReLU's (threshold 0); NLLLoss has no class weights.
func.func @unsupported_backward(%g: !torch.vtensor<[2,4],f32>, %x: !torch.vtensor<[2,4],f32>, %lp: !torch.vtensor<[2,3],f32>, %t: !torch.vtensor<[2],si64>, %cw: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[2,4],f32>, !torch.vtensor<[],f32>) {
  %float5.000000e-01 = torch.constant.float 5.000000e-01
  %int1 = torch.constant.int 1
  %int-100 = torch.constant.int -100
  // expected-error@+1 {{'torch.aten.threshold_backward' cannot be lowered to the poplar dialect: threshold_backward with threshold 0.5 (only ReLU's 0)}}
  %0 = torch.aten.threshold_backward %g, %x, %float5.000000e-01 : !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.float -> !torch.vtensor<[2,4],f32>
  // expected-error@+1 {{'torch.aten.nll_loss_forward' cannot be lowered to the poplar dialect: nll_loss with class weights}}
  %output, %total_weight = torch.aten.nll_loss_forward %lp, %t, %cw, %int1, %int-100 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2],si64>, !torch.vtensor<[3],f32>, !torch.int, !torch.int -> !torch.vtensor<[],f32>, !torch.vtensor<[],f32>
  return %0, %output : !torch.vtensor<[2,4],f32>, !torch.vtensor<[],f32>
}

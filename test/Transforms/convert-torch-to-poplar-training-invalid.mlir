// RUN: ipu-opt %s -p 'convert-torch-to-poplar{training=true}' --split-input-file --verify-diagnostics

// Backward ops used in ways the poplar gradient ops do not cover are located errors,
// every one reported in one run; nothing falls back silently. The embedding gradient
// has no scale_grad_by_freq (its scale depends on how often each id occurs).
func.func @unsupported_backward(%g: !torch.vtensor<[2,3,4],f32>, %ids: !torch.vtensor<[2,3],si64>) -> (!torch.vtensor<[10,4],f32>, !torch.vtensor<[10,4],f32>) {
  %int10 = torch.constant.int 10
  %int-1 = torch.constant.int -1
  %true = torch.constant.bool true
  // expected-error@+1 {{'torch.aten.embedding_dense_backward' cannot be lowered to the poplar dialect: embedding with scale_grad_by_freq}}
  %0 = torch.aten.embedding_dense_backward %g, %ids, %int10, %int-1, %true : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3],si64>, !torch.int, !torch.int, !torch.bool -> !torch.vtensor<[10,4],f32>
  // expected-error@+1 {{'torch.aten.embedding_dense_backward' cannot be lowered to the poplar dialect: embedding with scale_grad_by_freq}}
  %1 = torch.aten.embedding_dense_backward %g, %ids, %int10, %int-1, %true : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3],si64>, !torch.int, !torch.int, !torch.bool -> !torch.vtensor<[10,4],f32>
  return %0, %1 : !torch.vtensor<[10,4],f32>, !torch.vtensor<[10,4],f32>
}

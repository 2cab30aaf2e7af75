// RUN: ipu-opt %s -p convert-torch-to-poplar --split-input-file --verify-diagnostics

// Ops without a lowering (a user's own ops: every ATen op may gain one): one error per offender, at the op, all of them reported in
// one run (not only the first; the second is fed by a supported op); nothing
// falls back silently. The relu between them lowers fine and reports nothing.
// A supported op used in an unsupported way says why.
func.func @unsupported(%x: !torch.vtensor<[2,3],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) {
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  // expected-error@+1 {{'torch.user.unlowered' has no lowering to the poplar dialect (unsupported op)}}
  %0 = torch.operator "torch.user.unlowered"(%x) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
  %1 = torch.aten.relu %x : !torch.vtensor<[2,3],f32> -> !torch.vtensor<[2,3],f32>
  // expected-error@+1 {{'torch.user.unlowered' has no lowering to the poplar dialect (unsupported op)}}
  %2 = torch.operator "torch.user.unlowered"(%1) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
  // expected-error@+1 {{'torch.user.unlowered_scan' has no lowering to the poplar dialect (unsupported op)}}
  %3 = torch.operator "torch.user.unlowered_scan"(%x, %int1) : (!torch.vtensor<[2,3],f32>, !torch.int) -> !torch.vtensor<[2,3],f32>
  %str = torch.constant.str "sigmoid"
  // expected-error@+1 {{'torch.aten.gelu' cannot be lowered to the poplar dialect: gelu approximate='sigmoid' (expected 'none' or 'tanh')}}
  %4 = torch.aten.gelu %x, %str : !torch.vtensor<[2,3],f32>, !torch.str -> !torch.vtensor<[2,3],f32>
  return %0, %2, %3, %4 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>
}

// -----

// An op fed by an op that failed is not reported again: the input is the problem.
func.func @poisoned(%x: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> {
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  // expected-error@+1 {{'torch.user.unlowered' has no lowering to the poplar dialect (unsupported op)}}
  %0 = torch.operator "torch.user.unlowered"(%x) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
  %1 = torch.aten.relu %0 : !torch.vtensor<[2,3],f32> -> !torch.vtensor<[2,3],f32>
  return %1 : !torch.vtensor<[2,3],f32>
}

// -----

// IPU programs are static: a dynamic dim in the signature is an error at the function.
// expected-error@+1 {{argument #0: dynamic shapes are not supported (IPU programs are static): !torch.vtensor<[?,3],f32>}}
func.func @dynamic(%x: !torch.vtensor<[?,3],f32>) -> !torch.vtensor<[?,3],f32> {
  return %x : !torch.vtensor<[?,3],f32>
}

// RUN: ipu-opt %s -p convert-torch-to-poplar --split-input-file --verify-diagnostics

// What a function returns must be a tensor the lowered program produces; anything else is
// an error at the return.

// A device program returns tensors: a Torch scalar (here x.size(0)) is not one.
func.func @int_result(%x: !torch.vtensor<[2,3],f32>) -> !torch.int {
  %int0 = torch.constant.int 0
  %0 = torch.aten.size.int %x, %int0 : !torch.vtensor<[2,3],f32>, !torch.int -> !torch.int
  // expected-error @+1 {{function result: not a value tensor with static rank: !torch.int}}
  return %0 : !torch.int
}

// -----

// An element type the IPU Model does not have (x.to(torch.uint16)) is named.
func.func @uint16_result(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],ui16> {
  %int27 = torch.constant.int 27
  %false = torch.constant.bool false
  %none = torch.constant.none
  %0 = torch.aten.to.dtype %x, %int27, %false, %false, %none : !torch.vtensor<[2],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[2],ui16>
  // expected-error @+1 {{function result: element type ui16 is not supported on the IPU Model}}
  return %0 : !torch.vtensor<[2],ui16>
}

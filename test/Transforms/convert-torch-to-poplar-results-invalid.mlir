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

// max_pool2d_with_indices lowers to a pool without indices (the gradient recomputes
// them), so the indices cannot be returned. The message names the value by its number
// in the Torch function: the results of max_pool2d_with_indices are %8#0 and %8#1.
func.func @pool_indices(%x: !torch.vtensor<[1,4,8,8],f32>) -> (!torch.vtensor<[1,4,4,4],f32>, !torch.vtensor<[1,4,4,4],si64>) {
  %int2 = torch.constant.int 2
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %kernel = torch.prim.ListConstruct %int2, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int2, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %padding = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %dilation = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %values, %indices = torch.aten.max_pool2d_with_indices %x, %kernel, %stride, %padding, %dilation, %false : !torch.vtensor<[1,4,8,8],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool -> !torch.vtensor<[1,4,4,4],f32>, !torch.vtensor<[1,4,4,4],si64>
  // expected-error @+1 {{cannot return: operand %8#1 is not a tensor this lowering knows}}
  return %values, %indices : !torch.vtensor<[1,4,4,4],f32>, !torch.vtensor<[1,4,4,4],si64>
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

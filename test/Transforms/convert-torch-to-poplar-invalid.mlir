// RUN: not ipu-opt %s -p convert-torch-to-poplar --split-input-file 2>&1 >/dev/null | FileCheck %s

// Ops without a lowering: one error per offender, located in the user's model source,
// all of them reported in one run (not only the first); nothing falls back silently.
// The relu between them lowers fine and reports nothing.
// CHECK-DAG: model.py:12:9: error: 'torch.aten.cumsum' has no lowering to the poplar dialect (unsupported op)
// CHECK-DAG: model.py:14:9: error: 'torch.aten.cumsum' has no lowering to the poplar dialect (unsupported op)
// CHECK-DAG: model.py:15:9: error: 'torch.aten.erfinv' has no lowering to the poplar dialect (unsupported op)
// A supported op used in an unsupported way says why.
// CHECK-DAG: model.py:17:9: error: 'torch.aten.gelu' cannot be lowered to the poplar dialect: gelu approximate='sigmoid' (expected 'none' or 'tanh')
func.func @unsupported(%x: !torch.vtensor<[2,3],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) {
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  %0 = torch.aten.cumsum %x, %int1, %none : !torch.vtensor<[2,3],f32>, !torch.int, !torch.none -> !torch.vtensor<[2,3],f32> loc("model.py":12:9)
  %1 = torch.aten.relu %x : !torch.vtensor<[2,3],f32> -> !torch.vtensor<[2,3],f32> loc("model.py":13:9)
  %2 = torch.aten.cumsum %1, %int1, %none : !torch.vtensor<[2,3],f32>, !torch.int, !torch.none -> !torch.vtensor<[2,3],f32> loc("model.py":14:9)
  %3 = torch.aten.erfinv %x : !torch.vtensor<[2,3],f32> -> !torch.vtensor<[2,3],f32> loc("model.py":15:9)
  %str = torch.constant.str "sigmoid"
  %4 = torch.aten.gelu %x, %str : !torch.vtensor<[2,3],f32>, !torch.str -> !torch.vtensor<[2,3],f32> loc("model.py":17:9)
  return %0, %2, %3, %4 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>
}

// -----

// IPU programs are static: a dynamic dim in the signature is an error at the function.
// CHECK: convert-torch-to-poplar-invalid.mlir:[[# @LINE + 1]]:1: error: argument #0: dynamic shapes are not supported (IPU programs are static): !torch.vtensor<[?,3],f32>
func.func @dynamic(%x: !torch.vtensor<[?,3],f32>) -> !torch.vtensor<[?,3],f32> {
  return %x : !torch.vtensor<[?,3],f32>
}

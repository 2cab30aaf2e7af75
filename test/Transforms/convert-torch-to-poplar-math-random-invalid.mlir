// RUN: ipu-opt %s -p convert-torch-to-poplar --split-input-file --verify-diagnostics

// Element-wise, reduction and random ops with arguments the lowering refuses, each with
// its reason (eager PyTorch rejects most of these too; a hand-written or imported
// program may still hold them). Ops torch-mlir does not register arrive as torch.operator
// and are named by their ATen name.

func.func @var_of_integers(%x: !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[2],si64> {
  %int1 = torch.constant.int 1
  %dims = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %none = torch.constant.none
  %false = torch.constant.bool false
  // expected-error@+1 {{'torch.aten.var.correction' cannot be lowered to the poplar dialect: a variance with i64 elements (eager computes it in floating point only)}}
  %0 = torch.aten.var.correction %x, %dims, %none, %false : !torch.vtensor<[2,3],si64>, !torch.list<int>, !torch.none, !torch.bool -> !torch.vtensor<[2],si64>
  return %0 : !torch.vtensor<[2],si64>
}

// -----

func.func @div_rounding_mode(%x: !torch.vtensor<[3],f32>, %y: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> {
  %str = torch.constant.str "round"
  // expected-error@+1 {{'torch.aten.div.Tensor_mode' cannot be lowered to the poplar dialect: div rounding_mode 'round' (expected None, 'floor' or 'trunc')}}
  %0 = torch.aten.div.Tensor_mode %x, %y, %str : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.str -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

func.func @randint_empty_range() -> !torch.vtensor<[4],si64> {
  %int5 = torch.constant.int 5
  %int4 = torch.constant.int 4
  %size = torch.prim.ListConstruct %int4 : (!torch.int) -> !torch.list<int>
  %none = torch.constant.none
  // expected-error@+1 {{'torch.aten.randint.low' cannot be lowered to the poplar dialect: randint needs low < high, got [5, 5)}}
  %0 = torch.aten.randint.low %int5, %int5, %size, %none, %none, %none, %none : !torch.int, !torch.int, !torch.list<int>, !torch.none, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[4],si64>
  return %0 : !torch.vtensor<[4],si64>
}

// -----

func.func @normal_negative_std() -> !torch.vtensor<[4],f32> {
  %float0 = torch.constant.float 0.0
  %float-1 = torch.constant.float -1.0
  %int4 = torch.constant.int 4
  %size = torch.prim.ListConstruct %int4 : (!torch.int) -> !torch.list<int>
  %none = torch.constant.none
  // expected-error@+1 {{'torch.aten.normal.float_float' cannot be lowered to the poplar dialect: normal with std -1.0 (it must be >= 0)}}
  %0 = torch.operator "torch.aten.normal.float_float"(%float0, %float-1, %size, %none, %none, %none, %none, %none) : (!torch.float, !torch.float, !torch.list<int>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

// -----

func.func @rand_of_integers() -> !torch.vtensor<[4],si32> {
  %int4 = torch.constant.int 4
  %size = torch.prim.ListConstruct %int4 : (!torch.int) -> !torch.list<int>
  %none = torch.constant.none
  // expected-error@+1 {{'torch.aten.rand' cannot be lowered to the poplar dialect: torch.aten.rand with i32 elements (eager draws floats here; use torch.randint for integers)}}
  %0 = torch.aten.rand %size, %none, %none, %none, %none : !torch.list<int>, !torch.none, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[4],si32>
  return %0 : !torch.vtensor<[4],si32>
}

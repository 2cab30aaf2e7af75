// RUN: ipu-opt %s -p convert-torch-to-poplar --split-input-file | FileCheck %s

// Inputs are Torch-dialect functions as the frontend captures them (hand-trimmed).
// The lowered function keeps its name and argument attributes, works on builtin
// tensors, and holds only poplar ops; scalar torch.constant ops disappear.

// Linear: x @ w^T + b is a dim_shuffle of the weight, a matmul and a broadcasting add.
// CHECK-LABEL: "func.func"() <{arg_attrs = [{ipu.role = #ipu.role<"parameter", "weight">}, {ipu.role = #ipu.role<"parameter", "bias">}, {ipu.role = #ipu.role<"input", "input">}], function_type = (tensor<3x4xf32>, tensor<3xf32>, tensor<2x4xf32>) -> tensor<2x3xf32>, sym_name = "linear"}>
// CHECK: ^bb0(%[[W:.*]]: tensor<3x4xf32>, %[[B:.*]]: tensor<3xf32>, %[[X:.*]]: tensor<2x4xf32>):
// CHECK: %[[WT:.*]] = "poplar.dim_shuffle"(%[[W]]) {permutation = array<i64: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
// CHECK: %[[MM:.*]] = "poplar.poplin_matmul"(%[[X]], %[[WT]]) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[Y:.*]] = "poplar.popops_add"(%[[MM]], %[[B]]) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: "func.return"(%[[Y]])
// CHECK-NOT: torch.
func.func @linear(%arg0: !torch.vtensor<[3,4],f32> {ipu.role = #ipu.role<"parameter", "weight">}, %arg1: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "bias">}, %arg2: !torch.vtensor<[2,4],f32> {ipu.role = #ipu.role<"input", "input">}) -> !torch.vtensor<[2,3],f32> {
  %0 = torch.aten.linear %arg2, %arg0, %arg1 : !torch.vtensor<[2,4],f32>, !torch.vtensor<[3,4],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// Linear without bias: no add.
// CHECK-LABEL: sym_name = "linear_no_bias"
// CHECK: %[[WT:.*]] = "poplar.dim_shuffle"(%arg0) {permutation = array<i64: 1, 0>}
// CHECK-NEXT: %[[MM:.*]] = "poplar.poplin_matmul"(%arg1, %[[WT]])
// CHECK-NEXT: "func.return"(%[[MM]])
func.func @linear_no_bias(%arg0: !torch.vtensor<[3,4],f32>, %arg1: !torch.vtensor<[2,4],f32>) -> !torch.vtensor<[2,3],f32> {
  %none = torch.constant.none
  %0 = torch.aten.linear %arg1, %arg0, %none : !torch.vtensor<[2,4],f32>, !torch.vtensor<[3,4],f32>, !torch.none -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// [2,3,4] x [4,5]: the batch dims fold into the rows of one [6,4] x [4,5] matmul.
// CHECK-LABEL: sym_name = "matmul_3d_2d"
// CHECK: %[[A:.*]] = "poplar.reshape"(%arg0) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK: %[[MM:.*]] = "poplar.poplin_matmul"(%[[A]], %arg1) : (tensor<6x4xf32>, tensor<4x5xf32>) -> tensor<6x5xf32>
// CHECK: %[[Y:.*]] = "poplar.reshape"(%[[MM]]) : (tensor<6x5xf32>) -> tensor<2x3x5xf32>
// CHECK: "func.return"(%[[Y]])
func.func @matmul_3d_2d(%arg0: !torch.vtensor<[2,3,4],f32>, %arg1: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[2,3,5],f32> {
  %0 = torch.aten.matmul %arg0, %arg1 : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[4,5],f32> -> !torch.vtensor<[2,3,5],f32>
  return %0 : !torch.vtensor<[2,3,5],f32>
}

// -----

// Matrix x vector: the vector becomes a [4,1] column, the result is squeezed back.
// CHECK-LABEL: sym_name = "matvec"
// CHECK: %[[V:.*]] = "poplar.reshape"(%arg1) : (tensor<4xf32>) -> tensor<4x1xf32>
// CHECK: %[[MM:.*]] = "poplar.poplin_matmul"(%arg0, %[[V]]) : (tensor<3x4xf32>, tensor<4x1xf32>) -> tensor<3x1xf32>
// CHECK: "poplar.reshape"(%[[MM]]) : (tensor<3x1xf32>) -> tensor<3xf32>
func.func @matvec(%arg0: !torch.vtensor<[3,4],f32>, %arg1: !torch.vtensor<[4],f32>) -> !torch.vtensor<[3],f32> {
  %0 = torch.aten.matmul %arg0, %arg1 : !torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f32> -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// bmm is a rank-3 (grouped) matmul as is.
// CHECK-LABEL: sym_name = "bmm"
// CHECK: %[[MM:.*]] = "poplar.poplin_matmul"(%arg0, %arg1) : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: "func.return"(%[[MM]])
func.func @bmm(%arg0: !torch.vtensor<[2,3,4],f32>, %arg1: !torch.vtensor<[2,4,5],f32>) -> !torch.vtensor<[2,3,5],f32> {
  %0 = torch.aten.bmm %arg0, %arg1 : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,4,5],f32> -> !torch.vtensor<[2,3,5],f32>
  return %0 : !torch.vtensor<[2,3,5],f32>
}

// -----

// Broadcast batch dims [2,1] and [5] -> [2,5]: both sides are broadcast and folded
// into 10 groups of a rank-3 matmul.
// CHECK-LABEL: sym_name = "matmul_broadcast_batch"
// CHECK: %[[BA:.*]] = "poplar.broadcast"(%arg0) : (tensor<2x1x3x4xf32>) -> tensor<2x5x3x4xf32>
// CHECK: %[[A:.*]] = "poplar.reshape"(%[[BA]]) : (tensor<2x5x3x4xf32>) -> tensor<10x3x4xf32>
// CHECK: %[[BB:.*]] = "poplar.broadcast"(%arg1) : (tensor<5x4x6xf32>) -> tensor<2x5x4x6xf32>
// CHECK: %[[B:.*]] = "poplar.reshape"(%[[BB]]) : (tensor<2x5x4x6xf32>) -> tensor<10x4x6xf32>
// CHECK: %[[MM:.*]] = "poplar.poplin_matmul"(%[[A]], %[[B]]) : (tensor<10x3x4xf32>, tensor<10x4x6xf32>) -> tensor<10x3x6xf32>
// CHECK: "poplar.reshape"(%[[MM]]) : (tensor<10x3x6xf32>) -> tensor<2x5x3x6xf32>
func.func @matmul_broadcast_batch(%arg0: !torch.vtensor<[2,1,3,4],f32>, %arg1: !torch.vtensor<[5,4,6],f32>) -> !torch.vtensor<[2,5,3,6],f32> {
  %0 = torch.aten.matmul %arg0, %arg1 : !torch.vtensor<[2,1,3,4],f32>, !torch.vtensor<[5,4,6],f32> -> !torch.vtensor<[2,5,3,6],f32>
  return %0 : !torch.vtensor<[2,5,3,6],f32>
}

// -----

// addmm with beta = 0.5: beta * c + alpha * (a @ b) in one poplin_matmul_acc (poplin::matMulAcc).
// CHECK-LABEL: sym_name = "addmm"
// CHECK: "poplar.poplin_matmul_acc"(%arg2, %arg0, %arg1) {alpha = 1.000000e+00 : f64, beta = 5.000000e-01 : f64} : (tensor<4xf32>, tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
func.func @addmm(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[3,4],f32>, %arg2: !torch.vtensor<[4],f32>) -> !torch.vtensor<[2,4],f32> {
  %float5.000000e-01 = torch.constant.float 5.000000e-01
  %int1 = torch.constant.int 1
  %0 = torch.aten.addmm %arg2, %arg0, %arg1, %float5.000000e-01, %int1 : !torch.vtensor<[4],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[3,4],f32>, !torch.float, !torch.int -> !torch.vtensor<[2,4],f32>
  return %0 : !torch.vtensor<[2,4],f32>
}

// -----

// A linear layer's addmm (bias vector, unit scales, a transposed weight) stays a matmul
// and an add for poplar-fuse-linear; an addmm by an untransposed matrix (Hugging Face's
// Conv1D) is one poplin_matmul_acc, the one BLAS call eager makes.
// CHECK-LABEL: sym_name = "addmm_linear"
// CHECK: %[[T:[0-9]+]] = "poplar.dim_shuffle"(%arg1) {permutation = array<i64: 1, 0>}
// CHECK: %[[M:[0-9]+]] = "poplar.poplin_matmul"(%arg0, %[[T]])
// CHECK: "poplar.popops_add"(%[[M]], %arg2)
// CHECK-NOT: poplin_matmul_acc
func.func @addmm_linear(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[4,3],f32>, %arg2: !torch.vtensor<[4],f32>) -> !torch.vtensor<[2,4],f32> {
  %0 = torch.aten.t %arg1 : !torch.vtensor<[4,3],f32> -> !torch.vtensor<[3,4],f32>
  %int1 = torch.constant.int 1
  %1 = torch.aten.addmm %arg2, %arg0, %0, %int1, %int1 : !torch.vtensor<[4],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[3,4],f32>, !torch.int, !torch.int -> !torch.vtensor<[2,4],f32>
  return %1 : !torch.vtensor<[2,4],f32>
}

// -----

// CHECK-LABEL: sym_name = "addmm_conv1d"
// CHECK: "poplar.poplin_matmul_acc"(%arg2, %arg0, %arg1) {alpha = 1.000000e+00 : f64, beta = 1.000000e+00 : f64} : (tensor<4xf32>, tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NOT: popops_add
func.func @addmm_conv1d(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[3,4],f32>, %arg2: !torch.vtensor<[4],f32>) -> !torch.vtensor<[2,4],f32> {
  %int1 = torch.constant.int 1
  %0 = torch.aten.addmm %arg2, %arg0, %arg1, %int1, %int1 : !torch.vtensor<[4],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[3,4],f32>, !torch.int, !torch.int -> !torch.vtensor<[2,4],f32>
  return %0 : !torch.vtensor<[2,4],f32>
}

// -----

// max_pool2d_with_indices whose indices the program returns: the pool keeps its argmax.
// CHECK-LABEL: sym_name = "pool_indices"
// CHECK: %[[P:.*]]:2 = "poplar.popnn_max_pool_with_indices"(%arg0) {ceil_mode = false, kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)
// CHECK-NEXT: "func.return"(%[[P]]#0, %[[P]]#1)
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
  return %values, %indices : !torch.vtensor<[1,4,4,4],f32>, !torch.vtensor<[1,4,4,4],si64>
}

// -----

// Conv2d(4, 6, 3, stride=2, padding=1, groups=2) with bias: one poplin_conv carrying
// the list arguments as arrays (dilation defaults to 1).
// CHECK-LABEL: sym_name = "conv2d"
// CHECK: %[[Y:.*]] = "poplar.poplin_conv"(%arg2, %arg0, %arg1)
// CHECK-SAME: dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>
// CHECK-SAME: (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x4x4xf32>
// CHECK: "func.return"(%[[Y]])
func.func @conv2d(%arg0: !torch.vtensor<[6,2,3,3],f32> {ipu.role = #ipu.role<"parameter", "weight">}, %arg1: !torch.vtensor<[6],f32> {ipu.role = #ipu.role<"parameter", "bias">}, %arg2: !torch.vtensor<[1,4,8,8],f32> {ipu.role = #ipu.role<"input", "input">}) -> !torch.vtensor<[1,6,4,4],f32> {
  %int2 = torch.constant.int 2
  %0 = torch.prim.ListConstruct %int2, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %int1 = torch.constant.int 1
  %1 = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %2 = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %3 = torch.aten.conv2d %arg2, %arg0, %arg1, %0, %1, %2, %int2 : !torch.vtensor<[1,4,8,8],f32>, !torch.vtensor<[6,2,3,3],f32>, !torch.vtensor<[6],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.int -> !torch.vtensor<[1,6,4,4],f32>
  return %3 : !torch.vtensor<[1,6,4,4],f32>
}

// -----

// Inference batch norm as captured (_native_batch_norm_legit_no_training through
// torch.operator): a "batch" popnn_norm reading the running mean and variance; the
// momentum (0.1) is not used, eps is. Only result #0 is used in inference.
// CHECK-LABEL: sym_name = "batch_norm"
// CHECK: ^bb0(%[[W:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>, %[[MEAN:.*]]: tensor<3xf32>, %[[VAR:.*]]: tensor<3xf32>, %{{.*}}: tensor<i64>, %[[X:.*]]: tensor<1x3x4x4xf32>):
// CHECK: %[[Y:.*]] = "poplar.popnn_norm"(%[[X]], %[[W]], %[[B]], %[[MEAN]], %[[VAR]]) {epsilon = 1.000000e-05 : f64, kind = "batch", num_dims = 1 : i64, num_groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>}
// CHECK-SAME: -> tensor<1x3x4x4xf32>
// CHECK: "func.return"(%[[Y]])
func.func @batch_norm(%arg0: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "weight">}, %arg1: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"parameter", "bias">}, %arg2: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"buffer", "running_mean">}, %arg3: !torch.vtensor<[3],f32> {ipu.role = #ipu.role<"buffer", "running_var">}, %arg4: !torch.vtensor<[],si64> {ipu.role = #ipu.role<"buffer", "num_batches_tracked">}, %arg5: !torch.vtensor<[1,3,4,4],f32> {ipu.role = #ipu.role<"input", "input">}) -> !torch.vtensor<[1,3,4,4],f32> {
  %float1.000000e-01 = torch.constant.float 1.000000e-01
  %float1.000000e-05 = torch.constant.float 1.000000e-05
  %0:3 = torch.operator "torch.aten._native_batch_norm_legit_no_training"(%arg5, %arg0, %arg1, %arg2, %arg3, %float1.000000e-01, %float1.000000e-05) : (!torch.vtensor<[1,3,4,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.float, !torch.float) -> (!torch.vtensor<[1,3,4,4],f32>, !torch.vtensor<[0],f32>, !torch.vtensor<[0],f32>)
  return %0#0 : !torch.vtensor<[1,3,4,4],f32>
}

// -----

// Batch norm without affine parameters: weight 1 and bias 0 become constants.
// CHECK-LABEL: sym_name = "batch_norm_no_affine"
// CHECK: %[[ONE:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<1.000000e+00> : tensor<3xf32>}
// CHECK: %[[ZERO:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<0.000000e+00> : tensor<3xf32>}
// CHECK: "poplar.popnn_norm"(%arg2, %[[ONE]], %[[ZERO]], %arg0, %arg1) {epsilon = 1.000000e-03 : f64, kind = "batch"
func.func @batch_norm_no_affine(%arg0: !torch.vtensor<[3],f32>, %arg1: !torch.vtensor<[3],f32>, %arg2: !torch.vtensor<[1,3,4,4],f32>) -> !torch.vtensor<[1,3,4,4],f32> {
  %none = torch.constant.none
  %float1.000000e-01 = torch.constant.float 1.000000e-01
  %float1.000000e-03 = torch.constant.float 1.000000e-03
  %0:3 = torch.operator "torch.aten._native_batch_norm_legit_no_training"(%arg2, %none, %none, %arg0, %arg1, %float1.000000e-01, %float1.000000e-03) : (!torch.vtensor<[1,3,4,4],f32>, !torch.none, !torch.none, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.float, !torch.float) -> (!torch.vtensor<[1,3,4,4],f32>, !torch.vtensor<[0],f32>, !torch.vtensor<[0],f32>)
  return %0#0 : !torch.vtensor<[1,3,4,4],f32>
}

// -----

// LayerNorm(8): a "layer" norm over the last num_dims = 1 dims, no statistics operands.
// CHECK-LABEL: sym_name = "layer_norm"
// CHECK: "poplar.popnn_norm"(%arg2, %arg0, %arg1) {epsilon = 1.000000e-05 : f64, kind = "layer", num_dims = 1 : i64, num_groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
func.func @layer_norm(%arg0: !torch.vtensor<[8],f32>, %arg1: !torch.vtensor<[8],f32>, %arg2: !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32> {
  %int8 = torch.constant.int 8
  %0 = torch.prim.ListConstruct %int8 : (!torch.int) -> !torch.list<int>
  %float1.000000e-05 = torch.constant.float 1.000000e-05
  %false = torch.constant.bool false
  %1 = torch.aten.layer_norm %arg2, %0, %arg0, %arg1, %float1.000000e-05, %false : !torch.vtensor<[2,8],f32>, !torch.list<int>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.float, !torch.bool -> !torch.vtensor<[2,8],f32>
  return %1 : !torch.vtensor<[2,8],f32>
}

// -----

// GroupNorm(2, 4): a "group" norm with num_groups = 2.
// CHECK-LABEL: sym_name = "group_norm"
// CHECK: "poplar.popnn_norm"(%arg2, %arg0, %arg1) {epsilon = 1.000000e-05 : f64, kind = "group", num_dims = 1 : i64, num_groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
func.func @group_norm(%arg0: !torch.vtensor<[4],f32>, %arg1: !torch.vtensor<[4],f32>, %arg2: !torch.vtensor<[1,4,3,3],f32>) -> !torch.vtensor<[1,4,3,3],f32> {
  %int2 = torch.constant.int 2
  %float1.000000e-05 = torch.constant.float 1.000000e-05
  %false = torch.constant.bool false
  %0 = torch.aten.group_norm %arg2, %int2, %arg0, %arg1, %float1.000000e-05, %false : !torch.vtensor<[1,4,3,3],f32>, !torch.int, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.float, !torch.bool -> !torch.vtensor<[1,4,3,3],f32>
  return %0 : !torch.vtensor<[1,4,3,3],f32>
}

// -----

// Non-linearities: relu, gelu (erf by default, tanh when asked), softmax over dim -1
// (normalised to 1) and log_softmax over dim 1.
// CHECK-LABEL: sym_name = "activations"
// CHECK: "poplar.popnn_nonlinearity"(%arg0) {dim = 0 : i64, kind = "relu"} : (tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK: "poplar.popnn_nonlinearity"(%arg0) {dim = 0 : i64, kind = "gelu_tanh"}
// CHECK: "poplar.popnn_nonlinearity"(%arg0) {dim = 0 : i64, kind = "gelu_erf"}
// CHECK: "poplar.popnn_nonlinearity"(%arg0) {dim = 1 : i64, kind = "softmax"}
// CHECK: "poplar.popnn_nonlinearity"(%arg0) {dim = 1 : i64, kind = "log_softmax"}
func.func @activations(%arg0: !torch.vtensor<[2,5],f32>) -> (!torch.vtensor<[2,5],f32>, !torch.vtensor<[2,5],f32>, !torch.vtensor<[2,5],f32>, !torch.vtensor<[2,5],f32>, !torch.vtensor<[2,5],f32>) {
  %0 = torch.aten.relu %arg0 : !torch.vtensor<[2,5],f32> -> !torch.vtensor<[2,5],f32>
  %str = torch.constant.str "tanh"
  %1 = torch.aten.gelu %arg0, %str : !torch.vtensor<[2,5],f32>, !torch.str -> !torch.vtensor<[2,5],f32>
  %str_none = torch.constant.str "none"
  %2 = torch.aten.gelu %arg0, %str_none : !torch.vtensor<[2,5],f32>, !torch.str -> !torch.vtensor<[2,5],f32>
  %int-1 = torch.constant.int -1
  %none = torch.constant.none
  %3 = torch.aten.softmax.int %arg0, %int-1, %none : !torch.vtensor<[2,5],f32>, !torch.int, !torch.none -> !torch.vtensor<[2,5],f32>
  %int1 = torch.constant.int 1
  %4 = torch.aten.log_softmax.int %arg0, %int1, %none : !torch.vtensor<[2,5],f32>, !torch.int, !torch.none -> !torch.vtensor<[2,5],f32>
  return %0, %1, %2, %3, %4 : !torch.vtensor<[2,5],f32>, !torch.vtensor<[2,5],f32>, !torch.vtensor<[2,5],f32>, !torch.vtensor<[2,5],f32>, !torch.vtensor<[2,5],f32>
}

// -----

// softmax(x, dtype=float32) on f16 input: cast first, then the softmax in f32.
// CHECK-LABEL: sym_name = "softmax_dtype"
// CHECK: %[[C:.*]] = "poplar.popops_cast"(%arg0) : (tensor<2x3xf16>) -> tensor<2x3xf32>
// CHECK: "poplar.popnn_nonlinearity"(%[[C]]) {dim = 1 : i64, kind = "softmax"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @softmax_dtype(%arg0: !torch.vtensor<[2,3],f16>) -> !torch.vtensor<[2,3],f32> {
  %int1 = torch.constant.int 1
  %int6 = torch.constant.int 6
  %0 = torch.aten.softmax.int %arg0, %int1, %int6 : !torch.vtensor<[2,3],f16>, !torch.int, !torch.int -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}

// -----

// Element-wise: tensor + tensor (alpha 1) is popops_add; a scalar operand is a literal
// in a popops_map expression (an int scalar is printed as a float for a float result);
// comparisons give i1; where / masked_fill are selects.
// CHECK-LABEL: sym_name = "elementwise"
// CHECK: %[[ADD:.*]] = "poplar.popops_add"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[ADDS:.*]] = "poplar.popops_map"(%arg0) {expr = "add(_1, 1.5)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[MULS:.*]] = "poplar.popops_map"(%arg0) {expr = "mul(_1, 2.0)"
// CHECK: %[[GT:.*]] = "poplar.popops_map"(%arg0, %arg1) {expr = "gt(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK: %[[POS:.*]] = "poplar.popops_map"(%arg0) {expr = "gt(_1, 0.0)", {{.*}} -> tensor<2x3xi1>
// CHECK: %[[WHERE:.*]] = "poplar.popops_map"(%[[POS]], %arg0, %arg1) {expr = "select(_1, _2, _3)", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[NEG:.*]] = "poplar.popops_map"(%arg0) {expr = "lt(_1, 0.0)"
// CHECK: %[[FILL:.*]] = "poplar.popops_map"(%arg0, %[[NEG]]) {expr = "select(_2, -1.0, _1)"
// CHECK: %[[EQ:.*]] = "poplar.popops_map"(%arg0) {expr = "eq(_1, 2.0)", {{.*}} -> tensor<2x3xi1>
// CHECK: "func.return"(%[[ADD]], %[[ADDS]], %[[MULS]], %[[GT]], %[[WHERE]], %[[FILL]], %[[EQ]])
func.func @elementwise(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[2,3],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],i1>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],i1>) {
  %int1 = torch.constant.int 1
  %0 = torch.aten.add.Tensor %arg0, %arg1, %int1 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.int -> !torch.vtensor<[2,3],f32>
  %float1.500000e00 = torch.constant.float 1.500000e+00
  %1 = torch.aten.add.Scalar %arg0, %float1.500000e00, %int1 : !torch.vtensor<[2,3],f32>, !torch.float, !torch.int -> !torch.vtensor<[2,3],f32>
  %int2 = torch.constant.int 2
  %2 = torch.aten.mul.Scalar %arg0, %int2 : !torch.vtensor<[2,3],f32>, !torch.int -> !torch.vtensor<[2,3],f32>
  %3 = torch.aten.gt.Tensor %arg0, %arg1 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32> -> !torch.vtensor<[2,3],i1>
  %int0 = torch.constant.int 0
  %4 = torch.aten.gt.Scalar %arg0, %int0 : !torch.vtensor<[2,3],f32>, !torch.int -> !torch.vtensor<[2,3],i1>
  %5 = torch.aten.where.self %4, %arg0, %arg1 : !torch.vtensor<[2,3],i1>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32> -> !torch.vtensor<[2,3],f32>
  %6 = torch.aten.lt.Scalar %arg0, %int0 : !torch.vtensor<[2,3],f32>, !torch.int -> !torch.vtensor<[2,3],i1>
  %float-1.000000e00 = torch.constant.float -1.000000e+00
  %7 = torch.aten.masked_fill.Scalar %arg0, %6, %float-1.000000e00 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],i1>, !torch.float -> !torch.vtensor<[2,3],f32>
  %8 = torch.aten.eq.Scalar %arg0, %int2 : !torch.vtensor<[2,3],f32>, !torch.int -> !torch.vtensor<[2,3],i1>
  return %0, %1, %2, %3, %5, %7, %8 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],i1>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],i1>
}

// -----

// Reductions over [2,3,4]: sum over (0, 2); mean over 1 keeps the dim and scales by
// 1/3 (the reduced count); amax over -1 (= 2); max.dim is a max reduce plus an arg_max
// for the indices; argmax over 2.
// CHECK-LABEL: sym_name = "reductions"
// CHECK: %[[SUM:.*]] = "poplar.popops_reduce"(%arg0) {dims = array<i64: 0, 2>, keep_dims = false, op = "add", scale = 1.000000e+00 : f64} : (tensor<2x3x4xf32>) -> tensor<3xf32>
// CHECK: %[[MEAN:.*]] = "poplar.popops_reduce"(%arg0) {dims = array<i64: 1>, keep_dims = true, op = "add", scale = 0.33333333333333331 : f64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK: %[[AMAX:.*]] = "poplar.popops_reduce"(%arg0) {dims = array<i64: 2>, keep_dims = false, op = "max", scale = 1.000000e+00 : f64} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
// CHECK: %[[MAXV:.*]] = "poplar.popops_reduce"(%arg0) {dims = array<i64: 1>, keep_dims = false, op = "max", scale = 1.000000e+00 : f64} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[MAXI:.*]] = "poplar.popops_arg_max"(%arg0) {dim = 1 : i64, keep_dims = false} : (tensor<2x3x4xf32>) -> tensor<2x4xi64>
// CHECK: %[[ARGMAX:.*]] = "poplar.popops_arg_max"(%arg0) {dim = 2 : i64, keep_dims = false} : (tensor<2x3x4xf32>) -> tensor<2x3xi64>
// CHECK: "func.return"(%[[SUM]], %[[MEAN]], %[[AMAX]], %[[MAXV]], %[[MAXI]], %[[ARGMAX]])
func.func @reductions(%arg0: !torch.vtensor<[2,3,4],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[2,1,4],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],si64>, !torch.vtensor<[2,3],si64>) {
  %int0 = torch.constant.int 0
  %int2 = torch.constant.int 2
  %0 = torch.prim.ListConstruct %int0, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %false = torch.constant.bool false
  %none = torch.constant.none
  %1 = torch.aten.sum.dim_IntList %arg0, %0, %false, %none : !torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[3],f32>
  %int1 = torch.constant.int 1
  %2 = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %true = torch.constant.bool true
  %3 = torch.aten.mean.dim %arg0, %2, %true, %none : !torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[2,1,4],f32>
  %int-1 = torch.constant.int -1
  %4 = torch.prim.ListConstruct %int-1 : (!torch.int) -> !torch.list<int>
  %5 = torch.aten.amax %arg0, %4, %false : !torch.vtensor<[2,3,4],f32>, !torch.list<int>, !torch.bool -> !torch.vtensor<[2,3],f32>
  %values, %indices = torch.aten.max.dim %arg0, %int1, %false : !torch.vtensor<[2,3,4],f32>, !torch.int, !torch.bool -> !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],si64>
  %6 = torch.aten.argmax %arg0, %int2, %false : !torch.vtensor<[2,3,4],f32>, !torch.int, !torch.bool -> !torch.vtensor<[2,3],si64>
  return %1, %3, %5, %values, %indices, %6 : !torch.vtensor<[3],f32>, !torch.vtensor<[2,1,4],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],si64>, !torch.vtensor<[2,3],si64>
}

// -----

// Full reductions: mean() scales by 1/6; argmax() without a dim flattens first.
// CHECK-LABEL: sym_name = "full_reductions"
// CHECK: "poplar.popops_reduce"(%arg0) {dims = array<i64: 0, 1>, keep_dims = false, op = "add", scale = 0.16666666666666666 : f64} : (tensor<2x3xf32>) -> tensor<f32>
// CHECK: %[[FLAT:.*]] = "poplar.reshape"(%arg0) : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK: "poplar.popops_arg_max"(%[[FLAT]]) {dim = 0 : i64, keep_dims = false} : (tensor<6xf32>) -> tensor<i64>
// CHECK: "poplar.popops_reduce"(%arg0) {dims = array<i64: 0, 1>, keep_dims = false, op = "max", scale = 1.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<f32>
func.func @full_reductions(%arg0: !torch.vtensor<[2,3],f32>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[],si64>, !torch.vtensor<[],f32>) {
  %none = torch.constant.none
  %0 = torch.aten.mean %arg0, %none : !torch.vtensor<[2,3],f32>, !torch.none -> !torch.vtensor<[],f32>
  %false = torch.constant.bool false
  %1 = torch.aten.argmax %arg0, %none, %false : !torch.vtensor<[2,3],f32>, !torch.none, !torch.bool -> !torch.vtensor<[],si64>
  %2 = torch.aten.max %arg0 : !torch.vtensor<[2,3],f32> -> !torch.vtensor<[],f32>
  return %0, %1, %2 : !torch.vtensor<[],f32>, !torch.vtensor<[],si64>, !torch.vtensor<[],f32>
}

// -----

// Pooling: max_pool2d(2) (empty stride = the kernel), avg_pool2d(3, 1, 1) counting
// the padding, adaptive_avg_pool2d 4x4 -> 2x2 (= a 2x2 avg pool of stride 2).
// CHECK-LABEL: sym_name = "pooling"
// CHECK: "poplar.popnn_pool"(%arg0) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2, 2>, kind = "max", padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
// CHECK: "poplar.popnn_pool"(%arg0) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 3, 3>, kind = "avg", padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK: "poplar.popnn_pool"(%arg0) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2, 2>, kind = "avg", padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
func.func @pooling(%arg0: !torch.vtensor<[1,2,4,4],f32>) -> (!torch.vtensor<[1,2,2,2],f32>, !torch.vtensor<[1,2,4,4],f32>, !torch.vtensor<[1,2,2,2],f32>) {
  %int2 = torch.constant.int 2
  %0 = torch.prim.ListConstruct %int2, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.prim.ListConstruct  : () -> !torch.list<int>
  %int0 = torch.constant.int 0
  %2 = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %int1 = torch.constant.int 1
  %3 = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %false = torch.constant.bool false
  %4 = torch.aten.max_pool2d %arg0, %0, %1, %2, %3, %false : !torch.vtensor<[1,2,4,4],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool -> !torch.vtensor<[1,2,2,2],f32>
  %int3 = torch.constant.int 3
  %5 = torch.prim.ListConstruct %int3, %int3 : (!torch.int, !torch.int) -> !torch.list<int>
  %true = torch.constant.bool true
  %none = torch.constant.none
  %6 = torch.aten.avg_pool2d %arg0, %5, %3, %3, %false, %true, %none : !torch.vtensor<[1,2,4,4],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[1,2,4,4],f32>
  %7 = torch.aten.adaptive_avg_pool2d %arg0, %0 : !torch.vtensor<[1,2,4,4],f32>, !torch.list<int> -> !torch.vtensor<[1,2,2,2],f32>
  return %4, %6, %7 : !torch.vtensor<[1,2,2,2],f32>, !torch.vtensor<[1,2,4,4],f32>, !torch.vtensor<[1,2,2,2],f32>
}

// -----

// Embedding(10, 4): a multi_slice of the table's rows by the si64 (-> i64) indices.
// CHECK-LABEL: sym_name = "embedding"
// CHECK: "poplar.popops_multi_slice"(%arg0, %arg1) {dim = 0 : i64} : (tensor<10x4xf32>, tensor<2x2xi64>) -> tensor<2x2x4xf32>
func.func @embedding(%arg0: !torch.vtensor<[10,4],f32> {ipu.role = #ipu.role<"parameter", "weight">}, %arg1: !torch.vtensor<[2,2],si64> {ipu.role = #ipu.role<"input", "input">}) -> !torch.vtensor<[2,2,4],f32> {
  %int-1 = torch.constant.int -1
  %false = torch.constant.bool false
  %0 = torch.aten.embedding %arg0, %arg1, %int-1, %false, %false : !torch.vtensor<[10,4],f32>, !torch.vtensor<[2,2],si64>, !torch.int, !torch.bool, !torch.bool -> !torch.vtensor<[2,2,4],f32>
  return %0 : !torch.vtensor<[2,2,4],f32>
}

// -----

// Views and data movement on x: [2,3,4].
// CHECK-LABEL: sym_name = "views"
// view(6, 4)
// CHECK: %[[VIEW:.*]] = "poplar.reshape"(%arg0) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// permute(2, 0, 1)
// CHECK: %[[PERM:.*]] = "poplar.dim_shuffle"(%arg0) {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// transpose(0, 1)
// CHECK: %[[TRANS:.*]] = "poplar.dim_shuffle"(%arg0) {permutation = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
// x[:, 1:3]
// CHECK: %[[SLICE:.*]] = "poplar.slice"(%arg0) {begin = array<i64: 0, 1, 0>, end = array<i64: 2, 3, 4>, stride = array<i64: 1, 1, 1>} : (tensor<2x3x4xf32>) -> tensor<2x2x4xf32>
// x[:, 1] is a slice of size 1 and a reshape dropping the dim
// CHECK: %[[SEL:.*]] = "poplar.slice"(%arg0) {begin = array<i64: 0, 1, 0>, end = array<i64: 2, 2, 4>, stride = array<i64: 1, 1, 1>} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK: %[[SELR:.*]] = "poplar.reshape"(%[[SEL]]) : (tensor<2x1x4xf32>) -> tensor<2x4xf32>
// cat([x, x], 1)
// CHECK: %[[CAT:.*]] = "poplar.concat"(%arg0, %arg0) {dim = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x6x4xf32>
// stack([x, x], 0): each input gets a unit dim 0, then a concat along it
// CHECK: %[[S0:.*]] = "poplar.reshape"(%arg0) : (tensor<2x3x4xf32>) -> tensor<1x2x3x4xf32>
// CHECK: %[[S1:.*]] = "poplar.reshape"(%arg0) : (tensor<2x3x4xf32>) -> tensor<1x2x3x4xf32>
// CHECK: %[[STACK:.*]] = "poplar.concat"(%[[S0]], %[[S1]]) {dim = 0 : i64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<2x2x3x4xf32>
// split(2, dim=2): two slices [0, 2) and [2, 4) of dim 2
// CHECK: %[[SPLIT0:.*]] = "poplar.slice"(%arg0) {begin = array<i64: 0, 0, 0>, end = array<i64: 2, 3, 2>, stride = array<i64: 1, 1, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x2xf32>
// CHECK: %[[SPLIT1:.*]] = "poplar.slice"(%arg0) {begin = array<i64: 0, 0, 2>, end = array<i64: 2, 3, 4>, stride = array<i64: 1, 1, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x2xf32>
// unsqueeze(1)
// CHECK: %[[UNSQ:.*]] = "poplar.reshape"(%arg0) : (tensor<2x3x4xf32>) -> tensor<2x1x3x4xf32>
// x[:, :1].expand(2, 3, 4)
// CHECK: %[[FIRST:.*]] = "poplar.slice"(%arg0) {begin = array<i64: 0, 0, 0>, end = array<i64: 2, 1, 4>, stride = array<i64: 1, 1, 1>}
// CHECK: %[[EXP:.*]] = "poplar.broadcast"(%[[FIRST]]) : (tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
// x[:, ::2] (step 2)
// CHECK: %[[STEP:.*]] = "poplar.slice"(%arg0) {begin = array<i64: 0, 0, 0>, end = array<i64: 2, 3, 4>, stride = array<i64: 1, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x2x4xf32>
// CHECK: "func.return"(%[[VIEW]], %[[PERM]], %[[TRANS]], %[[SLICE]], %[[SELR]], %[[CAT]], %[[STACK]], %[[SPLIT0]], %[[SPLIT1]], %[[UNSQ]], %[[EXP]], %[[STEP]])
func.func @views(%arg0: !torch.vtensor<[2,3,4],f32>) -> (!torch.vtensor<[6,4],f32>, !torch.vtensor<[4,2,3],f32>, !torch.vtensor<[3,2,4],f32>, !torch.vtensor<[2,2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,6,4],f32>, !torch.vtensor<[2,2,3,4],f32>, !torch.vtensor<[2,3,2],f32>, !torch.vtensor<[2,3,2],f32>, !torch.vtensor<[2,1,3,4],f32>, !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,2,4],f32>) {
  %int6 = torch.constant.int 6
  %int4 = torch.constant.int 4
  %0 = torch.prim.ListConstruct %int6, %int4 : (!torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.aten.view %arg0, %0 : !torch.vtensor<[2,3,4],f32>, !torch.list<int> -> !torch.vtensor<[6,4],f32>
  %int2 = torch.constant.int 2
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %2 = torch.prim.ListConstruct %int2, %int0, %int1 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %3 = torch.aten.permute %arg0, %2 : !torch.vtensor<[2,3,4],f32>, !torch.list<int> -> !torch.vtensor<[4,2,3],f32>
  %4 = torch.aten.transpose.int %arg0, %int0, %int1 : !torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int -> !torch.vtensor<[3,2,4],f32>
  %int3 = torch.constant.int 3
  %5 = torch.aten.slice.Tensor %arg0, %int1, %int1, %int3, %int1 : !torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[2,2,4],f32>
  %6 = torch.aten.select.int %arg0, %int1, %int1 : !torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int -> !torch.vtensor<[2,4],f32>
  %7 = torch.prim.ListConstruct %arg0, %arg0 : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>) -> !torch.list<vtensor>
  %8 = torch.aten.cat %7, %int1 : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[2,6,4],f32>
  %9 = torch.prim.ListConstruct %arg0, %arg0 : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>) -> !torch.list<vtensor>
  %10 = torch.aten.stack %9, %int0 : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[2,2,3,4],f32>
  %11 = torch.aten.split.Tensor %arg0, %int2, %int2 : !torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int -> !torch.list<vtensor>
  %12:2 = torch.prim.ListUnpack %11 : !torch.list<vtensor> -> !torch.vtensor<[2,3,2],f32>, !torch.vtensor<[2,3,2],f32>
  %13 = torch.aten.unsqueeze %arg0, %int1 : !torch.vtensor<[2,3,4],f32>, !torch.int -> !torch.vtensor<[2,1,3,4],f32>
  %14 = torch.aten.slice.Tensor %arg0, %int1, %int0, %int1, %int1 : !torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[2,1,4],f32>
  %15 = torch.prim.ListConstruct %int2, %int3, %int4 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %false = torch.constant.bool false
  %16 = torch.aten.expand %14, %15, %false : !torch.vtensor<[2,1,4],f32>, !torch.list<int>, !torch.bool -> !torch.vtensor<[2,3,4],f32>
  %int9223372036854775807 = torch.constant.int 9223372036854775807
  %17 = torch.aten.slice.Tensor %arg0, %int1, %int0, %int9223372036854775807, %int2 : !torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[2,2,4],f32>
  return %1, %3, %4, %5, %6, %8, %10, %12#0, %12#1, %13, %16, %17 : !torch.vtensor<[6,4],f32>, !torch.vtensor<[4,2,3],f32>, !torch.vtensor<[3,2,4],f32>, !torch.vtensor<[2,2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,6,4],f32>, !torch.vtensor<[2,2,3,4],f32>, !torch.vtensor<[2,3,2],f32>, !torch.vtensor<[2,3,2],f32>, !torch.vtensor<[2,1,3,4],f32>, !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,2,4],f32>
}

// -----

// cat of three tensors along dim -1 chains binary concats: [2,3]+[2,3] -> [2,6]+[2,3] -> [2,9].
// CHECK-LABEL: sym_name = "cat3"
// CHECK: %[[C0:.*]] = "poplar.concat"(%arg0, %arg0) {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
// CHECK: %[[C1:.*]] = "poplar.concat"(%[[C0]], %arg0) {dim = 1 : i64} : (tensor<2x6xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
// CHECK: "func.return"(%[[C1]])
func.func @cat3(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,9],f32> {
  %0 = torch.prim.ListConstruct %arg0, %arg0, %arg0 : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) -> !torch.list<vtensor>
  %int-1 = torch.constant.int -1
  %1 = torch.aten.cat %0, %int-1 : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[2,9],f32>
  return %1 : !torch.vtensor<[2,9],f32>
}

// -----

// x.to(torch.float16) (dtype 5) is a popops_cast; a cast to the same type is no op.
// CHECK-LABEL: sym_name = "to_copy"
// CHECK: %[[C:.*]] = "poplar.popops_cast"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf16>
// CHECK-NEXT: "func.return"(%[[C]], %arg0)
func.func @to_copy(%arg0: !torch.vtensor<[2,3],f32>) -> (!torch.vtensor<[2,3],f16>, !torch.vtensor<[2,3],f32>) {
  %int5 = torch.constant.int 5
  %int6 = torch.constant.int 6
  %none = torch.constant.none
  %false = torch.constant.bool false
  %0 = torch.aten._to_copy %arg0, %int5, %none, %none, %none, %false, %none : !torch.vtensor<[2,3],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.none -> !torch.vtensor<[2,3],f16>
  %1 = torch.aten._to_copy %arg0, %int6, %none, %none, %none, %false, %none : !torch.vtensor<[2,3],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.none -> !torch.vtensor<[2,3],f32>
  return %0, %1 : !torch.vtensor<[2,3],f16>, !torch.vtensor<[2,3],f32>
}

// -----

// scaled_dot_product_attention, math decomposition: softmax(q k^T * 1/sqrt(8)) v.
// k^T swaps the last two dims; the [1,2] batch dims fold into 2 groups of rank-3 matmuls.
// CHECK-LABEL: sym_name = "sdpa"
// CHECK: ^bb0(%[[Q:.*]]: tensor<1x2x4x8xf32>, %[[K:.*]]: tensor<1x2x4x8xf32>, %[[V:.*]]: tensor<1x2x4x8xf32>):
// CHECK: %[[KT:.*]] = "poplar.dim_shuffle"(%[[K]]) {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32>
// CHECK: %[[Q3:.*]] = "poplar.reshape"(%[[Q]]) : (tensor<1x2x4x8xf32>) -> tensor<2x4x8xf32>
// CHECK: %[[KT3:.*]] = "poplar.reshape"(%[[KT]]) : (tensor<1x2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK: %[[QK:.*]] = "poplar.poplin_matmul"(%[[Q3]], %[[KT3]]) : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
// CHECK: %[[QK4:.*]] = "poplar.reshape"(%[[QK]]) : (tensor<2x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK: %[[SCALED:.*]] = "poplar.popops_map"(%[[QK4]]) {expr = "mul(_1, 0.35355339059327373)"
// CHECK: %[[P:.*]] = "poplar.popnn_nonlinearity"(%[[SCALED]]) {dim = 3 : i64, kind = "softmax"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK: %[[P3:.*]] = "poplar.reshape"(%[[P]]) : (tensor<1x2x4x4xf32>) -> tensor<2x4x4xf32>
// CHECK: %[[V3:.*]] = "poplar.reshape"(%[[V]]) : (tensor<1x2x4x8xf32>) -> tensor<2x4x8xf32>
// CHECK: %[[PV:.*]] = "poplar.poplin_matmul"(%[[P3]], %[[V3]]) : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
// CHECK: %[[OUT:.*]] = "poplar.reshape"(%[[PV]]) : (tensor<2x4x8xf32>) -> tensor<1x2x4x8xf32>
// CHECK: "func.return"(%[[OUT]])
func.func @sdpa(%arg0: !torch.vtensor<[1,2,4,8],f32>, %arg1: !torch.vtensor<[1,2,4,8],f32>, %arg2: !torch.vtensor<[1,2,4,8],f32>) -> !torch.vtensor<[1,2,4,8],f32> {
  %none = torch.constant.none
  %float0.000000e00 = torch.constant.float 0.000000e+00
  %false = torch.constant.bool false
  %0 = torch.aten.scaled_dot_product_attention %arg0, %arg1, %arg2, %none, %float0.000000e00, %false, %none, %false : !torch.vtensor<[1,2,4,8],f32>, !torch.vtensor<[1,2,4,8],f32>, !torch.vtensor<[1,2,4,8],f32>, !torch.none, !torch.float, !torch.bool, !torch.none, !torch.bool -> !torch.vtensor<[1,2,4,8],f32>
  return %0 : !torch.vtensor<[1,2,4,8],f32>
}

// -----

// Causal attention with head dim 4 (scale 0.5): a lower-triangular i1 constant
// selects the kept scores, the others become -inf before the softmax.
// CHECK-LABEL: sym_name = "sdpa_causal"
// CHECK: %[[QK:.*]] = "poplar.poplin_matmul"
// CHECK: %[[SCALED:.*]] = "poplar.popops_map"(%[[QK]]) {expr = "mul(_1, 0.5)"
// CHECK: %[[TRIL:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<{{\[}}[true, false, false], [true, true, false], [true, true, true]]> : tensor<3x3xi1>}
// CHECK: %[[MASKED:.*]] = "poplar.popops_map"(%[[SCALED]], %[[TRIL]]) {expr = "select(_2, _1, -inf)"
// CHECK: "poplar.popnn_nonlinearity"(%[[MASKED]]) {dim = 2 : i64, kind = "softmax"}
func.func @sdpa_causal(%arg0: !torch.vtensor<[1,3,4],f32>, %arg1: !torch.vtensor<[1,3,4],f32>, %arg2: !torch.vtensor<[1,3,4],f32>) -> !torch.vtensor<[1,3,4],f32> {
  %none = torch.constant.none
  %float0.000000e00 = torch.constant.float 0.000000e+00
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %0 = torch.aten.scaled_dot_product_attention %arg0, %arg1, %arg2, %none, %float0.000000e00, %true, %none, %false : !torch.vtensor<[1,3,4],f32>, !torch.vtensor<[1,3,4],f32>, !torch.vtensor<[1,3,4],f32>, !torch.none, !torch.float, !torch.bool, !torch.none, !torch.bool -> !torch.vtensor<[1,3,4],f32>
  return %0 : !torch.vtensor<[1,3,4],f32>
}

// -----

// ipu ops (after ipu-raise-custom-ops): print_tensor becomes a program_print_tensor
// and forwards its input; nop is a real copy (map "_1") that no pass folds away;
// set_available_memory and recomputation_checkpoint pass the value through, the
// checkpoint marking the op that computes it (pipeline.checkpoint, read by
// pipeline-schedule when it recomputes); identity_loss "mean" / "sum" reduce every dim (scale 1/6 and 1), "none" is the input.
// CHECK-LABEL: sym_name = "ipu_ops"
// CHECK: "poplar.program_print_tensor"(%arg0) {title = "act"} : (tensor<2x3xf32>) -> ()
// CHECK: %[[NOP:.*]] = "poplar.popops_map"(%arg0) {expr = "_1", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.checkpoint = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[MEAN:.*]] = "poplar.popops_reduce"(%[[NOP]]) {dims = array<i64: 0, 1>, keep_dims = false, op = "add", scale = 0.16666666666666666 : f64} : (tensor<2x3xf32>) -> tensor<f32>
// CHECK: %[[SUM:.*]] = "poplar.popops_reduce"(%[[NOP]]) {dims = array<i64: 0, 1>, keep_dims = false, op = "add", scale = 1.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<f32>
// CHECK: "func.return"(%[[MEAN]], %[[SUM]], %[[NOP]])
// CHECK-NOT: ipu.
func.func @ipu_ops(%x: !torch.vtensor<[2,3],f32>) -> (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[2,3],f32>) {
  %0 = "ipu.print_tensor"(%x) {title = "act"} : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
  %1 = "ipu.nop"(%0) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
  %2 = "ipu.set_available_memory"(%1) {proportion = 3.000000e-01 : f64} : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
  %3 = "ipu.recomputation_checkpoint"(%2) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
  %4 = "ipu.identity_loss"(%3) {reduction = "mean"} : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[],f32>
  %5 = "ipu.identity_loss"(%3) {reduction = "sum"} : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[],f32>
  %6 = "ipu.identity_loss"(%3) {reduction = "none"} : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
  return %4, %5, %6 : !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[2,3],f32>
}

// -----

// Shapes are static, so aten.size.int folds to a constant: here softmax's dim.
// CHECK-LABEL: sym_name = "size_folds"
// CHECK: "poplar.popnn_nonlinearity"(%arg0) {dim = 1 : i64, kind = "softmax"}
func.func @size_folds(%x: !torch.vtensor<[1,3],f32>) -> !torch.vtensor<[1,3],f32> {
  %int0 = torch.constant.int 0
  %none = torch.constant.none
  %dim = torch.aten.size.int %x, %int0 : !torch.vtensor<[1,3],f32>, !torch.int -> !torch.int
  %0 = torch.aten.softmax.int %x, %dim, %none : !torch.vtensor<[1,3],f32>, !torch.int, !torch.none -> !torch.vtensor<[1,3],f32>
  return %0 : !torch.vtensor<[1,3],f32>
}

// -----

// add/sub with alpha != 1: alpha scales a tensor rhs inside the expression and folds
// into a scalar rhs; sum(self, dtype) reduces every dim (operand 1 is the dtype, not dims).
// CHECK-LABEL: sym_name = "alpha_and_sum_dtype"
// CHECK: "poplar.popops_map"(%arg0, %arg1) {expr = "add(_1, mul(_2, 2.0))", operandSegmentSizes = array<i32: 1, 1, 0>}
// CHECK: "poplar.popops_map"(%arg0) {expr = "sub(_1, 6.0)", operandSegmentSizes = array<i32: 1, 0, 0>}
// CHECK: "poplar.popops_reduce"(%arg0) {dims = array<i64: 0, 1>, keep_dims = false, op = "add", scale = 1.000000e+00 : f64} : (tensor<4x3xf32>) -> tensor<f32>
func.func @alpha_and_sum_dtype(%x: !torch.vtensor<[4,3],f32>, %y: !torch.vtensor<[4,3],f32>) -> (!torch.vtensor<[4,3],f32>, !torch.vtensor<[4,3],f32>, !torch.vtensor<[],f32>) {
  %int2 = torch.constant.int 2
  %float3 = torch.constant.float 3.000000e+00
  %int6 = torch.constant.int 6
  %0 = torch.aten.add.Tensor %x, %y, %int2 : !torch.vtensor<[4,3],f32>, !torch.vtensor<[4,3],f32>, !torch.int -> !torch.vtensor<[4,3],f32>
  %1 = torch.aten.sub.Scalar %x, %float3, %int2 : !torch.vtensor<[4,3],f32>, !torch.float, !torch.int -> !torch.vtensor<[4,3],f32>
  %2 = torch.aten.sum %x, %int6 : !torch.vtensor<[4,3],f32>, !torch.int -> !torch.vtensor<[],f32>
  return %0, %1, %2 : !torch.vtensor<[4,3],f32>, !torch.vtensor<[4,3],f32>, !torch.vtensor<[],f32>
}

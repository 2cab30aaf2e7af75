// The poplin family: poplin::matMul, poplin::matMulGrouped for a batched product, a linear
// layer as matMul with the transposed weight plus addInPlace of the bias, and a grouped,
// strided, padded convolution with poplin::ConvParams (PyTorch's weights [G*Cout][Cin][k...]
// reshaped to poplin's [G][Cout][Cin][k...]) and poplin::addBias.
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK: // function 'step'
// CHECK-NEXT: poplar::program::Sequence f_step_0;
// CHECK: // poplin_matmul ({{.*}})
// CHECK-NEXT: poplar::Tensor t0 = poplin::matMul(ipu[0], v_a_0, v_w_0, f_step_0, poplar::FLOAT, "poplin_matmul");
// CHECK: // poplin_matmul ({{.*}})
// CHECK-NEXT: poplar::Tensor t1 = poplin::matMulGrouped(ipu[0], v_ba_0.reshape({10, 2, 3}), v_bb_0.reshape({10, 3, 4}), f_step_0, poplar::FLOAT, "poplin_matmul")
// CHECK-NEXT: .reshape({10, 2, 4});
// CHECK: // poplin_linear ({{.*}})
// CHECK-NEXT: poplar::Tensor t2 = poplin::matMul(ipu[0], v_a_0, v_lw_0.transpose(), f_step_0, poplar::FLOAT, "poplin_linear");
// CHECK-NEXT: popops::addInPlace(ipu[0], t2, v_lb_0, f_step_0, "poplin_linear/bias");
// CHECK: // poplin_conv ({{.*}})
// CHECK-NEXT: poplin::ConvParams params0(poplar::FLOAT, 1, {8, 8}, {3, 3}, 2, 3, 2);
// CHECK-NEXT: params0.inputTransform.paddingLower = {1, 1};
// CHECK-NEXT: params0.inputTransform.paddingUpper = {1, 1};
// CHECK-NEXT: params0.kernelTransform.dilation = {1, 1};
// CHECK-NEXT: params0.outputTransform.stride = {2, 2};
// CHECK-NEXT: poplar::Tensor t3 = poplin::convolution(ipu[0], v_x_0, v_k_0.reshape({2, 3, 2, 3, 3}), params0, false, f_step_0, "poplin_conv");
// CHECK-NEXT: poplin::addBias(ipu[0], t3, v_kb_0, f_step_0, "poplin_conv/bias");
// CHECK-NEXT: poplar::Function fn_step = graph.addFunction(f_step_0);

"builtin.module"() ({
  "poplar.graph"() ({
    %a = "poplar.variable"() {name = "a", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x3xf32>
    %w = "poplar.variable"() {name = "w", kind = "input", ipu = 0 : i64, tiles = array<i64: 1, 1>} : () -> tensor<3x4xf32>
    %ba = "poplar.variable"() {name = "ba", kind = "input", ipu = 0 : i64, tiles = array<i64: 2, 1>} : () -> tensor<10x2x3xf32>
    %bb = "poplar.variable"() {name = "bb", kind = "input", ipu = 0 : i64, tiles = array<i64: 3, 1>} : () -> tensor<10x3x4xf32>
    %lw = "poplar.variable"() {name = "lw", kind = "input", ipu = 0 : i64, tiles = array<i64: 4, 1>} : () -> tensor<4x3xf32>
    %lb = "poplar.variable"() {name = "lb", kind = "input", ipu = 0 : i64, tiles = array<i64: 5, 1>} : () -> tensor<4xf32>
    %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64: 6, 1>} : () -> tensor<1x4x8x8xf32>
    %k = "poplar.variable"() {name = "k", kind = "input", ipu = 0 : i64, tiles = array<i64: 7, 1>} : () -> tensor<6x2x3x3xf32>
    %kb = "poplar.variable"() {name = "kb", kind = "input", ipu = 0 : i64, tiles = array<i64: 8, 1>} : () -> tensor<6xf32>
    "poplar.function"() ({
      %0 = "poplar.poplin_matmul"(%a, %w) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
      %1 = "poplar.poplin_matmul"(%ba, %bb) : (tensor<10x2x3xf32>, tensor<10x3x4xf32>) -> tensor<10x2x4xf32>
      %2 = "poplar.poplin_linear"(%a, %lw, %lb) : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
      %3 = "poplar.poplin_conv"(%x, %k, %kb) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x4x4xf32>
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()


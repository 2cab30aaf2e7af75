// The planning attributes of a matmul or convolution (poplar.available_memory,
// poplar.partials_type) are the PopLibs option flags of its call: availableMemoryProportion
// and partialsType. An op without them gets PopLibs' defaults (no options argument).
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK: poplar::Tensor t0 = poplin::matMul(ipu[0], v_a_0, v_w_0, f_step_0, poplar::FLOAT, "poplin_matmul", poplar::OptionFlags{{[{][{]}}"availableMemoryProportion", "0.2"}, {"partialsType", "float"}});
// CHECK: poplar::Tensor t1 = poplin::matMul(ipu[0], v_a_0, v_w_0, f_step_0, poplar::FLOAT, "poplin_matmul");
// CHECK: poplar::Tensor t2 = poplin::matMul(ipu[0], v_a_0, v_lw_0.transpose(), f_step_0, poplar::FLOAT, "poplin_linear", poplar::OptionFlags{{[{][{]}}"partialsType", "half"}});
// CHECK: poplar::Tensor t3 = poplin::convolution(ipu[0], v_x_0, v_k_0.reshape({1, 3, 2, 3, 3}), params0, false, f_step_0, "poplin_conv", poplar::OptionFlags{{[{][{]}}"availableMemoryProportion", "0.45"}});
// CHECK: poplar::Tensor t4 = poplin::calculateWeightDeltas(ipu[0], v_g_0, v_x_0, params1, f_step_0, "poplin_conv_grad/weights", poplar::OptionFlags{{[{][{]}}"availableMemoryProportion", "0.1"}})
// CHECK: poplin::matMulAcc(ipu[0], t5, 1.0f, v_a_0, v_w_0, f_step_0, "poplin_matmul_acc", poplar::OptionFlags{{[{][{]}}"availableMemoryProportion", "0.3"}});

"builtin.module"() ({
  "poplar.graph"() ({
    %a = "poplar.variable"() {name = "a", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x3xf32>
    %w = "poplar.variable"() {name = "w", kind = "input", ipu = 0 : i64, tiles = array<i64: 1, 1>} : () -> tensor<3x4xf32>
    %lw = "poplar.variable"() {name = "lw", kind = "input", ipu = 0 : i64, tiles = array<i64: 2, 1>} : () -> tensor<4x3xf32>
    %lb = "poplar.variable"() {name = "lb", kind = "input", ipu = 0 : i64, tiles = array<i64: 7, 1>} : () -> tensor<4xf32>
    %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64: 3, 1>} : () -> tensor<1x2x8x8xf32>
    %k = "poplar.variable"() {name = "k", kind = "input", ipu = 0 : i64, tiles = array<i64: 4, 1>} : () -> tensor<3x2x3x3xf32>
    %g = "poplar.variable"() {name = "g", kind = "input", ipu = 0 : i64, tiles = array<i64: 5, 1>} : () -> tensor<1x3x8x8xf32>
    %acc = "poplar.variable"() {name = "acc", kind = "input", ipu = 0 : i64, tiles = array<i64: 6, 1>} : () -> tensor<2x4xf32>
    "poplar.function"() ({
      %0 = "poplar.poplin_matmul"(%a, %w) {poplar.available_memory = 2.000000e-01 : f64, poplar.partials_type = "float"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
      %1 = "poplar.poplin_matmul"(%a, %w) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
      %2 = "poplar.poplin_linear"(%a, %lw, %lb) {poplar.partials_type = "half"} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
      %3 = "poplar.poplin_conv"(%x, %k) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>, poplar.available_memory = 4.500000e-01 : f64} : (tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x8x8xf32>
      %4 = "poplar.poplin_conv_grad"(%g, %x, %k) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, resultSegmentSizes = array<i32: 0, 1, 0>, poplar.available_memory = 1.000000e-01 : f64} : (tensor<1x3x8x8xf32>, tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<3x2x3x3xf32>
      %5 = "poplar.poplin_matmul_acc"(%acc, %a, %w) {alpha = 1.000000e+00 : f64, beta = 1.000000e+00 : f64, poplar.available_memory = 3.000000e-01 : f64} : (tensor<2x4xf32>, tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

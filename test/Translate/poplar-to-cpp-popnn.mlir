// The popnn family: popnn::nonLinearity (softmax over a dimension other than the innermost
// moves it there and back with dimShuffle), popnn::pooling::pool with PoolParams (max with
// padding, average), batch norm with running statistics (invStdDev by popops::map, then
// popnn::bn::batchNormalise) and layer norm (statistics, then layerNormalise over [rows, cols]).
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK: // function 'step'
// CHECK-NEXT: poplar::program::Sequence f_step_0;
// CHECK: // popnn_nonlinearity ({{.*}})
// CHECK-NEXT: poplar::Tensor t0 = popnn::nonLinearity(ipu[0], popnn::NonLinearityType::GELU_ERF, v_x_0, f_step_0, "popnn_nonlinearity");
// CHECK: // popnn_nonlinearity ({{.*}})
// CHECK-NEXT: poplar::Tensor t1 = popnn::nonLinearity(ipu[0], popnn::NonLinearityType::SOFTMAX_STABLE, v_s_0, f_step_0, "popnn_nonlinearity");
// CHECK: // popnn_nonlinearity ({{.*}})
// CHECK-NEXT: poplar::Tensor t2 = popnn::nonLinearity(ipu[0], popnn::NonLinearityType::SOFTMAX_STABLE, v_s_0.dimShuffle({0, 2, 1}), f_step_0, "popnn_nonlinearity")
// CHECK-NEXT: .dimShuffle({0, 2, 1});
// CHECK: // popnn_pool ({{.*}})
// CHECK-NEXT: poplar::Tensor t3 = popnn::pooling::pool(ipu[0],
// CHECK-NEXT: popnn::pooling::PoolParams(popnn::PoolingType::MAX, {6, 6}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, 4, 2, poplar::FLOAT),
// CHECK-NEXT: v_x_0, f_step_0, "popnn_pool");
// CHECK: // popnn_pool ({{.*}})
// CHECK-NEXT: poplar::Tensor t4 = popnn::pooling::pool(ipu[0],
// CHECK-NEXT: popnn::pooling::PoolParams(popnn::PoolingType::AVG, {6, 6}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, 4, 2, poplar::FLOAT),
// CHECK-NEXT: v_x_0, f_step_0, "popnn_pool");
// CHECK: // popnn_norm ({{.*}})
// CHECK: // invStdDev = 1 / sqrt(running_var + eps)
// CHECK-NEXT: poplar::Tensor invStdDev0 = popops::map(ipu[0], pe::BinaryOp(pe::BinaryOpType::DIVIDE, pe::Const(1.0f), pe::UnaryOp(pe::UnaryOpType::SQRT, pe::BinaryOp(pe::BinaryOpType::ADD, pe::_1, pe::Const(1e-05f)))), {v_v_0}, f_step_0, "popnn_norm/invStdDev");
// CHECK-NEXT: poplar::Tensor t5 = popnn::bn::batchNormalise(ipu[0], v_x_0, v_g_0, v_b_0, v_m_0, invStdDev0, f_step_0, "popnn_norm").first;
// CHECK: // popnn_norm ({{.*}})
// CHECK-NEXT: poplar::Tensor acts0 = v_s_0.reshape({6, 5});
// CHECK-NEXT: auto stats0 = popnn::layerNorm::layerNormStatistics(ipu[0], acts0, 1e-05f, f_step_0, false, false, poplar::FLOAT, "popnn_norm/statistics");
// CHECK-NEXT: poplar::Tensor t6 = popnn::layerNorm::layerNormalise(ipu[0], acts0, v_lg_0.flatten(), v_lb_0.flatten(), stats0.first, stats0.second, f_step_0, "popnn_norm").first.reshape({2, 3, 5});
// CHECK-NEXT: poplar::Function fn_step = graph.addFunction(f_step_0);

"builtin.module"() ({
  "poplar.graph"() ({
    %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x4x6x6xf32>
    %s = "poplar.variable"() {name = "s", kind = "input", ipu = 0 : i64, tiles = array<i64: 1, 1>} : () -> tensor<2x3x5xf32>
    %g = "poplar.variable"() {name = "g", kind = "input", ipu = 0 : i64, tiles = array<i64: 2, 1>} : () -> tensor<4xf32>
    %b = "poplar.variable"() {name = "b", kind = "input", ipu = 0 : i64, tiles = array<i64: 3, 1>} : () -> tensor<4xf32>
    %m = "poplar.variable"() {name = "m", kind = "input", ipu = 0 : i64, tiles = array<i64: 4, 1>} : () -> tensor<4xf32>
    %v = "poplar.variable"() {name = "v", kind = "input", ipu = 0 : i64, tiles = array<i64: 5, 1>} : () -> tensor<4xf32>
    %lg = "poplar.variable"() {name = "lg", kind = "input", ipu = 0 : i64, tiles = array<i64: 6, 1>} : () -> tensor<5xf32>
    %lb = "poplar.variable"() {name = "lb", kind = "input", ipu = 0 : i64, tiles = array<i64: 7, 1>} : () -> tensor<5xf32>
    "poplar.function"() ({
      %0 = "poplar.popnn_nonlinearity"(%x) {kind = "gelu_erf", dim = 0 : i64} : (tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
      %1 = "poplar.popnn_nonlinearity"(%s) {kind = "softmax", dim = 2 : i64} : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
      %2 = "poplar.popnn_nonlinearity"(%s) {kind = "softmax", dim = 1 : i64} : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
      %3 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = false, count_include_pad = true} : (tensor<2x4x6x6xf32>) -> tensor<2x4x3x3xf32>
      %4 = "poplar.popnn_pool"(%x) {kind = "avg", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<2x4x6x6xf32>) -> tensor<2x4x3x3xf32>
      %5 = "poplar.popnn_norm"(%x, %g, %b, %m, %v) {kind = "batch", epsilon = 1.0e-05 : f64, num_dims = 1 : i64, num_groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<2x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x6x6xf32>
      %6 = "poplar.popnn_norm"(%s, %lg, %lb) {kind = "layer", epsilon = 1.0e-05 : f64, num_dims = 1 : i64, num_groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x3x5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()


// popops_histogram as popops::histogram: histc counts each element's bin computed as torch
// does (at half-integer levels; the range [0, 0] from the data's minimum and maximum), histogram
// counts at torch's linspace edges (or the given ones) with the last edge in the last bin,
// and density divides by the total and the widths.
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK: #include <popops/GatherStatistics.hpp>
// CHECK: // popops_histogram ({{.*}})
// CHECK-NEXT: // torch.histc: each element's bin as torch computes it, ((x - lo) * 4) / (hi - lo) truncated in float
// CHECK: poplar::Tensor positions0 = popops::map(ipu[0], pe::TernaryOp(pe::TernaryOpType::SELECT, pe::BinaryOp(pe::BinaryOpType::MINIMUM, pe::UnaryOp(pe::UnaryOpType::FLOOR, pe::BinaryOp(pe::BinaryOpType::DIVIDE, pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::BinaryOp(pe::BinaryOpType::SUBTRACT, pe::_1, pe::Const(-1.0f)), pe::Const(4.0f)), pe::BinaryOp(pe::BinaryOpType::SUBTRACT, pe::Const(1.0f), pe::Const(-1.0f)))), pe::Const(3.0f)), pe::Const(-1.0f), pe::BinaryOp(pe::BinaryOpType::LOGICAL_AND, pe::BinaryOp(pe::BinaryOpType::GREATER_THAN_EQUAL, pe::_1, pe::Const(-1.0f)), pe::BinaryOp(pe::BinaryOpType::LESS_THAN_EQUAL, pe::_1, pe::Const(1.0f)))), {v_x_0.flatten()}, f_step_0, "popops_histogram/bins");
// CHECK-NEXT: static const float data0[] = {-0.5f, 0.5f, 1.5f, 2.5f, 3.5f};
// CHECK: poplar::Tensor counts0 = popops::histogram(ipu[0], positions0, levels0, false, f_step_0, "popops_histogram");
// CHECK-NEXT: poplar::Tensor t0 = counts0.slice(1, 5);  // without the out-of-range count
// CHECK: // the range [0, 0]: the data's minimum and maximum, equal ends widened by 1
// CHECK-NEXT: poplar::Tensor low0 = popops::reduce(ipu[0], v_x_0.flatten(), poplar::FLOAT, {0}, popops::ReduceParams(popops::Operation::MIN), f_step_0, "popops_histogram/min");
// CHECK-NEXT: poplar::Tensor high0 = popops::reduce(ipu[0], v_x_0.flatten(), poplar::FLOAT, {0}, popops::ReduceParams(popops::Operation::MAX), f_step_0, "popops_histogram/max");
// CHECK: {v_x_0.flatten(), low1, high1}, f_step_0, "popops_histogram/bins");
// CHECK: // the bin edges: torch.linspace(0.0, 1.0, 5) in float
// CHECK-NEXT: static const float data2[] = {0.0f, 0.25f, 0.5f, 0.75f, 1.0f};
// CHECK: poplar::Tensor counts2 = popops::histogram(ipu[0], v_x_0.flatten(), edges0, false, f_step_0, "popops_histogram");
// CHECK-NEXT: poplar::Tensor atLastEdge0 = popops::reduce(ipu[0], popops::map(ipu[0], pe::Cast(pe::BinaryOp(pe::BinaryOpType::EQUAL, pe::_1, pe::_2), poplar::FLOAT), {v_x_0.flatten(), edges0.slice(4, 5)}, f_step_0, "popops_histogram/last"), poplar::FLOAT, {0}, popops::ReduceParams(popops::Operation::ADD), f_step_0, "popops_histogram/last");
// CHECK-NEXT: poplar::Tensor t2 = popops::cast(ipu[0], counts2.slice(1, 5), poplar::FLOAT, f_step_0, "popops_histogram/bins");
// CHECK-NEXT: popops::addInPlace(ipu[0], t2.slice(3, 4), atLastEdge0.reshape({1}), f_step_0, "popops_histogram/last");
// CHECK-NEXT: // density: divided by the total, then by the bin widths, as torch
// CHECK: popops::mapInPlace(ipu[0], pe::BinaryOp(pe::BinaryOpType::DIVIDE, pe::BinaryOp(pe::BinaryOpType::DIVIDE, pe::_1, pe::_2), pe::BinaryOp(pe::BinaryOpType::SUBTRACT, pe::_3, pe::_4)), {t2, total0, edges0.slice(1, 5), edges0.slice(0, 4)}, f_step_0, "popops_histogram/density");
// CHECK-NEXT: poplar::Tensor t3 = edges0;
// CHECK: // the given bin edges
// CHECK: poplar::Tensor counts3 = popops::histogram(ipu[0], v_x_0.flatten(), v_e_0, false, f_step_0, "popops_histogram");
// CHECK: poplar::Tensor t5 = v_e_0;

"builtin.module"() ({
  "poplar.graph"() ({
    %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x5xf32>
    %e = "poplar.variable"() {name = "e", kind = "input", ipu = 0 : i64, tiles = array<i64: 1, 1>} : () -> tensor<4xf32>
    "poplar.function"() ({
      %0 = "poplar.popops_histogram"(%x) {convention = "histc", bins = array<i64: 4>, range = [-1.0, 1.0], density = false,
             operandSegmentSizes = array<i32: 1, 0, 0>, resultSegmentSizes = array<i32: 1, 0>} : (tensor<2x5xf32>) -> tensor<4xf32>
      %1 = "poplar.popops_histogram"(%x) {convention = "histc", bins = array<i64: 3>, range = [0.0, 0.0], density = false,
             operandSegmentSizes = array<i32: 1, 0, 0>, resultSegmentSizes = array<i32: 1, 0>} : (tensor<2x5xf32>) -> tensor<3xf32>
      %2, %3 = "poplar.popops_histogram"(%x) {convention = "histogram", bins = array<i64: 4>, range = [0.0, 1.0], density = true,
             operandSegmentSizes = array<i32: 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1>} : (tensor<2x5xf32>) -> (tensor<4xf32>, tensor<5xf32>)
      %4, %5 = "poplar.popops_histogram"(%x, %e) {convention = "histogram", bins = array<i64: 3>, range = [], density = false,
             operandSegmentSizes = array<i32: 1, 0, 1>, resultSegmentSizes = array<i32: 1, 1>} : (tensor<2x5xf32>, tensor<4xf32>) -> (tensor<3xf32>, tensor<4xf32>)
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

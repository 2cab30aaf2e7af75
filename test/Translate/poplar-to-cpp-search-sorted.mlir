// popops_search_sorted as a count of the line's elements below x (NaN above every number):
// a popops::map compare of every element pair and a popops::reduce sum along the line; a
// line per row; right counts <= x; integer elements compare without the NaN terms.
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK: // popops_search_sorted ({{.*}})
// CHECK-NEXT: // each result counts the line's elements below x (one compare per element pair, then a sum)
// CHECK-NEXT: poplar::Tensor below0 = popops::map(ipu[0], pe::Cast(pe::BinaryOp(pe::BinaryOpType::LOGICAL_AND, pe::UnaryOp(pe::UnaryOpType::LOGICAL_NOT, pe::UnaryOp(pe::UnaryOpType::IS_NAN, pe::_1)), pe::BinaryOp(pe::BinaryOpType::LOGICAL_OR, pe::UnaryOp(pe::UnaryOpType::IS_NAN, pe::_2), pe::BinaryOp(pe::BinaryOpType::LESS_THAN, pe::_1, pe::_2))), poplar::INT), {v_s_0.reshape({1, 1, 5}).broadcast(2, 0).broadcast(3, 1), v_x_0.expand({2}).broadcast(5, 2)}, f_step_0, "popops_search_sorted/compare");
// CHECK-NEXT: poplar::Tensor t0 = popops::cast(ipu[0], popops::reduce(ipu[0], below0, poplar::INT, {2}, popops::ReduceParams(popops::Operation::ADD), f_step_0, "popops_search_sorted/count"), poplar::LONGLONG, f_step_0, "popops_search_sorted");
// CHECK: poplar::Tensor below1 = popops::map(ipu[0], pe::Cast(pe::BinaryOp(pe::BinaryOpType::LOGICAL_OR, pe::UnaryOp(pe::UnaryOpType::IS_NAN, pe::_2), pe::BinaryOp(pe::BinaryOpType::LOGICAL_AND, pe::UnaryOp(pe::UnaryOpType::LOGICAL_NOT, pe::UnaryOp(pe::UnaryOpType::IS_NAN, pe::_1)), pe::BinaryOp(pe::BinaryOpType::LESS_THAN_EQUAL, pe::_1, pe::_2))), poplar::INT), {v_l_0.reshape({2, 1, 4}).broadcast(3, 1), v_x_0.expand({2}).broadcast(4, 2)}, f_step_0, "popops_search_sorted/compare");
// CHECK: poplar::LONGLONG
// CHECK: poplar::Tensor below2 = popops::map(ipu[0], pe::Cast(pe::BinaryOp(pe::BinaryOpType::LESS_THAN, pe::_1, pe::_2), poplar::INT), {v_k_0.reshape({4}), v_i_0.expand({0}).broadcast(4, 0)}, f_step_0, "popops_search_sorted/compare");
// CHECK-NEXT: poplar::Tensor t2 = popops::cast(ipu[0], popops::reduce(ipu[0], below2, poplar::INT, {0}, popops::ReduceParams(popops::Operation::ADD), f_step_0, "popops_search_sorted/count"), poplar::INT, f_step_0, "popops_search_sorted");

"builtin.module"() ({
  "poplar.graph"() ({
    %s = "poplar.variable"() {name = "s", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<5xf32>
    %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64: 1, 1>} : () -> tensor<2x3xf32>
    %l = "poplar.variable"() {name = "l", kind = "input", ipu = 0 : i64, tiles = array<i64: 2, 1>} : () -> tensor<2x4xf32>
    %o = "poplar.variable"() {name = "o", kind = "input", ipu = 0 : i64, tiles = array<i64: 3, 1>} : () -> tensor<2x4xi64>
    %k = "poplar.variable"() {name = "k", kind = "input", ipu = 0 : i64, tiles = array<i64: 4, 1>} : () -> tensor<4xi32>
    %i = "poplar.variable"() {name = "i", kind = "input", ipu = 0 : i64, tiles = array<i64: 5, 1>} : () -> tensor<i32>
    "poplar.function"() ({
      %0 = "poplar.popops_search_sorted"(%s, %x) {right = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<5xf32>, tensor<2x3xf32>) -> tensor<2x3xi64>
      %1 = "poplar.popops_search_sorted"(%l, %x, %o) {right = true, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x4xf32>, tensor<2x3xf32>, tensor<2x4xi64>) -> tensor<2x3xi64>
      %2 = "poplar.popops_search_sorted"(%k, %i) {right = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xi32>, tensor<i32>) -> tensor<i32>
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

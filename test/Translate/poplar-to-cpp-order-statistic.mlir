// popops_order_statistic: popops::sortKeyValueInPlace of copies of the line and its positions,
// then the sorted element at the statistic's place (kth_value, median: a static place, a line
// with NaN giving NaN at its first NaN; nan_median: a place from the count of numbers, picked
// with a select and a sum); mode is refused by name.
// RUN: sed '/"mode"/d' %s | ipu-translate --poplar-to-cpp | FileCheck %s
// RUN: not ipu-translate --poplar-to-cpp %s 2>&1 | FileCheck %s --check-prefix=MODE

// CHECK: // popops_order_statistic ({{.*}})
// CHECK-NEXT: static const int data0[] = {0, 1, 2, 3, 4};
// CHECK: f_step_0.add(poplar::program::Copy(positions0.reshape({1, 5}).broadcast(2, 0), at0));
// CHECK-NEXT: popops::sortKeyValueInPlace(ipu[0], keys0, at0, 1, f_step_0, "popops_order_statistic/sort");  // NaN sorts last
// CHECK-NEXT: poplar::Tensor value0 = keys0.slice(1, 2, 1).reshape({2});
// CHECK-NEXT: poplar::Tensor index0 = at0.slice(1, 2, 1).reshape({2});
// CHECK: popops::sortKeyValueInPlace(ipu[0], keys1, at1, 0, f_step_0, "popops_order_statistic/sort");  // NaN sorts last
// CHECK-NEXT: poplar::Tensor value1 = keys1.slice(0, 1, 0).reshape({5});
// CHECK: // a line holding NaN: NaN (its last sorted key) at the position of its first NaN
// CHECK-NEXT: poplar::Tensor last0 = keys1.slice(1, 2, 0).reshape({5});
// CHECK: poplar::Tensor t3 = popops::cast(ipu[0], index1, poplar::LONGLONG, f_step_0, "popops_order_statistic/indices").reshape({1, 5});
// CHECK: // the lower median of the line's numbers: the sorted line's element at (numbers - 1) / 2 (0 when all are NaN)
// CHECK: poplar::Tensor place0 = popops::map(ipu[0], pe::BinaryOp(pe::BinaryOpType::MAXIMUM, pe::BinaryOp(pe::BinaryOpType::DIVIDE, pe::BinaryOp(pe::BinaryOpType::SUBTRACT, pe::_1, pe::Const(1)), pe::Const(2)), pe::Const(0)), {numbers0}, f_step_0, "popops_order_statistic/place");
// CHECK-NEXT: poplar::Tensor value2 = popops::reduce(ipu[0], popops::map(ipu[0], pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_1, pe::Const(0.0f), pe::BinaryOp(pe::BinaryOpType::EQUAL, pe::_2, pe::_3)), {keys2, positions2.reshape({1, 5}).broadcast(2, 0), place0.expand({1}).broadcast(5, 1)}, f_step_0, "popops_order_statistic/value"), poplar::FLOAT, {1}, popops::ReduceParams(popops::Operation::ADD), f_step_0, "popops_order_statistic/value");

// MODE: ipu-translate: error: 'poplar.popops_order_statistic' at {{.*}}: torch.mode has no emission yet (its value and position rules need a run-length count of the sorted line)

"builtin.module"() ({
  "poplar.graph"() ({
    %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x5xf32>
    "poplar.function"() ({
      %0, %1 = "poplar.popops_order_statistic"(%x) {statistic = "kth_value", dim = 1 : i64, k = 2 : i64, keep_dims = false} : (tensor<2x5xf32>) -> (tensor<2xf32>, tensor<2xi64>)
      %2, %3 = "poplar.popops_order_statistic"(%x) {statistic = "median", dim = 0 : i64, k = 0 : i64, keep_dims = true} : (tensor<2x5xf32>) -> (tensor<1x5xf32>, tensor<1x5xi64>)
      %4, %5 = "poplar.popops_order_statistic"(%x) {statistic = "nan_median", dim = 1 : i64, k = 0 : i64, keep_dims = false} : (tensor<2x5xf32>) -> (tensor<2xf32>, tensor<2xi64>)
      %6, %7 = "poplar.popops_order_statistic"(%x) {statistic = "mode", dim = 1 : i64, k = 0 : i64, keep_dims = false} : (tensor<2x5xf32>) -> (tensor<2xf32>, tensor<2xi64>)
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

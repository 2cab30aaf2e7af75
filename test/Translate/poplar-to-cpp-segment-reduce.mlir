// popops_segment_reduce: each element's row in a [lines x segments] table is the count of
// segment ends at or below its position (the ends a masked sum of the lengths, or the offsets
// after the first); the elements reduce into the table with multiUpdateMax / multiUpdateAdd
// from the identity or initial; a mean divides by the lengths (initial added first, an empty
// segment gives initial); the gradient gathers each element's segment gradient (mean: divided by
// the length; max: shared by the tied elements where positive, as eager); a product is refused by name.
// RUN: sed '/"prod"/d' %s | ipu-translate --poplar-to-cpp | FileCheck %s
// RUN: not ipu-translate --poplar-to-cpp %s 2>&1 | FileCheck %s --check-prefix=PROD

// CHECK: // popops_segment_reduce ({{.*}})
// CHECK: static const bool mask0Data[] = {true, false, false, true, true, false, true, true, true};
// CHECK: // the segments' ends: sums of the lengths up to each
// CHECK: // each element's row in the table: its line's first row + the count of segment ends at or below its position
// CHECK: popops::mapInPlace(ipu[0], pe::Const(-INFINITY), {table0}, f_step_0, "popops_segment_reduce/start");
// CHECK-NEXT: poplar::Tensor rows0 = v_d_0.reshape({6, 1, 2});
// CHECK-NEXT: popops::multiUpdateMax(ipu[0], table0, rows0, segmentOf0, {0}, {1}, f_step_0, popops::SlicePlan(), poplar::OptionFlags(), "popops_segment_reduce");
// CHECK: ends1 = offsets0.slice(1, 4, 1);
// CHECK-NEXT: sizes1 = popops::sub(ipu[0], ends1, offsets0.slice(0, 3, 1), f_step_0, "popops_segment_reduce/sizes");
// CHECK: popops::multiUpdateAdd(ipu[0], table1, rows1, segmentOf1, scale0, {0}, {1}, f_step_0, popops::SlicePlan(), poplar::OptionFlags(), "popops_segment_reduce");
// CHECK-NEXT: popops::mapInPlace(ipu[0], pe::TernaryOp(pe::TernaryOpType::SELECT, pe::Const(0.5f), pe::BinaryOp(pe::BinaryOpType::DIVIDE, pe::BinaryOp(pe::BinaryOpType::ADD, pe::_1, pe::Const(0.5f)), pe::_2), pe::BinaryOp(pe::BinaryOpType::EQUAL, pe::_2, pe::Const(0.0f))), {table1, sizes1.reshape({3, 1}).broadcast(2, 1)}, f_step_0, "popops_segment_reduce/mean");
// CHECK: // popops_segment_reduce_grad ({{.*}})
// CHECK: poplar::Tensor segmentGrad0 = popops::multiSlice(ipu[0], t0.reshape({3, 2}), segmentOf2, {0}, {1}, f_step_0, popops::SlicePlan(), poplar::OptionFlags(), "popops_segment_reduce_grad").reshape({6, 2});
// CHECK: // the elements equal to their segment's result share its gradient evenly
// CHECK: // as eager (ATen divides only where the gradient is positive): a negative gradient is not split
// CHECK: // popops_segment_reduce_grad ({{.*}})
// CHECK: popops::div(ipu[0], segmentGrad1, popops::multiSlice(ipu[0], sizes3.reshape({3, 1}), segmentOf3

// PROD: ipu-translate: error: 'poplar.popops_segment_reduce' at {{.*}}: a product segment reduction has no emission (PopLibs has no multiplying multiUpdate); use sum, mean, max or min

"builtin.module"() ({
  "poplar.graph"() ({
    %d = "poplar.variable"() {name = "d", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<6x2xf32>
    %l = "poplar.variable"() {name = "l", kind = "input", ipu = 0 : i64, tiles = array<i64: 1, 1>} : () -> tensor<3xi64>
    %o = "poplar.variable"() {name = "o", kind = "input", ipu = 0 : i64, tiles = array<i64: 2, 1>} : () -> tensor<4xi64>
    "poplar.function"() ({
      %0 = "poplar.popops_segment_reduce"(%d, %l) {reduce = "max", segments_by = "lengths", axis = 0 : i64, initial = []} : (tensor<6x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
      %1 = "poplar.popops_segment_reduce"(%d, %o) {reduce = "mean", segments_by = "offsets", axis = 0 : i64, initial = [5.0e-01]} : (tensor<6x2xf32>, tensor<4xi64>) -> tensor<3x2xf32>
      %3 = "poplar.popops_segment_reduce_grad"(%0, %0, %d, %l) {reduce = "max", segments_by = "lengths", axis = 0 : i64, initial = []} : (tensor<3x2xf32>, tensor<3x2xf32>, tensor<6x2xf32>, tensor<3xi64>) -> tensor<6x2xf32>
      %4 = "poplar.popops_segment_reduce_grad"(%1, %1, %d, %o) {reduce = "mean", segments_by = "offsets", axis = 0 : i64, initial = [5.0e-01]} : (tensor<3x2xf32>, tensor<3x2xf32>, tensor<6x2xf32>, tensor<4xi64>) -> tensor<6x2xf32>
      %2 = "poplar.popops_segment_reduce"(%d, %l) {reduce = "prod", segments_by = "lengths", axis = 0 : i64, initial = []} : (tensor<6x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

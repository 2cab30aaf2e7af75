// RUN: ipu-opt %s -p convert-torch-to-poplar --split-input-file --verify-diagnostics | FileCheck %s

// The order statistics, search, scans, histograms and segments (convert_torch_to_poplar/sorting.py,
// histograms.py, reductions.py): what each op becomes, and what is refused, with why.

// torch.kthvalue(x, 3, dim=-1, keepdim=True): one order statistic; the dim counted from the front.
// CHECK-LABEL: sym_name = "kthvalue"
// CHECK: "poplar.popops_order_statistic"(%{{.*}}) {dim = 1 : i64, k = 3 : i64, keep_dims = true, statistic = "kth_value"} : (tensor<4x7xf32>) -> (tensor<4x1xf32>, tensor<4x1xi64>)
func.func @kthvalue(%x: !torch.vtensor<[4,7],f32>) -> (!torch.vtensor<[4,1],f32>, !torch.vtensor<[4,1],si64>) {
  %int3 = torch.constant.int 3
  %int-1 = torch.constant.int -1
  %true = torch.constant.bool true
  %0:2 = torch.aten.kthvalue %x, %int3, %int-1, %true : !torch.vtensor<[4,7],f32>, !torch.int, !torch.int, !torch.bool -> !torch.vtensor<[4,1],f32>, !torch.vtensor<[4,1],si64>
  return %0#0, %0#1 : !torch.vtensor<[4,1],f32>, !torch.vtensor<[4,1],si64>
}

// -----

// torch.median(x) (no dim; it imports as torch.operator): the median of the flattened input, its index unused.
// CHECK-LABEL: sym_name = "median_all"
// CHECK: %[[FLAT:.*]] = "poplar.reshape"(%{{.*}}) : (tensor<4x7xf32>) -> tensor<28xf32>
// CHECK: "poplar.popops_order_statistic"(%[[FLAT]]) {dim = 0 : i64, k = 0 : i64, keep_dims = false, statistic = "median"} : (tensor<28xf32>) -> (tensor<f32>, tensor<i64>)
func.func @median_all(%x: !torch.vtensor<[4,7],f32>) -> !torch.vtensor<[],f32> {
  %0 = torch.operator "torch.aten.median"(%x) : (!torch.vtensor<[4,7],f32>) -> !torch.vtensor<[],f32>
  return %0 : !torch.vtensor<[],f32>
}

// -----

// torch.searchsorted(s, 0.1, out_int32=True): the number becomes a rank-0 constant of the sequence's type.
// CHECK-LABEL: sym_name = "searchsorted_scalar"
// CHECK: %[[C:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<1.000000e-01> : tensor<f32>} : () -> tensor<f32>
// CHECK: "poplar.popops_search_sorted"(%{{.*}}, %[[C]]) {operandSegmentSizes = array<i32: 1, 1, 0>, right = false} : (tensor<5xf32>, tensor<f32>) -> tensor<i32>
func.func @searchsorted_scalar(%s: !torch.vtensor<[5],f32>) -> !torch.vtensor<[],si32> {
  %float = torch.constant.float 1.000000e-01
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %none = torch.constant.none
  %0 = torch.operator "torch.aten.searchsorted.Scalar"(%s, %float, %true, %false, %none, %none) : (!torch.vtensor<[5],f32>, !torch.float, !torch.bool, !torch.bool, !torch.none, !torch.none) -> !torch.vtensor<[],si32>
  return %0 : !torch.vtensor<[],si32>
}

// -----

// torch.bucketize(ints, float_boundaries, right=True): a search of the input in the boundaries, both
// compared as floats (eager's promotion).
// CHECK-LABEL: sym_name = "bucketize"
// CHECK: %[[X:.*]] = "poplar.popops_cast"(%arg{{[0-9]+}}) : (tensor<2x3xi64>) -> tensor<2x3xf32>
// CHECK: "poplar.popops_search_sorted"(%{{.*}}, %[[X]]) {operandSegmentSizes = array<i32: 1, 1, 0>, right = true} : (tensor<4xf32>, tensor<2x3xf32>) -> tensor<2x3xi64>
func.func @bucketize(%x: !torch.vtensor<[2,3],si64>, %b: !torch.vtensor<[4],f32>) -> !torch.vtensor<[2,3],si64> {
  %false = torch.constant.bool false
  %true = torch.constant.bool true
  %0 = torch.operator "torch.aten.bucketize.Tensor"(%x, %b, %false, %true) : (!torch.vtensor<[2,3],si64>, !torch.vtensor<[4],f32>, !torch.bool, !torch.bool) -> (!torch.vtensor<[2,3],si64>)
  return %0 : !torch.vtensor<[2,3],si64>
}

// -----

// torch.cummax and torch.logcumsumexp along dim 1: one scan op each.
// CHECK-LABEL: sym_name = "scans"
// CHECK: "poplar.popops_cumulative_max"(%{{.*}}) {dim = 1 : i64} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
// CHECK: "poplar.popops_cumulative_log_sum_exp"(%{{.*}}) {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @scans(%x: !torch.vtensor<[2,3],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],si64>, !torch.vtensor<[2,3],f32>) {
  %int1 = torch.constant.int 1
  %0:2 = torch.operator "torch.aten.cummax"(%x, %int1) : (!torch.vtensor<[2,3],f32>, !torch.int) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],si64>)
  %1 = torch.operator "torch.aten.logcumsumexp"(%x, %int1) : (!torch.vtensor<[2,3],f32>, !torch.int) -> (!torch.vtensor<[2,3],f32>)
  return %0#0, %0#1, %1 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],si64>, !torch.vtensor<[2,3],f32>
}

// -----

// torch.histogramdd(x, bins=[3, 4]) as torch.histogramdd calls it: the bin edges and the counts are
// one popops_histogram each (the same op: CSE merges them later); every dim's edges are
// sliced from the one edges tensor (4 + 5).
// CHECK-LABEL: sym_name = "histogramdd"
// CHECK: %[[H:.*]]:2 = "poplar.popops_histogram"(%{{.*}}) {bins = array<i64: 3, 4>, convention = "histogramdd", density = false, operandSegmentSizes = array<i32: 1, 0, 0>, range = [], resultSegmentSizes = array<i32: 1, 1>} : (tensor<30x2xf32>) -> (tensor<3x4xf32>, tensor<9xf32>)
// CHECK: "poplar.slice"(%[[H]]#1) {begin = array<i64: 0>, end = array<i64: 4>, stride = array<i64: 1>} : (tensor<9xf32>) -> tensor<4xf32>
// CHECK: "poplar.slice"(%[[H]]#1) {begin = array<i64: 4>, end = array<i64: 9>, stride = array<i64: 1>} : (tensor<9xf32>) -> tensor<5xf32>
// CHECK: "poplar.popops_histogram"(%{{.*}}) {bins = array<i64: 3, 4>, convention = "histogramdd"
func.func @histogramdd(%x: !torch.vtensor<[30,2],f32>) -> (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[5],f32>) {
  %int3 = torch.constant.int 3
  %int4 = torch.constant.int 4
  %none = torch.constant.none
  %false = torch.constant.bool false
  %bins = torch.prim.ListConstruct %int3, %int4 : (!torch.int, !torch.int) -> !torch.list<int>
  %edges = torch.operator "torch.aten._histogramdd_bin_edges"(%x, %bins, %none, %none, %false) : (!torch.vtensor<[30,2],f32>, !torch.list<int>, !torch.none, !torch.none, !torch.bool) -> !torch.list<vtensor>
  %e:2 = torch.prim.ListUnpack %edges : !torch.list<vtensor> -> !torch.vtensor<[4],f32>, !torch.vtensor<[5],f32>
  %hist = torch.operator "torch.aten._histogramdd_from_bin_cts"(%x, %bins, %none, %none, %false) : (!torch.vtensor<[30,2],f32>, !torch.list<int>, !torch.none, !torch.none, !torch.bool) -> (!torch.vtensor<[3,4],f32>)
  return %hist, %e#0, %e#1 : !torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[5],f32>
}

// -----

// torch.segment_reduce(d, "max", lengths=n, initial=0.5).
// CHECK-LABEL: sym_name = "segment_reduce"
// CHECK: "poplar.popops_segment_reduce"(%{{.*}}, %{{.*}}) {axis = 0 : i64, initial = [5.000000e-01], reduce = "max", segments_by = "lengths"} : (tensor<8x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
func.func @segment_reduce(%d: !torch.vtensor<[8,3],f32>, %n: !torch.vtensor<[4],si64>) -> !torch.vtensor<[4,3],f32> {
  %str = torch.constant.str "max"
  %none = torch.constant.none
  %int0 = torch.constant.int 0
  %false = torch.constant.bool false
  %float = torch.constant.float 5.000000e-01
  %0 = torch.operator "torch.aten.segment_reduce"(%d, %str, %n, %none, %none, %int0, %false, %float) : (!torch.vtensor<[8,3],f32>, !torch.str, !torch.vtensor<[4],si64>, !torch.none, !torch.none, !torch.int, !torch.bool, !torch.float) -> (!torch.vtensor<[4,3],f32>)
  return %0 : !torch.vtensor<[4,3],f32>
}

// -----

// torch.median of an empty tensor: eager returns NaN, so does the program (a constant).
// CHECK-LABEL: sym_name = "median_of_nothing"
// CHECK: "poplar.constant"() {{.*}}value = dense<0x7FC00000> : tensor<f32>}
// CHECK-NOT: poplar.popops_order_statistic
func.func @median_of_nothing(%x: !torch.vtensor<[4,0],f32>) -> !torch.vtensor<[],f32> {
  %0 = torch.operator "torch.aten.median"(%x) : (!torch.vtensor<[4,0],f32>) -> !torch.vtensor<[],f32>
  return %0 : !torch.vtensor<[],f32>
}

// -----

// An empty integer tensor: eager returns an unspecified integer; the program refuses.
func.func @median_of_no_integers(%x: !torch.vtensor<[4,0],si64>) -> !torch.vtensor<[],si64> {
  // expected-error@+1 {{'torch.aten.median' cannot be lowered to the poplar dialect: torch.aten.median of an empty integer tensor (eager returns an unspecified integer for it; give a non-empty input)}}
  %0 = torch.operator "torch.aten.median"(%x) : (!torch.vtensor<[4,0],si64>) -> !torch.vtensor<[],si64>
  return %0 : !torch.vtensor<[],si64>
}

// -----

// segment_reduce with indices (eager refuses them too).
func.func @segment_reduce_by_indices(%d: !torch.vtensor<[8],f32>, %i: !torch.vtensor<[8],si64>) -> !torch.vtensor<[4],f32> {
  %str = torch.constant.str "sum"
  %none = torch.constant.none
  %int0 = torch.constant.int 0
  %false = torch.constant.bool false
  // expected-error@+1 {{'torch.aten.segment_reduce' cannot be lowered to the poplar dialect: segment_reduce with indices (eager does not support them either; give lengths or offsets)}}
  %0 = torch.operator "torch.aten.segment_reduce"(%d, %str, %none, %i, %none, %int0, %false, %none) : (!torch.vtensor<[8],f32>, !torch.str, !torch.none, !torch.vtensor<[8],si64>, !torch.none, !torch.int, !torch.bool, !torch.none) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

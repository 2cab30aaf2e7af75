// The order-statistic, search, histogram and segment ops of the poplar dialect
// (dialects/poplar/popops_sort.py, popops_histogram.py): ipu-opt parses, verifies and
// prints the valid ops (and reads its own output again); the stock torch-mlir-opt accepts
// them through dialects/poplar.irdl.mlir; each verifier rule rejects a wrong op with its message.
// RUN: ipu-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: ipu-opt %s --split-input-file --verify-diagnostics | ipu-opt --split-input-file | FileCheck %s
// IRDL checks operand, attribute and result kinds only: torch-mlir-opt prints the valid
// sections and rejects, of the invalid ones, only the wrong result count (so it fails).
// RUN: not torch-mlir-opt --irdl-file=%irdl_dir/poplar.irdl.mlir --split-input-file %s 2>/dev/null | FileCheck %s --check-prefix=IRDL

// torch.median(x, 1), torch.kthvalue(x, 5, 1, keepdim=True), torch.nanmedian(x, 0) with
// i32 indices, and torch.mode of a rank-0 tensor (its own line, dim 0).
// CHECK-LABEL: sym_name = "order_statistics"
// IRDL-LABEL: func.func @order_statistics
func.func @order_statistics(%x: tensor<2x5xf32>, %s: tensor<i32>) -> (tensor<2xf32>, tensor<2x1xi64>, tensor<5xf32>, tensor<i64>) {
  // CHECK: "poplar.popops_order_statistic"(%{{.*}}) {dim = 1 : i64, k = 0 : i64, keep_dims = false, statistic = "median"} : (tensor<2x5xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  // IRDL: "poplar.popops_order_statistic"
  %0:2 = "poplar.popops_order_statistic"(%x) {statistic = "median", dim = 1 : i64, k = 0 : i64, keep_dims = false} : (tensor<2x5xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  // CHECK: "poplar.popops_order_statistic"(%{{.*}}) {dim = 1 : i64, k = 5 : i64, keep_dims = true, statistic = "kth_value"} : (tensor<2x5xf32>) -> (tensor<2x1xf32>, tensor<2x1xi64>)
  %1:2 = "poplar.popops_order_statistic"(%x) {statistic = "kth_value", dim = 1 : i64, k = 5 : i64, keep_dims = true} : (tensor<2x5xf32>) -> (tensor<2x1xf32>, tensor<2x1xi64>)
  // CHECK: "poplar.popops_order_statistic"(%{{.*}}) {dim = 0 : i64, k = 0 : i64, keep_dims = false, statistic = "nan_median"} : (tensor<2x5xf32>) -> (tensor<5xf32>, tensor<5xi32>)
  %2:2 = "poplar.popops_order_statistic"(%x) {statistic = "nan_median", dim = 0 : i64, k = 0 : i64, keep_dims = false} : (tensor<2x5xf32>) -> (tensor<5xf32>, tensor<5xi32>)
  // CHECK: "poplar.popops_order_statistic"(%{{.*}}) {dim = 0 : i64, k = 0 : i64, keep_dims = false, statistic = "mode"} : (tensor<i32>) -> (tensor<i32>, tensor<i64>)
  %3:2 = "poplar.popops_order_statistic"(%s) {statistic = "mode", dim = 0 : i64, k = 0 : i64, keep_dims = false} : (tensor<i32>) -> (tensor<i32>, tensor<i64>)
  return %0#0, %1#1, %2#0, %3#1 : tensor<2xf32>, tensor<2x1xi64>, tensor<5xf32>, tensor<i64>
}

// -----

// torch.searchsorted in one sorted line (left), and in one line per input row with a
// sorter (right, out_int32).
// CHECK-LABEL: sym_name = "search_sorted"
// IRDL-LABEL: func.func @search_sorted
func.func @search_sorted(%seq: tensor<5xf32>, %x: tensor<2x3xf32>, %lines: tensor<2x4xf32>, %sorter: tensor<2x4xi64>) -> (tensor<2x3xi64>, tensor<2x3xi32>) {
  // CHECK: "poplar.popops_search_sorted"(%{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 0>, right = false} : (tensor<5xf32>, tensor<2x3xf32>) -> tensor<2x3xi64>
  // IRDL: "poplar.popops_search_sorted"
  %0 = "poplar.popops_search_sorted"(%seq, %x) {right = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<5xf32>, tensor<2x3xf32>) -> tensor<2x3xi64>
  // CHECK: "poplar.popops_search_sorted"(%{{.*}}, %{{.*}}, %{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 1>, right = true} : (tensor<2x4xf32>, tensor<2x3xf32>, tensor<2x4xi64>) -> tensor<2x3xi32>
  %1 = "poplar.popops_search_sorted"(%lines, %x, %sorter) {right = true, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x4xf32>, tensor<2x3xf32>, tensor<2x4xi64>) -> tensor<2x3xi32>
  return %0, %1 : tensor<2x3xi64>, tensor<2x3xi32>
}

// -----

// torch.histc over the data's range; torch.histogram weighted with a density; a 2-D
// torch.histogramdd (the edges of both dims in one tensor: 4 + 3); torch.histogram with
// edges the user gave.
// CHECK-LABEL: sym_name = "histograms"
// IRDL-LABEL: func.func @histograms
func.func @histograms(%x: tensor<10xf32>, %w: tensor<10xf32>, %p: tensor<6x2xf32>, %e: tensor<4xf32>) -> (tensor<4xf32>, tensor<5xf32>, tensor<7xf32>, tensor<3xf32>) {
  // CHECK: "poplar.popops_histogram"(%{{.*}}) {bins = array<i64: 4>, convention = "histc", density = false, operandSegmentSizes = array<i32: 1, 0, 0>, range = [0.000000e+00, 0.000000e+00], resultSegmentSizes = array<i32: 1, 0>} : (tensor<10xf32>) -> tensor<4xf32>
  // IRDL: "poplar.popops_histogram"
  %0 = "poplar.popops_histogram"(%x) {convention = "histc", bins = array<i64: 4>, range = [0.0, 0.0], density = false, operandSegmentSizes = array<i32: 1, 0, 0>, resultSegmentSizes = array<i32: 1, 0>} : (tensor<10xf32>) -> tensor<4xf32>
  // CHECK: "poplar.popops_histogram"(%{{.*}}, %{{.*}}) {bins = array<i64: 4>, convention = "histogram", density = true, operandSegmentSizes = array<i32: 1, 1, 0>, range = [-1.000000e+00, 1.000000e+00], resultSegmentSizes = array<i32: 1, 1>} : (tensor<10xf32>, tensor<10xf32>) -> (tensor<4xf32>, tensor<5xf32>)
  %1:2 = "poplar.popops_histogram"(%x, %w) {convention = "histogram", bins = array<i64: 4>, range = [-1.0, 1.0], density = true, operandSegmentSizes = array<i32: 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1>} : (tensor<10xf32>, tensor<10xf32>) -> (tensor<4xf32>, tensor<5xf32>)
  // CHECK: "poplar.popops_histogram"(%{{.*}}) {bins = array<i64: 3, 2>, convention = "histogramdd", density = false, operandSegmentSizes = array<i32: 1, 0, 0>, range = [], resultSegmentSizes = array<i32: 1, 1>} : (tensor<6x2xf32>) -> (tensor<3x2xf32>, tensor<7xf32>)
  %2:2 = "poplar.popops_histogram"(%p) {convention = "histogramdd", bins = array<i64: 3, 2>, range = [], density = false, operandSegmentSizes = array<i32: 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1>} : (tensor<6x2xf32>) -> (tensor<3x2xf32>, tensor<7xf32>)
  // CHECK: "poplar.popops_histogram"(%{{.*}}, %{{.*}}) {bins = array<i64: 3>, convention = "histogram", density = false, operandSegmentSizes = array<i32: 1, 0, 1>, range = [], resultSegmentSizes = array<i32: 1, 1>} : (tensor<10xf32>, tensor<4xf32>) -> (tensor<3xf32>, tensor<4xf32>)
  %3:2 = "poplar.popops_histogram"(%x, %e) {convention = "histogram", bins = array<i64: 3>, range = [], density = false, operandSegmentSizes = array<i32: 1, 0, 1>, resultSegmentSizes = array<i32: 1, 1>} : (tensor<10xf32>, tensor<4xf32>) -> (tensor<3xf32>, tensor<4xf32>)
  return %0, %1#1, %2#1, %3#0 : tensor<4xf32>, tensor<5xf32>, tensor<7xf32>, tensor<3xf32>
}

// -----

// torch.segment_reduce by lengths along dim 0 and its gradient; by offsets along dim 1
// (one line of offsets per row) with an initial value.
// CHECK-LABEL: sym_name = "segments"
// IRDL-LABEL: func.func @segments
func.func @segments(%data: tensor<6x2xf32>, %lengths: tensor<3xi64>, %offsets: tensor<2x4xi32>, %d2: tensor<2x5xf32>, %g: tensor<3x2xf32>) -> (tensor<2x3xf32>, tensor<6x2xf32>) {
  // CHECK: "poplar.popops_segment_reduce"(%{{.*}}, %{{.*}}) {axis = 0 : i64, initial = [], reduce = "max", segments_by = "lengths"} : (tensor<6x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
  // IRDL: "poplar.popops_segment_reduce"
  %0 = "poplar.popops_segment_reduce"(%data, %lengths) {reduce = "max", segments_by = "lengths", axis = 0 : i64, initial = []} : (tensor<6x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
  // CHECK: "poplar.popops_segment_reduce"(%{{.*}}, %{{.*}}) {axis = 1 : i64, initial = [2.500000e+00], reduce = "mean", segments_by = "offsets"} : (tensor<2x5xf32>, tensor<2x4xi32>) -> tensor<2x3xf32>
  %1 = "poplar.popops_segment_reduce"(%d2, %offsets) {reduce = "mean", segments_by = "offsets", axis = 1 : i64, initial = [2.5]} : (tensor<2x5xf32>, tensor<2x4xi32>) -> tensor<2x3xf32>
  // CHECK: "poplar.popops_segment_reduce_grad"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {axis = 0 : i64, initial = [], reduce = "max", segments_by = "lengths"} : (tensor<3x2xf32>, tensor<3x2xf32>, tensor<6x2xf32>, tensor<3xi64>) -> tensor<6x2xf32>
  // IRDL: "poplar.popops_segment_reduce_grad"
  %2 = "poplar.popops_segment_reduce_grad"(%g, %0, %data, %lengths) {reduce = "max", segments_by = "lengths", axis = 0 : i64, initial = []} : (tensor<3x2xf32>, tensor<3x2xf32>, tensor<6x2xf32>, tensor<3xi64>) -> tensor<6x2xf32>
  return %1, %2 : tensor<2x3xf32>, tensor<6x2xf32>
}

// -----

func.func @kth_value_k_too_large(%x: tensor<2x5xf32>) {
  // expected-error@+1 {{'poplar.popops_order_statistic' op attribute 'k' must be <= 5, got 6}}
  %0:2 = "poplar.popops_order_statistic"(%x) {statistic = "kth_value", dim = 1 : i64, k = 6 : i64, keep_dims = false} : (tensor<2x5xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  return
}

// -----

func.func @median_with_k(%x: tensor<2x5xf32>) {
  // expected-error@+1 {{'poplar.popops_order_statistic' op attribute 'k' must be <= 0, got 2}}
  %0:2 = "poplar.popops_order_statistic"(%x) {statistic = "median", dim = 1 : i64, k = 2 : i64, keep_dims = false} : (tensor<2x5xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  return
}

// -----

func.func @unknown_statistic(%x: tensor<2x5xf32>) {
  // expected-error@+1 {{'poplar.popops_order_statistic' op attribute 'statistic' must be one of}}
  %0:2 = "poplar.popops_order_statistic"(%x) {statistic = "mean", dim = 1 : i64, k = 0 : i64, keep_dims = false} : (tensor<2x5xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  return
}

// -----

func.func @statistic_of_an_empty_dim(%x: tensor<2x0xf32>) {
  // expected-error@+1 {{'poplar.popops_order_statistic' op dim 1 is empty: a line without elements has no mode}}
  %0:2 = "poplar.popops_order_statistic"(%x) {statistic = "mode", dim = 1 : i64, k = 0 : i64, keep_dims = false} : (tensor<2x0xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  return
}

// -----

func.func @statistic_keeps_the_dim_it_should_drop(%x: tensor<2x5xf32>) {
  // expected-error@+1 {{'poplar.popops_order_statistic' op values shape must be [2], got [2, 1]}}
  %0:2 = "poplar.popops_order_statistic"(%x) {statistic = "median", dim = 1 : i64, k = 0 : i64, keep_dims = false} : (tensor<2x5xf32>) -> (tensor<2x1xf32>, tensor<2x1xi64>)
  return
}

// -----

func.func @search_in_lines_of_another_batch(%lines: tensor<3x4xf32>, %x: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_search_sorted' op sorted_sequence shape [3, 4] must be [M] or the input's leading dims [2] and M}}
  %0 = "poplar.popops_search_sorted"(%lines, %x) {right = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3x4xf32>, tensor<2x3xf32>) -> tensor<2x3xi64>
  return
}

// -----

func.func @search_of_another_element_type(%seq: tensor<5xf32>, %x: tensor<3xi64>) {
  // expected-error@+1 {{'poplar.popops_search_sorted' op sorted_sequence and input must share one element type, got f32 and i64}}
  %0 = "poplar.popops_search_sorted"(%seq, %x) {right = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<5xf32>, tensor<3xi64>) -> tensor<3xi64>
  return
}

// -----

func.func @search_into_floats(%seq: tensor<5xf32>, %x: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_search_sorted' op result must have i32 or i64 elements, got f32}}
  %0 = "poplar.popops_search_sorted"(%seq, %x) {right = false, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<5xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @histc_with_edges(%x: tensor<10xf32>) {
  // expected-error@+1 {{'poplar.popops_histogram' op a histc has no bin_edges result, got 1}}
  %0:2 = "poplar.popops_histogram"(%x) {convention = "histc", bins = array<i64: 4>, range = [0.0, 1.0], density = false, operandSegmentSizes = array<i32: 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1>} : (tensor<10xf32>) -> (tensor<4xf32>, tensor<5xf32>)
  return
}

// -----

func.func @histogram_edges_of_the_wrong_size(%x: tensor<6x2xf32>) {
  // expected-error@+1 {{'poplar.popops_histogram' op bin_edges must be tensor<7xf32> (every dim's edges), got tensor<4xf32>}}
  %0:2 = "poplar.popops_histogram"(%x) {convention = "histogramdd", bins = array<i64: 3, 2>, range = [], density = false, operandSegmentSizes = array<i32: 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1>} : (tensor<6x2xf32>) -> (tensor<3x2xf32>, tensor<4xf32>)
  return
}

// -----

func.func @histogram_range_reversed(%x: tensor<10xf32>) {
  // expected-error@+1 {{'poplar.popops_histogram' op attribute 'range' must give min <= max, got [1.0, -1.0]}}
  %0:2 = "poplar.popops_histogram"(%x) {convention = "histogram", bins = array<i64: 4>, range = [1.0, -1.0], density = false, operandSegmentSizes = array<i32: 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1>} : (tensor<10xf32>) -> (tensor<4xf32>, tensor<5xf32>)
  return
}

// -----

func.func @histogram_of_integers(%x: tensor<10xi64>) {
  // expected-error@+1 {{'poplar.popops_histogram' op input must have floating-point elements, got i64}}
  %0 = "poplar.popops_histogram"(%x) {convention = "histc", bins = array<i64: 4>, range = [0.0, 1.0], density = false, operandSegmentSizes = array<i32: 1, 0, 0>, resultSegmentSizes = array<i32: 1, 0>} : (tensor<10xi64>) -> tensor<4xi64>
  return
}

// -----

func.func @segment_lengths_of_another_batch(%data: tensor<2x5xf32>, %lengths: tensor<3x2xi64>) {
  // expected-error@+1 {{'poplar.popops_segment_reduce' op lengths shape [3, 2] must be the data's dims before axis 1 ([2]) and the segments}}
  %0 = "poplar.popops_segment_reduce"(%data, %lengths) {reduce = "sum", segments_by = "lengths", axis = 1 : i64, initial = []} : (tensor<2x5xf32>, tensor<3x2xi64>) -> tensor<2x2xf32>
  return
}

// -----

func.func @segment_reduce_unknown(%data: tensor<6xf32>, %lengths: tensor<3xi64>) {
  // expected-error@+1 {{'poplar.popops_segment_reduce' op attribute 'reduce' must be one of}}
  %0 = "poplar.popops_segment_reduce"(%data, %lengths) {reduce = "median", segments_by = "lengths", axis = 0 : i64, initial = []} : (tensor<6xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @segment_result_of_another_count(%data: tensor<6xf32>, %offsets: tensor<4xi64>) {
  // expected-error@+1 {{'poplar.popops_segment_reduce' op result must be tensor<3xf32>, got tensor<4xf32>}}
  %0 = "poplar.popops_segment_reduce"(%data, %offsets) {reduce = "sum", segments_by = "offsets", axis = 0 : i64, initial = []} : (tensor<6xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @segment_grad_of_another_type(%g: tensor<3xf32>, %out: tensor<3xf32>, %data: tensor<6xf32>, %lengths: tensor<3xi64>) {
  // expected-error@+1 {{'poplar.popops_segment_reduce_grad' op grad_data type tensor<6xf16> must equal the data type tensor<6xf32>}}
  %0 = "poplar.popops_segment_reduce_grad"(%g, %out, %data, %lengths) {reduce = "sum", segments_by = "lengths", axis = 0 : i64, initial = []} : (tensor<3xf32>, tensor<3xf32>, tensor<6xf32>, tensor<3xi64>) -> tensor<6xf16>
  return
}

// -----

func.func @order_statistic_one_result(%x: tensor<2x5xf32>) {
  // expected-error@+1 {{'poplar.popops_order_statistic' op expects 2 results, got 1}}
  %0 = "poplar.popops_order_statistic"(%x) {statistic = "median", dim = 1 : i64, k = 0 : i64, keep_dims = false} : (tensor<2x5xf32>) -> tensor<2xf32>
  return
}

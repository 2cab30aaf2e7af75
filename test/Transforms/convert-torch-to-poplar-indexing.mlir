// RUN: ipu-opt %s -p convert-torch-to-poplar --split-input-file --verify-diagnostics | FileCheck %s

// The indexing family (convert_torch_to_poplar/indexing.py): what advanced indexing,
// indexed assignment and the static scatters become, and what is refused, with why.

// Index tensors on dims 0 and 2 (not adjacent): both dims move to the front and fold into
// one, each index is wrapped (negative from the end) and scaled into a row of the fold,
// and one multi-slice reads the rows.
// CHECK-LABEL: sym_name = "index_separated"
// CHECK: %[[I:.*]] = "poplar.popops_map"(%arg1) {expr = "mul(select(lt(_1, 0), add(_1, 3), _1), 5)"
// CHECK: %[[FLAT:.*]] = "poplar.popops_map"(%[[I]], %arg2) {expr = "add(select(lt(_2, 0), add(_2, 5), _2), _1)"
// CHECK: %[[T:.*]] = "poplar.dim_shuffle"(%arg0) {permutation = array<i64: 0, 2, 1>}
// CHECK: %[[TABLE:.*]] = "poplar.reshape"(%[[T]]) : (tensor<3x5x4xf32>) -> tensor<15x4xf32>
// CHECK: "poplar.popops_multi_slice"(%[[TABLE]], %[[FLAT]]) {dim = 0 : i64} : (tensor<15x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
func.func @index_separated(%x: !torch.vtensor<[3,4,5],f32>, %i: !torch.vtensor<[2],si64>, %j: !torch.vtensor<[2],si64>) -> !torch.vtensor<[2,4],f32> {
  %none = torch.constant.none
  %0 = torch.prim.ListConstruct %i, %none, %j : (!torch.vtensor<[2],si64>, !torch.none, !torch.vtensor<[2],si64>) -> !torch.list<optional<vtensor>>
  %1 = torch.aten.index.Tensor %x, %0 : !torch.vtensor<[3,4,5],f32>, !torch.list<optional<vtensor>> -> !torch.vtensor<[2,4],f32>
  return %1 : !torch.vtensor<[2,4],f32>
}

// -----

// x[:, i] += v: a multi-update (add) along dim 1, no reshaping.
// CHECK-LABEL: sym_name = "index_put_accumulate"
// CHECK: %[[I:.*]] = "poplar.popops_map"(%arg1) {expr = "select(lt(_1, 0), add(_1, 4), _1)"
// CHECK: "poplar.popops_multi_update"(%arg0, %arg2, %[[I]]) {dim = 1 : i64, op = "add"} : (tensor<3x4xf32>, tensor<3x2xf32>, tensor<2xi64>) -> tensor<3x4xf32>
func.func @index_put_accumulate(%x: !torch.vtensor<[3,4],f32>, %i: !torch.vtensor<[2],si64>, %v: !torch.vtensor<[3,2],f32>) -> !torch.vtensor<[3,4],f32> {
  %none = torch.constant.none
  %true = torch.constant.bool true
  %0 = torch.prim.ListConstruct %none, %i : (!torch.none, !torch.vtensor<[2],si64>) -> !torch.list<optional<vtensor>>
  %1 = torch.aten.index_put %x, %0, %v, %true : !torch.vtensor<[3,4],f32>, !torch.list<optional<vtensor>>, !torch.vtensor<[3,2],f32>, !torch.bool -> !torch.vtensor<[3,4],f32>
  return %1 : !torch.vtensor<[3,4],f32>
}

// -----

// x[:, 1:3] = src: views only (a concat of the slices around src).
// CHECK-LABEL: sym_name = "slice_scatter"
// CHECK: %[[LOW:.*]] = "poplar.slice"(%arg0) {begin = array<i64: 0, 0>, end = array<i64: 3, 1>, stride = array<i64: 1, 1>}
// CHECK: %[[HIGH:.*]] = "poplar.slice"(%arg0) {begin = array<i64: 0, 3>, end = array<i64: 3, 4>, stride = array<i64: 1, 1>}
// CHECK: %[[A:.*]] = "poplar.concat"(%[[LOW]], %arg1) {dim = 1 : i64}
// CHECK: "poplar.concat"(%[[A]], %[[HIGH]]) {dim = 1 : i64}
// CHECK-NOT: popops_multi_update
func.func @slice_scatter(%x: !torch.vtensor<[3,4],f32>, %src: !torch.vtensor<[3,2],f32>) -> !torch.vtensor<[3,4],f32> {
  %int1 = torch.constant.int 1
  %int3 = torch.constant.int 3
  %0 = torch.aten.slice_scatter %x, %src, %int1, %int1, %int3, %int1 : !torch.vtensor<[3,4],f32>, !torch.vtensor<[3,2],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}

// -----

// flip is the reverse view.
// CHECK-LABEL: sym_name = "flip"
// CHECK: "poplar.reverse"(%arg0) {dims = array<i64: 0, 1>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
func.func @flip(%x: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> {
  %int-1 = torch.constant.int -1
  %int0 = torch.constant.int 0
  %0 = torch.prim.ListConstruct %int-1, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.aten.flip %x, %0 : !torch.vtensor<[3,4],f32>, !torch.list<int> -> !torch.vtensor<[3,4],f32>
  return %1 : !torch.vtensor<[3,4],f32>
}

// -----

// The gradient of a strided slice (x[:, 0:3:2]): the gradient rows at their constant
// positions of zeros, a multi-update.
// CHECK-LABEL: sym_name = "strided_slice_backward"
// CHECK: %[[ZEROS:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<0.000000e+00> : tensor<2x3x4xf32>}
// CHECK: %[[AT:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<[0, 2]> : tensor<2xi64>}
// CHECK: "poplar.popops_multi_update"(%[[ZEROS]], %arg0, %[[AT]]) {dim = 1 : i64, op = "copy"} : (tensor<2x3x4xf32>, tensor<2x2x4xf32>, tensor<2xi64>) -> tensor<2x3x4xf32>
func.func @strided_slice_backward(%g: !torch.vtensor<[2,2,4],f32>) -> !torch.vtensor<[2,3,4],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %int4 = torch.constant.int 4
  %sizes = torch.prim.ListConstruct %int2, %int3, %int4 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.operator "torch.aten.slice_backward"(%g, %sizes, %int1, %int0, %int3, %int2) : (!torch.vtensor<[2,2,4],f32>, !torch.list<int>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}

// -----

// as_strided over the row-major elements (Torch IR from outside the frontend: a captured
// model's as_strided arrives as index.Tensor): a contiguous run is a slice, anything else
// a multi-slice at the constant positions.
// CHECK-LABEL: sym_name = "as_strided"
// CHECK: %[[FLAT:.*]] = "poplar.reshape"(%arg0) : (tensor<4x5xf32>) -> tensor<20xf32>
// CHECK: "poplar.slice"(%[[FLAT]]) {begin = array<i64: 2>, end = array<i64: 8>, stride = array<i64: 1>}
// CHECK: %[[AT:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<{{\[\[}}1, 3, 5], [2, 4, 6], [3, 5, 7]]> : tensor<3x3xi64>}
// CHECK: "poplar.popops_multi_slice"(%{{.*}}, %[[AT]]) {dim = 0 : i64} : (tensor<20xf32>, tensor<3x3xi64>) -> tensor<3x3xf32>
func.func @as_strided(%x: !torch.vtensor<[4,5],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3,3],f32>) {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %size = torch.prim.ListConstruct %int2, %int3 : (!torch.int, !torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int3, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.as_strided %x, %size, %stride, %int2 : !torch.vtensor<[4,5],f32>, !torch.list<int>, !torch.list<int>, !torch.int -> !torch.vtensor<[2,3],f32>
  %size2 = torch.prim.ListConstruct %int3, %int3 : (!torch.int, !torch.int) -> !torch.list<int>
  %stride2 = torch.prim.ListConstruct %int1, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %1 = torch.aten.as_strided %x, %size2, %stride2, %int1 : !torch.vtensor<[4,5],f32>, !torch.list<int>, !torch.list<int>, !torch.int -> !torch.vtensor<[3,3],f32>
  return %0, %1 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[3,3],f32>
}

// -----

func.func @as_strided_out_of_bounds(%x: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[3,3],f32> {
  %int3 = torch.constant.int 3
  %int5 = torch.constant.int 5
  %int0 = torch.constant.int 0
  %size = torch.prim.ListConstruct %int3, %int3 : (!torch.int, !torch.int) -> !torch.list<int>
  %stride = torch.prim.ListConstruct %int5, %int5 : (!torch.int, !torch.int) -> !torch.list<int>
  // expected-error@+1 {{'torch.aten.as_strided' cannot be lowered to the poplar dialect: as_strided reads element 20 of a tensor of 20 elements (size [3, 3], stride [5, 5], offset 0)}}
  %0 = torch.aten.as_strided %x, %size, %stride, %int0 : !torch.vtensor<[4,5],f32>, !torch.list<int>, !torch.list<int>, !torch.int -> !torch.vtensor<[3,3],f32>
  return %0 : !torch.vtensor<[3,3],f32>
}

// -----

func.func @mask_index(%x: !torch.vtensor<[3,4],f32>, %m: !torch.vtensor<[3,4],i1>) -> !torch.vtensor<[5],f32> {
  %0 = torch.prim.ListConstruct %m : (!torch.vtensor<[3,4],i1>) -> !torch.list<optional<vtensor>>
  // expected-error@+1 {{'torch.aten.index.Tensor' cannot be lowered to the poplar dialect: a boolean mask index selects a data-dependent number of elements, and IPU programs have static shapes; keep the shape with torch.where(mask, x, other), or mask a reduction ((x * mask).sum())}}
  %1 = torch.aten.index.Tensor %x, %0 : !torch.vtensor<[3,4],f32>, !torch.list<optional<vtensor>> -> !torch.vtensor<[5],f32>
  return %1 : !torch.vtensor<[5],f32>
}

// -----

func.func @mask_put_per_element(%x: !torch.vtensor<[3,4],f32>, %m: !torch.vtensor<[3,4],i1>, %v: !torch.vtensor<[5],f32>) -> !torch.vtensor<[3,4],f32> {
  %false = torch.constant.bool false
  %0 = torch.prim.ListConstruct %m : (!torch.vtensor<[3,4],i1>) -> !torch.list<optional<vtensor>>
  // expected-error@+1 {{'torch.aten.index_put' cannot be lowered to the poplar dialect: values of shape [5] for x[mask] = values: the number of selected elements is data-dependent, so only values that broadcast to [1] (the same values for every selected element) have a static lowering; use torch.where(mask, values, x) with values of x's shape}}
  %1 = torch.aten.index_put %x, %0, %v, %false : !torch.vtensor<[3,4],f32>, !torch.list<optional<vtensor>>, !torch.vtensor<[5],f32>, !torch.bool -> !torch.vtensor<[3,4],f32>
  return %1 : !torch.vtensor<[3,4],f32>
}

// -----

func.func @scatter_reduce_unknown(%x: !torch.vtensor<[3,4],f32>, %i: !torch.vtensor<[3,2],si64>, %s: !torch.vtensor<[3,2],f32>) -> !torch.vtensor<[3,4],f32> {
  %int1 = torch.constant.int 1
  %str = torch.constant.str "median"
  %true = torch.constant.bool true
  // expected-error@+1 {{'torch.aten.scatter_reduce.two' cannot be lowered to the poplar dialect: scatter_reduce with reduce 'median' (one of 'sum', 'prod', 'mean', 'amax', 'amin')}}
  %0 = torch.aten.scatter_reduce.two %x, %int1, %i, %s, %str, %true : !torch.vtensor<[3,4],f32>, !torch.int, !torch.vtensor<[3,2],si64>, !torch.vtensor<[3,2],f32>, !torch.str, !torch.bool -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}

// -----

func.func @repeat_too_few(%x: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[6,4],f32> {
  %int2 = torch.constant.int 2
  %0 = torch.prim.ListConstruct %int2 : (!torch.int) -> !torch.list<int>
  // expected-error@+1 {{'torch.aten.repeat' cannot be lowered to the poplar dialect: repeat with 1 counts for a tensor of rank 2 (it needs at least one per dim)}}
  %1 = torch.aten.repeat %x, %0 : !torch.vtensor<[3,4],f32>, !torch.list<int> -> !torch.vtensor<[6,4],f32>
  return %1 : !torch.vtensor<[6,4],f32>
}

// RUN: ipu-opt %s --split-input-file | FileCheck %s
// RUN: ipu-opt %s --split-input-file | ipu-opt --split-input-file | FileCheck %s

// The planning attributes (dialects/poplar/planning.py) on the ops they are about: the
// available memory and partials type of matmuls and convolutions, a multi-convolution's
// members (with every plan option, and with only the required ones), a host stream's overlap.

// CHECK-LABEL: sym_name = "planned"
// CHECK: "poplar.poplin_matmul"(%arg0, %arg1) {poplar.available_memory = 2.000000e-01 : f64, poplar.partials_type = "half"}
// CHECK: "poplar.poplin_conv"(%arg2, %arg3) {{.*}}poplar.available_memory = 0.000000e+00 : f64, poplar.multi_conv = {cycle_back_off = 5.000000e-01 : f64, enable_conv_dithering = true, group = 0 : i64, index = 0 : i64, per_conv_reserved_tiles = 8 : i64, plan_type = "parallel"}, poplar.partials_type = "float"
// CHECK: "poplar.poplin_conv"(%arg2, %arg3) {{.*}}poplar.multi_conv = {group = 0 : i64, index = 1 : i64, plan_type = "serial"}
func.func @planned(%a: tensor<2x3xf16>, %b: tensor<3x4xf16>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  %0 = "poplar.poplin_matmul"(%a, %b) {poplar.available_memory = 0.2 : f64, poplar.partials_type = "half"} : (tensor<2x3xf16>, tensor<3x4xf16>) -> tensor<2x4xf16>
  %1 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>, poplar.available_memory = 0.0 : f64, poplar.partials_type = "float", poplar.multi_conv = {group = 0 : i64, index = 0 : i64, plan_type = "parallel", per_conv_reserved_tiles = 8 : i64, cycle_back_off = 0.5 : f64, enable_conv_dithering = true}} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %2 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>, poplar.multi_conv = {group = 0 : i64, index = 1 : i64, plan_type = "serial"}} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

// An embedding lookup (multi-slice) and a gather take an available memory proportion too.
// CHECK-LABEL: sym_name = "sliced"
// CHECK: "poplar.popops_multi_slice"(%arg0, %arg1) {dim = 0 : i64, poplar.available_memory = 1.000000e-01 : f64}
// CHECK: "poplar.popops_gather"(%arg0, %arg2) {dim = 1 : i64, poplar.available_memory = 3.000000e-01 : f64}
func.func @sliced(%table: tensor<5x3xf32>, %ids: tensor<2xi64>, %idx: tensor<5x2xi64>) {
  %0 = "poplar.popops_multi_slice"(%table, %ids) {dim = 0 : i64, poplar.available_memory = 0.1 : f64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %1 = "poplar.popops_gather"(%table, %idx) {dim = 1 : i64, poplar.available_memory = 0.3 : f64} : (tensor<5x3xf32>, tensor<5x2xi64>) -> tensor<5x2xf32>
  return
}

// -----

// CHECK-LABEL: "poplar.graph"
// CHECK: "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", poplar.overlap = "overlap_device_iteration_loop", type = tensor<4xf32>}
// CHECK: "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", poplar.overlap = "no_overlap", type = tensor<4xf32>}
"poplar.graph"() ({
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<4xf32>, poplar.overlap = "overlap_device_iteration_loop"} : () -> ()
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<4xf32>, poplar.overlap = "no_overlap"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.floating_point_exceptions = ["invalid", "divide_by_zero", "overflow"]} : () -> ()
// CHECK: poplar.floating_point_exceptions = ["invalid", "divide_by_zero", "overflow"]

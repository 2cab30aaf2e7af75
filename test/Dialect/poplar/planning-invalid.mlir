// RUN: ipu-opt %s --split-input-file --verify-diagnostics

// Each rule of the planning attributes (dialects/poplar/planning.py), with the message a user sees.

func.func @memory_on_an_add(%a: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popops_add' op 'poplar.available_memory' is only for matmuls, convolutions, embedding lookups and indexing ops}}
  %0 = "poplar.popops_add"(%a, %a) {poplar.available_memory = 0.5 : f64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @partials_on_a_multi_slice(%t: tensor<5x3xf32>, %i: tensor<2xi64>) {
  // expected-error@+1 {{'poplar.popops_multi_slice' op 'poplar.partials_type' is only for matmuls and convolutions}}
  %0 = "poplar.popops_multi_slice"(%t, %i) {dim = 0 : i64, poplar.partials_type = "half"} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @memory_above_one(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error@+1 {{'poplar.poplin_matmul' op attribute 'poplar.available_memory' must be <= 1.0, got 1.5}}
  %0 = "poplar.poplin_matmul"(%a, %b) {poplar.available_memory = 1.5 : f64} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @partials_double(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error@+1 {{'poplar.poplin_matmul' op attribute 'poplar.partials_type' must be one of: float, half; got "double"}}
  %0 = "poplar.poplin_matmul"(%a, %b) {poplar.partials_type = "double"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @multi_conv_on_a_matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error@+1 {{'poplar.poplin_matmul' op 'poplar.multi_conv' is only for poplar.poplin_conv and poplar.poplin_conv_transpose}}
  %0 = "poplar.poplin_matmul"(%a, %b) {poplar.multi_conv = {group = 0 : i64, index = 0 : i64, plan_type = "serial"}} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @multi_conv_without_index(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op 'poplar.multi_conv' needs the entry 'index'}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>, poplar.multi_conv = {group = 0 : i64, plan_type = "serial"}} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @multi_conv_unknown_entry(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op 'poplar.multi_conv' has unknown entries ['tiles']}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>, poplar.multi_conv = {group = 0 : i64, index = 0 : i64, plan_type = "serial", tiles = 3 : i64}} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @multi_conv_plan(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op 'poplar.multi_conv' entry 'plan_type' must be one of: parallel, serial; got "fastest"}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>, poplar.multi_conv = {group = 0 : i64, index = 0 : i64, plan_type = "fastest"}} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @multi_conv_back_off(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op 'poplar.multi_conv' entry 'cycle_back_off' must be a float in [0, 1], got 2.000000e+00 : f64}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>, poplar.multi_conv = {group = 0 : i64, index = 0 : i64, plan_type = "serial", cycle_back_off = 2.0 : f64}} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

"poplar.graph"() ({
  // expected-error@+1 {{'poplar.host_stream' op attribute 'poplar.overlap' must be one of: no_overlap, overlap_accumulation_loop, overlap_device_iteration_loop; got "always"}}
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<4xf32>, poplar.overlap = "always"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

func.func @overlap_on_a_matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error@+1 {{'poplar.poplin_matmul' op 'poplar.overlap' is only for poplar.host_stream}}
  %0 = "poplar.poplin_matmul"(%a, %b) {poplar.overlap = "no_overlap"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// expected-error @+1 {{'poplar.graph' op 'poplar.floating_point_exceptions' entries must be one of: invalid, divide_by_zero, overflow; got "inexact"}}
"poplar.graph"() ({
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.floating_point_exceptions = ["invalid", "inexact"]} : () -> ()

// -----

func.func @exceptions_on_a_matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error@+1 {{'poplar.poplin_matmul' op 'poplar.floating_point_exceptions' is only for poplar.graph}}
  %0 = "poplar.poplin_matmul"(%a, %b) {poplar.floating_point_exceptions = ["invalid"]} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

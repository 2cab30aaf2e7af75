// RUN: ipu-opt %s --split-input-file --verify-diagnostics

// At least one case per verifier rule of the poplar dialect (dialects/poplar/), with the
// message a user sees. Ops that take operands sit in a func.func that provides them.

// ===== op structure: regions, results, operands, operandSegmentSizes and resultSegmentSizes as declared (checked before any rule)

func.func @case0(%a: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_add' op expects 2 operands, got 1}}
  %0 = "poplar.popops_add"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case1(%a: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.program_sync' op expects 0 operands, got 1}}
  "poplar.program_sync"(%a) {kind = "global"} : (tensor<3xf32>) -> ()
  return
}

// -----

func.func @case2(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error@+1 {{'poplar.poplin_matmul' op expects 1 result, got 0}}
  "poplar.poplin_matmul"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> ()
  return
}

// -----

// expected-error@+1 {{'poplar.graph' op expects 1 region, got 0}}
"poplar.graph"() {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

func.func @case3(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op requires attribute 'operandSegmentSizes'}}
  %0 = "poplar.popops_map"(%a) {expr = "neg(_1)"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// The single-group form popops_map had before it took in1, in2 and in3.
func.func @case4(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op attribute 'operandSegmentSizes' must be an array<i32: ...> with 3 elements, got array<i32: 2>}}
  %0 = "poplar.popops_map"(%a, %a) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 2>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case5(%a: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op attribute 'operandSegmentSizes' must be an array<i32: ...> with 4 elements, got 3 : i64}}
  %0 = "poplar.popnn_norm"(%a, %a, %a) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = 3 : i64} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @case6(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op attribute 'operandSegmentSizes' has a negative entry: [1, 1, -1]}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, -1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @case7(%x: tensor<1x2x4x4xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op attribute 'operandSegmentSizes' entry #0 must be 1 (a single operand), got 2}}
  %0 = "poplar.poplin_conv"(%x, %x) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 2, 0, 0>} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

// A batch norm without its bias: scale, bias and the two stats cannot shift groups.
func.func @case8(%x: tensor<2x4x3x3xf32>, %p: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op attribute 'operandSegmentSizes' entry #2 must be 1 (a single operand), got 0}}
  %0 = "poplar.popnn_norm"(%x, %p, %p, %p) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 2>} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
  return
}

// -----

// A map needs its first operand, even for a constant expression.
// expected-error@+1 {{'poplar.popops_map' op attribute 'operandSegmentSizes' entry #0 must be 1 (a single operand), got 0}}
%0 = "poplar.popops_map"() {expr = "2.5", operandSegmentSizes = array<i32: 0, 0, 0>} : () -> tensor<f32>

// -----

func.func @case9(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op attribute 'operandSegmentSizes' [1, 1, 0] adds up to 2, but the op has 1 operands}}
  %0 = "poplar.popops_map"(%a) {expr = "neg(_1)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// resultSegmentSizes: the same rules as operandSegmentSizes, for the ops with variadic results.
func.func @case10(%x: tensor<2x4xf32>, %p: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op requires attribute 'resultSegmentSizes'}}
  %0:3 = "poplar.popnn_norm_training"(%x, %p, %p) {kind = "layer", epsilon = 1.0e-05 : f64, momentum = 0.0 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @case11(%x: tensor<2x4xf32>, %p: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op attribute 'resultSegmentSizes' must be an array<i32: ...> with 4 elements, got array<i32: 3>}}
  %0:3 = "poplar.popnn_norm_training"(%x, %p, %p) {kind = "layer", epsilon = 1.0e-05 : f64, momentum = 0.0 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 3>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @case12(%g: tensor<1x4x8x8xf32>, %x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv_grad' op attribute 'resultSegmentSizes' has a negative entry: [1, 3, -1]}}
  %0:3 = "poplar.poplin_conv_grad"(%g, %x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, resultSegmentSizes = array<i32: 1, 3, -1>} : (tensor<1x4x8x8xf32>, tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
  return
}

// -----

// A layer norm without its invstd result: result, mean and invstd cannot shift groups.
func.func @case13(%x: tensor<2x4xf32>, %p: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op attribute 'resultSegmentSizes' entry #2 must be 1 (a single result), got 0}}
  %0:2 = "poplar.popnn_norm_training"(%x, %p, %p) {kind = "layer", epsilon = 1.0e-05 : f64, momentum = 0.0 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>)
  return
}

// -----

// IRDL ignores the attribute of an op with one variadic result group: without this rule
// the op below would verify, and the accessors would misread the new running statistics.
func.func @case14(%x: tensor<2x4xf32>, %p: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op attribute 'resultSegmentSizes' [1, 1, 1, 5] adds up to 8, but the op has 3 results}}
  %0:3 = "poplar.popnn_norm_training"(%x, %p, %p) {kind = "layer", epsilon = 1.0e-05 : f64, momentum = 0.0 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 5>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

// ===== poplar.graph

// expected-error@+1 {{'poplar.graph' op attribute 'num_ipus' must be >= 1, got 0}}
"poplar.graph"() ({
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 0 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// expected-error@+1 {{'poplar.graph' op attribute 'num_ipus' must be <= 64, got 65}}
"poplar.graph"() ({
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 65 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// expected-error@+1 {{'poplar.graph' op attribute 'replication_factor' must be >= 1, got 0}}
"poplar.graph"() ({
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 0 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// expected-error@+1 {{'poplar.graph' op attribute 'tiles_per_ipu' must be >= 1, got -4}}
"poplar.graph"() ({
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = -4 : i64} : () -> ()

// -----

// expected-error@+1 {{'poplar.graph' op requires attribute 'tiles_per_ipu'}}
"poplar.graph"() ({
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64} : () -> ()

// -----

// expected-error@+1 {{'poplar.graph' op attribute 'num_ipus' must be an integer, got true}}
"poplar.graph"() ({
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = true, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// expected-error@+1 {{'poplar.graph' op defines "w" twice (poplar.variable and poplar.remote_buffer)}}
"poplar.graph"() ({
  %w = "poplar.variable"() {name = "w", kind = "weight", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.remote_buffer"() {name = "w", type = tensor<4xf32>, repeats = 1 : i64} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// expected-error@+1 {{'poplar.graph' op defines "step" twice (poplar.function and poplar.function)}}
"poplar.graph"() ({
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// expected-error@+1 {{'poplar.graph' op must hold exactly one 'poplar.program_sequence' named "main" (the program the engine runs), got 0}}
"poplar.graph"() ({
  "poplar.program_sequence"() ({
  }) {name = "upload_weights"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// expected-error@+1 {{'poplar.graph' op must hold exactly one 'poplar.program_sequence' named "main" (the program the engine runs), got 2}}
"poplar.graph"() ({
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// A graph whose region has no block (generic form) is reported, not a crash.
// expected-error@+1 {{'poplar.graph' op must hold exactly one 'poplar.program_sequence' named "main" (the program the engine runs), got 0}}
"poplar.graph"() ({
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// ===== poplar.variable

// expected-error@+1 {{'poplar.variable' op attribute 'name' must not be empty}}
%0 = "poplar.variable"() {name = "", kind = "weight", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>

// -----

// expected-error@+1 {{'poplar.variable' op attribute 'name' must be a string, got 7 : i64}}
%0 = "poplar.variable"() {name = 7 : i64, kind = "weight", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>

// -----

// expected-error@+1 {{'poplar.variable' op attribute 'kind' must be one of: weight, buffer, optimizer_state, accumulator, scalar, input, anchor, exchange, sum, loop; got "parameter"}}
%0 = "poplar.variable"() {name = "w", kind = "parameter", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>

// -----

// expected-error@+1 {{'poplar.variable' op attribute 'ipu' must be >= 0, got -1}}
%0 = "poplar.variable"() {name = "w", kind = "weight", ipu = -1 : i64, tiles = array<i64>} : () -> tensor<4xf32>

// -----

// expected-error@+1 {{'poplar.variable' op attribute 'tiles' must be an array<i64: ...>, got [0, 4]}}
%0 = "poplar.variable"() {name = "w", kind = "weight", ipu = 0 : i64, tiles = [0, 4]} : () -> tensor<4xf32>

// -----

// expected-error@+1 {{'poplar.variable' op attribute 'tiles' elements must be >= 0, got [-1, 4]}}
%0 = "poplar.variable"() {name = "w", kind = "weight", ipu = 0 : i64, tiles = array<i64: -1, 4>} : () -> tensor<4xf32>

// -----

// expected-error@+1 {{'poplar.variable' op attribute 'tiles' must be empty or [first_tile, num_tiles], got [0, 4, 8]}}
%0 = "poplar.variable"() {name = "w", kind = "weight", ipu = 0 : i64, tiles = array<i64: 0, 4, 8>} : () -> tensor<4xf32>

// -----

// expected-error@+1 {{'poplar.variable' op attribute 'tiles' must map to at least one tile}}
%0 = "poplar.variable"() {name = "w", kind = "weight", ipu = 0 : i64, tiles = array<i64: 8, 0>} : () -> tensor<4xf32>

// -----

// expected-error@+1 {{'poplar.variable' op result must be a ranked tensor, got tensor<*xf32>}}
%0 = "poplar.variable"() {name = "w", kind = "weight", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<*xf32>

// -----

// ===== poplar.constant

// expected-error@+1 {{'poplar.constant' op attribute 'value' must be dense elements, got 1.000000e+00 : f32}}
%0 = "poplar.constant"() {value = 1.0 : f32, ipu = 0 : i64} : () -> tensor<f32>

// -----

// expected-error@+1 {{'poplar.constant' op requires attribute 'value'}}
%0 = "poplar.constant"() {ipu = 0 : i64} : () -> tensor<2xf32>

// -----

// expected-error@+1 {{'poplar.constant' op attribute 'ipu' must be >= 0, got -2}}
%0 = "poplar.constant"() {value = dense<1.0> : tensor<2xf32>, ipu = -2 : i64} : () -> tensor<2xf32>

// -----

// expected-error@+1 {{'poplar.constant' op value type tensor<2xf32> must equal result type tensor<2xf16>}}
%0 = "poplar.constant"() {value = dense<1.0> : tensor<2xf32>, ipu = 0 : i64} : () -> tensor<2xf16>

// -----

// ===== poplar.remote_buffer

// expected-error@+1 {{'poplar.remote_buffer' op attribute 'name' must not be empty}}
"poplar.remote_buffer"() {name = "", type = tensor<4xf32>, repeats = 1 : i64} : () -> ()

// -----

// expected-error@+1 {{'poplar.remote_buffer' op attribute 'type' must be a ranked tensor type}}
"poplar.remote_buffer"() {name = "r", type = tensor<*xf32>, repeats = 1 : i64} : () -> ()

// -----

// expected-error@+1 {{'poplar.remote_buffer' op attribute 'type' must be a type, got 4 : i64}}
"poplar.remote_buffer"() {name = "r", type = 4 : i64, repeats = 1 : i64} : () -> ()

// -----

// expected-error@+1 {{'poplar.remote_buffer' op attribute 'repeats' must be >= 1, got 0}}
"poplar.remote_buffer"() {name = "r", type = tensor<4xf32>, repeats = 0 : i64} : () -> ()

// -----

// ===== poplar.host_stream

// expected-error@+1 {{'poplar.host_stream' op attribute 'name' must not be empty}}
"poplar.host_stream"() {name = "", direction = "host_to_device", type = tensor<4xf32>} : () -> ()

// -----

// expected-error@+1 {{'poplar.host_stream' op attribute 'direction' must be one of: host_to_device, device_to_host; got "in"}}
"poplar.host_stream"() {name = "s", direction = "in", type = tensor<4xf32>} : () -> ()

// -----

// expected-error@+1 {{'poplar.host_stream' op attribute 'type' must be a ranked tensor type}}
"poplar.host_stream"() {name = "s", direction = "device_to_host", type = f32} : () -> ()

// -----

// ===== poplar.function, poplar.program_sequence, poplar.program_repeat

// expected-error@+1 {{'poplar.function' op attribute 'name' must not be empty}}
"poplar.function"() ({
}) {name = ""} : () -> ()

// -----

// expected-error@+1 {{'poplar.program_sequence' op attribute 'name' must be a string, got 1 : i64}}
"poplar.program_sequence"() ({
}) {name = 1 : i64} : () -> ()

// -----

// expected-error@+1 {{'poplar.program_repeat' op attribute 'count' must be >= 1, got 0}}
"poplar.program_repeat"() ({
}) {count = 0 : i64} : () -> ()

// -----

// expected-error@+1 {{'poplar.program_repeat' op requires attribute 'count'}}
"poplar.program_repeat"() ({
}) : () -> ()

// -----

// ===== poplar.program_copy, poplar.program_sync

func.func @case15(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error@+1 {{'poplar.program_copy' op source type tensor<4xf32> must equal destination type tensor<4xf16>}}
  "poplar.program_copy"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> ()
  return
}

// -----

func.func @case15b(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.program_copy' op attribute 'poplar.copy_mode' must be one of: copy, share; got "move"}}
  "poplar.program_copy"(%a, %b) {poplar.copy_mode = "move"} : (tensor<4xf32>, tensor<4xf32>) -> ()
  return
}

// -----

func.func @case15c(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.program_copy' op poplar.copy_mode "share" needs a 'poplar.variable' destination}}
  "poplar.program_copy"(%a, %b) {poplar.copy_mode = "share"} : (tensor<4xf32>, tensor<4xf32>) -> ()
  return
}

// -----

"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  %e = "poplar.variable"() {ipu = 1 : i64, kind = "exchange", name = "x.ipu1", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.program_sequence"() ({
    %y = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu"} : (tensor<4xf32>) -> tensor<4xf32>
    // expected-error@+1 {{'poplar.program_copy' op poplar.copy_mode "share" cannot write an exchange buffer: the copy moves data to another IPU}}
    "poplar.program_copy"(%y, %e) {poplar.copy_mode = "share"} : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// expected-error@+1 {{'poplar.program_sync' op attribute 'kind' must be one of: internal, external, global; got "tile"}}
"poplar.program_sync"() {kind = "tile"} : () -> ()

// -----

// ===== poplar.program_print_tensor

func.func @case16(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.program_print_tensor' op requires attribute 'title'}}
  "poplar.program_print_tensor"(%a) : (tensor<2x3xf32>) -> ()
  return
}

// -----

func.func @case17(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.program_print_tensor' op attribute 'title' must be a string, got 1 : i64}}
  "poplar.program_print_tensor"(%a) {title = 1 : i64} : (tensor<2x3xf32>) -> ()
  return
}

// -----

func.func @case18(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.program_print_tensor' op expects 0 results, got 1}}
  %0 = "poplar.program_print_tensor"(%a) {title = "a"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// expected-error@+1 {{'poplar.program_print_tensor' op expects 1 operand, got 0}}
"poplar.program_print_tensor"() {title = "a"} : () -> ()

// -----

func.func @print_format_unknown_key(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.program_print_tensor' op attribute 'poplar.print_format': unknown key 'colour' (valid: summarise_threshold, edge_items, max_line_width, digits, float_format, separator, open_bracket, close_bracket)}}
  "poplar.program_print_tensor"(%a) {title = "a", poplar.print_format = {colour = "red"}} : (tensor<2x3xf32>) -> ()
  return
}

// -----

func.func @print_format_negative_edge_items(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.program_print_tensor' op attribute 'poplar.print_format': 'edge_items' must be >= 0, got -1}}
  "poplar.program_print_tensor"(%a) {title = "a", poplar.print_format = {edge_items = -1 : i64}} : (tensor<2x3xf32>) -> ()
  return
}

// -----

func.func @print_format_not_a_dictionary(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.program_print_tensor' op attribute 'poplar.print_format' must be a dictionary, got "x"}}
  "poplar.program_print_tensor"(%a) {title = "a", poplar.print_format = "x"} : (tensor<2x3xf32>) -> ()
  return
}

// -----

// ===== poplar.program_stream_copy and poplar.program_call look up the enclosing graph

"poplar.graph"() ({
  %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<2x4xf32>
  "poplar.host_stream"() {name = "h2d.x", direction = "host_to_device", type = tensor<2x4xf32>} : () -> ()
  "poplar.program_sequence"() ({
    // expected-error@+1 {{'poplar.program_stream_copy' op attribute 'stream' must not be empty}}
    "poplar.program_stream_copy"(%x) {stream = ""} : (tensor<2x4xf32>) -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

"poplar.graph"() ({
  %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<2x4xf32>
  "poplar.host_stream"() {name = "h2d.x", direction = "host_to_device", type = tensor<2x4xf32>} : () -> ()
  "poplar.program_sequence"() ({
    // expected-error@+1 {{'poplar.program_stream_copy' op refers to host stream "h2d.y", which the enclosing 'poplar.graph' does not declare}}
    "poplar.program_stream_copy"(%x) {stream = "h2d.y"} : (tensor<2x4xf32>) -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

"poplar.graph"() ({
  %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4x2xf32>
  "poplar.host_stream"() {name = "h2d.x", direction = "host_to_device", type = tensor<2x4xf32>} : () -> ()
  "poplar.program_sequence"() ({
    // expected-error@+1 {{'poplar.program_stream_copy' op tensor type tensor<4x2xf32> must equal the type of stream "h2d.x" (tensor<2x4xf32>)}}
    "poplar.program_stream_copy"(%x) {stream = "h2d.x"} : (tensor<4x2xf32>) -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// The host stream is malformed too, but the copy is verified first (it comes first):
// it reports the mismatch instead of crashing on the stream's attribute.
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<2x4xf32>
  "poplar.program_sequence"() ({
    // expected-error@+1 {{'poplar.program_stream_copy' op tensor type tensor<2x4xf32> must equal the type of stream "h2d.x" (4 : i64)}}
    "poplar.program_stream_copy"(%x) {stream = "h2d.x"} : (tensor<2x4xf32>) -> ()
  }) {name = "main"} : () -> ()
  "poplar.host_stream"() {name = "h2d.x", direction = "host_to_device", type = 4 : i64} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// Outside any poplar.graph there is no stream to copy from.
func.func @case19(%x: tensor<2x4xf32>) {
  // expected-error@+1 {{'poplar.program_stream_copy' op refers to host stream "h2d.x", which the enclosing 'poplar.graph' does not declare}}
  "poplar.program_stream_copy"(%x) {stream = "h2d.x"} : (tensor<2x4xf32>) -> ()
  return
}

// -----

"poplar.graph"() ({
  "poplar.program_sequence"() ({
    // expected-error@+1 {{'poplar.program_call' op attribute 'callee' must not be empty}}
    "poplar.program_call"() {callee = ""} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

"poplar.graph"() ({
  "poplar.function"() ({
  }) {name = "stage0"} : () -> ()
  "poplar.program_sequence"() ({
    // expected-error@+1 {{'poplar.program_call' op calls "stage1", which the enclosing 'poplar.graph' does not define}}
    "poplar.program_call"() {callee = "stage1"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

"poplar.graph"() ({
  "poplar.host_stream"() {name = "s", direction = "host_to_device", type = tensor<2xf32>} : () -> ()
  "poplar.program_sequence"() ({
    // expected-error@+1 {{'poplar.program_call' op calls "s", which the enclosing 'poplar.graph' does not define}}
    "poplar.program_call"() {callee = "s"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// A function may not call itself, directly or through others: Poplar programs cannot
// recurse (the passes and the IPU Model would follow the calls forever).
"poplar.graph"() ({
  "poplar.function"() ({
    // expected-error@+1 {{'poplar.program_call' op calls "step", which calls back into the function that calls it (step -> step): Poplar programs cannot recurse}}
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

"poplar.graph"() ({
  "poplar.function"() ({
    // expected-error@+1 {{'poplar.program_call' op calls "g", which calls back into the function that calls it (f -> g -> h -> f): Poplar programs cannot recurse}}
    "poplar.program_call"() {callee = "g"} : () -> ()
  }) {name = "f"} : () -> ()
  "poplar.function"() ({
    "poplar.program_call"() {callee = "h"} : () -> ()
  }) {name = "g"} : () -> ()
  "poplar.function"() ({
    "poplar.program_call"() {callee = "f"} : () -> ()
  }) {name = "h"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "f"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// ===== poplar.gcl_all_reduce (the other collectives' rules: collectives-invalid.mlir)

func.func @case20(%g: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.gcl_all_reduce' op attribute 'op' must be one of "add", "mean", "mul", "min", "max", got "sum"}}
  %0 = "poplar.gcl_all_reduce"(%g) {op = "sum", group = #poplar.comm_group<"all", 0 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @case21(%g: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.gcl_all_reduce' op result type tensor<2xf32> must equal input type tensor<4xf32>}}
  %0 = "poplar.gcl_all_reduce"(%g) {op = "mean", group = #poplar.comm_group<"all", 0 : i64>} : (tensor<4xf32>) -> tensor<2xf32>
  return
}

// -----

// ===== element-wise binary ops (popops_add, popops_sub, popops_mul, popops_div share the rules)

func.func @case22(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popops_add' op operand shapes [[2, 3], [4]] do not broadcast}}
  %0 = "poplar.popops_add"(%a, %b) : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case23(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_sub' op result shape [3] must be the broadcast shape [2, 3]}}
  %0 = "poplar.popops_sub"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case24(%a: tensor<3xf32>, %b: tensor<3xf16>) {
  // expected-error@+1 {{'poplar.popops_mul' op operands and result must share one element type, got f16, f32}}
  %0 = "poplar.popops_mul"(%a, %b) : (tensor<3xf32>, tensor<3xf16>) -> tensor<3xf32>
  return
}

// -----

func.func @case25(%a: tensor<3xf32>, %b: tensor<*xf32>) {
  // expected-error@+1 {{'poplar.popops_div' op operand #1 must be a ranked tensor, got tensor<*xf32>}}
  %0 = "poplar.popops_div"(%a, %b) : (tensor<3xf32>, tensor<*xf32>) -> tensor<3xf32>
  return
}

// -----

// ===== poplar.popops_map: the expression and its operands

func.func @case26(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op attribute 'expr' must not be empty}}
  %0 = "poplar.popops_map"(%a0) {expr = "", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case27(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an invalid expression "add(_1; _1)": unexpected character ';' at offset 6}}
  %0 = "poplar.popops_map"(%a0) {expr = "add(_1; _1)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case28(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an invalid expression "softplus(_1)": unknown function 'softplus' at offset 0}}
  %0 = "poplar.popops_map"(%a0) {expr = "softplus(_1)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case29(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an invalid expression "add(_1)": 'add' takes 2 arguments, got 1}}
  %0 = "poplar.popops_map"(%a0) {expr = "add(_1)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case30(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an invalid expression "exp _1": expected '(' after 'exp' at offset 0}}
  %0 = "poplar.popops_map"(%a0) {expr = "exp _1", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case30_polygamma_operand_order(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an invalid expression "polygamma(_1, _1)": 'polygamma' takes its order n as a non-negative integer literal (at offset 0)}}
  %0 = "poplar.popops_map"(%a0) {expr = "polygamma(_1, _1)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case30_polygamma_fractional_order(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an invalid expression "polygamma(1.5, _1)": 'polygamma' takes its order n as a non-negative integer literal (at offset 0)}}
  %0 = "poplar.popops_map"(%a0) {expr = "polygamma(1.5, _1)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case31(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an invalid expression "exp(_1": expected ')' to close 'exp' at offset 0}}
  %0 = "poplar.popops_map"(%a0) {expr = "exp(_1", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case32(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an invalid expression "mul(_1,": expression ends early}}
  %0 = "poplar.popops_map"(%a0) {expr = "mul(_1,", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case33(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an invalid expression "_1 _1": unexpected '_1' at offset 3}}
  %0 = "poplar.popops_map"(%a0) {expr = "_1 _1", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case34(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an invalid expression "add(_1, ))": unexpected ')' at offset 8}}
  %0 = "poplar.popops_map"(%a0) {expr = "add(_1, ))", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// Parsing and walking the expression recurse; too deep a nesting is a diagnostic, not
// a crash (1000 levels: 5002 characters).
func.func @case35(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an expression nested too deeply (5002 characters)}}
  %0 = "poplar.popops_map"(%a0) {expr = "neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(_1))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// Both extra operands in in2: IRDL would also make them share one type.
func.func @case36(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op expects at most one operand in each of in2 and in3, got 2 and 0}}
  %0 = "poplar.popops_map"(%a0, %a0, %a0) {expr = "clamp(_1, _2, _3)", operandSegmentSizes = array<i32: 1, 2, 0>} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case37(%a0: tensor<3xf32>, %a1: tensor<f32>) {
  // expected-error@+1 {{'poplar.popops_map' op in3 needs an operand in in2}}
  %0 = "poplar.popops_map"(%a0, %a1) {expr = "max(_1, _2)", operandSegmentSizes = array<i32: 1, 0, 1>} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----

func.func @case38(%a0: tensor<3xf32>, %a1: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op expression "add(_1, _3)" reads [1, 3] but the op has 2 operands}}
  %0 = "poplar.popops_map"(%a0, %a1) {expr = "add(_1, _3)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case39(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op expression "neg(_0)" reads [0] but the op has 1 operands}}
  %0 = "poplar.popops_map"(%a0) {expr = "neg(_0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// A map has at most three operands.
func.func @case40(%c: tensor<3xi1>, %a0: tensor<3xf32>, %a1: tensor<f32>) {
  // expected-error@+1 {{'poplar.popops_map' op expression "select(_1, _2, _4)" reads [1, 2, 4] but the op has 3 operands}}
  %0 = "poplar.popops_map"(%c, %a0, %a1) {expr = "select(_1, _2, _4)", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<3xi1>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----

// The result has the broadcast shape of all operands, read or not.
func.func @case41(%a0: tensor<f32>) {
  // expected-error@+1 {{'poplar.popops_map' op result shape [3] must be the broadcast shape []}}
  %0 = "poplar.popops_map"(%a0) {expr = "1.0", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<f32>) -> tensor<3xf32>
  return
}

// -----

func.func @case42(%c: tensor<2x3xi1>, %a0: tensor<2x3xf32>, %a1: tensor<2xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op operand shapes [[2, 3], [2, 3], [2]] do not broadcast}}
  %0 = "poplar.popops_map"(%c, %a0, %a1) {expr = "select(_1, _2, _3)", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case43(%a0: tensor<3xf32>, %a1: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op result shape [2] must be the broadcast shape [3]}}
  %0 = "poplar.popops_map"(%a0, %a1) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<2xf32>
  return
}

// -----

// ===== poplar.popops_cast

func.func @case44(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_cast' op result shape must equal input shape}}
  %0 = "poplar.popops_cast"(%a) : (tensor<2x3xf32>) -> tensor<6xf16>
  return
}

// -----

// ===== poplar.popops_reduce

func.func @case45(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_reduce' op attribute 'op' must be one of "add", "mul", "min", "max", "square_add", "logical_and", "logical_or", got "mean"}}
  %0 = "poplar.popops_reduce"(%a) {op = "mean", dims = array<i64: 1>, keep_dims = false, scale = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case46(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_reduce' op attribute 'dims' elements must be >= 0, got [-1]}}
  %0 = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: -1>, keep_dims = false, scale = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case47(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_reduce' op attribute 'dims' has duplicates: [1, 1]}}
  %0 = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 1, 1>, keep_dims = false, scale = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case48(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_reduce' op attribute 'dims' [2] out of range for rank 2}}
  %0 = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 2>, keep_dims = false, scale = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case49(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_reduce' op attribute 'keep_dims' must be a bool (true/false), got 0 : i64}}
  %0 = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 1>, keep_dims = 0 : i64, scale = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case50(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_reduce' op attribute 'scale' must be a float, got 1 : i64}}
  %0 = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 1>, keep_dims = false, scale = 1 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case51(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_reduce' op attribute 'scale' must not be NaN}}
  %0 = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 1>, keep_dims = false, scale = 0x7FF8000000000000 : f64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case52(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_reduce' op result shape must be [2], got [2, 1]}}
  %0 = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 1>, keep_dims = false, scale = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @case53(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_reduce' op result shape must be [2, 1], got [2]}}
  %0 = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 1>, keep_dims = true, scale = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// ===== poplar.popops_arg_max / poplar.popops_arg_min

func.func @case54(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_arg_max' op attribute 'dim' must be >= 0, got -1}}
  %0 = "poplar.popops_arg_max"(%a) {dim = -1 : i64, keep_dims = false} : (tensor<2x3xf32>) -> tensor<2xi64>
  return
}

// -----

func.func @case55(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_arg_min' op attribute 'dim' must be in [0, 2), got 2}}
  %0 = "poplar.popops_arg_min"(%a) {dim = 2 : i64, keep_dims = false} : (tensor<2x3xf32>) -> tensor<2xi64>
  return
}

// -----

func.func @case56(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_arg_max' op attribute 'keep_dims' must be a bool (true/false), got "no"}}
  %0 = "poplar.popops_arg_max"(%a) {dim = 1 : i64, keep_dims = "no"} : (tensor<2x3xf32>) -> tensor<2xi64>
  return
}

// -----

func.func @case57(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_arg_min' op result must have integer elements, got f32}}
  %0 = "poplar.popops_arg_min"(%a) {dim = 1 : i64, keep_dims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case58(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_arg_max' op result shape must be [2, 1], got [2]}}
  %0 = "poplar.popops_arg_max"(%a) {dim = 1 : i64, keep_dims = true} : (tensor<2x3xf32>) -> tensor<2xi64>
  return
}

// -----

// ===== poplar.popops_multi_slice

func.func @case59(%t: tensor<10x4xf32>, %i: tensor<3xi32>) {
  // expected-error@+1 {{'poplar.popops_multi_slice' op attribute 'dim' must be >= 0, got -1}}
  %0 = "poplar.popops_multi_slice"(%t, %i) {dim = -1 : i64} : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<10x3xf32>
  return
}

// -----

func.func @case60(%t: tensor<10x4xf32>, %i: tensor<3xi32>) {
  // expected-error@+1 {{'poplar.popops_multi_slice' op attribute 'dim' must be in [0, 2), got 2}}
  %0 = "poplar.popops_multi_slice"(%t, %i) {dim = 2 : i64} : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<10x4x3xf32>
  return
}

// -----

func.func @case61(%t: tensor<10x4xf32>, %i: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_multi_slice' op indices must have integer elements}}
  %0 = "poplar.popops_multi_slice"(%t, %i) {dim = 0 : i64} : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @case62(%t: tensor<10x4xf32>, %i: tensor<2x3xi32>) {
  // expected-error@+1 {{'poplar.popops_multi_slice' op result shape must be [2, 3, 4], got [6, 4]}}
  %0 = "poplar.popops_multi_slice"(%t, %i) {dim = 0 : i64} : (tensor<10x4xf32>, tensor<2x3xi32>) -> tensor<6x4xf32>
  return
}

// -----

// ===== poplar.popops_gather

func.func @case63(%a: tensor<2x3xf32>, %i: tensor<2x2xi64>) {
  // expected-error@+1 {{'poplar.popops_gather' op attribute 'dim' must be in [0, 2), got 3}}
  %0 = "poplar.popops_gather"(%a, %i) {dim = 3 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  return
}

// -----

func.func @case64(%a: tensor<2x3xf32>, %i: tensor<2x2xi64>) {
  // expected-error@+1 {{'poplar.popops_gather' op attribute 'dim' must be >= 0, got -2}}
  %0 = "poplar.popops_gather"(%a, %i) {dim = -2 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  return
}

// -----

func.func @case65(%a: tensor<2x3xf32>, %i: tensor<2x2xf32>) {
  // expected-error@+1 {{'poplar.popops_gather' op indices must have integer elements}}
  %0 = "poplar.popops_gather"(%a, %i) {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @case66(%a: tensor<2x3xf32>, %i: tensor<2xi64>) {
  // expected-error@+1 {{'poplar.popops_gather' op indices rank 1 must equal input rank 2}}
  %0 = "poplar.popops_gather"(%a, %i) {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @case67(%a: tensor<2x3xf32>, %i: tensor<4x2xi64>) {
  // expected-error@+1 {{'poplar.popops_gather' op indices shape [4, 2] must not exceed input shape [2, 3] outside dim 1}}
  %0 = "poplar.popops_gather"(%a, %i) {dim = 1 : i64} : (tensor<2x3xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @case68(%a: tensor<2x3xf32>, %i: tensor<2x2xi64>) {
  // expected-error@+1 {{'poplar.popops_gather' op result shape must equal the indices' shape}}
  %0 = "poplar.popops_gather"(%a, %i) {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x3xf32>
  return
}

// -----

// ===== poplar.popops_scaled_add_to

func.func @case69(%w: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popops_scaled_add_to' op attribute 'scale' must be a float, got "lr"}}
  "poplar.popops_scaled_add_to"(%w, %g) {scale = "lr"} : (tensor<4xf32>, tensor<4xf32>) -> ()
  return
}

// -----

func.func @case70(%w: tensor<4xf32>, %g: tensor<4xf16>) {
  // expected-error@+1 {{'poplar.popops_scaled_add_to' op source type tensor<4xf16> must equal destination type tensor<4xf32>}}
  "poplar.popops_scaled_add_to"(%w, %g) {scale = 1.0 : f64} : (tensor<4xf32>, tensor<4xf16>) -> ()
  return
}

// -----

// ===== poplar.popops_pad

func.func @case71(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_pad' op attribute 'low' must have 2 elements, got 1}}
  %0 = "poplar.popops_pad"(%a) {low = array<i64: 1>, high = array<i64: 0, 1>, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @case72(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_pad' op attribute 'high' elements must be >= 0, got [0, -1]}}
  %0 = "poplar.popops_pad"(%a) {low = array<i64: 0, 1>, high = array<i64: 0, -1>, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @case73(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_pad' op attribute 'value' must be a float, got 0 : i64}}
  %0 = "poplar.popops_pad"(%a) {low = array<i64: 0, 1>, high = array<i64: 0, 1>, value = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @case74(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_pad' op result shape must be [2, 5], got [2, 4]}}
  %0 = "poplar.popops_pad"(%a) {low = array<i64: 0, 1>, high = array<i64: 0, 1>, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x4xf32>
  return
}

// -----

// ===== poplar.poplin_matmul

func.func @case75(%a: tensor<2x3xf32>, %b: tensor<1x3x4xf32>) {
  // expected-error@+1 {{'poplar.poplin_matmul' op operands must both be rank 2 or both rank 3, got ranks 2 and 3}}
  %0 = "poplar.poplin_matmul"(%a, %b) : (tensor<2x3xf32>, tensor<1x3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @case76(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.poplin_matmul' op operands must both be rank 2 or both rank 3, got ranks 1 and 1}}
  %0 = "poplar.poplin_matmul"(%a, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return
}

// -----

func.func @case77(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error@+1 {{'poplar.poplin_matmul' op contracting dims differ: lhs [2, 3] and rhs [4, 5]}}
  %0 = "poplar.poplin_matmul"(%a, %b) : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @case78(%a: tensor<2x2x3xf32>, %b: tensor<3x3x4xf32>) {
  // expected-error@+1 {{'poplar.poplin_matmul' op group dims differ: lhs [2, 2, 3] and rhs [3, 3, 4]}}
  %0 = "poplar.poplin_matmul"(%a, %b) : (tensor<2x2x3xf32>, tensor<3x3x4xf32>) -> tensor<2x2x4xf32>
  return
}

// -----

func.func @case79(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error@+1 {{'poplar.poplin_matmul' op result shape must be [2, 4], got [4, 2]}}
  %0 = "poplar.poplin_matmul"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<4x2xf32>
  return
}

// -----

// ===== poplar.poplin_conv

func.func @case80(%x: tensor<4x8xf32>, %w: tensor<6x2xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op input and weights must have the same rank >= 3, got 2 and 2}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4x8xf32>, tensor<6x2xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @case81(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op input and weights must have the same rank >= 3, got 4 and 3}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x2x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case82(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op attribute 'stride' must have 2 elements, got 3}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case83(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op attribute 'stride' elements must be >= 1, got [0, 1]}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 0, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case84(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op attribute 'padding' elements must be >= 0, got [1, -1]}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, -1>, dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case85(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op attribute 'dilation' elements must be >= 1, got [1, 0]}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 0>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case86(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op attribute 'groups' must be >= 1, got 0}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case87(%x: tensor<1x4x8x8xf32>, %w: tensor<6x1x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op channels (4 in, 6 out) must be divisible by groups (4)}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case88(%x: tensor<1x4x8x8xf32>, %w: tensor<6x3x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op weights expect 6 input channels, input has 4}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x3x3x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case89(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %b0: tensor<6xf32>, %b1: tensor<6xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op expects at most one bias, got 2}}
  %0 = "poplar.poplin_conv"(%x, %w, %b0, %b1) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 2>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case90(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %b0: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op bias shape must be [6], got [4]}}
  %0 = "poplar.poplin_conv"(%x, %w, %b0) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<4xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case91(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op result shape must be [1, 6, 4, 4], got [1, 6, 8, 8]}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case92(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op result shape must be [1, 6, 4, 4], got [1, 6, 6, 6]}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 2, 2>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

// ===== poplar.popnn_pool (output size: floor, or ceil without a window starting in the padding)

func.func @case93(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op attribute 'kind' must be one of "max", "avg", "sum", got "min"}}
  %0 = "poplar.popnn_pool"(%x) {kind = "min", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @case94(%x: tensor<3x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op input must have rank >= 3 ([N, C, *spatial]), got rank 2}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<3x8xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @case95(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op attribute 'kernel' must have 2 elements, got 1}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @case96(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op attribute 'stride' elements must be >= 1, got [0, 2]}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 0, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @case97(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op attribute 'padding' elements must be >= 0, got [-1, 0]}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: -1, 0>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @case98(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op attribute 'ceil_mode' must be a bool (true/false), got 1 : i64}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = 1 : i64, count_include_pad = true} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @case99(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op attribute 'count_include_pad' must be a bool (true/false), got "yes"}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = "yes"} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @case100(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op padding [2, 1] must be at most half the kernel [3, 3]}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 2, 1>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @case101(%x: tensor<1x3x5x5xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op result shape must be [1, 3, 2, 2], got [1, 3, 3, 3]}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x5x5xf32>) -> tensor<1x3x3x3xf32>
  return
}

// -----

func.func @case102(%x: tensor<1x3x5x5xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op result shape must be [1, 3, 3, 3], got [1, 3, 2, 2]}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = true, count_include_pad = true} : (tensor<1x3x5x5xf32>) -> tensor<1x3x2x2xf32>
  return
}

// -----

func.func @case103(%x: tensor<1x3x5x5xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op result shape must be [1, 3, 3, 3], got [1, 3, 4, 4]}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true, count_include_pad = true} : (tensor<1x3x5x5xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

// ===== poplar.popnn_norm

func.func @case104(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op attribute 'kind' must be one of "batch", "layer", "group", "instance", got "rms"}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "rms", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @case105(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op attribute 'epsilon' must not be NaN}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "layer", epsilon = 0x7FF8000000000000 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @case106(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op attribute 'num_groups' must be >= 1, got 0}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 0 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @case107(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op attribute 'num_dims' must be >= 1, got 0}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @case108(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op expects 2 stats operands for kind "batch", got 0}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @case109(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>, %v3: tensor<4xf32>, %v4: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op expects 0 stats operands for kind "group", got 2}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2, %v3, %v4) {kind = "group", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @case110(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op result shape must equal input shape}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @case111(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op attribute 'num_dims' (3) exceeds the input rank 2}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @case112(%v0: tensor<4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>, %v3: tensor<4xf32>, %v4: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op input must have rank >= 2 ([N, C, ...]), got rank 1}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2, %v3, %v4) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @case113(%v0: tensor<2x4x8xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op channels (4) must be divisible by num_groups (3)}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "group", epsilon = 1.0e-05 : f64, num_groups = 3 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @case114(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<2xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op bias must have shape [4], got [2]}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<2xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @case115(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>, %v3: tensor<2x4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op stats #0 must have shape [4], got [2, 4]}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2, %v3, %v3) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Batch norm parameters are [C] of an [N, C, H, W] input; here the variance is [H].
func.func @case116(%x: tensor<2x4x3x3xf32>, %p: tensor<4xf32>, %var: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op stats #1 must have shape [4], got [3]}}
  %0 = "poplar.popnn_norm"(%x, %p, %p, %p, %var) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>) -> tensor<2x4x3x3xf32>
  return
}

// -----

// Group and instance norm parameters are [C] too, not the normalised dims.
func.func @case117(%x: tensor<2x4x3x3xf32>, %g: tensor<3x3xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op scale must have shape [4], got [3, 3]}}
  %0 = "poplar.popnn_norm"(%x, %g, %b) {kind = "instance", epsilon = 1.0e-05 : f64, num_groups = 4 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4x3x3xf32>, tensor<3x3xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
  return
}

// -----

func.func @case118(%v0: tensor<2x3x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op scale must have shape [3, 4], got [4]}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

// ===== poplar.popnn_nonlinearity

func.func @case119(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popnn_nonlinearity' op attribute 'kind' must be one of "relu", "gelu_erf", "gelu_tanh", "sigmoid", "tanh", "silu", "hard_sigmoid", "hard_swish", "softmax", "log_softmax", "safe_softmax", got "gelu"}}
  %0 = "poplar.popnn_nonlinearity"(%a) {kind = "gelu", dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case120(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popnn_nonlinearity' op attribute 'dim' must be >= 0, got -1}}
  %0 = "poplar.popnn_nonlinearity"(%a) {kind = "softmax", dim = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case121(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popnn_nonlinearity' op attribute 'dim' must be in [0, 2), got 2}}
  %0 = "poplar.popnn_nonlinearity"(%a) {kind = "log_softmax", dim = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case122(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popnn_nonlinearity' op attribute 'dim' must be in [0, 2), got 2}}
  %0 = "poplar.popnn_nonlinearity"(%a) {kind = "safe_softmax", dim = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case123(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popnn_nonlinearity' op result type tensor<2x3xf16> must equal input type tensor<2x3xf32>}}
  %0 = "poplar.popnn_nonlinearity"(%a) {kind = "relu", dim = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf16>
  return
}

// -----

// ===== poplar.popnn_nonlinearity_grad

func.func @case124(%g: tensor<2x3xf32>, %y: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popnn_nonlinearity_grad' op attribute 'kind' must be one of "relu", "gelu_erf", "gelu_tanh", "sigmoid", "tanh", "silu", "hard_sigmoid", "hard_swish", "softmax", "log_softmax", "safe_softmax", got "swish"}}
  %0 = "poplar.popnn_nonlinearity_grad"(%g, %y) {kind = "swish", dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Element-wise kinds ignore dim, but it must still be >= 0.
func.func @case125(%g: tensor<2x3xf32>, %y: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popnn_nonlinearity_grad' op attribute 'dim' must be >= 0, got -1}}
  %0 = "poplar.popnn_nonlinearity_grad"(%g, %y) {kind = "relu", dim = -1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case126(%g: tensor<2x3xf32>, %y: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popnn_nonlinearity_grad' op attribute 'dim' must be in [0, 2), got 2}}
  %0 = "poplar.popnn_nonlinearity_grad"(%g, %y) {kind = "safe_softmax", dim = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case127(%g: tensor<2x3xf32>, %y: tensor<3x2xf32>) {
  // expected-error@+1 {{'poplar.popnn_nonlinearity_grad' op saved type tensor<3x2xf32> must equal grad type tensor<2x3xf32>}}
  %0 = "poplar.popnn_nonlinearity_grad"(%g, %y) {kind = "tanh", dim = 0 : i64} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case128(%g: tensor<2x3xf32>, %y: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popnn_nonlinearity_grad' op result type tensor<2x3xf16> must equal grad type tensor<2x3xf32>}}
  %0 = "poplar.popnn_nonlinearity_grad"(%g, %y) {kind = "relu", dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf16>
  return
}

// -----

// ===== poplar.popnn_norm_training

// Instance norm is a group norm with one group per channel.
func.func @case129(%x: tensor<2x4x3x3xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op attribute 'kind' must be one of "batch", "layer", "group", got "instance"}}
  %0:3 = "poplar.popnn_norm_training"(%x, %s, %b) {kind = "instance", epsilon = 1.0e-05 : f64, momentum = 0.1 : f64, num_groups = 4 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @case130(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op attribute 'epsilon' must not be NaN}}
  %0:3 = "poplar.popnn_norm_training"(%x, %s, %b) {kind = "layer", epsilon = 0x7FF8000000000000 : f64, momentum = 0.1 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @case131(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op attribute 'momentum' must not be NaN}}
  %0:3 = "poplar.popnn_norm_training"(%x, %s, %b) {kind = "layer", epsilon = 1.0e-05 : f64, momentum = 0x7FF8000000000000 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @case133(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op attribute 'num_groups' must be >= 1, got 0}}
  %0:3 = "poplar.popnn_norm_training"(%x, %s, %b) {kind = "layer", epsilon = 1.0e-05 : f64, momentum = 0.1 : f64, num_groups = 0 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @case134(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op attribute 'num_dims' must be >= 1, got 0}}
  %0:3 = "poplar.popnn_norm_training"(%x, %s, %b) {kind = "layer", epsilon = 1.0e-05 : f64, momentum = 0.1 : f64, num_groups = 1 : i64, num_dims = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @case135(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op result type tensor<2x4xf16> must equal input type tensor<2x4xf32>}}
  %0:3 = "poplar.popnn_norm_training"(%x, %s, %b) {kind = "layer", epsilon = 1.0e-05 : f64, momentum = 0.1 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf16>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @case136(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>, %r0: tensor<4xf32>, %r1: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op running statistics apply to kind "batch" only, got 2 for "layer"}}
  %0:5 = "poplar.popnn_norm_training"(%x, %s, %b, %r0, %r1) {kind = "layer", epsilon = 1.0e-05 : f64, momentum = 0.1 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>, resultSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @case137(%x: tensor<2x4x3x3xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>, %r0: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op expects 0 or 2 running statistics operands (mean, var), got 1}}
  %0:4 = "poplar.popnn_norm_training"(%x, %s, %b, %r0) {kind = "batch", epsilon = 1.0e-05 : f64, momentum = 0.1 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// Running statistics in, but their updates not out.
func.func @case138(%x: tensor<2x4x3x3xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>, %r0: tensor<4xf32>, %r1: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op expects 2 new running statistics results, got 0}}
  %0:3 = "poplar.popnn_norm_training"(%x, %s, %b, %r0, %r1) {kind = "batch", epsilon = 1.0e-05 : f64, momentum = 0.1 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @case139(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op attribute 'num_dims' (3) exceeds the input rank 2}}
  %0:3 = "poplar.popnn_norm_training"(%x, %s, %b) {kind = "layer", epsilon = 1.0e-05 : f64, momentum = 0.1 : f64, num_groups = 1 : i64, num_dims = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @case140(%x: tensor<4xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op input must have rank >= 2 ([N, C, ...]), got rank 1}}
  %0:3 = "poplar.popnn_norm_training"(%x, %s, %b) {kind = "batch", epsilon = 1.0e-05 : f64, momentum = 0.1 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @case141(%x: tensor<2x4x3x3xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op channels (4) must be divisible by num_groups (3)}}
  %0:3 = "poplar.popnn_norm_training"(%x, %s, %b) {kind = "group", epsilon = 1.0e-05 : f64, momentum = 0.1 : f64, num_groups = 3 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
  return
}

// -----

// Batch norm parameters are [C] of an [N, C, H, W] input.
func.func @case142(%x: tensor<2x4x3x3xf32>, %s: tensor<3xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op scale must have shape [4], got [3]}}
  %0:3 = "poplar.popnn_norm_training"(%x, %s, %b) {kind = "batch", epsilon = 1.0e-05 : f64, momentum = 0.1 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4x3x3xf32>, tensor<3xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @case143(%x: tensor<2x4x3x3xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>, %r0: tensor<4xf32>, %r1: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op new running stats #1 must have shape [4], got [3]}}
  %0:5 = "poplar.popnn_norm_training"(%x, %s, %b, %r0, %r1) {kind = "batch", epsilon = 1.0e-05 : f64, momentum = 0.1 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>, resultSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>)
  return
}

// -----

// Layer norm statistics keep the normalised dims as size 1.
func.func @case144(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op mean must have shape [2, 1], got [2]}}
  %0:3 = "poplar.popnn_norm_training"(%x, %s, %b) {kind = "layer", epsilon = 1.0e-05 : f64, momentum = 0.1 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2xf32>, tensor<2x1xf32>)
  return
}

// -----

// Group norm statistics are [N, num_groups], not [C].
func.func @case145(%x: tensor<2x4x3x3xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_training' op invstd must have shape [2, 2], got [4]}}
  %0:3 = "poplar.popnn_norm_training"(%x, %s, %b) {kind = "group", epsilon = 1.0e-05 : f64, momentum = 0.1 : f64, num_groups = 2 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<2x2xf32>, tensor<4xf32>)
  return
}

// -----

// ===== poplar.popnn_norm_grad

func.func @case146(%g: tensor<2x4x3x3xf32>, %x: tensor<2x4x3x3xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>, %s: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_grad' op attribute 'kind' must be one of "batch", "layer", "group", got "instance"}}
  %0:3 = "poplar.popnn_norm_grad"(%g, %x, %m, %r, %s) {kind = "instance", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64} : (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @case147(%g: tensor<2x4x3x3xf32>, %x: tensor<2x4x3x3xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>, %s: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_grad' op attribute 'epsilon' must not be NaN}}
  %0:3 = "poplar.popnn_norm_grad"(%g, %x, %m, %r, %s) {kind = "batch", epsilon = 0x7FF8000000000000 : f64, num_groups = 1 : i64, num_dims = 1 : i64} : (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @case148(%g: tensor<2x4x3x3xf32>, %x: tensor<2x4x3x3xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>, %s: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_grad' op attribute 'num_groups' must be >= 1, got 0}}
  %0:3 = "poplar.popnn_norm_grad"(%g, %x, %m, %r, %s) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 0 : i64, num_dims = 1 : i64} : (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @case149(%g: tensor<2x4x3x3xf32>, %x: tensor<2x4x3x3xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>, %s: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_grad' op attribute 'num_dims' must be >= 1, got 0}}
  %0:3 = "poplar.popnn_norm_grad"(%g, %x, %m, %r, %s) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 0 : i64} : (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @case150(%g: tensor<2x4x3x3xf16>, %x: tensor<2x4x3x3xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>, %s: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_grad' op grad type tensor<2x4x3x3xf16> must equal input type tensor<2x4x3x3xf32>}}
  %0:3 = "poplar.popnn_norm_grad"(%g, %x, %m, %r, %s) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64} : (tensor<2x4x3x3xf16>, tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @case151(%g: tensor<2x4x3x3xf32>, %x: tensor<2x4x3x3xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>, %s: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_grad' op grad_input type tensor<2x4x9xf32> must equal input type tensor<2x4x3x3xf32>}}
  %0:3 = "poplar.popnn_norm_grad"(%g, %x, %m, %r, %s) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64} : (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x9xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @case152(%g: tensor<2x4x3x3xf32>, %x: tensor<2x4x3x3xf32>, %m: tensor<4xf32>, %r: tensor<2x4xf32>, %s: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_grad' op mean type tensor<4xf32> must equal invstd type tensor<2x4xf32>}}
  %0:3 = "poplar.popnn_norm_grad"(%g, %x, %m, %r, %s) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64} : (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<2x4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @case153(%g: tensor<2x4x3x3xf32>, %x: tensor<2x4x3x3xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>, %s: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_grad' op grad_scale type tensor<3xf32> must equal scale type tensor<4xf32>}}
  %0:3 = "poplar.popnn_norm_grad"(%g, %x, %m, %r, %s) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64} : (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<3xf32>, tensor<4xf32>)
  return
}

// -----

func.func @case154(%g: tensor<2x4x3x3xf32>, %x: tensor<2x4x3x3xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>, %s: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm_grad' op grad_bias type tensor<4xf16> must equal scale type tensor<4xf32>}}
  %0:3 = "poplar.popnn_norm_grad"(%g, %x, %m, %r, %s) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64} : (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf16>)
  return
}

// -----

// ===== poplar.poplin_conv_grad

func.func @case155(%g: tensor<1x6x8x8xf32>, %x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv_grad' op grad, input and weights must have the same rank >= 3, got 4, 4 and 3}}
  %0 = "poplar.poplin_conv_grad"(%g, %x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, resultSegmentSizes = array<i32: 0, 1, 0>} : (tensor<1x6x8x8xf32>, tensor<1x4x8x8xf32>, tensor<6x2x3xf32>) -> tensor<6x2x3xf32>
  return
}

// -----

func.func @case156(%g: tensor<1x6x8x8xf32>, %x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv_grad' op attribute 'stride' must have 2 elements, got 1}}
  %0:3 = "poplar.poplin_conv_grad"(%g, %x, %w) {stride = array<i64: 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x6x8x8xf32>, tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>)
  return
}

// -----

func.func @case157(%g: tensor<1x6x8x8xf32>, %x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv_grad' op attribute 'stride' elements must be >= 1, got [1, 0]}}
  %0:3 = "poplar.poplin_conv_grad"(%g, %x, %w) {stride = array<i64: 1, 0>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x6x8x8xf32>, tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>)
  return
}

// -----

func.func @case158(%g: tensor<1x6x8x8xf32>, %x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv_grad' op attribute 'padding' elements must be >= 0, got [-1, 1]}}
  %0:3 = "poplar.poplin_conv_grad"(%g, %x, %w) {stride = array<i64: 1, 1>, padding = array<i64: -1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x6x8x8xf32>, tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>)
  return
}

// -----

func.func @case159(%g: tensor<1x6x8x8xf32>, %x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv_grad' op attribute 'dilation' elements must be >= 1, got [0, 0]}}
  %0:3 = "poplar.poplin_conv_grad"(%g, %x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 0, 0>, groups = 2 : i64, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x6x8x8xf32>, tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>)
  return
}

// -----

func.func @case160(%g: tensor<1x6x8x8xf32>, %x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv_grad' op attribute 'groups' must be >= 1, got 0}}
  %0:3 = "poplar.poplin_conv_grad"(%g, %x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 0 : i64, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x6x8x8xf32>, tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>)
  return
}

// -----

// The grad of a stride-2 conv has the forward's strided output shape.
func.func @case161(%g: tensor<1x6x8x8xf32>, %x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv_grad' op grad shape must be the forward output shape [1, 6, 4, 4], got [1, 6, 8, 8]}}
  %0:3 = "poplar.poplin_conv_grad"(%g, %x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x6x8x8xf32>, tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>)
  return
}

// -----

func.func @case162(%g: tensor<1x6x8x8xf32>, %x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv_grad' op expects at most one grad_bias result, got 2}}
  %0:2 = "poplar.poplin_conv_grad"(%g, %x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, resultSegmentSizes = array<i32: 0, 0, 2>} : (tensor<1x6x8x8xf32>, tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> (tensor<6xf32>, tensor<6xf32>)
  return
}

// -----

func.func @case163(%g: tensor<1x6x8x8xf32>, %x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv_grad' op grad_input must have shape [1, 4, 8, 8], got [1, 6, 8, 8]}}
  %0 = "poplar.poplin_conv_grad"(%g, %x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1x6x8x8xf32>, tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case164(%g: tensor<1x6x8x8xf32>, %x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv_grad' op grad_weights must have shape [6, 2, 3, 3], got [6, 4, 3, 3]}}
  %0 = "poplar.poplin_conv_grad"(%g, %x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, resultSegmentSizes = array<i32: 0, 1, 0>} : (tensor<1x6x8x8xf32>, tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<6x4x3x3xf32>
  return
}

// -----

func.func @case165(%g: tensor<1x6x8x8xf32>, %x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv_grad' op grad_bias must have shape [6], got [4]}}
  %0:3 = "poplar.poplin_conv_grad"(%g, %x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x6x8x8xf32>, tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<4xf32>)
  return
}

// -----

// ===== poplar.popnn_pool_grad

func.func @case166(%x: tensor<1x3x8x8xf32>, %g: tensor<1x3x4x4xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool_grad' op attribute 'kind' must be one of "max", "avg", "sum", got "min"}}
  %0 = "poplar.popnn_pool_grad"(%x, %g) {kind = "min", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @case167(%x: tensor<3x8xf32>, %g: tensor<3x4xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool_grad' op input must have rank >= 3 ([N, C, *spatial]), got rank 2}}
  %0 = "poplar.popnn_pool_grad"(%x, %g) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<3x8xf32>, tensor<3x4xf32>) -> tensor<3x8xf32>
  return
}

// -----

func.func @case168(%x: tensor<1x3x8x8xf32>, %g: tensor<1x3x4x4xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool_grad' op attribute 'kernel' must have 2 elements, got 3}}
  %0 = "poplar.popnn_pool_grad"(%x, %g) {kind = "max", kernel = array<i64: 2, 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @case169(%x: tensor<1x3x8x8xf32>, %g: tensor<1x3x4x4xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool_grad' op attribute 'stride' elements must be >= 1, got [2, 0]}}
  %0 = "poplar.popnn_pool_grad"(%x, %g) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 0>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @case170(%x: tensor<1x3x8x8xf32>, %g: tensor<1x3x4x4xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool_grad' op attribute 'padding' elements must be >= 0, got [0, -1]}}
  %0 = "poplar.popnn_pool_grad"(%x, %g) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, -1>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @case171(%x: tensor<1x3x8x8xf32>, %g: tensor<1x3x4x4xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool_grad' op attribute 'ceil_mode' must be a bool (true/false), got 0 : i64}}
  %0 = "poplar.popnn_pool_grad"(%x, %g) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = 0 : i64, count_include_pad = true} : (tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @case172(%x: tensor<1x3x8x8xf32>, %g: tensor<1x3x4x4xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool_grad' op attribute 'count_include_pad' must be a bool (true/false), got "no"}}
  %0 = "poplar.popnn_pool_grad"(%x, %g) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = "no"} : (tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

// The input gradient has the input's type, not the grad's.
func.func @case173(%x: tensor<1x3x8x8xf32>, %g: tensor<1x3x4x4xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool_grad' op result type tensor<1x3x4x4xf32> must equal input type tensor<1x3x8x8xf32>}}
  %0 = "poplar.popnn_pool_grad"(%x, %g) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @case174(%x: tensor<1x3x8x8xf32>, %g: tensor<3x1x4x4xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool_grad' op grad must have the input's batch and channel dims [1, 3]}}
  %0 = "poplar.popnn_pool_grad"(%x, %g) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x8x8xf32>, tensor<3x1x4x4xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

// ===== poplar.popnn_nll_loss

func.func @nll_loss_weight_per_class(%lp: tensor<4x3xf32>, %t: tensor<4xi64>, %w: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_nll_loss' op weight shape must be [3], got [4]}}
  %0 = "poplar.popnn_nll_loss"(%lp, %t, %w) {reduction = "mean", ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<4x3xf32>, tensor<4xi64>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @case175(%lp: tensor<4x3xf32>, %t: tensor<4xi64>) {
  // expected-error@+1 {{'poplar.popnn_nll_loss' op attribute 'reduction' must be one of "mean", "sum", "none", got "batchmean"}}
  %0 = "poplar.popnn_nll_loss"(%lp, %t) {reduction = "batchmean", ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32>
  return
}

// -----

func.func @case176(%lp: tensor<4x3xf32>, %t: tensor<4xi64>) {
  // expected-error@+1 {{'poplar.popnn_nll_loss' op attribute 'ignore_index' must be an integer, got -1.000000e+02 : f64}}
  %0 = "poplar.popnn_nll_loss"(%lp, %t) {reduction = "mean", ignore_index = -100.0 : f64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32>
  return
}

// -----

// No spatial form: [N, C, d] log-probabilities are not supported.
func.func @case177(%lp: tensor<2x4x3xf32>, %t: tensor<2x4xi64>) {
  // expected-error@+1 {{'poplar.popnn_nll_loss' op log_probs must be [N, C] or [C], got rank 3}}
  %0 = "poplar.popnn_nll_loss"(%lp, %t) {reduction = "mean", ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x4x3xf32>, tensor<2x4xi64>) -> tensor<f32>
  return
}

// -----

// Class indices, not probabilities.
func.func @case178(%lp: tensor<4x3xf32>, %t: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_nll_loss' op target must have integer elements}}
  %0 = "poplar.popnn_nll_loss"(%lp, %t) {reduction = "mean", ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @case179(%lp: tensor<4x3xf32>, %t: tensor<4x1xi64>) {
  // expected-error@+1 {{'poplar.popnn_nll_loss' op target shape must be [4], got [4, 1]}}
  %0 = "poplar.popnn_nll_loss"(%lp, %t) {reduction = "mean", ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4x3xf32>, tensor<4x1xi64>) -> tensor<f32>
  return
}

// -----

func.func @case180(%lp: tensor<4x3xf32>, %t: tensor<4xi64>) {
  // expected-error@+1 {{'poplar.popnn_nll_loss' op result shape must be [4], got []}}
  %0 = "poplar.popnn_nll_loss"(%lp, %t) {reduction = "none", ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32>
  return
}

// -----

func.func @case181(%lp: tensor<4x3xf32>, %t: tensor<4xi64>) {
  // expected-error@+1 {{'poplar.popnn_nll_loss' op result shape must be [], got [4]}}
  %0 = "poplar.popnn_nll_loss"(%lp, %t) {reduction = "sum", ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

// ===== poplar.popnn_nll_loss_grad

func.func @case182(%gl: tensor<f32>, %lp: tensor<4x3xf32>, %t: tensor<4xi64>) {
  // expected-error@+1 {{'poplar.popnn_nll_loss_grad' op attribute 'reduction' must be one of "mean", "sum", "none", got "avg"}}
  %0 = "poplar.popnn_nll_loss_grad"(%gl, %lp, %t) {reduction = "avg", ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<f32>, tensor<4x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @case183(%gl: tensor<f32>, %lp: tensor<4x3xf32>, %t: tensor<4xi64>) {
  // expected-error@+1 {{'poplar.popnn_nll_loss_grad' op attribute 'ignore_index' must be an integer, got true}}
  %0 = "poplar.popnn_nll_loss_grad"(%gl, %lp, %t) {reduction = "mean", ignore_index = true, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<f32>, tensor<4x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  return
}

// -----

// The grad of an unreduced loss has one entry per sample.
func.func @case184(%gl: tensor<f32>, %lp: tensor<4x3xf32>, %t: tensor<4xi64>) {
  // expected-error@+1 {{'poplar.popnn_nll_loss_grad' op grad shape must be [4], got []}}
  %0 = "poplar.popnn_nll_loss_grad"(%gl, %lp, %t) {reduction = "none", ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<f32>, tensor<4x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @case185(%gl: tensor<f32>, %lp: tensor<4x3xf32>, %t: tensor<*xi64>) {
  // expected-error@+1 {{'poplar.popnn_nll_loss_grad' op target must be a ranked tensor, got tensor<*xi64>}}
  %0 = "poplar.popnn_nll_loss_grad"(%gl, %lp, %t) {reduction = "mean", ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<f32>, tensor<4x3xf32>, tensor<*xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @case186(%gl: tensor<f32>, %lp: tensor<4x3xf32>, %t: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_nll_loss_grad' op target must have integer elements}}
  %0 = "poplar.popnn_nll_loss_grad"(%gl, %lp, %t) {reduction = "mean", ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<f32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return
}

// -----

// The grad checks log_probs and target as the loss does.
func.func @case186_target_shape(%gl: tensor<f32>, %lp: tensor<4x3xf32>, %t: tensor<3xi64>) {
  // expected-error@+1 {{'poplar.popnn_nll_loss_grad' op target shape must be [4], got [3]}}
  %0 = "poplar.popnn_nll_loss_grad"(%gl, %lp, %t) {reduction = "mean", ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<f32>, tensor<4x3xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @case187(%gl: tensor<f32>, %lp: tensor<4x3xf32>, %t: tensor<4xi64>) {
  // expected-error@+1 {{'poplar.popnn_nll_loss_grad' op result type tensor<4x3xf16> must equal log_probs type tensor<4x3xf32>}}
  %0 = "poplar.popnn_nll_loss_grad"(%gl, %lp, %t) {reduction = "mean", ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<f32>, tensor<4x3xf32>, tensor<4xi64>) -> tensor<4x3xf16>
  return
}

// -----

// ===== poplar.popops_multi_update_add

// -1 means no padding row.
func.func @case188(%u: tensor<2x3x4xf32>, %i: tensor<2x3xi64>) {
  // expected-error@+1 {{'poplar.popops_multi_update_add' op attribute 'padding_index' must be >= -1, got -2}}
  %0 = "poplar.popops_multi_update_add"(%u, %i) {padding_index = -2 : i64} : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>
  return
}

// -----

func.func @case189(%u: tensor<2x3x4xf32>, %i: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_multi_update_add' op indices must have integer elements}}
  %0 = "poplar.popops_multi_update_add"(%u, %i) {padding_index = -1 : i64} : (tensor<2x3x4xf32>, tensor<2x3xf32>) -> tensor<10x4xf32>
  return
}

// -----

func.func @case190(%u: tensor<3x2x4xf32>, %i: tensor<2x3xi64>) {
  // expected-error@+1 {{'poplar.popops_multi_update_add' op updates [3, 2, 4] must start with the indices' shape [2, 3]}}
  %0 = "poplar.popops_multi_update_add"(%u, %i) {padding_index = -1 : i64} : (tensor<3x2x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>
  return
}

// -----

func.func @case191(%u: tensor<2x3x4xf32>, %i: tensor<2x3xi64>) {
  // expected-error@+1 {{'poplar.popops_multi_update_add' op result rows [3] must match the update rows [4]}}
  %0 = "poplar.popops_multi_update_add"(%u, %i) {padding_index = -1 : i64} : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x3xf32>
  return
}

// -----

func.func @case192(%u: tensor<2x3x4xf32>, %i: tensor<2x3xi64>) {
  // expected-error@+1 {{'poplar.popops_multi_update_add' op updates and result must share one element type}}
  %0 = "poplar.popops_multi_update_add"(%u, %i) {padding_index = -1 : i64} : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf16>
  return
}

// -----

// ===== poplar.poprand_dropout

func.func @case193(%x: tensor<2x4xf32>) {
  // expected-error@+1 {{'poplar.poprand_dropout' op attribute 'p' must be >= 0.0, got -0.1}}
  %0:2 = "poplar.poprand_dropout"(%x) {p = -0.1 : f64} : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi1>)
  return
}

// -----

// p = 1 would scale the kept elements by 1 / 0.
func.func @case194(%x: tensor<2x4xf32>) {
  // expected-error@+1 {{'poplar.poprand_dropout' op attribute 'p' must be < 1, got 1.0}}
  %0:2 = "poplar.poprand_dropout"(%x) {p = 1.0 : f64} : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi1>)
  return
}

// -----

func.func @case195(%x: tensor<2x4xf32>) {
  // expected-error@+1 {{'poplar.poprand_dropout' op result type tensor<2x4xbf16> must equal input type tensor<2x4xf32>}}
  %0:2 = "poplar.poprand_dropout"(%x) {p = 0.1 : f64} : (tensor<2x4xf32>) -> (tensor<2x4xbf16>, tensor<2x4xi1>)
  return
}

// -----

func.func @case196(%x: tensor<2x4xf32>) {
  // expected-error@+1 {{'poplar.poprand_dropout' op mask must have the input's shape}}
  %0:2 = "poplar.poprand_dropout"(%x) {p = 0.1 : f64} : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<4x2xi1>)
  return
}

// -----

func.func @case197(%x: tensor<2x4xf32>) {
  // expected-error@+1 {{'poplar.poprand_dropout' op mask must have i1 elements, got i8}}
  %0:2 = "poplar.poprand_dropout"(%x) {p = 0.1 : f64} : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi8>)
  return
}

// -----

// ===== views: poplar.reshape, poplar.dim_shuffle, poplar.slice, poplar.concat, poplar.broadcast

func.func @case198(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.reshape' op cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)}}
  %0 = "poplar.reshape"(%a) : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @case199(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.reshape' op element type must not change}}
  %0 = "poplar.reshape"(%a) : (tensor<2x3xf32>) -> tensor<6xi32>
  return
}

// -----

func.func @case200(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.dim_shuffle' op attribute 'permutation' must have 2 elements, got 3}}
  %0 = "poplar.dim_shuffle"(%a) {permutation = array<i64: 2, 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @case201(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.dim_shuffle' op attribute 'permutation' [1, 1] is not a permutation of 0..1}}
  %0 = "poplar.dim_shuffle"(%a) {permutation = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @case202(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.dim_shuffle' op result shape must be [3, 2], got [2, 3]}}
  %0 = "poplar.dim_shuffle"(%a) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case203(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.slice' op attribute 'begin' must have 2 elements, got 1}}
  %0 = "poplar.slice"(%a) {begin = array<i64: 0>, end = array<i64: 2, 3>, stride = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case204(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.slice' op attribute 'end' elements must be >= 0, got [2, -1]}}
  %0 = "poplar.slice"(%a) {begin = array<i64: 0, 0>, end = array<i64: 2, -1>, stride = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case205(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.slice' op attribute 'stride' elements must be >= 1, got [1, 0]}}
  %0 = "poplar.slice"(%a) {begin = array<i64: 0, 0>, end = array<i64: 2, 3>, stride = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case206(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.slice' op dim 1: need 0 <= begin (2) <= end (1) <= size (3)}}
  %0 = "poplar.slice"(%a) {begin = array<i64: 0, 2>, end = array<i64: 2, 1>, stride = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case207(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.slice' op dim 1: need 0 <= begin (0) <= end (4) <= size (3)}}
  %0 = "poplar.slice"(%a) {begin = array<i64: 0, 0>, end = array<i64: 2, 4>, stride = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case208(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.slice' op result shape must be [2, 2], got [2, 1]}}
  %0 = "poplar.slice"(%a) {begin = array<i64: 0, 0>, end = array<i64: 2, 3>, stride = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return
}

// -----

// concat is binary: longer lists chain.
func.func @case209(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.concat' op expects 2 operands, got 3}}
  %0 = "poplar.concat"(%a, %a, %a) {dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<6x3xf32>
  return
}

// -----

func.func @case210(%a: tensor<f32>) {
  // expected-error@+1 {{'poplar.concat' op cannot concatenate rank-0 tensors}}
  %0 = "poplar.concat"(%a, %a) {dim = 0 : i64} : (tensor<f32>, tensor<f32>) -> tensor<2xf32>
  return
}

// -----

func.func @case211(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.concat' op attribute 'dim' must be >= 0, got -1}}
  %0 = "poplar.concat"(%a, %a) {dim = -1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @case212(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.concat' op attribute 'dim' must be in [0, 2), got 2}}
  %0 = "poplar.concat"(%a, %a) {dim = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @case213(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error@+1 {{'poplar.concat' op operand shapes [2, 3] and [2, 4] differ outside dim 0}}
  %0 = "poplar.concat"(%a, %b) {dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @case214(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.concat' op operand shapes [2, 3] and [3] differ outside dim 0}}
  %0 = "poplar.concat"(%a, %b) {dim = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @case215(%a: tensor<2x3xf32>, %b: tensor<1x3xf16>) {
  // expected-error@+1 {{'poplar.concat' op operands and result must share one element type}}
  %0 = "poplar.concat"(%a, %b) {dim = 0 : i64} : (tensor<2x3xf32>, tensor<1x3xf16>) -> tensor<3x3xf32>
  return
}

// -----

func.func @case216(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) {
  // expected-error@+1 {{'poplar.concat' op operands and result must share one element type}}
  %0 = "poplar.concat"(%a, %b) {dim = 0 : i64} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xbf16>
  return
}

// -----

func.func @case217(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.concat' op result shape must be [2, 6], got [4, 3]}}
  %0 = "poplar.concat"(%a, %a) {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @case218(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.broadcast' op cannot broadcast [2, 3] to [3]}}
  %0 = "poplar.broadcast"(%a) : (tensor<2x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case219(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.broadcast' op cannot broadcast [2, 3] to [2, 2, 4]}}
  %0 = "poplar.broadcast"(%a) : (tensor<2x3xf32>) -> tensor<2x2x4xf32>
  return
}

// -----

func.func @case220(%a: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.broadcast' op element type must not change}}
  %0 = "poplar.broadcast"(%a) : (tensor<3xf32>) -> tensor<2x3xbf16>
  return
}

// -----

// ===== poplar.poplin_linear (formed by poplar-fuse-linear)

func.func @case221(%x: tensor<2x4x1xf32>, %w: tensor<3x4xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.poplin_linear' op input and weights must be rank 2, got ranks 3 and 2}}
  %0 = "poplar.poplin_linear"(%x, %w, %b) : (tensor<2x4x1xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case222(%x: tensor<2x4xf32>, %w: tensor<3x5xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.poplin_linear' op input [2, 4] and weights [3, 5] must share the contracting (last) dim}}
  %0 = "poplar.poplin_linear"(%x, %w, %b) : (tensor<2x4xf32>, tensor<3x5xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case223(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.poplin_linear' op bias shape must be [3] (the weights' rows), got [4]}}
  %0 = "poplar.poplin_linear"(%x, %w, %b) : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case224(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.poplin_linear' op result shape must be [2, 3], got [3, 2]}}
  %0 = "poplar.poplin_linear"(%x, %w, %b) : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @case225(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %b: tensor<3xf16>) {
  // expected-error@+1 {{'poplar.poplin_linear' op input, weights, bias and result must share one element type, got f16, f32}}
  %0 = "poplar.poplin_linear"(%x, %w, %b) : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf16>) -> tensor<2x3xf32>
  return
}

// -----

// ===== poplar.popops_map_in_place (formed by poplar-plan-in-place): the rules of popops_map, written into in1

func.func @case226(%w: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map_in_place' op expects 0 results, got 1}}
  %0 = "poplar.popops_map_in_place"(%w) {expr = "neg(_1)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case227(%w: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map_in_place' op has an invalid expression "sub(_1)": 'sub' takes 2 arguments, got 1}}
  "poplar.popops_map_in_place"(%w) {expr = "sub(_1)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> ()
  return
}

// -----

func.func @case228(%w: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map_in_place' op expression "add(_1, _2)" reads [1, 2] but the op has 1 operands}}
  "poplar.popops_map_in_place"(%w) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> ()
  return
}

// -----

func.func @case229(%w: tensor<3xf32>, %g: tensor<2xf32>) {
  // expected-error@+1 {{'poplar.popops_map_in_place' op operand shapes [[3], [2]] do not broadcast}}
  "poplar.popops_map_in_place"(%w, %g) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<2xf32>) -> ()
  return
}

// -----

func.func @case230(%w: tensor<3xf32>, %g: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_map_in_place' op the broadcast shape [2, 3] of the operands must be in1's shape [3]: the result is written into in1}}
  "poplar.popops_map_in_place"(%w, %g) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<2x3xf32>) -> ()
  return
}

// -----

func.func @case231(%w: tensor<3xf32>, %lr: tensor<f32>) {
  // expected-error@+1 {{'poplar.popops_map_in_place' op in1 is overwritten, so it must not also be in2 or in3}}
  "poplar.popops_map_in_place"(%w, %w, %lr) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<3xf32>, tensor<3xf32>, tensor<f32>) -> ()
  return
}

// -----

// ===== poplar.popnn_max_pool_with_indices and poplar.popnn_max_pool_grad_with_indices (formed by poplar-share-pool-indices)

func.func @case232(%x: tensor<3x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_max_pool_with_indices' op input must have rank >= 3 ([N, C, *spatial]), got rank 2}}
  %0:2 = "poplar.popnn_max_pool_with_indices"(%x) {kernel = array<i64: 2>, stride = array<i64: 2>, padding = array<i64: 0>, ceil_mode = false} : (tensor<3x8xf32>) -> (tensor<3x4xf32>, tensor<3x4xi64>)
  return
}

// -----

func.func @case233(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_max_pool_with_indices' op padding [2, 2] must be at most half the kernel [2, 2]}}
  %0:2 = "poplar.popnn_max_pool_with_indices"(%x) {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 2, 2>, ceil_mode = false} : (tensor<1x3x8x8xf32>) -> (tensor<1x3x6x6xf32>, tensor<1x3x6x6xi64>)
  return
}

// -----

func.func @case234(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_max_pool_with_indices' op result shape must be [1, 3, 4, 4], got [1, 3, 8, 8]}}
  %0:2 = "poplar.popnn_max_pool_with_indices"(%x) {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false} : (tensor<1x3x8x8xf32>) -> (tensor<1x3x8x8xf32>, tensor<1x3x4x4xi64>)
  return
}

// -----

func.func @case235(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_max_pool_with_indices' op result and input must share one element type}}
  %0:2 = "poplar.popnn_max_pool_with_indices"(%x) {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false} : (tensor<1x3x8x8xf32>) -> (tensor<1x3x4x4xf16>, tensor<1x3x4x4xi64>)
  return
}

// -----

func.func @case236(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_max_pool_with_indices' op indices shape must be the pooled shape [1, 3, 4, 4], got [1, 3, 16]}}
  %0:2 = "poplar.popnn_max_pool_with_indices"(%x) {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false} : (tensor<1x3x8x8xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x16xi64>)
  return
}

// -----

func.func @case237(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_max_pool_with_indices' op indices must have integer elements, got f32}}
  %0:2 = "poplar.popnn_max_pool_with_indices"(%x) {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false} : (tensor<1x3x8x8xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>)
  return
}

// -----

func.func @case238(%x: tensor<1x3x8x8xf32>, %g: tensor<1x3x3x3xf32>, %i: tensor<1x3x4x4xi64>) {
  // expected-error@+1 {{'poplar.popnn_max_pool_grad_with_indices' op grad shape must be the pooled shape [1, 3, 4, 4], got [1, 3, 3, 3]}}
  %0 = "poplar.popnn_max_pool_grad_with_indices"(%x, %g, %i) {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false} : (tensor<1x3x8x8xf32>, tensor<1x3x3x3xf32>, tensor<1x3x4x4xi64>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @case239(%x: tensor<1x3x8x8xf32>, %g: tensor<1x3x4x4xf32>, %i: tensor<1x3x3x3xi64>) {
  // expected-error@+1 {{'poplar.popnn_max_pool_grad_with_indices' op indices shape must be the pooled shape [1, 3, 4, 4], got [1, 3, 3, 3]}}
  %0 = "poplar.popnn_max_pool_grad_with_indices"(%x, %g, %i) {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false} : (tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>, tensor<1x3x3x3xi64>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @case240(%x: tensor<1x3x8x8xf32>, %g: tensor<1x3x4x4xf32>, %i: tensor<1x3x4x4xi64>) {
  // expected-error@+1 {{'poplar.popnn_max_pool_grad_with_indices' op result type tensor<1x3x8x8xf16> must equal input type tensor<1x3x8x8xf32>}}
  %0 = "poplar.popnn_max_pool_grad_with_indices"(%x, %g, %i) {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false} : (tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>, tensor<1x3x4x4xi64>) -> tensor<1x3x8x8xf16>
  return
}

// -----

// ===== poplar.variable kinds, poplar.graph's #poplar.interface and #poplar.memory_plan,
// poplar.function's #pipeline.plan

// The kinds of earlier versions are gone: an output anchor is "anchor", an exchange
// buffer "exchange"; no reader looks at a variable's name.
// expected-error@+1 {{'poplar.variable' op attribute 'kind' must be one of: weight, buffer, optimizer_state, accumulator, scalar, input, anchor, exchange, sum, loop; got "output"}}
%0 = "poplar.variable"() {name = "anchor.0", kind = "output", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>

// -----

// The interface names streams the graph declares.
// expected-error@+1 {{'poplar.graph' op 'poplar.interface' input 'x' streams through "host.input.y", which is not a 'poplar.host_stream' of the graph}}
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %y = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {name = "host.input.x", direction = "host_to_device", type = tensor<4xf32>} : () -> ()
  "poplar.host_stream"() {name = "host.output.0", direction = "device_to_host", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.interface = #poplar.interface<{x = "host.input.y"}, ["host.output.0"], [], "step", "", "main">} : () -> ()

// -----

// An input's stream goes from the host to the device.
// expected-error@+1 {{'poplar.graph' op 'poplar.interface' input 'x' streams through "host.output.0", whose direction is device_to_host, not host_to_device}}
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %y = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {name = "host.input.x", direction = "host_to_device", type = tensor<4xf32>} : () -> ()
  "poplar.host_stream"() {name = "host.output.0", direction = "device_to_host", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.interface = #poplar.interface<{x = "host.output.0"}, ["host.output.0"], [], "step", "", "main">} : () -> ()

// -----

// An output's stream goes from the device to the host.
// expected-error@+1 {{'poplar.graph' op 'poplar.interface' output #0 streams through "host.input.x", whose direction is host_to_device, not device_to_host}}
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %y = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {name = "host.input.x", direction = "host_to_device", type = tensor<4xf32>} : () -> ()
  "poplar.host_stream"() {name = "host.output.0", direction = "device_to_host", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.interface = #poplar.interface<{x = "host.input.x"}, ["host.input.x"], [], "step", "", "main">} : () -> ()

// -----

// The step and update functions are poplar.function ops of the graph.
// expected-error@+1 {{'poplar.graph' op 'poplar.interface' update function "update" is not a 'poplar.function' of the graph}}
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %y = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {name = "host.input.x", direction = "host_to_device", type = tensor<4xf32>} : () -> ()
  "poplar.host_stream"() {name = "host.output.0", direction = "device_to_host", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.interface = #poplar.interface<{x = "host.input.x"}, ["host.output.0"], [], "step", "update", "main">} : () -> ()

// -----

// A stream is named by a non-empty string.
// expected-error@+1 {{'poplar.graph' op 'poplar.interface' output #0 must name its stream (a non-empty string), got 0 : i64}}
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %y = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {name = "host.input.x", direction = "host_to_device", type = tensor<4xf32>} : () -> ()
  "poplar.host_stream"() {name = "host.output.0", direction = "device_to_host", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.interface = #poplar.interface<{x = "host.input.x"}, [0 : i64], [], "step", "", "main">} : () -> ()

// -----

// The engine runs the sequence named "main".
// expected-error@+1 {{'poplar.graph' op 'poplar.interface' main program must be "main", got "run"}}
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %y = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {name = "host.input.x", direction = "host_to_device", type = tensor<4xf32>} : () -> ()
  "poplar.host_stream"() {name = "host.output.0", direction = "device_to_host", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.interface = #poplar.interface<{x = "host.input.x"}, ["host.output.0"], [], "step", "", "run">} : () -> ()

// -----

// The interface is a #poplar.interface, not a dictionary.
// expected-error@+1 {{'poplar.graph' op 'poplar.interface' must be a #poplar.interface<inputs, outputs, variables, step, update, main>, got {step = "step"}}}
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %y = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {name = "host.input.x", direction = "host_to_device", type = tensor<4xf32>} : () -> ()
  "poplar.host_stream"() {name = "host.output.0", direction = "device_to_host", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.interface = {step = "step"}} : () -> ()

// -----

// The host provides variables of the graph.
// expected-error@+1 {{'poplar.graph' op 'poplar.interface' variable "fc.bias" is not a 'poplar.variable' of the graph}}
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %y = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %w = "poplar.variable"() {name = "fc.weight", kind = "weight", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {name = "host.input.x", direction = "host_to_device", type = tensor<4xf32>} : () -> ()
  "poplar.host_stream"() {name = "host.output.0", direction = "device_to_host", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.interface = #poplar.interface<{x = "host.input.x"}, ["host.output.0"], [["parameter", "fc.weight"], ["parameter", "fc.bias"]], "step", "", "main">} : () -> ()

// -----

// The interface lists each variable the host provides once.
// expected-error@+1 {{'poplar.graph' op 'poplar.interface' lists variable "fc.weight" twice}}
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %y = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %w = "poplar.variable"() {name = "fc.weight", kind = "weight", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {name = "host.input.x", direction = "host_to_device", type = tensor<4xf32>} : () -> ()
  "poplar.host_stream"() {name = "host.output.0", direction = "device_to_host", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.interface = #poplar.interface<{x = "host.input.x"}, ["host.output.0"], [["parameter", "fc.weight"], ["parameter", "fc.weight"]], "step", "", "main">} : () -> ()

// -----

// The host provides state, not a micro-batch's input (that streams) or an output anchor.
// expected-error@+1 {{'poplar.graph' op 'poplar.interface' variable "input.x" holds input, not state the host provides}}
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %y = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %w = "poplar.variable"() {name = "fc.weight", kind = "weight", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {name = "host.input.x", direction = "host_to_device", type = tensor<4xf32>} : () -> ()
  "poplar.host_stream"() {name = "host.output.0", direction = "device_to_host", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.interface = #poplar.interface<{x = "host.input.x"}, ["host.output.0"], [["parameter", "fc.weight"], ["parameter", "input.x"]], "step", "", "main">} : () -> ()

// -----

// A host-provided variable is a [kind, name] pair of non-empty strings.
// expected-error@+1 {{'poplar.graph' op 'poplar.interface' variable #0 must be a [kind, name] pair of non-empty strings, got ["fc.weight"]}}
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %y = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %w = "poplar.variable"() {name = "fc.weight", kind = "weight", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {name = "host.input.x", direction = "host_to_device", type = tensor<4xf32>} : () -> ()
  "poplar.host_stream"() {name = "host.output.0", direction = "device_to_host", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.interface = #poplar.interface<{x = "host.input.x"}, ["host.output.0"], [["fc.weight"]], "step", "", "main">} : () -> ()

// -----

// A memory plan's total is the sum of its parts.
// expected-error@+1 {{'poplar.graph' op 'poplar.memory' IPU 0: total 100 must be variables + temporaries + stash = 60}}
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %y = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {name = "host.input.x", direction = "host_to_device", type = tensor<4xf32>} : () -> ()
  "poplar.host_stream"() {name = "host.output.0", direction = "device_to_host", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.interface = #poplar.interface<{x = "host.input.x"}, ["host.output.0"], [], "step", "", "main">, poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 32 : i64, 16 : i64, 12 : i64, 100 : i64>]>} : () -> ()

// -----

// A memory plan covers the graph's IPUs only.
// expected-error@+1 {{'poplar.graph' op 'poplar.memory' plans IPU 2 but the graph has num_ipus = 2}}
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %y = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {name = "host.input.x", direction = "host_to_device", type = tensor<4xf32>} : () -> ()
  "poplar.host_stream"() {name = "host.output.0", direction = "device_to_host", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<2 : i64, 32 : i64, 16 : i64, 0 : i64, 48 : i64>]>} : () -> ()

// -----

// One entry per IPU, in IPU order.
// expected-error@+1 {{'poplar.graph' op 'poplar.memory' lists IPU 0 after IPU 1: one entry per IPU, in IPU order}}
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %y = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {name = "host.input.x", direction = "host_to_device", type = tensor<4xf32>} : () -> ()
  "poplar.host_stream"() {name = "host.output.0", direction = "device_to_host", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<1 : i64, 1 : i64, 1 : i64, 0 : i64, 2 : i64>, #poplar.ipu_memory<0 : i64, 1 : i64, 1 : i64, 0 : i64, 2 : i64>]>} : () -> ()

// -----

// Each entry is a #poplar.ipu_memory.
// expected-error@+1 {{'poplar.graph' op 'poplar.memory' entry #0 must be a #poplar.ipu_memory<ipu, variables, temporaries, stash, total>, got {ipu0 = {total = 2 : i64}}}}
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %y = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {name = "host.input.x", direction = "host_to_device", type = tensor<4xf32>} : () -> ()
  "poplar.host_stream"() {name = "host.output.0", direction = "device_to_host", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.memory = #poplar.memory_plan<[{ipu0 = {total = 2 : i64}}]>} : () -> ()

// -----

// The dictionary of earlier versions is not a memory plan.
// expected-error@+1 {{'poplar.graph' op 'poplar.memory' must be a #poplar.memory_plan<[#poplar.ipu_memory<...>, ...]>, got {ipu0 = {temporaries = 1 : i64, total = 2 : i64, variables = 1 : i64}}}}
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %y = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {name = "host.input.x", direction = "host_to_device", type = tensor<4xf32>} : () -> ()
  "poplar.host_stream"() {name = "host.output.0", direction = "device_to_host", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.memory = {ipu0 = {variables = 1 : i64, temporaries = 1 : i64, total = 2 : i64}}} : () -> ()

// -----

// Sizes are never negative.
// expected-error@+1 {{'poplar.graph' op 'poplar.memory' entry #0: temporaries must be >= 0}}
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %y = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {name = "host.input.x", direction = "host_to_device", type = tensor<4xf32>} : () -> ()
  "poplar.host_stream"() {name = "host.output.0", direction = "device_to_host", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 4 : i64, -2 : i64, 0 : i64, 2 : i64>]>} : () -> ()

// -----

// A step function's #pipeline.plan names the IPU of each of its stages (poplar-build-program
// fills them in; ipu-assign-stages leaves them empty on the func.func).
"poplar.graph"() ({
  // expected-error@+1 {{'poplar.function' op 'pipeline.plan' of a function must name the IPU of each of its 3 stages, got stage_ipus = []}}
  "poplar.function"() ({
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 3 : i64, 2 : i64, array<i64>>} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

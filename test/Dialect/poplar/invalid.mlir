// RUN: ipu-opt %s --split-input-file --verify-diagnostics

// At least one case per verifier rule of the poplar dialect (dialects/poplar.py), with the
// message a user sees. Ops that take operands sit in a func.func that provides them.

// ===== op structure: regions, results, operands and operandSegmentSizes as declared (checked before any rule)

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

// expected-error@+1 {{'poplar.variable' op attribute 'kind' must be one of "weight", "buffer", "optimizer_state", "accumulator", "activation", "input", "output", "scalar", got "parameter"}}
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

// expected-error@+1 {{'poplar.host_stream' op attribute 'direction' must be one of "host_to_device", "device_to_host", got "in"}}
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

func.func @case10(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error@+1 {{'poplar.program_copy' op source type tensor<4xf32> must equal destination type tensor<4xf16>}}
  "poplar.program_copy"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> ()
  return
}

// -----

// expected-error@+1 {{'poplar.program_sync' op attribute 'kind' must be one of "internal", "external", "global", got "tile"}}
"poplar.program_sync"() {kind = "tile"} : () -> ()

// -----

// ===== poplar.program_print_tensor

func.func @case11(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.program_print_tensor' op requires attribute 'title'}}
  "poplar.program_print_tensor"(%a) : (tensor<2x3xf32>) -> ()
  return
}

// -----

func.func @case12(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.program_print_tensor' op attribute 'title' must be a string, got 1 : i64}}
  "poplar.program_print_tensor"(%a) {title = 1 : i64} : (tensor<2x3xf32>) -> ()
  return
}

// -----

func.func @case13(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.program_print_tensor' op expects 0 results, got 1}}
  %0 = "poplar.program_print_tensor"(%a) {title = "a"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// expected-error@+1 {{'poplar.program_print_tensor' op expects 1 operand, got 0}}
"poplar.program_print_tensor"() {title = "a"} : () -> ()

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
func.func @case14(%x: tensor<2x4xf32>) {
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

// ===== poplar.gcl_all_reduce

func.func @case15(%g: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.gcl_all_reduce' op attribute 'op' must be one of "add", "mean", "mul", "min", "max", got "sum"}}
  %0 = "poplar.gcl_all_reduce"(%g) {op = "sum"} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @case16(%g: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.gcl_all_reduce' op result type tensor<2xf32> must equal input type tensor<4xf32>}}
  %0 = "poplar.gcl_all_reduce"(%g) {op = "mean"} : (tensor<4xf32>) -> tensor<2xf32>
  return
}

// -----

// ===== element-wise binary ops (popops_add, popops_sub, popops_mul, popops_div share the rules)

func.func @case17(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popops_add' op operand shapes [[2, 3], [4]] do not broadcast}}
  %0 = "poplar.popops_add"(%a, %b) : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case18(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_sub' op result shape [3] must be the broadcast shape [2, 3]}}
  %0 = "poplar.popops_sub"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case19(%a: tensor<3xf32>, %b: tensor<3xf16>) {
  // expected-error@+1 {{'poplar.popops_mul' op operands and result must share one element type, got f16, f32}}
  %0 = "poplar.popops_mul"(%a, %b) : (tensor<3xf32>, tensor<3xf16>) -> tensor<3xf32>
  return
}

// -----

func.func @case20(%a: tensor<3xf32>, %b: tensor<*xf32>) {
  // expected-error@+1 {{'poplar.popops_div' op operand #1 must be a ranked tensor, got tensor<*xf32>}}
  %0 = "poplar.popops_div"(%a, %b) : (tensor<3xf32>, tensor<*xf32>) -> tensor<3xf32>
  return
}

// -----

// ===== poplar.popops_map: the expression and its operands

func.func @case21(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op attribute 'expr' must not be empty}}
  %0 = "poplar.popops_map"(%a0) {expr = "", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case22(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an invalid expression "add(_1; _1)": unexpected character ';' at offset 6}}
  %0 = "poplar.popops_map"(%a0) {expr = "add(_1; _1)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case23(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an invalid expression "softplus(_1)": unknown function 'softplus' at offset 0}}
  %0 = "poplar.popops_map"(%a0) {expr = "softplus(_1)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case24(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an invalid expression "add(_1)": 'add' takes 2 arguments, got 1}}
  %0 = "poplar.popops_map"(%a0) {expr = "add(_1)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case25(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an invalid expression "exp _1": expected '(' after 'exp' at offset 0}}
  %0 = "poplar.popops_map"(%a0) {expr = "exp _1", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case26(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an invalid expression "exp(_1": expected ')' to close 'exp' at offset 0}}
  %0 = "poplar.popops_map"(%a0) {expr = "exp(_1", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case27(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an invalid expression "mul(_1,": expression ends early}}
  %0 = "poplar.popops_map"(%a0) {expr = "mul(_1,", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case28(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an invalid expression "_1 _1": unexpected '_1' at offset 3}}
  %0 = "poplar.popops_map"(%a0) {expr = "_1 _1", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case29(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an invalid expression "add(_1, ))": unexpected ')' at offset 8}}
  %0 = "poplar.popops_map"(%a0) {expr = "add(_1, ))", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// Parsing and walking the expression recurse; too deep a nesting is a diagnostic, not
// a crash (1000 levels: 5002 characters).
func.func @case30(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op has an expression nested too deeply (5002 characters)}}
  %0 = "poplar.popops_map"(%a0) {expr = "neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(neg(_1))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// Both extra operands in in2: IRDL would also make them share one type.
func.func @case31(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op expects at most one operand in each of in2 and in3, got 2 and 0}}
  %0 = "poplar.popops_map"(%a0, %a0, %a0) {expr = "clamp(_1, _2, _3)", operandSegmentSizes = array<i32: 1, 2, 0>} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case32(%a0: tensor<3xf32>, %a1: tensor<f32>) {
  // expected-error@+1 {{'poplar.popops_map' op in3 needs an operand in in2}}
  %0 = "poplar.popops_map"(%a0, %a1) {expr = "max(_1, _2)", operandSegmentSizes = array<i32: 1, 0, 1>} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----

func.func @case33(%a0: tensor<3xf32>, %a1: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op expression "add(_1, _3)" reads [1, 3] but the op has 2 operands}}
  %0 = "poplar.popops_map"(%a0, %a1) {expr = "add(_1, _3)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case34(%a0: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op expression "neg(_0)" reads [0] but the op has 1 operands}}
  %0 = "poplar.popops_map"(%a0) {expr = "neg(_0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// A map has at most three operands.
func.func @case35(%c: tensor<3xi1>, %a0: tensor<3xf32>, %a1: tensor<f32>) {
  // expected-error@+1 {{'poplar.popops_map' op expression "select(_1, _2, _4)" reads [1, 2, 4] but the op has 3 operands}}
  %0 = "poplar.popops_map"(%c, %a0, %a1) {expr = "select(_1, _2, _4)", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<3xi1>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----

// The result has the broadcast shape of all operands, read or not.
func.func @case36(%a0: tensor<f32>) {
  // expected-error@+1 {{'poplar.popops_map' op result shape [3] must be the broadcast shape []}}
  %0 = "poplar.popops_map"(%a0) {expr = "1.0", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<f32>) -> tensor<3xf32>
  return
}

// -----

func.func @case37(%c: tensor<2x3xi1>, %a0: tensor<2x3xf32>, %a1: tensor<2xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op operand shapes [[2, 3], [2, 3], [2]] do not broadcast}}
  %0 = "poplar.popops_map"(%c, %a0, %a1) {expr = "select(_1, _2, _3)", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case38(%a0: tensor<3xf32>, %a1: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_map' op result shape [2] must be the broadcast shape [3]}}
  %0 = "poplar.popops_map"(%a0, %a1) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<2xf32>
  return
}

// -----

// ===== poplar.popops_cast

func.func @case39(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_cast' op result shape must equal input shape}}
  %0 = "poplar.popops_cast"(%a) : (tensor<2x3xf32>) -> tensor<6xf16>
  return
}

// -----

// ===== poplar.popops_reduce

func.func @case40(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_reduce' op attribute 'op' must be one of "add", "mul", "min", "max", "square_add", "logical_and", "logical_or", got "mean"}}
  %0 = "poplar.popops_reduce"(%a) {op = "mean", dims = array<i64: 1>, keep_dims = false, scale = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case41(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_reduce' op attribute 'dims' elements must be >= 0, got [-1]}}
  %0 = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: -1>, keep_dims = false, scale = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case42(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_reduce' op attribute 'dims' has duplicates: [1, 1]}}
  %0 = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 1, 1>, keep_dims = false, scale = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case43(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_reduce' op attribute 'dims' [2] out of range for rank 2}}
  %0 = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 2>, keep_dims = false, scale = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case44(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_reduce' op attribute 'keep_dims' must be a bool (true/false), got 0 : i64}}
  %0 = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 1>, keep_dims = 0 : i64, scale = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case45(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_reduce' op attribute 'scale' must be a float, got 1 : i64}}
  %0 = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 1>, keep_dims = false, scale = 1 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case46(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_reduce' op attribute 'scale' must not be NaN}}
  %0 = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 1>, keep_dims = false, scale = 0x7FF8000000000000 : f64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case47(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_reduce' op result shape must be [2], got [2, 1]}}
  %0 = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 1>, keep_dims = false, scale = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @case48(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_reduce' op result shape must be [2, 1], got [2]}}
  %0 = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 1>, keep_dims = true, scale = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// ===== poplar.popops_arg_max / poplar.popops_arg_min

func.func @case49(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_arg_max' op attribute 'dim' must be >= 0, got -1}}
  %0 = "poplar.popops_arg_max"(%a) {dim = -1 : i64, keep_dims = false} : (tensor<2x3xf32>) -> tensor<2xi64>
  return
}

// -----

func.func @case50(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_arg_min' op attribute 'dim' must be in [0, 2), got 2}}
  %0 = "poplar.popops_arg_min"(%a) {dim = 2 : i64, keep_dims = false} : (tensor<2x3xf32>) -> tensor<2xi64>
  return
}

// -----

func.func @case51(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_arg_max' op attribute 'keep_dims' must be a bool (true/false), got "no"}}
  %0 = "poplar.popops_arg_max"(%a) {dim = 1 : i64, keep_dims = "no"} : (tensor<2x3xf32>) -> tensor<2xi64>
  return
}

// -----

func.func @case52(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_arg_min' op result must have integer elements, got f32}}
  %0 = "poplar.popops_arg_min"(%a) {dim = 1 : i64, keep_dims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case53(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_arg_max' op result shape must be [2, 1], got [2]}}
  %0 = "poplar.popops_arg_max"(%a) {dim = 1 : i64, keep_dims = true} : (tensor<2x3xf32>) -> tensor<2xi64>
  return
}

// -----

// ===== poplar.popops_multi_slice

func.func @case54(%t: tensor<10x4xf32>, %i: tensor<3xi32>) {
  // expected-error@+1 {{'poplar.popops_multi_slice' op attribute 'dim' must be >= 0, got -1}}
  %0 = "poplar.popops_multi_slice"(%t, %i) {dim = -1 : i64} : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<10x3xf32>
  return
}

// -----

func.func @case55(%t: tensor<10x4xf32>, %i: tensor<3xi32>) {
  // expected-error@+1 {{'poplar.popops_multi_slice' op attribute 'dim' must be in [0, 2), got 2}}
  %0 = "poplar.popops_multi_slice"(%t, %i) {dim = 2 : i64} : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<10x4x3xf32>
  return
}

// -----

func.func @case56(%t: tensor<10x4xf32>, %i: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popops_multi_slice' op indices must have integer elements}}
  %0 = "poplar.popops_multi_slice"(%t, %i) {dim = 0 : i64} : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @case57(%t: tensor<10x4xf32>, %i: tensor<2x3xi32>) {
  // expected-error@+1 {{'poplar.popops_multi_slice' op result shape must be [2, 3, 4], got [6, 4]}}
  %0 = "poplar.popops_multi_slice"(%t, %i) {dim = 0 : i64} : (tensor<10x4xf32>, tensor<2x3xi32>) -> tensor<6x4xf32>
  return
}

// -----

// ===== poplar.popops_gather

func.func @case58(%a: tensor<2x3xf32>, %i: tensor<2x2xi64>) {
  // expected-error@+1 {{'poplar.popops_gather' op attribute 'dim' must be in [0, 2), got 3}}
  %0 = "poplar.popops_gather"(%a, %i) {dim = 3 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  return
}

// -----

func.func @case59(%a: tensor<2x3xf32>, %i: tensor<2x2xi64>) {
  // expected-error@+1 {{'poplar.popops_gather' op attribute 'dim' must be >= 0, got -2}}
  %0 = "poplar.popops_gather"(%a, %i) {dim = -2 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  return
}

// -----

func.func @case60(%a: tensor<2x3xf32>, %i: tensor<2x2xf32>) {
  // expected-error@+1 {{'poplar.popops_gather' op indices must have integer elements}}
  %0 = "poplar.popops_gather"(%a, %i) {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @case61(%a: tensor<2x3xf32>, %i: tensor<2xi64>) {
  // expected-error@+1 {{'poplar.popops_gather' op indices rank 1 must equal input rank 2}}
  %0 = "poplar.popops_gather"(%a, %i) {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @case62(%a: tensor<2x3xf32>, %i: tensor<4x2xi64>) {
  // expected-error@+1 {{'poplar.popops_gather' op indices shape [4, 2] must not exceed input shape [2, 3] outside dim 1}}
  %0 = "poplar.popops_gather"(%a, %i) {dim = 1 : i64} : (tensor<2x3xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @case63(%a: tensor<2x3xf32>, %i: tensor<2x2xi64>) {
  // expected-error@+1 {{'poplar.popops_gather' op result shape must equal the indices' shape}}
  %0 = "poplar.popops_gather"(%a, %i) {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x3xf32>
  return
}

// -----

// ===== poplar.popops_scaled_add_to

func.func @case64(%w: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popops_scaled_add_to' op attribute 'scale' must be a float, got "lr"}}
  "poplar.popops_scaled_add_to"(%w, %g) {scale = "lr"} : (tensor<4xf32>, tensor<4xf32>) -> ()
  return
}

// -----

func.func @case65(%w: tensor<4xf32>, %g: tensor<4xf16>) {
  // expected-error@+1 {{'poplar.popops_scaled_add_to' op source type tensor<4xf16> must equal destination type tensor<4xf32>}}
  "poplar.popops_scaled_add_to"(%w, %g) {scale = 1.0 : f64} : (tensor<4xf32>, tensor<4xf16>) -> ()
  return
}

// -----

// ===== poplar.popops_pad

func.func @case66(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_pad' op attribute 'low' must have 2 elements, got 1}}
  %0 = "poplar.popops_pad"(%a) {low = array<i64: 1>, high = array<i64: 0, 1>, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @case67(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_pad' op attribute 'high' elements must be >= 0, got [0, -1]}}
  %0 = "poplar.popops_pad"(%a) {low = array<i64: 0, 1>, high = array<i64: 0, -1>, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @case68(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_pad' op attribute 'value' must be a float, got 0 : i64}}
  %0 = "poplar.popops_pad"(%a) {low = array<i64: 0, 1>, high = array<i64: 0, 1>, value = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @case69(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popops_pad' op result shape must be [2, 5], got [2, 4]}}
  %0 = "poplar.popops_pad"(%a) {low = array<i64: 0, 1>, high = array<i64: 0, 1>, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x4xf32>
  return
}

// -----

// ===== poplar.poplin_matmul

func.func @case70(%a: tensor<2x3xf32>, %b: tensor<1x3x4xf32>) {
  // expected-error@+1 {{'poplar.poplin_matmul' op operands must both be rank 2 or both rank 3, got ranks 2 and 3}}
  %0 = "poplar.poplin_matmul"(%a, %b) : (tensor<2x3xf32>, tensor<1x3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @case71(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.poplin_matmul' op operands must both be rank 2 or both rank 3, got ranks 1 and 1}}
  %0 = "poplar.poplin_matmul"(%a, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return
}

// -----

func.func @case72(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error@+1 {{'poplar.poplin_matmul' op contracting dims differ: lhs [2, 3] and rhs [4, 5]}}
  %0 = "poplar.poplin_matmul"(%a, %b) : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @case73(%a: tensor<2x2x3xf32>, %b: tensor<3x3x4xf32>) {
  // expected-error@+1 {{'poplar.poplin_matmul' op group dims differ: lhs [2, 2, 3] and rhs [3, 3, 4]}}
  %0 = "poplar.poplin_matmul"(%a, %b) : (tensor<2x2x3xf32>, tensor<3x3x4xf32>) -> tensor<2x2x4xf32>
  return
}

// -----

func.func @case74(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error@+1 {{'poplar.poplin_matmul' op result shape must be [2, 4], got [4, 2]}}
  %0 = "poplar.poplin_matmul"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<4x2xf32>
  return
}

// -----

// ===== poplar.poplin_conv

func.func @case75(%x: tensor<4x8xf32>, %w: tensor<6x2xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op input and weights must have the same rank >= 3, got 2 and 2}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4x8xf32>, tensor<6x2xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @case76(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op input and weights must have the same rank >= 3, got 4 and 3}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x2x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case77(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op attribute 'stride' must have 2 elements, got 3}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case78(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op attribute 'stride' elements must be >= 1, got [0, 1]}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 0, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case79(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op attribute 'padding' elements must be >= 0, got [1, -1]}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, -1>, dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case80(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op attribute 'dilation' elements must be >= 1, got [1, 0]}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 0>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case81(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op attribute 'groups' must be >= 1, got 0}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case82(%x: tensor<1x4x8x8xf32>, %w: tensor<6x1x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op channels (4 in, 6 out) must be divisible by groups (4)}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case83(%x: tensor<1x4x8x8xf32>, %w: tensor<6x3x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op weights expect 6 input channels, input has 4}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x3x3x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case84(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %b0: tensor<6xf32>, %b1: tensor<6xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op expects at most one bias, got 2}}
  %0 = "poplar.poplin_conv"(%x, %w, %b0, %b1) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 2>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case85(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %b0: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op bias shape must be [6], got [4]}}
  %0 = "poplar.poplin_conv"(%x, %w, %b0) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<4xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case86(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op result shape must be [1, 6, 4, 4], got [1, 6, 8, 8]}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x8x8xf32>
  return
}

// -----

func.func @case87(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error@+1 {{'poplar.poplin_conv' op result shape must be [1, 6, 4, 4], got [1, 6, 6, 6]}}
  %0 = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 2, 2>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

// ===== poplar.popnn_pool (output size: floor, or ceil without a window starting in the padding)

func.func @case88(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op attribute 'kind' must be one of "max", "avg", "sum", got "min"}}
  %0 = "poplar.popnn_pool"(%x) {kind = "min", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @case89(%x: tensor<3x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op input must have rank >= 3 ([N, C, *spatial]), got rank 2}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<3x8xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @case90(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op attribute 'kernel' must have 2 elements, got 1}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @case91(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op attribute 'stride' elements must be >= 1, got [0, 2]}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 0, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @case92(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op attribute 'padding' elements must be >= 0, got [-1, 0]}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: -1, 0>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @case93(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op attribute 'ceil_mode' must be a bool (true/false), got 1 : i64}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = 1 : i64, count_include_pad = true} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @case94(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op attribute 'count_include_pad' must be a bool (true/false), got "yes"}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = "yes"} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @case95(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op padding [2, 1] must be at most half the kernel [3, 3]}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 2, 1>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @case96(%x: tensor<1x3x5x5xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op result shape must be [1, 3, 2, 2], got [1, 3, 3, 3]}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x5x5xf32>) -> tensor<1x3x3x3xf32>
  return
}

// -----

func.func @case97(%x: tensor<1x3x5x5xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op result shape must be [1, 3, 3, 3], got [1, 3, 2, 2]}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = true, count_include_pad = true} : (tensor<1x3x5x5xf32>) -> tensor<1x3x2x2xf32>
  return
}

// -----

func.func @case98(%x: tensor<1x3x5x5xf32>) {
  // expected-error@+1 {{'poplar.popnn_pool' op result shape must be [1, 3, 3, 3], got [1, 3, 4, 4]}}
  %0 = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true, count_include_pad = true} : (tensor<1x3x5x5xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

// ===== poplar.popnn_norm

func.func @case99(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op attribute 'kind' must be one of "batch", "layer", "group", "instance", got "rms"}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "rms", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @case100(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op attribute 'epsilon' must be > 0.0, got 0.0}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "layer", epsilon = 0.0 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @case101(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op attribute 'num_groups' must be >= 1, got 0}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 0 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @case102(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op attribute 'num_dims' must be >= 1, got 0}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @case103(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op expects 2 stats operands for kind "batch", got 0}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @case104(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>, %v3: tensor<4xf32>, %v4: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op expects 0 stats operands for kind "group", got 2}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2, %v3, %v4) {kind = "group", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @case105(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op result shape must equal input shape}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @case106(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op attribute 'num_dims' (3) exceeds the input rank 2}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @case107(%v0: tensor<4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>, %v3: tensor<4xf32>, %v4: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op input must have rank >= 2 ([N, C, ...]), got rank 1}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2, %v3, %v4) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @case108(%v0: tensor<2x4x8xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op channels (4) must be divisible by num_groups (3)}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "group", epsilon = 1.0e-05 : f64, num_groups = 3 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @case109(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<2xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op bias must have shape [4], got [2]}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<2xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @case110(%v0: tensor<2x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>, %v3: tensor<2x4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op stats #0 must have shape [4], got [2, 4]}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2, %v3, %v3) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Batch norm parameters are [C] of an [N, C, H, W] input; here the variance is [H].
func.func @case111(%x: tensor<2x4x3x3xf32>, %p: tensor<4xf32>, %var: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op stats #1 must have shape [4], got [3]}}
  %0 = "poplar.popnn_norm"(%x, %p, %p, %p, %var) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>) -> tensor<2x4x3x3xf32>
  return
}

// -----

// Group and instance norm parameters are [C] too, not the normalised dims.
func.func @case112(%x: tensor<2x4x3x3xf32>, %g: tensor<3x3xf32>, %b: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op scale must have shape [4], got [3, 3]}}
  %0 = "poplar.popnn_norm"(%x, %g, %b) {kind = "instance", epsilon = 1.0e-05 : f64, num_groups = 4 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x4x3x3xf32>, tensor<3x3xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
  return
}

// -----

func.func @case113(%v0: tensor<2x3x4xf32>, %v1: tensor<4xf32>, %v2: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.popnn_norm' op scale must have shape [3, 4], got [4]}}
  %0 = "poplar.popnn_norm"(%v0, %v1, %v2) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

// ===== poplar.popnn_nonlinearity

func.func @case114(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popnn_nonlinearity' op attribute 'kind' must be one of "relu", "gelu_erf", "gelu_tanh", "sigmoid", "tanh", "silu", "hard_sigmoid", "hard_swish", "softmax", "log_softmax", got "gelu"}}
  %0 = "poplar.popnn_nonlinearity"(%a) {kind = "gelu", dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case115(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popnn_nonlinearity' op attribute 'dim' must be >= 0, got -1}}
  %0 = "poplar.popnn_nonlinearity"(%a) {kind = "softmax", dim = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case116(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popnn_nonlinearity' op attribute 'dim' must be in [0, 2), got 2}}
  %0 = "poplar.popnn_nonlinearity"(%a) {kind = "log_softmax", dim = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case117(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.popnn_nonlinearity' op result type tensor<2x3xf16> must equal input type tensor<2x3xf32>}}
  %0 = "poplar.popnn_nonlinearity"(%a) {kind = "relu", dim = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf16>
  return
}

// -----

// ===== views: poplar.reshape, poplar.dim_shuffle, poplar.slice, poplar.concat, poplar.broadcast

func.func @case118(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.reshape' op cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)}}
  %0 = "poplar.reshape"(%a) : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @case119(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.reshape' op element type must not change}}
  %0 = "poplar.reshape"(%a) : (tensor<2x3xf32>) -> tensor<6xi32>
  return
}

// -----

func.func @case120(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.dim_shuffle' op attribute 'permutation' must have 2 elements, got 3}}
  %0 = "poplar.dim_shuffle"(%a) {permutation = array<i64: 2, 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @case121(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.dim_shuffle' op attribute 'permutation' [1, 1] is not a permutation of 0..1}}
  %0 = "poplar.dim_shuffle"(%a) {permutation = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @case122(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.dim_shuffle' op result shape must be [3, 2], got [2, 3]}}
  %0 = "poplar.dim_shuffle"(%a) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case123(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.slice' op attribute 'begin' must have 2 elements, got 1}}
  %0 = "poplar.slice"(%a) {begin = array<i64: 0>, end = array<i64: 2, 3>, stride = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case124(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.slice' op attribute 'end' elements must be >= 0, got [2, -1]}}
  %0 = "poplar.slice"(%a) {begin = array<i64: 0, 0>, end = array<i64: 2, -1>, stride = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case125(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.slice' op attribute 'stride' elements must be >= 1, got [1, 0]}}
  %0 = "poplar.slice"(%a) {begin = array<i64: 0, 0>, end = array<i64: 2, 3>, stride = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case126(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.slice' op dim 1: need 0 <= begin (2) <= end (1) <= size (3)}}
  %0 = "poplar.slice"(%a) {begin = array<i64: 0, 2>, end = array<i64: 2, 1>, stride = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case127(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.slice' op dim 1: need 0 <= begin (0) <= end (4) <= size (3)}}
  %0 = "poplar.slice"(%a) {begin = array<i64: 0, 0>, end = array<i64: 2, 4>, stride = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @case128(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.slice' op result shape must be [2, 2], got [2, 1]}}
  %0 = "poplar.slice"(%a) {begin = array<i64: 0, 0>, end = array<i64: 2, 3>, stride = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return
}

// -----

// concat is binary: longer lists chain.
func.func @case129(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.concat' op expects 2 operands, got 3}}
  %0 = "poplar.concat"(%a, %a, %a) {dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<6x3xf32>
  return
}

// -----

func.func @case130(%a: tensor<f32>) {
  // expected-error@+1 {{'poplar.concat' op cannot concatenate rank-0 tensors}}
  %0 = "poplar.concat"(%a, %a) {dim = 0 : i64} : (tensor<f32>, tensor<f32>) -> tensor<2xf32>
  return
}

// -----

func.func @case131(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.concat' op attribute 'dim' must be >= 0, got -1}}
  %0 = "poplar.concat"(%a, %a) {dim = -1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @case132(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.concat' op attribute 'dim' must be in [0, 2), got 2}}
  %0 = "poplar.concat"(%a, %a) {dim = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @case133(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error@+1 {{'poplar.concat' op operand shapes [2, 3] and [2, 4] differ outside dim 0}}
  %0 = "poplar.concat"(%a, %b) {dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @case134(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.concat' op operand shapes [2, 3] and [3] differ outside dim 0}}
  %0 = "poplar.concat"(%a, %b) {dim = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @case135(%a: tensor<2x3xf32>, %b: tensor<1x3xf16>) {
  // expected-error@+1 {{'poplar.concat' op operands and result must share one element type}}
  %0 = "poplar.concat"(%a, %b) {dim = 0 : i64} : (tensor<2x3xf32>, tensor<1x3xf16>) -> tensor<3x3xf32>
  return
}

// -----

func.func @case136(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) {
  // expected-error@+1 {{'poplar.concat' op operands and result must share one element type}}
  %0 = "poplar.concat"(%a, %b) {dim = 0 : i64} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xbf16>
  return
}

// -----

func.func @case137(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.concat' op result shape must be [2, 6], got [4, 3]}}
  %0 = "poplar.concat"(%a, %a) {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @case138(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.broadcast' op cannot broadcast [2, 3] to [3]}}
  %0 = "poplar.broadcast"(%a) : (tensor<2x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case139(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.broadcast' op cannot broadcast [2, 3] to [2, 2, 4]}}
  %0 = "poplar.broadcast"(%a) : (tensor<2x3xf32>) -> tensor<2x2x4xf32>
  return
}

// -----

func.func @case140(%a: tensor<3xf32>) {
  // expected-error@+1 {{'poplar.broadcast' op element type must not change}}
  %0 = "poplar.broadcast"(%a) : (tensor<3xf32>) -> tensor<2x3xbf16>
  return
}

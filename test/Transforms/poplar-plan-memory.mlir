// RUN: ipu-opt %s -p poplar-plan-memory --split-input-file | FileCheck %s

// The report: per IPU, bytes always held by variables, the peak bytes of live
// temporaries (compute results, from definition to last use), and their sum.
//
// Variables: w 256 x f32 = 1024, input.x 1024, anchor.0 16 x f32 = 64 -> 2112.
// Temporaries, in program order (main, then the step it calls):
//   main: k = constant 16 x f32 = 64 B, used inside the loop: live across the call.
//   step: a = x + w      1024   live: a                   1024
//         b = a * a      1024   live: a, b                2048
//         v = reshape(b)    0   a view: no memory, but keeps b alive until v's last use
//         c = relu(a)    1024   live: a, b, c             3072  <- the step's peak
//                               (a dies here)             2048
//         e = reduce(v)    64   live: b, c, e             2112; b dies with v: 1088
//         cs = slice(c)     0   a view of c
//         g = e + cs       64   live: c, e, g             1152; c, e die: 64
//         copy g -> anchor      g dies                       0
// Peak of temporaries = k + the step's peak = 64 + 3072 = 3136; total 2112 + 3136 = 5248.
// CHECK-LABEL: "poplar.graph"
// CHECK: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 2112 : i64, 3136 : i64, 0 : i64, 5248 : i64>]>

"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64: 0, 8>} : () -> tensor<256xf32>
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 8, 8>} : () -> tensor<256xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<256xf32>} : () -> ()
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<16xf32>} : () -> ()
  %out = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64: 16, 1>} : () -> tensor<16xf32>
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<256xf32>) -> ()
    "poplar.program_sync"() {kind = "internal"} : () -> ()
    %a = "poplar.popops_add"(%x, %w) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %b = "poplar.popops_mul"(%a, %a) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %v = "poplar.reshape"(%b) : (tensor<256xf32>) -> tensor<16x16xf32>
    %c = "poplar.popnn_nonlinearity"(%a) {dim = 0 : i64, kind = "relu"} : (tensor<256xf32>) -> tensor<256xf32>
    %e = "poplar.popops_reduce"(%v) {dims = array<i64: 1>, keep_dims = false, op = "add", scale = 1.000000e+00 : f64} : (tensor<16x16xf32>) -> tensor<16xf32>
    %cs = "poplar.slice"(%c) {begin = array<i64: 0>, end = array<i64: 16>, stride = array<i64: 1>} : (tensor<256xf32>) -> tensor<16xf32>
    %g = "poplar.popops_add"(%e, %cs) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    "poplar.program_copy"(%g, %out) : (tensor<16xf32>, tensor<16xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    %k = "poplar.constant"() {ipu = 0 : i64, value = dense<1.000000e+00> : tensor<16xf32>} : () -> tensor<16xf32>
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
      "poplar.popops_scaled_add_to"(%out, %k) {scale = 1.000000e+00 : f64} : (tensor<16xf32>, tensor<16xf32>) -> ()
      "poplar.program_stream_copy"(%out) {stream = "host.output.0"} : (tensor<16xf32>) -> ()
    }) {count = 4 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// As poplar-build-program + poplar-map-tiles leave Linear(4, 3) - buffer -> relu.
// Variables: 48 + 12 + 12 + 32 + 24 + 24 = 152. Temporaries: the weight's dim_shuffle is
// a view (0); matmul 24, add 24 (matmul dies), sub 24 (add dies), relu 24: at most two
// 2x3 f32 results are live at once -> 48.
// CHECK-LABEL: "poplar.graph"
// CHECK: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 152 : i64, 48 : i64, 0 : i64, 200 : i64>]>
"poplar.graph"() ({
  %0 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "l.weight", tiles = array<i64: 0, 1>} : () -> tensor<3x4xf32>
  %1 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "l.bias", tiles = array<i64: 1, 1>} : () -> tensor<3xf32>
  %2 = "poplar.variable"() {ipu = 0 : i64, kind = "buffer", name = "shift", tiles = array<i64: 2, 1>} : () -> tensor<3xf32>
  %3 = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 3, 1>} : () -> tensor<2x4xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<2x4xf32>} : () -> ()
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<2x3xf32>} : () -> ()
  %4 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64: 4, 1>} : () -> tensor<2x3xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.1", type = tensor<2x3xf32>} : () -> ()
  %5 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.1", tiles = array<i64: 5, 1>} : () -> tensor<2x3xf32>
  "poplar.function"() ({
    "poplar.program_stream_copy"(%3) {stream = "host.input.x"} : (tensor<2x4xf32>) -> ()
    "poplar.program_sync"() {kind = "internal"} : () -> ()
    %6 = "poplar.dim_shuffle"(%0) {permutation = array<i64: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
    %7 = "poplar.poplin_matmul"(%3, %6) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    %8 = "poplar.popops_add"(%7, %1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %9 = "poplar.popops_sub"(%8, %2) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %10 = "poplar.popnn_nonlinearity"(%9) {dim = 0 : i64, kind = "relu"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    "poplar.program_copy"(%9, %4) : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()
    "poplar.program_copy"(%10, %5) : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
      "poplar.program_stream_copy"(%4) {stream = "host.output.0"} : (tensor<2x3xf32>) -> ()
      "poplar.program_stream_copy"(%5) {stream = "host.output.1"} : (tensor<2x3xf32>) -> ()
    }) {count = 1 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// Two IPUs are planned separately; a compute op's IPU comes from its pipeline.ipu
// attribute. IPU 0: 'dense' 2048 + its add 2048 = 4096. IPU 1: 'big' 1100 x f32 = 4400 +
// its mul 4400 = 8800. (Programs that do not fit: poplar-plan-memory-invalid.mlir.)
// CHECK-LABEL: "poplar.graph"
// CHECK: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 2048 : i64, 2048 : i64, 0 : i64, 4096 : i64>, #poplar.ipu_memory<1 : i64, 4400 : i64, 4400 : i64, 0 : i64, 8800 : i64>]>
"poplar.graph"() ({
  %dense = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "dense", tiles = array<i64: 0, 1>} : () -> tensor<512xf32>
  %big = "poplar.variable"() {ipu = 1 : i64, kind = "weight", name = "big", tiles = array<i64: 0, 8>} : () -> tensor<1100xf32>
  "poplar.function"() ({
    %a = "poplar.popops_add"(%dense, %dense) : (tensor<512xf32>, tensor<512xf32>) -> tensor<512xf32>
    %b = "poplar.popops_mul"(%big, %big) {pipeline.ipu = 1 : i64} : (tensor<1100xf32>, tensor<1100xf32>) -> tensor<1100xf32>
    "poplar.program_copy"(%a, %dense) : (tensor<512xf32>, tensor<512xf32>) -> ()
    "poplar.program_copy"(%b, %big) : (tensor<1100xf32>, tensor<1100xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// A program whose region has no block (the generic form '({ })', which verifies; ops.mlir's
// empty_function) runs nothing: no temporaries, like a body of one empty block. The pass
// read the missing block (an internal IndexError). Variables: w 64 x f32 = 256.
// CHECK-LABEL: "poplar.graph"
// CHECK: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 256 : i64, 0 : i64, 0 : i64, 256 : i64>]>
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64: 0, 1>} : () -> tensor<64xf32>
  "poplar.function"() ({
  }) {name = "step"} : () -> ()
  "poplar.function"() ({
  ^bb0:
  }) {name = "init"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "init"} : () -> ()
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {count = 2 : i64} : () -> ()
    "poplar.program_repeat"() ({
    }) {count = 3 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// A main sequence with no block plans the variables alone.
// CHECK-LABEL: "poplar.graph"
// CHECK: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 256 : i64, 0 : i64, 0 : i64, 256 : i64>]>
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64: 0, 1>} : () -> tensor<64xf32>
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

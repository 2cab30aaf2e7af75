// RUN: ipu-opt %s -p 'poplar-plan-memory{partials-type=float available-memory=0.5}' --split-input-file | FileCheck %s --check-prefixes=CHECK,FLOAT
// RUN: ipu-opt %s -p 'poplar-plan-memory{partials-type=half}' --split-input-file | FileCheck %s --check-prefixes=CHECK,HALF
// RUN: ipu-opt %s -p 'poplar-plan-memory{bytes-per-tile=256 tiles-per-ipu=2}' --split-input-file | FileCheck %s --check-prefixes=CHECK,SMALL
// RUN: ipu-opt %s -p 'poplar-plan-memory{bytes-per-tile=256 tiles-per-ipu=3 io-tiles=1}' --split-input-file | FileCheck %s --check-prefixes=CHECK,IO

// A matmul of f16 operands holds its partial sums while it runs: f32 partials (PopLibs'
// default, partials-type=float) are 4 bytes per result element, twice the f16 result's 2,
// so 2 x 3 x 2 = 12 bytes beside the 12-byte result -> temporaries 24; half partials
// accumulate in the result -> 12. The options are recorded on the matmul; its own
// available memory is kept. Variables: a 16 + b 24 + input.x 8 + anchor 12 = 60.
// CHECK-LABEL: "poplar.graph"
// FLOAT: "poplar.poplin_matmul"{{.*}}poplar.available_memory = 5.000000e-01 : f64, poplar.partials_type = "float"
// FLOAT: "poplar.poplin_matmul"{{.*}}poplar.available_memory = 1.000000e+00 : f64, poplar.partials_type = "float"
// HALF: "poplar.poplin_matmul"{{.*}}poplar.partials_type = "half"
// FLOAT: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 60 : i64, 24 : i64, 0 : i64, 84 : i64>]>
// HALF: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 60 : i64, 12 : i64, 0 : i64, 72 : i64>]>
// With no option nothing is recorded and partials are f32. On an IPU of 2 x 256 bytes the
// first matmul's 24 bytes of partials fit in 0.6 of 512 bytes: one pass, 12 bytes beside
// its result; the second's available memory of 1.0 gives one pass too -> 24.
// SMALL-NOT: poplar.partials_type
// SMALL: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 60 : i64, 24 : i64, 0 : i64, 84 : i64>]>
// One I/O tile of 3 leaves 2 x 256 = 512 bytes to compute: the same plan.
// IO: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 60 : i64, 24 : i64, 0 : i64, 84 : i64>]>
"poplar.graph"() ({
  %a = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "a", tiles = array<i64: 0, 1>} : () -> tensor<2x4xf16>
  %b = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "b", tiles = array<i64: 0, 1>} : () -> tensor<4x3xf16>
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 0, 1>} : () -> tensor<2x2xf16>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<2x2xf16>} : () -> ()
  %out = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64: 0, 1>} : () -> tensor<2x3xf16>
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<2x2xf16>) -> ()
    %c = "poplar.poplin_matmul"(%a, %b) : (tensor<2x4xf16>, tensor<4x3xf16>) -> tensor<2x3xf16>
    "poplar.program_copy"(%c, %out) : (tensor<2x3xf16>, tensor<2x3xf16>) -> ()
    %d = "poplar.poplin_matmul"(%a, %b) {poplar.available_memory = 1.0 : f64} : (tensor<2x4xf16>, tensor<4x3xf16>) -> tensor<2x3xf16>
    "poplar.program_copy"(%d, %out) : (tensor<2x3xf16>, tensor<2x3xf16>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// A small available memory splits the partials into passes: 4 x 8 f16 results with f32
// partials (128 bytes) and an available memory of 0.1 of 512 compute bytes (51) take 3
// passes of 43 bytes, which fit in the 64-byte result: nothing beside it (temporaries 64).
// On a Mk2 IPU (FLOAT) one pass holds all 128 bytes: 64 beside the result; half partials
// (HALF) accumulate in the result.
// Variables: a 64 + b 128 + anchor 64 = 256.
// CHECK-LABEL: "poplar.graph"
// SMALL: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 256 : i64, 64 : i64, 0 : i64, 320 : i64>]>
// IO: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 256 : i64, 64 : i64, 0 : i64, 320 : i64>]>
// HALF: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 256 : i64, 64 : i64, 0 : i64, 320 : i64>]>
// FLOAT: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 256 : i64, 128 : i64, 0 : i64, 384 : i64>]>
"poplar.graph"() ({
  %a = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "a", tiles = array<i64: 0, 1>} : () -> tensor<4x8xf16>
  %b = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "b", tiles = array<i64: 0, 1>} : () -> tensor<8x8xf16>
  %out = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64: 0, 1>} : () -> tensor<4x8xf16>
  "poplar.function"() ({
    %c = "poplar.poplin_matmul"(%a, %b) {poplar.available_memory = 0.1 : f64} : (tensor<4x8xf16>, tensor<8x8xf16>) -> tensor<4x8xf16>
    "poplar.program_copy"(%c, %out) : (tensor<4x8xf16>, tensor<4x8xf16>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

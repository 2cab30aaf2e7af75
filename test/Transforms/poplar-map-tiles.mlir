// RUN: ipu-opt %s -p poplar-map-tiles --split-input-file | FileCheck %s --check-prefix=MK2
// RUN: ipu-opt %s -p 'poplar-map-tiles{tiles-per-ipu=16 min-bytes-per-tile=100}' --split-input-file | FileCheck %s --check-prefix=SMALL

// A variable of B bytes gets n = min(tiles-per-ipu, ceil(B / min-bytes-per-tile)) tiles
// (at least 1) starting where the previous variable of the same IPU ended; a mapping
// that would run past the last tile starts again at tile 0. Each IPU counts on its own.
//
// variable  ipu  bytes                   Mk2 defaults: 1472 tiles, 128 B     16 tiles, 100 B
// w         0    512*512*4 = 1048576     8192 -> 1472 tiles: [0, 1472]       10486 -> 16: [0, 16]
// b         0    300*4 = 1200            10; w ended at 1472 = 0: [0, 10]    12: [0, 12]
// mask      0    100 (i1: 1 B each)      1: [10, 1]                          1: [12, 1]
// h         1    64*64*2 (f16) = 8192    64: IPU 1 starts at 0: [0, 64]      82 -> 16: [0, 16]
// input.x   0    16*8 (i64) = 128        1: [11, 1]                          2: [13, 2]
// anchor.0  1    40*4 = 160              2: [64, 2]                          2: [0, 2] (h ended at 16 = 0)
// y         0    60*4 = 240              2: [12, 2]                          3: 15 + 3 > 16, wraps: [0, 3]
// Constants and programs are not mapped here.

// MK2-LABEL: "poplar.graph"
// MK2: name = "w", tiles = array<i64: 0, 1472>} : () -> tensor<512x512xf32>
// MK2: name = "b", tiles = array<i64: 0, 10>} : () -> tensor<300xf32>
// MK2: name = "mask", tiles = array<i64: 10, 1>} : () -> tensor<100xi1>
// MK2: name = "h", tiles = array<i64: 0, 64>} : () -> tensor<64x64xf16>
// MK2: name = "input.x", tiles = array<i64: 11, 1>} : () -> tensor<16xi64>
// MK2: name = "anchor.0", tiles = array<i64: 64, 2>} : () -> tensor<40xf32>
// MK2: name = "y", tiles = array<i64: 12, 2>} : () -> tensor<60xf32>
// MK2: "poplar.constant"() {ipu = 0 : i64, value = dense<1.000000e+00> : tensor<1000xf32>} : () -> tensor<1000xf32>

// SMALL-LABEL: "poplar.graph"
// SMALL: name = "w", tiles = array<i64: 0, 16>}
// SMALL: name = "b", tiles = array<i64: 0, 12>}
// SMALL: name = "mask", tiles = array<i64: 12, 1>}
// SMALL: name = "h", tiles = array<i64: 0, 16>}
// SMALL: name = "input.x", tiles = array<i64: 13, 2>}
// SMALL: name = "anchor.0", tiles = array<i64: 0, 2>}
// SMALL: name = "y", tiles = array<i64: 0, 3>}

"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64>} : () -> tensor<512x512xf32>
  %b = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "b", tiles = array<i64>} : () -> tensor<300xf32>
  %mask = "poplar.variable"() {ipu = 0 : i64, kind = "buffer", name = "mask", tiles = array<i64>} : () -> tensor<100xi1>
  %h = "poplar.variable"() {ipu = 1 : i64, kind = "weight", name = "h", tiles = array<i64>} : () -> tensor<64x64xf16>
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<16xi64>
  %a = "poplar.variable"() {ipu = 1 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<40xf32>
  %y = "poplar.variable"() {ipu = 0 : i64, kind = "buffer", name = "y", tiles = array<i64>} : () -> tensor<60xf32>
  %c = "poplar.constant"() {ipu = 0 : i64, value = dense<1.000000e+00> : tensor<1000xf32>} : () -> tensor<1000xf32>
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// As poplar-build-program leaves it (Linear(4, 3), a buffer, two outputs). Every
// variable (12 to 48 bytes) is below both grains, so each gets one tile: tiles 0..5.
// MK2-LABEL: "poplar.graph"
// MK2: name = "l.weight", tiles = array<i64: 0, 1>} : () -> tensor<3x4xf32>
// MK2: name = "l.bias", tiles = array<i64: 1, 1>} : () -> tensor<3xf32>
// MK2: name = "shift", tiles = array<i64: 2, 1>} : () -> tensor<3xf32>
// MK2: name = "input.x", tiles = array<i64: 3, 1>} : () -> tensor<2x4xf32>
// MK2: name = "anchor.0", tiles = array<i64: 4, 1>} : () -> tensor<2x3xf32>
// MK2: name = "anchor.1", tiles = array<i64: 5, 1>} : () -> tensor<2x3xf32>
// SMALL-LABEL: "poplar.graph"
// SMALL: name = "l.weight", tiles = array<i64: 0, 1>}
// SMALL: name = "anchor.1", tiles = array<i64: 5, 1>}
"builtin.module"() ({
  "poplar.graph"() ({
    %0 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "l.weight", tiles = array<i64>} : () -> tensor<3x4xf32>
    %1 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "l.bias", tiles = array<i64>} : () -> tensor<3xf32>
    %2 = "poplar.variable"() {ipu = 0 : i64, kind = "buffer", name = "shift", tiles = array<i64>} : () -> tensor<3xf32>
    %3 = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<2x4xf32>
    "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<2x4xf32>} : () -> ()
    "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<2x3xf32>} : () -> ()
    %4 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<2x3xf32>
    "poplar.host_stream"() {direction = "device_to_host", name = "host.output.1", type = tensor<2x3xf32>} : () -> ()
    %5 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.1", tiles = array<i64>} : () -> tensor<2x3xf32>
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
}) : () -> ()

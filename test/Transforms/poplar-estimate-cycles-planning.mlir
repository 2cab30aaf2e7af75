// RUN: ipu-opt %s -p poplar-estimate-cycles | FileCheck %s --check-prefixes=CHECK,ALL
// RUN: ipu-opt %s -p 'poplar-estimate-cycles{io-tiles=32}' | FileCheck %s --check-prefixes=CHECK,IO
// RUN: not ipu-opt %s -p 'poplar-estimate-cycles{io-tiles=1472}' 2>&1 | FileCheck %s --check-prefix=OPTION

// What the cost model reads of the planning attributes (dialects/poplar/planning.py), on
// Mk2 (see poplar-estimate-cycles.mlir for the constants):
//   an overlapped input stream (host.input.y) is prefetched to the I/O tiles while the
//     compute tiles work: its copy is an exchange from them, 150 + 65536 / (5.62 * 512) = 173,
//     where host.input.x pays the host link, 5384;
//   the 128x128 f32 matmul with PopLibs' default 0.6 of the memory holds its 64 KiB of
//     partials in one pass (503); with 1e-5 of 1472 x 624 KiB (9405 bytes) it takes 7 passes,
//     6 more compute sets of 200 -> 1703;
//   a serial multi-convolution runs its members one after the other (375 each); a parallel
//     one runs them in one compute set on shares of the tiles: the group takes its longest
//     member (375, as each spreads over fewer tiles than its share), carried by the first
//     member; the second takes 0.
// With 32 I/O tiles (IO) the 1440 compute tiles hold 9200 bytes of the small matmul's
// available memory: 8 passes -> 1903.
// CHECK: "poplar.program_stream_copy"(%{{.*}}) {poplar.cycles = 5384 : i64, stream = "host.input.x"}
// CHECK-NEXT: "poplar.program_stream_copy"(%{{.*}}) {poplar.cycles = 173 : i64, stream = "host.input.y"}
// CHECK-NEXT: "poplar.poplin_matmul"{{.*}}poplar.cycles = 503 : i64
// ALL-NEXT: "poplar.poplin_matmul"{{.*}}poplar.cycles = 1703 : i64
// IO-NEXT: "poplar.poplin_matmul"{{.*}}poplar.cycles = 1903 : i64
// CHECK-NEXT: "poplar.poplin_conv"{{.*}}poplar.cycles = 375 : i64
// CHECK-NEXT: "poplar.poplin_conv"{{.*}}poplar.cycles = 375 : i64
// CHECK-NEXT: "poplar.poplin_conv"{{.*}}poplar.cycles = 375 : i64
// CHECK-NEXT: "poplar.poplin_conv"{{.*}}poplar.cycles = 0 : i64
// ALL-NEXT: }) {name = "step", poplar.cycles = 8888 : i64}
// IO-NEXT: }) {name = "step", poplar.cycles = 9088 : i64}
// OPTION: poplar-estimate-cycles: io-tiles must be in [0, 1472) (the target's tiles per IPU: some tiles must compute), got 1472
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64: 0, 512>} : () -> tensor<128x128xf32>
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 512, 512>} : () -> tensor<128x128xf32>
  %y = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.y", tiles = array<i64: 512, 512>} : () -> tensor<128x128xf32>
  %img = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "img", tiles = array<i64: 0, 16>} : () -> tensor<1x8x16x16xf32>
  %k = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "k", tiles = array<i64: 0, 3>} : () -> tensor<8x8x3x3xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<128x128xf32>} : () -> ()
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.y", poplar.overlap = "overlap_accumulation_loop", type = tensor<128x128xf32>} : () -> ()
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<128x128xf32>) -> ()
    "poplar.program_stream_copy"(%y) {stream = "host.input.y"} : (tensor<128x128xf32>) -> ()
    %a = "poplar.poplin_matmul"(%x, %w) : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
    %b = "poplar.poplin_matmul"(%x, %w) {poplar.available_memory = 0.00001 : f64} : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
    %c0 = "poplar.poplin_conv"(%img, %k) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>, poplar.multi_conv = {group = 0 : i64, index = 0 : i64, plan_type = "serial"}} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
    %c1 = "poplar.poplin_conv"(%img, %k) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>, poplar.multi_conv = {group = 0 : i64, index = 1 : i64, plan_type = "serial"}} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
    %p0 = "poplar.poplin_conv"(%img, %k) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>, poplar.multi_conv = {group = 1 : i64, index = 0 : i64, plan_type = "parallel"}} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
    %p1 = "poplar.poplin_conv"(%img, %k) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>, poplar.multi_conv = {group = 1 : i64, index = 1 : i64, plan_type = "parallel"}} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// A multiplying scatter has no emission (PopLibs has no multiplying multiUpdate), nor a
// transposed convolution whose padding exceeds dilation * (kernel - 1): errors naming the op
// and what to do instead.
// RUN: not ipu-translate --poplar-to-cpp %s 2>&1 | FileCheck %s
// RUN: sed 's/op = "mul"/op = "add"/' %s | not ipu-translate --poplar-to-cpp 2>&1 | FileCheck %s --check-prefix=CONV

// CHECK: ipu-translate: error: 'poplar.popops_scatter' at {{.*}}: a multiplying scatter (scatter_reduce 'prod') has no emission: PopLibs has no multiplying multiUpdate; use 'sum', 'amax' or 'amin', or compute it on the host
// CONV: ipu-translate: error: 'poplar.poplin_conv_transpose' at {{.*}}: a padding larger than dilation * (kernel - 1) has no emission yet (it needs the input truncated)

"builtin.module"() ({
  "poplar.graph"() ({
    %a = "poplar.variable"() {name = "a", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x3xf32>
    %i = "poplar.variable"() {name = "i", kind = "input", ipu = 0 : i64, tiles = array<i64: 1, 1>} : () -> tensor<2x2xi64>
    %u = "poplar.variable"() {name = "u", kind = "input", ipu = 0 : i64, tiles = array<i64: 4, 1>} : () -> tensor<2x2xf32>
    %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64: 2, 1>} : () -> tensor<1x2x5xf32>
    %w = "poplar.variable"() {name = "w", kind = "input", ipu = 0 : i64, tiles = array<i64: 3, 1>} : () -> tensor<2x2x2xf32>
    "poplar.function"() ({
      %0 = "poplar.popops_scatter"(%a, %i, %u) {dim = 1 : i64, op = "mul", include_self = true} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
      %1 = "poplar.poplin_conv_transpose"(%x, %w) {stride = array<i64: 3>, padding = array<i64: 2>, output_padding = array<i64: 0>,
             dilation = array<i64: 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x2x5xf32>, tensor<2x2x2xf32>) -> tensor<1x2x10xf32>
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

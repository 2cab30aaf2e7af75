// Round trip of every poplar op in generic form: ipu-opt parses and verifies it (the
// Python verifiers of dialects/poplar/), prints it, and parses its own output again.
// RUN: ipu-opt %s --split-input-file | FileCheck %s --check-prefixes=CHECK,FLAT
// RUN: ipu-opt %s --split-input-file | ipu-opt --split-input-file | FileCheck %s --check-prefixes=CHECK,FLAT
//
// The stock torch-mlir-opt reads the same IR through dialects/poplar.irdl.mlir. IRDL
// cannot give an op the NoTerminator trait (ipu-opt attaches it from Python), so
// torch-mlir-opt rejects every non-empty region of poplar.graph, poplar.function,
// poplar.program_sequence and poplar.program_repeat. It must therefore fail on the first
// section for that reason only (IRDL-LIMIT), and accept the second section, which holds
// the ops that need no enclosing graph and the region ops with empty regions (FLAT).
// RUN: not torch-mlir-opt --irdl-file=%irdl_dir/poplar.irdl.mlir --split-input-file %s 2>&1 >/dev/null | FileCheck %s --check-prefix=IRDL-LIMIT
// RUN: not torch-mlir-opt --irdl-file=%irdl_dir/poplar.irdl.mlir --split-input-file %s 2>/dev/null | FileCheck %s --check-prefix=FLAT
//
// IRDL-LIMIT: error: block with no terminator
// IRDL-LIMIT-NOT: error:

// A two-IPU, two-replica training step: conv stage on IPU 0, classifier stage on IPU 1,
// called from a device loop of 4 iterations that streams inputs in and logits out.
// Stream names differ from variable names: they share the graph's name space.
//
// IRDL binds one type to all operands of a variadic group, so operands that may differ
// sit in groups of their own: popops_map takes in1 and at most one operand each in in2
// and in3, popnn_norm takes input, scale and bias and a variadic group of stats (the mean
// and variance of "batch", which share a type), and concat is binary. Hence the batch
// norm of a [N, C, H, W] activation with [C] parameters, a map broadcasting a scalar
// and a layer norm of a [4, 4] tensor with [4] parameters below.
// CHECK-LABEL: "poplar.graph"() ({
"poplar.graph"() ({
  // CHECK: %[[X:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<2x3x8x8xf32>
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<2x3x8x8xf32>
  // CHECK: %[[IDS:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.ids", tiles = array<i64>} : () -> tensor<2x3xi64>
  %ids = "poplar.variable"() {name = "input.ids", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<2x3xi64>
  // CHECK: %[[CONV_W:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "conv.weight", tiles = array<i64: 0, 16>} : () -> tensor<4x3x3x3xf32>
  %conv_w = "poplar.variable"() {name = "conv.weight", kind = "weight", ipu = 0 : i64, tiles = array<i64: 0, 16>} : () -> tensor<4x3x3x3xf32>
  // CHECK: %[[CONV_B:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "conv.bias", tiles = array<i64: 16, 1>} : () -> tensor<4xf32>
  %conv_b = "poplar.variable"() {name = "conv.bias", kind = "weight", ipu = 0 : i64, tiles = array<i64: 16, 1>} : () -> tensor<4xf32>
  // CHECK: %[[BN_W:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "bn.weight", tiles = array<i64>} : () -> tensor<4xf32>
  %bn_w = "poplar.variable"() {name = "bn.weight", kind = "weight", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  // CHECK: %[[BN_B:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "bn.bias", tiles = array<i64>} : () -> tensor<4xf32>
  %bn_b = "poplar.variable"() {name = "bn.bias", kind = "weight", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  // CHECK: %[[BN_MEAN:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "buffer", name = "bn.running_mean", tiles = array<i64>} : () -> tensor<4xf32>
  %bn_mean = "poplar.variable"() {name = "bn.running_mean", kind = "buffer", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  // CHECK: %[[BN_VAR:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "buffer", name = "bn.running_var", tiles = array<i64>} : () -> tensor<4xf32>
  %bn_var = "poplar.variable"() {name = "bn.running_var", kind = "buffer", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  // CHECK: %[[FC_W:.*]] = "poplar.variable"() {ipu = 1 : i64, kind = "weight", name = "fc.weight", tiles = array<i64>} : () -> tensor<64x10xf32>
  %fc_w = "poplar.variable"() {name = "fc.weight", kind = "weight", ipu = 1 : i64, tiles = array<i64>} : () -> tensor<64x10xf32>
  // CHECK: %[[FC_GRAD:.*]] = "poplar.variable"() {ipu = 1 : i64, kind = "accumulator", name = "fc.weight.grad", tiles = array<i64>} : () -> tensor<64x10xf32>
  %fc_grad = "poplar.variable"() {name = "fc.weight.grad", kind = "accumulator", ipu = 1 : i64, tiles = array<i64>} : () -> tensor<64x10xf32>
  // CHECK: %[[FC_M:.*]] = "poplar.variable"() {ipu = 1 : i64, kind = "optimizer_state", name = "fc.weight.momentum", tiles = array<i64>} : () -> tensor<64x10xf32>
  %fc_m = "poplar.variable"() {name = "fc.weight.momentum", kind = "optimizer_state", ipu = 1 : i64, tiles = array<i64>} : () -> tensor<64x10xf32>
  // CHECK: %[[EMB:.*]] = "poplar.variable"() {ipu = 1 : i64, kind = "weight", name = "emb.weight", tiles = array<i64>} : () -> tensor<10x4xf32>
  %emb = "poplar.variable"() {name = "emb.weight", kind = "weight", ipu = 1 : i64, tiles = array<i64>} : () -> tensor<10x4xf32>
  // CHECK: %[[ACT:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "exchange", name = "pool.out", tiles = array<i64>} : () -> tensor<2x64xf32>
  %act = "poplar.variable"() {name = "pool.out", kind = "exchange", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<2x64xf32>
  // CHECK: %[[ACT1:.*]] = "poplar.variable"() {ipu = 1 : i64, kind = "exchange", name = "pool.out.ipu1", tiles = array<i64>} : () -> tensor<2x64xf32>
  %act1 = "poplar.variable"() {name = "pool.out.ipu1", kind = "exchange", ipu = 1 : i64, tiles = array<i64>} : () -> tensor<2x64xf32>
  // CHECK: %[[LOGITS:.*]] = "poplar.variable"() {ipu = 1 : i64, kind = "anchor", name = "output.logits", tiles = array<i64>} : () -> tensor<2x10xf32>
  %logits = "poplar.variable"() {name = "output.logits", kind = "anchor", ipu = 1 : i64, tiles = array<i64>} : () -> tensor<2x10xf32>
  // CHECK: %[[LR:.*]] = "poplar.variable"() {ipu = 1 : i64, kind = "scalar", name = "lr", tiles = array<i64>} : () -> tensor<f32>
  %lr = "poplar.variable"() {name = "lr", kind = "scalar", ipu = 1 : i64, tiles = array<i64>} : () -> tensor<f32>
  // CHECK: %[[LN_W:.*]] = "poplar.variable"() {ipu = 1 : i64, kind = "weight", name = "ln.weight", tiles = array<i64>} : () -> tensor<4xf16>
  %ln_w = "poplar.variable"() {name = "ln.weight", kind = "weight", ipu = 1 : i64, tiles = array<i64>} : () -> tensor<4xf16>
  // CHECK: %[[LN_B:.*]] = "poplar.variable"() {ipu = 1 : i64, kind = "weight", name = "ln.bias", tiles = array<i64>} : () -> tensor<4xf16>
  %ln_b = "poplar.variable"() {name = "ln.bias", kind = "weight", ipu = 1 : i64, tiles = array<i64>} : () -> tensor<4xf16>
  // CHECK: %[[ONE:.*]] = "poplar.constant"() {ipu = 1 : i64, value = dense<1.000000e+00> : tensor<4xf32>} : () -> tensor<4xf32>
  %one = "poplar.constant"() {value = dense<1.0> : tensor<4xf32>, ipu = 1 : i64} : () -> tensor<4xf32>
  // CHECK: %[[IDX:.*]] = "poplar.constant"() {ipu = 1 : i64, value = dense<{{\[\[}}0, 3], [1, 2]]> : tensor<2x2xi64>} : () -> tensor<2x2xi64>
  %idx = "poplar.constant"() {value = dense<[[0, 3], [1, 2]]> : tensor<2x2xi64>, ipu = 1 : i64} : () -> tensor<2x2xi64>
  // CHECK: "poplar.host_stream"() {direction = "host_to_device", name = "h2d.x", type = tensor<2x3x8x8xf32>} : () -> ()
  "poplar.host_stream"() {name = "h2d.x", direction = "host_to_device", type = tensor<2x3x8x8xf32>} : () -> ()
  // CHECK: "poplar.host_stream"() {direction = "host_to_device", name = "h2d.ids", type = tensor<2x3xi64>} : () -> ()
  "poplar.host_stream"() {name = "h2d.ids", direction = "host_to_device", type = tensor<2x3xi64>} : () -> ()
  // CHECK: "poplar.host_stream"() {direction = "device_to_host", name = "d2h.logits", type = tensor<2x10xf32>} : () -> ()
  "poplar.host_stream"() {name = "d2h.logits", direction = "device_to_host", type = tensor<2x10xf32>} : () -> ()
  // CHECK: "poplar.remote_buffer"() {name = "fc.weight.remote", repeats = 1 : i64, type = tensor<64x10xf32>} : () -> ()
  "poplar.remote_buffer"() {name = "fc.weight.remote", type = tensor<64x10xf32>, repeats = 1 : i64} : () -> ()
  // CHECK: "poplar.function"() ({
  "poplar.function"() ({
    // CHECK: %[[C:.*]] = "poplar.poplin_conv"(%[[X]], %[[CONV_W]], %[[CONV_B]]) {dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
    %c = "poplar.poplin_conv"(%x, %conv_w, %conv_b) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
    // CHECK: %[[BN:.*]] = "poplar.popnn_norm"(%[[C]], %[[BN_W]], %[[BN_B]], %[[BN_MEAN]], %[[BN_VAR]]) {epsilon = 1.000000e-05 : f64, kind = "batch", num_dims = 1 : i64, num_groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
    %bn = "poplar.popnn_norm"(%c, %bn_w, %bn_b, %bn_mean, %bn_var) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
    // CHECK: %[[R:.*]] = "poplar.popnn_nonlinearity"(%[[BN]]) {dim = 0 : i64, kind = "relu"} : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    %r = "poplar.popnn_nonlinearity"(%bn) {kind = "relu", dim = 0 : i64} : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
    // CHECK: %[[P:.*]] = "poplar.popnn_pool"(%[[R]]) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2, 2>, kind = "max", padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<2x4x8x8xf32>) -> tensor<2x4x4x4xf32>
    %p = "poplar.popnn_pool"(%r) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<2x4x8x8xf32>) -> tensor<2x4x4x4xf32>
    // CHECK: %[[F:.*]] = "poplar.reshape"(%[[P]]) : (tensor<2x4x4x4xf32>) -> tensor<2x64xf32>
    %f = "poplar.reshape"(%p) : (tensor<2x4x4x4xf32>) -> tensor<2x64xf32>
    // CHECK: "poplar.program_copy"(%[[F]], %[[ACT]]) {poplar.copy_mode = "copy"} : (tensor<2x64xf32>, tensor<2x64xf32>) -> ()
    "poplar.program_copy"(%f, %act) {poplar.copy_mode = "copy"} : (tensor<2x64xf32>, tensor<2x64xf32>) -> ()
  // CHECK: }) {name = "stage0"} : () -> ()
  }) {name = "stage0"} : () -> ()
  // CHECK: "poplar.function"() ({
  "poplar.function"() ({
    // CHECK: %[[L:.*]] = "poplar.poplin_matmul"(%[[ACT1]], %[[FC_W]]) : (tensor<2x64xf32>, tensor<64x10xf32>) -> tensor<2x10xf32>
    %l = "poplar.poplin_matmul"(%act1, %fc_w) : (tensor<2x64xf32>, tensor<64x10xf32>) -> tensor<2x10xf32>
    // CHECK: %[[S:.*]] = "poplar.popnn_nonlinearity"(%[[L]]) {dim = 1 : i64, kind = "log_softmax"} : (tensor<2x10xf32>) -> tensor<2x10xf32>
    %s = "poplar.popnn_nonlinearity"(%l) {kind = "log_softmax", dim = 1 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
    // The output anchor takes the log-softmax's buffer (poplar-share-buffers' mark).
    // CHECK: "poplar.program_copy"(%[[S]], %[[LOGITS]]) {poplar.copy_mode = "share"} : (tensor<2x10xf32>, tensor<2x10xf32>) -> ()
    "poplar.program_copy"(%s, %logits) {poplar.copy_mode = "share"} : (tensor<2x10xf32>, tensor<2x10xf32>) -> ()
  // CHECK: }) {name = "stage1"} : () -> ()
  }) {name = "stage1"} : () -> ()
  // A function calling both stages: the step the graph's interface names.
  // CHECK: "poplar.function"() ({
  "poplar.function"() ({
    // CHECK: "poplar.program_call"() {callee = "stage0"} : () -> ()
    "poplar.program_call"() {callee = "stage0"} : () -> ()
    // CHECK: "poplar.program_call"() {callee = "stage1"} : () -> ()
    "poplar.program_call"() {callee = "stage1"} : () -> ()
  // CHECK: }) {name = "step"} : () -> ()
  }) {name = "step"} : () -> ()
  // CHECK: "poplar.program_sequence"() ({
  "poplar.program_sequence"() ({
    // CHECK: "poplar.program_repeat"() ({
    "poplar.program_repeat"() ({
      // CHECK: "poplar.program_stream_copy"(%[[X]]) {stream = "h2d.x"} : (tensor<2x3x8x8xf32>) -> ()
      "poplar.program_stream_copy"(%x) {stream = "h2d.x"} : (tensor<2x3x8x8xf32>) -> ()
      // CHECK: "poplar.program_stream_copy"(%[[IDS]]) {stream = "h2d.ids"} : (tensor<2x3xi64>) -> ()
      "poplar.program_stream_copy"(%ids) {stream = "h2d.ids"} : (tensor<2x3xi64>) -> ()
      // CHECK: "poplar.program_call"() {callee = "stage0"} : () -> ()
      "poplar.program_call"() {callee = "stage0"} : () -> ()
      // Inter-IPU exchange of the stage-0 activation.
      // CHECK: "poplar.program_copy"(%[[ACT]], %[[ACT1]]) : (tensor<2x64xf32>, tensor<2x64xf32>) -> ()
      "poplar.program_copy"(%act, %act1) : (tensor<2x64xf32>, tensor<2x64xf32>) -> ()
      // CHECK: "poplar.program_sync"() {kind = "external"} : () -> ()
      "poplar.program_sync"() {kind = "external"} : () -> ()
      // CHECK: "poplar.program_call"() {callee = "stage1"} : () -> ()
      "poplar.program_call"() {callee = "stage1"} : () -> ()
      // CHECK: %[[E:.*]] = "poplar.popops_multi_slice"(%[[EMB]], %[[IDS]]) {dim = 0 : i64} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
      %e = "poplar.popops_multi_slice"(%emb, %ids) {dim = 0 : i64} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
      // CHECK: %[[ES:.*]] = "poplar.popops_reduce"(%[[E]]) {dims = array<i64: 1>, keep_dims = false, op = "add", scale = 5.000000e-01 : f64} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
      %es = "poplar.popops_reduce"(%e) {op = "add", dims = array<i64: 1>, keep_dims = false, scale = 0.5 : f64} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
      // CHECK: %[[AMAX:.*]] = "poplar.popops_arg_max"(%[[ES]]) {dim = 1 : i64, keep_dims = false} : (tensor<2x4xf32>) -> tensor<2xi64>
      %amax = "poplar.popops_arg_max"(%es) {dim = 1 : i64, keep_dims = false} : (tensor<2x4xf32>) -> tensor<2xi64>
      // CHECK: %[[AMIN:.*]] = "poplar.popops_arg_min"(%[[ES]]) {dim = 0 : i64, keep_dims = true} : (tensor<2x4xf32>) -> tensor<1x4xi32>
      %amin = "poplar.popops_arg_min"(%es) {dim = 0 : i64, keep_dims = true} : (tensor<2x4xf32>) -> tensor<1x4xi32>
      // CHECK: %[[G:.*]] = "poplar.popops_gather"(%[[ES]], %[[IDX]]) {dim = 1 : i64} : (tensor<2x4xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
      %g = "poplar.popops_gather"(%es, %idx) {dim = 1 : i64} : (tensor<2x4xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
      // CHECK: %[[T:.*]] = "poplar.dim_shuffle"(%[[ES]]) {permutation = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
      %t = "poplar.dim_shuffle"(%es) {permutation = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
      // CHECK: %[[SL:.*]] = "poplar.slice"(%[[T]]) {begin = array<i64: 0, 0>, end = array<i64: 4, 2>, stride = array<i64: 2, 1>} : (tensor<4x2xf32>) -> tensor<2x2xf32>
      %sl = "poplar.slice"(%t) {begin = array<i64: 0, 0>, end = array<i64: 4, 2>, stride = array<i64: 2, 1>} : (tensor<4x2xf32>) -> tensor<2x2xf32>
      // CHECK: %[[CAT:.*]] = "poplar.concat"(%[[SL]], %[[G]]) {dim = 0 : i64} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
      %cat = "poplar.concat"(%sl, %g) {dim = 0 : i64} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
      // CHECK: %[[PAD:.*]] = "poplar.popops_pad"(%[[CAT]]) {high = array<i64: 0, 1>, low = array<i64: 0, 1>, value = 0.000000e+00 : f64} : (tensor<4x2xf32>) -> tensor<4x4xf32>
      %pad = "poplar.popops_pad"(%cat) {low = array<i64: 0, 1>, high = array<i64: 0, 1>, value = 0.0 : f64} : (tensor<4x2xf32>) -> tensor<4x4xf32>
      // CHECK: %[[B:.*]] = "poplar.broadcast"(%[[ONE]]) : (tensor<4xf32>) -> tensor<4x4xf32>
      %b = "poplar.broadcast"(%one) : (tensor<4xf32>) -> tensor<4x4xf32>
      // CHECK: %[[ADD:.*]] = "poplar.popops_add"(%[[PAD]], %[[ONE]]) : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
      %add = "poplar.popops_add"(%pad, %one) : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
      // CHECK: %[[SUB:.*]] = "poplar.popops_sub"(%[[ADD]], %[[B]]) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
      %sub = "poplar.popops_sub"(%add, %b) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
      // CHECK: %[[MUL:.*]] = "poplar.popops_mul"(%[[SUB]], %[[LR]]) : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
      %mul = "poplar.popops_mul"(%sub, %lr) : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
      // CHECK: %[[DIV:.*]] = "poplar.popops_div"(%[[MUL]], %[[B]]) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
      %div = "poplar.popops_div"(%mul, %b) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
      // CHECK: %[[M:.*]] = "poplar.popops_map"(%[[DIV]], %[[LR]]) {expr = "select(gt(_1, 0.0), _1, mul(_1, _2))", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
      %m = "poplar.popops_map"(%div, %lr) {expr = "select(gt(_1, 0.0), _1, mul(_1, _2))", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xf32>
      // CHECK: %[[H:.*]] = "poplar.popops_cast"(%[[M]]) : (tensor<4x4xf32>) -> tensor<4x4xf16>
      %h = "poplar.popops_cast"(%m) : (tensor<4x4xf32>) -> tensor<4x4xf16>
      // CHECK: %[[LN:.*]] = "poplar.popnn_norm"(%[[H]], %[[LN_W]], %[[LN_B]]) {epsilon = 1.000000e-05 : f64, kind = "layer", num_dims = 1 : i64, num_groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<4x4xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<4x4xf16>
      %ln = "poplar.popnn_norm"(%h, %ln_w, %ln_b) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<4x4xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<4x4xf16>
      // CHECK: "poplar.program_print_tensor"(%[[LN]]) {title = "ln.out"} : (tensor<4x4xf16>) -> ()
      "poplar.program_print_tensor"(%ln) {title = "ln.out"} : (tensor<4x4xf16>) -> ()
      // CHECK: %[[AVG:.*]] = "poplar.popnn_pool"(%[[X]]) {ceil_mode = true, count_include_pad = false, kernel = array<i64: 3, 3>, kind = "avg", padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x5x5xf32>
      %avg = "poplar.popnn_pool"(%x) {kind = "avg", kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true, count_include_pad = false} : (tensor<2x3x8x8xf32>) -> tensor<2x3x5x5xf32>
      // CHECK: %[[GRAD:.*]] = "poplar.gcl_all_reduce"(%[[FC_GRAD]]) {group = #poplar.comm_group<"all", 0 : i64>, op = "mean"} : (tensor<64x10xf32>) -> tensor<64x10xf32>
      %grad = "poplar.gcl_all_reduce"(%fc_grad) {op = "mean", group = #poplar.comm_group<"all", 0 : i64>} : (tensor<64x10xf32>) -> tensor<64x10xf32>
      // CHECK: "poplar.popops_scaled_add_to"(%[[FC_W]], %[[GRAD]]) {scale = -1.000000e-02 : f64} : (tensor<64x10xf32>, tensor<64x10xf32>) -> ()
      "poplar.popops_scaled_add_to"(%fc_w, %grad) {scale = -1.0e-02 : f64} : (tensor<64x10xf32>, tensor<64x10xf32>) -> ()
      // CHECK: "poplar.program_stream_copy"(%[[LOGITS]]) {stream = "d2h.logits"} : (tensor<2x10xf32>) -> ()
      "poplar.program_stream_copy"(%logits) {stream = "d2h.logits"} : (tensor<2x10xf32>) -> ()
    // CHECK: }) {count = 4 : i64} : () -> ()
    }) {count = 4 : i64} : () -> ()
  // CHECK: }) {name = "main"} : () -> ()
  }) {name = "main"} : () -> ()
// The graph's typed attributes. The interface: the host stream of each input (by name)
// and output (by index), the state variables the host provides ([role kind, name], in
// argument order), the step function, no update function ("") and the main program. The memory plan: per IPU, its variables, peak temporaries, stash and total.
// CHECK: }) {num_ipus = 2 : i64, poplar.interface = #poplar.interface<{ids = "h2d.ids", x = "h2d.x"}, ["d2h.logits"], [["parameter", "conv.weight"], ["buffer", "bn.running_mean"], ["hyper", "lr"], ["optimizer_state", "fc.weight.momentum"], ["accumulator", "fc.weight.grad"]], "step", "", "main">, poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 3712 : i64, 2048 : i64, 0 : i64, 5760 : i64>, #poplar.ipu_memory<1 : i64, 8272 : i64, 512 : i64, 128 : i64, 8912 : i64>]>, replication_factor = 2 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 2 : i64, tiles_per_ipu = 1472 : i64, poplar.interface = #poplar.interface<{x = "h2d.x", ids = "h2d.ids"}, ["d2h.logits"], [["parameter", "conv.weight"], ["buffer", "bn.running_mean"], ["hyper", "lr"], ["optimizer_state", "fc.weight.momentum"], ["accumulator", "fc.weight.grad"]], "step", "", "main">, poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 3712 : i64, 2048 : i64, 0 : i64, 5760 : i64>, #poplar.ipu_memory<1 : i64, 8272 : i64, 512 : i64, 128 : i64, 8912 : i64>]>} : () -> ()

// -----

// Ops that need no enclosing graph (program_stream_copy and program_call look up their
// stream or function in it, so they only appear above), and more variants: broadcasting
// binary ops; maps whose operands differ in shape and element type (an i1 select
// condition, a scalar bound, a constant filled to the shape of its only operand);
// grouped / strided / dilated conv without bias; batched matmul; ceil_mode pooling whose
// last window would start in the padding; batch, group and instance norms of a
// [N, C, H, W] input with [C] parameters and layer norms over one and two trailing dims;
// a strided slice; a concat of [2, 3] and [1, 3] and a three-way concat chained from
// binary ones; a constant held in a resource blob; the training ops (gradients, norms
// with batch statistics and their multi-result segments, NLL loss, embedding
// gradient, dropout). torch-mlir-opt accepts all of them: no variadic group holds
// operands or results of different types.
// CHECK: // {{-----}}
// FLAT: %[[A:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>} : () -> tensor<2x3xf32>
%a = "poplar.constant"() {value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>, ipu = 0 : i64} : () -> tensor<2x3xf32>
// FLAT: %[[ROW:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<5.000000e-01> : tensor<3xf32>} : () -> tensor<3xf32>
%row = "poplar.constant"() {value = dense<0.5> : tensor<3xf32>, ipu = 0 : i64} : () -> tensor<3xf32>
// FLAT: %[[MASK:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<{{\[\[}}true, false, true], [false, true, false]]> : tensor<2x3xi1>} : () -> tensor<2x3xi1>
%mask = "poplar.constant"() {value = dense<[[true, false, true], [false, true, false]]> : tensor<2x3xi1>, ipu = 0 : i64} : () -> tensor<2x3xi1>
// FLAT: %[[LO:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense<-1.000000e+00> : tensor<f32>} : () -> tensor<f32>
%lo = "poplar.constant"() {value = dense<-1.0> : tensor<f32>, ipu = 0 : i64} : () -> tensor<f32>
// FLAT: %[[W:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "fc.weight", tiles = array<i64: 0, 4>} : () -> tensor<3x4xf32>
%w = "poplar.variable"() {name = "fc.weight", kind = "weight", ipu = 0 : i64, tiles = array<i64: 0, 4>} : () -> tensor<3x4xf32>
// FLAT: %[[IMG:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.img", tiles = array<i64>} : () -> tensor<1x4x5x5xf32>
%img = "poplar.variable"() {name = "input.img", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<1x4x5x5xf32>
// FLAT: %[[K:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "conv.weight", tiles = array<i64>} : () -> tensor<4x2x3x3xf32>
%k = "poplar.variable"() {name = "conv.weight", kind = "weight", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4x2x3x3xf32>
// FLAT: %[[IDS:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.ids", tiles = array<i64>} : () -> tensor<2x3xi32>
%ids = "poplar.variable"() {name = "input.ids", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<2x3xi32>
// FLAT: %[[GAMMA:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "norm.weight", tiles = array<i64>} : () -> tensor<4xf32>
%gamma = "poplar.variable"() {name = "norm.weight", kind = "weight", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
// FLAT: %[[BETA:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "norm.bias", tiles = array<i64>} : () -> tensor<4xf32>
%beta = "poplar.variable"() {name = "norm.bias", kind = "weight", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
// FLAT: %[[MU:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "buffer", name = "norm.running_mean", tiles = array<i64>} : () -> tensor<4xf32>
%mu = "poplar.variable"() {name = "norm.running_mean", kind = "buffer", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
// FLAT: %[[SIGMA2:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "buffer", name = "norm.running_var", tiles = array<i64>} : () -> tensor<4xf32>
%sigma2 = "poplar.variable"() {name = "norm.running_var", kind = "buffer", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
// FLAT: "poplar.host_stream"() {direction = "host_to_device", name = "h2d.img", type = tensor<1x4x5x5xf32>} : () -> ()
"poplar.host_stream"() {name = "h2d.img", direction = "host_to_device", type = tensor<1x4x5x5xf32>} : () -> ()
// FLAT: "poplar.remote_buffer"() {name = "fc.weight.remote", repeats = 2 : i64, type = tensor<3x4xf32>} : () -> ()
"poplar.remote_buffer"() {name = "fc.weight.remote", type = tensor<3x4xf32>, repeats = 2 : i64} : () -> ()
// FLAT: "poplar.function"() ({
"poplar.function"() ({
// FLAT: }) {name = "empty_function"} : () -> ()
}) {name = "empty_function"} : () -> ()
// FLAT: "poplar.program_sequence"() ({
"poplar.program_sequence"() ({
// FLAT: }) {name = "empty_sequence"} : () -> ()
}) {name = "empty_sequence"} : () -> ()
// FLAT: "poplar.program_repeat"() ({
"poplar.program_repeat"() ({
// FLAT: }) {count = 1 : i64} : () -> ()
}) {count = 1 : i64} : () -> ()
// FLAT: "poplar.program_copy"(%[[A]], %[[A]]) : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()
"poplar.program_copy"(%a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()
// FLAT: "poplar.program_sync"() {kind = "internal"} : () -> ()
"poplar.program_sync"() {kind = "internal"} : () -> ()
// FLAT: "poplar.program_sync"() {kind = "global"} : () -> ()
"poplar.program_sync"() {kind = "global"} : () -> ()
// FLAT: "poplar.program_print_tensor"(%[[A]]) {title = "a"} : (tensor<2x3xf32>) -> ()
"poplar.program_print_tensor"(%a) {title = "a"} : (tensor<2x3xf32>) -> ()
// The optional layout (PrintTensorFmt); absent keys take Poplar's defaults.
// FLAT: "poplar.program_print_tensor"(%[[A]]) {poplar.print_format = {digits = 2 : i64, float_format = "scientific", separator = ", "}, title = "f"} : (tensor<2x3xf32>) -> ()
"poplar.program_print_tensor"(%a) {title = "f", poplar.print_format = {digits = 2 : i64, float_format = "scientific", separator = ", "}} : (tensor<2x3xf32>) -> ()
// The title may be empty.
// FLAT: "poplar.program_print_tensor"(%[[MASK]]) {title = ""} : (tensor<2x3xi1>) -> ()
"poplar.program_print_tensor"(%mask) {title = ""} : (tensor<2x3xi1>) -> ()
// FLAT: %[[SUM:.*]] = "poplar.gcl_all_reduce"(%[[A]]) {group = #poplar.comm_group<"all", 0 : i64>, op = "add"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
%sum = "poplar.gcl_all_reduce"(%a) {op = "add", group = #poplar.comm_group<"all", 0 : i64>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// FLAT: %[[ADD:.*]] = "poplar.popops_add"(%[[A]], %[[ROW]]) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
%add = "poplar.popops_add"(%a, %row) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// FLAT: %[[SUB:.*]] = "poplar.popops_sub"(%[[ROW]], %[[A]]) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
%sub = "poplar.popops_sub"(%row, %a) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// FLAT: %[[MUL:.*]] = "poplar.popops_mul"(%[[ADD]], %[[SUB]]) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
%mul = "poplar.popops_mul"(%add, %sub) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// FLAT: %[[DIV:.*]] = "poplar.popops_div"(%[[MUL]], %[[ROW]]) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
%div = "poplar.popops_div"(%mul, %row) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// FLAT: %[[MAP:.*]] = "poplar.popops_map"(%[[DIV]], %[[ROW]]) {expr = "add(mul(_1, _2), 1.0)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
%map = "poplar.popops_map"(%div, %row) {expr = "add(mul(_1, _2), 1.0)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// FLAT: %[[SEL:.*]] = "poplar.popops_map"(%[[MASK]], %[[A]], %[[ROW]]) {expr = "select(_1, _2, _3)", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
%sel = "poplar.popops_map"(%mask, %a, %row) {expr = "select(_1, _2, _3)", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// FLAT: %[[CLAMP:.*]] = "poplar.popops_map"(%[[ROW]], %[[LO]], %[[A]]) {expr = "clamp(_1, _2, _3)", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<3xf32>, tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
%clamp = "poplar.popops_map"(%row, %lo, %a) {expr = "clamp(_1, _2, _3)", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<3xf32>, tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// A map reads any subset of its operands: this one fills the shape of in1 with 2.5.
// FLAT: %[[FILL:.*]] = "poplar.popops_map"(%[[A]]) {expr = "2.5", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
%fill = "poplar.popops_map"(%a) {expr = "2.5", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// Special functions are map functions too; polygamma's order n is an integer literal.
// FLAT: %[[POLYGAMMA:.*]] = "poplar.popops_map"(%[[A]]) {expr = "polygamma(2, lgamma(_1))", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
%polygamma = "poplar.popops_map"(%a) {expr = "polygamma(2, lgamma(_1))", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// FLAT: %[[ZETA:.*]] = "poplar.popops_map"(%[[A]], %[[ROW]]) {expr = "zeta(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
%zeta = "poplar.popops_map"(%a, %row) {expr = "zeta(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// FLAT: %[[EXPONENT:.*]] = "poplar.popops_map"(%[[A]]) {expr = "frexp_exponent(_1)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xi32>
%exponent = "poplar.popops_map"(%a) {expr = "frexp_exponent(_1)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xi32>
// FLAT: %[[HALF:.*]] = "poplar.popops_cast"(%[[MAP]]) : (tensor<2x3xf32>) -> tensor<2x3xf16>
%half = "poplar.popops_cast"(%map) : (tensor<2x3xf32>) -> tensor<2x3xf16>
// FLAT: %[[MEAN:.*]] = "poplar.popops_reduce"(%[[A]]) {dims = array<i64: 0, 1>, keep_dims = true, op = "add", scale = 0.16666666666666666 : f64} : (tensor<2x3xf32>) -> tensor<1x1xf32>
%mean = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 0, 1>, keep_dims = true, scale = 0.16666666666666666 : f64} : (tensor<2x3xf32>) -> tensor<1x1xf32>
// FLAT: %[[AMAX:.*]] = "poplar.popops_arg_max"(%[[A]]) {dim = 1 : i64, keep_dims = false} : (tensor<2x3xf32>) -> tensor<2xi64>
%amax = "poplar.popops_arg_max"(%a) {dim = 1 : i64, keep_dims = false} : (tensor<2x3xf32>) -> tensor<2xi64>
// FLAT: %[[AMIN:.*]] = "poplar.popops_arg_min"(%[[A]]) {dim = 0 : i64, keep_dims = true} : (tensor<2x3xf32>) -> tensor<1x3xi32>
%amin = "poplar.popops_arg_min"(%a) {dim = 0 : i64, keep_dims = true} : (tensor<2x3xf32>) -> tensor<1x3xi32>
// FLAT: %[[EMB:.*]] = "poplar.popops_multi_slice"(%[[W]], %[[IDS]]) {dim = 1 : i64} : (tensor<3x4xf32>, tensor<2x3xi32>) -> tensor<3x2x3xf32>
%emb = "poplar.popops_multi_slice"(%w, %ids) {dim = 1 : i64} : (tensor<3x4xf32>, tensor<2x3xi32>) -> tensor<3x2x3xf32>
// FLAT: %[[GAT:.*]] = "poplar.popops_gather"(%[[A]], %[[IDS]]) {dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>
%gat = "poplar.popops_gather"(%a, %ids) {dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>
// FLAT: "poplar.popops_scaled_add_to"(%[[A]], %[[GAT]]) {scale = -1.000000e-03 : f64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()
"poplar.popops_scaled_add_to"(%a, %gat) {scale = -1.0e-03 : f64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()
// FLAT: %[[PAD:.*]] = "poplar.popops_pad"(%[[A]]) {high = array<i64: 0, 2>, low = array<i64: 1, 0>, value = -1.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<3x5xf32>
%pad = "poplar.popops_pad"(%a) {low = array<i64: 1, 0>, high = array<i64: 0, 2>, value = -1.0 : f64} : (tensor<2x3xf32>) -> tensor<3x5xf32>
// FLAT: %[[MM:.*]] = "poplar.poplin_matmul"(%[[A]], %[[W]]) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
%mm = "poplar.poplin_matmul"(%a, %w) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// FLAT: %[[A3:.*]] = "poplar.reshape"(%[[A]]) : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
%a3 = "poplar.reshape"(%a) : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
// FLAT: %[[W3:.*]] = "poplar.reshape"(%[[W]]) : (tensor<3x4xf32>) -> tensor<1x3x4xf32>
%w3 = "poplar.reshape"(%w) : (tensor<3x4xf32>) -> tensor<1x3x4xf32>
// FLAT: %[[BMM:.*]] = "poplar.poplin_matmul"(%[[A3]], %[[W3]]) : (tensor<1x2x3xf32>, tensor<1x3x4xf32>) -> tensor<1x2x4xf32>
%bmm = "poplar.poplin_matmul"(%a3, %w3) : (tensor<1x2x3xf32>, tensor<1x3x4xf32>) -> tensor<1x2x4xf32>
// FLAT: %[[LN2:.*]] = "poplar.popnn_norm"(%[[A3]], %[[A]], %[[MAP]]) {epsilon = 1.000000e-05 : f64, kind = "layer", num_dims = 2 : i64, num_groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<1x2x3xf32>
%ln2 = "poplar.popnn_norm"(%a3, %a, %map) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<1x2x3xf32>
// FLAT: %[[CONV:.*]] = "poplar.poplin_conv"(%[[IMG]], %[[K]]) {dilation = array<i64: 2, 2>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x2x2xf32>
%conv = "poplar.poplin_conv"(%img, %k) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 2, 2>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x2x2xf32>
// FLAT: %[[MAXP:.*]] = "poplar.popnn_pool"(%[[IMG]]) {ceil_mode = true, count_include_pad = true, kernel = array<i64: 3, 3>, kind = "max", padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>) -> tensor<1x4x3x3xf32>
%maxp = "poplar.popnn_pool"(%img) {kind = "max", kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true, count_include_pad = true} : (tensor<1x4x5x5xf32>) -> tensor<1x4x3x3xf32>
// FLAT: %[[SUMP:.*]] = "poplar.popnn_pool"(%[[IMG]]) {ceil_mode = false, count_include_pad = false, kernel = array<i64: 2, 1>, kind = "sum", padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>) -> tensor<1x4x4x5xf32>
%sump = "poplar.popnn_pool"(%img) {kind = "sum", kernel = array<i64: 2, 1>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = false} : (tensor<1x4x5x5xf32>) -> tensor<1x4x4x5xf32>
// FLAT: %[[BN:.*]] = "poplar.popnn_norm"(%[[IMG]], %[[GAMMA]], %[[BETA]], %[[MU]], %[[SIGMA2]]) {epsilon = 1.000000e-05 : f64, kind = "batch", num_dims = 1 : i64, num_groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
%bn = "poplar.popnn_norm"(%img, %gamma, %beta, %mu, %sigma2) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
// FLAT: %[[GN:.*]] = "poplar.popnn_norm"(%[[IMG]], %[[GAMMA]], %[[BETA]]) {epsilon = 1.000000e-03 : f64, kind = "group", num_dims = 1 : i64, num_groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
%gn = "poplar.popnn_norm"(%img, %gamma, %beta) {kind = "group", epsilon = 1.0e-03 : f64, num_groups = 2 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
// FLAT: %[[IN:.*]] = "poplar.popnn_norm"(%[[IMG]], %[[GAMMA]], %[[BETA]]) {epsilon = 1.000000e-05 : f64, kind = "instance", num_dims = 1 : i64, num_groups = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
%in = "poplar.popnn_norm"(%img, %gamma, %beta) {kind = "instance", epsilon = 1.0e-05 : f64, num_groups = 4 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
// FLAT: %[[LN:.*]] = "poplar.popnn_norm"(%[[A]], %[[ROW]], %[[ROW]]) {epsilon = 1.000000e-05 : f64, kind = "layer", num_dims = 1 : i64, num_groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
%ln = "poplar.popnn_norm"(%a, %row, %row) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// FLAT: %[[GELU:.*]] = "poplar.popnn_nonlinearity"(%[[A]]) {dim = 0 : i64, kind = "gelu_tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
%gelu = "poplar.popnn_nonlinearity"(%a) {kind = "gelu_tanh", dim = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// FLAT: %[[SM:.*]] = "poplar.popnn_nonlinearity"(%[[A]]) {dim = 1 : i64, kind = "softmax"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
%sm = "poplar.popnn_nonlinearity"(%a) {kind = "softmax", dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// safe_softmax is a softmax kind: it normalises along dim like softmax.
// FLAT: %[[SSM:.*]] = "poplar.popnn_nonlinearity"(%[[A]]) {dim = 1 : i64, kind = "safe_softmax"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
%ssm = "poplar.popnn_nonlinearity"(%a) {kind = "safe_softmax", dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// Training ops. A non-linearity's gradient reads the forward input (relu) or the forward
// output (softmax kinds, along dim).
// FLAT: %[[RELU_G:.*]] = "poplar.popnn_nonlinearity_grad"(%[[GELU]], %[[A]]) {dim = 0 : i64, kind = "relu"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
%relu_g = "poplar.popnn_nonlinearity_grad"(%gelu, %a) {kind = "relu", dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// FLAT: %[[SM_G:.*]] = "poplar.popnn_nonlinearity_grad"(%[[A]], %[[SM]]) {dim = 1 : i64, kind = "softmax"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
%sm_g = "poplar.popnn_nonlinearity_grad"(%a, %sm) {kind = "softmax", dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// FLAT: %[[SSM_G:.*]] = "poplar.popnn_nonlinearity_grad"(%[[A]], %[[SSM]]) {dim = 0 : i64, kind = "safe_softmax"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
%ssm_g = "poplar.popnn_nonlinearity_grad"(%a, %ssm) {kind = "safe_softmax", dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// Batch norm with the batch's statistics: with the running mean and variance (two
// operands and two results in the variadic groups) and without; layer norm over one
// and two trailing dims (mean / invstd keep the leading dims); group norm (mean /
// invstd [N, num_groups]).
// FLAT: %[[BNT:.*]]:5 = "poplar.popnn_norm_training"(%[[IMG]], %[[GAMMA]], %[[BETA]], %[[MU]], %[[SIGMA2]]) {epsilon = 1.000000e-05 : f64, kind = "batch", momentum = 1.000000e-01 : f64, num_dims = 1 : i64, num_groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>, resultSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
%bnt:5 = "poplar.popnn_norm_training"(%img, %gamma, %beta, %mu, %sigma2) {kind = "batch", epsilon = 1.0e-05 : f64, momentum = 0.1 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>, resultSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// FLAT: %[[BNT0:.*]]:3 = "poplar.popnn_norm_training"(%[[IMG]], %[[GAMMA]], %[[BETA]]) {epsilon = 1.000000e-05 : f64, kind = "batch", momentum = 1.000000e+00 : f64, num_dims = 1 : i64, num_groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>)
%bnt0:3 = "poplar.popnn_norm_training"(%img, %gamma, %beta) {kind = "batch", epsilon = 1.0e-05 : f64, momentum = 1.0 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>)
// FLAT: %[[LNT:.*]]:3 = "poplar.popnn_norm_training"(%[[A]], %[[ROW]], %[[ROW]]) {epsilon = 1.000000e-05 : f64, kind = "layer", momentum = 0.000000e+00 : f64, num_dims = 1 : i64, num_groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
%lnt:3 = "poplar.popnn_norm_training"(%a, %row, %row) {kind = "layer", epsilon = 1.0e-05 : f64, momentum = 0.0 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
// FLAT: %[[LNT2:.*]]:3 = "poplar.popnn_norm_training"(%[[A3]], %[[A]], %[[MAP]]) {epsilon = 1.000000e-05 : f64, kind = "layer", momentum = 0.000000e+00 : f64, num_dims = 2 : i64, num_groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<1x2x3xf32>, tensor<1x1x1xf32>, tensor<1x1x1xf32>)
%lnt2:3 = "poplar.popnn_norm_training"(%a3, %a, %map) {kind = "layer", epsilon = 1.0e-05 : f64, momentum = 0.0 : f64, num_groups = 1 : i64, num_dims = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<1x2x3xf32>, tensor<1x1x1xf32>, tensor<1x1x1xf32>)
// FLAT: %[[GNT:.*]]:3 = "poplar.popnn_norm_training"(%[[IMG]], %[[GAMMA]], %[[BETA]]) {epsilon = 1.000000e-03 : f64, kind = "group", momentum = 0.000000e+00 : f64, num_dims = 1 : i64, num_groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x5x5xf32>, tensor<1x2xf32>, tensor<1x2xf32>)
%gnt:3 = "poplar.popnn_norm_training"(%img, %gamma, %beta) {kind = "group", epsilon = 1.0e-03 : f64, momentum = 0.0 : f64, num_groups = 2 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x5x5xf32>, tensor<1x2xf32>, tensor<1x2xf32>)
// Norm gradients from the saved mean and invstd of the ops above.
// FLAT: %[[BN_G:.*]]:3 = "poplar.popnn_norm_grad"(%[[BNT]]#0, %[[IMG]], %[[BNT]]#1, %[[BNT]]#2, %[[GAMMA]]) {epsilon = 1.000000e-05 : f64, kind = "batch", num_dims = 1 : i64, num_groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>)
%bn_g:3 = "poplar.popnn_norm_grad"(%bnt#0, %img, %bnt#1, %bnt#2, %gamma) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>)
// FLAT: %[[LN_G:.*]]:3 = "poplar.popnn_norm_grad"(%[[LNT]]#0, %[[A]], %[[LNT]]#1, %[[LNT]]#2, %[[ROW]]) {epsilon = 1.000000e-05 : f64, kind = "layer", num_dims = 1 : i64, num_groups = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
%ln_g:3 = "poplar.popnn_norm_grad"(%lnt#0, %a, %lnt#1, %lnt#2, %row) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
// FLAT: %[[GN_G:.*]]:3 = "poplar.popnn_norm_grad"(%[[GNT]]#0, %[[IMG]], %[[GNT]]#1, %[[GNT]]#2, %[[GAMMA]]) {epsilon = 1.000000e-03 : f64, kind = "group", num_dims = 1 : i64, num_groups = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<4xf32>) -> (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>)
%gn_g:3 = "poplar.popnn_norm_grad"(%gnt#0, %img, %gnt#1, %gnt#2, %gamma) {kind = "group", epsilon = 1.0e-03 : f64, num_groups = 2 : i64, num_dims = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<4xf32>) -> (tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>)
// Conv gradients of the grouped / strided / dilated conv above: all three, and the
// weight gradient alone (each result group holds zero or one value).
// FLAT: %[[CONV_G:.*]]:3 = "poplar.poplin_conv_grad"(%[[CONV]], %[[IMG]], %[[K]]) {dilation = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 1, 1>, resultSegmentSizes = array<i32: 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x4x2x2xf32>, tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>)
%conv_g:3 = "poplar.poplin_conv_grad"(%conv, %img, %k) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 2, 2>, groups = 2 : i64, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x4x2x2xf32>, tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>)
// FLAT: %[[CONV_GW:.*]] = "poplar.poplin_conv_grad"(%[[CONV]], %[[IMG]], %[[K]]) {dilation = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 1, 1>, resultSegmentSizes = array<i32: 0, 1, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x2x2xf32>, tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<4x2x3x3xf32>
%conv_gw = "poplar.poplin_conv_grad"(%conv, %img, %k) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 2, 2>, groups = 2 : i64, resultSegmentSizes = array<i32: 0, 1, 0>} : (tensor<1x4x2x2xf32>, tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<4x2x3x3xf32>
// Pool input gradients; the grad has the forward output's shape.
// FLAT: %[[MAXP_G:.*]] = "poplar.popnn_pool_grad"(%[[IMG]], %[[MAXP]]) {ceil_mode = true, count_include_pad = true, kernel = array<i64: 3, 3>, kind = "max", padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x5x5xf32>
%maxp_g = "poplar.popnn_pool_grad"(%img, %maxp) {kind = "max", kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true, count_include_pad = true} : (tensor<1x4x5x5xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x5x5xf32>
// FLAT: %[[AVGP_G:.*]] = "poplar.popnn_pool_grad"(%[[IMG]], %[[MAXP]]) {ceil_mode = true, count_include_pad = false, kernel = array<i64: 3, 3>, kind = "avg", padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x5x5xf32>
%avgp_g = "poplar.popnn_pool_grad"(%img, %maxp) {kind = "avg", kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true, count_include_pad = false} : (tensor<1x4x5x5xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x5x5xf32>
// FLAT: %[[SUMP_G:.*]] = "poplar.popnn_pool_grad"(%[[IMG]], %[[SUMP]]) {ceil_mode = false, count_include_pad = false, kernel = array<i64: 2, 1>, kind = "sum", padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x5x5xf32>, tensor<1x4x4x5xf32>) -> tensor<1x4x5x5xf32>
%sump_g = "poplar.popnn_pool_grad"(%img, %sump) {kind = "sum", kernel = array<i64: 2, 1>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = false} : (tensor<1x4x5x5xf32>, tensor<1x4x4x5xf32>) -> tensor<1x4x5x5xf32>
// NLL loss of [N, C] log-probabilities at [N] targets (mean, none) and of [C] at a
// rank-0 target (sum); gradients with the reductions' grad shapes.
// FLAT: %[[LSM:.*]] = "poplar.popnn_nonlinearity"(%[[A]]) {dim = 1 : i64, kind = "log_softmax"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
%lsm = "poplar.popnn_nonlinearity"(%a) {kind = "log_softmax", dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// FLAT: %[[NLL:.*]] = "poplar.popnn_nll_loss"(%[[LSM]], %[[AMAX]]) {ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 0>, reduction = "mean"} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
%nll = "poplar.popnn_nll_loss"(%lsm, %amax) {reduction = "mean", ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
// FLAT: %[[NLL_N:.*]] = "poplar.popnn_nll_loss"(%[[LSM]], %[[AMAX]]) {ignore_index = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>, reduction = "none"} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2xf32>
%nll_n = "poplar.popnn_nll_loss"(%lsm, %amax) {reduction = "none", ignore_index = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2xf32>
// Class weights [3]: the mean divides by the sum of the selected weights.
// FLAT: %[[NLL_W:.*]] = "poplar.popnn_nll_loss"(%[[LSM]], %[[AMAX]], %[[ROW]]) {ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 1>, reduction = "mean"} : (tensor<2x3xf32>, tensor<2xi64>, tensor<3xf32>) -> tensor<f32>
%nll_w = "poplar.popnn_nll_loss"(%lsm, %amax, %row) {reduction = "mean", ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3xf32>, tensor<2xi64>, tensor<3xf32>) -> tensor<f32>
// FLAT: %[[NLL_WG:.*]] = "poplar.popnn_nll_loss_grad"(%[[NLL_W]], %[[LSM]], %[[AMAX]], %[[ROW]]) {ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1>, reduction = "mean"} : (tensor<f32>, tensor<2x3xf32>, tensor<2xi64>, tensor<3xf32>) -> tensor<2x3xf32>
%nll_wg = "poplar.popnn_nll_loss_grad"(%nll_w, %lsm, %amax, %row) {reduction = "mean", ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<f32>, tensor<2x3xf32>, tensor<2xi64>, tensor<3xf32>) -> tensor<2x3xf32>
// FLAT: %[[CLS:.*]] = "poplar.popops_arg_max"(%[[ROW]]) {dim = 0 : i64, keep_dims = false} : (tensor<3xf32>) -> tensor<i64>
%cls = "poplar.popops_arg_max"(%row) {dim = 0 : i64, keep_dims = false} : (tensor<3xf32>) -> tensor<i64>
// FLAT: %[[NLL_C:.*]] = "poplar.popnn_nll_loss"(%[[ROW]], %[[CLS]]) {ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 0>, reduction = "sum"} : (tensor<3xf32>, tensor<i64>) -> tensor<f32>
%nll_c = "poplar.popnn_nll_loss"(%row, %cls) {reduction = "sum", ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<i64>) -> tensor<f32>
// FLAT: %[[NLL_G:.*]] = "poplar.popnn_nll_loss_grad"(%[[LO]], %[[LSM]], %[[AMAX]]) {ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, reduction = "mean"} : (tensor<f32>, tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
%nll_g = "poplar.popnn_nll_loss_grad"(%lo, %lsm, %amax) {reduction = "mean", ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<f32>, tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
// FLAT: %[[NLL_NG:.*]] = "poplar.popnn_nll_loss_grad"(%[[NLL_N]], %[[LSM]], %[[AMAX]]) {ignore_index = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, reduction = "none"} : (tensor<2xf32>, tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
%nll_ng = "poplar.popnn_nll_loss_grad"(%nll_n, %lsm, %amax) {reduction = "none", ignore_index = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2xf32>, tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
// Embedding weight gradients: [2] ids of a [5, 3] table, and [2, 3] ids of a [10] table
// (scalar rows) with row 0 as padding.
// FLAT: %[[EMB_G:.*]] = "poplar.popops_multi_update_add"(%[[A]], %[[AMAX]]) {padding_index = -1 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<5x3xf32>
%emb_g = "poplar.popops_multi_update_add"(%a, %amax) {padding_index = -1 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<5x3xf32>
// FLAT: %[[IDS_G:.*]] = "poplar.popops_multi_update_add"(%[[A]], %[[IDS]]) {padding_index = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<10xf32>
%ids_g = "poplar.popops_multi_update_add"(%a, %ids) {padding_index = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<10xf32>
// Dropout gives the result and its i1 mask; p may be 0.
// FLAT: %[[DROP:.*]]:2 = "poplar.poprand_dropout"(%[[A]]) {p = 1.000000e-01 : f64} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>)
%drop:2 = "poplar.poprand_dropout"(%a) {p = 0.1 : f64} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>)
// FLAT: %[[DROP0:.*]]:2 = "poplar.poprand_dropout"(%[[IMG]]) {p = 0.000000e+00 : f64} : (tensor<1x4x5x5xf32>) -> (tensor<1x4x5x5xf32>, tensor<1x4x5x5xi1>)
%drop0:2 = "poplar.poprand_dropout"(%img) {p = 0.0 : f64} : (tensor<1x4x5x5xf32>) -> (tensor<1x4x5x5xf32>, tensor<1x4x5x5xi1>)
// FLAT: %[[FLAT:.*]] = "poplar.reshape"(%[[A]]) : (tensor<2x3xf32>) -> tensor<6xf32>
%flat = "poplar.reshape"(%a) : (tensor<2x3xf32>) -> tensor<6xf32>
// FLAT: %[[T:.*]] = "poplar.dim_shuffle"(%[[A]]) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
%t = "poplar.dim_shuffle"(%a) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// FLAT: %[[ODD:.*]] = "poplar.slice"(%[[FLAT]]) {begin = array<i64: 1>, end = array<i64: 6>, stride = array<i64: 2>} : (tensor<6xf32>) -> tensor<3xf32>
%odd = "poplar.slice"(%flat) {begin = array<i64: 1>, end = array<i64: 6>, stride = array<i64: 2>} : (tensor<6xf32>) -> tensor<3xf32>
// FLAT: %[[TOP:.*]] = "poplar.slice"(%[[A]]) {begin = array<i64: 0, 0>, end = array<i64: 1, 3>, stride = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<1x3xf32>
%top = "poplar.slice"(%a) {begin = array<i64: 0, 0>, end = array<i64: 1, 3>, stride = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<1x3xf32>
// FLAT: %[[CAT:.*]] = "poplar.concat"(%[[A]], %[[TOP]]) {dim = 0 : i64} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
%cat = "poplar.concat"(%a, %top) {dim = 0 : i64} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
// FLAT: %[[CAT2:.*]] = "poplar.concat"(%[[A]], %[[SEL]]) {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
%cat2 = "poplar.concat"(%a, %sel) {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
// FLAT: %[[CAT3:.*]] = "poplar.concat"(%[[CAT2]], %[[CLAMP]]) {dim = 1 : i64} : (tensor<2x6xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
%cat3 = "poplar.concat"(%cat2, %clamp) {dim = 1 : i64} : (tensor<2x6xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
// FLAT: %[[BC:.*]] = "poplar.broadcast"(%[[ROW]]) : (tensor<3xf32>) -> tensor<4x2x3xf32>
%bc = "poplar.broadcast"(%row) : (tensor<3xf32>) -> tensor<4x2x3xf32>
// The ops the poplar-* execution passes form. A linear layer x · wᵀ + b of the [2, 4]
// matmul result with the [3, 4] weights (out x in) and a [3] bias.
// FLAT: %[[LIN:.*]] = "poplar.poplin_linear"(%[[MM]], %[[W]], %[[ROW]]) : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
%lin = "poplar.poplin_linear"(%mm, %w, %row) : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// An SGD step written into %a in place: the other operands broadcast to %a's shape.
// FLAT: "poplar.popops_map_in_place"(%[[A]], %[[ROW]], %[[LO]]) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3xf32>, tensor<3xf32>, tensor<f32>) -> ()
"poplar.popops_map_in_place"(%a, %row, %lo) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x3xf32>, tensor<3xf32>, tensor<f32>) -> ()
// FLAT: "poplar.popops_map_in_place"(%[[A]]) {expr = "neg(_1)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3xf32>) -> ()
"poplar.popops_map_in_place"(%a) {expr = "neg(_1)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3xf32>) -> ()
// The max pool above, keeping its argmax for the gradient (i64 or i32 indices).
// FLAT: %[[MAXPI:.*]]:2 = "poplar.popnn_max_pool_with_indices"(%[[IMG]]) {ceil_mode = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x4x3x3xi64>)
%maxpi:2 = "poplar.popnn_max_pool_with_indices"(%img) {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x4x5x5xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x4x3x3xi64>)
// FLAT: %[[MAXPI_G:.*]] = "poplar.popnn_max_pool_grad_with_indices"(%[[IMG]], %[[MAXPI]]#0, %[[MAXPI]]#1) {ceil_mode = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xi64>) -> tensor<1x4x5x5xf32>
%maxpi_g = "poplar.popnn_max_pool_grad_with_indices"(%img, %maxpi#0, %maxpi#1) {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x4x5x5xf32>, tensor<1x4x3x3xf32>, tensor<1x4x3x3xi64>) -> tensor<1x4x5x5xf32>
// FLAT: %[[MAXPI32:.*]]:2 = "poplar.popnn_max_pool_with_indices"(%[[A3]]) {ceil_mode = false, kernel = array<i64: 2>, padding = array<i64: 0>, stride = array<i64: 1>} : (tensor<1x2x3xf32>) -> (tensor<1x2x2xf32>, tensor<1x2x2xi32>)
%maxpi32:2 = "poplar.popnn_max_pool_with_indices"(%a3) {kernel = array<i64: 2>, stride = array<i64: 1>, padding = array<i64: 0>, ceil_mode = false} : (tensor<1x2x3xf32>) -> (tensor<1x2x2xf32>, tensor<1x2x2xi32>)
// A constant whose value lives in a resource blob, as importers write large literals.
// FLAT: %[[BLOB:.*]] = "poplar.constant"() {ipu = 0 : i64, value = dense_resource<weights> : tensor<2xf32>} : () -> tensor<2xf32>
%blob = "poplar.constant"() {value = dense_resource<weights> : tensor<2xf32>, ipu = 0 : i64} : () -> tensor<2xf32>
// FLAT: weights: "0x040000000000803F00000040"
{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F00000040"
    }
  }
#-}

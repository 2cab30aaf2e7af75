// RUN: ipu-opt %s -p poplar-fuse-elementwise --split-input-file | FileCheck %s

// GPT-2's gelu_new as the lowering writes it, 0.5 * x * (1 + tanh(sqrt(2/pi) * (x +
// 0.044715 * x^3))), in training: 0.5 * x (%h), tanh (%t) and 1 + tanh (%p) are read
// again by the gradient, so they stay; the chain x^3 -> * 0.044715 -> + x -> * sqrt(2/pi)
// -> tanh becomes one map, which replaces tanh and keeps its attributes. x + m, where m
// is a product, is written m + x (add(_1, mul(..)) is torch's scaled add to the IPU
// Model, one rounding; the two ops round twice, and so does the fused map).
// CHECK-LABEL: "poplar.function"
// CHECK: %[[H:.*]] = "poplar.popops_map"(%[[X:.*]]) {expr = "mul(_1, 0.5)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64}
// CHECK-NEXT: %[[T:.*]] = "poplar.popops_map"(%[[X]]) {expr = "tanh(mul(add(mul(pow(_1, 3.0), 0.044715), _1), 0.7978845608028654))", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %[[P:.*]] = "poplar.popops_map"(%[[T]]) {expr = "add(_1, 1.0)"
// CHECK-NEXT: %[[Y:.*]] = "poplar.popops_mul"(%[[H]], %[[P]])
// CHECK-NOT: "poplar.popnn_nonlinearity"
// CHECK-NOT: "pow(_1, 3.0)"
// CHECK: "poplar.program_copy"(%[[Y]], %{{.*}})
// CHECK: "poplar.program_copy"(%[[T]], %{{.*}})
// CHECK: "poplar.program_copy"(%[[P]], %{{.*}})
// CHECK: "poplar.program_copy"(%[[H]], %{{.*}})
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<2x8xf32>
  %o1 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<2x8xf32>
  %o2 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.1", tiles = array<i64>} : () -> tensor<2x8xf32>
  %o3 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.2", tiles = array<i64>} : () -> tensor<2x8xf32>
  %o4 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.3", tiles = array<i64>} : () -> tensor<2x8xf32>
  "poplar.function"() ({
    %h = "poplar.popops_map"(%x) {expr = "mul(_1, 0.5)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %c = "poplar.popops_map"(%x) {expr = "pow(_1, 3.0)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %k = "poplar.popops_map"(%c) {expr = "mul(_1, 0.044715)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %s = "poplar.popops_add"(%x, %k) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    %i = "poplar.popops_map"(%s) {expr = "mul(_1, 0.7978845608028654)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %t = "poplar.popnn_nonlinearity"(%i) {dim = 0 : i64, kind = "tanh", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %p = "poplar.popops_map"(%t) {expr = "add(_1, 1.0)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %y = "poplar.popops_mul"(%h, %p) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    "poplar.program_copy"(%y, %o1) {pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> ()
    "poplar.program_copy"(%t, %o2) {pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> ()
    "poplar.program_copy"(%p, %o3) {pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> ()
    "poplar.program_copy"(%h, %o4) {pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// Operands: a fused map has at most three. The gelu_new gradient's last sum reads
// %a's chain (operands %d, %x) and %b's (%g, %q): the first producer fills the three
// slots (%b, %d, %x), so %b stays a map of its own, with its own product of %g and %q
// fused in. A relu gradient and a bias-sized broadcast operand (%bias, 8 elements
// against 2x8) fuse too: the operands may broadcast, each as it did. d - m, m a
// product, is (-m) + d: two roundings, as the two ops.
// CHECK-LABEL: "poplar.function"
// CHECK: %[[B:.*]] = "poplar.popops_map"(%[[G:.*]], %[[Q:.*]]) {expr = "mul(mul(_1, _2), 0.5)", operandSegmentSizes = array<i32: 1, 1, 0>
// CHECK-NEXT: %[[R:.*]] = "poplar.popops_map"(%[[B]], %[[D:.*]], %[[X:.*]]) {expr = "add(add(mul(mul(_2, 0.044715), mul(pow(_3, 2.0), 3.0)), _2), _1)", operandSegmentSizes = array<i32: 1, 1, 1>
// CHECK-NEXT: %[[Z:.*]] = "poplar.popops_map"(%[[X]], %[[G]], %[[BIAS:.*]]) {expr = "select(le(_1, 0.0), 0.0, add(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: "poplar.popops_map"(%[[D]], %[[X]]) {expr = "add(neg(mul(_2, 0.25)), _1)"
// CHECK-NOT: "poplar.popops_mul"
// CHECK-NOT: "poplar.popops_add"
// CHECK-NOT: "poplar.popops_sub"
// CHECK-NOT: "poplar.popnn_nonlinearity_grad"
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<2x8xf32>
  %d = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.d", tiles = array<i64>} : () -> tensor<2x8xf32>
  %g = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.g", tiles = array<i64>} : () -> tensor<2x8xf32>
  %q = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.q", tiles = array<i64>} : () -> tensor<2x8xf32>
  %bias = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "bias", tiles = array<i64>} : () -> tensor<8xf32>
  %o1 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<2x8xf32>
  %o2 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.1", tiles = array<i64>} : () -> tensor<2x8xf32>
  "poplar.function"() ({
    %e = "poplar.popops_map"(%d) {expr = "mul(_1, 0.044715)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %s = "poplar.popops_map"(%x) {expr = "pow(_1, 2.0)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %s3 = "poplar.popops_map"(%s) {expr = "mul(_1, 3.0)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %m = "poplar.popops_mul"(%e, %s3) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    %a = "poplar.popops_add"(%d, %m) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    %gq = "poplar.popops_mul"(%g, %q) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    %b = "poplar.popops_map"(%gq) {expr = "mul(_1, 0.5)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %r = "poplar.popops_add"(%a, %b) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    %gb = "poplar.popops_add"(%g, %bias) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
    %z = "poplar.popnn_nonlinearity_grad"(%gb, %x) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    %n1 = "poplar.popops_map"(%x) {expr = "mul(_1, 0.25)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %n2 = "poplar.popops_sub"(%d, %n1) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    "poplar.program_copy"(%n2, %o2) {pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> ()
    "poplar.program_copy"(%r, %o1) {pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> ()
    "poplar.program_copy"(%z, %o2) {pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// What stays apart, one producer -> consumer pair each: a producer read twice (%a1:
// its other reader %a2 fuses into %a3 all the same); a producer on another pipeline
// stage and IPU (%b1: stage 1, IPU 1) or phase (%p1); a cast between (%c2: the
// expression language has no cast); a copy into the producer's operand between
// producer and consumer (%w1: fused, the consumer would read the new value); a producer
// smaller than the consumer's result (%s1, broadcast); an integer chain (%i1); a tanh
// gradient (ATen's kernel is a fused multiply-add, which no map expression computes
// bit for bit); an in-place update (%v).
// CHECK-LABEL: "poplar.function"
// CHECK: %[[A1:.*]] = "poplar.popops_map"(%{{.*}}) {expr = "mul(_1, 2.0)"
// CHECK-NEXT: "poplar.popops_map"(%[[A1]]) {expr = "add(mul(_1, 2.0), _1)"
// CHECK-NEXT: "poplar.popops_map"(%{{.*}}) {expr = "mul(_1, 3.0)"
// CHECK-NEXT: "poplar.popops_map"(%{{.*}}) {expr = "add(_1, 1.0)"
// CHECK-NEXT: "poplar.popops_map"(%{{.*}}) {expr = "mul(_1, 4.0)"
// CHECK-NEXT: "poplar.popops_map"(%{{.*}}) {expr = "add(_1, 1.0)"
// CHECK-NEXT: "poplar.popops_map"(%{{.*}}) {expr = "neg(_1)"
// CHECK-NEXT: "poplar.popops_cast"
// CHECK-NEXT: "poplar.popops_map"(%{{.*}}) {expr = "exp(_1)"
// CHECK-NEXT: "poplar.popops_map"(%{{.*}}) {expr = "mul(_1, 5.0)"
// CHECK-NEXT: "poplar.program_copy"
// CHECK-NEXT: "poplar.popops_map"(%{{.*}}) {expr = "add(_1, 1.0)"
// CHECK-NEXT: "poplar.popops_map"(%{{.*}}) {expr = "mul(_1, 6.0)"
// CHECK-NEXT: "poplar.popops_map"(%{{.*}}, %{{.*}}) {expr = "add(_1, _2)"
// CHECK-NEXT: "poplar.popops_map"(%{{.*}}) {expr = "mul(_1, 7)"
// CHECK-NEXT: "poplar.popops_map"(%{{.*}}) {expr = "add(_1, 1)"
// CHECK-NEXT: "poplar.popops_map"(%{{.*}}) {expr = "mul(_1, 8.0)"
// CHECK-NEXT: "poplar.popnn_nonlinearity_grad"
// CHECK-NEXT: "poplar.popops_map"(%{{.*}}, %{{.*}}) {expr = "mul(_1, _2)"
// CHECK-NEXT: "poplar.popops_map_in_place"
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<2x8xf32>
  %y = "poplar.variable"() {ipu = 1 : i64, kind = "input", name = "input.y", tiles = array<i64>} : () -> tensor<2x8xf32>
  %row = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.row", tiles = array<i64>} : () -> tensor<8xf32>
  %n = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.n", tiles = array<i64>} : () -> tensor<2x8xi32>
  %st = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "state", tiles = array<i64>} : () -> tensor<2x8xf32>
  %v = "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "velocity", tiles = array<i64>} : () -> tensor<2x8xf32>
  %m = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "momentum", tiles = array<i64>} : () -> tensor<f32>
  %o = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<2x8xf32>
  %oi = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.1", tiles = array<i64>} : () -> tensor<2x8xi32>
  "poplar.function"() ({
    %a1 = "poplar.popops_map"(%x) {expr = "mul(_1, 2.0)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %a2 = "poplar.popops_map"(%a1) {expr = "mul(_1, 2.0)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %a3 = "poplar.popops_add"(%a1, %a2) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    %b1 = "poplar.popops_map"(%y) {expr = "mul(_1, 3.0)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %b2 = "poplar.popops_map"(%b1) {expr = "add(_1, 1.0)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %p1 = "poplar.popops_map"(%x) {expr = "mul(_1, 4.0)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.phase = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %p2 = "poplar.popops_map"(%p1) {expr = "add(_1, 1.0)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.phase = 1 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %c1 = "poplar.popops_map"(%x) {expr = "neg(_1)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %c2 = "poplar.popops_cast"(%c1) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf16>
    %c3 = "poplar.popops_map"(%c2) {expr = "exp(_1)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf16>) -> tensor<2x8xf16>
    %w1 = "poplar.popops_map"(%st) {expr = "mul(_1, 5.0)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    "poplar.program_copy"(%x, %st) {pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> ()
    %w2 = "poplar.popops_map"(%w1) {expr = "add(_1, 1.0)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %s1 = "poplar.popops_map"(%row) {expr = "mul(_1, 6.0)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<8xf32>) -> tensor<8xf32>
    %s2 = "poplar.popops_map"(%x, %s1) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
    %i1 = "poplar.popops_map"(%n) {expr = "mul(_1, 7)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xi32>) -> tensor<2x8xi32>
    %i2 = "poplar.popops_map"(%i1) {expr = "add(_1, 1)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xi32>) -> tensor<2x8xi32>
    %t1 = "poplar.popops_map"(%x) {expr = "mul(_1, 8.0)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %t2 = "poplar.popnn_nonlinearity_grad"(%t1, %x) {dim = 0 : i64, kind = "tanh", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
    %u1 = "poplar.popops_map"(%x, %m) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    "poplar.popops_map_in_place"(%v, %m, %u1) {expr = "add(mul(_1, _2), _3)", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<f32>, tensor<2x8xf32>) -> ()
    "poplar.program_copy"(%a3, %o) {pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> ()
    "poplar.program_copy"(%b2, %o) {pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> ()
    "poplar.program_copy"(%p2, %o) {pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> ()
    "poplar.program_copy"(%w2, %o) {pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> ()
    "poplar.program_copy"(%s2, %o) {pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> ()
    "poplar.program_copy"(%t2, %o) {pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> ()
    "poplar.program_copy"(%i2, %oi) {pipeline.stage = 0 : i64} : (tensor<2x8xi32>, tensor<2x8xi32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

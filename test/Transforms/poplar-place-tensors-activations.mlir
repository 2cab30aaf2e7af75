// RUN: ipu-opt %s -p 'poplar-place-tensors{io-tiles=32},poplar-plan-memory{io-tiles=32}' --split-input-file | FileCheck %s

// Off-chip activations (#poplar.tensor_locations: activation on_chip 0, minElementsForOffChip
// 2; the other classes on chip). The backward pass starts at the first op whose location says
// bwd = true. Each forward value read from there on moves through streaming memory, stored
// after its last forward use and loaded just before its first later reader, whose later uses
// all read the one load:
// - a is read by the forward add b and by two backward ops: stored after b, loaded once;
// - b is read by the forward add c and the backward mul: stored after c;
// - n, a view (reshape) of the forward value c, is read by the backward matmul: stored after
//   its producer; c itself is read only in the forward pass;
// - t, a view of the weight w, and k (one element, below minElementsForOffChip) stay on chip,
//   as does the input x (a variable).
//
// Memory: variables w + x + g = 3072 bytes; streaming a, b, n = 3072. On chip a, b, c live
// together in the forward pass (3072) and die there; in the backward pass the loads of a and b
// with k and g1 (3076), then n's load with k, g1b and g2 (3076): the peak is 3076 bytes, where
// with every activation on chip a, b, c, k and g1 are live together (4100).

// CHECK-LABEL: "poplar.graph"
// CHECK-DAG: "poplar.remote_buffer"() {name = "activation.0", pipeline.ipu = 0 : i64, repeats = 1 : i64, type = tensor<256xf32>}
// CHECK-DAG: "poplar.remote_buffer"() {name = "activation.1", pipeline.ipu = 0 : i64, repeats = 1 : i64, type = tensor<256xf32>}
// CHECK-DAG: "poplar.remote_buffer"() {name = "activation.2", pipeline.ipu = 0 : i64, repeats = 1 : i64, type = tensor<16x16xf32>}
// CHECK-NOT: "poplar.remote_buffer"
// CHECK: "poplar.function"
// CHECK: %[[T:.*]] = "poplar.dim_shuffle"(%{{.*}})
// CHECK-NEXT: %[[A:.*]] = "poplar.popops_mul"
// CHECK-NEXT: %[[B:.*]] = "poplar.popops_add"(%[[A]], %{{.*}})
// CHECK-NEXT: "pipeline.remote_store"(%[[A]]) {buffer = "activation.0", ipu_id = 0 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64}
// CHECK-NEXT: %[[C:.*]] = "poplar.popops_add"(%[[B]], %{{.*}})
// CHECK-NEXT: "pipeline.remote_store"(%[[B]]) {buffer = "activation.1", ipu_id = 0 : i64
// CHECK-NEXT: %[[N:.*]] = "poplar.reshape"(%[[C]])
// CHECK-NEXT: "pipeline.remote_store"(%[[N]]) {buffer = "activation.2", ipu_id = 0 : i64
// CHECK-NEXT: %[[K:.*]] = "poplar.popops_reduce"(%[[C]])
// CHECK-NEXT: %[[LA:.*]] = "pipeline.remote_load"() {buffer = "activation.0", ipu_id = 0 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : () -> tensor<256xf32>
// CHECK-NEXT: %[[LB:.*]] = "pipeline.remote_load"() {buffer = "activation.1", ipu_id = 0 : i64, {{.*}}} : () -> tensor<256xf32>
// CHECK-NEXT: %[[G1:.*]] = "poplar.popops_mul"(%[[LA]], %[[LB]])
// CHECK-NEXT: %[[G1B:.*]] = "poplar.popops_add"(%[[G1]], %[[LA]])
// CHECK-NEXT: %[[LN:.*]] = "pipeline.remote_load"() {buffer = "activation.2", ipu_id = 0 : i64, {{.*}}} : () -> tensor<16x16xf32>
// CHECK-NEXT: "poplar.poplin_matmul"(%[[LN]], %[[T]])
// CHECK-NEXT: "poplar.popops_map"(%[[G1B]], %[[K]])
// CHECK: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 3072 : i64, 3076 : i64, 0 : i64, 6148 : i64>]>
// CHECK-SAME: poplar.streaming_memory = #poplar.streaming_memory<[#poplar.ipu_streaming<0 : i64, 3072 : i64>]>

#fwd = loc(fused<{seq_nr = 1 : i64}>["m"])
#bwd = loc(fused<{bwd = true, seq_nr = 1 : i64}>["m"])
module attributes {poplar.tensor_locations = #poplar.tensor_locations<#poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<0 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>>} {
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64: 0, 8>} : () -> tensor<16x16xf32>
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 8, 8>} : () -> tensor<256xf32>
  %g = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "w/accum", tiles = array<i64: 16, 8>} : () -> tensor<256xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<256xf32>} : () -> ()
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {pipeline.stage = 0 : i64, stream = "host.input.x"} : (tensor<256xf32>) -> ()
    %t = "poplar.dim_shuffle"(%w) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<16x16xf32>) -> tensor<16x16xf32> loc(#fwd)
    %a = "poplar.popops_mul"(%x, %x) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32> loc(#fwd)
    %b = "poplar.popops_add"(%a, %x) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32> loc(#fwd)
    %c = "poplar.popops_add"(%b, %x) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32> loc(#fwd)
    %n = "poplar.reshape"(%c) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<256xf32>) -> tensor<16x16xf32> loc(#fwd)
    %k = "poplar.popops_reduce"(%c) {dims = array<i64: 0>, keep_dims = false, op = "add", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, scale = 1.0 : f64} : (tensor<256xf32>) -> tensor<f32> loc(#fwd)
    %g1 = "poplar.popops_mul"(%a, %b) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32> loc(#bwd)
    %g1b = "poplar.popops_add"(%g1, %a) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32> loc(#bwd)
    %g2 = "poplar.poplin_matmul"(%n, %t) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> loc(#bwd)
    %g3 = "poplar.popops_map"(%g1b, %k) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<256xf32>, tensor<f32>) -> tensor<256xf32> loc(#bwd)
    "poplar.popops_scaled_add_to"(%g, %g3) {pipeline.stage = 0 : i64, scale = 1.000000e+00 : f64} : (tensor<256xf32>, tensor<256xf32>) -> ()
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 1 : i64, 1 : i64, 1 : i64, array<i64: 0>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}

// -----

// minElementsForOffChip 300: no activation of this step has that many elements; nothing moves.
// CHECK-LABEL: "poplar.graph"
// CHECK-NOT: remote
// CHECK: poplar.memory

#fwd1 = loc(fused<{seq_nr = 1 : i64}>["m"])
#bwd1 = loc(fused<{bwd = true, seq_nr = 1 : i64}>["m"])
module attributes {poplar.tensor_locations = #poplar.tensor_locations<#poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<0 : i64, 300 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>>} {
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 8, 8>} : () -> tensor<256xf32>
  %g = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "w/accum", tiles = array<i64: 16, 8>} : () -> tensor<256xf32>
  "poplar.function"() ({
    %a = "poplar.popops_mul"(%x, %x) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32> loc(#fwd1)
    %g1 = "poplar.popops_mul"(%a, %a) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32> loc(#bwd1)
    "poplar.popops_scaled_add_to"(%g, %g1) {pipeline.stage = 0 : i64, scale = 1.000000e+00 : f64} : (tensor<256xf32>, tensor<256xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}

// -----

// useIOTilesToLoad / useIOTilesToStore on the activations: each load and store carries
// poplar.io_tiles (with io-tiles allocated; the invalid cases are in -invalid.mlir).
// CHECK-LABEL: "poplar.graph"
// CHECK: "pipeline.remote_store"(%{{.*}}) {buffer = "activation.0", ipu_id = 0 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.io_tiles}
// CHECK: "pipeline.remote_load"() {buffer = "activation.0", ipu_id = 0 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.io_tiles}

#fwd2 = loc(fused<{seq_nr = 1 : i64}>["m"])
#bwd2 = loc(fused<{bwd = true, seq_nr = 1 : i64}>["m"])
module attributes {poplar.tensor_locations = #poplar.tensor_locations<#poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<0 : i64, 2 : i64, 0 : i64, 8192 : i64, 1 : i64, 1 : i64>>} {
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 8, 8>} : () -> tensor<256xf32>
  %g = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "w/accum", tiles = array<i64: 16, 8>} : () -> tensor<256xf32>
  "poplar.function"() ({
    %a = "poplar.popops_mul"(%x, %x) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32> loc(#fwd2)
    %g1 = "poplar.popops_mul"(%a, %a) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32> loc(#bwd2)
    "poplar.popops_scaled_add_to"(%g, %g1) {pipeline.stage = 0 : i64, scale = 1.000000e+00 : f64} : (tensor<256xf32>, tensor<256xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}

// RUN: ipu-opt %s -p 'poplar-place-tensors,poplar-plan-memory' --split-input-file | FileCheck %s

// Off-chip weights and optimizer state (#poplar.tensor_locations: weight and optimizer
// on_chip 0, minElementsForOffChip 2), accumulators on chip. The weight w is read by the
// forward mul, then, 9 ops later (more than the pass's gap of 8), by the backward mul: two
// loads, no store (the step only reads it). The update function writes w and its momentum:
// each is loaded before its first use there and stored after its last. The step count
// (1 element, below minElementsForOffChip) and the accumulator stay on chip.
//
// Memory: on chip the input 1024 + accumulator 1024 + step 4 = 2052 bytes of variables;
// streaming: w 1024 + momentum 1024 = 2048. Step temporaries: w loaded (1024) and a0 (1024),
// then w is off chip again while the adds run (two results of 1024 live), then w reloaded
// with a9 and d: the peak is 3072; total 5124 (on chip, every variable takes 4100 + 2048 = 6148).

// CHECK-LABEL: "poplar.graph"
// CHECK: %[[W:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", poplar.remote_buffer = "remote.w"
// CHECK-NEXT: "poplar.remote_buffer"() {name = "remote.w", pipeline.ipu = 0 : i64, repeats = 1 : i64, type = tensor<256xf32>}
// CHECK: %[[M:.*]] = "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "w/momentum", poplar.remote_buffer = "remote.w/momentum"
// CHECK-NEXT: "poplar.remote_buffer"() {name = "remote.w/momentum"
// CHECK: "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "w/step", tiles
// CHECK: "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "w/grad", tiles
// CHECK: "poplar.program_stream_copy"
// CHECK-NEXT: "poplar.program_remote_load"(%[[W]]) {buffer = "remote.w"}
// CHECK-NEXT: "poplar.popops_mul"(%{{.*}}, %[[W]])
// CHECK-NOT: "poplar.program_remote_store"(%[[W]])
// CHECK: "poplar.popops_add"
// CHECK: "poplar.program_remote_load"(%[[W]]) {buffer = "remote.w"}
// CHECK-NEXT: "poplar.popops_mul"(%{{.*}}, %[[W]])
// CHECK-NEXT: "poplar.popops_scaled_add_to"
// CHECK-NEXT: }) {name = "step"}
// CHECK: "poplar.program_remote_load"(%[[M]]) {buffer = "remote.w/momentum"}
// CHECK-NEXT: %[[N:.*]] = "poplar.popops_add"(%[[M]]
// CHECK-NEXT: "poplar.program_copy"(%[[N]], %[[M]])
// CHECK-NEXT: "poplar.program_remote_store"(%[[M]]) {buffer = "remote.w/momentum"}
// CHECK-NEXT: "poplar.program_remote_load"(%[[W]]) {buffer = "remote.w"}
// CHECK-NEXT: "poplar.popops_scaled_add_to"(%[[W]], %[[N]])
// CHECK-NEXT: "poplar.program_remote_store"(%[[W]]) {buffer = "remote.w"}
// CHECK: }) {name = "update"}
// CHECK: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 2052 : i64, 3072 : i64, 0 : i64, 5124 : i64>]>
// CHECK-SAME: poplar.streaming_memory = #poplar.streaming_memory<[#poplar.ipu_streaming<0 : i64, 2048 : i64>]>

module attributes {poplar.tensor_locations = #poplar.tensor_locations<#poplar.tensor_location<0 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<0 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>>} {
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64: 0, 8>} : () -> tensor<256xf32>
  %m = "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "w/momentum", tiles = array<i64: 8, 8>} : () -> tensor<256xf32>
  %s = "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "w/step", tiles = array<i64: 16, 1>} : () -> tensor<f32>
  %g = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "w/grad", tiles = array<i64: 17, 8>} : () -> tensor<256xf32>
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 25, 8>} : () -> tensor<256xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<256xf32>} : () -> ()
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<256xf32>) -> ()
    %a0 = "poplar.popops_mul"(%x, %w) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %a1 = "poplar.popops_add"(%a0, %x) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %a2 = "poplar.popops_add"(%a1, %x) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %a3 = "poplar.popops_add"(%a2, %x) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %a4 = "poplar.popops_add"(%a3, %x) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %a5 = "poplar.popops_add"(%a4, %x) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %a6 = "poplar.popops_add"(%a5, %x) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %a7 = "poplar.popops_add"(%a6, %x) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %a8 = "poplar.popops_add"(%a7, %x) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %a9 = "poplar.popops_add"(%a8, %x) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %d = "poplar.popops_mul"(%a9, %w) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    "poplar.popops_scaled_add_to"(%g, %d) {scale = 1.000000e+00 : f64} : (tensor<256xf32>, tensor<256xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.function"() ({
    %n = "poplar.popops_add"(%m, %g) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    "poplar.program_copy"(%n, %m) : (tensor<256xf32>, tensor<256xf32>) -> ()
    "poplar.popops_scaled_add_to"(%w, %n) {scale = -1.000000e-01 : f64} : (tensor<256xf32>, tensor<256xf32>) -> ()
    %t = "poplar.popops_map"(%s) {expr = "add(_1, 1.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<f32>) -> tensor<f32>
    "poplar.program_copy"(%t, %s) : (tensor<f32>, tensor<f32>) -> ()
  }) {name = "update"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {count = 2 : i64} : () -> ()
    "poplar.program_call"() {callee = "update"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}

// -----

// Without #poplar.tensor_locations every variable stays on chip: nothing is rewritten.
// CHECK-LABEL: "poplar.graph"
// CHECK-NOT: remote
// CHECK: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 2048 : i64, 1024 : i64, 0 : i64, 3072 : i64>]>
// CHECK-NOT: poplar.streaming_memory
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64: 0, 8>} : () -> tensor<256xf32>
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 8, 8>} : () -> tensor<256xf32>
  "poplar.function"() ({
    %a = "poplar.popops_mul"(%x, %w) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    "poplar.program_copy"(%a, %w) : (tensor<256xf32>, tensor<256xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()


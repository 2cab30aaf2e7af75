// Streaming memory ops and attributes (dialects/poplar/streaming.py) round trip.
// RUN: ipu-opt %s --split-input-file | FileCheck %s
// RUN: ipu-opt %s --split-input-file | ipu-opt --split-input-file | FileCheck %s

// CHECK-LABEL: "poplar.graph"
// CHECK: "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "w/m", poplar.remote_buffer = "remote.w/m", tiles = array<i64>}
// CHECK: "poplar.remote_buffer"() {name = "remote.w/m", repeats = 1 : i64, type = tensor<4xf32>}
// CHECK: "poplar.program_remote_load"(%{{.*}}) {buffer = "remote.w/m", poplar.io_tiles} : (tensor<4xf32>) -> ()
// CHECK: "poplar.program_remote_store"(%{{.*}}) {buffer = "remote.w/m"} : (tensor<4xf32>) -> ()
// CHECK: poplar.streaming_memory = #poplar.streaming_memory<[#poplar.ipu_streaming<0 : i64, 16 : i64>]>
"poplar.graph"() ({
  %m = "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "w/m", poplar.remote_buffer = "remote.w/m", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.remote_buffer"() {name = "remote.w/m", type = tensor<4xf32>, repeats = 1 : i64} : () -> ()
  "poplar.function"() ({
    "poplar.program_remote_load"(%m) {buffer = "remote.w/m", poplar.io_tiles} : (tensor<4xf32>) -> ()
    "poplar.program_remote_store"(%m) {buffer = "remote.w/m"} : (tensor<4xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64, poplar.streaming_memory = #poplar.streaming_memory<[#poplar.ipu_streaming<0 : i64, 16 : i64>]>} : () -> ()

// -----

// CHECK-LABEL: "builtin.module"
// CHECK: poplar.tensor_locations = #poplar.tensor_locations<#poplar.tensor_location<0 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 1 : i64, 100 : i64, 1 : i64, 1 : i64>>
module attributes {poplar.tensor_locations = #poplar.tensor_locations<#poplar.tensor_location<0 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>, #poplar.tensor_location<-1 : i64, 2 : i64, 1 : i64, 100 : i64, 1 : i64, 1 : i64>>} {
}

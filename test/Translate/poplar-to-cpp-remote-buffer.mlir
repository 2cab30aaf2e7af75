// A poplar.remote_buffer is declared with graph.addRemoteBuffer (its element count per
// repeat and its repeats); program_remote_load / _store are poplar::program::Copy from / to
// it; test_roundtrip.py builds and runs this graph against poplar-host.
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK: // remote buffer 'fc.weight': 2 x [4, 3] in streaming memory
// CHECK-NEXT: poplar::RemoteBuffer r_fc_weight_0 = graph.addRemoteBuffer("fc.weight", poplar::FLOAT, 12, 2);
// CHECK: // program 'main'
// CHECK: // program_remote_load ({{.*}})
// CHECK-NEXT: p_main_0.add(poplar::program::Copy(r_remote_w_0, v_w_0));
// CHECK: // program_remote_store ({{.*}})
// CHECK-NEXT: p_main_0.add(poplar::program::Copy(v_w_0, r_remote_w_0));

"builtin.module"() ({
  "poplar.graph"() ({
    "poplar.remote_buffer"() {name = "fc.weight", type = tensor<4x3xf32>, repeats = 2 : i64} : () -> ()
    "poplar.remote_buffer"() {name = "remote.w", type = tensor<4x3xf32>, repeats = 1 : i64} : () -> ()
    %w = "poplar.variable"() {name = "w", kind = "weight", ipu = 0 : i64, tiles = array<i64: 1, 1>, poplar.remote_buffer = "remote.w"} : () -> tensor<4x3xf32>
    %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<4x3xf32>
    "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<4x3xf32>} : () -> ()
    "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<4x3xf32>} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<4x3xf32>) -> ()
      "poplar.program_remote_load"(%w) {buffer = "remote.w"} : (tensor<4x3xf32>) -> ()
      "poplar.program_remote_store"(%w) {buffer = "remote.w"} : (tensor<4x3xf32>) -> ()
      "poplar.program_stream_copy"(%x) {stream = "host.output.0"} : (tensor<4x3xf32>) -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

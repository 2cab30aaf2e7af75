// pipeline.remote_store / remote_load (a value moved to streaming memory between its uses:
// a phase's off-chip liveness, off-chip activations) are poplar::program::Copy to / from
// the value's remote buffer; a load gives its result a new tensor on the op's IPU, laid out
// linearly. test_roundtrip.py builds and runs such programs against poplar-host.
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK: poplar::RemoteBuffer r_activation_0_0 = graph.addRemoteBuffer("activation.0", poplar::FLOAT, 12, 1);
// CHECK: // pipeline.remote_store
// CHECK-NEXT: p_main_0.add(poplar::program::Copy(v_input_x_0, r_activation_0_0));
// CHECK: // pipeline.remote_load
// CHECK-NEXT: poplar::Tensor loaded0 = ipu[1].addVariable(poplar::FLOAT, {4, 3}, "activation.0");  // loaded from 'activation.0'
// CHECK-NEXT: mapLinearly(ipu[1], loaded0, 0, 1);
// CHECK-NEXT: p_main_0.add(poplar::program::Copy(r_activation_0_0, loaded0));
// CHECK: p_main_0.add(poplar::program::Copy(loaded0, s_host_output_0));

"builtin.module"() ({
  "poplar.graph"() ({
    "poplar.remote_buffer"() {name = "activation.0", type = tensor<4x3xf32>, repeats = 1 : i64} : () -> ()
    %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<4x3xf32>
    "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<4x3xf32>} : () -> ()
    "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<4x3xf32>} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<4x3xf32>) -> ()
      "pipeline.remote_store"(%x) {buffer = "activation.0", ipu_id = 0 : i64} : (tensor<4x3xf32>) -> ()
      %l = "pipeline.remote_load"() {buffer = "activation.0", ipu_id = 1 : i64} : () -> tensor<4x3xf32>
      "poplar.program_stream_copy"(%l) {stream = "host.output.0"} : (tensor<4x3xf32>) -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

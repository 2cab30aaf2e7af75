// RUN: ipu-opt %s -p 'poplar-plan-memory{bytes-per-tile=1024 tiles-per-ipu=3 io-tiles=1}' --split-input-file --verify-diagnostics

// One I/O tile of 1024 bytes: two copies (overlap_device_iteration_loop) of a 600-byte input
// do not fit in it; the error says how to make room.
// expected-error @+1 {{the overlapped host streams of IPU 0 need 1200 bytes of I/O tile buffers ('host.input.x' (1200 bytes)) but 1 I/O tiles hold 1024 bytes: allocate more with Options.TensorLocations.numIOTiles, or overlap fewer or smaller tensors (OverlapMode.OverlapAccumulationLoop keeps one copy, OverlapDeviceIterationLoop two)}}
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 0, 2>} : () -> tensor<150xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", poplar.overlap = "overlap_device_iteration_loop", type = tensor<150xf32>} : () -> ()
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<150xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// 2400 bytes of variables fit in 3 tiles (3072 bytes) but not in the 2 left to compute.
// expected-error @+1 {{the program does not fit on IPU 0: it needs 2400 bytes (2400 in variables, 0 at the peak of live temporaries) but an IPU has 2048 bytes.}}
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64: 0, 3>} : () -> tensor<600xf32>
  "poplar.program_sequence"() ({
    "poplar.program_sync"() {kind = "internal"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// RUN: ipu-opt %s -p 'poplar-plan-memory{bytes-per-tile=1024 tiles-per-ipu=3}' --split-input-file --verify-diagnostics
// RUN: ipu-opt %s -p 'poplar-plan-memory{bytes-per-tile=1024 tiles-per-ipu=3 io-tiles=1}' | FileCheck %s --check-prefix=IO
// RUN: not ipu-opt %s -p 'poplar-plan-memory{tiles-per-ipu=3 io-tiles=3}' 2>&1 | FileCheck %s --check-prefix=OPTION

// A host stream with a poplar.overlap is buffered on the I/O tiles: without any, it is an
// error that says how to allocate them. With one I/O tile (IO) of 1024 bytes, the 2 copies
// (overlap_device_iteration_loop) of the 400-byte input fit, and the 2048 bytes left to
// compute hold the program (1200 bytes).
// IO: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 1200 : i64, 0 : i64, 0 : i64, 1200 : i64>]>
// OPTION: poplar-plan-memory: io-tiles must be in [0, 3) (tiles-per-ipu 3: some tiles must compute), got 3
// expected-error @+1 {{host streams 'host.input.x' (800 bytes) overlap computation (poptorch.set_overlap_for_input / _output), which needs I/O tiles to buffer them, but none are allocated: set Options.TensorLocations.numIOTiles(32) or more, or use OverlapMode.NoOverlap}}
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 0, 2>} : () -> tensor<100xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", poplar.overlap = "overlap_device_iteration_loop", type = tensor<100xf32>} : () -> ()
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64: 0, 2>} : () -> tensor<200xf32>
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<100xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

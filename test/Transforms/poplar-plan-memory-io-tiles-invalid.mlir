// RUN: ipu-opt %s -p 'poplar-plan-memory{bytes-per-tile=1024 tiles-per-ipu=3}' --split-input-file --verify-diagnostics
// RUN: not ipu-opt %s -p 'poplar-plan-memory{bytes-per-tile=1024 tiles-per-ipu=3 io-tiles=1}' --split-input-file 2>&1 | FileCheck %s --check-prefix=IO
// RUN: ipu-opt %s -p 'poplar-plan-memory{bytes-per-tile=1024 tiles-per-ipu=4 io-tiles=2}' --split-input-file | FileCheck %s --check-prefix=FITS
// RUN: not ipu-opt %s -p 'poplar-plan-memory{tiles-per-ipu=3 io-tiles=3}' 2>&1 | FileCheck %s --check-prefix=OPTION

// A host stream with a poplar.overlap is buffered on the I/O tiles: without any, it is an
// error that says how to allocate them. With one I/O tile (IO) of 1024 bytes, the 2 copies
// (overlap_device_iteration_loop) of the 400-byte input fit, and the 2048 bytes left to
// compute hold the program (1200 bytes). The IO lines are DAG checks: errors reach stderr before the graphs print.
// IO-DAG: poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 1200 : i64, 0 : i64, 0 : i64, 1200 : i64>]>
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

// -----

// A remote load or store through the I/O tiles (poplar.io_tiles: useIOTilesToLoad /
// useIOTilesToStore) holds its whole tensor on them: without I/O tiles it is an error at the
// copy; one I/O tile (1024 bytes, prefix IO) cannot hold the 1600-byte weight; two (2048 bytes, FITS)
// can. The copies run one at a time: the largest (1600) counts, not the sum with the
// 800-byte bias (2400).
// IO-DAG: error: the remote load of buffer 'remote.w' goes through the I/O tiles of IPU 0 (TensorLocationSettings.useIOTilesToLoad / useIOTilesToStore), which must hold its 1600 bytes, but 1 I/O tiles hold 1024 bytes: allocate more with Options.TensorLocations.numIOTiles (at least 2 tiles of 1024 bytes), or load and store this class through the compute tiles (remove useIOTilesToLoad / useIOTilesToStore)
// FITS: "poplar.program_remote_load"(%{{.*}}) {buffer = "remote.w", poplar.io_tiles}
// FITS: poplar.io_tile_memory = #poplar.io_tile_memory<2 : i64, 2048 : i64>, poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 0 : i64, 1600 : i64
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", poplar.remote_buffer = "remote.w", tiles = array<i64: 0, 2>} : () -> tensor<400xf32>
  "poplar.remote_buffer"() {name = "remote.w", repeats = 1 : i64, type = tensor<400xf32>} : () -> ()
  %b = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "b", poplar.remote_buffer = "remote.b", tiles = array<i64: 0, 2>} : () -> tensor<200xf32>
  "poplar.remote_buffer"() {name = "remote.b", repeats = 1 : i64, type = tensor<200xf32>} : () -> ()
  "poplar.function"() ({
    // expected-error @+1 {{the remote load of buffer 'remote.w' (1600 bytes) goes through the I/O tiles (TensorLocationSettings.useIOTilesToLoad / useIOTilesToStore) but none are allocated: set Options.TensorLocations.numIOTiles(32) or more}}
    "poplar.program_remote_load"(%w) {buffer = "remote.w", poplar.io_tiles} : (tensor<400xf32>) -> ()
    "poplar.program_remote_load"(%b) {buffer = "remote.b", poplar.io_tiles} : (tensor<200xf32>) -> ()
    %s = "poplar.popops_mul"(%b, %b) : (tensor<200xf32>, tensor<200xf32>) -> tensor<200xf32>
    "poplar.program_remote_store"(%b) {buffer = "remote.b", poplar.io_tiles} : (tensor<200xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// An activation stored and loaded through the I/O tiles (pipeline.remote_store / _load with
// poplar.io_tiles) shares them with the overlapped host stream: 400 + 800 bytes do not fit one
// tile's 1024 (prefix IO) though each alone would; two tiles hold both (FITS).
// IO-DAG: error: the remote store of buffer 'activation.0' goes through the I/O tiles of IPU 0 (TensorLocationSettings.useIOTilesToLoad / useIOTilesToStore), which must hold its 400 bytes beside the 800 bytes of overlapped host stream buffers, but 1 I/O tiles hold 1024 bytes: allocate more with Options.TensorLocations.numIOTiles (at least 2 tiles of 1024 bytes)
// FITS: "pipeline.remote_store"(%{{.*}}) {buffer = "activation.0", ipu_id = 0 : i64, poplar.io_tiles}
// FITS: poplar.io_tile_memory = #poplar.io_tile_memory<2 : i64, 2048 : i64>
// expected-error @+1 {{host streams 'host.input.x' (800 bytes) overlap computation}}
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 0, 2>} : () -> tensor<100xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", poplar.overlap = "overlap_device_iteration_loop", type = tensor<100xf32>} : () -> ()
  "poplar.remote_buffer"() {name = "activation.0", repeats = 1 : i64, type = tensor<100xf32>} : () -> ()
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<100xf32>) -> ()
    %a = "poplar.popops_mul"(%x, %x) : (tensor<100xf32>, tensor<100xf32>) -> tensor<100xf32>
    // expected-error @+1 {{the remote store of buffer 'activation.0' (400 bytes) goes through the I/O tiles}}
    "pipeline.remote_store"(%a) {buffer = "activation.0", ipu_id = 0 : i64, poplar.io_tiles} : (tensor<100xf32>) -> ()
    %l = "pipeline.remote_load"() {buffer = "activation.0", ipu_id = 0 : i64, poplar.io_tiles} : () -> tensor<100xf32>
    %b = "poplar.popops_mul"(%l, %l) : (tensor<100xf32>, tensor<100xf32>) -> tensor<100xf32>
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// RUN: ipu-opt %s -p 'poplar-plan-memory{bytes-per-tile=1024 tiles-per-ipu=3}' --split-input-file --verify-diagnostics

// IPUs of 3 tiles x 1 KiB = 3072 bytes. A program that does not fit is an error at the
// graph naming the IPU, the split between variables, temporaries and stash, the five
// largest tensors and what helps; a variable mapped on too few tiles is an error at the
// variable. Every error is reported, and a program that fits reports none.
// (poplar-plan-memory.mlir and poplar-plan-memory-pipelined.mlir explain the numbers.)

// 2112 bytes of variables and 3136 at the peak of live temporaries do not fit.
// expected-error @+1 {{the program does not fit on IPU 0: it needs 5248 bytes (2112 in variables, 3136 at the peak of live temporaries) but an IPU has 3072 bytes. Largest tensors: variable 'w' (1024 bytes), variable 'input.x' (1024 bytes), result of 'poplar.popops_mul' (1024 bytes), result of 'poplar.popops_add' (1024 bytes), result of 'poplar.popnn_nonlinearity' (1024 bytes). Placing every weight, optimizer state and accumulator off chip (Options.TensorLocations) would free only 1024 of the 2176 bytes too many: the live temporaries must shrink too. To fit: place tensors off chip (Options.TensorLocations), split the model over more IPUs (poptorch.Block / BeginBlock with ShardedExecution or PipelinedExecution), use phased execution, or reduce the micro-batch size.}}
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64: 0, 8>} : () -> tensor<256xf32>
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 8, 8>} : () -> tensor<256xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<256xf32>} : () -> ()
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<16xf32>} : () -> ()
  %out = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64: 16, 1>} : () -> tensor<16xf32>
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<256xf32>) -> ()
    "poplar.program_sync"() {kind = "internal"} : () -> ()
    %a = "poplar.popops_add"(%x, %w) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %b = "poplar.popops_mul"(%a, %a) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %v = "poplar.reshape"(%b) : (tensor<256xf32>) -> tensor<16x16xf32>
    %c = "poplar.popnn_nonlinearity"(%a) {dim = 0 : i64, kind = "relu"} : (tensor<256xf32>) -> tensor<256xf32>
    %e = "poplar.popops_reduce"(%v) {dims = array<i64: 1>, keep_dims = false, op = "add", scale = 1.000000e+00 : f64} : (tensor<16x16xf32>) -> tensor<16xf32>
    %cs = "poplar.slice"(%c) {begin = array<i64: 0>, end = array<i64: 16>, stride = array<i64: 1>} : (tensor<256xf32>) -> tensor<16xf32>
    %g = "poplar.popops_add"(%e, %cs) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    "poplar.program_copy"(%g, %out) : (tensor<16xf32>, tensor<16xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    %k = "poplar.constant"() {ipu = 0 : i64, value = dense<1.000000e+00> : tensor<16xf32>} : () -> tensor<16xf32>
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
      "poplar.popops_scaled_add_to"(%out, %k) {scale = 1.000000e+00 : f64} : (tensor<16xf32>, tensor<16xf32>) -> ()
      "poplar.program_stream_copy"(%out) {stream = "host.output.0"} : (tensor<16xf32>) -> ()
    }) {count = 4 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// Linear(4, 3) - buffer -> relu needs 200 bytes: it fits.
"poplar.graph"() ({
  %0 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "l.weight", tiles = array<i64: 0, 1>} : () -> tensor<3x4xf32>
  %1 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "l.bias", tiles = array<i64: 1, 1>} : () -> tensor<3xf32>
  %2 = "poplar.variable"() {ipu = 0 : i64, kind = "buffer", name = "shift", tiles = array<i64: 2, 1>} : () -> tensor<3xf32>
  %3 = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 3, 1>} : () -> tensor<2x4xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<2x4xf32>} : () -> ()
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<2x3xf32>} : () -> ()
  %4 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64: 4, 1>} : () -> tensor<2x3xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.1", type = tensor<2x3xf32>} : () -> ()
  %5 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.1", tiles = array<i64: 5, 1>} : () -> tensor<2x3xf32>
  "poplar.function"() ({
    "poplar.program_stream_copy"(%3) {stream = "host.input.x"} : (tensor<2x4xf32>) -> ()
    "poplar.program_sync"() {kind = "internal"} : () -> ()
    %6 = "poplar.dim_shuffle"(%0) {permutation = array<i64: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
    %7 = "poplar.poplin_matmul"(%3, %6) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    %8 = "poplar.popops_add"(%7, %1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %9 = "poplar.popops_sub"(%8, %2) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %10 = "poplar.popnn_nonlinearity"(%9) {dim = 0 : i64, kind = "relu"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    "poplar.program_copy"(%9, %4) : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()
    "poplar.program_copy"(%10, %5) : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
      "poplar.program_stream_copy"(%4) {stream = "host.output.0"} : (tensor<2x3xf32>) -> ()
      "poplar.program_stream_copy"(%5) {stream = "host.output.1"} : (tensor<2x3xf32>) -> ()
    }) {count = 1 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// Two IPUs are planned separately. IPU 0: 'dense' 384 x f32 = 1536 + its add 1536 =
// 3072, exactly an IPU's bytes: it fits, but its one tile holds 1536 bytes. IPU 1:
// 'big' 1100 x f32 = 4400 + its mul 4400 = 8800 does not fit.
// expected-error @+1 {{the program does not fit on IPU 1: it needs 8800 bytes (4400 in variables, 4400 at the peak of live temporaries) but an IPU has 3072 bytes. Largest tensors: variable 'big' (4400 bytes), result of 'poplar.popops_mul' (4400 bytes). Placing every weight, optimizer state and accumulator off chip (Options.TensorLocations) would free only 4400 of the 5728 bytes too many: the live temporaries must shrink too. To fit:}}
"poplar.graph"() ({
  // expected-error @+1 {{variable 'dense' needs 1536 bytes per tile on 1 tiles, more than a tile's 1024 bytes; map it over more tiles}}
  %dense = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "dense", tiles = array<i64: 0, 1>} : () -> tensor<384xf32>
  %big = "poplar.variable"() {ipu = 1 : i64, kind = "weight", name = "big", tiles = array<i64: 0, 8>} : () -> tensor<1100xf32>
  "poplar.function"() ({
    %a = "poplar.popops_add"(%dense, %dense) : (tensor<384xf32>, tensor<384xf32>) -> tensor<384xf32>
    %b = "poplar.popops_mul"(%big, %big) {pipeline.ipu = 1 : i64} : (tensor<1100xf32>, tensor<1100xf32>) -> tensor<1100xf32>
    "poplar.program_copy"(%a, %dense) : (tensor<384xf32>, tensor<384xf32>) -> ()
    "poplar.program_copy"(%b, %big) : (tensor<1100xf32>, tensor<1100xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// The 2-IPU pipelined training step of poplar-plan-memory-pipelined.mlir: IPU 0 does not
// fit because of what it stashes for micro-batches in flight (the same program run
// sharded fits); the error says how much is stashed.
// expected-error @+1 {{the program does not fit on IPU 0: it needs 3524 bytes (1604 in variables, 1280 at the peak of live temporaries, 640 stashed for micro-batches in flight) but an IPU has 3072 bytes. Largest tensors:}}
"poplar.graph"() ({
  %0 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w0", tiles = array<i64: 1, 1>} : () -> tensor<8x16xf32>
  %1 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w2", tiles = array<i64: 2, 1>} : () -> tensor<16x4xf32>
  %2 = "poplar.variable"() {ipu = 1 : i64, kind = "weight", name = "w1", tiles = array<i64: 1, 1>} : () -> tensor<4x4xf32>
  %3 = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 0, 1>} : () -> tensor<2x8xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<2x8xf32>} : () -> ()
  %4 = "poplar.variable"() {ipu = 1 : i64, kind = "scalar", name = "loss_scaling", tiles = array<i64: 2, 1>} : () -> tensor<f32>
  %5 = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "w0/accum", tiles = array<i64: 1, 1>} : () -> tensor<8x16xf32>
  %6 = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "w2/accum", tiles = array<i64: 2, 1>} : () -> tensor<16x4xf32>
  %7 = "poplar.variable"() {ipu = 1 : i64, kind = "accumulator", name = "w1/accum", tiles = array<i64: 0, 1>} : () -> tensor<4x4xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<f32>} : () -> ()
  %8 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64: 0, 1>} : () -> tensor<f32>
  "poplar.function"() ({
    "pipeline.schedule"() ({
      "pipeline.stage"() ({
        "poplar.program_stream_copy"(%3) {pipeline.stage = 0 : i64, stream = "host.input.x"} : (tensor<2x8xf32>) -> ()
        "pipeline.stash"(%3) {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, stash_id = "stash.2"} : (tensor<2x8xf32>) -> ()
        "poplar.program_sync"() {kind = "internal", pipeline.stage = 0 : i64} : () -> ()
        %31 = "poplar.poplin_matmul"(%3, %0) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x8xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
        "pipeline.stash"(%31) {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, stash_id = "stash.1"} : (tensor<2x16xf32>) -> ()
        %32 = "poplar.popnn_nonlinearity"(%31) {dim = 0 : i64, kind = "gelu_erf", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x16xf32>) -> tensor<2x16xf32>
        "pipeline.stash"(%32) {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, stash_id = "stash.0"} : (tensor<2x16xf32>) -> ()
        %33 = "poplar.poplin_matmul"(%32, %1) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x16xf32>, tensor<16x4xf32>) -> tensor<2x4xf32>
        "pipeline.send"(%33) {channel = "exchange.0", dst_ipu = 1 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, src_ipu = 0 : i64} : (tensor<2x4xf32>) -> ()
      }) {ipu_id = 0 : i64, stage_id = 0 : i64} : () -> ()
      "pipeline.stage"() ({
        %22 = "pipeline.recv"() {channel = "exchange.0", dst_ipu = 1 : i64, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64, src_ipu = 0 : i64} : () -> tensor<2x4xf32>
        %23 = "poplar.poplin_matmul"(%22, %2) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
        %24 = "poplar.popops_reduce"(%23) {dims = array<i64: 0, 1>, keep_dims = false, op = "add", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64, scale = 1.000000e+00 : f64} : (tensor<2x4xf32>) -> tensor<f32>
        %25 = "poplar.broadcast"(%4) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<f32>) -> tensor<2x4xf32>
        %26 = "poplar.dim_shuffle"(%22) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x4xf32>) -> tensor<4x2xf32>
        %27 = "poplar.poplin_matmul"(%26, %25) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
        %28 = "poplar.dim_shuffle"(%2) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
        %29 = "poplar.poplin_matmul"(%25, %28) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
        "pipeline.send"(%29) {channel = "exchange.1", dst_ipu = 0 : i64, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64, src_ipu = 1 : i64} : (tensor<2x4xf32>) -> ()
        %30 = "poplar.popops_map"(%7, %27) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
        "poplar.program_copy"(%24, %8) {pipeline.stage = 1 : i64} : (tensor<f32>, tensor<f32>) -> ()
        "poplar.program_copy"(%30, %7) {pipeline.stage = 1 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> ()
      }) {ipu_id = 1 : i64, stage_id = 1 : i64} : () -> ()
      "pipeline.stage"() ({
        %9 = "pipeline.recv"() {channel = "exchange.1", dst_ipu = 0 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, src_ipu = 1 : i64} : () -> tensor<2x4xf32>
        %10 = "pipeline.restore"() {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, stash_id = "stash.0"} : () -> tensor<2x16xf32>
        %11 = "poplar.dim_shuffle"(%10) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x16xf32>) -> tensor<16x2xf32>
        %12 = "poplar.poplin_matmul"(%11, %9) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<16x2xf32>, tensor<2x4xf32>) -> tensor<16x4xf32>
        %13 = "poplar.dim_shuffle"(%1) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<16x4xf32>) -> tensor<4x16xf32>
        %14 = "poplar.poplin_matmul"(%9, %13) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x4xf32>, tensor<4x16xf32>) -> tensor<2x16xf32>
        %15 = "pipeline.restore"() {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, stash_id = "stash.1"} : () -> tensor<2x16xf32>
        %16 = "poplar.popnn_nonlinearity_grad"(%14, %15) {dim = 0 : i64, kind = "gelu_erf", pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
        %17 = "pipeline.restore"() {depth = 2 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, stash_id = "stash.2"} : () -> tensor<2x8xf32>
        %18 = "poplar.dim_shuffle"(%17) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x8xf32>) -> tensor<8x2xf32>
        %19 = "poplar.poplin_matmul"(%18, %16) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<8x2xf32>, tensor<2x16xf32>) -> tensor<8x16xf32>
        %20 = "poplar.popops_map"(%5, %19) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
        %21 = "poplar.popops_map"(%6, %12) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
        "poplar.program_copy"(%20, %5) {pipeline.stage = 2 : i64} : (tensor<8x16xf32>, tensor<8x16xf32>) -> ()
        "poplar.program_copy"(%21, %6) {pipeline.stage = 2 : i64} : (tensor<16x4xf32>, tensor<16x4xf32>) -> ()
      }) {ipu_id = 0 : i64, stage_id = 2 : i64} : () -> ()
    }) {device_iterations = 1 : i64, gradient_accumulation = 3 : i64, kind = "pipelined", num_ipus = 2 : i64, num_stages = 3 : i64, training = true} : () -> ()
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 3 : i64, 2 : i64, array<i64: 0, 1, 0>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_repeat"() ({
        "poplar.program_call"() {callee = "step"} : () -> ()
      }) {count = 3 : i64} : () -> ()
    }) {count = 1 : i64} : () -> ()
    "poplar.program_stream_copy"(%8) {stream = "host.output.0"} : (tensor<f32>) -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// Variables the user can place off chip: weight w 1024, optimizer state m and v 1024 each;
// the temporary a 1024: 4096 bytes, 1024 too many. The error names the largest class that
// frees that much (the optimizer state, 2048 bytes) as the TensorLocations call to make.
// expected-error @+1 {{the program does not fit on IPU 0: it needs 4096 bytes (3072 in variables, 1024 at the peak of live temporaries) but an IPU has 3072 bytes. Largest tensors: variable 'w' (1024 bytes), variable 'v' (1024 bytes), variable 'm' (1024 bytes), result of 'poplar.popops_add' (1024 bytes). Moving Options.TensorLocations.setOptimizerLocation(poptorch.TensorLocationSettings().useOnChipStorage(False)) (optimizer state: 2048 bytes) to streaming memory would free enough: the program would need less than the IPU has (the moved tensors are loaded on chip only while used). To fit:}}
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64: 0, 1>} : () -> tensor<256xf32>
  %m = "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "m", tiles = array<i64: 1, 1>} : () -> tensor<256xf32>
  %v = "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "v", tiles = array<i64: 2, 1>} : () -> tensor<256xf32>
  "poplar.function"() ({
    %a = "poplar.popops_add"(%w, %m) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    "poplar.program_copy"(%a, %v) : (tensor<256xf32>, tensor<256xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 3 : i64} : () -> ()

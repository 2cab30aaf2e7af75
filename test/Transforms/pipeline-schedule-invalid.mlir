// RUN: ipu-opt %s -p pipeline-schedule --split-input-file --verify-diagnostics

// A stage-0 op reading a stage-1 result cannot run as a pipeline.
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.function"() ({
    %h = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    // expected-error @+1 {{pipeline-schedule: 'poplar.popnn_nonlinearity' in pipeline stage 0 reads a value computed in stage 1, so the step cannot run stage by stage; put the layers that use it in the same poptorch.Block or a later one, or use poptorch.ShardedExecution}}
    %y = "poplar.popnn_nonlinearity"(%h) {dim = 0 : i64, kind = "tanh", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 2 : i64, 2 : i64, array<i64: 0, 1>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// An accumulator written in stage 1 but read in stage 0 would see another
// micro-batch's value.
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  %acc = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "acc", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.function"() ({
    %h = "poplar.popops_add"(%x, %acc) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %y = "poplar.popnn_nonlinearity"(%h) {dim = 0 : i64, kind = "tanh", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    // expected-error @+1 {{pipeline-schedule: 'acc' is updated in pipeline stage 1 and used in stage(s) 0: in a pipeline, stages of different micro-batches run at once}}
    "poplar.program_copy"(%y, %acc) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 2 : i64, 2 : i64, array<i64: 0, 1>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// A value of an earlier stage read inside a nested program cannot be stashed for it.
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<2xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<2xf32>} : () -> ()
  %st = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "state", tiles = array<i64>} : () -> tensor<2xf32>
  %e0 = "poplar.variable"() {ipu = 1 : i64, kind = "exchange", name = "exchange.0", tiles = array<i64>} : () -> tensor<2xf32>
  %e1 = "poplar.variable"() {ipu = 0 : i64, kind = "exchange", name = "exchange.1", tiles = array<i64>} : () -> tensor<2xf32>
  %out = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<2xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<2xf32>} : () -> ()
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<2xf32>) -> ()
    %n = "poplar.popops_map"(%st, %x) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "poplar.program_copy"(%n, %st) : (tensor<2xf32>, tensor<2xf32>) -> ()
    %h = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2xf32>) -> tensor<2xf32>
    "poplar.program_copy"(%h, %e0) : (tensor<2xf32>, tensor<2xf32>) -> ()
    %y = "poplar.popnn_nonlinearity"(%e0) {dim = 0 : i64, kind = "relu", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2xf32>) -> tensor<2xf32>
    "poplar.program_copy"(%y, %e1) : (tensor<2xf32>, tensor<2xf32>) -> ()
    // expected-error @+1 {{pipeline-schedule: 'poplar.program_sequence' in pipeline stage 2 reads a value of an earlier stage inside a nested region, which the pipeline cannot stash; use poptorch.ShardedExecution}}
    "poplar.program_sequence"() ({
      %z = "poplar.popops_add"(%e1, %h) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      "poplar.program_copy"(%z, %out) : (tensor<2xf32>, tensor<2xf32>) -> ()
    }) {name = "inner", pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : () -> ()
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 3 : i64, 3 : i64, 2 : i64, array<i64: 0, 1, 0>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
      "poplar.program_stream_copy"(%out) {stream = "host.output.0"} : (tensor<2xf32>) -> ()
    }) {count = 4 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// An op staged past the plan's last stage is an error at the step function.
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  // expected-error @+1 {{pipeline-schedule: an op is in stage 2 but the plan has 2 stages}}
  "poplar.function"() ({
    %h = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %y = "poplar.popnn_nonlinearity"(%h) {dim = 0 : i64, kind = "tanh", pipeline.ipu = 1 : i64, pipeline.stage = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  }) {name = "step", pipeline.plan = #pipeline.plan<"sharded", 2 : i64, 2 : i64, 2 : i64, array<i64: 0, 1>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// Stages are numbered from 0: a negative pipeline.stage is refused where it is read
// (it used to end in an internal KeyError).
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.function"() ({
    // expected-error @+1 {{pipeline-schedule: 'poplar.popnn_nonlinearity' has pipeline.stage = -2, but stages are numbered from 0 (ipu-assign-stages sets them)}}
    %h = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = -2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 2 : i64, 2 : i64, array<i64: 0, 1>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// RUN: not ipu-opt %s -p pipeline-schedule --split-input-file 2>&1 >/dev/null | FileCheck %s

// A stage-0 op reading a stage-1 result cannot run as a pipeline.
// CHECK: error: pipeline-schedule: 'poplar.popnn_nonlinearity' in pipeline stage 0 reads a value computed in stage 1, so the step cannot run stage by stage; put the layers that use it in the same poptorch.Block or a later one, or use poptorch.ShardedExecution
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.function"() ({
    %h = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %y = "poplar.popnn_nonlinearity"(%h) {dim = 0 : i64, kind = "tanh", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  }) {name = "step", pipeline.plan = {forward_stages = 2 : i64, kind = "pipelined", stage_ipus = array<i64: 0, 1>}} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// An accumulator written in stage 1 but read in stage 0 would see another
// micro-batch's value.
// CHECK: error: pipeline-schedule: 'acc' is updated in pipeline stage 1 and used in stage(s) 0: in a pipeline, stages of different micro-batches run at once
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  %acc = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "acc", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.function"() ({
    %h = "poplar.popops_add"(%x, %acc) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %y = "poplar.popnn_nonlinearity"(%h) {dim = 0 : i64, kind = "tanh", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%y, %acc) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {name = "step", pipeline.plan = {forward_stages = 2 : i64, kind = "pipelined", stage_ipus = array<i64: 0, 1>}} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

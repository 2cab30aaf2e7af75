// RUN: ipu-opt %s --split-input-file | FileCheck %s --check-prefixes=CHECK,MOVE
// RUN: ipu-opt %s --split-input-file | ipu-opt --split-input-file | FileCheck %s --check-prefixes=CHECK,MOVE
//
// The stock C++ tool with the generated IRDL. IRDL has no traits, so it does not know
// that pipeline.schedule / stage / phase bodies need no terminator (ipu-opt attaches
// NoTerminator in dialects/pipeline.py): every chunk with a region op fails with
// "block with no terminator" when the verifier leaves its first complete block, at
// that block's last op. The verifier checks an op before its body and a block's ops
// before the block's terminator, so everything up to that point passed the IRDL
// verifier: the schedule (and phase) attributes, the absence of operands and results,
// the first stage and every op in its body. The IRDL prefix checks that this is the
// only error of each chunk, at the expected op. The region-free chunk verifies
// completely and prints what ipu-opt prints (MOVE prefix).
// RUN: not torch-mlir-opt --irdl-file=%irdl_dir/pipeline.irdl.mlir --split-input-file --mlir-print-op-generic %s 2>/dev/null | FileCheck %s --check-prefix=MOVE
// RUN: not torch-mlir-opt --irdl-file=%irdl_dir/pipeline.irdl.mlir --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=IRDL
// Without the verifier the stock parser reads every chunk, schedules included, and
// prints the same generic form as ipu-opt (syntax and op registration only).
// RUN: torch-mlir-opt --irdl-file=%irdl_dir/pipeline.irdl.mlir --mlir-very-unsafe-disable-verifier-on-parsing --split-input-file --mlir-print-op-generic %s | FileCheck %s --check-prefixes=CHECK,MOVE

// Round trip of every op of the `pipeline` dialect. The data-movement ops come first;
// then one schedule per execution strategy. Region ops take no operands and return no
// values: stage bodies capture values defined before the schedule, exchange values with
// send/recv and stash/restore, and mark program results with pipeline.output. Each of
// these ops carries one value of any type, so one stage can move values of many types.

// Inter-IPU copies, activation stashes and streaming memory, on Torch-dialect values
// and builtin tensors. Outside a stage the IPU attributes are not tied to a stage.
// MOVE-LABEL: sym_name = "data_movement"
// MOVE: "pipeline.send"(%arg0) {channel = "s0_to_s1", dst_ipu = 1 : i64, src_ipu = 0 : i64} : (!torch.vtensor<[2],f32>) -> ()
// MOVE: "pipeline.recv"() {channel = "s0_to_s1", dst_ipu = 1 : i64, src_ipu = 0 : i64} : () -> !torch.vtensor<[2],f32>
// MOVE: "pipeline.stash"(%arg1) {depth = 3 : i64, stash_id = "s0.act0"} : (tensor<4xf32>) -> ()
// MOVE: "pipeline.restore"() {depth = 3 : i64, stash_id = "s0.act0"} : () -> tensor<4xf32>
// MOVE: "pipeline.remote_store"(%arg1) {buffer = "fc1.weight", ipu_id = 0 : i64} : (tensor<4xf32>) -> ()
// MOVE: "pipeline.remote_load"() {buffer = "fc1.weight", ipu_id = 3 : i64} : () -> tensor<4xf32>
func.func @data_movement(%x: !torch.vtensor<[2],f32>, %t: tensor<4xf32>) -> (!torch.vtensor<[2],f32>, tensor<4xf32>, tensor<4xf32>) {
  "pipeline.send"(%x) {channel = "s0_to_s1", src_ipu = 0 : i64, dst_ipu = 1 : i64} : (!torch.vtensor<[2],f32>) -> ()
  %0 = "pipeline.recv"() {channel = "s0_to_s1", src_ipu = 0 : i64, dst_ipu = 1 : i64} : () -> !torch.vtensor<[2],f32>
  "pipeline.stash"(%t) {stash_id = "s0.act0", depth = 3 : i64} : (tensor<4xf32>) -> ()
  %1 = "pipeline.restore"() {stash_id = "s0.act0", depth = 3 : i64} : () -> tensor<4xf32>
  "pipeline.remote_store"(%t) {buffer = "fc1.weight", ipu_id = 0 : i64} : (tensor<4xf32>) -> ()
  %2 = "pipeline.remote_load"() {buffer = "fc1.weight", ipu_id = 3 : i64} : () -> tensor<4xf32>
  return %0, %1, %2 : !torch.vtensor<[2],f32>, tensor<4xf32>, tensor<4xf32>
}
// IRDL-NOT: error: {{(?!block with no terminator)}}

// -----

// The stage plan ipu-assign-stages leaves on a step function (#pipeline.plan): a pipelined
// training step of 2 forward stages, 3 in all, over 2 IPUs; the IPU of each stage is
// filled in by poplar-build-program (array<i64> until then). A sharded plan of 3 stages
// with their IPUs.
// MOVE-LABEL: sym_name = "planned"
// MOVE: }) {pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 3 : i64, 2 : i64, array<i64>>} : () -> ()
// MOVE-LABEL: sym_name = "placed"
// MOVE: }) {pipeline.plan = #pipeline.plan<"sharded", 3 : i64, 3 : i64, 4 : i64, array<i64: 0, 3, 1>>} : () -> ()
func.func @planned(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 3 : i64, 2 : i64, array<i64>>} {
  return %x : tensor<4xf32>
}
func.func @placed(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipeline.plan = #pipeline.plan<"sharded", 3 : i64, 3 : i64, 4 : i64, array<i64: 0, 3, 1>>} {
  return %x : tensor<4xf32>
}
// A phased training step (#pipeline.phases next to the plan): 2 forward phases of one stage
// each, their backward stages in phases 1 and 2 (the last forward phase shared).
// MOVE-LABEL: sym_name = "phased"
// MOVE: }) {pipeline.phases = #pipeline.phases<"off_chip_after_each_phase", 2 : i64, array<i64: 0, 1, 1, 2>>, pipeline.plan = #pipeline.plan<"phased_serial", 2 : i64, 4 : i64, 1 : i64, array<i64>>} : () -> ()
func.func @phased(%x: tensor<4xf32>) -> tensor<4xf32> attributes {pipeline.phases = #pipeline.phases<"off_chip_after_each_phase", 2 : i64, array<i64: 0, 1, 1, 2>>, pipeline.plan = #pipeline.plan<"phased_serial", 2 : i64, 4 : i64, 1 : i64, array<i64>>} {
  return %x : tensor<4xf32>
}
// IRDL-NOT: error: {{(?!block with no terminator)}}

// -----

// Pipelined inference: two stages on two IPUs overlap on successive micro-batches, so
// device_iterations (4) is at least the number of stages. Stage 0 reads the captured
// inputs and sends two values of different types on two channels; stage 1 receives
// both and marks two program results of different types.
// CHECK-LABEL: sym_name = "pipelined_inference"
// CHECK: "pipeline.schedule"() ({
// CHECK-NEXT: "pipeline.stage"() ({
// CHECK-NEXT: "pipeline.send"(%arg0) {channel = "s0_to_s1.act", dst_ipu = 1 : i64, src_ipu = 0 : i64} : (tensor<4xf32>) -> ()
// CHECK-NEXT: "pipeline.send"(%arg1) {channel = "s0_to_s1.mask", dst_ipu = 1 : i64, src_ipu = 0 : i64} : (tensor<2x4xf32>) -> ()
// CHECK-NEXT: }) {ipu_id = 0 : i64, stage_id = 0 : i64} : () -> ()
// CHECK-NEXT: "pipeline.stage"() ({
// CHECK-NEXT: %[[A:.*]] = "pipeline.recv"() {channel = "s0_to_s1.act", dst_ipu = 1 : i64, src_ipu = 0 : i64} : () -> tensor<4xf32>
// CHECK-NEXT: %[[M:.*]] = "pipeline.recv"() {channel = "s0_to_s1.mask", dst_ipu = 1 : i64, src_ipu = 0 : i64} : () -> tensor<2x4xf32>
// CHECK-NEXT: "pipeline.output"(%[[A]]) {index = 0 : i64} : (tensor<4xf32>) -> ()
// CHECK-NEXT: "pipeline.output"(%[[M]]) {index = 1 : i64} : (tensor<2x4xf32>) -> ()
// CHECK-NEXT: }) {ipu_id = 1 : i64, stage_id = 1 : i64} : () -> ()
// CHECK-NEXT: }) {device_iterations = 4 : i64, gradient_accumulation = 1 : i64, kind = "pipelined", num_ipus = 2 : i64, num_stages = 2 : i64, training = false} : () -> ()
// CHECK-NEXT: "func.return"() : () -> ()
func.func @pipelined_inference(%x: tensor<4xf32>, %mask: tensor<2x4xf32>) {
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      "pipeline.send"(%x) {channel = "s0_to_s1.act", src_ipu = 0 : i64, dst_ipu = 1 : i64} : (tensor<4xf32>) -> ()
      "pipeline.send"(%mask) {channel = "s0_to_s1.mask", src_ipu = 0 : i64, dst_ipu = 1 : i64} : (tensor<2x4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.stage"() ({
      %a = "pipeline.recv"() {channel = "s0_to_s1.act", src_ipu = 0 : i64, dst_ipu = 1 : i64} : () -> tensor<4xf32>
      %m = "pipeline.recv"() {channel = "s0_to_s1.mask", src_ipu = 0 : i64, dst_ipu = 1 : i64} : () -> tensor<2x4xf32>
      "pipeline.output"(%a) {index = 0 : i64} : (tensor<4xf32>) -> ()
      "pipeline.output"(%m) {index = 1 : i64} : (tensor<2x4xf32>) -> ()
    }) {stage_id = 1 : i64, ipu_id = 1 : i64} : () -> ()
  }) {kind = "pipelined", num_stages = 2 : i64, num_ipus = 2 : i64, training = false, device_iterations = 4 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}
// IRDL: error: block with no terminator, has "pipeline.send"(%arg1) {channel = "s0_to_s1.mask", dst_ipu = 1 : i64, src_ipu = 0 : i64} : (tensor<2x4xf32>) -> ()
// IRDL-NOT: error: {{(?!block with no terminator)}}

// -----

// Pipelined training over 2 IPUs: 3 stages (2p - 1 with p = 2 forward stages) and
// gradient_accumulation (4) at least the number of stages. The forward stage 0 stashes
// two activations of different types until its backward stage 2 (same IPU) restores
// them; stage 1 marks the loss as a result and sends the gradient back to IPU 0.
// CHECK-LABEL: sym_name = "pipelined_training"
// CHECK: "pipeline.schedule"() ({
// CHECK-NEXT: "pipeline.stage"() ({
// CHECK-NEXT: "pipeline.stash"(%arg0) {depth = 3 : i64, stash_id = "s0.act0"} : (!torch.vtensor<[4],f32>) -> ()
// CHECK-NEXT: "pipeline.stash"(%arg1) {depth = 3 : i64, stash_id = "s0.act1"} : (tensor<4x4xf16>) -> ()
// CHECK-NEXT: "pipeline.send"(%arg0) {channel = "fwd", dst_ipu = 1 : i64, src_ipu = 0 : i64} : (!torch.vtensor<[4],f32>) -> ()
// CHECK-NEXT: }) {ipu_id = 0 : i64, stage_id = 0 : i64} : () -> ()
// CHECK-NEXT: "pipeline.stage"() ({
// CHECK-NEXT: %[[F:.*]] = "pipeline.recv"() {channel = "fwd", dst_ipu = 1 : i64, src_ipu = 0 : i64} : () -> !torch.vtensor<[4],f32>
// CHECK-NEXT: %[[L:.*]] = "torch.aten.sum"(%[[F]], %{{.*}}) : (!torch.vtensor<[4],f32>, !torch.none) -> !torch.vtensor<[],f32>
// CHECK-NEXT: "pipeline.output"(%[[L]]) {index = 0 : i64} : (!torch.vtensor<[],f32>) -> ()
// CHECK-NEXT: "pipeline.send"(%[[F]]) {channel = "bwd", dst_ipu = 0 : i64, src_ipu = 1 : i64} : (!torch.vtensor<[4],f32>) -> ()
// CHECK-NEXT: }) {ipu_id = 1 : i64, stage_id = 1 : i64} : () -> ()
// CHECK-NEXT: "pipeline.stage"() ({
// CHECK-NEXT: %[[G:.*]] = "pipeline.recv"() {channel = "bwd", dst_ipu = 0 : i64, src_ipu = 1 : i64} : () -> !torch.vtensor<[4],f32>
// CHECK-NEXT: "pipeline.restore"() {depth = 3 : i64, stash_id = "s0.act0"} : () -> !torch.vtensor<[4],f32>
// CHECK-NEXT: %[[B:.*]] = "pipeline.restore"() {depth = 3 : i64, stash_id = "s0.act1"} : () -> tensor<4x4xf16>
// CHECK-NEXT: "pipeline.remote_store"(%[[B]]) {buffer = "s0.act1.out", ipu_id = 0 : i64} : (tensor<4x4xf16>) -> ()
// CHECK-NEXT: "pipeline.output"(%[[G]]) {index = 1 : i64} : (!torch.vtensor<[4],f32>) -> ()
// CHECK-NEXT: }) {ipu_id = 0 : i64, stage_id = 2 : i64} : () -> ()
// CHECK-NEXT: }) {device_iterations = 1 : i64, gradient_accumulation = 4 : i64, kind = "pipelined", num_ipus = 2 : i64, num_stages = 3 : i64, training = true} : () -> ()
func.func @pipelined_training(%x: !torch.vtensor<[4],f32>, %y: tensor<4x4xf16>) {
  %none = torch.constant.none
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      "pipeline.stash"(%x) {stash_id = "s0.act0", depth = 3 : i64} : (!torch.vtensor<[4],f32>) -> ()
      "pipeline.stash"(%y) {stash_id = "s0.act1", depth = 3 : i64} : (tensor<4x4xf16>) -> ()
      "pipeline.send"(%x) {channel = "fwd", src_ipu = 0 : i64, dst_ipu = 1 : i64} : (!torch.vtensor<[4],f32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.stage"() ({
      %f = "pipeline.recv"() {channel = "fwd", src_ipu = 0 : i64, dst_ipu = 1 : i64} : () -> !torch.vtensor<[4],f32>
      %loss = torch.aten.sum %f, %none : !torch.vtensor<[4],f32>, !torch.none -> !torch.vtensor<[],f32>
      "pipeline.output"(%loss) {index = 0 : i64} : (!torch.vtensor<[],f32>) -> ()
      "pipeline.send"(%f) {channel = "bwd", src_ipu = 1 : i64, dst_ipu = 0 : i64} : (!torch.vtensor<[4],f32>) -> ()
    }) {stage_id = 1 : i64, ipu_id = 1 : i64} : () -> ()
    "pipeline.stage"() ({
      %g = "pipeline.recv"() {channel = "bwd", src_ipu = 1 : i64, dst_ipu = 0 : i64} : () -> !torch.vtensor<[4],f32>
      %a = "pipeline.restore"() {stash_id = "s0.act0", depth = 3 : i64} : () -> !torch.vtensor<[4],f32>
      %b = "pipeline.restore"() {stash_id = "s0.act1", depth = 3 : i64} : () -> tensor<4x4xf16>
      "pipeline.remote_store"(%b) {buffer = "s0.act1.out", ipu_id = 0 : i64} : (tensor<4x4xf16>) -> ()
      "pipeline.output"(%g) {index = 1 : i64} : (!torch.vtensor<[4],f32>) -> ()
    }) {stage_id = 2 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "pipelined", num_stages = 3 : i64, num_ipus = 2 : i64, training = true, device_iterations = 1 : i64, gradient_accumulation = 4 : i64} : () -> ()
  return
}
// IRDL: error: block with no terminator, has "pipeline.send"(%arg0) {channel = "fwd", dst_ipu = 1 : i64, src_ipu = 0 : i64} : (!torch.vtensor<[4],f32>) -> ()
// IRDL-NOT: error: {{(?!block with no terminator)}}

// -----

// Sharded execution runs the stages one after the other, so it has no minimum on
// device_iterations or gradient_accumulation. Stages may come in any order, a stage
// body and a schedule body may be empty, and IPUs may stay unused.
// CHECK-LABEL: sym_name = "sharded"
// CHECK: "pipeline.schedule"() ({
// CHECK-NEXT: "pipeline.stage"() ({
// CHECK-NEXT: %[[W:.*]] = "pipeline.remote_load"() {buffer = "fc1.weight", ipu_id = 3 : i64} : () -> tensor<4xf32>
// CHECK-NEXT: "pipeline.output"(%[[W]]) {index = 0 : i64} : (tensor<4xf32>) -> ()
// CHECK-NEXT: }) {ipu_id = 3 : i64, stage_id = 1 : i64} : () -> ()
// CHECK-NEXT: "pipeline.stage"() ({
// CHECK-NEXT: "pipeline.remote_store"(%arg0) {buffer = "fc1.weight", ipu_id = 0 : i64} : (tensor<4xf32>) -> ()
// CHECK-NEXT: }) {ipu_id = 0 : i64, stage_id = 0 : i64} : () -> ()
// CHECK-NEXT: "pipeline.stage"() ({
// CHECK-NEXT: ^bb0:
// CHECK-NEXT: }) {ipu_id = 1 : i64, stage_id = 2 : i64} : () -> ()
// CHECK-NEXT: }) {device_iterations = 1 : i64, gradient_accumulation = 1 : i64, kind = "sharded", num_ipus = 4 : i64, num_stages = 3 : i64, training = false} : () -> ()
// CHECK-NEXT: "pipeline.schedule"() ({
// CHECK-NEXT: ^bb0:
// CHECK-NEXT: }) {device_iterations = 1 : i64, gradient_accumulation = 2 : i64, kind = "sharded", num_ipus = 64 : i64, num_stages = 1 : i64, training = true} : () -> ()
func.func @sharded(%w: tensor<4xf32>) {
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      %0 = "pipeline.remote_load"() {buffer = "fc1.weight", ipu_id = 3 : i64} : () -> tensor<4xf32>
      "pipeline.output"(%0) {index = 0 : i64} : (tensor<4xf32>) -> ()
    }) {stage_id = 1 : i64, ipu_id = 3 : i64} : () -> ()
    "pipeline.stage"() ({
      "pipeline.remote_store"(%w) {buffer = "fc1.weight", ipu_id = 0 : i64} : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.stage"() ({
    ^bb0:
    }) {stage_id = 2 : i64, ipu_id = 1 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 3 : i64, num_ipus = 4 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  "pipeline.schedule"() ({
  ^bb0:
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 64 : i64, training = true, device_iterations = 1 : i64, gradient_accumulation = 2 : i64} : () -> ()
  return
}
// IRDL: error: block with no terminator, has "pipeline.output"(%{{.*}}) {index = 0 : i64} : (tensor<4xf32>) -> ()
// IRDL-NOT: error: {{(?!block with no terminator)}}

// -----

// Phased execution: phases hold the stages that run in parallel; values cross a phase
// boundary through streaming memory (phased_serial) or an IPU-to-IPU copy
// (phased_parallel, here between two stages of one phase).
// CHECK-LABEL: sym_name = "phased"
// CHECK: "pipeline.schedule"() ({
// CHECK-NEXT: "pipeline.phase"() ({
// CHECK-NEXT: "pipeline.stage"() ({
// CHECK-NEXT: "pipeline.remote_store"(%arg0) {buffer = "phase0.out", ipu_id = 0 : i64} : (tensor<4xf32>) -> ()
// CHECK-NEXT: }) {ipu_id = 0 : i64, stage_id = 0 : i64} : () -> ()
// CHECK-NEXT: }) {phase_id = 0 : i64} : () -> ()
// CHECK-NEXT: "pipeline.phase"() ({
// CHECK-NEXT: "pipeline.stage"() ({
// CHECK-NEXT: %[[IN:.*]] = "pipeline.remote_load"() {buffer = "phase0.out", ipu_id = 1 : i64} : () -> tensor<4xf32>
// CHECK-NEXT: "pipeline.output"(%[[IN]]) {index = 0 : i64} : (tensor<4xf32>) -> ()
// CHECK-NEXT: }) {ipu_id = 1 : i64, stage_id = 1 : i64} : () -> ()
// CHECK-NEXT: }) {phase_id = 1 : i64} : () -> ()
// CHECK-NEXT: }) {device_iterations = 2 : i64, gradient_accumulation = 1 : i64, kind = "phased_serial", num_ipus = 2 : i64, num_stages = 2 : i64, training = false} : () -> ()
// CHECK-NEXT: "pipeline.schedule"() ({
// CHECK-NEXT: "pipeline.phase"() ({
// CHECK-NEXT: "pipeline.stage"() ({
// CHECK-NEXT: "pipeline.send"(%arg1) {channel = "p0.s0_to_s1", dst_ipu = 7 : i64, src_ipu = 0 : i64} : (!torch.vtensor<[2,2],si64>) -> ()
// CHECK-NEXT: }) {ipu_id = 0 : i64, stage_id = 0 : i64} : () -> ()
// CHECK-NEXT: "pipeline.stage"() ({
// CHECK-NEXT: %[[R:.*]] = "pipeline.recv"() {channel = "p0.s0_to_s1", dst_ipu = 7 : i64, src_ipu = 0 : i64} : () -> !torch.vtensor<[2,2],si64>
// CHECK-NEXT: "pipeline.output"(%[[R]]) {index = 0 : i64} : (!torch.vtensor<[2,2],si64>) -> ()
// CHECK-NEXT: }) {ipu_id = 7 : i64, stage_id = 1 : i64} : () -> ()
// CHECK-NEXT: }) {phase_id = 0 : i64} : () -> ()
// CHECK-NEXT: }) {device_iterations = 1 : i64, gradient_accumulation = 8 : i64, kind = "phased_parallel", num_ipus = 8 : i64, num_stages = 2 : i64, training = true} : () -> ()
func.func @phased(%x: tensor<4xf32>, %ids: !torch.vtensor<[2,2],si64>) {
  "pipeline.schedule"() ({
    "pipeline.phase"() ({
      "pipeline.stage"() ({
        "pipeline.remote_store"(%x) {buffer = "phase0.out", ipu_id = 0 : i64} : (tensor<4xf32>) -> ()
      }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    }) {phase_id = 0 : i64} : () -> ()
    "pipeline.phase"() ({
      "pipeline.stage"() ({
        %in = "pipeline.remote_load"() {buffer = "phase0.out", ipu_id = 1 : i64} : () -> tensor<4xf32>
        "pipeline.output"(%in) {index = 0 : i64} : (tensor<4xf32>) -> ()
      }) {stage_id = 1 : i64, ipu_id = 1 : i64} : () -> ()
    }) {phase_id = 1 : i64} : () -> ()
  }) {kind = "phased_serial", num_stages = 2 : i64, num_ipus = 2 : i64, training = false, device_iterations = 2 : i64, gradient_accumulation = 1 : i64} : () -> ()
  "pipeline.schedule"() ({
    "pipeline.phase"() ({
      "pipeline.stage"() ({
        "pipeline.send"(%ids) {channel = "p0.s0_to_s1", src_ipu = 0 : i64, dst_ipu = 7 : i64} : (!torch.vtensor<[2,2],si64>) -> ()
      }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
      "pipeline.stage"() ({
        %r = "pipeline.recv"() {channel = "p0.s0_to_s1", src_ipu = 0 : i64, dst_ipu = 7 : i64} : () -> !torch.vtensor<[2,2],si64>
        "pipeline.output"(%r) {index = 0 : i64} : (!torch.vtensor<[2,2],si64>) -> ()
      }) {stage_id = 1 : i64, ipu_id = 7 : i64} : () -> ()
    }) {phase_id = 0 : i64} : () -> ()
  }) {kind = "phased_parallel", num_stages = 2 : i64, num_ipus = 8 : i64, training = true, device_iterations = 1 : i64, gradient_accumulation = 8 : i64} : () -> ()
  return
}
// IRDL: error: block with no terminator, has "pipeline.remote_store"(%arg0) {buffer = "phase0.out", ipu_id = 0 : i64} : (tensor<4xf32>) -> ()
// IRDL-NOT: error: {{(?!block with no terminator)}}

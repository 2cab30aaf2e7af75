// RUN: ipu-opt %s --split-input-file | FileCheck %s --check-prefixes=CHECK,MOVE
// RUN: ipu-opt %s --split-input-file | ipu-opt --split-input-file | FileCheck %s --check-prefixes=CHECK,MOVE
// The stock C++ tool verifies the data-movement ops with the generated IRDL. It cannot
// verify the region ops: IRDL has no traits, so it does not know that pipeline.yield is
// a terminator and rejects every stage, phase and schedule body.
// RUN: not torch-mlir-opt --irdl-file=%irdl_dir/pipeline.irdl.mlir --split-input-file --mlir-print-op-generic %s 2>/dev/null | FileCheck %s --check-prefix=MOVE
// RUN: not torch-mlir-opt --irdl-file=%irdl_dir/pipeline.irdl.mlir --split-input-file %s 2>&1 >/dev/null | FileCheck %s --check-prefix=IRDL

// Round trip of every op of the `pipeline` dialect. The data-movement ops come first;
// then one schedule per execution strategy.

// Inter-IPU copies, activation stashes and streaming memory, on Torch-dialect values
// and builtin tensors.
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

// -----

// Pipelined inference: two stages on two IPUs overlap on successive micro-batches,
// so device_iterations (4) is at least the number of stages.
// CHECK-LABEL: sym_name = "pipelined_inference"
// CHECK: %[[R:.*]] = "pipeline.schedule"(%arg0) ({
// CHECK-NEXT: ^bb0(%[[A:.*]]: !torch.vtensor<[2],f32>):
// CHECK-NEXT: "pipeline.stage"(%[[A]]) ({
// CHECK-NEXT: ^bb0(%[[B:.*]]: !torch.vtensor<[2],f32>):
// CHECK-NEXT: %[[H:.*]] = "torch.aten.relu"(%[[B]])
// CHECK-NEXT: "pipeline.send"(%[[H]]) {channel = "s0_to_s1", dst_ipu = 1 : i64, src_ipu = 0 : i64}
// CHECK-NEXT: "pipeline.yield"() : () -> ()
// CHECK-NEXT: }) {ipu_id = 0 : i64, stage_id = 0 : i64} : (!torch.vtensor<[2],f32>) -> ()
// CHECK-NEXT: %[[S1:.*]] = "pipeline.stage"() ({
// CHECK-NEXT: %[[IN:.*]] = "pipeline.recv"() {channel = "s0_to_s1", dst_ipu = 1 : i64, src_ipu = 0 : i64} : () -> !torch.vtensor<[2],f32>
// CHECK-NEXT: %[[Y:.*]] = "torch.aten.tanh"(%[[IN]])
// CHECK-NEXT: "pipeline.yield"(%[[Y]]) : (!torch.vtensor<[2],f32>) -> ()
// CHECK-NEXT: }) {ipu_id = 1 : i64, stage_id = 1 : i64} : () -> !torch.vtensor<[2],f32>
// CHECK-NEXT: "pipeline.yield"(%[[S1]]) : (!torch.vtensor<[2],f32>) -> ()
// CHECK-NEXT: }) {device_iterations = 4 : i64, gradient_accumulation = 1 : i64, kind = "pipelined", num_ipus = 2 : i64, num_stages = 2 : i64, training = false} : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
// CHECK-NEXT: "func.return"(%[[R]])
func.func @pipelined_inference(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %r = "pipeline.schedule"(%x) ({
  ^bb0(%a: !torch.vtensor<[2],f32>):
    "pipeline.stage"(%a) ({
    ^bb0(%b: !torch.vtensor<[2],f32>):
      %h = torch.aten.relu %b : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32>
      "pipeline.send"(%h) {channel = "s0_to_s1", src_ipu = 0 : i64, dst_ipu = 1 : i64} : (!torch.vtensor<[2],f32>) -> ()
      "pipeline.yield"() : () -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : (!torch.vtensor<[2],f32>) -> ()
    %s1 = "pipeline.stage"() ({
      %in = "pipeline.recv"() {channel = "s0_to_s1", src_ipu = 0 : i64, dst_ipu = 1 : i64} : () -> !torch.vtensor<[2],f32>
      %y = torch.aten.tanh %in : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32>
      "pipeline.yield"(%y) : (!torch.vtensor<[2],f32>) -> ()
    }) {stage_id = 1 : i64, ipu_id = 1 : i64} : () -> !torch.vtensor<[2],f32>
    "pipeline.yield"(%s1) : (!torch.vtensor<[2],f32>) -> ()
  }) {kind = "pipelined", num_stages = 2 : i64, num_ipus = 2 : i64, training = false, device_iterations = 4 : i64, gradient_accumulation = 1 : i64} : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
  return %r : !torch.vtensor<[2],f32>
}

// -----

// Pipelined training over 2 IPUs: 3 stages (2p - 1 with p = 2 forward stages), the
// forward activation of stage 0 stashed until its backward stage 2 restores it, and
// gradient_accumulation (4) at least the number of stages.
// CHECK-LABEL: sym_name = "pipelined_training"
// CHECK: "pipeline.schedule"(%arg0) ({
// CHECK: "pipeline.stash"(%{{.*}}) {depth = 3 : i64, stash_id = "s0.act0"} : (tensor<4xf32>) -> ()
// CHECK: }) {ipu_id = 0 : i64, stage_id = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: }) {ipu_id = 1 : i64, stage_id = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: "pipeline.restore"() {depth = 3 : i64, stash_id = "s0.act0"} : () -> tensor<4xf32>
// CHECK: }) {ipu_id = 0 : i64, stage_id = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: }) {device_iterations = 1 : i64, gradient_accumulation = 4 : i64, kind = "pipelined", num_ipus = 2 : i64, num_stages = 3 : i64, training = true} : (tensor<4xf32>) -> tensor<4xf32>
func.func @pipelined_training(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "pipeline.schedule"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %f0 = "pipeline.stage"(%a) ({
    ^bb0(%b: tensor<4xf32>):
      "pipeline.stash"(%b) {stash_id = "s0.act0", depth = 3 : i64} : (tensor<4xf32>) -> ()
      "pipeline.yield"(%b) : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %f1 = "pipeline.stage"(%f0) ({
    ^bb0(%b: tensor<4xf32>):
      "pipeline.yield"(%b) : (tensor<4xf32>) -> ()
    }) {stage_id = 1 : i64, ipu_id = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %g0 = "pipeline.stage"(%f1) ({
    ^bb0(%b: tensor<4xf32>):
      %act = "pipeline.restore"() {stash_id = "s0.act0", depth = 3 : i64} : () -> tensor<4xf32>
      "pipeline.yield"(%act) : (tensor<4xf32>) -> ()
    }) {stage_id = 2 : i64, ipu_id = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    "pipeline.yield"(%g0) : (tensor<4xf32>) -> ()
  }) {kind = "pipelined", num_stages = 3 : i64, num_ipus = 2 : i64, training = true, device_iterations = 1 : i64, gradient_accumulation = 4 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Sharded execution runs the stages one after the other, so it has no minimum on
// device_iterations or gradient_accumulation. Bodies are not isolated from above: a
// stage may use values of the enclosing regions, and a schedule may have no operands
// or results.
// CHECK-LABEL: sym_name = "sharded"
// CHECK: "pipeline.schedule"() ({
// CHECK: }) {device_iterations = 1 : i64, gradient_accumulation = 1 : i64, kind = "sharded", num_ipus = 4 : i64, num_stages = 2 : i64, training = false} : () -> ()
// CHECK: "pipeline.schedule"() ({
// CHECK: }) {device_iterations = 1 : i64, gradient_accumulation = 2 : i64, kind = "sharded", num_ipus = 64 : i64, num_stages = 1 : i64, training = true} : () -> ()
func.func @sharded(%x: tensor<4xf32>) {
  "pipeline.schedule"() ({
    %h = "pipeline.stage"() ({
      "pipeline.yield"(%x) : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> tensor<4xf32>
    "pipeline.stage"() ({
      "pipeline.remote_store"(%h) {buffer = "out", ipu_id = 3 : i64} : (tensor<4xf32>) -> ()
      "pipeline.yield"() : () -> ()
    }) {stage_id = 1 : i64, ipu_id = 3 : i64} : () -> ()
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = 2 : i64, num_ipus = 4 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  "pipeline.schedule"() ({
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 64 : i64, training = true, device_iterations = 1 : i64, gradient_accumulation = 2 : i64} : () -> ()
  return
}

// -----

// Phased execution: phases hold the stages that run in parallel; values cross a phase
// boundary through streaming memory or an IPU-to-IPU copy.
// CHECK-LABEL: sym_name = "phased"
// CHECK: "pipeline.schedule"(%arg0) ({
// CHECK: %[[P0:.*]] = "pipeline.phase"(%{{.*}}) ({
// CHECK: "pipeline.stage"(%{{.*}}) ({
// CHECK: }) {ipu_id = 0 : i64, stage_id = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: "pipeline.remote_store"(%{{.*}}) {buffer = "phase0.out", ipu_id = 0 : i64} : (tensor<4xf32>) -> ()
// CHECK: }) {phase_id = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: "pipeline.phase"(%[[P0]]) ({
// CHECK: "pipeline.remote_load"() {buffer = "phase0.out", ipu_id = 1 : i64} : () -> tensor<4xf32>
// CHECK: }) {phase_id = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: }) {device_iterations = 2 : i64, gradient_accumulation = 1 : i64, kind = "phased_serial", num_ipus = 2 : i64, num_stages = 2 : i64, training = false} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: "pipeline.schedule"() ({
// CHECK: "pipeline.phase"() ({
// CHECK: }) {phase_id = 0 : i64} : () -> ()
// CHECK: }) {device_iterations = 1 : i64, gradient_accumulation = 8 : i64, kind = "phased_parallel", num_ipus = 8 : i64, num_stages = 1 : i64, training = true} : () -> ()
func.func @phased(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "pipeline.schedule"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %p0 = "pipeline.phase"(%a) ({
    ^bb0(%b: tensor<4xf32>):
      %h = "pipeline.stage"(%b) ({
      ^bb0(%c: tensor<4xf32>):
        "pipeline.yield"(%c) : (tensor<4xf32>) -> ()
      }) {stage_id = 0 : i64, ipu_id = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
      "pipeline.remote_store"(%h) {buffer = "phase0.out", ipu_id = 0 : i64} : (tensor<4xf32>) -> ()
      "pipeline.yield"(%h) : (tensor<4xf32>) -> ()
    }) {phase_id = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %p1 = "pipeline.phase"(%p0) ({
    ^bb0(%b: tensor<4xf32>):
      %h = "pipeline.stage"() ({
        %in = "pipeline.remote_load"() {buffer = "phase0.out", ipu_id = 1 : i64} : () -> tensor<4xf32>
        "pipeline.yield"(%in) : (tensor<4xf32>) -> ()
      }) {stage_id = 1 : i64, ipu_id = 1 : i64} : () -> tensor<4xf32>
      "pipeline.yield"(%h) : (tensor<4xf32>) -> ()
    }) {phase_id = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    "pipeline.yield"(%p1) : (tensor<4xf32>) -> ()
  }) {kind = "phased_serial", num_stages = 2 : i64, num_ipus = 2 : i64, training = false, device_iterations = 2 : i64, gradient_accumulation = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  "pipeline.schedule"() ({
    "pipeline.phase"() ({
      "pipeline.yield"() : () -> ()
    }) {phase_id = 0 : i64} : () -> ()
    "pipeline.yield"() : () -> ()
  }) {kind = "phased_parallel", num_stages = 1 : i64, num_ipus = 8 : i64, training = true, device_iterations = 1 : i64, gradient_accumulation = 8 : i64} : () -> ()
  return %r : tensor<4xf32>
}

// Every chunk with a region op stops at its first body in the stock tool.
// IRDL-COUNT-4: error: block with no terminator, has "pipeline.yield"
// IRDL-NOT: error:

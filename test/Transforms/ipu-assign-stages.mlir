// RUN: ipu-opt %s -p ipu-annotate-blocks,ipu-assign-stages --split-input-file | FileCheck %s

// Every op gets pipeline.stage and pipeline.ipu; the function gets pipeline.plan and loses
// ipu.strategy (the plan line below is the whole attribute dictionary of the function).

// AutoStage.SameAsIpu is the default: stage_id = ipu_id.
// CHECK-LABEL: sym_name = "same_as_ipu"
// CHECK: %[[A:.*]] = "torch.aten.relu"(%arg0) {ipu.block = #ipu.block<"b0", 0 : i64>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64}
// CHECK: %[[B:.*]] = "torch.aten.tanh"(%[[A]]) {ipu.block = #ipu.block<"b1", 1 : i64>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK: "torch.aten.neg"(%[[B]]) {ipu.block = #ipu.block<"b1", 1 : i64>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK: }) {pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 2 : i64, 2 : i64, array<i64>>} : () -> ()
func.func @same_as_ipu(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"pipelined", "same_as_ipu", [], false, 2 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64}>["l0"("model.py":1:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", ipu_id = 1 : i64}>["l1"("model.py":2:1)])
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", ipu_id = 1 : i64}>["l1"("model.py":3:1)])
  return %2 : !torch.vtensor<[2],f32>
}

// -----

// AutoStage.AutoIncrement: each new block is the next stage, whatever its IPU (A and B
// share IPU 0 but not a stage); a block without ipu_id goes on the IPU of its position.
// CHECK-LABEL: sym_name = "auto_increment"
// CHECK: "torch.aten.relu"(%arg0) {ipu.block = #ipu.block<"A", 0 : i64>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64}
// CHECK: "torch.aten.tanh"(%{{.*}}) {ipu.block = #ipu.block<"B", 0 : i64>, pipeline.ipu = 0 : i64, pipeline.stage = 1 : i64}
// CHECK: "torch.aten.neg"(%{{.*}}) {ipu.block = #ipu.block<"C", 1 : i64>, pipeline.ipu = 1 : i64, pipeline.stage = 2 : i64}
// CHECK: "torch.aten.exp"(%{{.*}}) {ipu.block = #ipu.block<"D", -1 : i64>, pipeline.ipu = 3 : i64, pipeline.stage = 3 : i64}
// CHECK: }) {pipeline.plan = #pipeline.plan<"pipelined", 4 : i64, 4 : i64, 4 : i64, array<i64>>} : () -> ()
func.func @auto_increment(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"pipelined", "auto_increment", [], false, 4 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "A", ipu_id = 0 : i64}>["a"("model.py":1:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "B", ipu_id = 0 : i64}>["b"("model.py":2:1)])
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "C", ipu_id = 1 : i64}>["c"("model.py":3:1)])
  %3 = torch.aten.exp %2 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "D"}>["d"("model.py":4:1)])
  return %3 : !torch.vtensor<[2],f32>
}

// -----

// Explicit stages: the stage index is the position in the list; Stage(...).ipu(n) overrides
// the blocks' ipu_id (A: 0 -> 1, B: 1 -> 0); a stage without ipu keeps the block's (C on 1).
// CHECK-LABEL: sym_name = "explicit_ipu"
// CHECK: "torch.aten.relu"(%arg0) {ipu.block = #ipu.block<"A", 0 : i64>, pipeline.ipu = 1 : i64, pipeline.stage = 0 : i64}
// CHECK: "torch.aten.tanh"(%{{.*}}) {ipu.block = #ipu.block<"B", 1 : i64>, pipeline.ipu = 0 : i64, pipeline.stage = 1 : i64}
// CHECK: "torch.aten.neg"(%{{.*}}) {ipu.block = #ipu.block<"C", 1 : i64>, pipeline.ipu = 1 : i64, pipeline.stage = 2 : i64}
// CHECK: }) {pipeline.plan = #pipeline.plan<"pipelined", 3 : i64, 3 : i64, 2 : i64, array<i64>>} : () -> ()
func.func @explicit_ipu(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"pipelined", "same_as_ipu", [#ipu.stage<["A"], 1 : i64>, #ipu.stage<["B"], 0 : i64>, #ipu.stage<["C"], -1 : i64>], false, 3 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "A", ipu_id = 0 : i64}>["a"("model.py":1:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "B", ipu_id = 1 : i64}>["b"("model.py":2:1)])
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "C", ipu_id = 1 : i64}>["c"("model.py":3:1)])
  return %2 : !torch.vtensor<[2],f32>
}

// -----

// Several blocks in one stage: Stage("A", "B").ipu(0), Stage("C").ipu(1).
// CHECK-LABEL: sym_name = "blocks_in_one_stage"
// CHECK: "torch.aten.relu"(%arg0) {ipu.block = #ipu.block<"A", -1 : i64>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64}
// CHECK: "torch.aten.tanh"(%{{.*}}) {ipu.block = #ipu.block<"B", -1 : i64>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64}
// CHECK: "torch.aten.neg"(%{{.*}}) {ipu.block = #ipu.block<"C", -1 : i64>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK: }) {pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 2 : i64, 2 : i64, array<i64>>} : () -> ()
func.func @blocks_in_one_stage(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"pipelined", "same_as_ipu", [#ipu.stage<["A", "B"], 0 : i64>, #ipu.stage<["C"], 1 : i64>], false, 2 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "A"}>["a"("model.py":1:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "B"}>["b"("model.py":2:1)])
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "C"}>["c"("model.py":3:1)])
  return %2 : !torch.vtensor<[2],f32>
}

// -----

// ShardedExecution: stages run one after another, so a stage may come back to a lower
// stage id (an error when pipelined) and deviceIterations = 1 is enough.
// CHECK-LABEL: sym_name = "sharded"
// CHECK: "torch.aten.relu"(%arg0) {ipu.block = #ipu.block<"b1", 1 : i64>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK: "torch.aten.tanh"(%{{.*}}) {ipu.block = #ipu.block<"b0", 0 : i64>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64}
// CHECK: }) {pipeline.plan = #pipeline.plan<"sharded", 2 : i64, 2 : i64, 2 : i64, array<i64>>} : () -> ()
func.func @sharded(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"sharded", "same_as_ipu", [], false, 1 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", ipu_id = 1 : i64}>["l1"("model.py":1:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64}>["l0"("model.py":2:1)])
  return %1 : !torch.vtensor<[2],f32>
}

// -----

// Ops before the first block run on IPU 0 in stage 0, even when the first block is on
// IPU 1; a constant after the first block stays where the program is.
// CHECK-LABEL: sym_name = "before_first_block"
// CHECK: "torch.constant.int"() <{value = 1 : i64}> {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64}
// CHECK: "torch.aten.relu"(%arg0) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64}
// CHECK: "torch.aten.tanh"(%{{.*}}) {ipu.block = #ipu.block<"head", 1 : i64>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK: "torch.constant.int"() <{value = 2 : i64}> {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK: "torch.aten.add.Tensor"(%{{.*}}) {ipu.block = #ipu.block<"head", 1 : i64>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK: }) {pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 2 : i64, 2 : i64, array<i64>>} : () -> ()
func.func @before_first_block(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"pipelined", "same_as_ipu", [], false, 2 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %int1 = torch.constant.int 1 loc(fused<{seq_nr = 0 : i64}>["embed"("model.py":1:1)])
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{seq_nr = 1 : i64}>["embed"("model.py":1:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "head", ipu_id = 1 : i64, seq_nr = 2 : i64}>["head"("model.py":2:1)])
  %int2 = torch.constant.int 2 loc(fused<{seq_nr = 3 : i64}>["head"("model.py":3:1)])
  %2 = torch.aten.add.Tensor %1, %0, %int2 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.int -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "head", ipu_id = 1 : i64, seq_nr = 4 : i64}>["head"("model.py":3:1)])
  return %2 : !torch.vtensor<[2],f32>
}

// -----

// Pipelined training over p = 3 forward stages (IPUs 0, 1, 3): 2p - 1 = 5 stages in all and
// G = 5 is enough. A backward op of forward stage s gets stage 2p - 2 - s = 4 - s on the
// IPU of s; the last forward stage and the first backward stage are one (stage 2).
// CHECK-LABEL: sym_name = "training"
// CHECK: %[[F0:.*]] = "torch.aten.relu"(%arg0) {ipu.block = #ipu.block<"b0", 0 : i64>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64}
// CHECK: %[[F1:.*]] = "torch.aten.tanh"(%[[F0]]) {ipu.block = #ipu.block<"b1", 1 : i64>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK: %[[F2:.*]] = "torch.aten.neg"(%[[F1]]) {ipu.block = #ipu.block<"b2", 3 : i64>, pipeline.ipu = 3 : i64, pipeline.stage = 2 : i64}
// CHECK: %[[B2:.*]] = "torch.aten.neg"(%[[F2]]) {ipu.block = #ipu.block<"b2", 3 : i64>, pipeline.ipu = 3 : i64, pipeline.stage = 2 : i64}
// CHECK: %[[B1:.*]] = "torch.aten.mul.Tensor"(%[[B2]], %[[F1]]) {ipu.block = #ipu.block<"b1", 1 : i64>, pipeline.ipu = 1 : i64, pipeline.stage = 3 : i64}
// CHECK: %[[B0:.*]] = "torch.aten.mul.Tensor"(%[[B1]], %[[F0]]) {ipu.block = #ipu.block<"b0", 0 : i64>, pipeline.ipu = 0 : i64, pipeline.stage = 4 : i64}
// CHECK: "torch.aten.exp"(%[[B0]]) {ipu.block = #ipu.block<"b0", 0 : i64>, pipeline.ipu = 0 : i64, pipeline.stage = 4 : i64}
// CHECK: }) {pipeline.plan = #pipeline.plan<"pipelined", 3 : i64, 5 : i64, 4 : i64, array<i64>>} : () -> ()
func.func @training(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"pipelined", "same_as_ipu", [], true, 1 : i64, 5 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64, seq_nr = 1 : i64}>["l0"("model.py":1:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", ipu_id = 1 : i64, seq_nr = 2 : i64}>["l1"("model.py":2:1)])
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b2", ipu_id = 3 : i64, seq_nr = 3 : i64}>["l2"("model.py":3:1)])
  %3 = torch.aten.neg %2 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 3 : i64}>["l2"("model.py":3:1)])
  %4 = torch.aten.mul.Tensor %3, %1 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 2 : i64}>["l1"("model.py":2:1)])
  %5 = torch.aten.mul.Tensor %4, %0 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 1 : i64}>["l0"("model.py":1:1)])
  %6 = torch.aten.exp %5 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true}>["l0"("model.py":1:1)])
  return %6 : !torch.vtensor<[2],f32>
}

// -----

// autoRoundNumIPUs(True): 3 IPUs round up to 4; the fourth stays idle.
// CHECK-LABEL: sym_name = "auto_round"
// CHECK: "torch.aten.relu"(%arg0) {ipu.block = #ipu.block<"b0", 0 : i64>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64}
// CHECK: "torch.aten.tanh"(%{{.*}}) {ipu.block = #ipu.block<"b1", 1 : i64>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK: "torch.aten.neg"(%{{.*}}) {ipu.block = #ipu.block<"b2", 2 : i64>, pipeline.ipu = 2 : i64, pipeline.stage = 2 : i64}
// CHECK: }) {pipeline.plan = #pipeline.plan<"pipelined", 3 : i64, 3 : i64, 4 : i64, array<i64>>} : () -> ()
func.func @auto_round(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"pipelined", "same_as_ipu", [], false, 3 : i64, 1 : i64, 1 : i64, true, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64}>["l0"("model.py":1:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", ipu_id = 1 : i64}>["l1"("model.py":2:1)])
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b2", ipu_id = 2 : i64}>["l2"("model.py":3:1)])
  return %2 : !torch.vtensor<[2],f32>
}

// -----

// With replication the rounding is on R x (IPUs per replica): 2 x 3 = 6 -> 8, so 4 per replica.
// CHECK-LABEL: sym_name = "auto_round_replicated"
// CHECK: }) {pipeline.plan = #pipeline.plan<"sharded", 3 : i64, 3 : i64, 4 : i64, array<i64>>} : () -> ()
func.func @auto_round_replicated(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"sharded", "same_as_ipu", [], false, 1 : i64, 1 : i64, 2 : i64, true, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64}>["l0"("model.py":1:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", ipu_id = 1 : i64}>["l1"("model.py":2:1)])
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b2", ipu_id = 2 : i64}>["l2"("model.py":3:1)])
  return %2 : !torch.vtensor<[2],f32>
}

// -----

// Pipelined training, p = 2: the backward of a forward op before the first block (same
// seq_nr, no block) runs in the last stage, 2p - 2 = 2, on IPU 0 like its forward op, not
// in the stage and on the IPU of the code before it ("head": stage 1, IPU 1). %3 carries
// "head" in its location, as autograd traced it; %4 has no block metadata at all.
// CHECK-LABEL: sym_name = "training_before_first_block"
// CHECK: %[[F0:.*]] = "torch.aten.relu"(%arg0) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64}
// CHECK: %[[F1:.*]] = "torch.aten.tanh"(%[[F0]]) {ipu.block = #ipu.block<"head", 1 : i64>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK: %[[B1:.*]] = "torch.aten.neg"(%[[F1]]) {ipu.block = #ipu.block<"head", 1 : i64>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK: %[[B0:.*]] = "torch.aten.mul.Tensor"(%[[B1]], %[[F0]]) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64}
// CHECK: "torch.aten.exp"(%[[F0]]) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64}
// CHECK: }) {pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 3 : i64, 2 : i64, array<i64>>} : () -> ()
func.func @training_before_first_block(%x: !torch.vtensor<[2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) attributes {ipu.strategy = #ipu.strategy<"pipelined", "same_as_ipu", [], true, 1 : i64, 3 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{seq_nr = 1 : i64}>["embed"("model.py":1:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "head", ipu_id = 1 : i64, seq_nr = 2 : i64}>["head"("model.py":2:1)])
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, ipu_block = "head", ipu_id = 1 : i64, seq_nr = 2 : i64}>["head"("model.py":2:1)])
  %3 = torch.aten.mul.Tensor %2, %0 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, ipu_block = "head", ipu_id = 1 : i64, seq_nr = 1 : i64}>["embed"("model.py":1:1)])
  %4 = torch.aten.exp %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 1 : i64}>["embed"("model.py":1:1)])
  return %3, %4 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>
}

// -----

// Pipelined training, p = 2: a gradient summed over two uses runs once both parts are
// ready. %4 is tagged with block "b1" (stage 1) but reads b0's backward (stage 2), so it
// runs in stage 2 on IPU 0; %5 (no block) reads stages 1 and 2 and also goes to stage 2.
// CHECK-LABEL: sym_name = "training_gradient_sum"
// CHECK: "torch.aten.neg"{{.*}}pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64
// CHECK: "torch.aten.neg"{{.*}}pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64
// CHECK: "torch.aten.add.Tensor"{{.*}}ipu.block = #ipu.block<"b1", 1 : i64>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64
// CHECK: "torch.aten.sub.Tensor"{{.*}}{pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64}
func.func @training_gradient_sum(%x: !torch.vtensor<[2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) attributes {ipu.strategy = #ipu.strategy<"pipelined", "same_as_ipu", [], true, 1 : i64, 3 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %int1 = torch.constant.int 1
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64, seq_nr = 1 : i64}>["b0"("model.py":1:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", ipu_id = 1 : i64, seq_nr = 2 : i64}>["b1"("model.py":2:1)])
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, ipu_block = "b1", ipu_id = 1 : i64, seq_nr = 2 : i64}>["b1"("model.py":2:1)])
  %3 = torch.aten.neg %2 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, ipu_block = "b0", ipu_id = 0 : i64, seq_nr = 1 : i64}>["b0"("model.py":1:1)])
  %4 = torch.aten.add.Tensor %2, %3, %int1 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.int -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, ipu_block = "b1", ipu_id = 1 : i64, seq_nr = 2 : i64}>["b1"("model.py":2:1)])
  %5 = torch.aten.sub.Tensor %2, %3, %int1 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.int -> !torch.vtensor<[2],f32> loc(fused<{bwd = true}>["b1"("model.py":2:1)])
  return %4, %5 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>
}

// -----

// SerialPhasedExecution training: three phases of one stage each on IPU 0 (b0, b1, b2).
// Each backward op of forward stage i gets its own stage 2S - 1 - i (S = 3), and the
// phases say where each stage runs: forward 0, 1, 2, backward 2, 1, 0 -> phases 2, 3, 4
// (the last forward phase shared, SEMANTICS: 0, 1, 2 -> 4, 3, 2).
// CHECK-LABEL: sym_name = "serial_phased"
// CHECK: "torch.aten.relu"(%arg0) {{.*}}pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64}
// CHECK: "torch.aten.neg"(%{{.*}}) {{.*}}"b2"{{.*}}pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64}
// CHECK: "torch.aten.neg"(%{{.*}}) {{.*}}pipeline.ipu = 0 : i64, pipeline.stage = 3 : i64}
// CHECK: "torch.aten.mul.Tensor"(%{{.*}}) {{.*}}pipeline.ipu = 0 : i64, pipeline.stage = 4 : i64}
// CHECK: "torch.aten.mul.Tensor"(%{{.*}}) {{.*}}pipeline.ipu = 0 : i64, pipeline.stage = 5 : i64}
// CHECK: }) {pipeline.phases = #pipeline.phases<"off_chip_after_fwd", 3 : i64, array<i64: 0, 1, 2, 2, 3, 4>>, pipeline.plan = #pipeline.plan<"phased_serial", 3 : i64, 6 : i64, 1 : i64, array<i64>>} : () -> ()
func.func @serial_phased(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"phased_serial", "same_as_ipu", [#ipu.stage<["b0"], 0 : i64>, #ipu.stage<["b1"], 0 : i64>, #ipu.stage<["b2"], 0 : i64>], true, 1 : i64, 1 : i64, 1 : i64, false, array<i64: 0, 1, 2>, "off_chip_after_fwd", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", seq_nr = 1 : i64}>["l0"("model.py":1:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", seq_nr = 2 : i64}>["l1"("model.py":2:1)])
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b2", seq_nr = 3 : i64}>["l2"("model.py":3:1)])
  %3 = torch.aten.neg %2 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 3 : i64}>["l2"("model.py":3:1)])
  %4 = torch.aten.mul.Tensor %3, %1 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 2 : i64}>["l1"("model.py":2:1)])
  %5 = torch.aten.mul.Tensor %4, %0 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 1 : i64}>["l0"("model.py":1:1)])
  return %5 : !torch.vtensor<[2],f32>
}

// -----

// ParallelPhasedExecution with a separate backward phase: phases alternate IPUs 0, 1, 0,
// and the backward of phases 0, 1, 2 runs in phases 6, 5, 4 (2N - k), none shared.
// CHECK-LABEL: sym_name = "parallel_phased_separate"
// CHECK: "torch.aten.relu"(%arg0) {{.*}}pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64}
// CHECK: "torch.aten.tanh"(%{{.*}}) {{.*}}pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK: "torch.aten.mul.Tensor"(%{{.*}}) {{.*}}pipeline.ipu = 1 : i64, pipeline.stage = 4 : i64}
// CHECK: }) {pipeline.phases = #pipeline.phases<"always_live", 3 : i64, array<i64: 0, 1, 2, 4, 5, 6>>, pipeline.plan = #pipeline.plan<"phased_parallel", 3 : i64, 6 : i64, 2 : i64, array<i64>>} : () -> ()
func.func @parallel_phased_separate(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"phased_parallel", "same_as_ipu", [#ipu.stage<["b0"], 0 : i64>, #ipu.stage<["b1"], 1 : i64>, #ipu.stage<["b2"], 0 : i64>], true, 1 : i64, 1 : i64, 1 : i64, false, array<i64: 0, 1, 2>, "always_live", true>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", seq_nr = 1 : i64}>["l0"("model.py":1:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", seq_nr = 2 : i64}>["l1"("model.py":2:1)])
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b2", seq_nr = 3 : i64}>["l2"("model.py":3:1)])
  %3 = torch.aten.neg %2 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 3 : i64}>["l2"("model.py":3:1)])
  %4 = torch.aten.mul.Tensor %3, %1 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 2 : i64}>["l1"("model.py":2:1)])
  %5 = torch.aten.mul.Tensor %4, %0 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 1 : i64}>["l0"("model.py":1:1)])
  return %5 : !torch.vtensor<[2],f32>
}

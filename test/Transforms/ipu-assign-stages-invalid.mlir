// RUN: ipu-opt %s -p ipu-annotate-blocks,ipu-assign-stages --split-input-file --verify-diagnostics
// RUN: not ipu-opt %s -p ipu-annotate-blocks,ipu-assign-stages --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=USER

// Each broken rule of SEMANTICS "Multi-IPU execution" is one located error, and each case
// reports exactly that error. Errors about the strategy point at the function. Errors
// about one op point at that op, whose location is in the user's model (model.py), not
// in this file: they are expected @unknown, and the second RUN checks the
// "model.py:<line>:<col>: error:" text a user sees for them.

// With Block only, an op after the first block must be inside a block.
// USER: model.py:11:5: error: 'torch.aten.tanh' runs after the first poptorch.Block but is in no block
func.func @outside_block(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"sharded", "same_as_ipu", [], false, 1 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "A", ipu_id = 0 : i64}>["body"("model.py":10:5)])
  // expected-error @unknown {{'torch.aten.tanh' runs after the first poptorch.Block but is in no block; with Block every later op must be inside one: widen the Block, or use poptorch.BeginBlock, whose block lasts until the next one}}
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{seq_nr = 3 : i64}>["head"("model.py":11:5)])
  return %1 : !torch.vtensor<[2],f32>
}

// -----

// Blocks run in declaration order: A, B, A is an error at the op that comes back to A.
// USER: model.py:22:5: error: block 'A' is used again after block 'B'
func.func @block_reused(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"sharded", "same_as_ipu", [], false, 1 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "A", ipu_id = 0 : i64}>["a"("model.py":20:5)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "B", ipu_id = 1 : i64}>["b"("model.py":21:5)])
  // expected-error @unknown {{block 'A' is used again after block 'B'; blocks must run in the order they are declared: give the later code its own block}}
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "A", ipu_id = 0 : i64}>["a"("model.py":22:5)])
  return %2 : !torch.vtensor<[2],f32>
}

// -----

// A block belongs to exactly one stage.
// expected-error @+1 {{block 'A' is in two stages (0 and 1); a block belongs to exactly one stage}}
func.func @block_in_two_stages(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"sharded", "same_as_ipu", [#ipu.stage<["A"], 0 : i64>, #ipu.stage<["A", "B"], 1 : i64>], false, 1 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "A"}>["a"("model.py":30:5)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "B"}>["b"("model.py":31:5)])
  return %1 : !torch.vtensor<[2],f32>
}

// -----

// A stage can only name blocks of the model; the error lists the known ones.
// expected-error @+1 {{stage 1 names block 'decoder', which the model does not have (its blocks: 'A', 'B')}}
func.func @unknown_block(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"sharded", "same_as_ipu", [#ipu.stage<["A"], 0 : i64>, #ipu.stage<["B", "decoder"], 1 : i64>], false, 1 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "A"}>["a"("model.py":40:5)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "B"}>["b"("model.py":41:5)])
  return %1 : !torch.vtensor<[2],f32>
}

// -----

// With explicit stages, every block of the model must be in one of them.
// expected-error @+1 {{block 'B' is not in any stage of the execution strategy; add it to a Stage, or let an AutoStage place the blocks}}
func.func @block_in_no_stage(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"sharded", "same_as_ipu", [#ipu.stage<["A"], 0 : i64>], false, 1 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "A"}>["a"("model.py":50:5)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "B"}>["b"("model.py":51:5)])
  return %1 : !torch.vtensor<[2],f32>
}

// -----

// AutoStage.SameAsIpu (the default) needs every block's ipu_id.
// expected-error @+1 {{block 'B' has no ipu_id, so AutoStage.SameAsIpu cannot place it; give Block(..., ipu_id=n) or use Stage(...).ipu(n)}}
func.func @no_ipu_same_as_ipu(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"sharded", "same_as_ipu", [], false, 1 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "A", ipu_id = 0 : i64}>["a"("model.py":60:5)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "B"}>["b"("model.py":61:5)])
  return %1 : !torch.vtensor<[2],f32>
}

// -----

// An explicit stage without .ipu(n) over a block without ipu_id has no IPU either.
// expected-error @+1 {{block 'B' has no IPU: give Block(..., ipu_id=...) or Stage(...).ipu(n)}}
func.func @no_ipu_explicit_stage(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"sharded", "same_as_ipu", [#ipu.stage<["A"], 0 : i64>, #ipu.stage<["B"], -1 : i64>], false, 1 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "A"}>["a"("model.py":70:5)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "B"}>["b"("model.py":71:5)])
  return %1 : !torch.vtensor<[2],f32>
}

// -----

// PipelinedExecution: stage ids rise in execution order. Under SameAsIpu, block B on IPU 0
// would be stage 0 after block A's stage 1; the error names both.
// expected-error @+1 {{block 'B' is in stage 0 but runs after block 'A' of stage 1; in PipelinedExecution stages run in increasing order: put the blocks in stages in execution order}}
func.func @stages_out_of_order(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"pipelined", "same_as_ipu", [], false, 2 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "A", ipu_id = 1 : i64}>["a"("model.py":80:5)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "B", ipu_id = 0 : i64}>["b"("model.py":81:5)])
  return %1 : !torch.vtensor<[2],f32>
}

// -----

// Explicit stages in a pipeline follow the same rule: Stage("B"), Stage("A") with A first.
// expected-error @+1 {{block 'B' is in stage 0 but runs after block 'A' of stage 1; in PipelinedExecution stages run in increasing order: put the blocks in stages in execution order}}
func.func @explicit_stages_out_of_order(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"pipelined", "same_as_ipu", [#ipu.stage<["B"], 0 : i64>, #ipu.stage<["A"], 1 : i64>], false, 2 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "A"}>["a"("model.py":90:5)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "B"}>["b"("model.py":91:5)])
  return %1 : !torch.vtensor<[2],f32>
}

// -----

// Layers that share a weight must sit on the same IPU.
// expected-error @+1 {{weight 'shared.weight' is used on IPUs [0, 1]; layers that share weights must be on the same IPU: put them in blocks on one IPU}}
func.func @shared_weight(%w: !torch.vtensor<[2],f32> {ipu.role = #ipu.role<"parameter", "shared.weight">}, %x: !torch.vtensor<[2],f32> {ipu.role = #ipu.role<"input", "input">}) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"sharded", "same_as_ipu", [], false, 1 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.mul.Tensor %x, %w : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "A", ipu_id = 0 : i64}>["enc"("model.py":100:5)])
  %1 = torch.aten.mul.Tensor %0, %w : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "B", ipu_id = 1 : i64}>["dec"("model.py":101:5)])
  return %1 : !torch.vtensor<[2],f32>
}

// -----

// 3 IPUs is not a power of 2 and autoRoundNumIPUs is off.
// expected-error @+1 {{the model uses 3 IPUs (3 per replica x 1 replicas), which is not a power of 2; use a power of 2, or Options().autoRoundNumIPUs(True) to round up and leave the extra IPUs idle}}
func.func @three_ipus(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"pipelined", "same_as_ipu", [], false, 3 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64}>["l0"("model.py":110:5)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", ipu_id = 1 : i64}>["l1"("model.py":111:5)])
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b2", ipu_id = 2 : i64}>["l2"("model.py":112:5)])
  return %2 : !torch.vtensor<[2],f32>
}

// -----

// autoRoundNumIPUs rounds the IPUs of one replica up, so it cannot help when the number of
// replicas is not a power of 2: 1 IPU x 3 replicas.
// expected-error @+1 {{the model uses 3 IPUs (1 per replica x 3 replicas), which is not a power of 2, and replicationFactor(3) is not one either: autoRoundNumIPUs rounds the IPUs of a replica up, never the replicas; use a power-of-2 replicationFactor}}
func.func @three_replicas(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"sharded", "same_as_ipu", [], false, 1 : i64, 1 : i64, 3 : i64, true, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64}>["l0"("model.py":115:5)])
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// More than 64 IPUs: ipu_id 40 with 2 replicas, rounded up by autoRoundNumIPUs, is 128.
// expected-error @+1 {{the model uses 82 IPUs (41 per replica x 2 replicas), more than the 64 one process can drive; use distributed execution (several processes) or fewer IPUs}}
func.func @too_many_ipus(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"sharded", "same_as_ipu", [], false, 1 : i64, 1 : i64, 2 : i64, true, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64}>["l0"("model.py":120:5)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", ipu_id = 40 : i64}>["l1"("model.py":121:5)])
  return %1 : !torch.vtensor<[2],f32>
}

// -----

// More than 64 IPUs, already a power of 2: 64 per replica x 2 replicas.
// expected-error @+1 {{the model uses 128 IPUs (64 per replica x 2 replicas), more than the 64 one process can drive; use distributed execution (several processes) or fewer IPUs}}
func.func @too_many_ipus_power_of_2(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"sharded", "same_as_ipu", [], false, 1 : i64, 1 : i64, 2 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64}>["l0"("model.py":130:5)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", ipu_id = 63 : i64}>["l1"("model.py":131:5)])
  return %1 : !torch.vtensor<[2],f32>
}

// -----

// Pipelined training over p = 3 forward stages needs G >= 2p - 1 = 5; 4 is one short.
// expected-error @+1 {{pipelined training over 3 stages needs gradientAccumulation >= 2 x 3 - 1 = 5, got 4; raise Options.Training.gradientAccumulation or use fewer stages}}
func.func @training_accumulation(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"pipelined", "auto_increment", [], true, 8 : i64, 4 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64, seq_nr = 1 : i64}>["l0"("model.py":140:5)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", ipu_id = 1 : i64, seq_nr = 2 : i64}>["l1"("model.py":141:5)])
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b2", ipu_id = 1 : i64, seq_nr = 3 : i64}>["l2"("model.py":142:5)])
  %3 = torch.aten.neg %2 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 3 : i64}>["l2"("model.py":142:5)])
  return %3 : !torch.vtensor<[2],f32>
}

// -----

// Pipelined inference over p = 2 stages needs deviceIterations >= 2.
// expected-error @+1 {{pipelined inference over 2 stages needs deviceIterations >= 2, got 1; raise Options.deviceIterations or use fewer stages}}
func.func @inference_iterations(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"pipelined", "same_as_ipu", [], false, 1 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64}>["l0"("model.py":150:5)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", ipu_id = 1 : i64}>["l1"("model.py":151:5)])
  return %1 : !torch.vtensor<[2],f32>
}

// -----

// An IPU id one past the last of the 64 IPUs one process drives (ids 0 to 63).
// expected-error @+1 {{block 'b1' is placed on IPU 64, but one process drives at most 64 IPUs (ids 0 to 63); use a smaller ipu_id, or distributed execution (several processes) for more IPUs}}
func.func @ipu_id_64(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"sharded", "same_as_ipu", [], false, 1 : i64, 1 : i64, 1 : i64, true, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64}>["l0"("model.py":160:5)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", ipu_id = 64 : i64}>["l1"("model.py":161:5)])
  return %1 : !torch.vtensor<[2],f32>
}

// -----

// An absurd IPU id (2^32) is the same error at once: the power-of-2 rounding is arithmetic,
// it never counts up to the next power of 2 (which took forever for such ids).
// expected-error @+1 {{block 'b1' is placed on IPU 4294967296, but one process drives at most 64 IPUs (ids 0 to 63); use a smaller ipu_id, or distributed execution (several processes) for more IPUs}}
func.func @ipu_id_2_to_the_32(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"pipelined", "same_as_ipu", [], false, 2 : i64, 1 : i64, 1 : i64, true, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64}>["l0"("model.py":170:5)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", ipu_id = 4294967296 : i64}>["l1"("model.py":171:5)])
  return %1 : !torch.vtensor<[2],f32>
}

// -----

// An absurd replication factor (2^40 replicas) with autoRoundNumIPUs: rounded at once.
// expected-error @+1 {{the model uses 1099511627776 IPUs (1 per replica x 1099511627776 replicas), more than the 64 one process can drive; use distributed execution (several processes) or fewer IPUs}}
func.func @huge_replication(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"sharded", "same_as_ipu", [], false, 1 : i64, 1 : i64, 1099511627776 : i64, true, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64}>["l0"("model.py":180:5)])
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// expected-error @+1 {{ParallelPhasedExecution: phase 1 is odd but runs stages on IPU(s) [0]; parallel phases alternate between two IPU groups, even phases on even IPUs and odd phases on odd IPUs: give phase 1 odd IPUs with strategy.phase(1).ipus(...), or use SerialPhasedExecution}}
func.func @wrong_parity(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"phased_parallel", "same_as_ipu", [#ipu.stage<["b0"], 0 : i64>, #ipu.stage<["b1"], 0 : i64>, #ipu.stage<["b2"], 0 : i64>], true, 1 : i64, 1 : i64, 1 : i64, false, array<i64: 0, 1, 2>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", seq_nr = 1 : i64}>["l0"("model.py":1:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", seq_nr = 2 : i64}>["l1"("model.py":2:1)])
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b2", seq_nr = 3 : i64}>["l2"("model.py":3:1)])
  %3 = torch.aten.neg %2 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 3 : i64}>["l2"("model.py":3:1)])
  %4 = torch.aten.mul.Tensor %3, %1 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 2 : i64}>["l1"("model.py":2:1)])
  %5 = torch.aten.mul.Tensor %4, %0 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 1 : i64}>["l0"("model.py":1:1)])
  return %5 : !torch.vtensor<[2],f32>
}

// -----

// expected-error @+1 {{SerialPhasedExecution: phase 1 runs on IPUs [1] but phase 0 on IPUs [0]; serial phases all run on one group of IPUs: give phase 1 the same IPUs with strategy.phase(1).ipus(...), or use ParallelPhasedExecution}}
func.func @serial_groups(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"phased_serial", "same_as_ipu", [#ipu.stage<["b0"], 0 : i64>, #ipu.stage<["b1"], 1 : i64>, #ipu.stage<["b2"], 0 : i64>], true, 1 : i64, 1 : i64, 1 : i64, false, array<i64: 0, 1, 2>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", seq_nr = 1 : i64}>["l0"("model.py":1:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", seq_nr = 2 : i64}>["l1"("model.py":2:1)])
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b2", seq_nr = 3 : i64}>["l2"("model.py":3:1)])
  %3 = torch.aten.neg %2 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 3 : i64}>["l2"("model.py":3:1)])
  %4 = torch.aten.mul.Tensor %3, %1 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 2 : i64}>["l1"("model.py":2:1)])
  %5 = torch.aten.mul.Tensor %4, %0 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 1 : i64}>["l0"("model.py":1:1)])
  return %5 : !torch.vtensor<[2],f32>
}

// -----

// expected-error @+1 {{SerialPhasedExecution: phase 0 puts its stages [['b0'], ['b1']] on IPUs [0, 0], but the stages of a phase run in parallel, each on its own IPU: give them different IPUs with strategy.phase(0).ipus(...), or put their blocks in one Stage}}
func.func @one_ipu_two_stages(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"phased_serial", "same_as_ipu", [#ipu.stage<["b0"], 0 : i64>, #ipu.stage<["b1"], 0 : i64>, #ipu.stage<["b2"], 0 : i64>], true, 1 : i64, 1 : i64, 1 : i64, false, array<i64: 0, 0, 1>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", seq_nr = 1 : i64}>["l0"("model.py":1:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", seq_nr = 2 : i64}>["l1"("model.py":2:1)])
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b2", seq_nr = 3 : i64}>["l2"("model.py":3:1)])
  %3 = torch.aten.neg %2 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 3 : i64}>["l2"("model.py":3:1)])
  %4 = torch.aten.mul.Tensor %3, %1 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 2 : i64}>["l1"("model.py":2:1)])
  %5 = torch.aten.mul.Tensor %4, %0 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 1 : i64}>["l0"("model.py":1:1)])
  return %5 : !torch.vtensor<[2],f32>
}

// -----

// expected-error @+2 {{SerialPhasedExecution: block 'b2' is in no phase; add it to a Stage of a Phase}}
// expected-error @+1 {{SerialPhasedExecution: phase 2 names block 'b9', which the model does not have (its blocks: 'b0', 'b1', 'b2'); use the user_id of a poptorch.Block / BeginBlock of the model}}
func.func @unknown_block(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"phased_serial", "same_as_ipu", [#ipu.stage<["b0"], 0 : i64>, #ipu.stage<["b1"], 0 : i64>, #ipu.stage<["b9"], 0 : i64>], true, 1 : i64, 1 : i64, 1 : i64, false, array<i64: 0, 1, 2>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", seq_nr = 1 : i64}>["l0"("model.py":1:1)])
  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b1", seq_nr = 2 : i64}>["l1"("model.py":2:1)])
  %2 = torch.aten.neg %1 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b2", seq_nr = 3 : i64}>["l2"("model.py":3:1)])
  %3 = torch.aten.neg %2 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 3 : i64}>["l2"("model.py":3:1)])
  %4 = torch.aten.mul.Tensor %3, %1 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 2 : i64}>["l1"("model.py":2:1)])
  %5 = torch.aten.mul.Tensor %4, %0 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{bwd = true, seq_nr = 1 : i64}>["l0"("model.py":1:1)])
  return %5 : !torch.vtensor<[2],f32>
}

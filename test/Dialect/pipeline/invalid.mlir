// RUN: ipu-opt %s --split-input-file --verify-diagnostics

// One case per verifier rule of the `pipeline` dialect (dialects/pipeline.py). The
// verifier reports the first broken rule of an op, located at the op. An op is verified
// before the ops of its body, so a case breaks one rule and keeps everything else valid.

// -----
// pipeline.schedule: attributes

func.func @schedule_missing_kind() {
  // expected-error@+1 {{'pipeline.schedule' op requires attribute 'kind'}}
  "pipeline.schedule"() ({
  ^bb0:
  }) {num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_kind_not_string() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'kind' must be a string, got 3 : i64}}
  "pipeline.schedule"() ({
  ^bb0:
  }) {kind = 3 : i64, num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_unknown_kind() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'kind' must be one of: sharded, pipelined, phased_serial, phased_parallel; got "interleaved"}}
  "pipeline.schedule"() ({
  ^bb0:
  }) {kind = "interleaved", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_no_stages() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'num_stages' must be >= 1, got 0}}
  "pipeline.schedule"() ({
  ^bb0:
  }) {kind = "sharded", num_stages = 0 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_stages_not_integer() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'num_stages' must be an integer, got true}}
  "pipeline.schedule"() ({
  ^bb0:
  }) {kind = "sharded", num_stages = true, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_no_ipus() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'num_ipus' must be >= 1, got 0}}
  "pipeline.schedule"() ({
  ^bb0:
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 0 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_too_many_ipus() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'num_ipus' must be <= 64, got 128}}
  "pipeline.schedule"() ({
  ^bb0:
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 128 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_ipus_not_power_of_two() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'num_ipus' must be a power of 2, got 3}}
  "pipeline.schedule"() ({
  ^bb0:
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 3 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_training_not_bool() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'training' must be a bool (true/false), got 1 : i64}}
  "pipeline.schedule"() ({
  ^bb0:
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = 1 : i64, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_no_device_iterations() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'device_iterations' must be >= 1, got 0}}
  "pipeline.schedule"() ({
  ^bb0:
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 0 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_no_gradient_accumulation() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'gradient_accumulation' must be >= 1, got 0}}
  "pipeline.schedule"() ({
  ^bb0:
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = true, device_iterations = 1 : i64, gradient_accumulation = 0 : i64} : () -> ()
  return
}

// -----

func.func @schedule_inference_accumulates() {
  // expected-error@+1 {{'pipeline.schedule' op gradient_accumulation must be 1 for inference, got 4}}
  "pipeline.schedule"() ({
  ^bb0:
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 4 : i64} : () -> ()
  return
}

// -----

func.func @pipelined_training_short_accumulation() {
  // expected-error@+1 {{'pipeline.schedule' op pipelined training over 3 stages needs gradient_accumulation >= 3, got 2}}
  "pipeline.schedule"() ({
  ^bb0:
  }) {kind = "pipelined", num_stages = 3 : i64, num_ipus = 2 : i64, training = true, device_iterations = 1 : i64, gradient_accumulation = 2 : i64} : () -> ()
  return
}

// -----

func.func @pipelined_inference_few_iterations() {
  // expected-error@+1 {{'pipeline.schedule' op pipelined inference over 2 stages needs device_iterations >= 2, got 1}}
  "pipeline.schedule"() ({
  ^bb0:
  }) {kind = "pipelined", num_stages = 2 : i64, num_ipus = 2 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----
// pipeline.schedule: the body is one block without arguments

func.func @schedule_without_region() {
  // expected-error@+1 {{'pipeline.schedule' op expects one body region, got 0}}
  "pipeline.schedule"() {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_two_regions() {
  // expected-error@+1 {{'pipeline.schedule' op expects one body region, got 2}}
  "pipeline.schedule"() ({
  ^bb0:
  }, {
  ^bb0:
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_empty_region() {
  // expected-error@+1 {{'pipeline.schedule' op expects a body region with one block, got 0}}
  "pipeline.schedule"() ({
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_two_blocks() {
  // expected-error@+1 {{'pipeline.schedule' op expects a body region with one block, got 2}}
  "pipeline.schedule"() ({
  ^bb0:
  ^bb1:
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_block_arguments() {
  // expected-error@+1 {{'pipeline.schedule' op body block must have no arguments: values enter by capture or pipeline.recv}}
  "pipeline.schedule"() ({
  ^bb0(%a: tensor<4xf32>):
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----
// IRDL: region ops take no operands and give no results.

func.func @schedule_with_operand(%x: tensor<4xf32>) {
  // expected-error@+1 {{op expects exactly 0 operands, but got 1}}
  "pipeline.schedule"(%x) ({
  ^bb0:
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @schedule_with_result() {
  // expected-error@+1 {{op expects exactly 0 results, but got 1}}
  %0 = "pipeline.schedule"() ({
  ^bb0:
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> tensor<4xf32>
  return
}

// -----
// pipeline.schedule: stages

func.func @stage_id_out_of_range() {
  // expected-error@+1 {{'pipeline.schedule' op stage 2 is out of range: the schedule has num_stages = 2}}
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
    ^bb0:
    }) {stage_id = 2 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 2 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_ipu_out_of_range() {
  // expected-error@+1 {{'pipeline.schedule' op stage 0 runs on IPU 2 but the schedule has num_ipus = 2}}
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
    ^bb0:
    }) {stage_id = 0 : i64, ipu_id = 2 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 2 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_id_twice() {
  // expected-error@+1 {{'pipeline.schedule' op stage 1 appears twice}}
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
    ^bb0:
    }) {stage_id = 1 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.stage"() ({
    ^bb0:
    }) {stage_id = 1 : i64, ipu_id = 1 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 2 : i64, num_ipus = 2 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_id_twice_across_phases() {
  // expected-error@+1 {{'pipeline.schedule' op stage 0 appears twice}}
  "pipeline.schedule"() ({
    "pipeline.phase"() ({
      "pipeline.stage"() ({
      ^bb0:
      }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    }) {phase_id = 0 : i64} : () -> ()
    "pipeline.phase"() ({
      "pipeline.stage"() ({
      ^bb0:
      }) {stage_id = 0 : i64, ipu_id = 1 : i64} : () -> ()
    }) {phase_id = 1 : i64} : () -> ()
  }) {kind = "phased_serial", num_stages = 2 : i64, num_ipus = 2 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----
// pipeline.schedule: channels (one send and one recv, same IPUs, same type)

func.func @channel_two_sends(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.schedule' op channel "c" has two 'pipeline.send' ops}}
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      "pipeline.send"(%x) {channel = "c", src_ipu = 0 : i64, dst_ipu = 1 : i64} : (tensor<4xf32>) -> ()
      "pipeline.send"(%x) {channel = "c", src_ipu = 0 : i64, dst_ipu = 1 : i64} : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.stage"() ({
      %0 = "pipeline.recv"() {channel = "c", src_ipu = 0 : i64, dst_ipu = 1 : i64} : () -> tensor<4xf32>
    }) {stage_id = 1 : i64, ipu_id = 1 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 2 : i64, num_ipus = 2 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @channel_two_recvs(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.schedule' op channel "c" has two 'pipeline.recv' ops}}
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      "pipeline.send"(%x) {channel = "c", src_ipu = 0 : i64, dst_ipu = 1 : i64} : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.stage"() ({
      %0 = "pipeline.recv"() {channel = "c", src_ipu = 0 : i64, dst_ipu = 1 : i64} : () -> tensor<4xf32>
      %1 = "pipeline.recv"() {channel = "c", src_ipu = 0 : i64, dst_ipu = 1 : i64} : () -> tensor<4xf32>
    }) {stage_id = 1 : i64, ipu_id = 1 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 2 : i64, num_ipus = 2 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @channel_never_sent() {
  // expected-error@+1 {{'pipeline.schedule' op channel "c" is received but never sent}}
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      %0 = "pipeline.recv"() {channel = "c", src_ipu = 0 : i64, dst_ipu = 1 : i64} : () -> tensor<4xf32>
    }) {stage_id = 1 : i64, ipu_id = 1 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 2 : i64, num_ipus = 2 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @channel_never_received(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.schedule' op channel "c" is sent but never received}}
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      "pipeline.send"(%x) {channel = "c", src_ipu = 0 : i64, dst_ipu = 1 : i64} : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 2 : i64, num_ipus = 2 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @channel_ipus_disagree(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.schedule' op channel "c": send and recv disagree on src_ipu/dst_ipu}}
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      "pipeline.send"(%x) {channel = "c", src_ipu = 0 : i64, dst_ipu = 1 : i64} : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.stage"() ({
      %0 = "pipeline.recv"() {channel = "c", src_ipu = 2 : i64, dst_ipu = 1 : i64} : () -> tensor<4xf32>
    }) {stage_id = 1 : i64, ipu_id = 1 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 2 : i64, num_ipus = 4 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @channel_types_disagree(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.schedule' op channel "c": sends tensor<4xf32> but receives tensor<2x4xf32>}}
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      "pipeline.send"(%x) {channel = "c", src_ipu = 0 : i64, dst_ipu = 1 : i64} : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.stage"() ({
      %0 = "pipeline.recv"() {channel = "c", src_ipu = 0 : i64, dst_ipu = 1 : i64} : () -> tensor<2x4xf32>
    }) {stage_id = 1 : i64, ipu_id = 1 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 2 : i64, num_ipus = 2 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @channel_torch_types_disagree(%x: !torch.vtensor<[4],f32>) {
  // expected-error@+1 {{'pipeline.schedule' op channel "c": sends !torch.vtensor<[4],f32> but receives !torch.vtensor<[4],f16>}}
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      "pipeline.send"(%x) {channel = "c", src_ipu = 0 : i64, dst_ipu = 1 : i64} : (!torch.vtensor<[4],f32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.stage"() ({
      %0 = "pipeline.recv"() {channel = "c", src_ipu = 0 : i64, dst_ipu = 1 : i64} : () -> !torch.vtensor<[4],f16>
    }) {stage_id = 1 : i64, ipu_id = 1 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 2 : i64, num_ipus = 2 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----
// pipeline.schedule: stashes (one stash and one restore, same depth, same type)

func.func @stash_twice(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.schedule' op stash "s" has two 'pipeline.stash' ops}}
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      "pipeline.stash"(%x) {stash_id = "s", depth = 2 : i64} : (tensor<4xf32>) -> ()
      "pipeline.stash"(%x) {stash_id = "s", depth = 2 : i64} : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.stage"() ({
      %0 = "pipeline.restore"() {stash_id = "s", depth = 2 : i64} : () -> tensor<4xf32>
    }) {stage_id = 2 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "pipelined", num_stages = 3 : i64, num_ipus = 2 : i64, training = true, device_iterations = 1 : i64, gradient_accumulation = 4 : i64} : () -> ()
  return
}

// -----

func.func @restore_twice(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.schedule' op stash "s" has two 'pipeline.restore' ops}}
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      "pipeline.stash"(%x) {stash_id = "s", depth = 2 : i64} : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.stage"() ({
      %0 = "pipeline.restore"() {stash_id = "s", depth = 2 : i64} : () -> tensor<4xf32>
      %1 = "pipeline.restore"() {stash_id = "s", depth = 2 : i64} : () -> tensor<4xf32>
    }) {stage_id = 2 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "pipelined", num_stages = 3 : i64, num_ipus = 2 : i64, training = true, device_iterations = 1 : i64, gradient_accumulation = 4 : i64} : () -> ()
  return
}

// -----

func.func @restore_never_stashed() {
  // expected-error@+1 {{'pipeline.schedule' op stash "s" is restored but never stashed}}
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      %0 = "pipeline.restore"() {stash_id = "s", depth = 2 : i64} : () -> tensor<4xf32>
    }) {stage_id = 2 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "pipelined", num_stages = 3 : i64, num_ipus = 2 : i64, training = true, device_iterations = 1 : i64, gradient_accumulation = 4 : i64} : () -> ()
  return
}

// -----

func.func @stash_never_restored(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.schedule' op stash "s" is stashed but never restored}}
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      "pipeline.stash"(%x) {stash_id = "s", depth = 2 : i64} : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "pipelined", num_stages = 3 : i64, num_ipus = 2 : i64, training = true, device_iterations = 1 : i64, gradient_accumulation = 4 : i64} : () -> ()
  return
}

// -----

func.func @stash_depths_disagree(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.schedule' op stash "s": stash and restore disagree on depth}}
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      "pipeline.stash"(%x) {stash_id = "s", depth = 3 : i64} : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.stage"() ({
      %0 = "pipeline.restore"() {stash_id = "s", depth = 2 : i64} : () -> tensor<4xf32>
    }) {stage_id = 2 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "pipelined", num_stages = 3 : i64, num_ipus = 2 : i64, training = true, device_iterations = 1 : i64, gradient_accumulation = 4 : i64} : () -> ()
  return
}

// -----

func.func @stash_types_disagree(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.schedule' op stash "s": stashes tensor<4xf32> but restores tensor<4xf16>}}
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      "pipeline.stash"(%x) {stash_id = "s", depth = 2 : i64} : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.stage"() ({
      %0 = "pipeline.restore"() {stash_id = "s", depth = 2 : i64} : () -> tensor<4xf16>
    }) {stage_id = 2 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "pipelined", num_stages = 3 : i64, num_ipus = 2 : i64, training = true, device_iterations = 1 : i64, gradient_accumulation = 4 : i64} : () -> ()
  return
}

// -----
// The schedule is verified before its body; it leaves a malformed op to that op's
// own verifier (or the IRDL one) instead of failing on it first.

func.func @schedule_leaves_bad_stage_id() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.stage' op attribute 'stage_id' must be an integer, got "0"}}
    "pipeline.stage"() ({
    ^bb0:
    }) {stage_id = "0", ipu_id = 0 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_leaves_bad_channel(%x: tensor<4xf32>) {
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      // expected-error@+1 {{'pipeline.send' op attribute 'channel' must be a string, got 0 : i64}}
      "pipeline.send"(%x) {channel = 0 : i64, src_ipu = 0 : i64, dst_ipu = 1 : i64} : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 2 : i64, num_ipus = 2 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_leaves_send_without_value() {
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      // expected-error@+1 {{op expects exactly 1 operands, but got 0}}
      "pipeline.send"() {channel = "c", src_ipu = 0 : i64, dst_ipu = 1 : i64} : () -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.stage"() ({
      %0 = "pipeline.recv"() {channel = "c", src_ipu = 0 : i64, dst_ipu = 1 : i64} : () -> tensor<4xf32>
    }) {stage_id = 1 : i64, ipu_id = 1 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 2 : i64, num_ipus = 2 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_leaves_restore_without_value(%x: tensor<4xf32>) {
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      "pipeline.stash"(%x) {stash_id = "s", depth = 2 : i64} : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.stage"() ({
      // expected-error@+1 {{op expects exactly 1 results, but got 0}}
      "pipeline.restore"() {stash_id = "s", depth = 2 : i64} : () -> ()
    }) {stage_id = 2 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "pipelined", num_stages = 3 : i64, num_ipus = 2 : i64, training = true, device_iterations = 1 : i64, gradient_accumulation = 4 : i64} : () -> ()
  return
}

// -----
// pipeline.stage

func.func @stage_missing_id() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.stage' op requires attribute 'stage_id'}}
    "pipeline.stage"() ({
    ^bb0:
    }) {ipu_id = 0 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_negative_id() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.stage' op attribute 'stage_id' must be >= 0, got -1}}
    "pipeline.stage"() ({
    ^bb0:
    }) {stage_id = -1 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_missing_ipu() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.stage' op requires attribute 'ipu_id'}}
    "pipeline.stage"() ({
    ^bb0:
    }) {stage_id = 0 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_negative_ipu() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.stage' op attribute 'ipu_id' must be >= 0, got -1}}
    "pipeline.stage"() ({
    ^bb0:
    }) {stage_id = 0 : i64, ipu_id = -1 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_ipu_not_integer() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.stage' op attribute 'ipu_id' must be an integer, got "ipu0"}}
    "pipeline.stage"() ({
    ^bb0:
    }) {stage_id = 0 : i64, ipu_id = "ipu0"} : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_outside_schedule() {
  // expected-error@+1 {{'pipeline.stage' op must be nested in 'pipeline.schedule' or 'pipeline.phase', got func.func}}
  "pipeline.stage"() ({
  ^bb0:
  }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
  return
}

// -----

func.func @stage_in_stage() {
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      // expected-error@+1 {{'pipeline.stage' op must be nested in 'pipeline.schedule' or 'pipeline.phase', got pipeline.stage}}
      "pipeline.stage"() ({
      ^bb0:
      }) {stage_id = 1 : i64, ipu_id = 0 : i64} : () -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 2 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_in_schedule_in_stage() {
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      "pipeline.schedule"() ({
        // expected-error@+1 {{'pipeline.stage' op must not be nested in another 'pipeline.stage'}}
        "pipeline.stage"() ({
        ^bb0:
        }) {stage_id = 1 : i64, ipu_id = 0 : i64} : () -> ()
      }) {kind = "sharded", num_stages = 2 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 2 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_without_region() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.stage' op expects one body region, got 0}}
    "pipeline.stage"() {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_empty_region() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.stage' op expects a body region with one block, got 0}}
    "pipeline.stage"() ({
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_block_arguments() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.stage' op body block must have no arguments: values enter by capture or pipeline.recv}}
    "pipeline.stage"() ({
    ^bb0(%a: tensor<4xf32>):
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_with_result() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{op expects exactly 0 results, but got 1}}
    %0 = "pipeline.stage"() ({
    ^bb0:
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> tensor<4xf32>
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_with_operand(%x: tensor<4xf32>) {
  "pipeline.schedule"() ({
    // expected-error@+1 {{op expects exactly 0 operands, but got 1}}
    "pipeline.stage"(%x) ({
    ^bb0:
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : (tensor<4xf32>) -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----
// pipeline.phase

func.func @phase_missing_id() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.phase' op requires attribute 'phase_id'}}
    "pipeline.phase"() ({
    ^bb0:
    }) : () -> ()
  }) {kind = "phased_serial", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @phase_negative_id() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.phase' op attribute 'phase_id' must be >= 0, got -1}}
    "pipeline.phase"() ({
    ^bb0:
    }) {phase_id = -1 : i64} : () -> ()
  }) {kind = "phased_serial", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @phase_id_not_integer() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.phase' op attribute 'phase_id' must be an integer, got "0"}}
    "pipeline.phase"() ({
    ^bb0:
    }) {phase_id = "0"} : () -> ()
  }) {kind = "phased_parallel", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @phase_in_pipelined_schedule() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.phase' op must be nested in a phased 'pipeline.schedule'}}
    "pipeline.phase"() ({
    ^bb0:
    }) {phase_id = 0 : i64} : () -> ()
  }) {kind = "pipelined", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @phase_in_sharded_schedule() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.phase' op must be nested in a phased 'pipeline.schedule'}}
    "pipeline.phase"() ({
    ^bb0:
    }) {phase_id = 0 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @phase_outside_schedule() {
  // expected-error@+1 {{'pipeline.phase' op must be nested in a phased 'pipeline.schedule'}}
  "pipeline.phase"() ({
  ^bb0:
  }) {phase_id = 0 : i64} : () -> ()
  return
}

// -----

func.func @phase_in_stage() {
  "pipeline.schedule"() ({
    "pipeline.phase"() ({
      "pipeline.stage"() ({
        // expected-error@+1 {{'pipeline.phase' op must be nested in a phased 'pipeline.schedule'}}
        "pipeline.phase"() ({
        ^bb0:
        }) {phase_id = 1 : i64} : () -> ()
      }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    }) {phase_id = 0 : i64} : () -> ()
  }) {kind = "phased_serial", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @phase_without_region() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.phase' op expects one body region, got 0}}
    "pipeline.phase"() {phase_id = 0 : i64} : () -> ()
  }) {kind = "phased_serial", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @phase_empty_region() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.phase' op expects a body region with one block, got 0}}
    "pipeline.phase"() ({
    }) {phase_id = 0 : i64} : () -> ()
  }) {kind = "phased_serial", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @phase_block_arguments() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.phase' op body block must have no arguments: values enter by capture or pipeline.recv}}
    "pipeline.phase"() ({
    ^bb0(%a: tensor<4xf32>):
    }) {phase_id = 0 : i64} : () -> ()
  }) {kind = "phased_serial", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @phase_holds_other_ops(%x: tensor<4xf32>) {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.phase' op body may hold only 'pipeline.stage' ops}}
    "pipeline.phase"() ({
      "pipeline.remote_store"(%x) {buffer = "w", ipu_id = 0 : i64} : (tensor<4xf32>) -> ()
    }) {phase_id = 0 : i64} : () -> ()
  }) {kind = "phased_serial", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----
// pipeline.output

func.func @output_missing_index(%x: tensor<4xf32>) {
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      // expected-error@+1 {{'pipeline.output' op requires attribute 'index'}}
      "pipeline.output"(%x) : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @output_negative_index(%x: tensor<4xf32>) {
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      // expected-error@+1 {{'pipeline.output' op attribute 'index' must be >= 0, got -1}}
      "pipeline.output"(%x) {index = -1 : i64} : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @output_index_not_integer(%x: tensor<4xf32>) {
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      // expected-error@+1 {{'pipeline.output' op attribute 'index' must be an integer, got "y"}}
      "pipeline.output"(%x) {index = "y"} : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @output_outside_stage(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.output' op must be inside a 'pipeline.stage'}}
  "pipeline.output"(%x) {index = 0 : i64} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @output_in_schedule_body(%x: tensor<4xf32>) {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.output' op must be inside a 'pipeline.stage'}}
    "pipeline.output"(%x) {index = 0 : i64} : (tensor<4xf32>) -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @output_two_values(%x: tensor<4xf32>) {
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      // expected-error@+1 {{op expects exactly 1 operands, but got 2}}
      "pipeline.output"(%x, %x) {index = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----
// pipeline.send

func.func @send_missing_channel(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.send' op requires attribute 'channel'}}
  "pipeline.send"(%x) {src_ipu = 0 : i64, dst_ipu = 1 : i64} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @send_channel_not_string(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.send' op attribute 'channel' must be a string, got 0 : i64}}
  "pipeline.send"(%x) {channel = 0 : i64, src_ipu = 0 : i64, dst_ipu = 1 : i64} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @send_empty_channel(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.send' op attribute 'channel' must not be empty}}
  "pipeline.send"(%x) {channel = "", src_ipu = 0 : i64, dst_ipu = 1 : i64} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @send_negative_src(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.send' op attribute 'src_ipu' must be >= 0, got -1}}
  "pipeline.send"(%x) {channel = "c", src_ipu = -1 : i64, dst_ipu = 1 : i64} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @send_negative_dst(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.send' op attribute 'dst_ipu' must be >= 0, got -2}}
  "pipeline.send"(%x) {channel = "c", src_ipu = 0 : i64, dst_ipu = -2 : i64} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @send_src_not_integer(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.send' op attribute 'src_ipu' must be an integer, got "ipu0"}}
  "pipeline.send"(%x) {channel = "c", src_ipu = "ipu0", dst_ipu = 1 : i64} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @send_to_itself(%x: !torch.vtensor<[2],f32>) {
  // expected-error@+1 {{'pipeline.send' op 'src_ipu' and 'dst_ipu' must differ for an inter-IPU copy, both are 1}}
  "pipeline.send"(%x) {channel = "c", src_ipu = 1 : i64, dst_ipu = 1 : i64} : (!torch.vtensor<[2],f32>) -> ()
  return
}

// -----

func.func @send_from_other_ipu(%x: tensor<4xf32>) {
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      // expected-error@+1 {{'pipeline.send' op 'src_ipu' is 0 but the enclosing stage runs on IPU 1}}
      "pipeline.send"(%x) {channel = "c", src_ipu = 0 : i64, dst_ipu = 1 : i64} : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 1 : i64} : () -> ()
    "pipeline.stage"() ({
      %0 = "pipeline.recv"() {channel = "c", src_ipu = 0 : i64, dst_ipu = 1 : i64} : () -> tensor<4xf32>
    }) {stage_id = 1 : i64, ipu_id = 1 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 2 : i64, num_ipus = 2 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----
// pipeline.recv

func.func @recv_empty_channel() {
  // expected-error@+1 {{'pipeline.recv' op attribute 'channel' must not be empty}}
  %0 = "pipeline.recv"() {channel = "", src_ipu = 0 : i64, dst_ipu = 1 : i64} : () -> tensor<4xf32>
  return
}

// -----

func.func @recv_missing_dst() {
  // expected-error@+1 {{'pipeline.recv' op requires attribute 'dst_ipu'}}
  %0 = "pipeline.recv"() {channel = "c", src_ipu = 0 : i64} : () -> tensor<4xf32>
  return
}

// -----

func.func @recv_negative_src() {
  // expected-error@+1 {{'pipeline.recv' op attribute 'src_ipu' must be >= 0, got -1}}
  %0 = "pipeline.recv"() {channel = "c", src_ipu = -1 : i64, dst_ipu = 1 : i64} : () -> tensor<4xf32>
  return
}

// -----

func.func @recv_negative_dst() {
  // expected-error@+1 {{'pipeline.recv' op attribute 'dst_ipu' must be >= 0, got -1}}
  %0 = "pipeline.recv"() {channel = "c", src_ipu = 0 : i64, dst_ipu = -1 : i64} : () -> tensor<4xf32>
  return
}

// -----

func.func @recv_from_itself() {
  // expected-error@+1 {{'pipeline.recv' op 'src_ipu' and 'dst_ipu' must differ for an inter-IPU copy, both are 0}}
  %0 = "pipeline.recv"() {channel = "c", src_ipu = 0 : i64, dst_ipu = 0 : i64} : () -> !torch.vtensor<[2],f32>
  return
}

// -----

func.func @recv_on_other_ipu(%x: tensor<4xf32>) {
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      "pipeline.send"(%x) {channel = "c", src_ipu = 0 : i64, dst_ipu = 1 : i64} : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.stage"() ({
      // expected-error@+1 {{'pipeline.recv' op 'dst_ipu' is 1 but the enclosing stage runs on IPU 0}}
      %0 = "pipeline.recv"() {channel = "c", src_ipu = 0 : i64, dst_ipu = 1 : i64} : () -> tensor<4xf32>
    }) {stage_id = 1 : i64, ipu_id = 0 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 2 : i64, num_ipus = 2 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----
// pipeline.stash

func.func @stash_missing_id(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.stash' op requires attribute 'stash_id'}}
  "pipeline.stash"(%x) {depth = 3 : i64} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @stash_empty_id(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.stash' op attribute 'stash_id' must not be empty}}
  "pipeline.stash"(%x) {stash_id = "", depth = 3 : i64} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @stash_no_depth(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.stash' op attribute 'depth' must be >= 1, got 0}}
  "pipeline.stash"(%x) {stash_id = "s0.act0", depth = 0 : i64} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @stash_depth_not_integer(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.stash' op attribute 'depth' must be an integer, got 3.000000e+00 : f64}}
  "pipeline.stash"(%x) {stash_id = "s0.act0", depth = 3.0 : f64} : (tensor<4xf32>) -> ()
  return
}

// -----
// pipeline.restore

func.func @restore_empty_id() {
  // expected-error@+1 {{'pipeline.restore' op attribute 'stash_id' must not be empty}}
  %0 = "pipeline.restore"() {stash_id = "", depth = 3 : i64} : () -> tensor<4xf32>
  return
}

// -----

func.func @restore_id_not_string() {
  // expected-error@+1 {{'pipeline.restore' op attribute 'stash_id' must be a string, got 0 : i64}}
  %0 = "pipeline.restore"() {stash_id = 0 : i64, depth = 3 : i64} : () -> tensor<4xf32>
  return
}

// -----

func.func @restore_no_depth() {
  // expected-error@+1 {{'pipeline.restore' op attribute 'depth' must be >= 1, got 0}}
  %0 = "pipeline.restore"() {stash_id = "s0.act0", depth = 0 : i64} : () -> tensor<4xf32>
  return
}

// -----

func.func @restore_missing_depth() {
  // expected-error@+1 {{'pipeline.restore' op requires attribute 'depth'}}
  %0 = "pipeline.restore"() {stash_id = "s0.act0"} : () -> tensor<4xf32>
  return
}

// -----
// pipeline.remote_store

func.func @remote_store_empty_buffer(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.remote_store' op attribute 'buffer' must not be empty}}
  "pipeline.remote_store"(%x) {buffer = "", ipu_id = 0 : i64} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @remote_store_buffer_not_string(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.remote_store' op attribute 'buffer' must be a string, got ["w"]}}
  "pipeline.remote_store"(%x) {buffer = ["w"], ipu_id = 0 : i64} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @remote_store_negative_ipu(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.remote_store' op attribute 'ipu_id' must be >= 0, got -1}}
  "pipeline.remote_store"(%x) {buffer = "w", ipu_id = -1 : i64} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @remote_store_other_ipu(%x: tensor<4xf32>) {
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      // expected-error@+1 {{'pipeline.remote_store' op 'ipu_id' is 0 but the enclosing stage runs on IPU 1}}
      "pipeline.remote_store"(%x) {buffer = "w", ipu_id = 0 : i64} : (tensor<4xf32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 1 : i64} : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 2 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----
// pipeline.remote_load

func.func @remote_load_missing_buffer() {
  // expected-error@+1 {{'pipeline.remote_load' op requires attribute 'buffer'}}
  %0 = "pipeline.remote_load"() {ipu_id = 0 : i64} : () -> tensor<4xf32>
  return
}

// -----

func.func @remote_load_empty_buffer() {
  // expected-error@+1 {{'pipeline.remote_load' op attribute 'buffer' must not be empty}}
  %0 = "pipeline.remote_load"() {buffer = "", ipu_id = 0 : i64} : () -> tensor<4xf32>
  return
}

// -----

func.func @remote_load_negative_ipu() {
  // expected-error@+1 {{'pipeline.remote_load' op attribute 'ipu_id' must be >= 0, got -1}}
  %0 = "pipeline.remote_load"() {buffer = "w", ipu_id = -1 : i64} : () -> !torch.vtensor<[2],f32>
  return
}

// -----

func.func @remote_load_other_ipu() {
  "pipeline.schedule"() ({
    "pipeline.phase"() ({
      "pipeline.stage"() ({
        // expected-error@+1 {{'pipeline.remote_load' op 'ipu_id' is 3 but the enclosing stage runs on IPU 2}}
        %0 = "pipeline.remote_load"() {buffer = "w", ipu_id = 3 : i64} : () -> tensor<4xf32>
      }) {stage_id = 0 : i64, ipu_id = 2 : i64} : () -> ()
    }) {phase_id = 0 : i64} : () -> ()
  }) {kind = "phased_parallel", num_stages = 1 : i64, num_ipus = 4 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

// ===== #pipeline.plan, as the poplar.function of a step carries it (a func.func's plan
// is read, with the same messages, by poplar-build-program)

// A schedule kind is one of ScheduleKind's, and the error lists them.
"poplar.graph"() ({
  // expected-error@+1 {{'poplar.function' op 'pipeline.plan' kind must be one of: sharded, pipelined, phased_serial, phased_parallel; got "interleaved"}}
  "poplar.function"() ({
  }) {name = "step", pipeline.plan = #pipeline.plan<"interleaved", 2 : i64, 2 : i64, 2 : i64, array<i64: 0, 1>>} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// The untyped dictionary of earlier versions is not a plan.
"poplar.graph"() ({
  // expected-error@+1 {{'poplar.function' op 'pipeline.plan' must be a #pipeline.plan<kind, forward_stages, num_stages, num_ipus, stage_ipus>, got {forward_stages = 2 : i64, kind = "pipelined", stage_ipus = array<i64: 0, 1>}}}
  "poplar.function"() ({
  }) {name = "step", pipeline.plan = {kind = "pipelined", forward_stages = 2 : i64, stage_ipus = array<i64: 0, 1>}} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// Each stage's IPU is one of the plan's IPUs.
"poplar.graph"() ({
  // expected-error@+1 {{'poplar.function' op 'pipeline.plan' stage_ipus must be IPUs in [0, 2), got [0, 2]}}
  "poplar.function"() ({
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 2 : i64, 2 : i64, array<i64: 0, 2>>} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// stage_ipus names one IPU per stage (or none, before poplar-build-program).
"poplar.graph"() ({
  // expected-error@+1 {{'poplar.function' op 'pipeline.plan' stage_ipus must be empty or name the IPU of each of the 3 stages, got [0, 1]}}
  "poplar.function"() ({
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 3 : i64, 2 : i64, array<i64: 0, 1>>} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// A plan has at least one IPU.
"poplar.graph"() ({
  // expected-error@+1 {{'poplar.function' op 'pipeline.plan' num_ipus must be >= 1, got 0}}
  "poplar.function"() ({
  }) {name = "step", pipeline.plan = #pipeline.plan<"sharded", 1 : i64, 1 : i64, 0 : i64, array<i64>>} : () -> ()
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// RUN: ipu-opt %s --split-input-file --verify-diagnostics

// One case per verifier rule of the `pipeline` dialect (dialects/pipeline.py). The
// verifier reports the first broken rule of an op, located at the op.

// -----
// pipeline.schedule: attributes

func.func @schedule_missing_kind() {
  // expected-error@+1 {{'pipeline.schedule' op requires attribute 'kind'}}
  "pipeline.schedule"() ({
    "pipeline.yield"() : () -> ()
  }) {num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_kind_not_string() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'kind' must be a string, got 3 : i64}}
  "pipeline.schedule"() ({
    "pipeline.yield"() : () -> ()
  }) {kind = 3 : i64, num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_unknown_kind() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'kind' must be one of "sharded", "pipelined", "phased_serial", "phased_parallel", got "interleaved"}}
  "pipeline.schedule"() ({
    "pipeline.yield"() : () -> ()
  }) {kind = "interleaved", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_no_stages() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'num_stages' must be >= 1, got 0}}
  "pipeline.schedule"() ({
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = 0 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_stages_not_integer() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'num_stages' must be an integer, got true}}
  "pipeline.schedule"() ({
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = true, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_no_ipus() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'num_ipus' must be >= 1, got 0}}
  "pipeline.schedule"() ({
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 0 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_too_many_ipus() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'num_ipus' must be <= 64, got 128}}
  "pipeline.schedule"() ({
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 128 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_ipus_not_power_of_two() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'num_ipus' must be a power of 2, got 3}}
  "pipeline.schedule"() ({
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 3 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_training_not_bool() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'training' must be a bool (true/false), got 1 : i64}}
  "pipeline.schedule"() ({
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = 1 : i64, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_no_device_iterations() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'device_iterations' must be >= 1, got 0}}
  "pipeline.schedule"() ({
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 0 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_no_gradient_accumulation() {
  // expected-error@+1 {{'pipeline.schedule' op attribute 'gradient_accumulation' must be >= 1, got 0}}
  "pipeline.schedule"() ({
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = true, device_iterations = 1 : i64, gradient_accumulation = 0 : i64} : () -> ()
  return
}

// -----
// pipeline.schedule: execution-strategy rules

func.func @schedule_inference_accumulates() {
  // expected-error@+1 {{'pipeline.schedule' op gradient_accumulation must be 1 for inference, got 4}}
  "pipeline.schedule"() ({
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 4 : i64} : () -> ()
  return
}

// -----

func.func @pipelined_training_short_accumulation() {
  // expected-error@+1 {{'pipeline.schedule' op pipelined training over 3 stages needs gradient_accumulation >= 3, got 2}}
  "pipeline.schedule"() ({
    "pipeline.yield"() : () -> ()
  }) {kind = "pipelined", num_stages = 3 : i64, num_ipus = 2 : i64, training = true, device_iterations = 8 : i64, gradient_accumulation = 2 : i64} : () -> ()
  return
}

// -----

func.func @pipelined_inference_few_iterations() {
  // expected-error@+1 {{'pipeline.schedule' op pipelined inference over 2 stages needs device_iterations >= 2, got 1}}
  "pipeline.schedule"() ({
    "pipeline.yield"() : () -> ()
  }) {kind = "pipelined", num_stages = 2 : i64, num_ipus = 2 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----
// pipeline.schedule: body

func.func @schedule_without_region() {
  // expected-error@+1 {{'pipeline.schedule' op expects one body region, got 0}}
  "pipeline.schedule"() {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
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
    "pipeline.yield"() : () -> ()
  ^bb1:
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_empty_block() {
  // expected-error@+1 {{'pipeline.schedule' op body must end with 'pipeline.yield'}}
  "pipeline.schedule"() ({
  ^bb0:
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_without_yield(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.schedule' op body must end with 'pipeline.yield'}}
  "pipeline.schedule"() ({
    "pipeline.remote_store"(%x) {buffer = "out", ipu_id = 0 : i64} : (tensor<4xf32>) -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @schedule_yields_other_type(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.schedule' op yields (tensor<4xf32>) but the op returns (tensor<4xf16>)}}
  %0 = "pipeline.schedule"() ({
    "pipeline.yield"(%x) : (tensor<4xf32>) -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> tensor<4xf16>
  return
}

// -----

func.func @schedule_yields_nothing() {
  // expected-error@+1 {{'pipeline.schedule' op yields () but the op returns (!torch.vtensor<[2],f32>)}}
  %0 = "pipeline.schedule"() ({
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> !torch.vtensor<[2],f32>
  return
}

// -----
// pipeline.stage

func.func @stage_negative_id() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.stage' op attribute 'stage_id' must be >= 0, got -1}}
    "pipeline.stage"() ({
      "pipeline.yield"() : () -> ()
    }) {stage_id = -1 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_negative_ipu() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.stage' op attribute 'ipu_id' must be >= 0, got -1}}
    "pipeline.stage"() ({
      "pipeline.yield"() : () -> ()
    }) {stage_id = 0 : i64, ipu_id = -1 : i64} : () -> ()
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_missing_ipu() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.stage' op requires attribute 'ipu_id'}}
    "pipeline.stage"() ({
      "pipeline.yield"() : () -> ()
    }) {stage_id = 0 : i64} : () -> ()
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_outside_schedule(%x: tensor<4xf32>) {
  // expected-error@+1 {{'pipeline.stage' op must be nested in 'pipeline.schedule' or 'pipeline.phase', got func.func}}
  %0 = "pipeline.stage"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    "pipeline.yield"(%a) : (tensor<4xf32>) -> ()
  }) {stage_id = 0 : i64, ipu_id = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @stage_in_stage() {
  "pipeline.schedule"() ({
    "pipeline.stage"() ({
      // expected-error@+1 {{'pipeline.stage' op must be nested in 'pipeline.schedule' or 'pipeline.phase', got pipeline.stage}}
      "pipeline.stage"() ({
        "pipeline.yield"() : () -> ()
      }) {stage_id = 1 : i64, ipu_id = 1 : i64} : () -> ()
      "pipeline.yield"() : () -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = 2 : i64, num_ipus = 2 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_without_region() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.stage' op expects one body region, got 0}}
    "pipeline.stage"() {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_empty_body() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.stage' op body must end with 'pipeline.yield'}}
    "pipeline.stage"() ({
    ^bb0:
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @stage_yields_other_type(%x: !torch.vtensor<[2],f32>) {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.stage' op yields (!torch.vtensor<[2],f32>) but the op returns (!torch.vtensor<[2],f16>)}}
    %0 = "pipeline.stage"(%x) ({
    ^bb0(%a: !torch.vtensor<[2],f32>):
      "pipeline.yield"(%a) : (!torch.vtensor<[2],f32>) -> ()
    }) {stage_id = 0 : i64, ipu_id = 0 : i64} : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f16>
    "pipeline.yield"() : () -> ()
  }) {kind = "sharded", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----
// pipeline.phase

func.func @phase_negative_id() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.phase' op attribute 'phase_id' must be >= 0, got -1}}
    "pipeline.phase"() ({
      "pipeline.yield"() : () -> ()
    }) {phase_id = -1 : i64} : () -> ()
    "pipeline.yield"() : () -> ()
  }) {kind = "phased_serial", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @phase_id_not_integer() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.phase' op attribute 'phase_id' must be an integer, got "0"}}
    "pipeline.phase"() ({
      "pipeline.yield"() : () -> ()
    }) {phase_id = "0"} : () -> ()
    "pipeline.yield"() : () -> ()
  }) {kind = "phased_parallel", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @phase_in_pipelined_schedule() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.phase' op must be nested in a phased 'pipeline.schedule'}}
    "pipeline.phase"() ({
      "pipeline.yield"() : () -> ()
    }) {phase_id = 0 : i64} : () -> ()
    "pipeline.yield"() : () -> ()
  }) {kind = "pipelined", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @phase_outside_schedule() {
  // expected-error@+1 {{'pipeline.phase' op must be nested in a phased 'pipeline.schedule'}}
  "pipeline.phase"() ({
    "pipeline.yield"() : () -> ()
  }) {phase_id = 0 : i64} : () -> ()
  return
}

// -----

func.func @phase_without_region() {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.phase' op expects one body region, got 0}}
    "pipeline.phase"() {phase_id = 0 : i64} : () -> ()
    "pipeline.yield"() : () -> ()
  }) {kind = "phased_serial", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----

func.func @phase_yields_too_much(%x: tensor<4xf32>) {
  "pipeline.schedule"() ({
    // expected-error@+1 {{'pipeline.phase' op yields (tensor<4xf32>, tensor<4xf32>) but the op returns (tensor<4xf32>)}}
    %0 = "pipeline.phase"() ({
      "pipeline.yield"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> ()
    }) {phase_id = 0 : i64} : () -> tensor<4xf32>
    "pipeline.yield"() : () -> ()
  }) {kind = "phased_serial", num_stages = 1 : i64, num_ipus = 1 : i64, training = false, device_iterations = 1 : i64, gradient_accumulation = 1 : i64} : () -> ()
  return
}

// -----
// pipeline.yield

func.func @yield_outside_pipeline() {
  // expected-error@+1 {{'pipeline.yield' op must terminate a 'pipeline.schedule', 'pipeline.stage' or 'pipeline.phase' body, got func.func}}
  "pipeline.yield"() : () -> ()
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

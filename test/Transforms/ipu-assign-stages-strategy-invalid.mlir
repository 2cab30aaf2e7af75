// RUN: ipu-opt %s -p ipu-annotate-blocks,ipu-assign-stages --split-input-file --verify-diagnostics

// A malformed #ipu.strategy (or argument role) is an error at the function; an
// enumeration's error lists its valid values.

// Only pipelined and sharded execution exist in the IPU Model.
// expected-error@+1 {{ipu-assign-stages: 'ipu.strategy' kind must be one of: pipelined, sharded, phased_serial, phased_parallel; got "serial_phased"}}
func.func @unknown_kind(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"serial_phased", "same_as_ipu", [], false, 1 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64}>["l0"("model.py":160:5)])
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// expected-error@+1 {{ipu-assign-stages: 'ipu.strategy' auto_stage must be one of: same_as_ipu, auto_increment; got "by_ipu"}}
func.func @unknown_auto_stage(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"sharded", "by_ipu", [], false, 1 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64}>["l0"("model.py":160:5)])
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// The untyped dictionary of earlier versions is not a strategy.
// expected-error@+1 {{ipu-assign-stages: 'ipu.strategy' must be an #ipu.strategy<...>, got {kind = "sharded"}}}
func.func @dictionary(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = {kind = "sharded"}} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64}>["l0"("model.py":160:5)])
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// Each explicit stage is an #ipu.stage.
// expected-error@+1 {{ipu-assign-stages: 'ipu.strategy' stage #0 must be an #ipu.stage<[block ids], ipu>, got ["b0"]}}
func.func @bad_stage(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"sharded", "same_as_ipu", [["b0"]], false, 1 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64}>["l0"("model.py":160:5)])
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// expected-error@+1 {{ipu-assign-stages: 'ipu.strategy' device_iterations must be >= 1, got 0}}
func.func @no_iterations(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"pipelined", "same_as_ipu", [], false, 0 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64}>["l0"("model.py":160:5)])
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// The shared-weight rule reads the arguments' roles.
// expected-error@+1 {{ipu-assign-stages: argument #0: 'ipu.role' kind must be one of: parameter, buffer, constant, input, loss_grad, hyper, optimizer_state, accumulator, buffer_update, loss, output, input_update, grad, anchor, weight_update, state_update, accumulator_update; got "weight"}}
func.func @bad_role(%w: !torch.vtensor<[2],f32> {ipu.role = #ipu.role<"weight", "w">}, %x: !torch.vtensor<[2],f32> {ipu.role = #ipu.role<"input", "x">}) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = #ipu.strategy<"sharded", "same_as_ipu", [], false, 1 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>} {
  %0 = torch.aten.mul.Tensor %x, %w : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "b0", ipu_id = 0 : i64}>["l0"("model.py":160:5)])
  return %0 : !torch.vtensor<[2],f32>
}

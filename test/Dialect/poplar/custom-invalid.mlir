// RUN: ipu-opt %s --split-input-file --verify-diagnostics

// Verifier messages of the user-code ops and the CTC decoder (valid forms: custom.mlir).

func.func @custom_op_bool_attribute(%x: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.custom_op' op custom op attribute 'flag' must be a float, an int, a string, or an array of only one of them, got true}}
  %o = "poplar.custom_op"(%x) {op_name = "Op", domain = "d", domain_version = 1 : i64, op_attributes = {flag = true},
       operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
       : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @custom_op_mixed_list(%x: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.custom_op' op custom op attribute 'sizes' must be a float, an int, a string, or an array of only one of them, got [1, "a"]}}
  %o = "poplar.custom_op"(%x) {op_name = "Op", domain = "d", domain_version = 1 : i64, op_attributes = {sizes = [1, "a"]},
       operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
       : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @custom_op_gap_in_slots(%x: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.custom_op' op the 'input<i>' slots must be filled from 'input0' without gaps, got sizes [0, 1, 0, 0, 0, 0, 0, 0]}}
  %o = "poplar.custom_op"(%x) {op_name = "Op", domain = "d", domain_version = 1 : i64, op_attributes = {},
       operandSegmentSizes = array<i32: 0, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
       : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @custom_op_without_name(%x: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.custom_op' op attribute 'op_name' must not be empty}}
  %o = "poplar.custom_op"(%x) {op_name = "", domain = "d", domain_version = 1 : i64, op_attributes = {},
       operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>}
       : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @custom_op_grad_of_integer(%x: tensor<4xi32>, %o: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.custom_op_grad' op input #0 is listed in 'differentiable' but has i32 elements (only floating-point inputs have gradients)}}
  %g = "poplar.custom_op_grad"(%x, %o, %o) {op_name = "Op", domain = "d", domain_version = 1 : i64, op_attributes = {},
       differentiable = array<i64: 0>,
       operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0>,
       resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xi32>
  return
}

// -----

func.func @custom_op_grad_wrong_grad_type(%x: tensor<4xf32>, %o: tensor<4xf32>, %d: tensor<2xf32>) {
  // expected-error@+1 {{'poplar.custom_op_grad' op grad_output #0 must have output #0's type tensor<4xf32>, got tensor<2xf32>}}
  %g = "poplar.custom_op_grad"(%x, %o, %d) {op_name = "Op", domain = "d", domain_version = 1 : i64, op_attributes = {},
       differentiable = array<i64: 0>,
       operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0>,
       resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @host_call_without_handle(%x: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.program_host_call' op attribute 'handle' must not be empty}}
  %o = "poplar.program_host_call"(%x) {handle = "", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>,
       resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @host_call_without_results(%x: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.program_host_call' op a host call must return at least one tensor}}
  "poplar.program_host_call"(%x) {handle = "A#1", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>,
       resultSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @ctc_top_paths_above_beam_width(%x: tensor<5x2x4xf32>, %n: tensor<2xi32>) {
  // expected-error@+1 {{'poplar.popnn_ctc_beam_search_decoder' op attribute 'top_paths' must be <= 2, got 3}}
  %p, %l, %d = "poplar.popnn_ctc_beam_search_decoder"(%x, %n) {blank = 0 : i64, beam_width = 2 : i64, top_paths = 3 : i64}
         : (tensor<5x2x4xf32>, tensor<2xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3x5xi32>)
  return
}

// -----

func.func @ctc_blank_out_of_range(%x: tensor<5x2x4xf32>, %n: tensor<2xi32>) {
  // expected-error@+1 {{'poplar.popnn_ctc_beam_search_decoder' op attribute 'blank' must be <= 3, got 4}}
  %p, %l, %d = "poplar.popnn_ctc_beam_search_decoder"(%x, %n) {blank = 4 : i64, beam_width = 2 : i64, top_paths = 1 : i64}
         : (tensor<5x2x4xf32>, tensor<2xi32>) -> (tensor<2x1xf32>, tensor<2x1xi32>, tensor<2x1x5xi32>)
  return
}

// -----

func.func @ctc_paths_wrong_shape(%x: tensor<5x2x4xf32>, %n: tensor<2xi32>) {
  // expected-error@+1 {{'poplar.popnn_ctc_beam_search_decoder' op paths shape must be [2, 1, 5], got [2, 1, 4]}}
  %p, %l, %d = "poplar.popnn_ctc_beam_search_decoder"(%x, %n) {blank = 0 : i64, beam_width = 2 : i64, top_paths = 1 : i64}
         : (tensor<5x2x4xf32>, tensor<2xi32>) -> (tensor<2x1xf32>, tensor<2x1xi32>, tensor<2x1x4xi32>)
  return
}

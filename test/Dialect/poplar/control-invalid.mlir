// RUN: ipu-opt %s --split-input-file --verify-diagnostics

// The verifier rules of poplar.program_if (dialects/poplar/control.py).

func.func @condition_of_two_elements(%c: tensor<2xi1>) {
  // expected-error@+1 {{'poplar.program_if' op condition must be a one-element i1 tensor (rank 0 or all dims 1), got tensor<2xi1>}}
  "poplar.program_if"(%c) ({
  }, {
  }) : (tensor<2xi1>) -> ()
  return
}

// -----

func.func @condition_not_bool(%c: tensor<f32>) {
  // expected-error@+1 {{'poplar.program_if' op condition must be a one-element i1 tensor (rank 0 or all dims 1), got tensor<f32>}}
  "poplar.program_if"(%c) ({
  }, {
  }) : (tensor<f32>) -> ()
  return
}

// -----

func.func @one_branch(%c: tensor<i1>) {
  // expected-error@+1 {{'poplar.program_if' op expects 2 regions, got 1}}
  "poplar.program_if"(%c) ({
  }) : (tensor<i1>) -> ()
  return
}

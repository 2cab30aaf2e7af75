// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=4 output-mode=every_n return-period=4}' --split-input-file --verify-diagnostics

// The module's ipu.anchored_state (Options.anchorTensor on state), each error at the module.

// An anchored name must be a state variable of the program; the error lists the close ones.
// expected-error @+1 {{poplar-build-program: anchored state 'w/velocty' is no variable of the program (a model tensor is anchored as an 'anchor' result of @main instead); did you mean 'w/velocity'? the variables are: w, w/velocity}}
module attributes {ipu.anchored_state = [#ipu.state_anchor<"w/velocty", "all", 1 : i64>]} {
  func.func @main(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %v: tensor<3xf32> {ipu.role = #ipu.role<"optimizer_state", "w/velocity">}, %x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"output", "output.0">}) {
    return %x : tensor<3xf32>
  }
}

// -----

// An input is a model tensor (an "anchor" result), not state.
// expected-error @+1 {{anchored state 'x' is no variable of the program (a model tensor is anchored as an 'anchor' result of @main instead); the variables are: w}}
module attributes {ipu.anchored_state = [#ipu.state_anchor<"x", "all", 1 : i64>]} {
  func.func @main(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"output", "output.0">}) {
    return %x : tensor<3xf32>
  }
}

// -----

// Each entry is an #ipu.state_anchor.
// expected-error @+1 {{poplar-build-program: 'ipu.anchored_state' entry #0 must be an #ipu.state_anchor<name, mode, period>, got "w"}}
module attributes {ipu.anchored_state = ["w"]} {
  func.func @main(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"output", "output.0">}) {
    return %w : tensor<3xf32>
  }
}

// -----

// Its mode is one of poplar.OutputMode's.
// expected-error @+1 {{poplar-build-program: 'ipu.anchored_state' entry #0: its mode must be one of: all, final, sum, every_n; got "often"}}
module attributes {ipu.anchored_state = [#ipu.state_anchor<"w", "often", 1 : i64>]} {
  func.func @main(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"output", "output.0">}) {
    return %w : tensor<3xf32>
  }
}

// -----

// A period belongs to every_n only.
// expected-error @+1 {{poplar-build-program: 'ipu.anchored_state' entry #0: its period 2 only applies to every_n; give 1 with sum}}
module attributes {ipu.anchored_state = [#ipu.state_anchor<"w", "sum", 2 : i64>]} {
  func.func @main(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"output", "output.0">}) {
    return %w : tensor<3xf32>
  }
}

// -----

// Anchored state shares the one every_n period of the program (the outputs' is 4 here).
module attributes {ipu.anchored_state = [#ipu.state_anchor<"w", "every_n", 2 : i64>]} {
  // expected-error @+1 {{anchored tensors with every_n periods 'w' (2); the outputs' every_n period is 4: the values of one program stream every n steps for one n only; anchor them with the same period, or another output mode}}
  func.func @main(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"output", "output.0">}) {
    return %w : tensor<3xf32>
  }
}

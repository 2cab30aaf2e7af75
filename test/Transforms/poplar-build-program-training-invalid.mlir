// RUN: ipu-opt %s -p poplar-build-program --split-input-file --verify-diagnostics

// An update result (weight_update / state_update / buffer_update) must name an argument:
// its value is copied into that argument's variable. Every bad name is reported, at
// the function, and nothing else.
// expected-error @+2 {{a result updates 'w/momentum', which is not an argument of the function}}
// expected-error @+1 {{a result updates 'bn.running_var', which is not an argument of the function}}
func.func @main(%w: tensor<3xf32> {ipu.role = #ipu.role<"parameter", "w">}, %v: tensor<3xf32> {ipu.role = #ipu.role<"optimizer_state", "w/velocity">}, %x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"output", "0">}, tensor<3xf32> {ipu.role = #ipu.role<"weight_update", "w">}, tensor<3xf32> {ipu.role = #ipu.role<"state_update", "w/momentum">}, tensor<3xf32> {ipu.role = #ipu.role<"buffer_update", "bn.running_var">}) {
  %0 = "poplar.popops_map"(%w, %x) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = "poplar.popops_map"(%w, %v) {expr = "sub(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %v, %x : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

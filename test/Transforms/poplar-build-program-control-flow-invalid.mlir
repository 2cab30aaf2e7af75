// RUN: ipu-opt %s -p 'poplar-build-program{num-ipus=2}' --split-input-file --verify-diagnostics

// A device loop in a program over several IPUs is refused by name (its variables and
// body functions are not placed on IPUs yet).
// expected-error@+2 {{poptorch.for_loop / poptorch.cond in a model over several IPUs is not supported yet: run the model on one IPU, or write the loop out in Python}}
func.func @main(%x: tensor<4xf32> {ipu.role = #ipu.role<"input", "x">}) -> (tensor<4xf32> {ipu.role = #ipu.role<"output", "output.0">}) {
  "ipu.for_loop"() ({
    %a = "ipu.carried"(%x) {index = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %b = "poplar.popops_add"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "ipu.region_yield"(%b) {index = 0 : i64} : (tensor<4xf32>) -> ()
  }) {name = "loop0", count = 2 : i64, num_values = 1 : i64} : () -> ()
  %r = "ipu.region_result"() {region = "loop0", index = 0 : i64} : () -> tensor<4xf32>
  return %r : tensor<4xf32>
}

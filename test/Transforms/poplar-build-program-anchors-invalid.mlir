// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=4 output-mode=every_n return-period=4}' --split-input-file --verify-diagnostics

// Anchored results (role "anchor") and their #ipu.output_mode, each error at the function.

// The driver writes every anchor's output mode; an anchor without one is an error.
// expected-error @+1 {{anchored result 'fc/add' has no 'ipu.output_mode' (the driver writes it): give it #ipu.output_mode<mode, period>}}
func.func @main(%x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"anchor", "fc/add">}) {
  return %x : tensor<3xf32>
}

// -----

// The mode is one of poplar.OutputMode's.
// expected-error @+1 {{result #0: 'ipu.output_mode' mode must be one of: all, final, sum, every_n; got "often"}}
func.func @main(%x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"anchor", "x">, ipu.output_mode = #ipu.output_mode<"often", 1 : i64>}) {
  return %x : tensor<3xf32>
}

// -----

// A period belongs to every_n only.
// expected-error @+1 {{result #0: 'ipu.output_mode' period 2 only applies to every_n; give 1 with all}}
func.func @main(%x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"anchor", "x">, ipu.output_mode = #ipu.output_mode<"all", 2 : i64>}) {
  return %x : tensor<3xf32>
}

// -----

// An anchor's period divides the steps of a call (4 here).
// expected-error @+1 {{anchored tensor 'x': return period 3 must divide device-iterations x gradient-accumulation = 4, and divide gradient-accumulation 1 or be a multiple of it}}
func.func @main(%x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"anchor", "x">, ipu.output_mode = #ipu.output_mode<"every_n", 3 : i64>}) {
  return %x : tensor<3xf32>
}

// -----

// The steps are grouped by one period: an every_n anchor takes the outputs' (4 here).
// expected-error @+1 {{anchored tensors with every_n periods 'x' (2); the outputs' every_n period is 4: the values of one program stream every n steps for one n only; anchor them with the same period, or another output mode}}
func.func @main(%x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> (tensor<3xf32> {ipu.role = #ipu.role<"output", "output.0">}, tensor<3xf32> {ipu.role = #ipu.role<"anchor", "x">, ipu.output_mode = #ipu.output_mode<"every_n", 2 : i64>}) {
  return %x, %x : tensor<3xf32>, tensor<3xf32>
}

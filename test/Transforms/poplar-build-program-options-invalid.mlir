// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=0 gradient-accumulation=0 output-mode=last}' --verify-diagnostics

// Bad options are reported before anything is built, all of them, at the module; an
// output mode is one of OutputMode's, and the error lists them.
// (The return period: poplar-build-program-return-period*-invalid.mlir.)
// expected-error @+3 {{poplar-build-program: device-iterations must be >= 1, got 0}}
// expected-error @+2 {{poplar-build-program: gradient-accumulation must be >= 1, got 0}}
// expected-error @+1 {{poplar-build-program: output-mode must be one of: all, final, sum, every_n; got "last"}}
module {
  func.func @main(%x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> tensor<3xf32> {
    return %x : tensor<3xf32>
  }
}

// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=3 gradient-accumulation=2 output-mode=every_n return-period=4}' --verify-diagnostics

// The return period counts steps (micro-batches): it must divide device-iterations x
// gradient-accumulation (3 x 2 = 6 here, not 3), else it is an error at the module
// before anything is built.
// expected-error @+1 {{poplar-build-program: return-period 4 must be >= 1 and divide device-iterations x gradient-accumulation = 6}}
module {
  func.func @main(%x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> tensor<3xf32> {
    return %x : tensor<3xf32>
  }
}

// RUN: ipu-opt %s -p 'poplar-build-program{device-iterations=3 gradient-accumulation=4 output-mode=every_n return-period=6}' --verify-diagnostics

// The return period must also divide gradient-accumulation or be a multiple of it: an
// output is streamed within an update period, or once every whole number of them. 6
// divides 3 x 4 = 12 but neither divides nor is a multiple of 4.
// expected-error @+1 {{poplar-build-program: return-period 6 must divide gradient-accumulation 4 or be a multiple of it}}
module {
  func.func @main(%x: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> tensor<3xf32> {
    return %x : tensor<3xf32>
  }
}

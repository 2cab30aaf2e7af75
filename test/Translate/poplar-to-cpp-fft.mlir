// The DFT ops as poplin::matMul by the DFT's real matrix (dftMatrix, computed when the graph
// is built; the normalisation folded in per dim), one matmul per transformed dim with the dim
// moved last; a complex<f32> tensor is a FLOAT tensor of (real, imaginary) pairs in its last
// dim, so view_as_real / view_as_complex are the same tensor and a complex stream carries
// twice the floats. Another op on complex values is refused by name.
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s
// RUN: sed 's|// BAD ||' %s | not ipu-translate --poplar-to-cpp 2>&1 | FileCheck %s --check-prefix=COMPLEX

// CHECK:      enum class DftKind { REAL_TO_COMPLEX, COMPLEX_TO_COMPLEX, COMPLEX_TO_REAL };
// CHECK:      poplar::Tensor dftMatrix(poplar::Graph &g, DftKind kind, std::size_t n, std::size_t inSize, std::size_t outSize, double sign,
// CHECK:      poplar::DataStream s_host_output_0 = graph.addDeviceToHostFIFO("host.output.0", poplar::FLOAT, 40);
// CHECK:      // poplin_dft_r2c ({{.*}})
// CHECK-NEXT: // DFT: real to complex along dim 2 (one-sided: 5 bins), then complex to complex along [1] as matmuls by DFT matrices
// CHECK-NEXT: poplar::Tensor dft0 = dftMatrix(ipu[0], DftKind::REAL_TO_COMPLEX, 8, 8, 5, -1.0, 1.0 / std::sqrt(8.0), "poplin_dft_r2c/matrix2");
// CHECK-NEXT: poplar::Tensor spectrum0 = poplin::matMul(ipu[0], v_x_0.reshape({8, 8}), dft0, f_step_0, poplar::FLOAT, "poplin_dft_r2c/dim2").reshape({2, 4, 5, 2});
// CHECK-NEXT: poplar::Tensor dft1 = dftMatrix(ipu[0], DftKind::COMPLEX_TO_COMPLEX, 4, 4, 4, -1.0, 1.0 / std::sqrt(4.0), "poplin_dft_r2c/matrix1");
// CHECK-NEXT: poplar::Tensor spectrum1 = poplin::matMul(ipu[0], spectrum0.dimShuffle({0, 2, 1, 3}).reshape({10, 8}), dft1, f_step_0, poplar::FLOAT, "poplin_dft_r2c/dim1").reshape({2, 5, 4, 2});
// CHECK-NEXT: poplar::Tensor [[S:t[0-9]+]] = spectrum1.dimShuffle({0, 2, 1, 3});
// CHECK:      // poplin_dft_c2c ({{.*}})
// CHECK-NEXT: // DFT: complex to complex (inverse) along dims [2] as matmuls by DFT matrices
// CHECK-NEXT: dftMatrix(ipu[0], DftKind::COMPLEX_TO_COMPLEX, 5, 5, 5, 1.0, 1.0 / 5, "poplin_dft_c2c/matrix2");
// CHECK-NEXT: poplin::matMul(ipu[0], [[S]].reshape({8, 10}), dft2, f_step_0, poplar::FLOAT, "poplin_dft_c2c/dim2").reshape({2, 4, 5, 2});
// CHECK:      // poplin_dft_c2r ({{.*}})
// CHECK-NEXT: // DFT: complex to real (inverse of a Hermitian spectrum) along dim 2, 8 samples, after complex to complex along [1], as matmuls by DFT matrices
// CHECK-NEXT: dftMatrix(ipu[0], DftKind::COMPLEX_TO_COMPLEX, 4, 4, 4, 1.0, 1.0, "poplin_dft_c2r/matrix1");
// CHECK:      dftMatrix(ipu[0], DftKind::COMPLEX_TO_REAL, 8, 5, 8, 1.0, 1.0, "poplin_dft_c2r/matrix2");
// CHECK-NEXT: poplar::Tensor signal0 = poplin::matMul(ipu[0], {{.*}}.reshape({8, 10}), dft{{[0-9]+}}, f_step_0, poplar::FLOAT, "poplin_dft_c2r/dim2").reshape({2, 4, 8});
// CHECK:      // view_as_real ({{.*}})
// CHECK-NEXT: poplar::Tensor [[R:t[0-9]+]] = [[S]];  // the same tensor: complex values are (real, imaginary) pairs in the last dimension
// CHECK:      // view_as_complex ({{.*}})
// CHECK-NEXT: poplar::Tensor {{t[0-9]+}} = [[R]];
// CHECK:      // program_stream_copy ({{.*}})
// CHECK-NEXT: p_main_0.add(poplar::program::Copy(v_spectrum_0, s_host_output_0));
// COMPLEX: ipu-translate: error: 'poplar.reshape' at {{.*}} on complex values has no emission yet (a complex<f32> tensor is a FLOAT tensor of (real, imaginary) pairs, which only the FFT ops, view_as_real / view_as_complex, copies and streams use); take torch.view_as_real of the spectrum and compute on its real tensor

"builtin.module"() ({
  "poplar.graph"() ({
    %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x4x8xf32>
    %out = "poplar.variable"() {name = "spectrum", kind = "anchor", ipu = 0 : i64, tiles = array<i64: 1, 1>} : () -> tensor<4x5xcomplex<f32>>
    "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<4x5xcomplex<f32>>} : () -> ()
    "poplar.function"() ({
      %s = "poplar.poplin_dft_r2c"(%x) {dims = array<i64: 1, 2>, normalization = "by_root_n", onesided = true} : (tensor<2x4x8xf32>) -> tensor<2x4x5xcomplex<f32>>
      %s2 = "poplar.poplin_dft_c2c"(%s) {dims = array<i64: 2>, normalization = "by_n", forward = false} : (tensor<2x4x5xcomplex<f32>>) -> tensor<2x4x5xcomplex<f32>>
      %y = "poplar.poplin_dft_c2r"(%s2) {dims = array<i64: 1, 2>, normalization = "none", last_dim_size = 8 : i64} : (tensor<2x4x5xcomplex<f32>>) -> tensor<2x4x8xf32>
      %r = "poplar.view_as_real"(%s) : (tensor<2x4x5xcomplex<f32>>) -> tensor<2x4x5x2xf32>
      %z = "poplar.view_as_complex"(%r) : (tensor<2x4x5x2xf32>) -> tensor<2x4x5xcomplex<f32>>
      %r2 = "poplar.view_as_real"(%s2) : (tensor<2x4x5xcomplex<f32>>) -> tensor<2x4x5x2xf32>
      // BAD %bad = "poplar.reshape"(%s2) : (tensor<2x4x5xcomplex<f32>>) -> tensor<40xcomplex<f32>>
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
      "poplar.program_stream_copy"(%out) {stream = "host.output.0"} : (tensor<4x5xcomplex<f32>>) -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

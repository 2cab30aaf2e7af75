// poplar.program_if as poplar::program::If of the two bodies (an empty else body is an empty
// Sequence); a host stream copy inside a conditional has no emission (its number of transfers
// would depend on the device's condition).
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s
// RUN: sed 's/"poplar.program_call"() {callee = "other"} : () -> ()/"poplar.program_stream_copy"(%x) {stream = "h2d.x"} : (tensor<2xf32>) -> ()/' %s \
// RUN:   | not ipu-translate --poplar-to-cpp 2>&1 | FileCheck %s --check-prefix=STREAM

// CHECK: // program 'main'
// CHECK-NEXT: poplar::program::Sequence p_main_0;
// CHECK: // program_if ({{.*}})
// CHECK-NEXT: poplar::program::Sequence then0;
// CHECK-NEXT: // program_call ({{.*}})
// CHECK-NEXT: then0.add(poplar::program::Call(fn_step));
// CHECK-NEXT: poplar::program::Sequence otherwise0;
// CHECK-NEXT: // program_call ({{.*}})
// CHECK-NEXT: otherwise0.add(poplar::program::Call(fn_other));
// CHECK-NEXT: p_main_0.add(poplar::program::If(v_c_0, then0, otherwise0));
// CHECK-NEXT: // program_if ({{.*}})
// CHECK-NEXT: poplar::program::Sequence then1;
// CHECK-NEXT: // program_call ({{.*}})
// CHECK-NEXT: then1.add(poplar::program::Call(fn_step));
// CHECK-NEXT: poplar::program::Sequence otherwise1;
// CHECK-NEXT: p_main_0.add(poplar::program::If(v_c_0, then1, otherwise1));

// STREAM: ipu-translate: error: 'poplar.program_stream_copy' at {{.*}}: a host stream copy inside a poplar.program_if has no emission (the number of transfers would depend on the device's condition); stream the values outside the conditional

"builtin.module"() ({
  "poplar.graph"() ({
    %c = "poplar.variable"() {name = "c", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<i1>
    %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64: 1, 1>} : () -> tensor<2xf32>
    "poplar.host_stream"() {name = "h2d.x", direction = "host_to_device", type = tensor<2xf32>} : () -> ()
    "poplar.function"() ({
      "poplar.popops_scaled_add_to"(%x, %x) {scale = 1.0 : f64} : (tensor<2xf32>, tensor<2xf32>) -> ()
    }) {name = "step"} : () -> ()
    "poplar.function"() ({
      "poplar.popops_scaled_add_to"(%x, %x) {scale = -0.5 : f64} : (tensor<2xf32>, tensor<2xf32>) -> ()
    }) {name = "other"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_if"(%c) ({
        "poplar.program_call"() {callee = "step"} : () -> ()
      }, {
        "poplar.program_call"() {callee = "other"} : () -> ()
      }) : (tensor<i1>) -> ()
      "poplar.program_if"(%c) ({
        "poplar.program_call"() {callee = "step"} : () -> ()
      }, {
      }) : (tensor<i1>) -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

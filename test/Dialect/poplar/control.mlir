// RUN: ipu-opt %s --split-input-file | FileCheck %s
// RUN: ipu-opt %s --split-input-file | ipu-opt --split-input-file | FileCheck %s

// poplar.program_if (dialects/poplar/control.py), as poplar-build-program makes it for
// poptorch.cond: a condition computed in the step, one call per branch; and a device loop
// (poptorch.for_loop) over a body function, with its carried variable.
// CHECK-LABEL: "poplar.graph"
// CHECK: "poplar.program_repeat"() ({
// CHECK-NEXT: "poplar.program_call"() {callee = "step.loop0.body"} : () -> ()
// CHECK-NEXT: }) {count = 5 : i64} : () -> ()
// CHECK: "poplar.program_if"(%{{.*}}) ({
// CHECK-NEXT: "poplar.program_call"() {callee = "step.cond1.then"} : () -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT: "poplar.program_call"() {callee = "step.cond1.else"} : () -> ()
// CHECK-NEXT: }) : (tensor<i1>) -> ()
// An empty branch, and a condition of shape [1].
// CHECK: "poplar.program_if"(%{{.*}}) ({
// CHECK-NEXT: }, {
// CHECK-NEXT: "poplar.program_call"() {callee = "step.cond1.else"} : () -> ()
// CHECK-NEXT: }) : (tensor<1xi1>) -> ()
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %c = "poplar.variable"() {name = "step.loop0.carried.0", kind = "loop", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %r = "poplar.variable"() {name = "step.cond1.result.0", kind = "loop", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.function"() ({
    %d = "poplar.popops_add"(%c, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%d, %c) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {name = "step.loop0.body"} : () -> ()
  "poplar.function"() ({
    %n = "poplar.popops_mul"(%c, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%n, %r) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {name = "step.cond1.then"} : () -> ()
  "poplar.function"() ({
    "poplar.program_copy"(%c, %r) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {name = "step.cond1.else"} : () -> ()
  "poplar.function"() ({
    "poplar.program_copy"(%x, %c) : (tensor<4xf32>, tensor<4xf32>) -> ()
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step.loop0.body"} : () -> ()
    }) {count = 5 : i64} : () -> ()
    %s = "poplar.popops_reduce"(%c) {op = "add", dims = array<i64: 0>, keep_dims = false, scale = 1.0 : f64} : (tensor<4xf32>) -> tensor<f32>
    %p = "poplar.popops_map"(%s) {expr = "gt(_1, 0.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<f32>) -> tensor<i1>
    "poplar.program_if"(%p) ({
      "poplar.program_call"() {callee = "step.cond1.then"} : () -> ()
    }, {
      "poplar.program_call"() {callee = "step.cond1.else"} : () -> ()
    }) : (tensor<i1>) -> ()
    %q = "poplar.reshape"(%p) : (tensor<i1>) -> tensor<1xi1>
    "poplar.program_if"(%q) ({
    }, {
      "poplar.program_call"() {callee = "step.cond1.else"} : () -> ()
    }) : (tensor<1xi1>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 4 : i64} : () -> ()

// RUN: ipu-opt %s -p poplar-fuse-linear --split-input-file | FileCheck %s

// A linear layer as convert-torch-to-poplar lowers nn.Linear: x @ transpose(w) + b
// becomes one poplin_linear(x, w, b). The transpose goes (nothing else reads it), the
// op keeps the add's stage and IPU, and the copy into the anchor reads the new result.
// CHECK-LABEL: "poplar.function"
// CHECK-NOT: "poplar.dim_shuffle"
// CHECK-NOT: "poplar.poplin_matmul"
// CHECK: %[[Y:.*]] = "poplar.poplin_linear"(%[[X:.*]], %[[W:.*]], %[[B:.*]]) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: "poplar.popops_add"
// CHECK: "poplar.program_copy"(%[[Y]], %{{.*}})
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "fc.weight", tiles = array<i64>} : () -> tensor<3x4xf32>
  %b = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "fc.bias", tiles = array<i64>} : () -> tensor<3xf32>
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<2x4xf32>
  %out = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<2x3xf32>
  "poplar.function"() ({
    %t = "poplar.dim_shuffle"(%w) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<3x4xf32>) -> tensor<4x3xf32>
    %m = "poplar.poplin_matmul"(%x, %t) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    %y = "poplar.popops_add"(%m, %b) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    "poplar.program_copy"(%y, %out) : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// A layer on a [2, 3, 4] input: the lowering folds the batch dims into the matmul's
// rows and reshapes its result back before the bias add. The linear op works on the
// 2-D rows, then the reshape (a view) gives the add's [2, 3, 5] shape. A transpose
// that a backward matmul also reads stays.
// CHECK-LABEL: "poplar.function"
// CHECK: %[[X2:.*]] = "poplar.reshape"(%{{.*}}) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK: %[[T:.*]] = "poplar.dim_shuffle"(%[[W:.*]]) {permutation = array<i64: 1, 0>} : (tensor<5x4xf32>) -> tensor<4x5xf32>
// CHECK: %[[L:.*]] = "poplar.poplin_linear"(%[[X2]], %[[W]], %{{.*}}) : (tensor<6x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<6x5xf32>
// CHECK: %[[Y:.*]] = "poplar.reshape"(%[[L]]) : (tensor<6x5xf32>) -> tensor<2x3x5xf32>
// CHECK: "poplar.popnn_nonlinearity"(%[[Y]])
// CHECK: "poplar.poplin_matmul"(%{{.*}}, %[[T]])
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "fc.weight", tiles = array<i64>} : () -> tensor<5x4xf32>
  %b = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "fc.bias", tiles = array<i64>} : () -> tensor<5xf32>
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<2x3x4xf32>
  %g = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.g", tiles = array<i64>} : () -> tensor<6x4xf32>
  "poplar.function"() ({
    %x2 = "poplar.reshape"(%x) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
    %t = "poplar.dim_shuffle"(%w) {permutation = array<i64: 1, 0>} : (tensor<5x4xf32>) -> tensor<4x5xf32>
    %m = "poplar.poplin_matmul"(%x2, %t) : (tensor<6x4xf32>, tensor<4x5xf32>) -> tensor<6x5xf32>
    %m3 = "poplar.reshape"(%m) : (tensor<6x5xf32>) -> tensor<2x3x5xf32>
    %y = "poplar.popops_add"(%m3, %b) : (tensor<2x3x5xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
    %r = "poplar.popnn_nonlinearity"(%y) {dim = 0 : i64, kind = "relu"} : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
    %back = "poplar.poplin_matmul"(%g, %t) : (tensor<6x4xf32>, tensor<4x5xf32>) -> tensor<6x5xf32>
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// Two layers in a row: the second reads the first's linear op.
// CHECK-LABEL: "poplar.function"
// CHECK: %[[H:.*]] = "poplar.poplin_linear"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x3xf32>, tensor<3x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: "poplar.poplin_linear"(%[[H]], %{{.*}}, %{{.*}}) : (tensor<4x3xf32>, tensor<3x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
"poplar.graph"() ({
  %w1 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "l1.weight", tiles = array<i64>} : () -> tensor<3x3xf32>
  %b1 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "l1.bias", tiles = array<i64>} : () -> tensor<3xf32>
  %w2 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "l2.weight", tiles = array<i64>} : () -> tensor<3x3xf32>
  %b2 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "l2.bias", tiles = array<i64>} : () -> tensor<3xf32>
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4x3xf32>
  "poplar.function"() ({
    %t1 = "poplar.dim_shuffle"(%w1) {permutation = array<i64: 1, 0>} : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %m1 = "poplar.poplin_matmul"(%x, %t1) : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32>
    %h = "poplar.popops_add"(%m1, %b1) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
    %t2 = "poplar.dim_shuffle"(%w2) {permutation = array<i64: 1, 0>} : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %m2 = "poplar.poplin_matmul"(%h, %t2) : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32>
    %y = "poplar.popops_add"(%m2, %b2) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// What stays as it is: a matmul result that something else reads too (%m1), a right
// operand that is no transpose (%m2), a bias that is not 1-D (%m3), and an add after a
// write into a tensor (%m4: the fused op would read x after the copy into it).
// CHECK-LABEL: "poplar.function"
// CHECK-NOT: "poplar.poplin_linear"
// CHECK-COUNT-4: "poplar.popops_add"
// CHECK-NOT: "poplar.poplin_linear"
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "fc.weight", tiles = array<i64>} : () -> tensor<3x4xf32>
  %wt = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "fc2.weight", tiles = array<i64>} : () -> tensor<4x3xf32>
  %b = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "fc.bias", tiles = array<i64>} : () -> tensor<3xf32>
  %b2 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "fc.bias2", tiles = array<i64>} : () -> tensor<2x3xf32>
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<2x4xf32>
  %x0 = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x0", tiles = array<i64>} : () -> tensor<2x4xf32>
  %out = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<2x3xf32>
  "poplar.function"() ({
    %t = "poplar.dim_shuffle"(%w) {permutation = array<i64: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
    %m1 = "poplar.poplin_matmul"(%x, %t) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    %y1 = "poplar.popops_add"(%m1, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    "poplar.program_copy"(%m1, %out) : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()
    %m2 = "poplar.poplin_matmul"(%x, %wt) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    %y2 = "poplar.popops_add"(%m2, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %m3 = "poplar.poplin_matmul"(%x, %t) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    %y3 = "poplar.popops_add"(%m3, %b2) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %m4 = "poplar.poplin_matmul"(%x, %t) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    "poplar.program_copy"(%x0, %x) : (tensor<2x4xf32>, tensor<2x4xf32>) -> ()
    %y4 = "poplar.popops_add"(%m4, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// A pipelined step: the stage regions run as one block, in stage order; the layer of
// stage 1 is fused in its region.
// CHECK-LABEL: "poplar.graph"
// CHECK: "pipeline.stage"() ({
// CHECK: "pipeline.send"
// CHECK: }) {ipu_id = 0 : i64, stage_id = 0 : i64}
// CHECK: "pipeline.stage"() ({
// CHECK: %[[H:.*]] = "pipeline.recv"()
// CHECK: "poplar.poplin_linear"(%[[H]], %{{.*}}, %{{.*}}) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK: }) {ipu_id = 1 : i64, stage_id = 1 : i64}
"poplar.graph"() ({
  %w = "poplar.variable"() {ipu = 1 : i64, kind = "weight", name = "fc.weight", tiles = array<i64>} : () -> tensor<3x4xf32>
  %b = "poplar.variable"() {ipu = 1 : i64, kind = "weight", name = "fc.bias", tiles = array<i64>} : () -> tensor<3xf32>
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<2x4xf32>
  "poplar.function"() ({
    "pipeline.schedule"() ({
      "pipeline.stage"() ({
        %r = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
        "pipeline.send"(%r) {channel = "c0", src_ipu = 0 : i64, dst_ipu = 1 : i64} : (tensor<2x4xf32>) -> ()
      }) {ipu_id = 0 : i64, stage_id = 0 : i64} : () -> ()
      "pipeline.stage"() ({
        %h = "pipeline.recv"() {channel = "c0", src_ipu = 0 : i64, dst_ipu = 1 : i64} : () -> tensor<2x4xf32>
        %t = "poplar.dim_shuffle"(%w) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<3x4xf32>) -> tensor<4x3xf32>
        %m = "poplar.poplin_matmul"(%h, %t) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
        %y = "poplar.popops_add"(%m, %b) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      }) {ipu_id = 1 : i64, stage_id = 1 : i64} : () -> ()
    }) {device_iterations = 2 : i64, gradient_accumulation = 1 : i64, kind = "pipelined", num_ipus = 2 : i64, num_stages = 2 : i64, training = false} : () -> ()
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 2 : i64, 2 : i64, array<i64: 0, 1>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {count = 2 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

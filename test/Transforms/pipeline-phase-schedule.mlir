// RUN: ipu-opt %s -p pipeline-schedule --split-input-file | FileCheck %s

// Serial phased training on one IPU, two forward phases (stages 0 and 1) and their backward
// stages 2 and 3: by default the backward of phase 1 shares phase 1 and that of phase 0 runs
// in phase 2 (stage_phases 0, 1, 1, 2). h (phase 0) is read by tanh in phase 1 and by the
// backward in phase 2. AlwaysLive: every op gets its phase, nothing moves off chip.
// CHECK-LABEL: "poplar.graph"
// CHECK-NOT: pipeline.remote
// CHECK: "poplar.popnn_nonlinearity"(%{{.*}}) {{.*}}kind = "relu", pipeline.ipu = 0 : i64, pipeline.phase = 0 : i64, pipeline.stage = 0 : i64}
// CHECK: kind = "tanh", pipeline.ipu = 0 : i64, pipeline.phase = 1 : i64, pipeline.stage = 1 : i64}
// CHECK: expr = "mul(_1, _2)"{{.*}}pipeline.phase = 1 : i64, pipeline.stage = 2 : i64}
// CHECK: expr = "add(_1, _2)"{{.*}}pipeline.phase = 2 : i64, pipeline.stage = 3 : i64}
// CHECK: expr = "mul(_1, _2)"{{.*}}pipeline.phase = 2 : i64, pipeline.stage = 3 : i64}
// CHECK-NOT: pipeline.remote
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.function"() ({
    %h = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %y = "poplar.popnn_nonlinearity"(%h) {dim = 0 : i64, kind = "tanh", pipeline.ipu = 0 : i64, pipeline.stage = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %g = "poplar.popops_map"(%y, %y) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %e = "poplar.popops_map"(%g, %g) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 3 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %d = "poplar.popops_map"(%e, %h) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 3 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  }) {name = "step", pipeline.plan = #pipeline.plan<"phased_serial", 2 : i64, 4 : i64, 1 : i64, array<i64: 0, 0, 0, 0>>, pipeline.phases = #pipeline.phases<"always_live", 2 : i64, array<i64: 0, 1, 1, 2>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// OffChipAfterEachPhase: every value read in a later phase goes to streaming memory right
// after it is computed and comes back at the start of each later phase reading it: h for
// tanh (phase 1) and the backward (phase 2), g (phase 1) for phase 2. Both phase-2 loads
// are prefetched before the phase's first op. Each moved value has a remote buffer on the
// IPU computing it.
// CHECK-LABEL: "poplar.graph"
// CHECK: "poplar.remote_buffer"() {name = "phase0.0", pipeline.ipu = 0 : i64, repeats = 1 : i64, type = tensor<4xf32>}
// CHECK: "poplar.remote_buffer"() {name = "phase1.1", pipeline.ipu = 0 : i64, repeats = 1 : i64, type = tensor<4xf32>}
// CHECK: %[[H:.*]] = "poplar.popnn_nonlinearity"(%{{.*}}) {{.*}}kind = "relu"
// CHECK-NEXT: "pipeline.remote_store"(%[[H]]) {buffer = "[[B:phase0.0]]", ipu_id = 0 : i64, pipeline.ipu = 0 : i64, pipeline.phase = 0 : i64, pipeline.stage = 0 : i64}
// CHECK-NEXT: %[[L1:.*]] = "pipeline.remote_load"() {buffer = "[[B]]", ipu_id = 0 : i64, pipeline.ipu = 0 : i64, pipeline.phase = 1 : i64, pipeline.stage = 1 : i64} : () -> tensor<4xf32>
// CHECK-NEXT: "poplar.popnn_nonlinearity"(%[[L1]]) {{.*}}kind = "tanh"
// CHECK-NEXT: %[[G:.*]] = "poplar.popops_map"{{.*}}expr = "mul(_1, _2)"{{.*}}pipeline.phase = 1 : i64
// CHECK-NEXT: "pipeline.remote_store"(%[[G]]) {buffer = "[[BG:phase1.1]]", {{.*}}pipeline.phase = 1 : i64
// CHECK-NEXT: %[[L2:.*]] = "pipeline.remote_load"() {buffer = "[[B]]", ipu_id = 0 : i64, pipeline.ipu = 0 : i64, pipeline.phase = 2 : i64, pipeline.stage = 3 : i64}
// CHECK-NEXT: %[[LG:.*]] = "pipeline.remote_load"() {buffer = "[[BG]]", {{.*}}pipeline.phase = 2 : i64
// CHECK-NEXT: %[[E:.*]] = "poplar.popops_map"(%[[LG]], %[[LG]]) {expr = "add(_1, _2)"
// CHECK-NEXT: "poplar.popops_map"(%[[E]], %[[L2]]) {expr = "mul(_1, _2)"
// CHECK-NOT: pipeline.remote
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.function"() ({
    %h = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %y = "poplar.popnn_nonlinearity"(%h) {dim = 0 : i64, kind = "tanh", pipeline.ipu = 0 : i64, pipeline.stage = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %g = "poplar.popops_map"(%y, %y) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %e = "poplar.popops_map"(%g, %g) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 3 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %d = "poplar.popops_map"(%e, %h) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 3 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  }) {name = "step", pipeline.plan = #pipeline.plan<"phased_serial", 2 : i64, 4 : i64, 1 : i64, array<i64: 0, 0, 0, 0>>, pipeline.phases = #pipeline.phases<"off_chip_after_each_phase", 2 : i64, array<i64: 0, 1, 1, 2>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// OffChipAfterFwd: only the forward value read by the backward pass moves: h is stored
// after relu and loaded at the start of backward phase 2; tanh reads h on chip.
// CHECK-LABEL: "poplar.graph"
// CHECK: %[[H:.*]] = "poplar.popnn_nonlinearity"(%{{.*}}) {{.*}}kind = "relu"
// CHECK-NEXT: "pipeline.remote_store"(%[[H]]) {buffer = "[[B:phase0.0]]"
// CHECK-NEXT: "poplar.popnn_nonlinearity"(%[[H]]) {{.*}}kind = "tanh"
// CHECK-NEXT: "poplar.popops_map"
// CHECK-NEXT: %[[L:.*]] = "pipeline.remote_load"() {buffer = "[[B]]", {{.*}}pipeline.phase = 2 : i64
// CHECK-NEXT: "poplar.popops_map"{{.*}}expr = "add(_1, _2)"
// CHECK-NEXT: "poplar.popops_map"(%{{.*}}, %[[L]]) {expr = "mul(_1, _2)"
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.function"() ({
    %h = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %y = "poplar.popnn_nonlinearity"(%h) {dim = 0 : i64, kind = "tanh", pipeline.ipu = 0 : i64, pipeline.stage = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %g = "poplar.popops_map"(%y, %y) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %e = "poplar.popops_map"(%g, %g) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 3 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %d = "poplar.popops_map"(%e, %h) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 3 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  }) {name = "step", pipeline.plan = #pipeline.plan<"phased_serial", 2 : i64, 4 : i64, 1 : i64, array<i64: 0, 0, 0, 0>>, pipeline.phases = #pipeline.phases<"off_chip_after_fwd", 2 : i64, array<i64: 0, 1, 1, 2>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// OffChipAfterFwdNoOverlap: the same store, but the load waits until just before its reader
// (after the phase's other work), so loads never overlap computation.
// CHECK-LABEL: "poplar.graph"
// CHECK: "pipeline.remote_store"
// CHECK-NEXT: "poplar.popnn_nonlinearity"(%{{.*}}) {{.*}}kind = "tanh"
// CHECK-NEXT: "poplar.popops_map"
// CHECK-NEXT: "poplar.popops_map"{{.*}}expr = "add(_1, _2)"
// CHECK-NEXT: %[[L:.*]] = "pipeline.remote_load"() {{.*}}pipeline.phase = 2 : i64
// CHECK-NEXT: "poplar.popops_map"(%{{.*}}, %[[L]]) {expr = "mul(_1, _2)"
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.function"() ({
    %h = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %y = "poplar.popnn_nonlinearity"(%h) {dim = 0 : i64, kind = "tanh", pipeline.ipu = 0 : i64, pipeline.stage = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %g = "poplar.popops_map"(%y, %y) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %e = "poplar.popops_map"(%g, %g) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 3 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %d = "poplar.popops_map"(%e, %h) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 3 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  }) {name = "step", pipeline.plan = #pipeline.plan<"phased_serial", 2 : i64, 4 : i64, 1 : i64, array<i64: 0, 0, 0, 0>>, pipeline.phases = #pipeline.phases<"off_chip_after_fwd_no_overlap", 2 : i64, array<i64: 0, 1, 1, 2>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// A separate backward phase (useSeparateBackwardPhase): the backward of phases 0, 1 runs in
// phases 4, 3 (2N - k), so no phase is shared: with OffChipAfterEachPhase, y also crosses
// from phase 1 into phase 3, and g from phase 3 into phase 4.
// CHECK-LABEL: "poplar.graph"
// CHECK: kind = "relu", {{.*}}pipeline.phase = 0 : i64
// CHECK-NEXT: "pipeline.remote_store"({{.*}}) {buffer = "phase0.0"
// CHECK-NEXT: "pipeline.remote_load"() {buffer = "phase0.0", {{.*}}pipeline.phase = 1 : i64
// CHECK-NEXT: %[[Y:.*]] = "poplar.popnn_nonlinearity"({{.*}}kind = "tanh", {{.*}}pipeline.phase = 1 : i64
// CHECK-NEXT: "pipeline.remote_store"(%[[Y]]) {buffer = "phase1.1"
// CHECK-NEXT: %[[LY:.*]] = "pipeline.remote_load"() {buffer = "phase1.1", {{.*}}pipeline.phase = 3 : i64
// CHECK-NEXT: "poplar.popops_map"(%[[LY]], %[[LY]]) {expr = "mul(_1, _2)", {{.*}}pipeline.phase = 3 : i64
// CHECK-NEXT: "pipeline.remote_store"({{.*}}) {buffer = "phase3.2", {{.*}}pipeline.phase = 3 : i64
// CHECK-NEXT: "pipeline.remote_load"() {buffer = "phase0.0", {{.*}}pipeline.phase = 4 : i64
// CHECK-NEXT: "pipeline.remote_load"() {buffer = "phase3.2", {{.*}}pipeline.phase = 4 : i64
// CHECK-NEXT: expr = "add(_1, _2)"{{.*}}pipeline.phase = 4 : i64
// CHECK: pipeline.phases = #pipeline.phases<"off_chip_after_each_phase", 2 : i64, array<i64: 0, 1, 3, 4>>
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.function"() ({
    %h = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %y = "poplar.popnn_nonlinearity"(%h) {dim = 0 : i64, kind = "tanh", pipeline.ipu = 0 : i64, pipeline.stage = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %g = "poplar.popops_map"(%y, %y) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %e = "poplar.popops_map"(%g, %g) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 3 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %d = "poplar.popops_map"(%e, %h) {expr = "mul(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 3 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  }) {name = "step", pipeline.plan = #pipeline.plan<"phased_serial", 2 : i64, 4 : i64, 1 : i64, array<i64: 0, 0, 0, 0>>, pipeline.phases = #pipeline.phases<"off_chip_after_each_phase", 2 : i64, array<i64: 0, 1, 3, 4>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// RUN: ipu-opt %s -p poplar-estimate-cycles | FileCheck %s
// A phased step (pipeline-schedule's output: flat ops with pipeline.phase) runs its phases
// one after the other and the IPUs of one phase at once: each phase takes its busiest IPU's
// ops plus an external sync (1500) when the step spans several IPUs. Each add of 128x128
// f32 costs 216 (poplar-estimate-cycles.mlir). Phase 0: one add on IPU 0 and one on IPU 1
// in parallel -> 216 + 1500; phase 1: two adds on IPU 1 -> 432 + 1500; the step 3648
// (not the 864 of the adds one after the other plus nothing for the phase boundaries).
// CHECK-LABEL: "poplar.graph"
// CHECK-COUNT-4: "poplar.popops_add"{{.*}}poplar.cycles = 216 : i64
// CHECK: }) {name = "step", pipeline.phases = {{.*}}, poplar.cycles = 3648 : i64}
// CHECK: "poplar.program_call"() {callee = "step", poplar.cycles = 3648 : i64}
"poplar.graph"() ({
  %a = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "a", tiles = array<i64: 0, 512>} : () -> tensor<128x128xf32>
  %b = "poplar.variable"() {ipu = 1 : i64, kind = "weight", name = "b", tiles = array<i64: 0, 512>} : () -> tensor<128x128xf32>
  "poplar.function"() ({
    %0 = "poplar.popops_add"(%a, %a) {pipeline.ipu = 0 : i64, pipeline.phase = 0 : i64, pipeline.stage = 0 : i64} : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
    %1 = "poplar.popops_add"(%b, %b) {pipeline.ipu = 1 : i64, pipeline.phase = 0 : i64, pipeline.stage = 1 : i64} : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
    %2 = "poplar.popops_add"(%b, %b) {pipeline.ipu = 1 : i64, pipeline.phase = 1 : i64, pipeline.stage = 2 : i64} : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
    %3 = "poplar.popops_add"(%2, %b) {pipeline.ipu = 1 : i64, pipeline.phase = 1 : i64, pipeline.stage = 2 : i64} : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  }) {name = "step", pipeline.phases = #pipeline.phases<"always_live", 2 : i64, array<i64: 0, 0, 1>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// RUN: ipu-opt %s -p 'poplar-build-program{gradient-accumulation=3}' | FileCheck %s

// Input: a 2-IPU pipelined training model just before poplar-build-program in the
// training pipeline (ipu-insert-training{gradient-accumulation=3},
// convert-torch-to-poplar{training=true}, canonicalize, cse). The model:
//   a = Linear(2, 2, bias=False)  poptorch.BeginBlock(a, "front", ipu_id=0)
//   b = Linear(2, 2, bias=False)  poptorch.BeginBlock(b, "back", ipu_id=1)
//   loss = poptorch.identity_loss(b(a(x)).sum(), reduction="none"), SGD(lr=0.1).
// ipu-assign-stages made it a pipeline of 3 stages: the forward of a (stage 0, IPU 0),
// the forward of b, the loss and the backward of b (stage 1, IPU 1), the backward of a
// (stage 2, IPU 0). The accumulation (@main) and the optimizer (@update) have no
// stage and no IPU. Argument names are shortened and the ipu.block attributes dropped.

// Without a num-ipus option the graph gets the IPUs of the plan. Each weight lives on
// the IPU of its first user; the accumulators follow their weight (b's gradient is
// accumulated on IPU 1); the input and the micro-batch counter are on IPU 0, the loss
// scaling on IPU 1 (read by the loss gradient). Hyper-parameters nobody reads stay on
// IPU 0. The exchange variables, created as values cross IPUs, come first:
//   exchange.0: a's output, IPU 0 -> 1 (stage 0 -> 1);
//   exchange.1: the gradient of a's output, IPU 1 -> 0 (stage 1 -> 2);
//   exchange.2: loss_scaling for the update of a (IPU 1 -> 0);
//   exchange.3 / .4: weight_decay / lr for the update of b (IPU 0 -> 1).
// CHECK-LABEL: "poplar.graph"() ({
// CHECK-NEXT: %[[LR1:[0-9]+]] = "poplar.variable"() {ipu = 1 : i64, kind = "exchange", name = "exchange.4", tiles = array<i64>} : () -> tensor<f32>
// CHECK-NEXT: %[[WD1:[0-9]+]] = "poplar.variable"() {ipu = 1 : i64, kind = "exchange", name = "exchange.3", tiles = array<i64>} : () -> tensor<f32>
// CHECK-NEXT: %[[LS0:[0-9]+]] = "poplar.variable"() {ipu = 0 : i64, kind = "exchange", name = "exchange.2", tiles = array<i64>} : () -> tensor<f32>
// CHECK-NEXT: %[[EX1:[0-9]+]] = "poplar.variable"() {ipu = 0 : i64, kind = "exchange", name = "exchange.1", tiles = array<i64>} : () -> tensor<1x2xf32>
// CHECK-NEXT: %[[EX0:[0-9]+]] = "poplar.variable"() {ipu = 1 : i64, kind = "exchange", name = "exchange.0", tiles = array<i64>} : () -> tensor<1x2xf32>
// CHECK-NEXT: %[[WA:[0-9]+]] = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "a.weight", tiles = array<i64>} : () -> tensor<2x2xf32>
// CHECK-NEXT: %[[WB:[0-9]+]] = "poplar.variable"() {ipu = 1 : i64, kind = "weight", name = "b.weight", tiles = array<i64>} : () -> tensor<2x2xf32>
// CHECK-NEXT: %[[X:[0-9]+]] = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<1x2xf32>
// CHECK-NEXT: "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<1x2xf32>}
// CHECK-NEXT: %[[LS:[0-9]+]] = "poplar.variable"() {ipu = 1 : i64, kind = "scalar", name = "loss_scaling", tiles = array<i64>} : () -> tensor<f32>
// CHECK-NEXT: %[[COUNT:[0-9]+]] = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "accumulation_count", tiles = array<i64>} : () -> tensor<f32>
// CHECK-NEXT: %[[ACCA:[0-9]+]] = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "a.weight/accum", tiles = array<i64>} : () -> tensor<2x2xf32>
// CHECK-NEXT: %[[ACCB:[0-9]+]] = "poplar.variable"() {ipu = 1 : i64, kind = "accumulator", name = "b.weight/accum", tiles = array<i64>} : () -> tensor<2x2xf32>
// CHECK-NEXT: %[[LR:[0-9]+]] = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.lr", tiles = array<i64>} : () -> tensor<f32>
// CHECK-NEXT: "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.momentum", tiles = array<i64>}
// CHECK-NEXT: "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.dampening", tiles = array<i64>}
// CHECK-NEXT: %[[WD:[0-9]+]] = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.weight_decay", tiles = array<i64>} : () -> tensor<f32>
// CHECK-NEXT: "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.velocity_scaling", tiles = array<i64>}
// CHECK-NEXT: "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<f32>}
// CHECK-NEXT: %[[A0:[0-9]+]] = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<f32>

// The step: staged ops keep their stage and IPU. a's output is copied into
// exchange.0 just before its first reader on IPU 1, which then reads the exchange
// variable (so does b's weight gradient: one exchange per value and IPU); the gradient
// of a's output goes back to IPU 0 through exchange.1. The input and the loss scaling
// are read where they live: no copy.
// CHECK-NEXT: "poplar.function"() ({
// CHECK-NEXT: "poplar.program_stream_copy"(%[[X]]) {stream = "host.input.x"}
// CHECK-NEXT: "poplar.program_sync"() {kind = "internal"}
// CHECK-NEXT: %[[WAT:[0-9]+]] = "poplar.dim_shuffle"(%[[WA]]) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64}
// CHECK-NEXT: %[[H:[0-9]+]] = "poplar.poplin_matmul"(%[[X]], %[[WAT]]) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64}
// CHECK-NEXT: %[[WBT:[0-9]+]] = "poplar.dim_shuffle"(%[[WB]]) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK-NEXT: "poplar.program_copy"(%[[H]], %[[EX0]]) : (tensor<1x2xf32>, tensor<1x2xf32>) -> ()
// CHECK-NEXT: %[[Y:[0-9]+]] = "poplar.poplin_matmul"(%[[EX0]], %[[WBT]]) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK-NEXT: %[[LOSS:[0-9]+]] = "poplar.popops_reduce"(%[[Y]]) {{.*}}pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64
// CHECK-NEXT: %[[SEED:[0-9]+]] = "poplar.broadcast"(%[[LS]]) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK-NEXT: %[[SEEDT:[0-9]+]] = "poplar.dim_shuffle"(%[[SEED]])
// CHECK-NEXT: %[[GWBT:[0-9]+]] = "poplar.poplin_matmul"(%[[SEEDT]], %[[EX0]]) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK-NEXT: %[[GWB:[0-9]+]] = "poplar.dim_shuffle"(%[[GWBT]])
// CHECK-NEXT: %[[WBTT:[0-9]+]] = "poplar.dim_shuffle"(%[[WBT]])
// CHECK-NEXT: %[[GH:[0-9]+]] = "poplar.poplin_matmul"(%[[SEED]], %[[WBTT]]) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK-NEXT: %[[GWB2:[0-9]+]] = "poplar.dim_shuffle"(%[[GWB]]) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64}
// CHECK-NEXT: "poplar.program_copy"(%[[GH]], %[[EX1]]) : (tensor<1x2xf32>, tensor<1x2xf32>) -> ()
// CHECK-NEXT: %[[GHT:[0-9]+]] = "poplar.dim_shuffle"(%[[EX1]]) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64}
// CHECK-NEXT: %[[GWAT:[0-9]+]] = "poplar.poplin_matmul"(%[[GHT]], %[[X]]) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64}
// CHECK-NEXT: %[[GWA:[0-9]+]] = "poplar.dim_shuffle"(%[[GWAT]])
// CHECK-NEXT: %[[GWA2:[0-9]+]] = "poplar.dim_shuffle"(%[[GWA]]) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64}

// The unstaged ops get an IPU and no stage: the counter where it lives, each
// accumulation with its accumulator (a's on IPU 0, b's on IPU 1), without copies.
// CHECK-NEXT: %[[NEXT:[0-9]+]] = "poplar.popops_map"(%[[COUNT]]) {expr = "add(_1, 1.0)", operandSegmentSizes = array<i32: 1, 0, 0>, pipeline.ipu = 0 : i64}
// CHECK-NEXT: %[[SUMA:[0-9]+]] = "poplar.popops_map"(%[[ACCA]], %[[GWA2]]) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64}
// CHECK-NEXT: %[[SUMB:[0-9]+]] = "poplar.popops_map"(%[[ACCB]], %[[GWB2]]) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 1 : i64}
// CHECK-NEXT: "poplar.program_copy"(%[[LOSS]], %[[A0]])
// CHECK-NEXT: "poplar.program_copy"(%[[NEXT]], %[[COUNT]])
// CHECK-NEXT: "poplar.program_copy"(%[[SUMA]], %[[ACCA]])
// CHECK-NEXT: "poplar.program_copy"(%[[SUMB]], %[[ACCB]])

// The plan the schedule and the runtime follow: ipu-assign-stages' #pipeline.plan with
// the IPU of each of the 3 stages filled in (from the staged ops).
// CHECK-NEXT: }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 3 : i64, 2 : i64, array<i64: 0, 1, 0>>} : () -> ()

// The update: each weight's update runs on the weight's IPU; the scalars it reads
// from the other IPU come through exchange variables copied just before their reader
// (loss_scaling to IPU 0; weight_decay and lr to IPU 1). cse merged the two 2x2 zeros
// that reset the accumulators into one constant, so one of the resets is an inter-IPU
// copy; the scalar zero of the counter is on the counter's IPU 0.
// CHECK-NEXT: "poplar.function"() ({
// CHECK-NEXT: "poplar.program_sync"() {kind = "internal"}
// CHECK-NEXT: %[[MEANA:[0-9]+]] = "poplar.popops_map"(%[[ACCA]]) {expr = "div(_1, 3.0)", {{.*}}pipeline.ipu = 0 : i64}
// CHECK-NEXT: %[[MEANB:[0-9]+]] = "poplar.popops_map"(%[[ACCB]]) {expr = "div(_1, 3.0)", {{.*}}pipeline.ipu = 1 : i64}
// CHECK-NEXT: "poplar.program_copy"(%[[LS]], %[[LS0]]) : (tensor<f32>, tensor<f32>) -> ()
// CHECK-NEXT: %[[UA:[0-9]+]] = "poplar.popops_map"(%[[MEANA]], %[[LS0]]) {expr = "div(_1, _2)", {{.*}}pipeline.ipu = 0 : i64}
// CHECK-NEXT: %[[DA:[0-9]+]] = "poplar.popops_map"(%[[UA]], %[[WA]], %[[WD]]) {expr = "add(_1, mul(_2, _3))", {{.*}}pipeline.ipu = 0 : i64}
// CHECK-NEXT: %[[NEWA:[0-9]+]] = "poplar.popops_map"(%[[WA]], %[[DA]], %[[LR]]) {expr = "sub(_1, mul(_2, _3))", {{.*}}pipeline.ipu = 0 : i64}
// CHECK-NEXT: %[[UB:[0-9]+]] = "poplar.popops_map"(%[[MEANB]], %[[LS]]) {expr = "div(_1, _2)", {{.*}}pipeline.ipu = 1 : i64}
// CHECK-NEXT: "poplar.program_copy"(%[[WD]], %[[WD1]]) : (tensor<f32>, tensor<f32>) -> ()
// CHECK-NEXT: %[[DB:[0-9]+]] = "poplar.popops_map"(%[[UB]], %[[WB]], %[[WD1]]) {expr = "add(_1, mul(_2, _3))", {{.*}}pipeline.ipu = 1 : i64}
// CHECK-NEXT: "poplar.program_copy"(%[[LR]], %[[LR1]]) : (tensor<f32>, tensor<f32>) -> ()
// CHECK-NEXT: %[[NEWB:[0-9]+]] = "poplar.popops_map"(%[[WB]], %[[DB]], %[[LR1]]) {expr = "sub(_1, mul(_2, _3))", {{.*}}pipeline.ipu = 1 : i64}
// CHECK-NEXT: %[[ZEROS:[0-9]+]] = "poplar.constant"() {ipu = [[ZIPU:[01]]] : i64, pipeline.ipu = [[ZIPU]] : i64, value = dense<0.000000e+00> : tensor<2x2xf32>}
// CHECK-NEXT: %[[ZERO:[0-9]+]] = "poplar.constant"() {ipu = 0 : i64, pipeline.ipu = 0 : i64, value = dense<0.000000e+00> : tensor<f32>}
// CHECK-NEXT: "poplar.program_copy"(%[[NEWA]], %[[WA]])
// CHECK-NEXT: "poplar.program_copy"(%[[NEWB]], %[[WB]])
// CHECK-NEXT: "poplar.program_copy"(%[[ZEROS]], %[[ACCA]])
// CHECK-NEXT: "poplar.program_copy"(%[[ZEROS]], %[[ACCB]])
// CHECK-NEXT: "poplar.program_copy"(%[[ZERO]], %[[COUNT]])
// CHECK-NEXT: }) {name = "update"} : () -> ()

// The device loop is the usual one (3 steps, then the update).
// CHECK-NEXT: "poplar.program_sequence"() ({
// CHECK-NEXT: "poplar.program_repeat"() ({
// CHECK-NEXT: "poplar.program_repeat"() ({
// CHECK-NEXT: "poplar.program_call"() {callee = "step"}
// CHECK-NEXT: "poplar.program_stream_copy"(%[[A0]]) {stream = "host.output.0"}
// CHECK-NEXT: }) {count = 3 : i64}
// CHECK-NEXT: "poplar.program_call"() {callee = "update"}
// CHECK-NEXT: }) {count = 1 : i64}
// CHECK-NEXT: }) {name = "main"}
// The interface names the update function, which the main program calls after G steps,
// and lists the variables the host provides, each once: @main's arguments in order
// (the input x streams instead), then those only @update takes (the hyper-parameters).
// CHECK-NEXT: }) {num_ipus = 2 : i64, poplar.interface = #poplar.interface<{x = "host.input.x"}, ["host.output.0"], [["parameter", "a.weight"], ["parameter", "b.weight"], ["hyper", "loss_scaling"], ["accumulator", "accumulation_count"], ["accumulator", "a.weight/accum"], ["accumulator", "b.weight/accum"], ["hyper", "0.lr"], ["hyper", "0.momentum"], ["hyper", "0.dampening"], ["hyper", "0.weight_decay"], ["hyper", "0.velocity_scaling"]], "step", "update", "main">, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64}
func.func @update(%wa: tensor<2x2xf32> {ipu.role = #ipu.role<"parameter", "a.weight">}, %wb: tensor<2x2xf32> {ipu.role = #ipu.role<"parameter", "b.weight">}, %acc_a: tensor<2x2xf32> {ipu.role = #ipu.role<"accumulator", "a.weight/accum">}, %acc_b: tensor<2x2xf32> {ipu.role = #ipu.role<"accumulator", "b.weight/accum">}, %lr: tensor<f32> {ipu.role = #ipu.role<"hyper", "0.lr">}, %mom: tensor<f32> {ipu.role = #ipu.role<"hyper", "0.momentum">}, %damp: tensor<f32> {ipu.role = #ipu.role<"hyper", "0.dampening">}, %wd: tensor<f32> {ipu.role = #ipu.role<"hyper", "0.weight_decay">}, %vs: tensor<f32> {ipu.role = #ipu.role<"hyper", "0.velocity_scaling">}, %ls: tensor<f32> {ipu.role = #ipu.role<"hyper", "loss_scaling">}, %count: tensor<f32> {ipu.role = #ipu.role<"accumulator", "accumulation_count">}) -> (tensor<2x2xf32> {ipu.role = #ipu.role<"weight_update", "a.weight">}, tensor<2x2xf32> {ipu.role = #ipu.role<"weight_update", "b.weight">}, tensor<2x2xf32> {ipu.role = #ipu.role<"accumulator_update", "a.weight/accum">}, tensor<2x2xf32> {ipu.role = #ipu.role<"accumulator_update", "b.weight/accum">}, tensor<f32> {ipu.role = #ipu.role<"accumulator_update", "accumulation_count">}) {
  %0 = "poplar.popops_map"(%acc_a) {expr = "div(_1, 3.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = "poplar.popops_map"(%acc_b) {expr = "div(_1, 3.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %2 = "poplar.popops_map"(%0, %ls) {expr = "div(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %3 = "poplar.popops_map"(%2, %wa, %wd) {expr = "add(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %4 = "poplar.popops_map"(%wa, %3, %lr) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %5 = "poplar.popops_map"(%1, %ls) {expr = "div(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %6 = "poplar.popops_map"(%5, %wb, %wd) {expr = "add(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %7 = "poplar.popops_map"(%wb, %6, %lr) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %8 = "poplar.constant"() {ipu = 0 : i64, value = dense<0.000000e+00> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %9 = "poplar.constant"() {ipu = 0 : i64, value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
  return %4, %7, %8, %8, %9 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>
}
func.func @main(%wa: tensor<2x2xf32> {ipu.role = #ipu.role<"parameter", "a.weight">}, %wb: tensor<2x2xf32> {ipu.role = #ipu.role<"parameter", "b.weight">}, %x: tensor<1x2xf32> {ipu.role = #ipu.role<"input", "x">}, %ls: tensor<f32> {ipu.role = #ipu.role<"hyper", "loss_scaling">}, %count: tensor<f32> {ipu.role = #ipu.role<"accumulator", "accumulation_count">}, %acc_a: tensor<2x2xf32> {ipu.role = #ipu.role<"accumulator", "a.weight/accum">}, %acc_b: tensor<2x2xf32> {ipu.role = #ipu.role<"accumulator", "b.weight/accum">}) -> (tensor<f32> {ipu.role = #ipu.role<"loss", "0">}, tensor<f32> {ipu.role = #ipu.role<"accumulator_update", "accumulation_count">}, tensor<2x2xf32> {ipu.role = #ipu.role<"accumulator_update", "a.weight/accum">}, tensor<2x2xf32> {ipu.role = #ipu.role<"accumulator_update", "b.weight/accum">}) attributes {pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 3 : i64, 2 : i64, array<i64>>} {
  %0 = "poplar.dim_shuffle"(%wa) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = "poplar.poplin_matmul"(%x, %0) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %2 = "poplar.dim_shuffle"(%wb) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %3 = "poplar.poplin_matmul"(%1, %2) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %4 = "poplar.popops_reduce"(%3) {dims = array<i64: 0, 1>, keep_dims = false, op = "add", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64, scale = 1.000000e+00 : f64} : (tensor<1x2xf32>) -> tensor<f32>
  %5 = "poplar.broadcast"(%ls) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<f32>) -> tensor<1x2xf32>
  %6 = "poplar.dim_shuffle"(%5) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<1x2xf32>) -> tensor<2x1xf32>
  %7 = "poplar.poplin_matmul"(%6, %1) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x1xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
  %8 = "poplar.dim_shuffle"(%7) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %9 = "poplar.dim_shuffle"(%2) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %10 = "poplar.poplin_matmul"(%5, %9) {pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %11 = "poplar.dim_shuffle"(%8) {permutation = array<i64: 1, 0>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %12 = "poplar.dim_shuffle"(%10) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<1x2xf32>) -> tensor<2x1xf32>
  %13 = "poplar.poplin_matmul"(%12, %x) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x1xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
  %14 = "poplar.dim_shuffle"(%13) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %15 = "poplar.dim_shuffle"(%14) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %16 = "poplar.popops_map"(%count) {expr = "add(_1, 1.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<f32>) -> tensor<f32>
  %17 = "poplar.popops_map"(%acc_a, %15) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %18 = "poplar.popops_map"(%acc_b, %11) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %4, %16, %17, %18 : tensor<f32>, tensor<f32>, tensor<2x2xf32>, tensor<2x2xf32>
}

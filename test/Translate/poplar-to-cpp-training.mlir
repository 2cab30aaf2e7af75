// A training step (an MLP with an MSE loss and SGD, as compiled): the hyper-parameters are
// host-written scalar variables, the relu gradient is popnn::nonLinearityInputGradient and
// each weight update is popops::mapInPlace of the update expression.
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK:      poplar::Tensor [[LR:v__0_lr_0]] = ipu[0].addVariable(poplar::FLOAT, {}, "0.lr");
// CHECK:      graph.createHostWrite("m.l1.weight", [[W:v_m_l1_weight_0]]);
// CHECK:      graph.createHostWrite("0.lr", [[LR]]);
// CHECK-NEXT: graph.createHostRead("0.lr/read", [[LR]]);
// CHECK-NEXT: hostWrites.push_back({"0.lr", poplar::FLOAT, 1});
// CHECK:      = popnn::nonLinearityInputGradient(ipu[0], popnn::NonLinearityType::RELU, {{t[0-9]+}}, {{t[0-9]+}}, f_step_0, "popnn_nonlinearity_grad");
// CHECK:      // [[W]] = sub(_1, mul(_2, _3)), in place
// CHECK-NEXT: popops::mapInPlace(ipu[0],
// CHECK-NEXT:     pe::BinaryOp(pe::BinaryOpType::SUBTRACT, pe::_1, pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::_2, pe::_3)),
// CHECK-NEXT:     {[[W]], {{t[0-9]+}}, [[LR]]}, f_step_0, "popops_map_in_place");

"builtin.module"() ({
  "poplar.graph"() ({
    %0 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "m.l1.weight", tiles = array<i64: 0, 4>} : () -> tensor<16x8xf32>
    %1 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "m.l1.bias", tiles = array<i64: 4, 1>} : () -> tensor<16xf32>
    %2 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "m.l2.weight", tiles = array<i64: 5, 2>} : () -> tensor<4x16xf32>
    %3 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "m.l2.bias", tiles = array<i64: 7, 1>} : () -> tensor<4xf32>
    %4 = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.primals_5", tiles = array<i64: 8, 1>} : () -> tensor<2x8xf32>
    "poplar.host_stream"() {direction = "host_to_device", name = "host.input.primals_5", type = tensor<2x8xf32>} : () -> ()
    %5 = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.primals_6", tiles = array<i64: 9, 1>} : () -> tensor<2x4xf32>
    "poplar.host_stream"() {direction = "host_to_device", name = "host.input.primals_6", type = tensor<2x4xf32>} : () -> ()
    %6 = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "loss_scaling", tiles = array<i64: 10, 1>} : () -> tensor<f32>
    %7 = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.lr", tiles = array<i64: 11, 1>} : () -> tensor<f32>
    %8 = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.momentum", tiles = array<i64: 12, 1>} : () -> tensor<f32>
    %9 = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.dampening", tiles = array<i64: 13, 1>} : () -> tensor<f32>
    %10 = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.weight_decay", tiles = array<i64: 14, 1>} : () -> tensor<f32>
    %11 = "poplar.variable"() {ipu = 0 : i64, kind = "scalar", name = "0.velocity_scaling", tiles = array<i64: 15, 1>} : () -> tensor<f32>
    "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<f32>} : () -> ()
    %12 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64: 16, 1>} : () -> tensor<f32>
    "poplar.host_stream"() {direction = "device_to_host", name = "host.output.1", type = tensor<2x4xf32>} : () -> ()
    %13 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.1", tiles = array<i64: 17, 1>} : () -> tensor<2x4xf32>
    "poplar.function"() ({
      "poplar.program_stream_copy"(%4) {pipeline.stage = 0 : i64, poplar.cycles = 2663 : i64, stream = "host.input.primals_5"} : (tensor<2x8xf32>) -> ()
      "poplar.program_stream_copy"(%5) {pipeline.stage = 0 : i64, poplar.cycles = 2662 : i64, stream = "host.input.primals_6"} : (tensor<2x4xf32>) -> ()
      "poplar.program_sync"() {kind = "internal", pipeline.stage = 0 : i64, poplar.cycles = 150 : i64} : () -> ()
      %14 = "poplar.poplin_linear"(%4, %0, %1) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 234 : i64} : (tensor<2x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x16xf32>
      %15 = "poplar.popnn_nonlinearity"(%14) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 211 : i64} : (tensor<2x16xf32>) -> tensor<2x16xf32>
      %16 = "poplar.dim_shuffle"(%2) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 0 : i64} : (tensor<4x16xf32>) -> tensor<16x4xf32>
      %17 = "poplar.poplin_linear"(%15, %2, %3) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 241 : i64} : (tensor<2x16xf32>, tensor<4x16xf32>, tensor<4xf32>) -> tensor<2x4xf32>
      %18 = "poplar.popops_map"(%17, %5) {expr = "square(sub(_1, _2))", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 204 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
      %19 = "poplar.popops_reduce"(%18) {dims = array<i64: 0, 1>, keep_dims = false, op = "add", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 202 : i64, scale = 1.250000e-01 : f64} : (tensor<2x4xf32>) -> tensor<f32>
      %20 = "poplar.popops_map"(%17, %5, %6) {expr = "mul(mul(sub(_1, _2), 0.25), _3)", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 205 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
      %21 = "poplar.dim_shuffle"(%16) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 0 : i64} : (tensor<16x4xf32>) -> tensor<4x16xf32>
      %22 = "poplar.poplin_matmul"(%20, %21) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 231 : i64} : (tensor<2x4xf32>, tensor<4x16xf32>) -> tensor<2x16xf32>
      %23 = "poplar.dim_shuffle"(%20) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 0 : i64} : (tensor<2x4xf32>) -> tensor<4x2xf32>
      %24 = "poplar.poplin_matmul"(%23, %15) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 220 : i64} : (tensor<4x2xf32>, tensor<2x16xf32>) -> tensor<4x16xf32>
      %25 = "poplar.dim_shuffle"(%24) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 0 : i64} : (tensor<4x16xf32>) -> tensor<16x4xf32>
      %26 = "poplar.popops_reduce"(%20) {dims = array<i64: 0>, keep_dims = true, op = "add", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 202 : i64, scale = 1.000000e+00 : f64} : (tensor<2x4xf32>) -> tensor<1x4xf32>
      %27 = "poplar.reshape"(%26) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 0 : i64} : (tensor<1x4xf32>) -> tensor<4xf32>
      %28 = "poplar.dim_shuffle"(%25) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 0 : i64} : (tensor<16x4xf32>) -> tensor<4x16xf32>
      %29 = "poplar.popnn_nonlinearity_grad"(%22, %15) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 216 : i64} : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
      %30 = "poplar.dim_shuffle"(%29) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 0 : i64} : (tensor<2x16xf32>) -> tensor<16x2xf32>
      %31 = "poplar.poplin_matmul"(%30, %4) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 214 : i64} : (tensor<16x2xf32>, tensor<2x8xf32>) -> tensor<16x8xf32>
      %32 = "poplar.dim_shuffle"(%31) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 0 : i64} : (tensor<16x8xf32>) -> tensor<8x16xf32>
      %33 = "poplar.popops_reduce"(%29) {dims = array<i64: 0>, keep_dims = true, op = "add", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 208 : i64, scale = 1.000000e+00 : f64} : (tensor<2x16xf32>) -> tensor<1x16xf32>
      %34 = "poplar.reshape"(%33) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 0 : i64} : (tensor<1x16xf32>) -> tensor<16xf32>
      %35 = "poplar.dim_shuffle"(%32) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 0 : i64} : (tensor<8x16xf32>) -> tensor<16x8xf32>
      %36 = "poplar.popops_map"(%35, %6) {expr = "div(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.stage = 0 : i64, poplar.cycles = 211 : i64} : (tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
      %37 = "poplar.popops_map"(%36, %0, %10) {expr = "add(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.stage = 0 : i64, poplar.cycles = 216 : i64} : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<f32>) -> tensor<16x8xf32>
      "poplar.popops_map_in_place"(%0, %37, %7) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.stage = 0 : i64, poplar.cycles = 211 : i64} : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<f32>) -> ()
      %38 = "poplar.popops_map"(%34, %6) {expr = "div(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.stage = 0 : i64, poplar.cycles = 206 : i64} : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
      %39 = "poplar.popops_map"(%38, %1, %10) {expr = "add(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.stage = 0 : i64, poplar.cycles = 209 : i64} : (tensor<16xf32>, tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
      "poplar.popops_map_in_place"(%1, %39, %7) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.stage = 0 : i64, poplar.cycles = 206 : i64} : (tensor<16xf32>, tensor<16xf32>, tensor<f32>) -> ()
      %40 = "poplar.popops_map"(%28, %6) {expr = "div(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.stage = 0 : i64, poplar.cycles = 211 : i64} : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
      %41 = "poplar.popops_map"(%40, %2, %10) {expr = "add(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.stage = 0 : i64, poplar.cycles = 216 : i64} : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
      "poplar.popops_map_in_place"(%2, %41, %7) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.stage = 0 : i64, poplar.cycles = 211 : i64} : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<f32>) -> ()
      %42 = "poplar.popops_map"(%27, %6) {expr = "div(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.stage = 0 : i64, poplar.cycles = 202 : i64} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
      %43 = "poplar.popops_map"(%42, %3, %10) {expr = "add(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.stage = 0 : i64, poplar.cycles = 203 : i64} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
      "poplar.popops_map_in_place"(%3, %43, %7) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>, pipeline.stage = 0 : i64, poplar.cycles = 202 : i64} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> ()
      "poplar.program_copy"(%19, %12) {pipeline.stage = 0 : i64, poplar.copy_mode = "share", poplar.cycles = 151 : i64} : (tensor<f32>, tensor<f32>) -> ()
      "poplar.program_copy"(%17, %13) {pipeline.stage = 0 : i64, poplar.copy_mode = "share", poplar.cycles = 156 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> ()
    }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 1 : i64, 1 : i64, 1 : i64, array<i64: 0>>, poplar.cycles = 10874 : i64} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_repeat"() ({
        "poplar.program_call"() {callee = "step", poplar.cycles = 10874 : i64} : () -> ()
      }) {count = 1 : i64, poplar.cycles = 10874 : i64} : () -> ()
      "poplar.program_stream_copy"(%12) {poplar.cycles = 2661 : i64, stream = "host.output.0"} : (tensor<f32>) -> ()
      "poplar.program_stream_copy"(%13) {poplar.cycles = 2662 : i64, stream = "host.output.1"} : (tensor<2x4xf32>) -> ()
    }) {name = "main", poplar.cycles = 16197 : i64} : () -> ()
  }) {num_ipus = 1 : i64, poplar.cycles_target = "ipu-model-mk2", poplar.interface = #poplar.interface<{primals_5 = "host.input.primals_5", primals_6 = "host.input.primals_6"}, ["host.output.0", "host.output.1"], [["parameter", "m.l1.weight"], ["parameter", "m.l1.bias"], ["parameter", "m.l2.weight"], ["parameter", "m.l2.bias"], ["hyper", "loss_scaling"], ["hyper", "0.lr"], ["hyper", "0.momentum"], ["hyper", "0.dampening"], ["hyper", "0.weight_decay"], ["hyper", "0.velocity_scaling"]], "step", "", "main">, poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 1004 : i64, 1396 : i64, 0 : i64, 2400 : i64>]>, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

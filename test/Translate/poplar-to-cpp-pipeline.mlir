// A pipelined 2-IPU inference step (compiled from a two-block model with
// deviceIterations(4)): each pipeline.stage becomes a Sequence added to the step function in
// stage order, the send / recv pair a tensor on the receiving IPU and an inter-IPU Copy,
// and the device loop a Repeat of 4.
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK:      hostStreams.push_back({"host.input.x", poplar::FLOAT, 16, 4, true});
// CHECK-NEXT: hostStreams.push_back({"host.output.0", poplar::FLOAT, 8, 4, false});
// CHECK:      // pipelined schedule of 2 stages on 2 IPUs: the stages run in order for each micro-batch
// CHECK:      poplar::program::Sequence [[S0:stage0_0]];  // stage 0 on IPU 0
// CHECK:      poplar::Tensor [[A:t[0-9]+]] = popnn::nonLinearity(ipu[0], popnn::NonLinearityType::RELU, {{.*}}, [[S0]], "popnn_nonlinearity");
// CHECK:      poplar::Tensor [[X:x_exchange_0_0]] = ipu[1].addVariable(poplar::FLOAT, {2, 8}, "exchange.0");  // channel 'exchange.0'
// CHECK:      [[S0]].add(poplar::program::Copy([[A]], [[X]]));  // inter-IPU copy: IPU 0 -> IPU 1
// CHECK-NEXT: f_step_0.add([[S0]]);
// CHECK:      poplar::program::Sequence [[S1:stage1_0]];  // stage 1 on IPU 1
// CHECK:      poplin::matMul(ipu[1], [[X]], v_l2_weight_0.transpose(), [[S1]], poplar::FLOAT, "poplin_linear");
// CHECK:      f_step_0.add([[S1]]);
// CHECK:      p_main_0.add(poplar::program::Repeat(4, repeat0));

"builtin.module"() ({
  "poplar.graph"() ({
    %0 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "l1.weight", tiles = array<i64: 0, 2>} : () -> tensor<8x8xf32>
    %1 = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "l1.bias", tiles = array<i64: 2, 1>} : () -> tensor<8xf32>
    %2 = "poplar.variable"() {ipu = 1 : i64, kind = "weight", name = "l2.weight", tiles = array<i64: 0, 1>} : () -> tensor<4x8xf32>
    %3 = "poplar.variable"() {ipu = 1 : i64, kind = "weight", name = "l2.bias", tiles = array<i64: 1, 1>} : () -> tensor<4xf32>
    %4 = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64: 3, 1>} : () -> tensor<2x8xf32>
    "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<2x8xf32>} : () -> ()
    "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<2x4xf32>} : () -> ()
    %5 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64: 4, 1>} : () -> tensor<2x4xf32>
    "poplar.function"() ({
      "pipeline.schedule"() ({
        "pipeline.stage"() ({
          "poplar.program_stream_copy"(%4) {pipeline.stage = 0 : i64, poplar.cycles = 2663 : i64, stream = "host.input.x"} : (tensor<2x8xf32>) -> ()
          "poplar.program_sync"() {kind = "internal", pipeline.stage = 0 : i64, poplar.cycles = 150 : i64} : () -> ()
          %8 = "poplar.poplin_linear"(%4, %0, %1) {ipu.block = #ipu.block<"0", 0 : i64>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 237 : i64} : (tensor<2x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
          %9 = "poplar.popnn_nonlinearity"(%8) {dim = 0 : i64, ipu.block = #ipu.block<"0", 0 : i64>, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 206 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
          "pipeline.send"(%9) {channel = "exchange.0", dst_ipu = 1 : i64, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, poplar.cycles = 1501 : i64, src_ipu = 0 : i64} : (tensor<2x8xf32>) -> ()
        }) {ipu_id = 0 : i64, poplar.cycles = 4757 : i64, stage_id = 0 : i64} : () -> ()
        "pipeline.stage"() ({
          %6 = "pipeline.recv"() {channel = "exchange.0", dst_ipu = 1 : i64, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64, poplar.cycles = 0 : i64, src_ipu = 0 : i64} : () -> tensor<2x8xf32>
          %7 = "poplar.poplin_linear"(%6, %2, %3) {ipu.block = #ipu.block<"1", 1 : i64>, pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64, poplar.cycles = 243 : i64} : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
          "poplar.program_copy"(%7, %5) {pipeline.stage = 1 : i64, poplar.copy_mode = "share", poplar.cycles = 1501 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> ()
        }) {ipu_id = 1 : i64, poplar.cycles = 1744 : i64, stage_id = 1 : i64} : () -> ()
      }) {device_iterations = 4 : i64, gradient_accumulation = 1 : i64, kind = "pipelined", num_ipus = 2 : i64, num_stages = 2 : i64, poplar.cycles = 6501 : i64, training = false} : () -> ()
    }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 2 : i64, 2 : i64, 2 : i64, array<i64: 0, 1>>, poplar.cycles = 6501 : i64} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_repeat"() ({
        "poplar.program_call"() {callee = "step", poplar.cycles = 6501 : i64} : () -> ()
        "poplar.program_stream_copy"(%5) {poplar.cycles = 2662 : i64, stream = "host.output.0"} : (tensor<2x4xf32>) -> ()
      }) {count = 4 : i64, poplar.cycles = 38920 : i64} : () -> ()
    }) {name = "main", poplar.cycles = 38920 : i64} : () -> ()
  }) {num_ipus = 2 : i64, poplar.cycles_target = "ipu-model-mk2", poplar.interface = #poplar.interface<{x = "host.input.x"}, ["host.output.0"], [["parameter", "l1.weight"], ["parameter", "l1.bias"], ["parameter", "l2.weight"], ["parameter", "l2.bias"]], "step", "", "main">, poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<0 : i64, 384 : i64, 128 : i64, 0 : i64, 512 : i64>, #poplar.ipu_memory<1 : i64, 144 : i64, 96 : i64, 0 : i64, 240 : i64>]>, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

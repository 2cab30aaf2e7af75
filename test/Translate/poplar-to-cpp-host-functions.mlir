// User code that runs on the host: a poptorch.CPU call (program_host_call), a custom op and
// its gradient are each a poplar::HostFunction called with poplar::program::Call; its
// callback (connected by main) calls an extern "C" function the user links with the program,
// one per CPU op handle and per custom op (the custom op's attributes as JSON). Two custom ops
// whose C names would be the same are refused. The CTC beam search decoder is PopLibs'
// popnn::ctc_infer::beamSearchDecoderLogProbabilities, its labels past each path's length
// set to the blank.
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s
// RUN: sed 's|// CLASH ||' %s | not ipu-translate --poplar-to-cpp 2>&1 | FileCheck %s --check-prefix=CLASH

// CHECK:      #include <poplar/HostFunction.hpp>
// CHECK:      #include <popnn/CTCInference.hpp>
// CHECK:      extern "C" {
// CHECK-NEXT: struct IpuHostTensor {
// CHECK:      // poptorch.CPU op "Twice" (handle "Twice#1"): inputs float [2, 3]; outputs float [2, 3], int []
// CHECK-NEXT: extern "C" void ipu_host_call_Twice_1(const IpuHostTensor *inputs, unsigned numInputs, IpuHostTensor *outputs, unsigned numOutputs);
// CHECK:      // custom op custom.ops::LeakyRelu (version 1): its inputs and outputs, and its attributes as a JSON object
// CHECK-NEXT: extern "C" void ipu_custom_op_custom_ops_LeakyRelu(const IpuHostTensor *inputs, unsigned numInputs, IpuHostTensor *outputs, unsigned numOutputs, const char *attributes);
// CHECK:      extern "C" void ipu_custom_op_grad_custom_ops_LeakyRelu(const IpuHostTensor *inputs, unsigned numInputs, const IpuHostTensor *outputs, const IpuHostTensor *gradOutputs, unsigned numOutputs, IpuHostTensor *gradInputs, const unsigned *differentiable, unsigned numGradInputs, const char *attributes);
// CHECK:      HostCallback hostCallback(std::vector<HostArgument> ins, std::vector<HostArgument> outs,
// CHECK:      // program_host_call ({{.*}})
// CHECK-NEXT: // host function: poptorch.CPU op "Twice" (handle "Twice#1"), implemented by ipu_host_call_Twice_1
// CHECK-NEXT: poplar::HostFunction hostFunction0 = graph.addHostFunction("Twice#1", {{[{][{]}}poplar::FLOAT, 6}}, {{[{][{]}}poplar::FLOAT, 6}, {poplar::INT, 1}});
// CHECK-NEXT: hostFunctions.push_back({"Twice#1", hostCallback({{[{][{]}}"float", {2, 3}}}, {{[{][{]}}"float", {2, 3}}, {"int", {}}},
// CHECK-NEXT:     [](const IpuHostTensor *inputs, unsigned numInputs, IpuHostTensor *outputs, unsigned numOutputs) {
// CHECK-NEXT:       ipu_host_call_Twice_1(inputs, numInputs, outputs, numOutputs);
// CHECK-NEXT:     })});
// CHECK-NEXT: poplar::Tensor [[Y:t[0-9]+]] = ipu[0].addVariable(poplar::FLOAT, {2, 3}, "program_host_call/output0");
// CHECK:      f_step_0.add(poplar::program::Call(hostFunction0, {v_x_0}, {[[Y]], {{t[0-9]+}}}, "program_host_call"));
// CHECK:      // program_host_call ({{.*}})
// CHECK-NEXT: // host function: poptorch.CPU op "Twice" (handle "Twice#1"), implemented by ipu_host_call_Twice_1
// CHECK-NOT:  addHostFunction
// CHECK:      f_step_0.add(poplar::program::Call(hostFunction0, {[[Y]]}, {{.*}}, "program_host_call"));
// CHECK:      // custom_op ({{.*}})
// CHECK-NEXT: // host function: custom op custom.ops::LeakyRelu (version 1) with attributes {"alpha": 0.05, "names": ["a", "b"]}, implemented by ipu_custom_op_custom_ops_LeakyRelu: inputs float [2, 3]; outputs float [2, 3]
// CHECK-NEXT: poplar::HostFunction hostFunction1 = graph.addHostFunction("custom_op/custom.ops::LeakyRelu/call0",
// CHECK:      ipu_custom_op_custom_ops_LeakyRelu(inputs, numInputs, outputs, numOutputs, "{\"alpha\": 0.05, \"names\": [\"a\", \"b\"]}");
// CHECK:      f_step_0.add(poplar::program::Call(hostFunction1, {[[Y]]}, {[[L:t[0-9]+]]}, "custom_op"));
// CHECK:      // custom_op_grad ({{.*}})
// CHECK-NEXT: // host function: the gradient of custom op custom.ops::LeakyRelu (version 1) for inputs [0], implemented by ipu_custom_op_grad_custom_ops_LeakyRelu
// CHECK-NEXT: poplar::HostFunction hostFunction2 = graph.addHostFunction("custom_op_grad/custom.ops::LeakyRelu/call1", {{[{][{]}}poplar::FLOAT, 6}, {poplar::FLOAT, 6}, {poplar::FLOAT, 6}}, {{[{][{]}}poplar::FLOAT, 6}});
// CHECK:      static const unsigned differentiable[] = {0}; ipu_custom_op_grad_custom_ops_LeakyRelu(inputs, 1, inputs + 1, inputs + 2, 1, outputs, differentiable, numOutputs, "{\"alpha\": 0.05, \"names\": [\"a\", \"b\"]}");
// CHECK:      f_step_0.add(poplar::program::Call(hostFunction2, {[[Y]], [[L]], [[L]]}, {{.*}}, "custom_op_grad"));
// CHECK:      // popnn_ctc_beam_search_decoder ({{.*}})
// CHECK:      poplar::Tensor dataLengths0 = popops::cast(ipu[0], v_lengths_0, poplar::UNSIGNED_INT, f_step_0, "popnn_ctc_beam_search_decoder/lengths");
// CHECK-NEXT: auto decoded0 = popnn::ctc_infer::beamSearchDecoderLogProbabilities(ipu[0], v_probs_0, dataLengths0, f_step_0, 1, 4, 2);
// CHECK-NEXT: poplar::Tensor {{t[0-9]+}} = std::get<0>(decoded0);
// CHECK-NEXT: poplar::Tensor [[N:t[0-9]+]] = popops::cast(ipu[0], std::get<1>(decoded0), poplar::INT, f_step_0, "popnn_ctc_beam_search_decoder/path_lengths");
// CHECK:      poplar::Tensor {{t[0-9]+}} = popops::map(ipu[0], pe::TernaryOp(pe::TernaryOpType::SELECT, pe::Const(1), pe::Cast(pe::_1, poplar::INT), pe::BinaryOp(pe::BinaryOpType::GREATER_THAN_EQUAL, pe::_2, pe::_3)),
// CHECK-NEXT:     {std::get<2>(decoded0), steps0.broadcast(2, 0).broadcast(2, 1), [[N]].expand({2}).broadcast(5, 2)}, f_step_0, "popnn_ctc_beam_search_decoder/paths");
// CHECK:      // Each host function calls its implementation (declared at the top, linked with this program).
// CHECK-NEXT: for (const auto &f : hostFunctions)
// CHECK-NEXT:   for (unsigned r = 0; r < kReplicas; ++r) engine.connectHostFunction(f.handle, r, f.call);
// CHECK-NEXT: engine.run(0);
// CLASH: ipu-translate: error: 'poplar.custom_op' at {{.*}}: custom op custom_ops::LeakyRelu and custom op custom.ops::LeakyRelu would both be implemented by the C function 'ipu_custom_op_custom_ops_LeakyRelu' (their names differ only in characters that are not letters, digits or '_'); rename one

"builtin.module"() ({
  "poplar.graph"() ({
    %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x3xf32>
    %probs = "poplar.variable"() {name = "probs", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<5x2x4xf32>
    %lengths = "poplar.variable"() {name = "lengths", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2xi32>
    "poplar.function"() ({
      %y, %n = "poplar.program_host_call"(%x) {handle = "Twice#1", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<i32>)
      %y2, %n2 = "poplar.program_host_call"(%y) {handle = "Twice#1", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<i32>)
      %l = "poplar.custom_op"(%y) {op_name = "LeakyRelu", domain = "custom.ops", domain_version = 1 : i64, op_attributes = {alpha = 5.000000e-02 : f64, names = ["a", "b"]}, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
      // CLASH %c = "poplar.custom_op"(%y) {op_name = "LeakyRelu", domain = "custom_ops", domain_version = 1 : i64, op_attributes = {}, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
      %g = "poplar.custom_op_grad"(%y, %l, %l) {op_name = "LeakyRelu", domain = "custom.ops", domain_version = 1 : i64, op_attributes = {alpha = 5.000000e-02 : f64, names = ["a", "b"]}, differentiable = array<i64: 0>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
      %p, %pl, %d = "poplar.popnn_ctc_beam_search_decoder"(%probs, %lengths) {blank = 1 : i64, beam_width = 4 : i64, top_paths = 2 : i64} : (tensor<5x2x4xf32>, tensor<2xi32>) -> (tensor<2x2xf32>, tensor<2x2xi32>, tensor<2x2x5xi32>)
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

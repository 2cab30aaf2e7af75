// The program structure of a hand-written 2-IPU poplar.graph as Poplar C++: one virtual
// graph per IPU, variables mapped by their tile plan, host FIFOs, the host-provided weight
// as a host write, the step function as a poplar::Function, the device loop as a Repeat of
// 4 (each stream makes 4 transfers), an inter-IPU copy, and a main that runs program 0
// and reads the host-provided variables back.
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK:      #include <poplar/Engine.hpp>
// CHECK:      namespace pe = popops::expr;
// CHECK:      constexpr unsigned kNumIpus = 2;
// CHECK:      constexpr unsigned kReplicas = 1;
// CHECK:      std::vector<poplar::program::Program> buildGraph(poplar::Graph &graph) {
// CHECK-NEXT:   popops::addCodelets(graph);
// CHECK-NEXT:   poplin::addCodelets(graph);
// CHECK-NEXT:   popnn::addCodelets(graph);
// CHECK:        ipu.push_back(graph.createVirtualGraph(i * graph.getTarget().getTilesPerIPU(), (i + 1) * graph.getTarget().getTilesPerIPU()));
// CHECK:        // weight 'fc.weight' ({{.*}}:{{[0-9]+}}:{{[0-9]+}})
// CHECK-NEXT:   poplar::Tensor [[W:v_fc_weight_0]] = ipu[0].addVariable(poplar::FLOAT, {4, 4}, "fc.weight");
// CHECK-NEXT:   mapLinearly(ipu[0], [[W]], 0, 2);
// CHECK:        poplar::Tensor [[X:v_input_x_0]] = ipu[0].addVariable(poplar::FLOAT, {2, 4}, "input.x");
// CHECK:        poplar::Tensor [[ACT:v_exchange_0_0]] = ipu[1].addVariable(poplar::FLOAT, {2, 4}, "exchange.0");
// CHECK-NEXT:   mapLinearly(ipu[1], [[ACT]], 0, 1);
// CHECK:        poplar::Tensor [[OUT:v_anchor_0_0]] = ipu[1].addVariable(poplar::FLOAT, {2, 4}, "anchor.0");
// CHECK:        poplar::DataStream [[IN:s_host_input_x]] = graph.addHostToDeviceFIFO("host.input.x", poplar::FLOAT, 8);
// CHECK-NEXT:   poplar::DataStream [[OS:s_host_output_0]] = graph.addDeviceToHostFIFO("host.output.0", poplar::FLOAT, 8);
// CHECK:        graph.createHostWrite("fc.weight", [[W]]);
// CHECK-NEXT:   graph.createHostRead("fc.weight/read", [[W]]);
// CHECK-NEXT:   hostWrites.push_back({"fc.weight", poplar::FLOAT, 16});
// CHECK-NEXT:   hostStreams.push_back({"host.input.x", poplar::FLOAT, 8, 4, true});
// CHECK-NEXT:   hostStreams.push_back({"host.output.0", poplar::FLOAT, 8, 4, false});
// CHECK:        // function 'step'
// CHECK-NEXT:   poplar::program::Sequence [[STEP:f_step_0]];
// CHECK:        [[STEP]].add(poplar::program::Copy([[IN]], [[X]]));
// CHECK:        [[STEP]].add(poplar::program::Sync(poplar::SyncType::INTERNAL));
// CHECK:        poplar::Tensor [[H:t[0-9]+]] = poplin::matMul(ipu[0], [[X]], [[W]], [[STEP]], poplar::FLOAT, "poplin_matmul");
// CHECK:        [[STEP]].add(poplar::program::Copy([[H]], [[ACT]]));  // inter-IPU copy: IPU 0 -> IPU 1
// CHECK:        poplar::Tensor [[R:t[0-9]+]] = popnn::nonLinearity(ipu[1], popnn::NonLinearityType::RELU, [[ACT]], [[STEP]], "popnn_nonlinearity");
// CHECK:        [[STEP]].add(poplar::program::Copy([[R]], [[OUT]]));
// CHECK-NEXT:   poplar::Function fn_step = graph.addFunction([[STEP]]);
// CHECK:        // program 'main'
// CHECK-NEXT:   poplar::program::Sequence [[MAIN:p_main_0]];
// CHECK:        poplar::program::Sequence [[BODY:repeat0]];
// CHECK:        [[BODY]].add(poplar::program::Call(fn_step));
// CHECK:        [[BODY]].add(poplar::program::Copy([[OUT]], [[OS]]));
// CHECK-NEXT:   [[MAIN]].add(poplar::program::Repeat(4, [[BODY]]));
// CHECK-NEXT:   return {[[MAIN]]};
// CHECK:      int main(int argc, char **argv) {
// CHECK:        for (auto &candidate : manager.getDevices(poplar::TargetType::IPU, kNumIpus * kReplicas))
// CHECK:        poplar::Graph graph(device.getTarget(), poplar::replication_factor(kReplicas));
// CHECK:        poplar::Engine engine(graph, buildGraph(graph));
// CHECK-NEXT:   engine.load(device);
// CHECK:        std::vector<char> weights = readFile(dir + "/weights.bin", perReplica ? weightBytes * kReplicas : weightBytes);
// CHECK:        engine.writeTensor(w.handle, copies.data(), copies.data() + copies.size());
// CHECK:        engine.connectStreamToCallback(s.handle, r, [=](void *p) {
// CHECK:        engine.run(0);
// CHECK:        engine.readTensor(std::string(w.handle) + "/read", copies.data(), copies.data() + copies.size());

"builtin.module"() ({
  "poplar.graph"() ({
    %w = "poplar.variable"() {name = "fc.weight", kind = "weight", ipu = 0 : i64, tiles = array<i64: 0, 2>} : () -> tensor<4x4xf32>
    %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64: 2, 1>} : () -> tensor<2x4xf32>
    %act = "poplar.variable"() {name = "exchange.0", kind = "exchange", ipu = 1 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x4xf32>
    %out = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 1 : i64, tiles = array<i64: 1, 1>} : () -> tensor<2x4xf32>
    "poplar.host_stream"() {name = "host.input.x", direction = "host_to_device", type = tensor<2x4xf32>} : () -> ()
    "poplar.host_stream"() {name = "host.output.0", direction = "device_to_host", type = tensor<2x4xf32>} : () -> ()
    "poplar.function"() ({
      "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<2x4xf32>) -> ()
      "poplar.program_sync"() {kind = "internal"} : () -> ()
      %h = "poplar.poplin_matmul"(%x, %w) {pipeline.ipu = 0 : i64} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
      "poplar.program_copy"(%h, %act) : (tensor<2x4xf32>, tensor<2x4xf32>) -> ()
      %r = "poplar.popnn_nonlinearity"(%act) {kind = "relu", dim = 0 : i64, pipeline.ipu = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
      "poplar.program_copy"(%r, %out) : (tensor<2x4xf32>, tensor<2x4xf32>) -> ()
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_repeat"() ({
        "poplar.program_call"() {callee = "step"} : () -> ()
        "poplar.program_stream_copy"(%out) {stream = "host.output.0"} : (tensor<2x4xf32>) -> ()
      }) {count = 4 : i64} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 2 : i64, poplar.interface = #poplar.interface<{x = "host.input.x"}, ["host.output.0"], [["parameter", "fc.weight"]], "step", "", "main">, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

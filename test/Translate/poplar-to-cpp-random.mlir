// The random ops: poprand draws without a seed tensor (the device generator's next numbers),
// seeded once per run by poprand::setSeed at the start of the main program from the
// host-written randomSeed (DIR/randomSeed.bin, read by main); dropout as a poprand::bernoulli
// keep mask applied with popops::map; an integer draw's maxVal is torch's high - 1.
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK: //   g++ -std=c++17 program.cpp -lpoplar -lpopops -lpoplin -lpopnn -lpoprand -o program
// CHECK: #include <poprand/RandomGen.hpp>
// CHECK-NEXT: #include <poprand/codelets.hpp>
// CHECK: popnn::addCodelets(graph);
// CHECK-NEXT: poprand::addCodelets(graph);
// CHECK: poplar::Tensor randomSeed = ipu[0].addVariable(poplar::UNSIGNED_INT, {2}, "randomSeed");
// CHECK-NEXT: mapLinearly(ipu[0], randomSeed, 0, 1);
// CHECK-NEXT: graph.createHostWrite("randomSeed", randomSeed);
// CHECK: // poprand_dropout ({{.*}})
// CHECK-NEXT: poplar::Tensor keep0 = poprand::bernoulli(ipu[0], nullptr, 0, v_x_0, poplar::FLOAT, 0.75, f_step_0, "poprand_dropout/mask");
// CHECK-NEXT: poplar::Tensor [[MASK:t[0-9]+]] = popops::cast(ipu[0], keep0, poplar::BOOL, f_step_0, "poprand_dropout/mask");
// CHECK-NEXT: poplar::Tensor t0 = popops::map(ipu[0], pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::_1, pe::Cast(pe::_2, poplar::FLOAT)), pe::Const(1.3333333333333333f)), {v_x_0, [[MASK]]}, f_step_0, "poprand_dropout");
// CHECK: poplar::Tensor reference0 = ipu[0].addVariable(poplar::FLOAT, {3, 4}, "poprand_uniform/reference");
// CHECK: poprand::uniform(ipu[0], nullptr, 0, reference0, poplar::FLOAT, -1.0, 2.0, f_step_0, "poprand_uniform");
// CHECK: // integers in [0, 5): poprand's integer range includes its maxVal
// CHECK-NEXT: poprand::uniform(ipu[0], nullptr, 0, reference1, poplar::LONGLONG, 0.0, 4.0, f_step_0, "poprand_uniform");
// CHECK: poprand::normal(ipu[0], nullptr, 0, reference2, poplar::FLOAT, 1.0, 2.0, f_step_0, "poprand_normal");
// CHECK: // program 'main'
// CHECK-NEXT: poplar::program::Sequence p_main_0;
// CHECK-NEXT: // every run draws from the seed on: each draw takes the generator's next numbers
// CHECK-NEXT: poprand::setSeed(graph, randomSeed, 0, p_main_0, "randomSeed");
// CHECK: std::vector<char> seed = readFile(dir + "/randomSeed.bin", 8), seeds;
// CHECK: engine.writeTensor("randomSeed", seeds.data(), seeds.data() + seeds.size());
// CHECK: engine.run(0);

"builtin.module"() ({
  "poplar.graph"() ({
    %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x4xf32>
    "poplar.function"() ({
      %y, %m = "poplar.poprand_dropout"(%x) {p = 0.25 : f64} : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi1>)
      %u = "poplar.poprand_uniform"() {min_val = -1.0 : f64, max_val = 2.0 : f64} : () -> tensor<3x4xf32>
      %k = "poplar.poprand_uniform"() {min_val = 0.0 : f64, max_val = 5.0 : f64} : () -> tensor<6xi64>
      %n = "poplar.poprand_normal"() {mean = 1.0 : f64, std_dev = 2.0 : f64} : () -> tensor<3x4xf32>
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_repeat"() ({
        "poplar.program_call"() {callee = "step"} : () -> ()
      }) {count = 2 : i64} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

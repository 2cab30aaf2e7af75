// Views and constants: reshape, dimShuffle, slice with a stride (subSample), reverse,
// broadcast (leading 1s added, then Tensor::broadcast per dimension), poplar::concat, and
// constants as graph.addConstant (an array, or one value for a splat).
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK: // function 'step'
// CHECK-NEXT: poplar::program::Sequence f_step_0;
// CHECK: // reshape ({{.*}})
// CHECK-NEXT: poplar::Tensor t0 = v_a_0.reshape({6, 4});
// CHECK: // dim_shuffle ({{.*}})
// CHECK-NEXT: poplar::Tensor t1 = v_a_0.dimShuffle({2, 0, 1});
// CHECK: // slice ({{.*}})
// CHECK-NEXT: poplar::Tensor t2 = v_a_0.slice({0, 1, 0}, {2, 3, 4}).subSample(2, 2);
// CHECK: // reverse ({{.*}})
// CHECK-NEXT: poplar::Tensor t3 = v_a_0.reverse(0).reverse(2);
// CHECK: // broadcast ({{.*}})
// CHECK-NEXT: poplar::Tensor t4 = v_r_0.reshape({1, 1, 4}).broadcast(2, 0).broadcast(3, 1);
// CHECK: // concat ({{.*}})
// CHECK-NEXT: poplar::Tensor t5 = poplar::concat(t0, v_r_0, 0);
// CHECK: // constant ({{.*}})
// CHECK-NEXT: static const float data0[] = {1.5f, -2.0f};
// CHECK-NEXT: poplar::Tensor c0 = ipu[0].addConstant<float>(poplar::FLOAT, {2}, data0);
// CHECK-NEXT: mapLinearly(ipu[0], c0, 0, 1);
// CHECK: // constant ({{.*}})
// CHECK-NEXT: poplar::Tensor c1 = ipu[0].addConstant<int>(poplar::INT, {2, 2}, 3);
// CHECK-NEXT: mapLinearly(ipu[0], c1, 0, 1);
// CHECK-NEXT: poplar::Function fn_step = graph.addFunction(f_step_0);

"builtin.module"() ({
  "poplar.graph"() ({
    %a = "poplar.variable"() {name = "a", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x3x4xf32>
    %r = "poplar.variable"() {name = "r", kind = "input", ipu = 0 : i64, tiles = array<i64: 1, 1>} : () -> tensor<1x4xf32>
    "poplar.function"() ({
      %0 = "poplar.reshape"(%a) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
      %1 = "poplar.dim_shuffle"(%a) {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
      %2 = "poplar.slice"(%a) {begin = array<i64: 0, 1, 0>, end = array<i64: 2, 3, 4>, stride = array<i64: 1, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x2x2xf32>
      %3 = "poplar.reverse"(%a) {dims = array<i64: 0, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
      %4 = "poplar.broadcast"(%r) : (tensor<1x4xf32>) -> tensor<2x3x4xf32>
      %5 = "poplar.concat"(%0, %r) {dim = 0 : i64} : (tensor<6x4xf32>, tensor<1x4xf32>) -> tensor<7x4xf32>
      %6 = "poplar.constant"() {value = dense<[1.5, -2.0]> : tensor<2xf32>, ipu = 0 : i64} : () -> tensor<2xf32>
      %7 = "poplar.constant"() {value = dense<3> : tensor<2x2xi32>, ipu = 0 : i64} : () -> tensor<2x2xi32>
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()


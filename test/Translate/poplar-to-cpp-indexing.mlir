// The remaining popops families: popops::scaledAddTo in place, popops::pad with a constant,
// argMax / argMin over one dimension (moved innermost, rows flattened, the UNSIGNED_INT index
// cast to the result type), multiSlice for an embedding lookup (the ids as [N][1] offsets),
// and poplar::program::PrintTensor.
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK: // function 'step'
// CHECK-NEXT: poplar::program::Sequence f_step_0;
// CHECK: // popops_scaled_add_to ({{.*}})
// CHECK-NEXT: popops::scaledAddTo(ipu[0], v_a_0, v_g_0, -0.01f, f_step_0, "popops_scaled_add_to");
// CHECK: // popops_pad ({{.*}})
// CHECK-NEXT: poplar::Tensor t0 = popops::pad(ipu[0], v_a_0, {0, 1}, {1, 2}, 0.5f);
// CHECK: // popops_arg_max ({{.*}})
// CHECK: // popops::argMax reduces the innermost dimension of a 2-D tensor: dim 0 moved last, the others flattened
// CHECK-NEXT: poplar::Tensor index0 = popops::argMax(ipu[0], v_a_0.dimShuffle({1, 0}).reshape({3, 2}), f_step_0, "popops_arg_max");
// CHECK-NEXT: poplar::Tensor t1 = popops::cast(ipu[0], index0, poplar::LONGLONG, f_step_0, "popops_arg_max/cast").reshape({1, 3});
// CHECK: // popops_arg_min ({{.*}})
// CHECK: // popops::argMin reduces the innermost dimension of a 2-D tensor: dim 1 moved last, the others flattened
// CHECK-NEXT: poplar::Tensor index1 = popops::argMin(ipu[0], v_a_0.dimShuffle({0, 1}).reshape({2, 3}), f_step_0, "popops_arg_min");
// CHECK-NEXT: poplar::Tensor t2 = popops::cast(ipu[0], index1, poplar::INT, f_step_0, "popops_arg_min/cast").reshape({2});
// CHECK: // popops_multi_slice ({{.*}})
// CHECK-NEXT: poplar::Tensor offsets0 = popops::cast(ipu[0], v_ids_0.flatten().expand({1}), poplar::UNSIGNED_INT, f_step_0, "popops_multi_slice/offsets");
// CHECK-NEXT: poplar::Tensor t3 = popops::multiSlice(ipu[0], v_t_0, offsets0, {0}, {1}, f_step_0, popops::SlicePlan(), poplar::OptionFlags(), "popops_multi_slice").reshape({2, 3, 4});
// CHECK: // program_print_tensor ({{.*}})
// CHECK-NEXT: f_step_0.add(poplar::program::PrintTensor("rows", t3));
// CHECK-NEXT: poplar::Function fn_step = graph.addFunction(f_step_0);

"builtin.module"() ({
  "poplar.graph"() ({
    %a = "poplar.variable"() {name = "a", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x3xf32>
    %g = "poplar.variable"() {name = "g", kind = "input", ipu = 0 : i64, tiles = array<i64: 1, 1>} : () -> tensor<2x3xf32>
    %t = "poplar.variable"() {name = "t", kind = "input", ipu = 0 : i64, tiles = array<i64: 2, 1>} : () -> tensor<10x4xf32>
    %ids = "poplar.variable"() {name = "ids", kind = "input", ipu = 0 : i64, tiles = array<i64: 3, 1>} : () -> tensor<2x3xi64>
    "poplar.function"() ({
      "poplar.popops_scaled_add_to"(%a, %g) {scale = -0.01 : f64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()
      %0 = "poplar.popops_pad"(%a) {low = array<i64: 0, 1>, high = array<i64: 1, 2>, value = 0.5 : f64} : (tensor<2x3xf32>) -> tensor<3x6xf32>
      %1 = "poplar.popops_arg_max"(%a) {dim = 0 : i64, keep_dims = true} : (tensor<2x3xf32>) -> tensor<1x3xi64>
      %2 = "poplar.popops_arg_min"(%a) {dim = 1 : i64, keep_dims = false} : (tensor<2x3xf32>) -> tensor<2xi32>
      %3 = "poplar.popops_multi_slice"(%t, %ids) {dim = 0 : i64} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
      "poplar.program_print_tensor"(%3) {title = "rows"} : (tensor<2x3x4xf32>) -> ()
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()


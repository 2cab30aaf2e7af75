// The popops family as PopLibs calls: popops::add / sub / mul / div (NumPy broadcasting),
// popops::map with a popops::expr tree (select(cond, a, b) becomes Poplar's SELECT(a, b, cond);
// a literal takes the tensor's type, an int tensor times 0.5 is float), popops::cast, and
// popops::reduce (a mean divides by the count, keep_dims reshapes, square_add scales).
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK: // function 'step'
// CHECK-NEXT: poplar::program::Sequence f_step_0;
// CHECK: // popops_add ({{.*}})
// CHECK-NEXT: poplar::Tensor t0 = popops::add(ipu[0], v_a_0, v_b_0, f_step_0, "popops_add");
// CHECK: // popops_sub ({{.*}})
// CHECK-NEXT: poplar::Tensor t1 = popops::sub(ipu[0], v_a_0, v_b_0, f_step_0, "popops_sub");
// CHECK: // popops_mul ({{.*}})
// CHECK-NEXT: poplar::Tensor t2 = popops::mul(ipu[0], v_a_0, t0, f_step_0, "popops_mul");
// CHECK: // popops_div ({{.*}})
// CHECK-NEXT: poplar::Tensor t3 = popops::div(ipu[0], v_a_0, t1, f_step_0, "popops_div");
// CHECK: // popops_map ({{.*}})
// CHECK-NEXT: poplar::Tensor t4 = popops::map(ipu[0],
// CHECK-NEXT: pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_1, pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::_2, pe::Const(0.1f)), pe::BinaryOp(pe::BinaryOpType::GREATER_THAN, pe::_1, pe::Const(0.0f))),
// CHECK-NEXT: {v_a_0, v_b_0}, f_step_0, "popops_map");
// CHECK: // popops_map ({{.*}})
// CHECK-NEXT: poplar::Tensor t5 = popops::map(ipu[0],
// CHECK-NEXT: pe::BinaryOp(pe::BinaryOpType::ADD, pe::_1, pe::Const(2)),
// CHECK-NEXT: {v_i_0}, f_step_0, "popops_map");
// CHECK: // popops_map ({{.*}})
// CHECK-NEXT: poplar::Tensor t6 = popops::map(ipu[0],
// CHECK-NEXT: pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::_1, pe::Const(0.5f)),
// CHECK-NEXT: {v_i_0}, f_step_0, "popops_map");
// CHECK: // popops_map ({{.*}})
// CHECK-NEXT: poplar::Tensor t7 = popops::map(ipu[0],
// CHECK-NEXT: pe::UnaryOp(pe::UnaryOpType::EXPONENT, pe::UnaryOp(pe::UnaryOpType::NEGATE, pe::_1)),
// CHECK-NEXT: {v_a_0}, f_step_0, "popops_map");
// CHECK: // popops_map ({{.*}})
// CHECK-NEXT: poplar::Tensor t8 = popops::map(ipu[0],
// CHECK-NEXT: pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_1, pe::Const(0.0f), pe::_2),
// CHECK-NEXT: {v_a_0, v_c_0}, f_step_0, "popops_map");
// CHECK: // popops_cast ({{.*}})
// CHECK-NEXT: poplar::Tensor t9 = popops::cast(ipu[0], v_a_0, poplar::INT, f_step_0, "popops_cast");
// CHECK: // popops_reduce ({{.*}})
// CHECK-NEXT: poplar::Tensor t10 = popops::reduce(ipu[0], v_a_0, poplar::FLOAT, {1}, popops::ReduceParams(popops::Operation::ADD), f_step_0, "popops_reduce").reshape({2, 1});
// CHECK-NEXT: popops::mapInPlace(ipu[0], pe::BinaryOp(pe::BinaryOpType::DIVIDE, pe::_1, pe::Const(3.0f)), {t10}, f_step_0, "popops_reduce/scale");
// CHECK: // popops_reduce ({{.*}})
// CHECK-NEXT: poplar::Tensor t11 = popops::reduce(ipu[0], v_a_0, poplar::FLOAT, {0, 1}, popops::ReduceParams(popops::Operation::MAX), f_step_0, "popops_reduce");
// CHECK: // popops_reduce ({{.*}})
// CHECK-NEXT: poplar::Tensor t12 = popops::reduce(ipu[0], v_a_0, poplar::FLOAT, {0}, popops::ReduceParams(popops::Operation::SQUARE_ADD), f_step_0, "popops_reduce");
// CHECK-NEXT: popops::mapInPlace(ipu[0], pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::_1, pe::Const(2.0f)), {t12}, f_step_0, "popops_reduce/scale");
// CHECK-NEXT: poplar::Function fn_step = graph.addFunction(f_step_0);

"builtin.module"() ({
  "poplar.graph"() ({
    %a = "poplar.variable"() {name = "a", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x3xf32>
    %b = "poplar.variable"() {name = "b", kind = "input", ipu = 0 : i64, tiles = array<i64: 1, 1>} : () -> tensor<3xf32>
    %i = "poplar.variable"() {name = "i", kind = "input", ipu = 0 : i64, tiles = array<i64: 2, 1>} : () -> tensor<2x3xi32>
    %c = "poplar.variable"() {name = "c", kind = "input", ipu = 0 : i64, tiles = array<i64: 3, 1>} : () -> tensor<2x3xi1>
    "poplar.function"() ({
      %0 = "poplar.popops_add"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      %1 = "poplar.popops_sub"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      %2 = "poplar.popops_mul"(%a, %0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
      %3 = "poplar.popops_div"(%a, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
      %4 = "poplar.popops_map"(%a, %b) {expr = "select(gt(_1, 0.0), _1, mul(_2, 0.1))", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      %5 = "poplar.popops_map"(%i) {expr = "add(_1, 2.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3xi32>) -> tensor<2x3xi32>
      %6 = "poplar.popops_map"(%i) {expr = "mul(_1, 0.5)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3xi32>) -> tensor<2x3xf32>
      %7 = "poplar.popops_map"(%a) {expr = "exp(neg(_1))", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
      %8 = "poplar.popops_map"(%a, %c) {expr = "select(_2, _1, 0.0)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<2x3xf32>, tensor<2x3xi1>) -> tensor<2x3xf32>
      %9 = "poplar.popops_cast"(%a) : (tensor<2x3xf32>) -> tensor<2x3xi32>
      %10 = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 1>, keep_dims = true, scale = 0.3333333333333333 : f64} : (tensor<2x3xf32>) -> tensor<2x1xf32>
      %11 = "poplar.popops_reduce"(%a) {op = "max", dims = array<i64: 0, 1>, keep_dims = false, scale = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<f32>
      %12 = "poplar.popops_reduce"(%a) {op = "square_add", dims = array<i64: 0>, keep_dims = false, scale = 2.0 : f64} : (tensor<2x3xf32>) -> tensor<3xf32>
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()


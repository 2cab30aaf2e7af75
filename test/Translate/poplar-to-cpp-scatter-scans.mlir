// popops_scatter as multiUpdate / multiUpdateAdd / multiUpdateMax of single elements of a copy
// of the input, flattened, at computed flat offsets (include_self = false first overwrites the
// targets; min is a maximum of negated values); the cumulative maximum / minimum as log-step
// scans of (value, index) pairs with popops::map selects (NaN takes over for floats only), the
// cumulative log-sum-exp as a log-step scan of the stable log-add-exp;
// poplin_conv_transpose as poplin::convolution with transposed ConvParams and its gradients.
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK: // popops_scatter ({{.*}})
// CHECK-NEXT: static const int data0[] = {0, 0, 3, 3};
// CHECK: poplar::Tensor offsets0 = popops::cast(ipu[0], popops::map(ipu[0], pe::BinaryOp(pe::BinaryOpType::ADD, pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::Cast(pe::_1, poplar::INT), pe::Const(1)), pe::_2), {v_i_0.flatten(), base0}, f_step_0, "popops_scatter/offsets"), poplar::UNSIGNED_INT, f_step_0, "popops_scatter/offsets").expand({1});
// CHECK-NEXT: poplar::Tensor t0 = ipu[0].addVariable(poplar::FLOAT, {2, 3}, "popops_scatter");
// CHECK-NEXT: mapLinearly(ipu[0], t0, 0, 1);
// CHECK-NEXT: f_step_0.add(poplar::program::Copy(v_a_0, t0));
// CHECK-NEXT: poplar::Tensor flat0 = t0.flatten();
// CHECK-NEXT: poplar::Tensor updates0 = v_u_0.flatten().reshape({4, 1});
// CHECK-NEXT: popops::multiUpdate(ipu[0], flat0, updates0, offsets0, {0}, {1}, f_step_0, popops::SlicePlan(), poplar::OptionFlags(), "popops_scatter");
// CHECK: // popops_scatter ({{.*}})
// CHECK-NEXT: static const int data1[] = {0, 1, 0, 1};
// CHECK: pe::Const(3)
// CHECK: // include_self = false: the targeted elements start from zero
// CHECK-NEXT: poplar::Tensor zeros0 = ipu[0].addConstant<float>(poplar::FLOAT, {4, 1}, static_cast<float>(0), "popops_scatter/zeros");
// CHECK-NEXT: mapLinearly(ipu[0], zeros0, 0, 1);
// CHECK-NEXT: popops::multiUpdate(ipu[0], flat1, zeros0, offsets1, {0}, {1}, f_step_0, popops::SlicePlan(), poplar::OptionFlags(), "popops_scatter");
// CHECK-NEXT: popops::multiUpdateAdd(ipu[0], flat1, updates1, offsets1, scale0, {0}, {1}, f_step_0, popops::SlicePlan(), poplar::OptionFlags(), "popops_scatter");
// CHECK: popops::multiUpdateMax(ipu[0], flat2, updates2, offsets2, {0}, {1}, f_step_0, popops::SlicePlan(), poplar::OptionFlags(), "popops_scatter");
// CHECK: // include_self = false: the targeted elements start from one of their updates
// CHECK-NEXT: popops::multiUpdate(ipu[0], flat3, updates3, offsets3, {0}, {1}, f_step_0, popops::SlicePlan(), poplar::OptionFlags(), "popops_scatter");
// CHECK-NEXT: // min(a, u) = -max(-a, -u): PopLibs has no minimum update
// CHECK-NEXT: popops::mapInPlace(ipu[0], pe::UnaryOp(pe::UnaryOpType::NEGATE, pe::_1), {flat3}, f_step_0, "popops_scatter/negate");
// CHECK-NEXT: poplar::Tensor negated0 = popops::map(ipu[0], pe::UnaryOp(pe::UnaryOpType::NEGATE, pe::_1), {updates3}, f_step_0, "popops_scatter/negate");
// CHECK-NEXT: popops::multiUpdateMax(ipu[0], flat3, negated0, offsets3, {0}, {1}, f_step_0, popops::SlicePlan(), poplar::OptionFlags(), "popops_scatter");
// CHECK-NEXT: popops::mapInPlace(ipu[0], pe::UnaryOp(pe::UnaryOpType::NEGATE, pe::_1), {flat3}, f_step_0, "popops_scatter/negate");

// CHECK: // popops_cumulative_max ({{.*}})
// CHECK-NEXT: // each element's position along dim 1
// CHECK-NEXT: static const int data4[] = {0, 1, 2};
// CHECK: poplar::Tensor scanIndices0 = popops::cast(ipu[0], positions0.reshape({1, 3}).broadcast(2, 0), poplar::INT, f_step_0, "popops_cumulative_max/indices");
// CHECK-NEXT: for (unsigned shift = 1; shift < 3; shift *= 2) {
// CHECK-NEXT:   poplar::Tensor later = popops::map(ipu[0], pe::BinaryOp(pe::BinaryOpType::LOGICAL_OR, pe::BinaryOp(pe::BinaryOpType::GREATER_THAN_EQUAL, pe::_1, pe::_2), pe::UnaryOp(pe::UnaryOpType::IS_NAN, pe::_1)), {scanValues0.slice(shift, 3, 1), scanValues0.slice(0, 3 - shift, 1)}, f_step_0, "popops_cumulative_max/later");
// CHECK:   popops::mapInPlace(ipu[0], pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_1, pe::_2, pe::_3), {nextValues.slice(shift, 3, 1), scanValues0.slice(0, 3 - shift, 1), later}, f_step_0, "popops_cumulative_max/values");
// CHECK-NEXT:   popops::mapInPlace(ipu[0], pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_1, pe::_2, pe::_3), {nextIndices.slice(shift, 3, 1), scanIndices0.slice(0, 3 - shift, 1), later}, f_step_0, "popops_cumulative_max/indices");
// CHECK: poplar::Tensor t5 = popops::cast(ipu[0], scanIndices0, poplar::LONGLONG, f_step_0, "popops_cumulative_max/cast");
// CHECK: // popops_cumulative_min ({{.*}})
// CHECK: poplar::Tensor later = popops::map(ipu[0], pe::BinaryOp(pe::BinaryOpType::LESS_THAN_EQUAL, pe::_1, pe::_2), {scanValues1.slice(shift, 5, 0), scanValues1.slice(0, 5 - shift, 0)}, f_step_0, "popops_cumulative_min/later");
// CHECK: // poplin_conv_transpose ({{.*}})
// CHECK-NEXT: poplin::ConvParams params0(poplar::FLOAT, 1, {3, 3}, {3, 3}, 2, 1, 2);
// CHECK-NEXT: params0.inputTransform.dilation = {2, 2};
// CHECK-NEXT: params0.inputTransform.paddingLower = {1, 1};
// CHECK-NEXT: params0.inputTransform.paddingUpper = {2, 2};
// CHECK-NEXT: params0.kernelTransform.dilation = {1, 1};
// CHECK-NEXT: poplar::Tensor t8 = poplin::convolution(ipu[0], v_x_0, v_w_0.reshape({2, 2, 1, 3, 3}), params0, true, f_step_0, "poplin_conv_transpose");
// CHECK-NEXT: poplin::addBias(ipu[0], t8, v_b_0, f_step_0, "poplin_conv_transpose/bias");
// CHECK: // poplin_conv_transpose_grad ({{.*}})
// CHECK: poplin::ConvParams params1(poplar::FLOAT, 1, {6, 6}, {3, 3}, 1, 2, 2);
// CHECK: params1.outputTransform.stride = {2, 2};
// CHECK-NEXT: poplar::Tensor t9 = poplin::convolution(ipu[0], v_g_0, v_w_0.reshape({2, 2, 1, 3, 3}), params1, false, f_step_0, "poplin_conv_transpose_grad/input");
// CHECK-NEXT: poplar::Tensor t10 = poplin::calculateWeightDeltas(ipu[0], v_x_0, v_g_0, params1, f_step_0, "poplin_conv_transpose_grad/weights")
// CHECK-NEXT:     .reshape({4, 1, 3, 3});
// CHECK-NEXT: poplar::Tensor t11 = popops::reduce(ipu[0], v_g_0, poplar::FLOAT, {0, 2, 3}, popops::ReduceParams(popops::Operation::ADD), f_step_0, "poplin_conv_transpose_grad/bias");
// CHECK: // popops_cumulative_log_sum_exp ({{.*}})
// CHECK-NEXT: poplar::Tensor scan0 = popops::cast(ipu[0], v_a_0, poplar::FLOAT, f_step_0, "popops_cumulative_log_sum_exp/copy");
// CHECK-NEXT: for (unsigned shift = 1; shift < 3; shift *= 2) {
// CHECK:   // log(exp(later) + exp(earlier)), stably
// CHECK-NEXT:   popops::mapInPlace(ipu[0], pe::TernaryOp(pe::TernaryOpType::SELECT, pe::BinaryOp(pe::BinaryOpType::ADD, pe::_1, pe::_2), pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_1, pe::BinaryOp(pe::BinaryOpType::ADD, pe::BinaryOp(pe::BinaryOpType::MAXIMUM, pe::_1, pe::_2), pe::UnaryOp(pe::UnaryOpType::LOGARITHM_ONE_PLUS, pe::UnaryOp(pe::UnaryOpType::EXPONENT, pe::BinaryOp(pe::BinaryOpType::SUBTRACT, pe::BinaryOp(pe::BinaryOpType::MINIMUM, pe::_1, pe::_2), pe::BinaryOp(pe::BinaryOpType::MAXIMUM, pe::_1, pe::_2))))), pe::BinaryOp(pe::BinaryOpType::LOGICAL_AND, pe::BinaryOp(pe::BinaryOpType::EQUAL, pe::_1, pe::_2), pe::UnaryOp(pe::UnaryOpType::IS_INF, pe::_1))), pe::BinaryOp(pe::BinaryOpType::LOGICAL_OR, pe::UnaryOp(pe::UnaryOpType::IS_NAN, pe::_1), pe::UnaryOp(pe::UnaryOpType::IS_NAN, pe::_2))),
// CHECK-NEXT:       {next.slice(shift, 3, 1), scan0.slice(0, 3 - shift, 1)}, f_step_0, "popops_cumulative_log_sum_exp");
// CHECK: poplar::Tensor t{{[0-9]+}} = scan0;

"builtin.module"() ({
  "poplar.graph"() ({
    %a = "poplar.variable"() {name = "a", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<2x3xf32>
    %i = "poplar.variable"() {name = "i", kind = "input", ipu = 0 : i64, tiles = array<i64: 1, 1>} : () -> tensor<2x2xi64>
    %u = "poplar.variable"() {name = "u", kind = "input", ipu = 0 : i64, tiles = array<i64: 2, 1>} : () -> tensor<2x2xf32>
    %n = "poplar.variable"() {name = "n", kind = "input", ipu = 0 : i64, tiles = array<i64: 3, 1>} : () -> tensor<5xi32>
    %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64: 4, 1>} : () -> tensor<1x4x3x3xf32>
    %w = "poplar.variable"() {name = "w", kind = "input", ipu = 0 : i64, tiles = array<i64: 5, 1>} : () -> tensor<4x1x3x3xf32>
    %b = "poplar.variable"() {name = "b", kind = "input", ipu = 0 : i64, tiles = array<i64: 6, 1>} : () -> tensor<2xf32>
    %g = "poplar.variable"() {name = "g", kind = "input", ipu = 0 : i64, tiles = array<i64: 7, 1>} : () -> tensor<1x2x6x6xf32>
    "poplar.function"() ({
      %0 = "poplar.popops_scatter"(%a, %i, %u) {dim = 1 : i64, op = "copy", include_self = true} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
      %1 = "poplar.popops_scatter"(%a, %i, %u) {dim = 0 : i64, op = "add", include_self = false} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
      %2 = "poplar.popops_scatter"(%a, %i, %u) {dim = 1 : i64, op = "max", include_self = true} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
      %3 = "poplar.popops_scatter"(%a, %i, %u) {dim = 1 : i64, op = "min", include_self = false} : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x3xf32>
      %4, %5 = "poplar.popops_cumulative_max"(%a) {dim = 1 : i64} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
      %6, %7 = "poplar.popops_cumulative_min"(%n) {dim = 0 : i64} : (tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi64>)
      %8 = "poplar.poplin_conv_transpose"(%x, %w, %b) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>,
             output_padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64,
             operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x4x3x3xf32>, tensor<4x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x6x6xf32>
      %9, %10, %11 = "poplar.poplin_conv_transpose_grad"(%g, %x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>,
             output_padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, resultSegmentSizes = array<i32: 1, 1, 1>}
             : (tensor<1x2x6x6xf32>, tensor<1x4x3x3xf32>, tensor<4x1x3x3xf32>) -> (tensor<1x4x3x3xf32>, tensor<4x1x3x3xf32>, tensor<2xf32>)
      %12 = "poplar.popops_cumulative_log_sum_exp"(%a) {dim = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

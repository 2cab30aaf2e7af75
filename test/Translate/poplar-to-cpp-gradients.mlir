// The training ops: poplin_conv_grad (poplin::calculateWeightDeltas; the input gradient as
// poplin::convolution of the output gradient dilated by the stride with the weights
// transposed and flipped; the bias gradient by popops::reduce), max pooling with indices and
// its gradient (the maxPoolWithIndices helpers), batch / layer norm statistics and gradients
// (popnn::bn / popnn::layerNorm; running statistics by popops::map), popnn::logSoftmax and the
// softmax gradients, the NLL loss and its gradient (popops::encodeOneHot), multiUpdateAdd,
// pooling gradients, gather, multi_slice along dim 1, multiUpdate, top-k, a cumulative sum (log-step scan) and a
// descending sort (the reversed view).
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK: std::pair<poplar::Tensor, poplar::Tensor> maxPoolWithIndices(poplar::Graph &g, const poplar::Tensor &in,
// CHECK: poplar::Tensor maxPoolGradWithIndices(poplar::Graph &g, const poplar::Tensor &grad, const poplar::Tensor &index,
// CHECK: // function 'step'
// CHECK: // poplin_conv_grad ({{.*}})
// CHECK-NEXT: poplin::ConvParams params0(poplar::FLOAT, 1, {8, 8}, {3, 3}, 3, 4, 1);
// CHECK: params0.outputTransform.stride = {2, 2};
// CHECK-NEXT: poplar::Tensor t0 = poplin::calculateWeightDeltas(ipu[0], v_gy_0, v_x_0, params0, f_step_0, "poplin_conv_grad/weights")
// CHECK-NEXT: .reshape({4, 3, 3, 3});
// CHECK-NEXT: poplin::ConvParams params1(poplar::FLOAT, 1, {4, 4}, {3, 3}, 4, 3, 1);
// CHECK-NEXT: params1.inputTransform.dilation = {2, 2};
// CHECK-NEXT: params1.inputTransform.paddingLower = {1, 1};
// CHECK-NEXT: params1.inputTransform.paddingUpper = {2, 2};
// CHECK-NEXT: params1.kernelTransform.dilation = {1, 1};
// CHECK-NEXT: poplar::Tensor t1 = poplin::convolution(ipu[0], v_gy_0, v_w_0.reshape({1, 4, 3, 3, 3}), params1, true, f_step_0, "poplin_conv_grad/input");
// CHECK-NEXT: poplar::Tensor t2 = popops::reduce(ipu[0], v_gy_0, poplar::FLOAT, {0, 2, 3}, popops::ReduceParams(popops::Operation::ADD), f_step_0, "poplin_conv_grad/bias");
// CHECK: // popnn_max_pool_with_indices ({{.*}})
// CHECK: auto pooled0 = maxPoolWithIndices(ipu[0], v_x_0, {2, 2}, {2, 2}, {0, 0}, {4, 4}, f_step_0, "popnn_max_pool_with_indices");
// CHECK-NEXT: poplar::Tensor t3 = pooled0.first;
// CHECK-NEXT: poplar::Tensor t4 = popops::cast(ipu[0], pooled0.second, poplar::LONGLONG, f_step_0, "popnn_max_pool_with_indices/indices");
// CHECK: // popnn_max_pool_grad_with_indices ({{.*}})
// CHECK-NEXT: poplar::Tensor index0 = popops::cast(ipu[0], t4, poplar::INT, f_step_0, "popnn_max_pool_grad_with_indices/indices");
// CHECK-NEXT: poplar::Tensor t5 = maxPoolGradWithIndices(ipu[0], t3, index0, {8, 8}, {2, 2}, {2, 2}, {0, 0}, f_step_0, "popnn_max_pool_grad_with_indices");
// CHECK: // popnn_norm_training ({{.*}})
// CHECK-NEXT: auto stats0 = popnn::bn::batchNormStatistics(ipu[0], v_x_0, 1e-05f, f_step_0, false, false, poplar::FLOAT, "popnn_norm_training/statistics");
// CHECK-NEXT: poplar::Tensor t6 = popnn::bn::batchNormalise(ipu[0], v_x_0, v_c_0, v_c_0, stats0.first, stats0.second, f_step_0, "popnn_norm_training").first;
// CHECK: poplar::Tensor t9 = popops::map(ipu[0], {{.*}}pe::Const(0.9f){{.*}}pe::Const(0.1f){{.*}}, {v_c_0, stats0.first}, f_step_0, "popnn_norm_training/running_mean");
// CHECK-NEXT: poplar::Tensor t10 = popops::map(ipu[0], {{.*}}pe::Const(1.0158730158730158f){{.*}}, {v_c_0, stats0.second}, f_step_0, "popnn_norm_training/running_var");
// CHECK: // popnn_norm_grad ({{.*}})
// CHECK-NEXT: poplar::Tensor t11 = popnn::bn::batchNormGradients(ipu[0], v_x_0, v_x_0, t7, t8, v_c_0, f_step_0, poplar::FLOAT, "popnn_norm_grad/input");
// CHECK-NEXT: auto paramGrads0 = popnn::bn::batchNormParamGradients(ipu[0], v_x_0, v_x_0, t7, t8, f_step_0, poplar::FLOAT, "popnn_norm_grad/params");
// CHECK: // popnn_norm_training ({{.*}})
// CHECK-NEXT: poplar::Tensor acts0 = v_s_0.reshape({6, 5});
// CHECK-NEXT: auto stats1 = popnn::layerNorm::layerNormStatistics(ipu[0], acts0, 1e-05f, f_step_0, false, false, poplar::FLOAT, "popnn_norm_training/statistics");
// CHECK: poplar::Tensor t15 = stats1.first.reshape({2, 3, 1});
// CHECK: // popnn_norm_grad ({{.*}})
// CHECK-NEXT: poplar::Tensor t17 = popnn::layerNorm::layerNormGradients(ipu[0], v_s_0.reshape({6, 5}), v_s_0.reshape({6, 5}), t15.flatten(), t16.flatten(), v_lg_0.flatten(), f_step_0, poplar::FLOAT, "popnn_norm_grad/input").reshape({2, 3, 5});
// CHECK-NEXT: auto paramGrads1 = popnn::layerNorm::layerNormParamGradients(
// CHECK: // popnn_nonlinearity ({{.*}})
// CHECK-NEXT: poplar::Tensor t20 = popnn::logSoftmax(ipu[0], v_lp_0, f_step_0, "popnn_nonlinearity");
// CHECK: // popnn_nonlinearity_grad ({{.*}})
// CHECK: poplar::Tensor rowSum0 = popops::reduce(ipu[0], dy0, poplar::FLOAT, {1}, popops::ReduceParams(popops::Operation::ADD), f_step_0, "popnn_nonlinearity_grad/sum").reshape({4, 1}).broadcast(5, 1);
// CHECK-NEXT: poplar::Tensor t21 = popops::map(ipu[0], pe::BinaryOp(pe::BinaryOpType::SUBTRACT, pe::_1, pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::UnaryOp(pe::UnaryOpType::EXPONENT, pe::_2), pe::_3)), {dy0, y0, rowSum0}
// CHECK: // popnn_nonlinearity ({{.*}})
// CHECK-NEXT: poplar::Tensor rows0 = v_s_0.dimShuffle({0, 2, 1}).reshape({10, 3});
// CHECK-NEXT: poplar::Tensor softmax0 = popnn::nonLinearity(ipu[0], popnn::NonLinearityType::SOFTMAX_STABLE, rows0, f_step_0, "popnn_nonlinearity");
// CHECK: pe::Const(-std::numeric_limits<float>::infinity()){{.*}}.reshape({2, 5, 3}).dimShuffle({0, 2, 1});
// CHECK: // popnn_nll_loss ({{.*}})
// CHECK: poplar::Tensor keep0 = popops::map(ipu[0], pe::BinaryOp(pe::BinaryOpType::NOT_EQUAL, pe::_1, pe::Const(-100)), {target0}
// CHECK: popops::encodeOneHot(ipu[0], classes0, onehot0, f_step_0, "popnn_nll_loss/onehot");
// CHECK-NEXT: poplar::Tensor selected0 = popops::map({{.*}}, {onehot0, keep0.reshape({4, 1}).broadcast(5, 1), v_cw_0.reshape({1, 5}).broadcast(4, 0)}
// CHECK: poplar::Tensor total0 = popops::reduce(ipu[0], selected0, poplar::FLOAT, {0, 1}
// CHECK-NEXT: poplar::Tensor t23 = popops::map(ipu[0], pe::BinaryOp(pe::BinaryOpType::DIVIDE, pe::UnaryOp(pe::UnaryOpType::NEGATE, pe::_1), pe::_2)
// CHECK: // popnn_nll_loss_grad ({{.*}})
// CHECK: pe::Const(2)), {target1}
// CHECK: poplar::Tensor t24 = popops::map(ipu[0], pe::UnaryOp(pe::UnaryOpType::NEGATE, pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::_1, pe::_2)), {selected1, v_l_0.reshape({1, 1}).broadcast(4, 0).broadcast(5, 1)}
// CHECK: // popops_multi_update_add ({{.*}})
// CHECK-NEXT: poplar::Tensor t25 = ipu[0].addVariable(poplar::FLOAT, {10, 5}, "popops_multi_update_add");
// CHECK: popops::zero(ipu[0], t25, f_step_0, "popops_multi_update_add/zero");
// CHECK: popops::multiUpdateAdd(ipu[0], t25, v_s_0.reshape({6, 1, 5}), offsets0, scale0, {0}, {1}, f_step_0, popops::SlicePlan(), poplar::OptionFlags(), "popops_multi_update_add");
// CHECK-NEXT: popops::zero(ipu[0], t25.slice(1, 2, 0), f_step_0, "popops_multi_update_add/padding_index");
// CHECK: // popnn_pool_grad ({{.*}})
// CHECK-NEXT: poplar::Tensor t26 = popnn::pooling::poolInputGradient(ipu[0],
// CHECK-NEXT: popnn::pooling::PoolParams(popnn::PoolingType::AVG, {8, 8}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, 3, 1, poplar::FLOAT),
// CHECK-NEXT: 1, t3, f_step_0, "popnn_pool_grad");
// CHECK: // popnn_pool_grad ({{.*}})
// CHECK: auto pooled1 = maxPoolWithIndices(ipu[0], v_x_0, {2, 2}, {2, 2}, {0, 0}, {4, 4}, f_step_0, "popnn_pool_grad/indices");
// CHECK-NEXT: poplar::Tensor t27 = maxPoolGradWithIndices(ipu[0], t3, pooled1.second, {8, 8}, {2, 2}, {2, 2}, {0, 0}, f_step_0, "popnn_pool_grad");
// CHECK: // popops_gather ({{.*}})
// CHECK-NEXT: static const int data0[] = {0, 0, 0, 5, 5, 5};
// CHECK: poplar::Tensor offsets1 = popops::cast(ipu[0], popops::map(ipu[0], pe::BinaryOp(pe::BinaryOpType::ADD, pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::Cast(pe::_1, poplar::INT), pe::Const(1)), pe::_2), {v_ids_0.flatten(), base0}
// CHECK-NEXT: poplar::Tensor t28 = popops::multiSlice(ipu[0], v_lp_0.flatten(), offsets1, {0}, {1}, f_step_0, popops::SlicePlan(), poplar::OptionFlags(), "popops_gather").reshape({2, 3});
// CHECK: // popops_multi_slice ({{.*}})
// CHECK: poplar::Tensor slices0 = popops::multiSlice(ipu[0], v_s_0, offsets2, {1}, {1}, f_step_0, popops::SlicePlan(), poplar::OptionFlags(), "popops_multi_slice");
// CHECK-NEXT: poplar::Tensor t29 = slices0.reshape({6, 2, 5}).dimShuffle({1, 0, 2}).reshape({2, 2, 3, 5});
// CHECK: // popops_multi_update ({{.*}})
// CHECK-NEXT: poplar::Tensor t30 = ipu[0].addVariable(poplar::FLOAT, {4, 5}, "popops_multi_update");
// CHECK: f_step_0.add(poplar::program::Copy(v_lp_0, t30));
// CHECK: popops::multiUpdate(ipu[0], t30, v_s_0.dimShuffle({0, 1, 2}).reshape({6, 1, 5}), offsets3, {0}, {1}, f_step_0, popops::SlicePlan(), poplar::OptionFlags(), "popops_multi_update");
// CHECK: // popops_top_k ({{.*}})
// CHECK-NEXT: // popops::topKWithPermutation works along the innermost dimension: dim 0 moved there and back
// CHECK-NEXT: auto topK0 = popops::topKWithPermutation(ipu[0], f_step_0, v_lp_0.dimShuffle({1, 0}), popops::TopKParams(2, true, popops::SortOrder::DESCENDING), "popops_top_k");
// CHECK-NEXT: poplar::Tensor t31 = topK0.first.dimShuffle({1, 0});
// CHECK-NEXT: poplar::Tensor t32 = popops::cast(ipu[0], topK0.second, poplar::LONGLONG, f_step_0, "popops_top_k/indices").dimShuffle({1, 0});
// CHECK: // popops_cumulative_sum ({{.*}})
// CHECK-NEXT: poplar::Tensor scan0 = popops::cast(ipu[0], v_t_0, poplar::LONGLONG, f_step_0, "popops_cumulative_sum/cast");
// CHECK-NEXT: for (unsigned shift = 1; shift < 4; shift *= 2) {
// CHECK-NEXT:   poplar::Tensor next = ipu[0].addVariable(poplar::LONGLONG, {4}, "popops_cumulative_sum/step");
// CHECK-NEXT:   mapLinearly(ipu[0], next, 0, 1);
// CHECK-NEXT:   f_step_0.add(poplar::program::Copy(scan0, next));
// CHECK-NEXT:   popops::addInPlace(ipu[0], next.slice(shift, 4, 0), scan0.slice(0, 4 - shift, 0), f_step_0, "popops_cumulative_sum");
// CHECK-NEXT:   scan0 = next;
// CHECK-NEXT: }
// CHECK-NEXT: poplar::Tensor t33 = scan0;
// CHECK: // popops_sort_key_value ({{.*}})
// CHECK-NEXT: poplar::Tensor keys0 = ipu[0].addVariable(poplar::FLOAT, {4, 5}, "popops_sort_key_value/keys0");
// CHECK: f_step_0.add(poplar::program::Copy(v_lp_0, keys0));
// CHECK: f_step_0.add(poplar::program::Copy(v_lp_0, values0));
// CHECK-NEXT: popops::sortKeyValueInPlace(ipu[0], keys0, values0, 0, f_step_0, "popops_sort_key_value");
// CHECK-NEXT: poplar::Tensor t34 = keys0.reverse(0);
// CHECK-NEXT: poplar::Tensor t35 = values0.reverse(0);
// CHECK-NEXT: poplar::Function fn_step = graph.addFunction(f_step_0);

"builtin.module"() ({
  "poplar.graph"() ({
    %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 1>} : () -> tensor<1x3x8x8xf32>
    %w = "poplar.variable"() {name = "w", kind = "input", ipu = 0 : i64, tiles = array<i64: 1, 1>} : () -> tensor<4x3x3x3xf32>
    %gy = "poplar.variable"() {name = "gy", kind = "input", ipu = 0 : i64, tiles = array<i64: 2, 1>} : () -> tensor<1x4x4x4xf32>
    %c = "poplar.variable"() {name = "c", kind = "input", ipu = 0 : i64, tiles = array<i64: 3, 1>} : () -> tensor<3xf32>
    %s = "poplar.variable"() {name = "s", kind = "input", ipu = 0 : i64, tiles = array<i64: 4, 1>} : () -> tensor<2x3x5xf32>
    %lg = "poplar.variable"() {name = "lg", kind = "input", ipu = 0 : i64, tiles = array<i64: 5, 1>} : () -> tensor<5xf32>
    %lp = "poplar.variable"() {name = "lp", kind = "input", ipu = 0 : i64, tiles = array<i64: 6, 1>} : () -> tensor<4x5xf32>
    %t = "poplar.variable"() {name = "t", kind = "input", ipu = 0 : i64, tiles = array<i64: 7, 1>} : () -> tensor<4xi64>
    %cw = "poplar.variable"() {name = "cw", kind = "input", ipu = 0 : i64, tiles = array<i64: 8, 1>} : () -> tensor<5xf32>
    %l = "poplar.variable"() {name = "l", kind = "input", ipu = 0 : i64, tiles = array<i64: 9, 1>} : () -> tensor<f32>
    %ids = "poplar.variable"() {name = "ids", kind = "input", ipu = 0 : i64, tiles = array<i64: 10, 1>} : () -> tensor<2x3xi64>
    "poplar.function"() ({
      %gi, %gw, %gb = "poplar.poplin_conv_grad"(%gy, %x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1x4x4x4xf32>, tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
      %p, %i = "poplar.popnn_max_pool_with_indices"(%x) {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false} : (tensor<1x3x8x8xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xi64>)
      %pg = "poplar.popnn_max_pool_grad_with_indices"(%x, %p, %i) {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false} : (tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>, tensor<1x3x4x4xi64>) -> tensor<1x3x8x8xf32>
      %y, %m, %r, %nm, %nv = "poplar.popnn_norm_training"(%x, %c, %c, %c, %c) {kind = "batch", epsilon = 1.0e-05 : f64, momentum = 0.1 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 2>, resultSegmentSizes = array<i32: 1, 1, 1, 2>} : (tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
      %bx, %bs, %bb = "poplar.popnn_norm_grad"(%x, %x, %m, %r, %c) {kind = "batch", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>)
      %ly, %lm, %lr = "poplar.popnn_norm_training"(%s, %lg, %lg) {kind = "layer", epsilon = 1.0e-05 : f64, momentum = 0.0 : f64, num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2x3x5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>)
      %lx, %ls, %lb = "poplar.popnn_norm_grad"(%s, %s, %lm, %lr, %lg) {kind = "layer", epsilon = 1.0e-05 : f64, num_groups = 1 : i64, num_dims = 1 : i64} : (tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>, tensor<5xf32>) -> (tensor<2x3x5xf32>, tensor<5xf32>, tensor<5xf32>)
      %ls0 = "poplar.popnn_nonlinearity"(%lp) {kind = "log_softmax", dim = 1 : i64} : (tensor<4x5xf32>) -> tensor<4x5xf32>
      %ls1 = "poplar.popnn_nonlinearity_grad"(%lp, %ls0) {kind = "log_softmax", dim = 1 : i64} : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
      %ss0 = "poplar.popnn_nonlinearity"(%s) {kind = "safe_softmax", dim = 1 : i64} : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
      %nl = "poplar.popnn_nll_loss"(%ls0, %t, %cw) {reduction = "mean", ignore_index = -100 : i64, operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<4x5xf32>, tensor<4xi64>, tensor<5xf32>) -> tensor<f32>
      %ng = "poplar.popnn_nll_loss_grad"(%l, %ls0, %t) {reduction = "sum", ignore_index = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<f32>, tensor<4x5xf32>, tensor<4xi64>) -> tensor<4x5xf32>
      %eg = "poplar.popops_multi_update_add"(%s, %ids) {padding_index = 1 : i64} : (tensor<2x3x5xf32>, tensor<2x3xi64>) -> tensor<10x5xf32>
      %ag = "poplar.popnn_pool_grad"(%x, %p) {kind = "avg", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
      %mg = "poplar.popnn_pool_grad"(%x, %p) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true} : (tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
      %ga = "poplar.popops_gather"(%lp, %ids) {dim = 1 : i64} : (tensor<4x5xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
      %ms = "poplar.popops_multi_slice"(%s, %ids) {dim = 1 : i64} : (tensor<2x3x5xf32>, tensor<2x3xi64>) -> tensor<2x2x3x5xf32>
      %mu = "poplar.popops_multi_update"(%lp, %s, %ids) {dim = 0 : i64, op = "copy"} : (tensor<4x5xf32>, tensor<2x3x5xf32>, tensor<2x3xi64>) -> tensor<4x5xf32>
      %tv, %ti = "poplar.popops_top_k"(%lp) {dim = 0 : i64, k = 2 : i64, largest = true, sorted = true} : (tensor<4x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xi64>)
      %cs = "poplar.popops_cumulative_sum"(%t) {dim = 0 : i64} : (tensor<4xi64>) -> tensor<4xi64>
      %sk, %sv = "poplar.popops_sort_key_value"(%lp, %lp) {dim = 0 : i64, descending = true, stable = false} : (tensor<4x5xf32>, tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>)
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

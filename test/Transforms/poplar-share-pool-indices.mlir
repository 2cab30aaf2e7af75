// RUN: ipu-opt %s -p poplar-share-pool-indices --split-input-file | FileCheck %s

// A training step's max pool and its gradient (same input, same window; the forward's
// count_include_pad does not matter to a max pool): the pool also gives its argmax
// (i64 indices of the pooled shape), which the gradient reads instead of pooling the
// input again. Both keep their stage and IPU.
// CHECK-LABEL: "poplar.function"
// CHECK: %[[P:.*]]:2 = "poplar.popnn_max_pool_with_indices"(%[[X:.*]]) {ceil_mode = false, kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, stride = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
// CHECK: %[[G:.*]] = "poplar.popnn_nonlinearity"(%[[P]]#0)
// CHECK: "poplar.popnn_max_pool_grad_with_indices"(%[[X]], %[[G]], %[[P]]#1) {ceil_mode = false, kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, stride = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) -> tensor<1x2x4x4xf32>
// CHECK-NOT: "poplar.popnn_pool
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<1x2x4x4xf32>
  "poplar.function"() ({
    %p = "poplar.popnn_pool"(%x) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2, 2>, kind = "max", padding = array<i64: 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, stride = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
    %g = "poplar.popnn_nonlinearity"(%p) {dim = 0 : i64, kind = "sigmoid"} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
    %gx = "poplar.popnn_pool_grad"(%x, %g) {ceil_mode = false, count_include_pad = false, kernel = array<i64: 2, 2>, kind = "max", padding = array<i64: 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64, stride = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32>
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// What keeps recomputing its argmax: a gradient of another window than the pool's
// (stride 1), of an average pool, of a pool of another input, a 1-D max pool's
// gradient, and a gradient in another run block than its pool (the body of a loop
// in main). Pools without a gradient stay popnn_pool.
// CHECK-LABEL: "poplar.graph"
// CHECK-NOT: with_indices
// CHECK-COUNT-5: "poplar.popnn_pool_grad"
// CHECK-NOT: with_indices
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<1x2x4x4xf32>
  %y = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.y", tiles = array<i64>} : () -> tensor<1x2x4x4xf32>
  %s = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.s", tiles = array<i64>} : () -> tensor<1x2x4xf32>
  %g2 = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.g2", tiles = array<i64>} : () -> tensor<1x2x2x2xf32>
  %g3 = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.g3", tiles = array<i64>} : () -> tensor<1x2x3x3xf32>
  %g1 = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.g1", tiles = array<i64>} : () -> tensor<1x2x2xf32>
  "poplar.function"() ({
    %p = "poplar.popnn_pool"(%x) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2, 2>, kind = "max", padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
    %a = "poplar.popnn_pool"(%x) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2, 2>, kind = "avg", padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
    %q = "poplar.popnn_pool"(%s) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2>, kind = "max", padding = array<i64: 0>, stride = array<i64: 2>} : (tensor<1x2x4xf32>) -> tensor<1x2x2xf32>
    %w1 = "poplar.popnn_pool_grad"(%x, %g3) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2, 2>, kind = "max", padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x4x4xf32>
    %w2 = "poplar.popnn_pool_grad"(%x, %g2) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2, 2>, kind = "avg", padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32>
    %w3 = "poplar.popnn_pool_grad"(%y, %g2) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2, 2>, kind = "max", padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32>
    %w4 = "poplar.popnn_pool_grad"(%s, %g1) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2>, kind = "max", padding = array<i64: 0>, stride = array<i64: 2>} : (tensor<1x2x4xf32>, tensor<1x2x2xf32>) -> tensor<1x2x4xf32>
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    %m = "poplar.popnn_pool"(%y) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2, 2>, kind = "max", padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
    "poplar.program_repeat"() ({
      %w5 = "poplar.popnn_pool_grad"(%y, %m) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2, 2>, kind = "max", padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x4x4xf32>
    }) {count = 2 : i64} : () -> ()
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

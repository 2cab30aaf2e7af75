// Round trip of the collectives (gcl_all_reduce / _reduce_scatter / _all_gather / _broadcast)
// in a graph of 4 replicas, with each kind of #poplar.comm_group: ipu-opt parses and
// verifies them (against the graph's replication_factor), prints them, and parses its own
// output again. Invalid cases: collectives-invalid.mlir.
// RUN: ipu-opt %s | FileCheck %s
// RUN: ipu-opt %s | ipu-opt | FileCheck %s

// CHECK: "poplar.graph"
"poplar.graph"() ({
  %w = "poplar.variable"() {name = "w", kind = "weight", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<8x3xf32>
  %s = "poplar.variable"() {name = "s", kind = "buffer", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<i32>
  // Replicated tensor sharding: this replica's part (ceil(15 / 4) = 4 elements) of a 5x3 tensor.
  // CHECK: "poplar.variable"() {ipu = 0 : i64, kind = "optimizer_state", name = "v", poplar.replica_shard = #poplar.replica_shard<array<i64: 5, 3>, 4 : i64>, tiles = array<i64>} : () -> tensor<4xf32>
  %v = "poplar.variable"() {name = "v", kind = "optimizer_state", ipu = 0 : i64, tiles = array<i64>, poplar.replica_shard = #poplar.replica_shard<array<i64: 5, 3>, 4 : i64>} : () -> tensor<4xf32>
  "poplar.function"() ({
    // Every replica: the mean over the 4; a group of one replica: the value itself.
    // CHECK: "poplar.gcl_all_reduce"(%{{.*}}) {group = #poplar.comm_group<"all", 0 : i64>, op = "mean"} : (tensor<8x3xf32>) -> tensor<8x3xf32>
    %0 = "poplar.gcl_all_reduce"(%w) {op = "mean", group = #poplar.comm_group<"all", 0 : i64>} : (tensor<8x3xf32>) -> tensor<8x3xf32>
    // CHECK: "poplar.gcl_all_reduce"(%{{.*}}) {group = #poplar.comm_group<"none", 0 : i64>, op = "max"} : (tensor<i32>) -> tensor<i32>
    %1 = "poplar.gcl_all_reduce"(%s) {op = "max", group = #poplar.comm_group<"none", 0 : i64>} : (tensor<i32>) -> tensor<i32>
    // Replicas {0, 1} and {2, 3} each sum and split 8 rows in 2 x 4; {0, 2} and {1, 3} each
    // gather 2 x 8 rows; all 4 reduce-scatter into 4 x 2 rows.
    // CHECK: "poplar.gcl_reduce_scatter"(%{{.*}}) {group = #poplar.comm_group<"consecutive", 2 : i64>, op = "add"} : (tensor<8x3xf32>) -> tensor<4x3xf32>
    %2 = "poplar.gcl_reduce_scatter"(%w) {op = "add", group = #poplar.comm_group<"consecutive", 2 : i64>} : (tensor<8x3xf32>) -> tensor<4x3xf32>
    // CHECK: "poplar.gcl_reduce_scatter"(%{{.*}}) {group = #poplar.comm_group<"all", 0 : i64>, op = "min"} : (tensor<8x3xf32>) -> tensor<2x3xf32>
    %3 = "poplar.gcl_reduce_scatter"(%w) {op = "min", group = #poplar.comm_group<"all", 0 : i64>} : (tensor<8x3xf32>) -> tensor<2x3xf32>
    // CHECK: "poplar.gcl_all_gather"(%{{.*}}) {group = #poplar.comm_group<"orthogonal", 2 : i64>} : (tensor<8x3xf32>) -> tensor<16x3xf32>
    %4 = "poplar.gcl_all_gather"(%w) {group = #poplar.comm_group<"orthogonal", 2 : i64>} : (tensor<8x3xf32>) -> tensor<16x3xf32>
    // CHECK: "poplar.gcl_all_gather"(%{{.*}}) {group = #poplar.comm_group<"all", 0 : i64>} : (tensor<4x3xf32>) -> tensor<16x3xf32>
    %5 = "poplar.gcl_all_gather"(%2) {group = #poplar.comm_group<"all", 0 : i64>} : (tensor<4x3xf32>) -> tensor<16x3xf32>
    // Each replica of {0, 1, 2, 3} gets replica 3's value; each of {0, 2}, {1, 3} its first's.
    // CHECK: "poplar.gcl_broadcast"(%{{.*}}) {group = #poplar.comm_group<"all", 0 : i64>, root = 3 : i64} : (tensor<8x3xf32>) -> tensor<8x3xf32>
    %6 = "poplar.gcl_broadcast"(%w) {root = 3 : i64, group = #poplar.comm_group<"all", 0 : i64>} : (tensor<8x3xf32>) -> tensor<8x3xf32>
    // CHECK: "poplar.gcl_broadcast"(%{{.*}}) {group = #poplar.comm_group<"orthogonal", 2 : i64>, root = 0 : i64} : (tensor<i32>) -> tensor<i32>
    %7 = "poplar.gcl_broadcast"(%s) {root = 0 : i64, group = #poplar.comm_group<"orthogonal", 2 : i64>} : (tensor<i32>) -> tensor<i32>
    // A group of 4 consecutive replicas is every replica.
    // CHECK: "poplar.gcl_all_reduce"(%{{.*}}) {group = #poplar.comm_group<"consecutive", 4 : i64>, op = "mul"} : (tensor<8x3xf32>) -> tensor<8x3xf32>
    %8 = "poplar.gcl_all_reduce"(%w) {op = "mul", group = #poplar.comm_group<"consecutive", 4 : i64>} : (tensor<8x3xf32>) -> tensor<8x3xf32>
    // "local": no reduction, each replica its own part of its own value (a weight it shards).
    // CHECK: "poplar.gcl_reduce_scatter"(%{{.*}}) {group = #poplar.comm_group<"all", 0 : i64>, op = "local"} : (tensor<16xf32>) -> tensor<4xf32>
    %9 = "poplar.reshape"(%4) : (tensor<16x3xf32>) -> tensor<48xf32>
    %10 = "poplar.slice"(%9) {begin = array<i64: 0>, end = array<i64: 16>, stride = array<i64: 1>} : (tensor<48xf32>) -> tensor<16xf32>
    %11 = "poplar.gcl_reduce_scatter"(%10) {op = "local", group = #poplar.comm_group<"all", 0 : i64>} : (tensor<16xf32>) -> tensor<4xf32>
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 4 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

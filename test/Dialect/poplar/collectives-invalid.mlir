// RUN: ipu-opt %s --split-input-file --verify-diagnostics

// Verifier messages of the collectives and their #poplar.comm_group (valid forms:
// collectives.mlir; gcl_all_reduce's op and type rules: invalid.mlir). Inside a graph the
// group is checked against its replication_factor; outside one, what holds for any.

// ===== #poplar.comm_group
func.func @group_missing(%x: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.gcl_all_reduce' op requires attribute 'group' (#poplar.comm_group<kind, size>)}}
  %0 = "poplar.gcl_all_reduce"(%x) {op = "add"} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @group_not_a_comm_group(%x: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.gcl_all_gather' op attribute 'group' must be a #poplar.comm_group<kind, size> (kind one of: all, consecutive, orthogonal, none), got "all"}}
  %0 = "poplar.gcl_all_gather"(%x) {group = "all"} : (tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @group_kind_unknown(%x: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.gcl_broadcast' op attribute 'group' kind must be one of: all, consecutive, orthogonal, none; got "ring"}}
  %0 = "poplar.gcl_broadcast"(%x) {root = 0 : i64, group = #poplar.comm_group<"ring", 2 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @group_size_zero(%x: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.gcl_all_reduce' op attribute 'group' size must be >= 1 for kind "consecutive" (replicas per group), got 0}}
  %0 = "poplar.gcl_all_reduce"(%x) {op = "add", group = #poplar.comm_group<"consecutive", 0 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @group_size_for_all(%x: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.gcl_all_reduce' op attribute 'group' size must be 0 for kind "all" (the kind alone sets the groups), got 4}}
  %0 = "poplar.gcl_all_reduce"(%x) {op = "add", group = #poplar.comm_group<"all", 4 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// A group size must divide the graph's replication factor.
"poplar.graph"() ({
  %w = "poplar.variable"() {name = "w", kind = "weight", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<6xf32>
  "poplar.function"() ({
    // expected-error@+1 {{'poplar.gcl_all_reduce' op attribute 'group' #poplar.comm_group<"orthogonal", 3 : i64>: size 3 must divide the graph's replication_factor 4}}
    %0 = "poplar.gcl_all_reduce"(%w) {op = "add", group = #poplar.comm_group<"orthogonal", 3 : i64>} : (tensor<6xf32>) -> tensor<6xf32>
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 4 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// ===== poplar.gcl_reduce_scatter
func.func @reduce_scatter_op(%x: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.gcl_reduce_scatter' op attribute 'op' must be one of "add", "mean", "mul", "min", "max", "local", got "sum"}}
  %0 = "poplar.gcl_reduce_scatter"(%x) {op = "sum", group = #poplar.comm_group<"consecutive", 2 : i64>} : (tensor<4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @reduce_scatter_rank0(%x: tensor<f32>) {
  // expected-error@+1 {{'poplar.gcl_reduce_scatter' op input must have rank >= 1 (it is scattered along dim 0), got tensor<f32>}}
  %0 = "poplar.gcl_reduce_scatter"(%x) {op = "add", group = #poplar.comm_group<"none", 0 : i64>} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @reduce_scatter_element(%x: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.gcl_reduce_scatter' op result element type f16 must equal input element type f32}}
  %0 = "poplar.gcl_reduce_scatter"(%x) {op = "add", group = #poplar.comm_group<"consecutive", 2 : i64>} : (tensor<4xf32>) -> tensor<2xf16>
  return
}

// -----

func.func @reduce_scatter_inner_dims(%x: tensor<4x3xf32>) {
  // expected-error@+1 {{'poplar.gcl_reduce_scatter' op result shape [2, 2] must be the input shape [4, 3] with dim 0 divided by the group size}}
  %0 = "poplar.gcl_reduce_scatter"(%x) {op = "add", group = #poplar.comm_group<"consecutive", 2 : i64>} : (tensor<4x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @reduce_scatter_not_divisible(%x: tensor<5xf32>) {
  // expected-error@+1 {{'poplar.gcl_reduce_scatter' op input dim 0 (5) must be divisible by the group size 2}}
  %0 = "poplar.gcl_reduce_scatter"(%x) {op = "add", group = #poplar.comm_group<"orthogonal", 2 : i64>} : (tensor<5xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @reduce_scatter_rows_outside_a_graph(%x: tensor<6xf32>) {
  // expected-error@+1 {{'poplar.gcl_reduce_scatter' op result dim 0 (4) must divide input dim 0 (6): input dim 0 / group size}}
  %0 = "poplar.gcl_reduce_scatter"(%x) {op = "add", group = #poplar.comm_group<"all", 0 : i64>} : (tensor<6xf32>) -> tensor<4xf32>
  return
}

// -----

// Inside a graph, a group of every replica has R of them.
"poplar.graph"() ({
  %w = "poplar.variable"() {name = "w", kind = "weight", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<8xf32>
  "poplar.function"() ({
    // expected-error@+1 {{'poplar.gcl_reduce_scatter' op result dim 0 must be input dim 0 / group size = 8 / 4 = 2, got 4}}
    %0 = "poplar.gcl_reduce_scatter"(%w) {op = "mean", group = #poplar.comm_group<"all", 0 : i64>} : (tensor<8xf32>) -> tensor<4xf32>
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 4 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// ===== poplar.gcl_all_gather
func.func @all_gather_rank0(%x: tensor<f32>) {
  // expected-error@+1 {{'poplar.gcl_all_gather' op input must have rank >= 1 (it is gathered along dim 0), got tensor<f32>}}
  %0 = "poplar.gcl_all_gather"(%x) {group = #poplar.comm_group<"none", 0 : i64>} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @all_gather_inner_dims(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.gcl_all_gather' op result shape [4] must be the input shape [2, 3] with dim 0 multiplied by the group size}}
  %0 = "poplar.gcl_all_gather"(%x) {group = #poplar.comm_group<"consecutive", 2 : i64>} : (tensor<2x3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @all_gather_rows(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'poplar.gcl_all_gather' op result dim 0 must be input dim 0 x group size = 2 x 2 = 4, got 6}}
  %0 = "poplar.gcl_all_gather"(%x) {group = #poplar.comm_group<"orthogonal", 2 : i64>} : (tensor<2x3xf32>) -> tensor<6x3xf32>
  return
}

// -----

func.func @all_gather_rows_outside_a_graph(%x: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.gcl_all_gather' op result dim 0 (6) must be a multiple of input dim 0 (4): input dim 0 x group size}}
  %0 = "poplar.gcl_all_gather"(%x) {group = #poplar.comm_group<"all", 0 : i64>} : (tensor<4xf32>) -> tensor<6xf32>
  return
}

// -----

func.func @all_gather_dynamic(%x: tensor<?xf32>) {
  // expected-error@+1 {{'poplar.gcl_all_gather' op input must have a static shape, got tensor<?xf32>}}
  %0 = "poplar.gcl_all_gather"(%x) {group = #poplar.comm_group<"none", 0 : i64>} : (tensor<?xf32>) -> tensor<?xf32>
  return
}

// -----

// ===== poplar.gcl_broadcast
func.func @broadcast_root_negative(%x: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.gcl_broadcast' op attribute 'root' must be >= 0, got -1}}
  %0 = "poplar.gcl_broadcast"(%x) {root = -1 : i64, group = #poplar.comm_group<"all", 0 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @broadcast_root_outside_the_group(%x: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.gcl_broadcast' op attribute 'root' must be a rank of the group: < the group size 2, got 2}}
  %0 = "poplar.gcl_broadcast"(%x) {root = 2 : i64, group = #poplar.comm_group<"consecutive", 2 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @broadcast_type(%x: tensor<4xf32>) {
  // expected-error@+1 {{'poplar.gcl_broadcast' op result type tensor<4xi32> must equal input type tensor<4xf32>}}
  %0 = "poplar.gcl_broadcast"(%x) {root = 0 : i64, group = #poplar.comm_group<"none", 0 : i64>} : (tensor<4xf32>) -> tensor<4xi32>
  return
}

// -----

// Inside a graph of 2 replicas, a group of every replica has ranks 0 and 1.
"poplar.graph"() ({
  %w = "poplar.variable"() {name = "w", kind = "weight", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<8xf32>
  "poplar.function"() ({
    // expected-error@+1 {{'poplar.gcl_broadcast' op attribute 'root' must be a rank of the group: < the group size 2, got 3}}
    %0 = "poplar.gcl_broadcast"(%w) {root = 3 : i64, group = #poplar.comm_group<"all", 0 : i64>} : (tensor<8xf32>) -> tensor<8xf32>
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_call"() {callee = "step"} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 2 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// ===== poplar.variable with poplar.replica_shard (replicated tensor sharding)
// Its type is the replica's part: ceil(elements / replicas) elements, rank 1.
"poplar.graph"() ({
  // expected-error@+1 {{'poplar.variable' op a variable sharded as [5, 3] across 4 replicas holds ceil(15 / 4) = 4 elements: its type must be tensor<4x...>, got shape [5, 3]}}
  %v = "poplar.variable"() {name = "v", kind = "optimizer_state", ipu = 0 : i64, tiles = array<i64>, poplar.replica_shard = #poplar.replica_shard<array<i64: 5, 3>, 4 : i64>} : () -> tensor<5x3xf32>
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 4 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

// The replicas it is sharded across are the graph's.
"poplar.graph"() ({
  // expected-error@+1 {{'poplar.variable' op is sharded across 4 replicas but the enclosing 'poplar.graph' has replication_factor 2}}
  %v = "poplar.variable"() {name = "v", kind = "optimizer_state", ipu = 0 : i64, tiles = array<i64>, poplar.replica_shard = #poplar.replica_shard<array<i64: 5, 3>, 4 : i64>} : () -> tensor<4xf32>
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 2 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// -----

"poplar.graph"() ({
  // expected-error@+1 {{'poplar.variable' op 'poplar.replica_shard' replicas must be >= 2 (one replica holds the whole tensor), got 1}}
  %v = "poplar.variable"() {name = "v", kind = "optimizer_state", ipu = 0 : i64, tiles = array<i64>, poplar.replica_shard = #poplar.replica_shard<array<i64: 5>, 1 : i64>} : () -> tensor<5xf32>
  "poplar.program_sequence"() ({
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()

// The collectives of a graph of 4 replicas as GCL cross-replica calls on the replicated
// graph: each #poplar.comm_group as a gcl::CommGroup ("none" is a group of one consecutive
// replica), each reduction as a popops::CollectiveOperator; allGatherCrossReplica's stacked
// result and reduceScatterCrossReplica's flat part reshaped to the op's result. The unit
// includes GCL, checks the replication factor and attaches kNumIpus x kReplicas IPUs.
// RUN: ipu-translate --poplar-to-cpp %s | FileCheck %s

// CHECK:      //   g++ -std=c++17 program.cpp -lpoplar -lpopops -lpoplin -lpopnn -lgcl -o program
// CHECK:      #include <gcl/Collectives.hpp>
// CHECK:      constexpr unsigned kReplicas = 4;
// CHECK:        if (graph.getReplicationFactor() != kReplicas)
// CHECK:        poplar::Tensor [[A:t[0-9]+]] = gcl::allReduceCrossReplica(graph, v_g_0, popops::CollectiveOperator::MEAN, f_step_0, gcl::CommGroup(gcl::CommGroupType::ALL, 0), "gcl_all_reduce");
// CHECK:        poplar::Tensor [[S:t[0-9]+]] = gcl::reduceScatterCrossReplica(graph, [[A]].flatten(), popops::CollectiveOperator::MAX, f_step_0, gcl::CommGroup(gcl::CommGroupType::CONSECUTIVE, 2), "gcl_reduce_scatter").reshape({4, 3});
// CHECK:        poplar::Tensor [[G:t[0-9]+]] = gcl::allGatherCrossReplica(graph, [[S]], f_step_0, gcl::CommGroup(gcl::CommGroupType::ORTHOGONAL, 2), "gcl_all_gather").reshape({8, 3});
// CHECK:        poplar::Tensor [[B:t[0-9]+]] = gcl::broadcastCrossReplica(graph, [[G]], f_step_0, gcl::CommGroup(gcl::CommGroupType::ALL, 0), 3, "gcl_broadcast");
// CHECK:        poplar::Tensor [[N:t[0-9]+]] = gcl::allReduceCrossReplica(graph, [[B]], popops::CollectiveOperator::ADD, f_step_0, gcl::CommGroup(gcl::CommGroupType::CONSECUTIVE, 1), "gcl_all_reduce");
// CHECK:        for (auto &candidate : manager.getDevices(poplar::TargetType::IPU, kNumIpus * kReplicas))
// CHECK:        poplar::Graph graph(device.getTarget(), poplar::replication_factor(kReplicas));

"builtin.module"() ({
  "poplar.graph"() ({
    %g = "poplar.variable"() {name = "g", kind = "weight", ipu = 0 : i64, tiles = array<i64: 0, 2>} : () -> tensor<8x3xf32>
    %o = "poplar.variable"() {name = "o", kind = "anchor", ipu = 0 : i64, tiles = array<i64: 2, 2>} : () -> tensor<8x3xf32>
    "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<8x3xf32>} : () -> ()
    "poplar.function"() ({
      %0 = "poplar.gcl_all_reduce"(%g) {op = "mean", group = #poplar.comm_group<"all", 0 : i64>} : (tensor<8x3xf32>) -> tensor<8x3xf32>
      %1 = "poplar.gcl_reduce_scatter"(%0) {op = "max", group = #poplar.comm_group<"consecutive", 2 : i64>} : (tensor<8x3xf32>) -> tensor<4x3xf32>
      %2 = "poplar.gcl_all_gather"(%1) {group = #poplar.comm_group<"orthogonal", 2 : i64>} : (tensor<4x3xf32>) -> tensor<8x3xf32>
      %3 = "poplar.gcl_broadcast"(%2) {root = 3 : i64, group = #poplar.comm_group<"all", 0 : i64>} : (tensor<8x3xf32>) -> tensor<8x3xf32>
      %4 = "poplar.gcl_all_reduce"(%3) {op = "add", group = #poplar.comm_group<"none", 0 : i64>} : (tensor<8x3xf32>) -> tensor<8x3xf32>
      "poplar.program_copy"(%4, %o) : (tensor<8x3xf32>, tensor<8x3xf32>) -> ()
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
      "poplar.program_stream_copy"(%o) {stream = "host.output.0"} : (tensor<8x3xf32>) -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 4 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()

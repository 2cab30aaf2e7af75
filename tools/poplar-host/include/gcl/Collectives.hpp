// Host implementation of the GCL cross-replica collectives (see poplar/HostCore.hpp): the
// replicas of a poplar::Graph(target, replication_factor(R)) run in lock step, and each
// collective combines the values of each replica group (ALL: the R replicas; CONSECUTIVE,
// size g: replicas [k g, (k+1) g); ORTHOGONAL, size g: replicas R/g apart) in group-rank
// order. Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <popops/CollectiveTypes.hpp>

namespace gcl {
enum class CommGroupType { ALL, CONSECUTIVE, ORTHOGONAL };

struct CommGroup {
  CommGroupType type = CommGroupType::ALL;
  unsigned replicaGroupSize = 0;  // replicas per group; ignored by ALL
  CommGroup() = default;
  CommGroup(CommGroupType t, unsigned size) : type(t), replicaGroupSize(size) {}
};

poplar::Tensor allReduceCrossReplica(poplar::Graph &graph, const poplar::Tensor &data, popops::CollectiveOperator op,
                                     poplar::program::Sequence &prog, const CommGroup &group = {},
                                     const poplar::DebugContext &debug = {}, const poplar::OptionFlags &options = {});
// The i-th of g equal parts of the flattened reduction, for the replica of group rank i.
poplar::Tensor reduceScatterCrossReplica(poplar::Graph &graph, const poplar::Tensor &data, popops::CollectiveOperator op,
                                         poplar::program::Sequence &prog, const CommGroup &group = {},
                                         const poplar::DebugContext &debug = {}, const poplar::OptionFlags &options = {});
// Every group rank's data, stacked along a new dim 0.
poplar::Tensor allGatherCrossReplica(poplar::Graph &graph, const poplar::Tensor &data, poplar::program::Sequence &prog,
                                     const CommGroup &group = {}, const poplar::DebugContext &debug = {},
                                     const poplar::OptionFlags &options = {});
poplar::Tensor broadcastCrossReplica(poplar::Graph &graph, const poplar::Tensor &data, poplar::program::Sequence &prog,
                                     const CommGroup &group = {}, unsigned rootReplica = 0,
                                     const poplar::DebugContext &debug = {}, const poplar::OptionFlags &options = {});
} // namespace gcl

// Host implementation of the GCL cross-replica collectives (include/gcl/Collectives.hpp):
// the graph has one replica, so each group is the replica alone.
#include <gcl/Collectives.hpp>

#include <stdexcept>
#include <string>

namespace gcl {
namespace {
std::runtime_error error(const std::string &what) { return std::runtime_error("poplar-host: " + what); }

// The group's size in a graph of graph.getReplicationFactor() (= 1) replicas.
unsigned groupSize(const poplar::Graph &graph, const CommGroup &group, const std::string &fn) {
  unsigned replicas = graph.getReplicationFactor();
  unsigned size = group.type == CommGroupType::ALL ? replicas : group.replicaGroupSize;
  if (size == 0 || replicas % size != 0)
    throw error(fn + ": a group of " + std::to_string(size) + " replicas does not divide the " +
                std::to_string(replicas) + " replica(s) of the graph");
  if (size != 1) throw error(fn + ": poplar-host runs one replica, not a group of " + std::to_string(size));
  return size;
}

// A new tensor of data's type and shape holding data's elements, computed in prog.
poplar::Tensor copyOf(poplar::Graph &graph, const poplar::Tensor &data, std::vector<std::size_t> shape,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debug) {
  poplar::Tensor out = graph.addVariable(data.elementType(), std::move(shape), debug);
  prog.add(poplar::program::Program::compute(debug.name(), [data, out] {
    for (std::size_t i = 0; i < data.numElements(); ++i) out.set(i, data.get(i));
  }));
  return out;
}
} // namespace

poplar::Tensor allReduceCrossReplica(poplar::Graph &graph, const poplar::Tensor &data, popops::CollectiveOperator op,
                                     poplar::program::Sequence &prog, const CommGroup &group,
                                     const poplar::DebugContext &debug, const poplar::OptionFlags &) {
  if (op == popops::CollectiveOperator::LOCAL) throw error("allReduceCrossReplica: LOCAL is not a cross-replica reduction");
  groupSize(graph, group, "allReduceCrossReplica");
  // Any reduction of one value (its sum, mean, product, minimum, maximum ...) is the value;
  // SQUARE_ADD would square it, which the emitter never asks for.
  if (op == popops::CollectiveOperator::SQUARE_ADD) throw error("allReduceCrossReplica: SQUARE_ADD is not implemented");
  return copyOf(graph, data, data.shape(), prog, debug);
}

poplar::Tensor reduceScatterCrossReplica(poplar::Graph &graph, const poplar::Tensor &data, popops::CollectiveOperator op,
                                         poplar::program::Sequence &prog, const CommGroup &group,
                                         const poplar::DebugContext &debug, const poplar::OptionFlags &) {
  if (op == popops::CollectiveOperator::LOCAL || op == popops::CollectiveOperator::SQUARE_ADD)
    throw error("reduceScatterCrossReplica: only ADD, MEAN, MUL, MIN, MAX and the logical reductions are implemented");
  groupSize(graph, group, "reduceScatterCrossReplica");
  return copyOf(graph, data, {data.numElements()}, prog, debug);  // the one part: all of it, flattened
}

poplar::Tensor allGatherCrossReplica(poplar::Graph &graph, const poplar::Tensor &data, poplar::program::Sequence &prog,
                                     const CommGroup &group, const poplar::DebugContext &debug, const poplar::OptionFlags &) {
  groupSize(graph, group, "allGatherCrossReplica");
  std::vector<std::size_t> shape{1};
  shape.insert(shape.end(), data.shape().begin(), data.shape().end());
  return copyOf(graph, data, shape, prog, debug);
}

poplar::Tensor broadcastCrossReplica(poplar::Graph &graph, const poplar::Tensor &data, poplar::program::Sequence &prog,
                                     const CommGroup &group, unsigned rootReplica, const poplar::DebugContext &debug,
                                     const poplar::OptionFlags &) {
  unsigned size = groupSize(graph, group, "broadcastCrossReplica");
  if (rootReplica >= size)
    throw error("broadcastCrossReplica: root " + std::to_string(rootReplica) + " is not a rank of a group of " +
                std::to_string(size));
  return copyOf(graph, data, data.shape(), prog, debug);
}
} // namespace gcl

// Host implementation of the GCL cross-replica collectives (include/gcl/Collectives.hpp):
// each is one program node that runs once for all the replicas running it, reads every
// replica's input and writes every replica's result from its group's inputs in group-rank
// order (reductions round to the tensor's type after each step, as the IPU Model's torch
// reduction does). It exists only to check ipu-mlir's emitted code; see ../README.md.
#include <gcl/Collectives.hpp>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include "host_util.hpp"

namespace gcl {
namespace {
using poplar_host::error;

// The replica groups of a graph of `replicas`: the members of each replica's group in rank order.
struct Groups {
  unsigned replicas, size;
  CommGroupType type;
  unsigned count() const { return replicas / size; }
  // The replica of group rank `rank` in the group of `replica`.
  unsigned member(unsigned replica, unsigned rank) const {
    if (type == CommGroupType::ORTHOGONAL) return replica % count() + rank * count();
    return (replica / size) * size + rank;
  }
  unsigned rank(unsigned replica) const { return type == CommGroupType::ORTHOGONAL ? replica / count() : replica % size; }
};

Groups groupsOf(const poplar::Graph &graph, const CommGroup &group, const std::string &fn) {
  unsigned replicas = graph.getReplicationFactor();
  unsigned size = group.type == CommGroupType::ALL ? replicas : group.replicaGroupSize;
  if (size == 0 || replicas % size != 0)
    throw error(fn + ": a group of " + std::to_string(size) + " replicas does not divide the " + std::to_string(replicas) +
                " replica(s) of the graph");
  return Groups{replicas, size, group.type};
}

// Adds to prog the node that gives each running replica compute(inputs of its group in rank
// order, its rank) in `out`; every member of a running replica's group must be running.
void addCollective(poplar::program::Sequence &prog, const std::string &fn, const poplar::DebugContext &debug,
                   const Groups &groups, const poplar::Tensor &data, const poplar::Tensor &out,
                   std::function<std::vector<double>(const std::vector<const std::vector<double> *> &, unsigned)> compute) {
  prog.add(poplar::program::Program::collective(debug.name(), [=](const poplar::program::host::Replicas &running) {
    std::vector<std::vector<double>> inputs(groups.replicas);
    std::vector<bool> present(groups.replicas, false);
    for (unsigned r : running) {
      present[r] = true;
      poplar::host::forReplica(r, [&] {
        inputs[r].resize(data.numElements());
        for (std::size_t i = 0; i < inputs[r].size(); ++i) inputs[r][i] = data.get(i);
      });
    }
    for (unsigned r : running) {
      std::vector<const std::vector<double> *> group;
      for (unsigned k = 0; k < groups.size; ++k) {
        unsigned m = groups.member(r, k);
        if (!present[m])
          throw error(fn + ": replica " + std::to_string(r) + " reached the collective but replica " + std::to_string(m) +
                      " of its group did not (the group's replicas took different branches of an If)");
        group.push_back(&inputs[m]);
      }
      std::vector<double> values = compute(group, groups.rank(r));
      poplar::host::forReplica(r, [&] {
        for (std::size_t i = 0; i < values.size(); ++i) out.set(i, values[i]);
      });
    }
  }));
}

// The group's inputs reduced element by element in rank order, each step rounded to `type`.
std::vector<double> reduce(const std::vector<const std::vector<double> *> &group, popops::CollectiveOperator op,
                           const poplar::Type &type) {
  using Op = popops::CollectiveOperator;
  std::vector<double> acc = *group[0];
  if (op == Op::SQUARE_ADD)
    for (double &v : acc) v = type.round(v * v);
  for (std::size_t k = 1; k < group.size(); ++k)
    for (std::size_t i = 0; i < acc.size(); ++i) {
      double v = (*group[k])[i], &a = acc[i];
      switch (op) {
      case Op::ADD: case Op::MEAN: a = type.round(a + v); break;
      case Op::SQUARE_ADD: a = type.round(a + type.round(v * v)); break;
      case Op::MUL: a = type.round(a * v); break;
      case Op::MIN: a = (std::isnan(a) || std::isnan(v)) ? NAN : std::min(a, v); break;
      case Op::MAX: a = (std::isnan(a) || std::isnan(v)) ? NAN : std::max(a, v); break;
      case Op::LOGICAL_AND: a = (a != 0.0 && v != 0.0) ? 1.0 : 0.0; break;
      case Op::LOGICAL_OR: a = (a != 0.0 || v != 0.0) ? 1.0 : 0.0; break;
      case Op::LOCAL: break;
      }
    }
  if (op == Op::MEAN)
    for (double &a : acc) a = type.round(a / static_cast<double>(group.size()));
  return acc;
}

void checkOperator(popops::CollectiveOperator op, const std::string &fn) {
  if (op == popops::CollectiveOperator::LOCAL) throw error(fn + ": LOCAL is not a cross-replica reduction");
}
} // namespace

poplar::Tensor allReduceCrossReplica(poplar::Graph &graph, const poplar::Tensor &data, popops::CollectiveOperator op,
                                     poplar::program::Sequence &prog, const CommGroup &group,
                                     const poplar::DebugContext &debug, const poplar::OptionFlags &) {
  checkOperator(op, "allReduceCrossReplica");
  Groups groups = groupsOf(graph, group, "allReduceCrossReplica");
  poplar::Tensor out = graph.addVariable(data.elementType(), data.shape(), debug);
  poplar::Type type = data.elementType();
  addCollective(prog, "allReduceCrossReplica", debug, groups, data, out,
                [op, type](const std::vector<const std::vector<double> *> &inputs, unsigned) { return reduce(inputs, op, type); });
  return out;
}

poplar::Tensor reduceScatterCrossReplica(poplar::Graph &graph, const poplar::Tensor &data, popops::CollectiveOperator op,
                                         poplar::program::Sequence &prog, const CommGroup &group,
                                         const poplar::DebugContext &debug, const poplar::OptionFlags &) {
  // LOCAL: no reduction, each replica keeps its own part of its own data (a sharded weight's part).
  Groups groups = groupsOf(graph, group, "reduceScatterCrossReplica");
  std::size_t n = data.numElements();
  if (n % groups.size != 0)
    throw error("reduceScatterCrossReplica: " + std::to_string(n) + " elements in " + std::to_string(groups.size) +
                " equal parts (GCL pads the last part; the host library does not implement the padding)");
  std::size_t part = n / groups.size;
  poplar::Tensor out = graph.addVariable(data.elementType(), {part}, debug);
  poplar::Type type = data.elementType();
  addCollective(prog, "reduceScatterCrossReplica", debug, groups, data, out,
                [op, type, part](const std::vector<const std::vector<double> *> &inputs, unsigned rank) {
                  std::vector<double> all =
                      op == popops::CollectiveOperator::LOCAL ? *inputs[rank] : reduce(inputs, op, type);
                  return std::vector<double>(all.begin() + static_cast<long>(rank * part),
                                             all.begin() + static_cast<long>((rank + 1) * part));
                });
  return out;
}

poplar::Tensor allGatherCrossReplica(poplar::Graph &graph, const poplar::Tensor &data, poplar::program::Sequence &prog,
                                     const CommGroup &group, const poplar::DebugContext &debug, const poplar::OptionFlags &) {
  Groups groups = groupsOf(graph, group, "allGatherCrossReplica");
  std::vector<std::size_t> shape{groups.size};
  shape.insert(shape.end(), data.shape().begin(), data.shape().end());
  poplar::Tensor out = graph.addVariable(data.elementType(), shape, debug);
  addCollective(prog, "allGatherCrossReplica", debug, groups, data, out,
                [](const std::vector<const std::vector<double> *> &inputs, unsigned) {
                  std::vector<double> all;
                  for (const auto *values : inputs) all.insert(all.end(), values->begin(), values->end());
                  return all;
                });
  return out;
}

poplar::Tensor broadcastCrossReplica(poplar::Graph &graph, const poplar::Tensor &data, poplar::program::Sequence &prog,
                                     const CommGroup &group, unsigned rootReplica, const poplar::DebugContext &debug,
                                     const poplar::OptionFlags &) {
  Groups groups = groupsOf(graph, group, "broadcastCrossReplica");
  if (rootReplica >= groups.size)
    throw error("broadcastCrossReplica: root " + std::to_string(rootReplica) + " is not a rank of a group of " +
                std::to_string(groups.size));
  poplar::Tensor out = graph.addVariable(data.elementType(), data.shape(), debug);
  addCollective(prog, "broadcastCrossReplica", debug, groups, data, out,
                [rootReplica](const std::vector<const std::vector<double> *> &inputs, unsigned) { return *inputs[rootReplica]; });
  return out;
}
} // namespace gcl

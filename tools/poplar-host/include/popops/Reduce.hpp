// Host implementation of popops::reduce (see poplar/HostCore.hpp): reduces `dims` of `in`
// (the result drops them), accumulating in double. Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <popops/Operation.hpp>

namespace popops {
struct ReduceParams {
  ReduceParams() = default;
  ReduceParams(Operation op, bool update = false) : op(op), update(update) {}
  Operation op = Operation::ADD;
  bool update = false;
};

poplar::Tensor reduce(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Type &outType,
                      const std::vector<std::size_t> &dims, ReduceParams params, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debug = {}, const poplar::OptionFlags &options = {});
} // namespace popops

// Host implementation of popops::zero (see poplar/HostCore.hpp). Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace popops {
// Sets every element of t to 0.
void zero(poplar::Graph &graph, const poplar::Tensor &t, poplar::program::Sequence &prog,
          const poplar::DebugContext &debug = {});
} // namespace popops

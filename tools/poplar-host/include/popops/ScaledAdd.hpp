// Host implementation of popops::scaledAddTo (see poplar/HostCore.hpp): A += scale * B.
// Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace popops {
void scaledAddTo(poplar::Graph &graph, poplar::Tensor A, poplar::Tensor B, float scaleB, poplar::program::Sequence &prog,
                 const poplar::DebugContext &debug = {}, const poplar::OptionFlags &options = {});
} // namespace popops

// Host implementation of popops::encodeOneHot (see poplar/HostCore.hpp): indices [N]
// (integer), encoded [N][C] gets 1 at [n][indices[n]] and 0 elsewhere; an index out of
// range is an error. Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace popops {
void encodeOneHot(poplar::Graph &graph, const poplar::Tensor &indices, const poplar::Tensor &encoded,
                  poplar::program::Sequence &prog, const poplar::DebugContext &debug = {});
} // namespace popops

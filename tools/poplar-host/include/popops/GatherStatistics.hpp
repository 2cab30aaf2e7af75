// Host implementation of popops::histogram (see poplar/HostCore.hpp). Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace popops {
// A FLOAT tensor of levels.numElements() + 1 counts: entry 0 counts the elements below
// levels[0], entry i those in [levels[i - 1], levels[i]), the last those >= the last level
// (|x| with absoluteOfInput). levels is 1-D and ascending; NaN elements are not counted.
poplar::Tensor histogram(poplar::Graph &graph, const poplar::Tensor &input, const poplar::Tensor &levels, bool absoluteOfInput,
                         poplar::program::Sequence &prog, const poplar::DebugContext &debug = {},
                         const poplar::OptionFlags &options = {});
} // namespace popops

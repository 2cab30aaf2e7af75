// Host implementation of popnn::logSoftmax (see poplar/HostCore.hpp): log of the softmax
// over the innermost dimension, x - max - log(sum(exp(x - max))). Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace popnn {
poplar::Tensor logSoftmax(poplar::Graph &graph, poplar::Tensor t, poplar::program::Sequence &prog,
                          const poplar::DebugContext &debug = {});
} // namespace popnn

// Host implementation of popnn::nonLinearity (see poplar/HostCore.hpp); SOFTMAX and
// SOFTMAX_STABLE normalise over the innermost dimension. Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <popnn/NonLinearityDef.hpp>

namespace popnn {
poplar::Tensor nonLinearity(poplar::Graph &graph, NonLinearityType type, const poplar::Tensor &t,
                            poplar::program::Sequence &prog, const poplar::DebugContext &debug = {},
                            const poplar::OptionFlags &options = {});
} // namespace popnn

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
// The gradient of the non-linearity's input from outGradient. `act` is the non-linearity's
// output for SIGMOID and TANH and its input for RELU, GELU and GELU_ERF.
poplar::Tensor nonLinearityInputGradient(poplar::Graph &graph, NonLinearityType type, const poplar::Tensor &act,
                                         const poplar::Tensor &outGradient, poplar::program::Sequence &prog,
                                         const poplar::DebugContext &debug = {}, const poplar::OptionFlags &options = {});
} // namespace popnn

// Host implementation of popnn::bn::batchNormalise (see poplar/HostCore.hpp): acts
// [N][C][...] normalised per channel with given mean and inverse standard deviation.
// Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace popnn {
namespace bn {
// Returns (gamma * (acts - mean) * invStdDev + beta, (acts - mean) * invStdDev).
std::pair<poplar::Tensor, poplar::Tensor> batchNormalise(poplar::Graph &graph, const poplar::Tensor &acts,
                                                         const poplar::Tensor &gamma, const poplar::Tensor &beta,
                                                         const poplar::Tensor &mean, const poplar::Tensor &invStdDev,
                                                         poplar::program::Sequence &prog,
                                                         const poplar::DebugContext &debug = {},
                                                         const poplar::OptionFlags &options = {});
} // namespace bn
} // namespace popnn

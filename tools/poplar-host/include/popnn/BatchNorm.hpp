// Host implementation of popnn::bn::batchNormalise (see poplar/HostCore.hpp): acts
// [N][C][...] normalised per channel with given mean and inverse standard deviation;
// batchNormStatistics, batchNormGradients and batchNormParamGradients for training.
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
// (mean [C], 1 / sqrt(variance + eps) [C]) over all dims but 1; the biased variance unless
// unbiasedVarEstimate.
std::pair<poplar::Tensor, poplar::Tensor> batchNormStatistics(poplar::Graph &graph, const poplar::Tensor acts, float eps,
                                                              poplar::program::Sequence &prog, bool unbiasedVarEstimate,
                                                              bool stableAlgo = false,
                                                              const poplar::Type &partialsType = poplar::FLOAT,
                                                              const poplar::DebugContext &debug = {},
                                                              const poplar::OptionFlags &options = {});
// The gradient of acts from gradsIn (the gradient of the normalised output).
poplar::Tensor batchNormGradients(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gradsIn,
                                  const poplar::Tensor &mean, const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
                                  poplar::program::Sequence &prog, const poplar::Type &partialsType = poplar::FLOAT,
                                  const poplar::DebugContext &debug = {}, const poplar::OptionFlags &options = {});
// (gamma gradient, beta gradient), each [C].
std::pair<poplar::Tensor, poplar::Tensor> batchNormParamGradients(poplar::Graph &graph, const poplar::Tensor &acts,
                                                                  const poplar::Tensor &gradsIn, const poplar::Tensor &mean,
                                                                  const poplar::Tensor &iStdDev, poplar::program::Sequence &prog,
                                                                  const poplar::Type &partialsType = poplar::FLOAT,
                                                                  const poplar::DebugContext &debug = {},
                                                                  const poplar::OptionFlags &options = {});
} // namespace bn
} // namespace popnn

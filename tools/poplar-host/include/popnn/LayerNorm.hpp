// Host implementation of popnn::layerNorm (see poplar/HostCore.hpp): acts [B][C],
// statistics per row over the C elements. Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace popnn {
namespace layerNorm {
// (mean [B], 1 / sqrt(variance + eps) [B]); the biased variance unless unbiasedVarEstimate.
std::pair<poplar::Tensor, poplar::Tensor> layerNormStatistics(poplar::Graph &graph, const poplar::Tensor acts, float eps,
                                                              poplar::program::Sequence &prog, bool unbiasedVarEstimate,
                                                              bool stableAlgo = false,
                                                              const poplar::Type &partialsType = poplar::FLOAT,
                                                              const poplar::DebugContext &debug = {},
                                                              const poplar::OptionFlags &options = {});
// Returns (gamma * (acts - mean) * invStdDev + beta, (acts - mean) * invStdDev); gamma, beta [C].
std::pair<poplar::Tensor, poplar::Tensor> layerNormalise(poplar::Graph &graph, const poplar::Tensor &acts,
                                                         const poplar::Tensor &gamma, const poplar::Tensor &beta,
                                                         const poplar::Tensor &mean, const poplar::Tensor &invStdDev,
                                                         poplar::program::Sequence &prog,
                                                         const poplar::DebugContext &debug = {},
                                                         const poplar::OptionFlags &options = {});
// The gradient of acts [B][C] from gradsIn (the gradient of the normalised output).
poplar::Tensor layerNormGradients(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &gradsIn,
                                  const poplar::Tensor &mean, const poplar::Tensor &invStdDev, const poplar::Tensor &gamma,
                                  poplar::program::Sequence &prog, const poplar::Type &partialsType = poplar::FLOAT,
                                  const poplar::DebugContext &debug = {}, const poplar::OptionFlags &options = {});
// (gamma gradient, beta gradient), each [C].
std::pair<poplar::Tensor, poplar::Tensor> layerNormParamGradients(poplar::Graph &graph, const poplar::Tensor &acts,
                                                                  const poplar::Tensor &gradsIn, const poplar::Tensor &mean,
                                                                  const poplar::Tensor &iStdDev, poplar::program::Sequence &prog,
                                                                  const poplar::Type &partialsType = poplar::FLOAT,
                                                                  const poplar::DebugContext &debug = {},
                                                                  const poplar::OptionFlags &options = {});
} // namespace layerNorm
} // namespace popnn

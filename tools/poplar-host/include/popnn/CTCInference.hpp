// Host implementation of popnn::ctc_infer::beamSearchDecoderLogProbabilities (see
// poplar/HostCore.hpp): CTC prefix beam search in double, as ipu-mlir's support/ctc.py.
// Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

#include <tuple>

namespace popnn {
namespace ctc_infer {
// logProbs [maxT, B, C] (log probabilities per step), dataLengths [B] UNSIGNED_INT (valid
// steps of each batch element, at most maxT). Returns (labelProbs [B, topPaths] of logProbs'
// type: the paths' log probabilities, most probable first, -inf where the search found fewer
// paths; labelLengths [B, topPaths] UNSIGNED_INT; decodedLabels [B, topPaths, maxT]
// UNSIGNED_INT, whose elements past a path's length this library writes as 0).
std::tuple<poplar::Tensor, poplar::Tensor, poplar::Tensor>
beamSearchDecoderLogProbabilities(poplar::Graph &graph, const poplar::Tensor &logProbs, const poplar::Tensor &dataLengths,
                                  poplar::program::Sequence &prog, unsigned blankClass, unsigned beamwidth, unsigned topPaths,
                                  const poplar::OptionFlags &options = {}, const poplar::DebugContext &debugContext = {});
} // namespace ctc_infer
} // namespace popnn

// Host implementation of poplin convolutions (see poplar/HostCore.hpp): input
// [N][G*Cin][field...], weights [G][Cout][Cin][kernel...], output [N][G*Cout][field...].
// transposeAndFlipWeights takes weights [G][Cin][Cout][kernel...] (a forward convolution's,
// for its input gradient) and flips the kernel. Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplin/ConvParams.hpp>

namespace poplin {
class PlanningCache;
poplar::Tensor convolution(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Tensor &weights,
                           const ConvParams &params, bool transposeAndFlipWeights, poplar::program::Sequence &prog,
                           const poplar::DebugContext &debug = {}, const poplar::OptionFlags &options = {},
                           PlanningCache *cache = nullptr);
// The weight gradient [G][Cout][Cin][kernel...] of the convolution `params` from the output
// gradient zDeltas and the forward input activations.
poplar::Tensor calculateWeightDeltas(poplar::Graph &graph, const poplar::Tensor &zDeltas, const poplar::Tensor &activations,
                                     const ConvParams &params, poplar::program::Sequence &prog,
                                     const poplar::DebugContext &debug = {}, const poplar::OptionFlags &options = {},
                                     PlanningCache *cache = nullptr);
// Adds biases [C] to acts [N][C][...].
void addBias(poplar::Graph &graph, const poplar::Tensor &acts, const poplar::Tensor &biases,
             poplar::program::Sequence &prog, const poplar::DebugContext &debug = {});
} // namespace poplin

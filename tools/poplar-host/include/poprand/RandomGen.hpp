// Host implementation of poprand (see poplar/HostCore.hpp): one generator for the device,
// as the IPU's hardware generator. setSeed sets its state from a seed tensor (two
// UNSIGNED_INT) and a modifier when the program runs; each draw with a null seed takes the
// next numbers of that state, one per element of `reference` in row-major order, so every
// execution of a draw gives new values and the same seed gives the same ones. A non-null
// seed is not implemented (an error naming it). The numbers are this library's own
// (splitmix64), not the IPU's: they check what is drawn and from which distribution, not
// the values Poplar would give. Checks our emitted code only.
#pragma once
#include <cstdint>

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace poprand {
void setSeed(poplar::Graph &graph, const poplar::Tensor &masterSeed, uint32_t seedModifier, poplar::program::Sequence &prog,
             const poplar::DebugContext &debug = {});
// Floats uniform in [minVal, maxVal); integers uniform in [minVal, maxVal] (both ends).
poplar::Tensor uniform(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier, const poplar::Tensor &reference,
                       const poplar::Type &outType, double minVal, double maxVal, poplar::program::Sequence &prog,
                       const poplar::DebugContext &debug = {});
// 1 with probability prob, else 0.
poplar::Tensor bernoulli(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier, const poplar::Tensor &reference,
                         const poplar::Type &outType, double prob, poplar::program::Sequence &prog,
                         const poplar::DebugContext &debug = {});
poplar::Tensor normal(poplar::Graph &graph, const poplar::Tensor *seed, uint32_t seedModifier, const poplar::Tensor &reference,
                      const poplar::Type &outType, double mean, double stdDev, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debug = {});
} // namespace poprand

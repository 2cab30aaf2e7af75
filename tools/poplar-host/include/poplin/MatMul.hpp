// Host implementation of poplin matrix products (see poplar/HostCore.hpp). Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace poplin {
namespace matmul { class PlanningCache; }
// A [M, K] x B [K, N] -> [M, N]
poplar::Tensor matMul(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                      poplar::program::Sequence &prog, const poplar::Type &outputType,
                      const poplar::DebugContext &debug = {}, const poplar::OptionFlags &options = {},
                      matmul::PlanningCache *cache = nullptr);
// A [G, M, K] x B [G, K, N] -> [G, M, N]
poplar::Tensor matMulGrouped(poplar::Graph &graph, const poplar::Tensor &A, const poplar::Tensor &B,
                             poplar::program::Sequence &prog, const poplar::Type &outputType,
                             const poplar::DebugContext &debug = {}, const poplar::OptionFlags &options = {},
                             matmul::PlanningCache *cache = nullptr);
// C [M, N] += k * (A [M, K] x B [K, N])
void matMulAcc(poplar::Graph &graph, const poplar::Tensor &C, float k, const poplar::Tensor &A, const poplar::Tensor &B,
               poplar::program::Sequence &prog, const poplar::DebugContext &debug = {}, const poplar::OptionFlags &options = {},
               matmul::PlanningCache *cache = nullptr);
// C [G, M, N] += k * (A [G, M, K] x B [G, K, N])
void matMulGroupedAcc(poplar::Graph &graph, const poplar::Tensor &C, float k, const poplar::Tensor &A, const poplar::Tensor &B,
                      poplar::program::Sequence &prog, const poplar::DebugContext &debug = {},
                      const poplar::OptionFlags &options = {}, matmul::PlanningCache *cache = nullptr);
} // namespace poplin

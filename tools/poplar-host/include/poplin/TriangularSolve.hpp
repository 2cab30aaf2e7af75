// Host implementation of poplin::triangularSolve (see poplar/HostCore.hpp). Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace poplin {
namespace matmul { class PlanningCache; }
// X with a X = b (leftSide; a [..., N, N], b [..., N, K]) or X a = b (b [..., K, N]), a lower
// or upper triangular (the other triangle is not read; with unitDiagonal neither is the
// diagonal, taken as ones). The batch dims of a and b are equal.
poplar::Tensor triangularSolve(poplar::Graph &graph, const poplar::Tensor &a, const poplar::Tensor &b, bool leftSide, bool lower,
                               bool unitDiagonal, poplar::program::Sequence &prog, const poplar::DebugContext &debug = {},
                               const poplar::OptionFlags &options = {}, matmul::PlanningCache *cache = nullptr);
} // namespace poplin

// Host implementation of poplin::cholesky (see poplar/HostCore.hpp). Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace poplin {
class PlanningCache;
// The Cholesky factor of each matrix of a [..., N, N]: L (lower) with a = L L^T, or U = L^T;
// only that triangle of a is read, the other triangle of the result is zero. A matrix that
// is not positive definite gives NaN from its first failing column on.
poplar::Tensor cholesky(poplar::Graph &graph, const poplar::Tensor &a, bool lower, poplar::program::Sequence &prog,
                        const poplar::DebugContext &debug = {}, poplar::OptionFlags options = {}, PlanningCache *cache = nullptr);
} // namespace poplin

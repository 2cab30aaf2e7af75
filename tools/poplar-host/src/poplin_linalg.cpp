// Host implementation of poplin::cholesky and triangularSolve as plain loops in double,
// rounded once to the output type. It exists only to check ipu-mlir's emitted code; see
// ../README.md.
#include <poplin/Cholesky.hpp>
#include <poplin/TriangularSolve.hpp>

#include <cmath>
#include "host_util.hpp"

namespace poplin {
using poplar_host::error;

static std::size_t batches(const poplar::Tensor &t) {
  std::size_t n = 1;
  for (unsigned d = 0; d + 2 < t.rank(); ++d) n *= t.dim(d);
  return n;
}

poplar::Tensor cholesky(poplar::Graph &graph, const poplar::Tensor &a, bool lower, poplar::program::Sequence &prog,
                        const poplar::DebugContext &debug, poplar::OptionFlags, PlanningCache *) {
  if (a.rank() < 2 || a.dim(a.rank() - 1) != a.dim(a.rank() - 2)) throw error("cholesky: a must be [..., N, N]");
  poplar::Tensor out = graph.addVariable(a.elementType(), a.shape(), debug);
  prog.add(poplar::program::Program::compute(debug.name(), [a, out, lower] {
    std::size_t n = a.dim(a.rank() - 1);
    std::vector<double> l(n * n);
    for (std::size_t m = 0; m < batches(a); ++m) {
      std::size_t base = m * n * n;
      // element (i, j) of the lower factor reads a's (i, j) from the lower triangle, or (j, i) from the upper
      auto at = [&](std::size_t i, std::size_t j) { return a.get(base + (lower ? i * n + j : j * n + i)); };
      std::fill(l.begin(), l.end(), 0.0);
      for (std::size_t j = 0; j < n; ++j) {
        double d = at(j, j);
        for (std::size_t k = 0; k < j; ++k) d -= l[j * n + k] * l[j * n + k];
        l[j * n + j] = d > 0 ? std::sqrt(d) : NAN;
        for (std::size_t i = j + 1; i < n; ++i) {
          double s = at(i, j);
          for (std::size_t k = 0; k < j; ++k) s -= l[i * n + k] * l[j * n + k];
          l[i * n + j] = s / l[j * n + j];
        }
      }
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) out.set(base + i * n + j, lower ? l[i * n + j] : l[j * n + i]);
    }
  }));
  return out;
}

poplar::Tensor triangularSolve(poplar::Graph &graph, const poplar::Tensor &a, const poplar::Tensor &b, bool leftSide, bool lower,
                               bool unitDiagonal, poplar::program::Sequence &prog, const poplar::DebugContext &debug,
                               const poplar::OptionFlags &, matmul::PlanningCache *) {
  if (a.rank() < 2 || a.rank() != b.rank() || a.dim(a.rank() - 1) != a.dim(a.rank() - 2) || batches(a) != batches(b))
    throw error("triangularSolve: a [..., N, N] and b of the same batch dims");
  std::size_t n = a.dim(a.rank() - 1), rows = b.dim(b.rank() - 2), cols = b.dim(b.rank() - 1);
  if ((leftSide ? rows : cols) != n) throw error("triangularSolve: b's solved dimension must be a's order");
  poplar::Tensor out = graph.addVariable(b.elementType(), b.shape(), debug);
  prog.add(poplar::program::Program::compute(debug.name(), [a, b, out, leftSide, lower, unitDiagonal, n, rows, cols] {
    std::size_t k = leftSide ? cols : rows;  // the number of right-hand sides
    std::vector<double> x(n);
    for (std::size_t m = 0; m < batches(a); ++m) {
      // a x = b for one right-hand side r; x a = b is a^T x^T = b^T: the transposed triangle
      auto A = [&](std::size_t i, std::size_t j) { return leftSide ? a.get(m * n * n + i * n + j) : a.get(m * n * n + j * n + i); };
      bool low = leftSide ? lower : !lower;
      for (std::size_t r = 0; r < k; ++r) {
        auto B = [&](std::size_t i) { return leftSide ? i * cols + r : r * cols + i; };
        for (std::size_t step = 0; step < n; ++step) {
          std::size_t i = low ? step : n - 1 - step;
          double s = b.get(m * rows * cols + B(i));
          for (std::size_t q = 0; q < step; ++q) {
            std::size_t j = low ? q : n - 1 - q;
            s -= A(i, j) * x[j];
          }
          x[i] = unitDiagonal ? s : s / A(i, i);
        }
        for (std::size_t i = 0; i < n; ++i) out.set(m * rows * cols + B(i), x[i]);
      }
    }
  }));
  return out;
}
} // namespace poplin

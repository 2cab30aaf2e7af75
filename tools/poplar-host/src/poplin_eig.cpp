// Host implementation of poplin::eig of poplin/Decompositions.hpp: the complex Schur form by
// Householder reduction to Hessenberg form and implicit single-shift QR steps (Wilkinson
// shifts, Givens rotations), eigenvectors by back substitution on the triangular factor,
// all in std::complex<double>, rounded once. It exists only to check ipu-mlir's emitted code;
// see ../README.md.
#include <poplin/Decompositions.hpp>

#include <algorithm>
#include <cmath>
#include <complex>

namespace poplin {
namespace {
using C = std::complex<double>;

// The complex Schur form a = z t z^H of the n x n row-major a (t upper triangular).
void schur(std::vector<C> &t, std::vector<C> &z, std::size_t n) {
  auto T = [&](std::size_t i, std::size_t j) -> C & { return t[i * n + j]; };
  auto Z = [&](std::size_t i, std::size_t j) -> C & { return z[i * n + j]; };
  z.assign(n * n, C(0.0));
  for (std::size_t i = 0; i < n; ++i) Z(i, i) = 1.0;
  // Hessenberg form by Householder reflections P = I - 2 u u^H: t <- P t P, z <- z P
  for (std::size_t k = 0; k + 2 < n; ++k) {
    double norm = 0.0;
    for (std::size_t i = k + 1; i < n; ++i) norm += std::norm(T(i, k));
    norm = std::sqrt(norm);
    if (norm == 0.0) continue;
    C x0 = T(k + 1, k), phase = std::abs(x0) == 0.0 ? C(1.0) : x0 / std::abs(x0);
    std::vector<C> u(n, C(0.0));
    for (std::size_t i = k + 1; i < n; ++i) u[i] = T(i, k);
    u[k + 1] += phase * norm;  // x - alpha e1 with alpha = -phase * norm: no cancellation
    double un = 0.0;
    for (std::size_t i = k + 1; i < n; ++i) un += std::norm(u[i]);
    un = std::sqrt(un);
    for (std::size_t i = k + 1; i < n; ++i) u[i] /= un;
    for (std::size_t j = 0; j < n; ++j) {  // rows: P t
      C d = 0.0;
      for (std::size_t i = k + 1; i < n; ++i) d += std::conj(u[i]) * T(i, j);
      for (std::size_t i = k + 1; i < n; ++i) T(i, j) -= 2.0 * u[i] * d;
    }
    for (std::size_t i = 0; i < n; ++i) {  // columns: t P and z P
      C d = 0.0, e = 0.0;
      for (std::size_t j = k + 1; j < n; ++j) d += T(i, j) * u[j], e += Z(i, j) * u[j];
      for (std::size_t j = k + 1; j < n; ++j) T(i, j) -= 2.0 * d * std::conj(u[j]), Z(i, j) -= 2.0 * e * std::conj(u[j]);
    }
    for (std::size_t i = k + 2; i < n; ++i) T(i, k) = 0.0;
  }
  // implicit single-shift QR on the active block [lo, hi]
  const double eps = 2.220446049250313e-16;
  std::size_t hi = n ? n - 1 : 0;
  int iterations = 0;
  while (hi > 0) {
    std::size_t lo = hi;
    while (lo > 0 && std::abs(T(lo, lo - 1)) > eps * (std::abs(T(lo - 1, lo - 1)) + std::abs(T(lo, lo)))) --lo;
    if (lo > 0) T(lo, lo - 1) = 0.0;
    if (lo == hi) {  // one eigenvalue converged
      --hi;
      iterations = 0;
      continue;
    }
    if (++iterations > 100) throw std::runtime_error("poplar-host: eig: the QR iteration did not converge");
    C a = T(hi - 1, hi - 1), b = T(hi - 1, hi), c = T(hi, hi - 1), d = T(hi, hi);
    C root = std::sqrt((a - d) * (a - d) / 4.0 + b * c), m1 = (a + d) / 2.0 + root, m2 = (a + d) / 2.0 - root;
    C mu = std::abs(m1 - d) < std::abs(m2 - d) ? m1 : m2;  // Wilkinson's shift
    if (iterations % 11 == 10) mu = d + std::abs(c);          // an exceptional shift
    C x = T(lo, lo) - mu, y = T(lo + 1, lo);
    for (std::size_t k = lo; k < hi; ++k) {
      double r = std::hypot(std::abs(x), std::abs(y)), cs;
      C sn;
      if (r == 0.0) cs = 1.0, sn = 0.0;
      else if (std::abs(x) == 0.0) cs = 0.0, sn = 1.0;
      else cs = std::abs(x) / r, sn = (x / std::abs(x)) * std::conj(y) / r;
      for (std::size_t j = (k > lo ? k - 1 : lo); j < n; ++j) {  // G t on rows k, k + 1
        C p = T(k, j), q = T(k + 1, j);
        T(k, j) = cs * p + sn * q;
        T(k + 1, j) = -std::conj(sn) * p + cs * q;
      }
      for (std::size_t i = 0; i <= std::min(k + 2, hi); ++i) {  // t G^H on columns k, k + 1
        C p = T(i, k), q = T(i, k + 1);
        T(i, k) = p * cs + q * std::conj(sn);
        T(i, k + 1) = -p * sn + q * cs;
      }
      for (std::size_t i = 0; i < n; ++i) {
        C p = Z(i, k), q = Z(i, k + 1);
        Z(i, k) = p * cs + q * std::conj(sn);
        Z(i, k + 1) = -p * sn + q * cs;
      }
      if (k + 1 < hi) x = T(k + 1, k), y = T(k + 2, k);
      if (k > lo) T(k + 1, k - 1) = 0.0;  // the bulge chased down
    }
  }
}
} // namespace

std::pair<poplar::Tensor, poplar::Tensor> eig(poplar::Graph &graph, const poplar::Tensor &a, poplar::program::Sequence &prog,
                                              const poplar::DebugContext &debug) {
  if (a.rank() < 2 || a.dim(a.rank() - 1) != a.dim(a.rank() - 2) || a.elementType() != poplar::FLOAT)
    throw std::runtime_error("poplar-host: eig: a must be FLOAT [..., N, N]");
  std::size_t n = a.dim(a.rank() - 1), batches = a.numElements() / std::max<std::size_t>(n * n, 1);
  std::vector<std::size_t> valuesShape(a.shape().begin(), a.shape().end() - 1), vectorsShape = a.shape();
  valuesShape.push_back(2);
  vectorsShape.push_back(2);
  poplar::Tensor w = graph.addVariable(poplar::FLOAT, valuesShape, debug);
  poplar::Tensor v = graph.addVariable(poplar::FLOAT, vectorsShape, debug);
  prog.add(poplar::program::Program::compute(debug.name(), [a, w, v, n, batches] {
    std::vector<C> t(n * n), z;
    for (std::size_t b = 0; b < batches; ++b) {
      double norm = 0.0;
      for (std::size_t i = 0; i < n * n; ++i) t[i] = a.get(b * n * n + i), norm = std::max(norm, std::abs(t[i]));
      schur(t, z, n);
      std::vector<C> y(n);
      for (std::size_t k = 0; k < n; ++k) {
        C lambda = t[k * n + k];
        // t y = lambda y with y_k = 1, y_i = 0 below k: back substitution (a tiny divisor for a repeated eigenvalue)
        std::fill(y.begin(), y.end(), C(0.0));
        y[k] = 1.0;
        for (std::size_t i = k; i-- > 0;) {
          C s = 0.0;
          for (std::size_t j = i + 1; j <= k; ++j) s += t[i * n + j] * y[j];
          C divisor = t[i * n + i] - lambda;
          if (std::abs(divisor) < 1e-15 * norm) divisor = 1e-15 * std::max(norm, 1e-300);
          y[i] = -s / divisor;
        }
        std::vector<C> x(n, C(0.0));  // z y, of norm 1, its largest-modulus component real and positive
        double length = 0.0;
        std::size_t largest = 0;
        for (std::size_t i = 0; i < n; ++i) {
          for (std::size_t j = 0; j <= k; ++j) x[i] += z[i * n + j] * y[j];
          length += std::norm(x[i]);
          if (std::abs(x[i]) > std::abs(x[largest])) largest = i;
        }
        C scale = std::conj(x[largest]) / std::abs(x[largest]) / std::sqrt(length);
        for (std::size_t i = 0; i < n; ++i) {
          C e = x[i] * scale;
          v.set(((b * n + i) * n + k) * 2, e.real());
          v.set(((b * n + i) * n + k) * 2 + 1, i == largest ? 0.0 : e.imag());
        }
        w.set((b * n + k) * 2, lambda.real());
        w.set((b * n + k) * 2 + 1, lambda.imag());
      }
    }
  }));
  return {w, v};
}
} // namespace poplin

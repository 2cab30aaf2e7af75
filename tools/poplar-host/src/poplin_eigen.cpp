// Host implementation of the spectral functions of poplin/Decompositions.hpp: eigh (cyclic
// Jacobi), svd (one-sided Jacobi), pseudoInverse (by svd or eigh) and matrixExp (scaling and
// squaring of the Taylor series): plain loops in double, rounded once to the output type. It
// exists only to check ipu-mlir's emitted code; see ../README.md.
#include <poplin/Decompositions.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include "host_util.hpp"

namespace poplin {
namespace {
using poplar_host::error;

using poplar_host::batchesOf;

std::vector<std::size_t> batchShape(const poplar::Tensor &t, std::vector<std::size_t> tail) {
  std::vector<std::size_t> shape(t.shape().begin(), t.shape().end() - 2);
  shape.insert(shape.end(), tail.begin(), tail.end());
  return shape;
}

void requireFloatMatrix(const poplar::Tensor &t, const char *fn, bool square) {
  if (t.rank() < 2 || (square && t.dim(t.rank() - 1) != t.dim(t.rank() - 2)))
    throw error(std::string(fn) + ": a must be [..., " + (square ? "N, N" : "M, N") + "]");
  if (t.elementType() != poplar::FLOAT) throw error(std::string(fn) + ": a must be FLOAT");
}

using poplar_host::loadMatrix;
using poplar_host::storeMatrix;

// A rotation's tangent for the 2x2 problem with off-diagonal `off` and (q - p) diagonal difference.
double tangent(double diff, double off) {
  double theta = diff / (2.0 * off);
  if (std::fabs(theta) > 1e150) return 1.0 / (2.0 * theta);
  return (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
}

// Flips column j of the r x c matrix q (and of `also`, if given) so that its first
// largest-magnitude entry is positive.
void fixSign(std::vector<double> &q, std::size_t r, std::size_t c, std::size_t j, std::vector<double> *also, std::size_t alsoRows,
             std::size_t alsoCols) {
  std::size_t at = 0;
  for (std::size_t i = 1; i < r; ++i)
    if (std::fabs(q[i * c + j]) > std::fabs(q[at * c + j])) at = i;
  if (q[at * c + j] >= 0) return;
  for (std::size_t i = 0; i < r; ++i) q[i * c + j] = -q[i * c + j];
  if (also)
    for (std::size_t i = 0; i < alsoRows; ++i) (*also)[i * alsoCols + j] = -(*also)[i * alsoCols + j];
}

// Symmetric n x n (row-major, both triangles) -> ascending eigenvalues and eigenvectors (columns of v).
void jacobiEigen(std::vector<double> a, std::size_t n, std::vector<double> &w, std::vector<double> &v) {
  v.assign(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) v[i * n + i] = 1.0;
  double frob = 0.0;
  for (double x : a) frob += x * x;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0.0;
    for (std::size_t p = 0; p < n; ++p)
      for (std::size_t q = p + 1; q < n; ++q) off += a[p * n + q] * a[p * n + q];
    if (!(off > 1e-34 * frob)) break;  // converged (or NaN)
    for (std::size_t p = 0; p < n; ++p)
      for (std::size_t q = p + 1; q < n; ++q) {
        double apq = a[p * n + q];
        if (apq == 0.0) continue;
        double t = tangent(a[q * n + q] - a[p * n + p], apq), c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (std::size_t k = 0; k < n; ++k) {  // columns p, q
          double kp = a[k * n + p], kq = a[k * n + q];
          a[k * n + p] = c * kp - s * kq;
          a[k * n + q] = s * kp + c * kq;
        }
        for (std::size_t k = 0; k < n; ++k) {  // rows p, q
          double pk = a[p * n + k], qk = a[q * n + k];
          a[p * n + k] = c * pk - s * qk;
          a[q * n + k] = s * pk + c * qk;
        }
        for (std::size_t k = 0; k < n; ++k) {
          double kp = v[k * n + p], kq = v[k * n + q];
          v[k * n + p] = c * kp - s * kq;
          v[k * n + q] = s * kp + c * kq;
        }
      }
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return a[x * n + x] < a[y * n + y]; });
  w.resize(n);
  std::vector<double> sorted(n * n);
  for (std::size_t j = 0; j < n; ++j) {
    w[j] = a[order[j] * n + order[j]];
    for (std::size_t i = 0; i < n; ++i) sorted[i * n + j] = v[i * n + order[j]];
  }
  v = std::move(sorted);
  for (std::size_t j = 0; j < n; ++j) fixSign(v, n, n, j, nullptr, 0, 0);
}

// The lower (or upper) triangle of matrix m of a, mirrored into a full symmetric matrix.
std::vector<double> symmetric(const poplar::Tensor &a, std::size_t m, std::size_t n, bool lower) {
  std::vector<double> x = loadMatrix(a, m, n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      if (lower) x[i * n + j] = x[j * n + i];
      else x[j * n + i] = x[i * n + j];
    }
  return x;
}

// Completes the orthonormal columns `have[j]` of the r x c matrix q with unit vectors made
// orthogonal to them (modified Gram-Schmidt, twice), in the columns not had.
void complete(std::vector<double> &q, std::size_t r, std::size_t c, std::vector<bool> have) {
  std::size_t e = 0;
  for (std::size_t j = 0; j < c; ++j) {
    if (have[j]) continue;
    for (; e < r; ++e) {
      std::vector<double> x(r, 0.0);
      x[e] = 1.0;
      for (int pass = 0; pass < 2; ++pass)
        for (std::size_t o = 0; o < c; ++o) {
          if (!have[o]) continue;
          double d = 0.0;
          for (std::size_t i = 0; i < r; ++i) d += q[i * c + o] * x[i];
          for (std::size_t i = 0; i < r; ++i) x[i] -= d * q[i * c + o];
        }
      double norm = 0.0;
      for (double y : x) norm += y * y;
      norm = std::sqrt(norm);
      if (norm < 1e-6) continue;  // e was (nearly) in the span already
      for (std::size_t i = 0; i < r; ++i) q[i * c + j] = x[i] / norm;
      have[j] = true;
      ++e;
      break;
    }
    if (!have[j]) throw std::runtime_error("poplar-host: svd: cannot complete an orthonormal basis");
  }
}

// a (r x c row-major, r >= c) = U diag(s) V^T: U r x ucols (ucols = c or r), s c descending, V c x c.
void jacobiSvd(std::vector<double> w, std::size_t r, std::size_t c, std::size_t ucols, std::vector<double> &u, std::vector<double> &s,
               std::vector<double> &v) {
  v.assign(c * c, 0.0);
  for (std::size_t i = 0; i < c; ++i) v[i * c + i] = 1.0;
  for (int sweep = 0; sweep < 100; ++sweep) {
    bool rotated = false;
    for (std::size_t p = 0; p < c; ++p)
      for (std::size_t q = p + 1; q < c; ++q) {
        double alpha = 0.0, beta = 0.0, gamma = 0.0;
        for (std::size_t i = 0; i < r; ++i) {
          alpha += w[i * c + p] * w[i * c + p];
          beta += w[i * c + q] * w[i * c + q];
          gamma += w[i * c + p] * w[i * c + q];
        }
        if (!(std::fabs(gamma) > 1e-17 * std::sqrt(alpha * beta))) continue;
        rotated = true;
        double t = tangent(beta - alpha, gamma), cs = 1.0 / std::sqrt(t * t + 1.0), sn = t * cs;
        for (std::size_t i = 0; i < r; ++i) {
          double wp = w[i * c + p], wq = w[i * c + q];
          w[i * c + p] = cs * wp - sn * wq;
          w[i * c + q] = sn * wp + cs * wq;
        }
        for (std::size_t i = 0; i < c; ++i) {
          double vp = v[i * c + p], vq = v[i * c + q];
          v[i * c + p] = cs * vp - sn * vq;
          v[i * c + q] = sn * vp + cs * vq;
        }
      }
    if (!rotated) break;
  }
  std::vector<double> norms(c, 0.0);
  for (std::size_t j = 0; j < c; ++j) {
    for (std::size_t i = 0; i < r; ++i) norms[j] += w[i * c + j] * w[i * c + j];
    norms[j] = std::sqrt(norms[j]);
  }
  std::vector<std::size_t> order(c);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return norms[x] > norms[y]; });
  s.resize(c);
  u.assign(r * ucols, 0.0);
  std::vector<double> sortedV(c * c);
  std::vector<bool> have(ucols, false);
  double tiny = (norms.empty() ? 0.0 : norms[order[0]]) * 1e-13;
  for (std::size_t j = 0; j < c; ++j) {
    std::size_t from = order[j];
    s[j] = norms[from];
    for (std::size_t i = 0; i < c; ++i) sortedV[i * c + j] = v[i * c + from];
    if (s[j] > tiny && s[j] > 0.0) {
      for (std::size_t i = 0; i < r; ++i) u[i * ucols + j] = w[i * c + from] / s[j];
      have[j] = true;
    }
  }
  v = std::move(sortedV);
  complete(u, r, ucols, have);
  for (std::size_t j = 0; j < c; ++j) fixSign(u, r, ucols, j, &v, c, c);
}
} // namespace

std::pair<poplar::Tensor, poplar::Tensor> eigh(poplar::Graph &graph, const poplar::Tensor &a, bool lower, bool computeVectors,
                                               poplar::program::Sequence &prog, const poplar::DebugContext &debug) {
  requireFloatMatrix(a, "eigh", true);
  std::size_t n = a.dim(a.rank() - 1);
  poplar::Tensor w = graph.addVariable(a.elementType(), batchShape(a, {n}), debug);
  poplar::Tensor v = graph.addVariable(a.elementType(), computeVectors ? a.shape() : std::vector<std::size_t>{0}, debug);
  prog.add(poplar::program::Program::compute(debug.name(), [a, w, v, lower, computeVectors, n] {
    std::vector<double> values, vectors;
    for (std::size_t m = 0; m < batchesOf(a); ++m) {
      jacobiEigen(symmetric(a, m, n, lower), n, values, vectors);
      storeMatrix(w, m, values);
      if (computeVectors) storeMatrix(v, m, vectors);
    }
  }));
  return {w, v};
}

std::tuple<poplar::Tensor, poplar::Tensor, poplar::Tensor> svd(poplar::Graph &graph, const poplar::Tensor &a, bool fullMatrices,
                                                               bool computeUV, poplar::program::Sequence &prog,
                                                               const poplar::DebugContext &debug) {
  requireFloatMatrix(a, "svd", false);
  std::size_t m = a.dim(a.rank() - 2), n = a.dim(a.rank() - 1), k = std::min(m, n);
  std::size_t uc = fullMatrices ? m : k, vr = fullMatrices ? n : k;
  std::vector<std::size_t> empty{0};
  poplar::Tensor u = graph.addVariable(a.elementType(), computeUV ? batchShape(a, {m, uc}) : empty, debug);
  poplar::Tensor s = graph.addVariable(a.elementType(), batchShape(a, {k}), debug);
  poplar::Tensor vh = graph.addVariable(a.elementType(), computeUV ? batchShape(a, {vr, n}) : empty, debug);
  prog.add(poplar::program::Program::compute(debug.name(), [a, u, s, vh, computeUV, m, n, k, uc, vr] {
    std::vector<double> left, values, right;
    for (std::size_t b = 0; b < batchesOf(a); ++b) {
      std::vector<double> x = loadMatrix(a, b, m * n), uOut(m * uc), vhOut(vr * n);
      if (m >= n) {  // a = U S V^T: U m x uc, V n x n
        jacobiSvd(x, m, n, uc, left, values, right);
        uOut = left;
        for (std::size_t i = 0; i < vr; ++i)
          for (std::size_t j = 0; j < n; ++j) vhOut[i * n + j] = right[j * n + i];
      } else {  // a^T = U' S V'^T, a = V' S U'^T: U = V' (m x m), Vh = U'^T (vr x n)
        std::vector<double> t(n * m);
        for (std::size_t i = 0; i < m; ++i)
          for (std::size_t j = 0; j < n; ++j) t[j * m + i] = x[i * n + j];
        jacobiSvd(t, n, m, vr, left, values, right);
        uOut = right;
        for (std::size_t i = 0; i < vr; ++i)
          for (std::size_t j = 0; j < n; ++j) vhOut[i * n + j] = left[j * vr + i];
      }
      for (std::size_t i = 0; i < k; ++i) s.set(b * k + i, values[i]);
      if (computeUV) {
        storeMatrix(u, b, uOut);
        storeMatrix(vh, b, vhOut);
      }
    }
  }));
  return {u, s, vh};
}

poplar::Tensor pseudoInverse(poplar::Graph &graph, const poplar::Tensor &a, const poplar::Tensor &atol, const poplar::Tensor &rtol,
                             bool hermitian, poplar::program::Sequence &prog, const poplar::DebugContext &debug) {
  requireFloatMatrix(a, "pseudoInverse", hermitian);
  std::size_t m = a.dim(a.rank() - 2), n = a.dim(a.rank() - 1), k = std::min(m, n);
  if (atol.numElements() != batchesOf(a) || rtol.numElements() != batchesOf(a))
    throw error("pseudoInverse: atol and rtol must hold one value per matrix");
  poplar::Tensor out = graph.addVariable(a.elementType(), batchShape(a, {n, m}), debug);
  prog.add(poplar::program::Program::compute(debug.name(), [a, atol, rtol, out, hermitian, m, n, k] {
    for (std::size_t b = 0; b < batchesOf(a); ++b) {
      std::vector<double> p(n * m, 0.0), values, left, right;
      if (hermitian) {  // V diag(1 / w) V^T over |w| above the tolerance
        jacobiEigen(symmetric(a, b, n, true), n, values, right);
        double largest = 0.0;
        for (double x : values) largest = std::max(largest, std::fabs(x));
        double tol = std::max(atol.get(b), rtol.get(b) * largest);
        for (std::size_t j = 0; j < n; ++j)
          if (std::fabs(values[j]) > tol)
            for (std::size_t r = 0; r < n; ++r)
              for (std::size_t c = 0; c < n; ++c) p[r * n + c] += right[r * n + j] * right[c * n + j] / values[j];
      } else {  // a = U S V^T: a^+ = V diag(1 / s) U^T over s above the tolerance
        std::vector<double> x = loadMatrix(a, b, m * n);
        bool tall = m >= n;
        if (!tall) {
          std::vector<double> t(n * m);
          for (std::size_t i = 0; i < m; ++i)
            for (std::size_t j = 0; j < n; ++j) t[j * m + i] = x[i * n + j];
          x = std::move(t);
        }
        std::size_t r = tall ? m : n, c = tall ? n : m;  // x is r x c = U S V^T; a^+ = (V S^-1 U^T) or its transpose
        jacobiSvd(x, r, c, c, left, values, right);
        double tol = std::max(atol.get(b), rtol.get(b) * (k ? values[0] : 0.0));
        for (std::size_t j = 0; j < k; ++j) {
          if (!(values[j] > tol)) continue;
          for (std::size_t i = 0; i < c; ++i)
            for (std::size_t q = 0; q < r; ++q) {
              double term = right[i * c + j] * left[q * c + j] / values[j];  // (x^+)[i, q]
              if (tall) p[i * m + q] += term;   // a^+ = x^+ (n x m)
              else p[q * m + i] += term;        // a^+ = (x^+)^T
            }
        }
      }
      for (std::size_t i = 0; i < n * m; ++i) out.set(b * n * m + i, p[i]);
    }
  }));
  return out;
}

poplar::Tensor matrixExp(poplar::Graph &graph, const poplar::Tensor &a, poplar::program::Sequence &prog,
                         const poplar::DebugContext &debug) {
  requireFloatMatrix(a, "matrixExp", true);
  std::size_t n = a.dim(a.rank() - 1);
  poplar::Tensor out = graph.addVariable(a.elementType(), a.shape(), debug);
  prog.add(poplar::program::Program::compute(debug.name(), [a, out, n] {
    auto multiply = [n](const std::vector<double> &x, const std::vector<double> &y) {
      std::vector<double> z(n * n, 0.0);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = 0; k < n; ++k)
          for (std::size_t j = 0; j < n; ++j) z[i * n + j] += x[i * n + k] * y[k * n + j];
      return z;
    };
    for (std::size_t b = 0; b < batchesOf(a); ++b) {
      std::vector<double> x = loadMatrix(a, b, n * n);
      double norm = 0.0;  // the 1-norm: the largest column sum
      for (std::size_t j = 0; j < n; ++j) {
        double sum = 0.0;
        for (std::size_t i = 0; i < n; ++i) sum += std::fabs(x[i * n + j]);
        norm = std::max(norm, sum);
      }
      int squarings = std::isfinite(norm) && norm > 0.5 ? static_cast<int>(std::ceil(std::log2(norm / 0.5))) : 0;
      for (double &y : x) y = std::ldexp(y, -squarings);
      std::vector<double> sum(n * n, 0.0), term(n * n, 0.0);
      for (std::size_t i = 0; i < n; ++i) sum[i * n + i] = term[i * n + i] = 1.0;
      for (int k = 1; k <= 30; ++k) {  // ||x|| <= 1/2: the terms beyond 30 are below 1e-40
        term = multiply(term, x);
        for (std::size_t i = 0; i < n * n; ++i) sum[i] += (term[i] /= k);
      }
      for (int s = 0; s < squarings; ++s) sum = multiply(sum, sum);
      storeMatrix(out, b, sum);
    }
  }));
  return out;
}
} // namespace poplin

// Host implementation of the Householder QR family (geqrf, orgqr, ormqr, qr) and of the
// Bunch-Kaufman LDL^T factorisation and solve (sytf2 / sytrs, lower) of
// poplin/Decompositions.hpp: plain loops in double, rounded once to the output type. It
// exists only to check ipu-mlir's emitted code; see ../README.md.
#include <poplin/Decompositions.hpp>

#include <algorithm>
#include <cmath>
#include "host_util.hpp"

namespace poplin {
namespace {
using poplar_host::error;

using poplar_host::batchesOf;
std::size_t rows(const poplar::Tensor &t) { return t.dim(t.rank() - 2); }
std::size_t cols(const poplar::Tensor &t) { return t.dim(t.rank() - 1); }

std::vector<std::size_t> withMatrix(const poplar::Tensor &t, std::size_t r, std::size_t c) {
  std::vector<std::size_t> shape(t.shape().begin(), t.shape().end() - 2);
  shape.push_back(r);
  shape.push_back(c);
  return shape;
}

void requireMatrix(const poplar::Tensor &t, const char *fn, const char *what) {
  if (t.rank() < 2) throw error(std::string(fn) + ": " + what + " must be [..., M, N]");
  if (t.elementType() != poplar::FLOAT) throw error(std::string(fn) + ": " + what + " must be FLOAT");
}

// Matrix m of the flattened batch of t, as r x c doubles.
std::vector<double> load(const poplar::Tensor &t, std::size_t m, std::size_t r, std::size_t c) {
  std::vector<double> out(r * c);
  for (std::size_t i = 0; i < r * c; ++i) out[i] = t.get(m * r * c + i);
  return out;
}
using poplar_host::storeMatrix;

// LAPACK geqr2 (dlarfg's convention) on a row-major m x n matrix.
void householderQR(std::vector<double> &a, std::size_t m, std::size_t n, std::vector<double> &tau) {
  std::size_t k = std::min(m, n);
  tau.assign(k, 0.0);
  for (std::size_t j = 0; j < k; ++j) {
    double alpha = a[j * n + j], xnorm = 0.0;
    for (std::size_t i = j + 1; i < m; ++i) xnorm += a[i * n + j] * a[i * n + j];
    xnorm = std::sqrt(xnorm);
    if (xnorm == 0.0) continue;  // H = I: tau 0, the diagonal entry kept
    double beta = -std::copysign(std::hypot(alpha, xnorm), alpha);
    tau[j] = (beta - alpha) / beta;
    for (std::size_t i = j + 1; i < m; ++i) a[i * n + j] /= alpha - beta;
    a[j * n + j] = beta;
    for (std::size_t c = j + 1; c < n; ++c) {  // a[j:, c] -= tau v (v^T a[j:, c])
      double w = a[j * n + c];
      for (std::size_t i = j + 1; i < m; ++i) w += a[i * n + j] * a[i * n + c];
      w *= tau[j];
      a[j * n + c] -= w;
      for (std::size_t i = j + 1; i < m; ++i) a[i * n + c] -= a[i * n + j] * w;
    }
  }
}

// Reflector i of v (r x vc, row-major; v_i = e_i + v[i+1:, i]) applied to the r-vector x
// (x[p] = data[p * stride + offset]): x -= tau v (v^T x).
void reflect(const std::vector<double> &v, std::size_t r, std::size_t vc, std::size_t i, double tau, std::vector<double> &data,
             std::size_t stride, std::size_t offset) {
  if (tau == 0.0) return;
  double w = data[i * stride + offset];
  for (std::size_t p = i + 1; p < r; ++p) w += v[p * vc + i] * data[p * stride + offset];
  w *= tau;
  data[i * stride + offset] -= w;
  for (std::size_t p = i + 1; p < r; ++p) data[p * stride + offset] -= v[p * vc + i] * w;
}

// The first `width` columns of H_1 ... H_k (r x width), v r x vc.
std::vector<double> orgqr(const std::vector<double> &v, std::size_t r, std::size_t vc, const double *tau, std::size_t k,
                          std::size_t width) {
  std::vector<double> q(r * width, 0.0);
  for (std::size_t i = 0; i < std::min(r, width); ++i) q[i * width + i] = 1.0;
  for (std::size_t i = k; i-- > 0;)
    for (std::size_t c = 0; c < width; ++c) reflect(v, r, vc, i, tau[i], q, width, c);
  return q;
}
} // namespace

std::pair<poplar::Tensor, poplar::Tensor> geqrf(poplar::Graph &graph, const poplar::Tensor &a, poplar::program::Sequence &prog,
                                                const poplar::DebugContext &debug) {
  requireMatrix(a, "geqrf", "a");
  std::size_t m = rows(a), n = cols(a), k = std::min(m, n);
  poplar::Tensor out = graph.addVariable(a.elementType(), a.shape(), debug);
  std::vector<std::size_t> tauShape(a.shape().begin(), a.shape().end() - 2);
  tauShape.push_back(k);
  poplar::Tensor tau = graph.addVariable(a.elementType(), tauShape, debug);
  prog.add(poplar::program::Program::compute(debug.name(), [a, out, tau, m, n, k] {
    std::vector<double> t;
    for (std::size_t b = 0; b < batchesOf(a); ++b) {
      std::vector<double> x = load(a, b, m, n);
      householderQR(x, m, n, t);
      storeMatrix(out, b, x);
      for (std::size_t i = 0; i < k; ++i) tau.set(b * k + i, t[i]);
    }
  }));
  return {out, tau};
}

poplar::Tensor householderProduct(poplar::Graph &graph, const poplar::Tensor &reflectors, const poplar::Tensor &tau,
                                  poplar::program::Sequence &prog, const poplar::DebugContext &debug) {
  requireMatrix(reflectors, "householderProduct", "reflectors");
  std::size_t m = rows(reflectors), n = cols(reflectors), k = tau.rank() ? tau.dim(tau.rank() - 1) : 0;
  if (m < n || k > n || tau.numElements() != batchesOf(reflectors) * k)
    throw error("householderProduct: reflectors [..., M, N] with M >= N and tau [..., K], K <= N");
  poplar::Tensor out = graph.addVariable(reflectors.elementType(), reflectors.shape(), debug);
  prog.add(poplar::program::Program::compute(debug.name(), [reflectors, tau, out, m, n, k] {
    for (std::size_t b = 0; b < batchesOf(reflectors); ++b) {
      std::vector<double> v = load(reflectors, b, m, n), t(k);
      for (std::size_t i = 0; i < k; ++i) t[i] = tau.get(b * k + i);
      storeMatrix(out, b, orgqr(v, m, n, t.data(), k, n));
    }
  }));
  return out;
}

poplar::Tensor ormqr(poplar::Graph &graph, const poplar::Tensor &reflectors, const poplar::Tensor &tau, const poplar::Tensor &c,
                     bool leftSide, bool transpose, poplar::program::Sequence &prog, const poplar::DebugContext &debug) {
  requireMatrix(reflectors, "ormqr", "reflectors");
  requireMatrix(c, "ormqr", "c");
  std::size_t r = rows(reflectors), vc = cols(reflectors), k = tau.rank() ? tau.dim(tau.rank() - 1) : 0;
  std::size_t cr = rows(c), cc = cols(c);
  if ((leftSide ? cr : cc) != r || k > vc || batchesOf(c) != batchesOf(reflectors) || tau.numElements() != batchesOf(c) * k)
    throw error("ormqr: reflectors [..., R, >= K], tau [..., K] and c with R rows (leftSide) or columns, of one batch");
  poplar::Tensor out = graph.addVariable(c.elementType(), c.shape(), debug);
  prog.add(poplar::program::Program::compute(debug.name(), [reflectors, tau, c, out, leftSide, transpose, r, vc, k, cr, cc] {
    for (std::size_t b = 0; b < batchesOf(c); ++b) {
      std::vector<double> v = load(reflectors, b, r, vc), x = load(c, b, cr, cc), t(k);
      for (std::size_t i = 0; i < k; ++i) t[i] = tau.get(b * k + i);
      // Q c = H_1 (... (H_k c)); Q^T c = H_k (... (H_1 c)); c Q = ((c H_1) ...) H_k; c Q^T = ((c H_k) ...) H_1
      bool firstToLast = leftSide == transpose;
      for (std::size_t step = 0; step < k; ++step) {
        std::size_t i = firstToLast ? step : k - 1 - step;
        if (leftSide)
          for (std::size_t col = 0; col < cc; ++col) reflect(v, r, vc, i, t[i], x, cc, col);
        else
          for (std::size_t row = 0; row < cr; ++row) reflect(v, r, vc, i, t[i], x, 1, row * cc);
      }
      storeMatrix(out, b, x);
    }
  }));
  return out;
}

std::pair<poplar::Tensor, poplar::Tensor> qr(poplar::Graph &graph, const poplar::Tensor &a, QRMode mode,
                                             poplar::program::Sequence &prog, const poplar::DebugContext &debug) {
  requireMatrix(a, "qr", "a");
  std::size_t m = rows(a), n = cols(a), k = std::min(m, n);
  std::size_t qc = mode == QRMode::COMPLETE ? m : k, rr = mode == QRMode::COMPLETE ? m : k;
  poplar::Tensor q = mode == QRMode::R_ONLY ? graph.addVariable(a.elementType(), {0}, debug)
                                            : graph.addVariable(a.elementType(), withMatrix(a, m, qc), debug);
  poplar::Tensor r = graph.addVariable(a.elementType(), withMatrix(a, rr, n), debug);
  prog.add(poplar::program::Program::compute(debug.name(), [a, q, r, mode, m, n, k, qc, rr] {
    std::vector<double> t;
    for (std::size_t b = 0; b < batchesOf(a); ++b) {
      std::vector<double> x = load(a, b, m, n), upper(rr * n, 0.0);
      householderQR(x, m, n, t);
      for (std::size_t i = 0; i < std::min(rr, m); ++i)
        for (std::size_t j = i; j < n; ++j) upper[i * n + j] = x[i * n + j];
      storeMatrix(r, b, upper);
      if (mode != QRMode::R_ONLY) storeMatrix(q, b, orgqr(x, m, n, t.data(), k, qc));
    }
  }));
  return {q, r};
}

// ---- LDL^T (Bunch-Kaufman) -------------------------------------------------------------

namespace {
// LAPACK dsytf2 with uplo 'L' on a row-major n x n matrix (the lower triangle read and
// written); ipiv 1-based as LAPACK's. Returns info.
int sytf2Lower(std::vector<double> &a, std::size_t n, std::vector<int> &ipiv) {
  auto A = [&](std::size_t i, std::size_t j) -> double & { return a[i * n + j]; };
  const double alpha = (1.0 + std::sqrt(17.0)) / 8.0;
  int info = 0;
  ipiv.assign(n, 0);
  std::size_t k = 0;
  while (k < n) {
    std::size_t kstep = 1, kp = k, imax = k;
    double absakk = std::fabs(A(k, k)), colmax = 0.0;
    if (k + 1 < n) {  // the first largest below the diagonal (idamax)
      imax = k + 1, colmax = std::fabs(A(k + 1, k));
      for (std::size_t i = k + 2; i < n; ++i)
        if (std::fabs(A(i, k)) > colmax) colmax = std::fabs(A(i, k)), imax = i;
    }
    if (std::max(absakk, colmax) == 0.0 || std::isnan(absakk)) {
      if (info == 0) info = static_cast<int>(k) + 1;
      kp = k;
    } else {
      if (absakk >= alpha * colmax) {
        kp = k;
      } else {
        double rowmax = 0.0;  // the largest off-diagonal magnitude in row / column imax
        for (std::size_t j = k; j < imax; ++j) rowmax = std::max(rowmax, std::fabs(A(imax, j)));
        for (std::size_t j = imax + 1; j < n; ++j) rowmax = std::max(rowmax, std::fabs(A(j, imax)));
        if (absakk >= alpha * colmax * (colmax / rowmax)) kp = k;
        else if (std::fabs(A(imax, imax)) >= alpha * rowmax) kp = imax;
        else kp = imax, kstep = 2;
      }
      std::size_t kk = k + kstep - 1;
      if (kp != kk) {  // swap rows and columns kk and kp of the trailing matrix
        for (std::size_t i = kp + 1; i < n; ++i) std::swap(A(i, kk), A(i, kp));
        for (std::size_t j = kk + 1; j < kp; ++j) std::swap(A(j, kk), A(kp, j));
        std::swap(A(kk, kk), A(kp, kp));
        if (kstep == 2) std::swap(A(k + 1, k), A(kp, k));
      }
      if (kstep == 1) {
        if (k + 1 < n) {
          double d11 = 1.0 / A(k, k);
          for (std::size_t j = k + 1; j < n; ++j)
            for (std::size_t i = j; i < n; ++i) A(i, j) -= d11 * A(i, k) * A(j, k);
          for (std::size_t i = k + 1; i < n; ++i) A(i, k) *= d11;
        }
      } else if (k + 2 < n) {
        double d21 = A(k + 1, k), d11 = A(k + 1, k + 1) / d21, d22 = A(k, k) / d21;
        double t = 1.0 / (d11 * d22 - 1.0);
        d21 = t / d21;
        for (std::size_t j = k + 2; j < n; ++j) {
          double wk = d21 * (d11 * A(j, k) - A(j, k + 1)), wkp1 = d21 * (d22 * A(j, k + 1) - A(j, k));
          for (std::size_t i = j; i < n; ++i) A(i, j) -= A(i, k) * wk + A(i, k + 1) * wkp1;
          A(j, k) = wk;
          A(j, k + 1) = wkp1;
        }
      }
    }
    int p = static_cast<int>(kp) + 1;
    if (kstep == 1) ipiv[k] = p;
    else ipiv[k] = ipiv[k + 1] = -p;
    k += kstep;
  }
  return info;
}
} // namespace

std::tuple<poplar::Tensor, poplar::Tensor, poplar::Tensor> ldlFactor(poplar::Graph &graph, const poplar::Tensor &a, bool,
                                                                     poplar::program::Sequence &prog,
                                                                     const poplar::DebugContext &debug) {
  requireMatrix(a, "ldlFactor", "a");
  std::size_t n = cols(a);
  if (rows(a) != n) throw error("ldlFactor: a must be [..., N, N]");
  poplar::Tensor ld = graph.addVariable(a.elementType(), a.shape(), debug);
  std::vector<std::size_t> batch(a.shape().begin(), a.shape().end() - 2), pivShape = batch;
  pivShape.push_back(n);
  poplar::Tensor pivots = graph.addVariable(poplar::INT, pivShape, debug);
  poplar::Tensor info = graph.addVariable(poplar::INT, batch, debug);
  prog.add(poplar::program::Program::compute(debug.name(), [a, ld, pivots, info, n] {
    std::vector<int> ipiv;
    for (std::size_t b = 0; b < batchesOf(a); ++b) {
      std::vector<double> x = load(a, b, n, n);
      info.set(b, sytf2Lower(x, n, ipiv));
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) x[i * n + j] = 0.0;
      storeMatrix(ld, b, x);
      for (std::size_t i = 0; i < n; ++i) pivots.set(b * n + i, ipiv[i]);
    }
  }));
  return {ld, pivots, info};
}

poplar::Tensor ldlSolve(poplar::Graph &graph, const poplar::Tensor &ld, const poplar::Tensor &pivots, const poplar::Tensor &b,
                        bool, poplar::program::Sequence &prog, const poplar::DebugContext &debug) {
  requireMatrix(ld, "ldlSolve", "ld");
  requireMatrix(b, "ldlSolve", "b");
  std::size_t n = cols(ld), k = cols(b);
  if (rows(ld) != n || rows(b) != n || batchesOf(b) != batchesOf(ld) || pivots.numElements() != batchesOf(ld) * n)
    throw error("ldlSolve: ld [..., N, N], pivots [..., N] and b [..., N, K] of one batch");
  poplar::Tensor out = graph.addVariable(b.elementType(), b.shape(), debug);
  prog.add(poplar::program::Program::compute(debug.name(), [ld, pivots, b, out, n, k] {
    for (std::size_t m = 0; m < batchesOf(ld); ++m) {
      std::vector<double> a = load(ld, m, n, n), x = load(b, m, n, k);
      auto A = [&](std::size_t i, std::size_t j) { return a[i * n + j]; };
      auto piv = [&](std::size_t i) { return static_cast<long>(pivots.get(m * n + i)); };
      auto swapRows = [&](std::size_t p, std::size_t q) {
        if (p != q) for (std::size_t c = 0; c < k; ++c) std::swap(x[p * k + c], x[q * k + c]);
      };
      // L D y = P b (LAPACK dsytrs 'L', forward)
      for (std::size_t i = 0; i < n;) {
        if (piv(i) > 0) {
          swapRows(i, static_cast<std::size_t>(piv(i) - 1));
          for (std::size_t r = i + 1; r < n; ++r)
            for (std::size_t c = 0; c < k; ++c) x[r * k + c] -= A(r, i) * x[i * k + c];
          for (std::size_t c = 0; c < k; ++c) x[i * k + c] /= A(i, i);
          i += 1;
        } else {
          if (i + 1 >= n) throw std::runtime_error("poplar-host: ldlSolve: a 2x2 pivot block at the last row");
          swapRows(i + 1, static_cast<std::size_t>(-piv(i + 1) - 1));
          for (std::size_t r = i + 2; r < n; ++r)
            for (std::size_t c = 0; c < k; ++c) x[r * k + c] -= A(r, i) * x[i * k + c] + A(r, i + 1) * x[(i + 1) * k + c];
          double akm1k = A(i + 1, i), akm1 = A(i, i) / akm1k, ak = A(i + 1, i + 1) / akm1k, denom = akm1 * ak - 1.0;
          for (std::size_t c = 0; c < k; ++c) {
            double bkm1 = x[i * k + c] / akm1k, bk = x[(i + 1) * k + c] / akm1k;
            x[i * k + c] = (ak * bkm1 - bk) / denom;
            x[(i + 1) * k + c] = (akm1 * bk - bkm1) / denom;
          }
          i += 2;
        }
      }
      // L^T P^T x = y (backward)
      for (std::size_t i = n; i-- > 0;) {
        bool block = piv(i) < 0;
        for (std::size_t row : {i, i - 1}) {
          for (std::size_t c = 0; c < k; ++c) {
            double s = 0.0;
            for (std::size_t r = i + 1; r < n; ++r) s += A(r, row) * x[r * k + c];
            x[row * k + c] -= s;
          }
          if (!block) break;
        }
        swapRows(i, static_cast<std::size_t>((block ? -piv(i) : piv(i)) - 1));
        if (block) --i;
      }
      storeMatrix(out, m, x);
    }
  }));
  return out;
}
} // namespace poplin

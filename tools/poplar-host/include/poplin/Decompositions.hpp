// Host implementation of the matrix decompositions ipu-mlir emits (see poplar/HostCore.hpp).
// Checks our emitted code only.
//
// PopLibs has no such functions (it has poplin::experimental::QRFactorization, with another
// signature and no Householder form): these are ipu-mlir's own, in PopLibs' style, named
// after the LAPACK routines whose results they give (eager PyTorch calls LAPACK). A program
// built against the Poplar SDK needs an implementation of this header. Every function works
// on the last two dims and repeats over the leading (batch) dims; FLOAT elements, computed
// in double with plain loops and rounded once.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

#include <tuple>
#include <utility>

namespace poplin {
// QR in Householder form (LAPACK geqrf) of a [..., M, N]: {a, tau}. a holds R on and above
// the diagonal and the reflectors v_i below it (v_i's leading 1 not stored); tau [..., K],
// K = min(M, N). H_i = I - tau_i v_i v_i^T with LAPACK's sign convention: R's diagonal
// entry is -sign(a_ii) * the column's norm (tau 0 and the entry kept when the column
// below the diagonal is zero).
std::pair<poplar::Tensor, poplar::Tensor> geqrf(poplar::Graph &graph, const poplar::Tensor &a, poplar::program::Sequence &prog,
                                                const poplar::DebugContext &debug = {});

// The first N columns of H_1 ... H_K (LAPACK orgqr) from reflectors [..., M, N] (M >= N)
// and tau [..., K], K <= N.
poplar::Tensor householderProduct(poplar::Graph &graph, const poplar::Tensor &reflectors, const poplar::Tensor &tau,
                                  poplar::program::Sequence &prog, const poplar::DebugContext &debug = {});

// op(Q) c (leftSide) or c op(Q) (LAPACK ormqr), Q = H_1 ... H_K from reflectors [..., R, >= K]
// and tau [..., K]; op(Q) = Q^T when transpose. R is c's rows (leftSide) or columns.
poplar::Tensor ormqr(poplar::Graph &graph, const poplar::Tensor &reflectors, const poplar::Tensor &tau, const poplar::Tensor &c,
                     bool leftSide, bool transpose, poplar::program::Sequence &prog, const poplar::DebugContext &debug = {});

enum class QRMode { REDUCED, COMPLETE, R_ONLY };
// a = Q R from geqrf and orgqr: REDUCED gives Q [..., M, K] and R [..., K, N]; COMPLETE
// Q [..., M, M] and R [..., M, N]; R_ONLY R [..., K, N] and an empty Q of shape [0].
std::pair<poplar::Tensor, poplar::Tensor> qr(poplar::Graph &graph, const poplar::Tensor &a, QRMode mode,
                                             poplar::program::Sequence &prog, const poplar::DebugContext &debug = {});

// Eigenvalues (ascending) and eigenvectors (columns) of symmetric [..., N, N] matrices,
// reading only the lower (or upper) triangle; cyclic Jacobi rotations to convergence in
// double. An eigenvector is unique up to its sign (for a simple eigenvalue): the host
// library makes each one's largest-magnitude entry positive, which is not LAPACK's choice.
// Without computeVectors the vectors are an empty [0] tensor.
std::pair<poplar::Tensor, poplar::Tensor> eigh(poplar::Graph &graph, const poplar::Tensor &a, bool lower, bool computeVectors,
                                               poplar::program::Sequence &prog, const poplar::DebugContext &debug = {});

// a = U diag(S) Vh of [..., M, N] (K = min(M, N)); S [..., K] descending; one-sided Jacobi
// in double. fullMatrices: U [..., M, M], Vh [..., N, N] (the columns beyond the rank
// complete an orthonormal basis); else U [..., M, K], Vh [..., K, N]. A singular pair (a
// column of U and a row of Vh) is unique up to a sign it shares: the host library makes the
// largest-magnitude entry of the taller matrix's vector positive, which is not LAPACK's
// choice. Without computeUV, U and Vh are empty [0] tensors.
std::tuple<poplar::Tensor, poplar::Tensor, poplar::Tensor> svd(poplar::Graph &graph, const poplar::Tensor &a, bool fullMatrices,
                                                               bool computeUV, poplar::program::Sequence &prog,
                                                               const poplar::DebugContext &debug = {});

// Eigenvalues and eigenvectors (columns) of general real [..., N, N] matrices (LAPACK geev's
// results up to order and phase), as complex numbers in a trailing dim of 2 (real,
// imaginary): w [..., N, 2], v [..., N, N, 2], a v = v diag(w). Each eigenvector has norm 1
// and its largest-modulus component real and positive; the eigenvalues come in the order the
// host library's QR iteration finds them, which is not LAPACK's. Complex Schur form by
// Hessenberg reduction and single-shift QR in complex double.
std::pair<poplar::Tensor, poplar::Tensor> eig(poplar::Graph &graph, const poplar::Tensor &a, poplar::program::Sequence &prog,
                                              const poplar::DebugContext &debug = {});

// The Moore-Penrose pseudo-inverse [..., N, M] of [..., M, N]: V diag(1/s) U^T over the
// singular values s > max(atol, rtol * s_max) (atol, rtol [B], one per matrix of the
// flattened batch). hermitian: by eigh of the lower triangle, over |w| > max(atol, rtol * max |w|).
poplar::Tensor pseudoInverse(poplar::Graph &graph, const poplar::Tensor &a, const poplar::Tensor &atol, const poplar::Tensor &rtol,
                             bool hermitian, poplar::program::Sequence &prog, const poplar::DebugContext &debug = {});

// exp(a) of [..., N, N]: scaling and squaring of the Taylor series (to double precision).
poplar::Tensor matrixExp(poplar::Graph &graph, const poplar::Tensor &a, poplar::program::Sequence &prog,
                         const poplar::DebugContext &debug = {});

// Bunch-Kaufman L D L^T of symmetric [..., N, N] from its lower triangle (LAPACK sytrf
// 'L', its unblocked sytf2): {ld, pivots [..., N] INT (1-based, negative for a 2x2 block),
// info [...] INT (0, or the 1-based index of a zero diagonal block)}; ld's strict upper
// triangle is zero, as torch.linalg.ldl_factor gives it. hermitian is the same for real
// matrices.
std::tuple<poplar::Tensor, poplar::Tensor, poplar::Tensor> ldlFactor(poplar::Graph &graph, const poplar::Tensor &a, bool hermitian,
                                                                     poplar::program::Sequence &prog,
                                                                     const poplar::DebugContext &debug = {});

// x with A x = b from ldlFactor's ld [..., N, N] and pivots [..., N] (LAPACK sytrs 'L');
// b [..., N, K]; the batch dims are equal.
poplar::Tensor ldlSolve(poplar::Graph &graph, const poplar::Tensor &ld, const poplar::Tensor &pivots, const poplar::Tensor &b,
                        bool hermitian, poplar::program::Sequence &prog, const poplar::DebugContext &debug = {});
} // namespace poplin

"""Linear algebra kernels against torch: each poplin_linalg / poplin_linalg_solve op gives
what the torch.linalg function eager calls gives (bit for bit), info codes included, with
integer results in the op's result element type."""

from __future__ import annotations

import torch

EXACT = {"rtol": 0, "atol": 0}
_G = torch.Generator().manual_seed(0)
A = torch.randn(2, 3, 3, generator=_G)
SPD = A @ A.mT + 3 * torch.eye(3)
TALL = torch.randn(4, 3, generator=_G)
B = torch.randn(2, 3, 2, generator=_G)


def _same(got: tuple | torch.Tensor, want: tuple | torch.Tensor) -> None:
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        torch.testing.assert_close(g, w, **EXACT, equal_nan=True)


def test_cholesky_gives_the_factor_and_info_codes(kernel_of) -> None:  # noqa: ANN001
    kernel = kernel_of("%a: tensor<2x3x3xf32>", '%0:2 = "poplar.poplin_cholesky"(%a) {upper = true}'
                       " : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2xi32>)")
    _same(kernel(SPD), tuple(torch.linalg.cholesky_ex(SPD, upper=True)))
    not_positive = SPD.clone()
    not_positive[1] = -not_positive[1]
    factor, info = kernel(not_positive)
    assert info.tolist() == [0, 1]  # a code, as eager's *_ex, never an exception


def test_lu_factor_then_unpack_rebuilds_the_matrix(kernel_of) -> None:  # noqa: ANN001
    factor = kernel_of("%a: tensor<2x3x3xf32>", '%0:3 = "poplar.poplin_lu_factor"(%a) {pivot = true}'
                       " : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2x3xi32>, tensor<2xi32>)")
    unpack = kernel_of("%lu: tensor<2x3x3xf32>, %p: tensor<2x3xi32>",
                       '%0:3 = "poplar.poplin_lu_unpack"(%lu, %p) {unpack_data = true, unpack_pivots = true}'
                       " : (tensor<2x3x3xf32>, tensor<2x3xi32>) -> (tensor<2x3x3xf32>, tensor<2x3x3xf32>, tensor<2x3x3xf32>)")
    lu, pivots, info = factor(A)
    _same((lu, pivots, info), tuple(torch.linalg.lu_factor_ex(A)))
    p, l, u = unpack(lu, pivots)
    _same((p, l, u), tuple(torch.linalg.lu(A)))
    torch.testing.assert_close(p @ l @ u, A)
    singular = torch.zeros(2, 3, 3)
    assert factor(singular)[2].tolist() == [1, 1]


def test_solves_match_eager(kernel_of) -> None:  # noqa: ANN001
    upper = torch.triu(A) + 3 * torch.eye(3)
    triangular = kernel_of("%a: tensor<2x3x3xf32>, %b: tensor<2x3x2xf32>",
                           '%0 = "poplar.poplin_triangular_solve"(%a, %b) {upper = true, left = true, unitriangular = false}'
                           " : (tensor<2x3x3xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>")
    _same(triangular(upper, B), torch.linalg.solve_triangular(upper, B, upper=True))
    solve = kernel_of("%a: tensor<2x3x3xf32>, %b: tensor<2x3xf32>",
                      '%0:4 = "poplar.poplin_solve"(%a, %b) {left = true} : (tensor<2x3x3xf32>, tensor<2x3xf32>)'
                      " -> (tensor<2x3xf32>, tensor<2x3x3xf32>, tensor<2x3xi32>, tensor<2xi32>)")
    vector = B[..., 0]
    _same(solve(A, vector), tuple(torch.ops.aten._linalg_solve_ex(A, vector)))
    inverse = kernel_of("%a: tensor<2x3x3xf32>", '%0:2 = "poplar.poplin_inverse"(%a)'
                        " : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2xi32>)")
    _same(inverse(A), tuple(torch.linalg.inv_ex(A)))
    lu_solve = kernel_of("%lu: tensor<2x3x3xf32>, %p: tensor<2x3xi32>, %b: tensor<2x3x2xf32>",
                         '%0 = "poplar.poplin_lu_solve"(%lu, %p, %b) {left = true, adjoint = true}'
                         " : (tensor<2x3x3xf32>, tensor<2x3xi32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>")
    lu, pivots = torch.linalg.lu_factor(A)
    _same(lu_solve(lu, pivots, B), torch.linalg.lu_solve(lu, pivots, B, adjoint=True))


def test_determinants_match_eager(kernel_of) -> None:  # noqa: ANN001
    det = kernel_of("%a: tensor<2x3x3xf32>", '%0:3 = "poplar.poplin_determinant"(%a)'
                    " : (tensor<2x3x3xf32>) -> (tensor<2xf32>, tensor<2x3x3xf32>, tensor<2x3xi32>)")
    _same(det(A)[0], torch.linalg.det(A))
    slogdet = kernel_of("%a: tensor<2x3x3xf32>", '%0:4 = "poplar.poplin_sign_log_determinant"(%a)'
                        " : (tensor<2x3x3xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2x3x3xf32>, tensor<2x3xi32>)")
    _same(slogdet(A)[:2], tuple(torch.linalg.slogdet(A)))


def test_decompositions_match_eager(kernel_of) -> None:  # noqa: ANN001
    svd = kernel_of("%a: tensor<4x3xf32>", '%0:3 = "poplar.poplin_svd"(%a) {full_matrices = false, compute_uv = true}'
                    " : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3x3xf32>)")
    _same(svd(TALL), tuple(torch.linalg.svd(TALL, full_matrices=False)))
    qr = kernel_of("%a: tensor<4x3xf32>", '%0:2 = "poplar.poplin_qr"(%a) {mode = "complete"}'
                   " : (tensor<4x3xf32>) -> (tensor<4x4xf32>, tensor<4x3xf32>)")
    _same(qr(TALL), tuple(torch.linalg.qr(TALL, mode="complete")))
    eigh = kernel_of("%a: tensor<2x3x3xf32>", '%0:2 = "poplar.poplin_eigh"(%a) {uplo = "U", compute_v = true}'
                     " : (tensor<2x3x3xf32>) -> (tensor<2x3xf32>, tensor<2x3x3xf32>)")
    _same(eigh(SPD), tuple(torch.linalg.eigh(SPD, UPLO="U")))
    eig = kernel_of("%a: tensor<2x3x3xf32>", '%0:2 = "poplar.poplin_eig"(%a)'
                    " : (tensor<2x3x3xf32>) -> (tensor<2x3xcomplex<f32>>, tensor<2x3x3xcomplex<f32>>)")
    _same(eig(A), tuple(torch.linalg.eig(A)))


def test_householder_and_cholesky_helpers_match_eager(kernel_of) -> None:  # noqa: ANN001
    geqrf = kernel_of("%a: tensor<4x3xf32>", '%0:2 = "poplar.poplin_geqrf"(%a) : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>)')
    reflectors, tau = geqrf(TALL)
    _same((reflectors, tau), tuple(torch.geqrf(TALL)))
    product = kernel_of("%a: tensor<4x3xf32>, %t: tensor<3xf32>", '%0 = "poplar.poplin_householder_product"(%a, %t)'
                        " : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>")
    _same(product(reflectors, tau), torch.linalg.householder_product(reflectors, tau))
    factor = torch.linalg.cholesky(SPD)
    inverse = kernel_of("%l: tensor<2x3x3xf32>", '%0 = "poplar.poplin_cholesky_inverse"(%l) {upper = false}'
                        " : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>")
    _same(inverse(factor), torch.cholesky_inverse(factor))
    pinv = kernel_of("%a: tensor<4x3xf32>, %at: tensor<f32>, %rt: tensor<f32>",
                     '%0 = "poplar.poplin_pseudo_inverse"(%a, %at, %rt) {hermitian = false}'
                     " : (tensor<4x3xf32>, tensor<f32>, tensor<f32>) -> tensor<3x4xf32>")
    _same(pinv(TALL, torch.tensor(0.0), torch.tensor(0.1)), torch.linalg.pinv(TALL, atol=0.0, rtol=0.1))

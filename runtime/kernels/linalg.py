"""Linear algebra kernels (``poplin_linalg`` and ``poplin_linalg_solve``): each op calls the
ATen function eager ``torch.linalg`` calls, with the op's attributes, so factors, solves and
``info`` codes are eager's (``info`` is returned, never raised on: eager's error check is
not part of a compiled program). Integer results (``pivots``, ``info``) take the op's
result element type."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch_mlir import ir

from .base import KERNELS, Kernel, attr, tensor_type

aten = torch.ops.aten


def _typed(op: ir.Operation, fn: Callable[..., tuple[torch.Tensor, ...]]) -> Kernel:
    """``fn``'s results converted to the op's result dtypes where they differ."""
    dtypes = [tensor_type(result)[1] for result in op.results]

    def call(*args: torch.Tensor) -> tuple[torch.Tensor, ...]:
        outs = fn(*args)
        return tuple(o if o.dtype == d else o.to(d) for o, d in zip(outs, dtypes, strict=True))

    return call


@KERNELS.register("poplar.poplin_cholesky")
def _cholesky(op: ir.Operation) -> Kernel:
    upper = attr(op, "upper")
    return _typed(op, lambda a: aten.linalg_cholesky_ex(a, upper=upper))


@KERNELS.register("poplar.poplin_lu_factor")
def _lu_factor(op: ir.Operation) -> Kernel:
    return _typed(op, lambda a: aten.linalg_lu_factor_ex(a))


@KERNELS.register("poplar.poplin_lu_unpack")
def _lu_unpack(op: ir.Operation) -> Kernel:
    data, pivots = attr(op, "unpack_data"), attr(op, "unpack_pivots")
    return _typed(op, lambda lu, piv: aten.lu_unpack(lu, piv.to(torch.int32), data, pivots))


@KERNELS.register("poplar.poplin_qr")
def _qr(op: ir.Operation) -> Kernel:
    mode = attr(op, "mode")
    return _typed(op, lambda a: aten.linalg_qr(a, mode))


@KERNELS.register("poplar.poplin_geqrf")
def _geqrf(op: ir.Operation) -> Kernel:
    return _typed(op, lambda a: aten.geqrf(a))


@KERNELS.register("poplar.poplin_householder_product")
def _householder_product(op: ir.Operation) -> Kernel:
    return lambda a, tau: aten.linalg_householder_product(a, tau)


@KERNELS.register("poplar.poplin_ldl_factor")
def _ldl_factor(op: ir.Operation) -> Kernel:
    hermitian = attr(op, "hermitian")
    return _typed(op, lambda a: aten.linalg_ldl_factor_ex(a, hermitian=hermitian))


@KERNELS.register("poplar.poplin_svd")
def _svd(op: ir.Operation) -> Kernel:
    full, uv = attr(op, "full_matrices"), attr(op, "compute_uv")
    return _typed(op, lambda a: aten._linalg_svd(a, full, uv))


@KERNELS.register("poplar.poplin_eigh")
def _eigh(op: ir.Operation) -> Kernel:
    uplo, compute_v = attr(op, "uplo"), attr(op, "compute_v")
    return _typed(op, lambda a: aten._linalg_eigh(a, uplo, compute_v))


@KERNELS.register("poplar.poplin_eig")
def _eig(op: ir.Operation) -> Kernel:
    return _typed(op, lambda a: aten.linalg_eig(a))


@KERNELS.register("poplar.poplin_triangular_solve")
def _triangular_solve(op: ir.Operation) -> Kernel:
    upper, left, unit = attr(op, "upper"), attr(op, "left"), attr(op, "unitriangular")
    return lambda a, b: aten.linalg_solve_triangular(a, b, upper=upper, left=left, unitriangular=unit)


@KERNELS.register("poplar.poplin_lu_solve")
def _lu_solve(op: ir.Operation) -> Kernel:
    left, adjoint = attr(op, "left"), attr(op, "adjoint")
    return lambda lu, piv, b: aten.linalg_lu_solve(lu, piv.to(torch.int32), b, left=left, adjoint=adjoint)


@KERNELS.register("poplar.poplin_solve")
def _solve(op: ir.Operation) -> Kernel:
    left = attr(op, "left")
    return _typed(op, lambda a, b: aten._linalg_solve_ex(a, b, left=left))


@KERNELS.register("poplar.poplin_inverse")
def _inverse(op: ir.Operation) -> Kernel:
    return _typed(op, lambda a: aten.linalg_inv_ex(a))


@KERNELS.register("poplar.poplin_determinant")
def _determinant(op: ir.Operation) -> Kernel:
    return _typed(op, lambda a: aten._linalg_det(a))


@KERNELS.register("poplar.poplin_sign_log_determinant")
def _sign_log_determinant(op: ir.Operation) -> Kernel:
    return _typed(op, lambda a: aten._linalg_slogdet(a))


@KERNELS.register("poplar.poplin_cholesky_solve")
def _cholesky_solve(op: ir.Operation) -> Kernel:
    upper = attr(op, "upper")
    return lambda b, factor: aten.cholesky_solve(b, factor, upper)


@KERNELS.register("poplar.poplin_cholesky_inverse")
def _cholesky_inverse(op: ir.Operation) -> Kernel:
    upper = attr(op, "upper")
    return lambda factor: aten.cholesky_inverse(factor, upper)


@KERNELS.register("poplar.poplin_ormqr")
def _ormqr(op: ir.Operation) -> Kernel:
    left, transpose = attr(op, "left"), attr(op, "transpose")
    return lambda a, tau, c: aten.ormqr(a, tau, c, left, transpose)


@KERNELS.register("poplar.poplin_ldl_solve")
def _ldl_solve(op: ir.Operation) -> Kernel:
    hermitian = attr(op, "hermitian")
    return lambda ld, piv, b: aten.linalg_ldl_solve(ld, piv.to(torch.int32), b, hermitian=hermitian)


@KERNELS.register("poplar.poplin_pseudo_inverse")
def _pseudo_inverse(op: ir.Operation) -> Kernel:
    hermitian = attr(op, "hermitian")
    return lambda a, atol, rtol: aten.linalg_pinv.atol_rtol_tensor(a, atol=atol, rtol=rtol, hermitian=hermitian)


@KERNELS.register("poplar.poplin_matrix_exp")
def _matrix_exp(op: ir.Operation) -> Kernel:
    return lambda a: aten.linalg_matrix_exp(a)

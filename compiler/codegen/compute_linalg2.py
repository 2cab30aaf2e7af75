"""The C++ of the matrix decompositions beyond Cholesky and LU: the Householder QR family
(``poplin_qr``, ``poplin_geqrf``, ``poplin_householder_product``, ``poplin_ormqr``), the
symmetric and the general eigendecomposition and the SVD (``poplin_eigh``, ``poplin_eig``,
``poplin_svd``), the
pseudo-inverse, the matrix exponential and the Bunch-Kaufman LDL^T factorisation and solve.

PopLibs has none of these (its ``poplin::experimental::QRFactorization`` has no
Householder form), so each op is one call of ipu-mlir's own PopLibs-style function declared
in ``poplin/Decompositions.hpp`` (named after the LAPACK routine whose result it gives);
the emitted unit includes that header only when it calls one,
and a build against the Poplar SDK needs an implementation of it (tools/poplar-host has one).
FLOAT elements only. Registered in ``compute.EMITTERS``."""

from __future__ import annotations

import math
from typing import Any

from .compute import _dims, emits
from .compute_linalg import _batch, broadcast_view
from .compute_fft import is_complex
from .errors import CodegenError

_HEADER = "#include <poplin/Decompositions.hpp>"
_QR_MODES = {"reduced": "REDUCED", "complete": "COMPLETE", "r": "R_ONLY"}


def _bool(value: Any) -> str:
    return "true" if value else "false"


def _float(cx: Any, op: Any, *values: Any) -> None:
    for value in values:
        if cx.ptype(value) != "FLOAT":
            raise CodegenError(f"{cx.where(op)} of {cx.ptype(value)} elements has no emission (emitted: FLOAT)")


def _call(cx: Any, op: Any, results: list[Any], call: str) -> list[str]:
    """``call`` returning a pair / tuple unpacked into ``results`` (defined here) with std::tie."""
    cx.includes.append(_HEADER)
    names = [cx.define(result) for result in results]
    return [f"poplar::Tensor {', '.join(names)};",
            f"std::tie({', '.join(names)}) = {call};"]


def _args(cx: Any, op: Any) -> str:
    return f"{cx.prog}, {cx.debug(op)}"


@emits("poplar.poplin_geqrf")
def emit_geqrf(cx: Any, op: Any) -> list[str]:
    a = op.operands[0]
    _float(cx, op, a)
    return _call(cx, op, list(op.results), f"poplin::geqrf({cx.graph(op)}, {cx.name(a)}, {_args(cx, op)})")


@emits("poplar.poplin_qr")
def emit_qr(cx: Any, op: Any) -> list[str]:
    a = op.operands[0]
    _float(cx, op, a)
    mode = _QR_MODES[cx.attr(op, "mode")]
    return _call(cx, op, list(op.results), f"poplin::qr({cx.graph(op)}, {cx.name(a)}, poplin::QRMode::{mode}, {_args(cx, op)})")


@emits("poplar.poplin_householder_product")
def emit_householder_product(cx: Any, op: Any) -> list[str]:
    a, tau = op.operands
    _float(cx, op, a, tau)
    cx.includes.append(_HEADER)
    return [f"poplar::Tensor {cx.define(op.results[0])} = poplin::householderProduct({cx.graph(op)}, {cx.name(a)}, {cx.name(tau)}, "
            f"{_args(cx, op)});"]


@emits("poplar.poplin_ormqr")
def emit_ormqr(cx: Any, op: Any) -> list[str]:
    a, tau, c = op.operands
    _float(cx, op, a, tau, c)
    cx.includes.append(_HEADER)
    return [f"poplar::Tensor {cx.define(op.results[0])} = poplin::ormqr({cx.graph(op)}, {cx.name(a)}, {cx.name(tau)}, {cx.name(c)}, "
            f"{_bool(cx.attr(op, 'left'))}, {_bool(cx.attr(op, 'transpose'))}, {_args(cx, op)});"]


@emits("poplar.poplin_eigh")
def emit_eigh(cx: Any, op: Any) -> list[str]:
    """Eigenvalues ascending; an eigenvector's sign is the host library's choice (LAPACK's
    is not reproducible without its algorithm), see poplin/Decompositions.hpp."""
    a = op.operands[0]
    _float(cx, op, a)
    lower, vectors = cx.attr(op, "uplo") == "L", cx.attr(op, "compute_v")
    return _call(cx, op, list(op.results),
                 f"poplin::eigh({cx.graph(op)}, {cx.name(a)}, {_bool(lower)}, {_bool(vectors)}, {_args(cx, op)})")


@emits("poplar.poplin_eig")
def emit_eig(cx: Any, op: Any) -> list[str]:
    """A real matrix's eigenvalues and eigenvectors, complex<f32> results held as FLOAT
    (real, imaginary) pairs in a trailing dim (the emitter's complex layout). Their order
    and phases are the host library's, not LAPACK's (see poplin/Decompositions.hpp)."""
    a = op.operands[0]
    if is_complex(a):
        raise CodegenError(f"{cx.where(op)}: the eigendecomposition of a complex matrix has no emission yet (emitted: real f32 "
                           "matrices); decompose a real matrix")
    _float(cx, op, a)
    return _call(cx, op, list(op.results), f"poplin::eig({cx.graph(op)}, {cx.name(a)}, {_args(cx, op)})")


@emits("poplar.poplin_svd")
def emit_svd(cx: Any, op: Any) -> list[str]:
    a = op.operands[0]
    _float(cx, op, a)
    full, uv = cx.attr(op, "full_matrices"), cx.attr(op, "compute_uv")
    return _call(cx, op, list(op.results), f"poplin::svd({cx.graph(op)}, {cx.name(a)}, {_bool(full)}, {_bool(uv)}, {_args(cx, op)})")


@emits("poplar.poplin_pseudo_inverse")
def emit_pseudo_inverse(cx: Any, op: Any) -> list[str]:
    """``atol`` and ``rtol`` broadcast to the batch dims and flattened: one per matrix."""
    a, atol, rtol = op.operands
    _float(cx, op, a, atol, rtol)
    batch = cx.shape(a)[:-2]
    count = math.prod(batch)
    tolerances = [f"{broadcast_view(cx.name(t), cx.shape(t), batch)}.reshape({{{count}}})" for t in (atol, rtol)]
    cx.includes.append(_HEADER)
    return [f"poplar::Tensor {cx.define(op.results[0])} = poplin::pseudoInverse({cx.graph(op)}, {cx.name(a)}, {tolerances[0]}, "
            f"{tolerances[1]}, {_bool(cx.attr(op, 'hermitian'))}, {_args(cx, op)});"]


@emits("poplar.poplin_matrix_exp")
def emit_matrix_exp(cx: Any, op: Any) -> list[str]:
    a = op.operands[0]
    _float(cx, op, a)
    cx.includes.append(_HEADER)
    return [f"poplar::Tensor {cx.define(op.results[0])} = poplin::matrixExp({cx.graph(op)}, {cx.name(a)}, {_args(cx, op)});"]


@emits("poplar.poplin_ldl_factor")
def emit_ldl_factor(cx: Any, op: Any) -> list[str]:
    """``pivots`` and ``info`` come back INT and are cast to the results' types."""
    a = op.operands[0]
    ld, pivots, info = op.results
    _float(cx, op, a)
    g, prog = cx.graph(op), cx.prog
    piv_t, info_t = cx.fresh("pivots"), cx.fresh("info")
    cx.includes.append(_HEADER)
    return [f"poplar::Tensor {cx.define(ld)}, {piv_t}, {info_t};",
            f"std::tie({cx.name(ld)}, {piv_t}, {info_t}) = poplin::ldlFactor({g}, {cx.name(a)}, {_bool(cx.attr(op, 'hermitian'))}, "
            f"{_args(cx, op)});",
            f"poplar::Tensor {cx.define(pivots)} = popops::cast({g}, {piv_t}, poplar::{cx.ptype(pivots)}, {prog}, {cx.debug(op, 'pivots')});",
            f"poplar::Tensor {cx.define(info)} = popops::cast({g}, {info_t}, poplar::{cx.ptype(info)}, {prog}, {cx.debug(op, 'info')});"]


@emits("poplar.poplin_ldl_solve")
def emit_ldl_solve(cx: Any, op: Any) -> list[str]:
    """The factor, its pivots and ``b`` viewed with their broadcast batch dims."""
    ld, pivots, b = op.operands
    _float(cx, op, ld, b)
    ld_shape, b_shape = cx.shape(ld), cx.shape(b)
    batch = _batch(ld_shape, b_shape)
    n = ld_shape[-1]
    g, prog = cx.graph(op), cx.prog
    ld_v = broadcast_view(cx.name(ld), ld_shape, batch + [n, n])
    b_v = broadcast_view(cx.name(b), b_shape, batch + b_shape[-2:])
    piv_v = broadcast_view(f"popops::cast({g}, {cx.name(pivots)}, poplar::INT, {prog}, {cx.debug(op, 'pivots')})",
                           cx.shape(pivots), batch + [n])
    cx.includes.append(_HEADER)
    return [f"poplar::Tensor {cx.define(op.results[0])} = poplin::ldlSolve({g}, {ld_v}, {piv_v}, {b_v}, "
            f"{_bool(cx.attr(op, 'hermitian'))}, {_args(cx, op)}).reshape({_dims(cx.shape(op.results[0]))});"]

"""Linear algebra lowerings (``torch.linalg``): the ATen ops that survive decomposition
(factorisations, solves, inverses, determinants, decompositions) -> the ``poplin_linalg``
and ``poplin_linalg_solve`` ops, which keep ATen's parameters and results (``info``
codes included). ``torch.linalg.inv`` / ``solve`` / ``cholesky`` ... reach here as their
``*_ex`` forms: the capture drops eager's error check (``capture.unchecked_linalg_errors``).
Autograd's formulas for these ops are made of the same ops, matmuls and element-wise
ops, so the backward pass needs nothing more."""

from __future__ import annotations

from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import boolean, string, tensor_type
from ipu_mlir.support.registry import Registry

from ipu_mlir.dialects.poplar.poplin_linalg import QR_MODES, TRIANGLES

from ...lowering import Lowering, Pattern, Unsupported, result_type, shape_of

_EPSILON = {"f32": 2.0 ** -23, "f64": 2.0 ** -52}  # torch.finfo(dtype).eps


def _results(op: ir.Operation, count: int | None = None) -> list[ir.RankedTensorType]:
    return [result_type(op, i) for i in range(count if count is not None else len(op.results))]


def _flag(lw: Lowering, op: ir.Operation, index: int, what: str) -> bool:
    return bool(lw.const(op.operands[index], what))


def _emit_all(lw: Lowering, cls: type, *args: Any) -> list[ir.Value]:
    emitted = lw.emit(cls, *args)
    return [emitted] if isinstance(emitted, ir.Value) else list(emitted.results)


def _info_type(a: ir.Value) -> ir.RankedTensorType:
    """An ``info`` result for an op whose ATen form has none (``cholesky``): unused."""
    return tensor_type(shape_of(a)[:-2], ir.IntegerType.get_signless(32))


def lower_cholesky_ex(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``linalg_cholesky_ex(self, *, upper=False, check_errors=False) -> (L, info)``."""
    return _emit_all(lw, pd.CholeskyOp, lw.v(op.operands[0]), boolean(_flag(lw, op, 1, "upper")), *_results(op))


def lower_cholesky(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``cholesky(self, upper=False)``: the factor of ``poplin_cholesky`` (its info unused)."""
    a = lw.v(op.operands[0])
    return _emit_all(lw, pd.CholeskyOp, a, boolean(_flag(lw, op, 1, "upper")), result_type(op), _info_type(a))[:1]


def lower_cholesky_solve(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``cholesky_solve(self (B), input2 (factor), upper=False)``."""
    b, factor = lw.v(op.operands[0]), lw.v(op.operands[1])
    return [lw.emit(pd.CholeskySolveOp, b, factor, boolean(_flag(lw, op, 2, "upper")), result_type(op))]


def lower_cholesky_inverse(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``cholesky_inverse(self (factor), upper=False)``."""
    return [lw.emit(pd.CholeskyInverseOp, lw.v(op.operands[0]), boolean(_flag(lw, op, 1, "upper")), result_type(op))]


def lower_solve_triangular(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``linalg_solve_triangular(self (A), B, *, upper, left=True, unitriangular=False)``."""
    a, b = lw.v(op.operands[0]), lw.v(op.operands[1])
    upper, left, unit = (_flag(lw, op, i, name) for i, name in ((2, "upper"), (3, "left"), (4, "unitriangular")))
    return [lw.emit(pd.TriangularSolveOp, a, b, boolean(upper), boolean(left), boolean(unit), result_type(op))]


def lower_triangular_solve(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``triangular_solve(self (B), A, upper=True, transpose=False, unitriangular=False)
    -> (solution, cloned_coefficient)``: ``A^T`` (the other triangle) when ``transpose``,
    and ``A`` broadcast to the batch dims as the second result."""
    b, a = lw.v(op.operands[0]), lw.v(op.operands[1])
    upper, transpose, unit = (_flag(lw, op, i, name) for i, name in ((2, "upper"), (3, "transpose"), (4, "unitriangular")))
    if isinstance(ir.RankedTensorType(a.type).element_type, ir.ComplexType) and transpose:
        raise Unsupported("triangular_solve with transpose=True of a complex matrix (use torch.linalg.solve_triangular "
                          "on A.mT)")
    coefficient = a
    if transpose:
        a, upper = lw.transpose_last(a), not upper
    solution_type, coefficient_type = _results(op)
    solution = lw.emit(pd.TriangularSolveOp, a, b, boolean(upper), boolean(True), boolean(unit), solution_type)
    if shape_of(coefficient) != list(coefficient_type.shape):
        coefficient = lw.broadcast(coefficient, list(coefficient_type.shape))
    return [solution, coefficient]


def _pivoting(lw: Lowering, op: ir.Operation, index: int) -> None:
    if not _flag(lw, op, index, "pivot"):
        raise Unsupported("LU without pivoting (pivot=False) is not supported (eager refuses it on the CPU too): "
                          "use pivot=True")


def lower_lu_factor_ex(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``linalg_lu_factor_ex(A, *, pivot=True, check_errors=False) -> (LU, pivots, info)``."""
    _pivoting(lw, op, 1)
    return _emit_all(lw, pd.LuFactorOp, lw.v(op.operands[0]), boolean(True), *_results(op))


def lower_lu(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``linalg_lu(A, *, pivot=True) -> (P, L, U)``: ``poplin_lu_factor`` then
    ``poplin_lu_unpack``, as ATen computes it."""
    _pivoting(lw, op, 1)
    a = lw.v(op.operands[0])
    shape = shape_of(a)
    pivots_type = tensor_type([*shape[:-2], min(shape[-2:])], ir.IntegerType.get_signless(32))
    lu, pivots, _ = _emit_all(lw, pd.LuFactorOp, a, boolean(True), a.type, pivots_type, _info_type(a))
    return _emit_all(lw, pd.LuUnpackOp, lu, pivots, boolean(True), boolean(True), *_results(op))


def lower_lu_unpack(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True) -> (P, L, U)``."""
    lu, pivots = lw.v(op.operands[0]), lw.v(op.operands[1])
    data, unpack_pivots = _flag(lw, op, 2, "unpack_data"), _flag(lw, op, 3, "unpack_pivots")
    return _emit_all(lw, pd.LuUnpackOp, lu, pivots, boolean(data), boolean(unpack_pivots), *_results(op))


def lower_lu_solve(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False)``."""
    lu, pivots, b = (lw.v(op.operands[i]) for i in range(3))
    left, adjoint = _flag(lw, op, 3, "left"), _flag(lw, op, 4, "adjoint")
    return [lw.emit(pd.LuSolveOp, lu, pivots, b, boolean(left), boolean(adjoint), result_type(op))]


def lower_solve_ex(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_linalg_solve_ex(A, B, *, left=True, check_errors=False) -> (result, LU, pivots, info)``."""
    a, b = lw.v(op.operands[0]), lw.v(op.operands[1])
    return _emit_all(lw, pd.SolveOp, a, b, boolean(_flag(lw, op, 2, "left")), *_results(op))


def lower_inv_ex(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``linalg_inv_ex(A, *, check_errors=False) -> (inverse, info)``."""
    return _emit_all(lw, pd.InverseOp, lw.v(op.operands[0]), *_results(op))


def lower_det(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_linalg_det(A) -> (result, LU, pivots)``."""
    return _emit_all(lw, pd.DeterminantOp, lw.v(op.operands[0]), *_results(op))


def lower_slogdet(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_linalg_slogdet(A) -> (sign, logabsdet, LU, pivots)``."""
    return _emit_all(lw, pd.SignLogDeterminantOp, lw.v(op.operands[0]), *_results(op))


def lower_qr(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``linalg_qr(A, mode="reduced") -> (Q, R)``."""
    mode = lw.const(op.operands[1], "mode")
    if mode not in QR_MODES:
        raise Unsupported(f"qr mode {mode!r} (torch.linalg.qr takes 'reduced', 'complete' or 'r')")
    return _emit_all(lw, pd.QrOp, lw.v(op.operands[0]), string(mode), *_results(op))


def lower_geqrf(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``geqrf(self) -> (a, tau)``."""
    return _emit_all(lw, pd.GeqrfOp, lw.v(op.operands[0]), *_results(op))


def lower_householder_product(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``linalg_householder_product(input, tau)``."""
    return [lw.emit(pd.HouseholderProductOp, lw.v(op.operands[0]), lw.v(op.operands[1]), result_type(op))]


def lower_ormqr(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``ormqr(self (reflectors), input2 (tau), input3 (C), left=True, transpose=False)``."""
    a, tau, c = (lw.v(op.operands[i]) for i in range(3))
    left, transpose = _flag(lw, op, 3, "left"), _flag(lw, op, 4, "transpose")
    return [lw.emit(pd.OrmqrOp, a, tau, c, boolean(left), boolean(transpose), result_type(op))]


def lower_ldl_factor_ex(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``linalg_ldl_factor_ex(self, *, hermitian=False, check_errors=False) -> (LD, pivots, info)``."""
    return _emit_all(lw, pd.LdlFactorOp, lw.v(op.operands[0]), boolean(_flag(lw, op, 1, "hermitian")), *_results(op))


def lower_ldl_solve(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``linalg_ldl_solve(LD, pivots, B, *, hermitian=False)``."""
    ld, pivots, b = (lw.v(op.operands[i]) for i in range(3))
    return [lw.emit(pd.LdlSolveOp, ld, pivots, b, boolean(_flag(lw, op, 3, "hermitian")), result_type(op))]


def lower_svd(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_linalg_svd(A, full_matrices=False, compute_uv=True, *, driver=None) -> (U, S, Vh)``."""
    driver = lw.const(op.operands[3], "driver")
    if driver is not None:
        raise Unsupported(f"svd driver {driver!r} (a cuSOLVER choice; leave driver=None)")
    full, uv = _flag(lw, op, 1, "full_matrices"), _flag(lw, op, 2, "compute_uv")
    return _emit_all(lw, pd.SvdOp, lw.v(op.operands[0]), boolean(full), boolean(uv), *_results(op))


def lower_eigh(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_linalg_eigh(A, UPLO="L", compute_v=True) -> (eigenvalues, eigenvectors)``."""
    uplo = lw.const(op.operands[1], "UPLO")
    if uplo not in TRIANGLES:
        raise Unsupported(f"UPLO {uplo!r} (torch.linalg.eigh takes 'L' or 'U')")
    compute_v = _flag(lw, op, 2, "compute_v")
    return _emit_all(lw, pd.EighOp, lw.v(op.operands[0]), string(uplo), boolean(compute_v), *_results(op))


def lower_eig(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``linalg_eig(self) -> (eigenvalues, eigenvectors)`` (complex)."""
    return _emit_all(lw, pd.EigOp, lw.v(op.operands[0]), *_results(op))


def lower_pinv(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``linalg_pinv.atol_rtol_tensor(self, *, atol=None, rtol=None, hermitian=False)``, with
    torch's defaults written out: atol 0; rtol ``eps * max(m, n)`` when neither is given,
    else 0."""
    a = lw.v(op.operands[0])
    shape = shape_of(a)
    element = ir.RankedTensorType(a.type).element_type
    real = ir.ComplexType(element).element_type if isinstance(element, ir.ComplexType) else element
    atol, rtol = lw.maybe_tensor(op.operands[1]), lw.maybe_tensor(op.operands[2])
    default_rtol = _EPSILON[str(real)] * max(shape[-2:]) if atol is None and rtol is None else 0.0
    atol = lw.zeros_or_ones(0.0, [], real) if atol is None else lw.cast(atol, real)
    rtol = lw.zeros_or_ones(default_rtol, [], real) if rtol is None else lw.cast(rtol, real)
    hermitian = _flag(lw, op, 3, "hermitian")
    return [lw.emit(pd.PseudoInverseOp, a, atol, rtol, boolean(hermitian), result_type(op))]


def lower_matrix_exp(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``linalg_matrix_exp(self)``."""
    return [lw.emit(pd.MatrixExpOp, lw.v(op.operands[0]), result_type(op))]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: factorisations, solves, inverses, determinants."""
    for name, lowering in (
        ("linalg_cholesky_ex", lower_cholesky_ex), ("cholesky", lower_cholesky), ("cholesky_solve", lower_cholesky_solve),
        ("cholesky_inverse", lower_cholesky_inverse), ("linalg_solve_triangular", lower_solve_triangular),
        ("triangular_solve", lower_triangular_solve), ("linalg_lu_factor_ex", lower_lu_factor_ex),
        ("linalg_lu", lower_lu), ("lu_unpack", lower_lu_unpack), ("linalg_lu_solve", lower_lu_solve),
        ("_linalg_solve_ex", lower_solve_ex), ("linalg_inv_ex", lower_inv_ex), ("_linalg_det", lower_det),
        ("_linalg_slogdet", lower_slogdet), ("linalg_qr", lower_qr), ("geqrf", lower_geqrf),
        ("linalg_householder_product", lower_householder_product), ("ormqr", lower_ormqr),
        ("linalg_ldl_factor_ex", lower_ldl_factor_ex), ("linalg_ldl_solve", lower_ldl_solve),
        ("_linalg_svd", lower_svd), ("_linalg_eigh", lower_eigh), ("linalg_eig", lower_eig),
        ("linalg_pinv.atol_rtol_tensor", lower_pinv), ("linalg_matrix_exp", lower_matrix_exp),
    ):
        patterns.register(f"torch.aten.{name}")(lowering)


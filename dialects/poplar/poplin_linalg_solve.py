"""Linear solves, inverses, determinants and matrix functions of the ``poplar`` dialect
(``torch.linalg``), on the factorisations of ``poplin_linalg``.

``poplin::triangularSolve`` is the PopLibs building block: an LU or Cholesky solve is two
triangular solves and a row permutation, an inverse a solve against the identity, a
determinant the product of ``U``'s diagonal. The ops keep ATen's parameters and results
so that the IPU Model computes them as eager does. Right-hand sides and factors
broadcast over their leading batch dims (NumPy rules); the last two dims are the matrix.
"""

from torch_mlir import ir
from torch_mlir.dialects import ext

from .._base import Rules
from .base import PoplarOp, Tensor, TensorResult, broadcast_shapes, element_of, shape_of
from .poplin_linalg import _real, expect, matrix


def _batch(v: Rules, *shapes: list[int]) -> list[int]:
    """The broadcast of the batch dims (all but the last two) of ``shapes``."""
    batches = [s[:-2] for s in shapes]
    out = broadcast_shapes(batches)
    v.require(out is not None, f"batch dims {batches} do not broadcast")
    return out or []


def _same_element(v: Rules, value: ir.Value, reference: ir.Value, what: str) -> None:
    v.require(element_of(value) == element_of(reference),
              f"{what} must have the element type of the matrix, {element_of(reference)}, got {element_of(value)}")


def _rhs(v: Rules, a: list[int], b: list[int], left: bool, what: str = "b") -> list[int]:
    """The shape of ``A^-1 B`` (``left``) or ``B A^-1`` for square ``a``."""
    n = a[-1]
    rows_or_columns = b[-2] if left else b[-1]
    v.require(rows_or_columns == n, f"{what} must have {n} {'rows' if left else 'columns'} (the size of the matrix), got shape {b}")
    return [*_batch(v, a, b), *b[-2:]]


class TriangularSolveOp(PoplarOp, name="poplin_triangular_solve", traits=[ext.Pure]):
    """Solves a triangular system (``poplin::triangularSolve``; ATen
    ``linalg_solve_triangular``).

    Semantics: ``x`` with ``a x = b`` (``left``) or ``x a = b``, ``a`` square, upper
    triangular when ``upper``, else lower; the other triangle is not read. With
    ``unitriangular``, the diagonal of ``a`` is taken as ones (not read). Batch dims
    broadcast.

    Example:
      %x = "poplar.poplin_triangular_solve"(%a, %b) {left = true, unitriangular = false, upper = true}
             : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    """

    a: Tensor
    b: Tensor
    upper: ir.IntegerAttr
    left: ir.IntegerAttr
    unitriangular: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        a = matrix(v, self.a, "a", square=True)
        b = matrix(v, self.b, "b")
        _same_element(v, self.b, self.a, "b")
        v.bool("upper")
        v.bool("unitriangular")
        expect(v, self.result, "result", _rhs(v, a, b, v.bool("left")), element_of(self.a))


class LuSolveOp(PoplarOp, name="poplin_lu_solve", traits=[ext.Pure]):
    """Solves ``A X = B`` from A's packed LU factorisation (LAPACK ``getrs``; ATen
    ``linalg_lu_solve``).

    Semantics: ``lu`` and ``pivots`` as ``poplin_lu_factor`` gives them for ``A = P L U``;
    ``x`` solves ``A x = b`` (``left``) or ``x A = b``, with ``A^H`` instead of ``A`` when
    ``adjoint``. Batch dims broadcast.

    Example:
      %x = "poplar.poplin_lu_solve"(%lu, %piv, %b) {adjoint = false, left = true}
             : (tensor<3x3xf32>, tensor<3xi32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    """

    lu: Tensor
    pivots: Tensor
    b: Tensor
    left: ir.IntegerAttr
    adjoint: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        lu = matrix(v, self.lu, "lu", square=True)
        b = matrix(v, self.b, "b")
        _same_element(v, self.b, self.lu, "b")
        expect(v, self.pivots, "pivots", lu[:-1], None)
        v.bool("adjoint")
        expect(v, self.result, "result", _rhs(v, lu, b, v.bool("left")), element_of(self.lu))


class SolveOp(PoplarOp, name="poplin_solve", traits=[ext.Pure]):
    """Solves a square linear system by LU with partial pivoting (LAPACK ``gesv``; ATen
    ``_linalg_solve_ex``).

    Semantics: ``x`` with ``a x = b`` (``left``) or ``x a = b``; ``lu``, ``pivots`` and
    ``info`` are ``poplin_lu_factor`` of ``a`` (``info`` nonzero: ``a`` is singular and
    ``x`` holds inf / nan). ``b`` is a batch of matrices, or of vectors when it has rank 1
    or the shape of ``a`` without its last dim (then ``x`` is a vector too). Batch dims
    broadcast.

    Example:
      %x, %lu, %piv, %info = "poplar.poplin_solve"(%a, %b) {left = true}
             : (tensor<3x3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3x3xf32>, tensor<3xi32>, tensor<i32>)
    """

    a: Tensor
    b: Tensor
    left: ir.IntegerAttr
    result: TensorResult
    lu: TensorResult
    pivots: TensorResult
    info: TensorResult

    def check(self, v: Rules) -> None:
        a = matrix(v, self.a, "a", square=True)
        b = shape_of(self.b, "b")
        _same_element(v, self.b, self.a, "b")
        left = v.bool("left")
        vector = len(b) == 1 or (len(b) == len(a) - 1 and b == a[:-1])
        if vector:
            out = _rhs(v, a, [*b, 1] if left else [*b[:-1], 1, b[-1]], left)
            out = out[:-1] if left else [*out[:-2], out[-1]]
        else:
            v.require(len(b) >= 2, f"b must be a vector or a matrix, got shape {b}")
            out = _rhs(v, a, b, left)
        expect(v, self.result, "result", out, element_of(self.a))
        expect(v, self.lu, "lu", a, element_of(self.a))
        expect(v, self.pivots, "pivots", a[:-1], None)
        expect(v, self.info, "info", a[:-2], None)


class InverseOp(PoplarOp, name="poplin_inverse", traits=[ext.Pure]):
    """Inverse of square matrices, by LU (ATen ``linalg_inv_ex``).

    Semantics: ``inverse`` is ``a^-1``; ``info`` as ``poplin_lu_factor`` gives it (nonzero:
    ``a`` is singular and ``inverse`` holds inf / nan).

    Example:
      %inv, %info = "poplar.poplin_inverse"(%a) : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2xi32>)
    """

    input: Tensor
    inverse: TensorResult
    info: TensorResult

    def check(self, v: Rules) -> None:
        shape = matrix(v, self.input, "input", square=True)
        expect(v, self.inverse, "inverse", shape, element_of(self.input))
        expect(v, self.info, "info", shape[:-2], None)


class DeterminantOp(PoplarOp, name="poplin_determinant", traits=[ext.Pure]):
    """Determinant of square matrices, by LU (ATen ``_linalg_det``).

    Semantics: ``det`` is the product of ``U``'s diagonal, negated for an odd permutation;
    ``lu`` and ``pivots`` are ``poplin_lu_factor`` of the input (the backward pass reuses
    them).

    Example:
      %d, %lu, %piv = "poplar.poplin_determinant"(%a)
             : (tensor<3x3xf32>) -> (tensor<f32>, tensor<3x3xf32>, tensor<3xi32>)
    """

    input: Tensor
    det: TensorResult
    lu: TensorResult
    pivots: TensorResult

    def check(self, v: Rules) -> None:
        shape = matrix(v, self.input, "input", square=True)
        element = element_of(self.input)
        expect(v, self.det, "det", shape[:-2], element)
        expect(v, self.lu, "lu", shape, element)
        expect(v, self.pivots, "pivots", shape[:-1], None)


class SignLogDeterminantOp(PoplarOp, name="poplin_sign_log_determinant", traits=[ext.Pure]):
    """Sign and log of the absolute value of the determinant, by LU (ATen ``_linalg_slogdet``).

    Semantics: ``det = sign * exp(logabsdet)``; ``sign`` has the input's element type (0
    for a singular matrix, whose ``logabsdet`` is -inf), ``logabsdet`` is real; ``lu`` and
    ``pivots`` are ``poplin_lu_factor`` of the input.

    Example:
      %s, %l, %lu, %piv = "poplar.poplin_sign_log_determinant"(%a)
             : (tensor<3x3xf32>) -> (tensor<f32>, tensor<f32>, tensor<3x3xf32>, tensor<3xi32>)
    """

    input: Tensor
    sign: TensorResult
    logabsdet: TensorResult
    lu: TensorResult
    pivots: TensorResult

    def check(self, v: Rules) -> None:
        shape = matrix(v, self.input, "input", square=True)
        element = element_of(self.input)
        expect(v, self.sign, "sign", shape[:-2], element)
        expect(v, self.logabsdet, "logabsdet", shape[:-2], _real(element))
        expect(v, self.lu, "lu", shape, element)
        expect(v, self.pivots, "pivots", shape[:-1], None)


class CholeskySolveOp(PoplarOp, name="poplin_cholesky_solve", traits=[ext.Pure]):
    """Solves ``A X = B`` from A's Cholesky factor (LAPACK ``potrs``; ATen ``cholesky_solve``).

    Semantics: ``factor`` is ``L`` (``A = L L^H``), or ``U`` (``A = U^H U``) when ``upper``;
    ``x`` solves ``A x = b``: two triangular solves. Batch dims broadcast.

    Example:
      %x = "poplar.poplin_cholesky_solve"(%b, %l) {upper = false}
             : (tensor<3x2xf32>, tensor<3x3xf32>) -> tensor<3x2xf32>
    """

    b: Tensor
    factor: Tensor
    upper: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        factor = matrix(v, self.factor, "factor", square=True)
        b = matrix(v, self.b, "b")
        _same_element(v, self.b, self.factor, "b")
        v.bool("upper")
        expect(v, self.result, "result", _rhs(v, factor, b, True), element_of(self.factor))


class CholeskyInverseOp(PoplarOp, name="poplin_cholesky_inverse", traits=[ext.Pure]):
    """Inverse of ``A`` from its Cholesky factor (LAPACK ``potri``; ATen ``cholesky_inverse``).

    Semantics: ``factor`` is ``L`` (``A = L L^H``), or ``U`` (``A = U^H U``) when ``upper``;
    the result is ``A^-1``.

    Example:
      %inv = "poplar.poplin_cholesky_inverse"(%l) {upper = false} : (tensor<3x3xf32>) -> tensor<3x3xf32>
    """

    factor: Tensor
    upper: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = matrix(v, self.factor, "factor", square=True)
        v.bool("upper")
        expect(v, self.result, "result", shape, element_of(self.factor))


class OrmqrOp(PoplarOp, name="poplin_ormqr", traits=[ext.Pure]):
    """Multiplies by the ``Q`` of a Householder QR (LAPACK ``ormqr``; ATen ``ormqr``).

    Semantics: with ``Q = H_1 ... H_k`` from the reflectors below the diagonal of
    ``reflectors`` (``m x k`` or ``n x k``) and ``tau`` (as ``poplin_geqrf`` gives them), the
    result is ``op(Q) c`` (``left``) or ``c op(Q)``, ``op(Q) = Q^H`` when ``transpose``.

    Example:
      %y = "poplar.poplin_ormqr"(%a, %tau, %c) {left = true, transpose = false}
             : (tensor<4x3xf32>, tensor<3xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
    """

    reflectors: Tensor
    tau: Tensor
    c: Tensor
    left: ir.IntegerAttr
    transpose: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        a = matrix(v, self.reflectors, "reflectors")
        c = matrix(v, self.c, "c")
        _same_element(v, self.c, self.reflectors, "c")
        _same_element(v, self.tau, self.reflectors, "tau")
        tau = shape_of(self.tau, "tau")
        v.require(tau[:-1] == a[:-2] and len(tau) == len(a) - 1 and tau[-1] <= a[-1],
                  f"tau shape must be {a[:-2] + ['k']} with k <= {a[-1]}, got {tau}")
        v.bool("transpose")
        size = c[-2] if v.bool("left") else c[-1]
        v.require(a[-2] == size, f"reflectors must have {size} rows (the size of Q), got shape {a}")
        v.require(c[:-2] == a[:-2], f"c batch dims must equal the reflectors' {a[:-2]}, got {c[:-2]}")
        expect(v, self.result, "result", c, element_of(self.c))


class LdlSolveOp(PoplarOp, name="poplin_ldl_solve", traits=[ext.Pure]):
    """Solves ``A X = B`` from A's LDL factorisation (LAPACK ``sytrs``; ATen ``linalg_ldl_solve``).

    Semantics: ``ld`` and ``pivots`` as ``poplin_ldl_factor`` (with the same ``hermitian``)
    gives them; ``x`` solves ``A x = b``. Batch dims broadcast.

    Example:
      %x = "poplar.poplin_ldl_solve"(%ld, %piv, %b) {hermitian = false}
             : (tensor<3x3xf32>, tensor<3xi32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    """

    ld: Tensor
    pivots: Tensor
    b: Tensor
    hermitian: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        ld = matrix(v, self.ld, "ld", square=True)
        b = matrix(v, self.b, "b")
        _same_element(v, self.b, self.ld, "b")
        expect(v, self.pivots, "pivots", ld[:-1], None)
        v.bool("hermitian")
        expect(v, self.result, "result", _rhs(v, ld, b, True), element_of(self.ld))


class PseudoInverseOp(PoplarOp, name="poplin_pseudo_inverse", traits=[ext.Pure]):
    """Moore-Penrose pseudo-inverse, by SVD (or eigh when ``hermitian``; ATen
    ``linalg_pinv.atol_rtol_tensor``).

    Semantics: for ``m x n`` matrices, the ``n x m`` ``V diag(1/s) U^H`` over the singular
    values ``s > max(atol, rtol * s_max)`` (the others are dropped); ``atol`` and ``rtol``
    are real tensors broadcast against the batch dims (given explicitly: the lowering
    writes torch's defaults). With ``hermitian``, the input is taken as Hermitian (its
    lower triangle is read) and decomposed by eigh.

    Example:
      %p = "poplar.poplin_pseudo_inverse"(%a, %atol, %rtol) {hermitian = false}
             : (tensor<4x3xf32>, tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
    """

    input: Tensor
    atol: Tensor
    rtol: Tensor
    hermitian: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = matrix(v, self.input, "input", square=v.bool("hermitian"))
        real = _real(element_of(self.input))
        for tol, what in ((self.atol, "atol"), (self.rtol, "rtol")):
            v.require(element_of(tol) == real, f"{what} must have {real} elements, got {element_of(tol)}")
            v.require(broadcast_shapes([shape_of(tol, what), shape[:-2]]) == shape[:-2],
                      f"{what} shape {shape_of(tol, what)} must broadcast to the batch dims {shape[:-2]}")
        expect(v, self.result, "result", [*shape[:-2], shape[-1], shape[-2]], element_of(self.input))


class MatrixExpOp(PoplarOp, name="poplin_matrix_exp", traits=[ext.Pure]):
    """Matrix exponential (ATen ``linalg_matrix_exp``: a Taylor polynomial of degree up to
    18 chosen from the norm, with scaling and squaring: matmuls).

    Semantics: ``exp(a) = sum_k a^k / k!`` of square matrices.

    Example:
      %e = "poplar.poplin_matrix_exp"(%a) : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
    """

    input: Tensor
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = matrix(v, self.input, "input", square=True)
        expect(v, self.result, "result", shape, element_of(self.input))

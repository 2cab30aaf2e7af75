"""Matrix factorisations of the ``poplar`` dialect (``torch.linalg``): Cholesky, LU (with
its unpacking), QR (and its Householder form), LDL, SVD and eigendecompositions.

PopLibs has ``poplin::cholesky``, ``poplin::triangularSolve`` and
``poplin::experimental::QRFactorization``; the other factorisations are built from them
and matmuls in a Poplar program. The ops keep ATen's parameters and results (LAPACK's
packed forms: ``LU`` with 1-based ``pivots``, ``geqrf``'s reflectors and ``tau``,
``info`` codes) so that the IPU Model can compute them as eager does. Every op works on
the last two dims (the matrix) and repeats over the leading batch dims; elements are
f32 / f64 (or complex), ``pivots`` and ``info`` are integers. The solves, inverses,
determinants and matrix functions built on these are in ``poplin_linalg_solve``.
"""

from torch_mlir import ir
from torch_mlir.dialects import ext

from .._base import Rules
from .base import PoplarOp, Tensor, TensorResult, element_of, shape_of

QR_MODES = ("reduced", "complete", "r")
TRIANGLES = ("L", "U")


def _is_float(element: ir.Type) -> bool:
    return isinstance(element, ir.F32Type | ir.F64Type | ir.ComplexType)


def _real(element: ir.Type) -> ir.Type:
    return ir.ComplexType(element).element_type if isinstance(element, ir.ComplexType) else element


def _complex_of(element: ir.Type) -> ir.Type:
    return element if isinstance(element, ir.ComplexType) else ir.ComplexType.get(element)


def matrix(v: Rules, value: ir.Value, what: str, *, square: bool = False) -> list[int]:
    """The shape of a batch of matrices (rank >= 2, f32 / f64 / complex elements)."""
    shape = shape_of(value, what)
    v.require(len(shape) >= 2, f"{what} must be a matrix or a batch of matrices (rank >= 2), got shape {shape}")
    v.require(_is_float(element_of(value)), f"{what} must have f32, f64 or complex elements, got {element_of(value)}")
    v.require(not square or shape[-1] == shape[-2], f"{what} must be square, got shape {shape}")
    return shape


def expect(v: Rules, value: ir.Value, what: str, shape: list[int], element: ir.Type | None) -> None:
    """``value`` has ``shape`` and, unless ``element`` is None (any integer), ``element``."""
    got = shape_of(value, what)
    v.require(got == shape, f"{what} shape must be {shape}, got {got}")
    actual = element_of(value)
    if element is None:
        v.require(isinstance(actual, ir.IntegerType), f"{what} must have integer elements, got {actual}")
    else:
        v.require(actual == element, f"{what} must have {element} elements, got {actual}")


class CholeskyOp(PoplarOp, name="poplin_cholesky", traits=[ext.Pure]):
    """Cholesky factor of a Hermitian positive-definite matrix (``poplin::cholesky``;
    ATen ``linalg_cholesky_ex``, ``cholesky``).

    Semantics: ``factor`` is ``L`` with ``input = L L^H`` (lower triangular), or ``U = L^H``
    when ``upper``; the other triangle is zero. ``info`` (one per matrix) is 0, or the
    order ``k`` of the first leading minor that is not positive definite, in which case the
    factor is only valid up to column ``k``. Only the ``upper`` / lower triangle is read.

    Example:
      %l, %info = "poplar.poplin_cholesky"(%a) {upper = false}
             : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2xi32>)
    """

    input: Tensor
    upper: ir.IntegerAttr
    factor: TensorResult
    info: TensorResult

    def check(self, v: Rules) -> None:
        shape = matrix(v, self.input, "input", square=True)
        v.bool("upper")
        expect(v, self.factor, "factor", shape, element_of(self.input))
        expect(v, self.info, "info", shape[:-2], None)


class LuFactorOp(PoplarOp, name="poplin_lu_factor", traits=[ext.Pure]):
    """LU factorisation with partial pivoting (LAPACK ``getrf``; ATen ``linalg_lu_factor_ex``).

    Semantics: ``input = P L U`` for an ``m x n`` matrix; ``lu`` packs ``L`` (unit lower
    triangular, its diagonal not stored) below the diagonal and ``U`` on and above it;
    ``pivots`` (``min(m, n)`` per matrix, 1-based) says row ``i`` was swapped with row
    ``pivots[i]``. ``info`` is 0, or ``k`` when ``U[k-1, k-1]`` is exactly zero (singular).
    ``pivot`` must be true (the IPU Model, like eager on the CPU, pivots).

    Example:
      %lu, %piv, %info = "poplar.poplin_lu_factor"(%a) {pivot = true}
             : (tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3xi32>, tensor<i32>)
    """

    input: Tensor
    pivot: ir.IntegerAttr
    lu: TensorResult
    pivots: TensorResult
    info: TensorResult

    def check(self, v: Rules) -> None:
        shape = matrix(v, self.input, "input")
        v.require(v.bool("pivot"), "attribute 'pivot' must be true: LU without pivoting is not supported")
        expect(v, self.lu, "lu", shape, element_of(self.input))
        expect(v, self.pivots, "pivots", [*shape[:-2], min(shape[-2:])], None)
        expect(v, self.info, "info", shape[:-2], None)


class LuUnpackOp(PoplarOp, name="poplin_lu_unpack", traits=[ext.Pure]):
    """The permutation and triangular factors of a packed LU (ATen ``lu_unpack``).

    Semantics: for ``lu`` of ``m x n`` matrices (k = min(m, n)) and their ``pivots``,
    ``p`` is the ``m x m`` permutation matrix of the pivots, ``l`` the ``m x k`` unit lower
    triangular and ``u`` the ``k x n`` upper triangular factor, so ``a = p l u``. Without
    ``unpack_pivots``, ``p`` is an empty ``[0]`` tensor; without ``unpack_data``, ``l`` and
    ``u`` are.

    Example:
      %p, %l, %u = "poplar.poplin_lu_unpack"(%lu, %piv) {unpack_data = true, unpack_pivots = true}
             : (tensor<3x4xf32>, tensor<3xi32>) -> (tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x4xf32>)
    """

    lu: Tensor
    pivots: Tensor
    unpack_data: ir.IntegerAttr
    unpack_pivots: ir.IntegerAttr
    p: TensorResult
    l: TensorResult  # noqa: E741 - the factor's name
    u: TensorResult

    def check(self, v: Rules) -> None:
        shape = matrix(v, self.lu, "lu")
        batch, (m, n), k = shape[:-2], shape[-2:], min(shape[-2:])
        element = element_of(self.lu)
        expect(v, self.pivots, "pivots", [*batch, k], None)
        data, pivots = v.bool("unpack_data"), v.bool("unpack_pivots")
        expect(v, self.p, "p", [*batch, m, m] if pivots else [0], element)
        expect(v, self.l, "l", [*batch, m, k] if data else [0], element)
        expect(v, self.u, "u", [*batch, k, n] if data else [0], element)


class QrOp(PoplarOp, name="poplin_qr", traits=[ext.Pure]):
    """QR decomposition (``poplin::experimental::QRFactorization``; ATen ``linalg_qr``).

    Semantics: ``input = Q R`` for ``m x n`` matrices (k = min(m, n)), ``Q`` with
    orthonormal columns, ``R`` upper triangular. ``mode``: ``"reduced"`` (Q ``m x k``, R
    ``k x n``), ``"complete"`` (Q ``m x m``, R ``m x n``) or ``"r"`` (R ``k x n`` only,
    ``q`` an empty ``[0]`` tensor).

    Example:
      %q, %r = "poplar.poplin_qr"(%a) {mode = "reduced"}
             : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3x3xf32>)
    """

    input: Tensor
    mode: ir.StringAttr
    q: TensorResult
    r: TensorResult

    def check(self, v: Rules) -> None:
        shape = matrix(v, self.input, "input")
        mode = v.string("mode", choices=QR_MODES)
        batch, (m, n), k = shape[:-2], shape[-2:], min(shape[-2:])
        element = element_of(self.input)
        expect(v, self.q, "q", [0] if mode == "r" else [*batch, m, m if mode == "complete" else k], element)
        expect(v, self.r, "r", [*batch, m if mode == "complete" else k, n], element)


class GeqrfOp(PoplarOp, name="poplin_geqrf", traits=[ext.Pure]):
    """QR in Householder form (LAPACK ``geqrf``; ATen ``geqrf``).

    Semantics: ``a`` holds ``R`` on and above the diagonal and, below it, the Householder
    vectors ``v_i`` (their leading 1 not stored); ``tau`` (``min(m, n)`` per matrix) their
    scales, so that ``Q = H_1 ... H_k`` with ``H_i = I - tau_i v_i v_i^H``.

    Example:
      %a, %tau = "poplar.poplin_geqrf"(%x) : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>)
    """

    input: Tensor
    a: TensorResult
    tau: TensorResult

    def check(self, v: Rules) -> None:
        shape = matrix(v, self.input, "input")
        expect(v, self.a, "a", shape, element_of(self.input))
        expect(v, self.tau, "tau", [*shape[:-2], min(shape[-2:])], element_of(self.input))


class HouseholderProductOp(PoplarOp, name="poplin_householder_product", traits=[ext.Pure]):
    """The first ``n`` columns of a product of Householder reflections (LAPACK ``orgqr``;
    ATen ``linalg_householder_product``).

    Semantics: for ``input`` ``m x n`` (``m >= n``) holding vectors ``v_i`` below its
    diagonal (as ``geqrf`` leaves them) and ``tau`` (``k <= n`` per matrix), the result is
    the first ``n`` columns of ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^H``.

    Example:
      %q = "poplar.poplin_householder_product"(%a, %tau) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
    """

    input: Tensor
    tau: Tensor
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = matrix(v, self.input, "input")
        v.require(shape[-2] >= shape[-1], f"input must have at least as many rows as columns, got shape {shape}")
        tau = shape_of(self.tau, "tau")
        v.require(tau[:-1] == shape[:-2] and len(tau) == len(shape) - 1 and tau[-1] <= shape[-1],
                  f"tau shape must be {shape[:-2] + ['k']} with k <= {shape[-1]}, got {tau}")
        v.require(element_of(self.tau) == element_of(self.input), "tau and input must share one element type")
        expect(v, self.result, "result", shape, element_of(self.input))


class LdlFactorOp(PoplarOp, name="poplin_ldl_factor", traits=[ext.Pure]):
    """LDL^T (or LDL^H) factorisation of a symmetric (Hermitian) matrix with Bunch-Kaufman
    pivoting (LAPACK ``sytrf``; ATen ``linalg_ldl_factor_ex``).

    Semantics: ``ld`` packs the unit lower triangular ``L`` and the block diagonal ``D``
    (1x1 and 2x2 blocks) of ``P input P^T = L D L^T`` as LAPACK does; ``pivots`` (1-based,
    negative for a 2x2 block) the interchanges; ``info`` is 0 or the 1-based index of a
    zero diagonal entry of ``D``. With ``hermitian``, ``L D L^H`` of a complex matrix.
    Only the lower triangle of ``input`` is read.

    Example:
      %ld, %piv, %info = "poplar.poplin_ldl_factor"(%a) {hermitian = false}
             : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>, tensor<i32>)
    """

    input: Tensor
    hermitian: ir.IntegerAttr
    ld: TensorResult
    pivots: TensorResult
    info: TensorResult

    def check(self, v: Rules) -> None:
        shape = matrix(v, self.input, "input", square=True)
        v.bool("hermitian")
        expect(v, self.ld, "ld", shape, element_of(self.input))
        expect(v, self.pivots, "pivots", shape[:-1], None)
        expect(v, self.info, "info", shape[:-2], None)


class SvdOp(PoplarOp, name="poplin_svd", traits=[ext.Pure]):
    """Singular value decomposition (ATen ``_linalg_svd``).

    Semantics: ``input = U diag(S) Vh`` for ``m x n`` matrices (k = min(m, n)); ``s``
    (real, ``k`` per matrix) in descending order. With ``full_matrices``, ``u`` is
    ``m x m`` and ``vh`` ``n x n``; otherwise ``m x k`` and ``k x n``. Without
    ``compute_uv``, ``u`` and ``vh`` are empty ``[0]`` tensors. Singular vectors are
    unique only up to sign (phase); the IPU Model gives the ones eager gives.

    Example:
      %u, %s, %vh = "poplar.poplin_svd"(%a) {compute_uv = true, full_matrices = false}
             : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3x3xf32>)
    """

    input: Tensor
    full_matrices: ir.IntegerAttr
    compute_uv: ir.IntegerAttr
    u: TensorResult
    s: TensorResult
    vh: TensorResult

    def check(self, v: Rules) -> None:
        shape = matrix(v, self.input, "input")
        full, uv = v.bool("full_matrices"), v.bool("compute_uv")
        batch, (m, n), k = shape[:-2], shape[-2:], min(shape[-2:])
        element = element_of(self.input)
        expect(v, self.u, "u", [*batch, m, m if full else k] if uv else [0], element)
        expect(v, self.s, "s", [*batch, k], _real(element))
        expect(v, self.vh, "vh", [*batch, n if full else k, n] if uv else [0], element)


class EighOp(PoplarOp, name="poplin_eigh", traits=[ext.Pure]):
    """Eigendecomposition of a symmetric (Hermitian) matrix (LAPACK ``syevd``; ATen
    ``_linalg_eigh``).

    Semantics: real ``eigenvalues`` in ascending order and orthonormal ``eigenvectors``
    (columns) with ``input = V diag(w) V^H``, reading only the ``uplo`` triangle (``"L"`` or
    ``"U"``). Without ``compute_v``, ``eigenvectors`` is an empty ``[0]`` tensor.

    Example:
      %w, %v = "poplar.poplin_eigh"(%a) {compute_v = true, uplo = "L"}
             : (tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3x3xf32>)
    """

    input: Tensor
    uplo: ir.StringAttr
    compute_v: ir.IntegerAttr
    eigenvalues: TensorResult
    eigenvectors: TensorResult

    def check(self, v: Rules) -> None:
        shape = matrix(v, self.input, "input", square=True)
        v.string("uplo", choices=TRIANGLES)
        element = element_of(self.input)
        expect(v, self.eigenvalues, "eigenvalues", shape[:-1], _real(element))
        expect(v, self.eigenvectors, "eigenvectors", shape if v.bool("compute_v") else [0], element)


class EigOp(PoplarOp, name="poplin_eig", traits=[ext.Pure]):
    """Eigendecomposition of a general square matrix (LAPACK ``geev``; ATen ``linalg_eig``).

    Semantics: complex ``eigenvalues`` and ``eigenvectors`` (columns, each of norm 1) with
    ``input V = V diag(w)``; a real input gives complex results of its precision. The
    order of the eigenvalues is LAPACK's.

    Example:
      %w, %v = "poplar.poplin_eig"(%a)
             : (tensor<3x3xf32>) -> (tensor<3xcomplex<f32>>, tensor<3x3xcomplex<f32>>)
    """

    input: Tensor
    eigenvalues: TensorResult
    eigenvectors: TensorResult

    def check(self, v: Rules) -> None:
        shape = matrix(v, self.input, "input", square=True)
        element = _complex_of(element_of(self.input))
        expect(v, self.eigenvalues, "eigenvalues", shape[:-1], element)
        expect(v, self.eigenvectors, "eigenvectors", shape, element)

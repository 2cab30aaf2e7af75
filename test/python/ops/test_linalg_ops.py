"""Linear algebra (``torch.linalg``) end to end: each function in a tiny model through
``poptorch.inferenceModel`` against eager PyTorch (FP32), one SGD step through the
differentiable ones, and the effect tokens of torch's error checks.

Eager ``torch.linalg`` functions check their ``info`` codes with ``aten._linalg_check_errors``,
which torch registers as effectful (the export threads a token through it). The capture
drops that check (an IPU program cannot raise on data); any other effectful op is refused
with a CaptureError that names it.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
import torch.nn as nn
from helpers.op_runs import FunctionModel, check_inference, check_training_step

import poptorch
from ipu_mlir.compiler.frontend.capture import CaptureError
from ipu_mlir.compiler.pass_pipeline import PipelineError

_G = torch.Generator().manual_seed(0)
SQUARE = torch.randn(2, 4, 4, generator=_G) + 4 * torch.eye(4)  # a batch of well-conditioned matrices
TALL = torch.randn(2, 5, 3, generator=_G)
RHS = torch.randn(2, 4, 3, generator=_G)
VECTOR = torch.randn(4, generator=_G)
EYE = torch.eye(4)


def _spd(a: torch.Tensor) -> torch.Tensor:
    """A symmetric positive-definite matrix made of ``a``."""
    return a @ a.mT + 4 * torch.eye(a.shape[-1])


def _sym(a: torch.Tensor) -> torch.Tensor:
    return a + a.mT


# name -> (function of the inputs, inputs); every case runs batched (leading batch dims)
CASES: dict[str, tuple[Callable, tuple]] = {
    "inv": (torch.linalg.inv, (SQUARE,)),
    "inv_ex": (torch.linalg.inv_ex, (SQUARE,)),
    "tensorinv": (lambda a: torch.linalg.tensorinv(a[0].reshape(4, 2, 2), ind=1), (SQUARE,)),
    "solve": (torch.linalg.solve, (SQUARE, RHS)),
    "solve_vector_broadcast": (torch.linalg.solve, (SQUARE, VECTOR)),
    "solve_right": (lambda a, b: torch.linalg.solve(a, b.mT, left=False), (SQUARE, RHS)),
    "solve_ex": (torch.linalg.solve_ex, (SQUARE, RHS)),
    "tensorsolve": (lambda a, b: torch.linalg.tensorsolve(a[0].reshape(2, 2, 4), b[0, :, 0].reshape(2, 2)), (SQUARE, RHS)),
    "solve_triangular_upper": (lambda a, b: torch.linalg.solve_triangular(a.triu(), b, upper=True), (SQUARE, RHS)),
    "solve_triangular_right_unit": (
        lambda a, b: torch.linalg.solve_triangular(a.tril(), b.mT, upper=False, left=False, unitriangular=True), (SQUARE, RHS)),
    "triangular_solve_transpose": (lambda a, b: torch.triangular_solve(b, a.triu(), transpose=True), (SQUARE, RHS)),
    "triangular_solve_broadcast": (lambda a, b: torch.triangular_solve(b, a[0].tril(), upper=False), (SQUARE, RHS)),
    "cholesky": (lambda a: torch.linalg.cholesky(_spd(a)), (SQUARE,)),
    "cholesky_upper": (lambda a: torch.linalg.cholesky(_spd(a), upper=True), (SQUARE,)),
    "cholesky_ex": (lambda a: torch.linalg.cholesky_ex(_spd(a)), (SQUARE,)),
    "cholesky_ex_info_of_indefinite": (lambda a: torch.linalg.cholesky_ex(-_spd(a)).info, (SQUARE,)),
    "torch_cholesky": (lambda a: torch.cholesky(_spd(a)), (SQUARE,)),
    "cholesky_solve": (lambda a, b: torch.cholesky_solve(b, torch.linalg.cholesky(_spd(a))), (SQUARE, RHS)),
    "cholesky_inverse": (lambda a: torch.cholesky_inverse(torch.linalg.cholesky(_spd(a), upper=True), upper=True), (SQUARE,)),
    "lu_factor": (torch.linalg.lu_factor, (SQUARE,)),
    "lu_factor_ex_wide": (lambda a: torch.linalg.lu_factor_ex(a.mT), (TALL,)),
    "lu": (torch.linalg.lu, (TALL,)),
    "lu_unpack": (lambda a: torch.lu_unpack(*torch.linalg.lu_factor(a)), (TALL,)),
    "lu_solve_adjoint": (lambda a, b: torch.linalg.lu_solve(*torch.linalg.lu_factor(a), b, adjoint=True), (SQUARE, RHS)),
    "det": (torch.linalg.det, (SQUARE,)),
    "det_singular": (lambda a: torch.linalg.det(a * torch.tensor([1.0, 1.0, 0.0, 1.0])), (SQUARE,)),
    "slogdet": (torch.linalg.slogdet, (SQUARE,)),
    "logdet": (lambda a: torch.logdet(_spd(a)), (SQUARE,)),
    "qr": (torch.linalg.qr, (TALL,)),
    "qr_complete": (lambda a: torch.linalg.qr(a, mode="complete"), (TALL,)),
    "qr_r": (lambda a: torch.linalg.qr(a, mode="r").R, (TALL,)),
    "geqrf_householder_product": (lambda a: torch.linalg.householder_product(*torch.geqrf(a)), (TALL,)),
    "ormqr": (lambda a: torch.ormqr(*torch.geqrf(a), a * 2 - 1, transpose=True), (TALL,)),
    "ldl": (lambda a, b: torch.linalg.ldl_solve(*torch.linalg.ldl_factor(_sym(a)), b), (SQUARE, RHS)),
    "svd": (lambda a: torch.linalg.svd(a, full_matrices=False), (TALL,)),
    "svd_full": (torch.linalg.svd, (TALL,)),
    "svdvals": (torch.linalg.svdvals, (TALL,)),
    "matrix_norm_nuc": (lambda a: torch.linalg.matrix_norm(a, ord="nuc"), (TALL,)),
    "cond": (torch.linalg.cond, (SQUARE,)),
    "matrix_rank": (torch.linalg.matrix_rank, (TALL,)),
    "pinv": (torch.linalg.pinv, (TALL,)),
    "pinv_rtol": (lambda a: torch.linalg.pinv(a, rtol=0.3), (TALL,)),
    "pinv_hermitian": (lambda a: torch.linalg.pinv(_sym(a), hermitian=True), (SQUARE,)),
    "eigh": (lambda a: torch.linalg.eigh(_sym(a)), (SQUARE,)),
    "eigh_upper": (lambda a: torch.linalg.eigh(a, UPLO="U"), (SQUARE,)),
    "eigvalsh": (lambda a: torch.linalg.eigvalsh(_sym(a)), (SQUARE,)),
    "eig": (torch.linalg.eig, (SQUARE,)),
    "eigvals": (torch.linalg.eigvals, (SQUARE,)),
    "matrix_exp": (lambda a: torch.linalg.matrix_exp(a / 4), (SQUARE,)),
}


@pytest.mark.parametrize("name", CASES)
def test_op_matches_eager(name: str) -> None:
    fn, inputs = CASES[name]
    check_inference(fn, *inputs)


# name -> (function of one tensor, its input): one SGD step through the op's gradient
TRAINING: dict[str, tuple[Callable, torch.Tensor]] = {
    "inv": (torch.linalg.inv, SQUARE),
    "solve": (lambda a: torch.linalg.solve(a, RHS), SQUARE),
    "solve_triangular": (lambda a: torch.linalg.solve_triangular(a.triu(), RHS, upper=True), SQUARE),
    "cholesky": (lambda a: torch.linalg.cholesky(_spd(a)), SQUARE),
    "lu_factor": (lambda a: torch.linalg.lu_factor(a).LU, SQUARE),
    "lu": (lambda a: torch.linalg.lu(a).U, TALL),
    "det": (torch.linalg.det, SQUARE),
    "slogdet": (lambda a: torch.linalg.slogdet(a).logabsdet, SQUARE),
    "qr": (lambda a: torch.linalg.qr(a).R, TALL),
    "svdvals": (torch.linalg.svdvals, TALL),
    "eigvalsh": (lambda a: torch.linalg.eigvalsh(_sym(a)), SQUARE),
    "pinv": (torch.linalg.pinv, TALL),
    "matrix_exp": (lambda a: torch.linalg.matrix_exp(a / 4), SQUARE),
}


@pytest.mark.parametrize("name", TRAINING)
def test_training_step_through_op_matches_eager(name: str) -> None:
    fn, x = TRAINING[name]
    check_training_step(fn, x)


def test_singular_matrix_is_not_checked() -> None:
    """Eager raises on a singular matrix; the compiled program cannot raise on data, so it
    returns what the factorisation computes (eager's ``inv_ex`` result) instead."""
    singular = torch.zeros(2, 3, 3)
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.inv(singular)
    got = poptorch.inferenceModel(FunctionModel(torch.linalg.inv))(singular)
    torch.testing.assert_close(got, torch.linalg.inv_ex(singular).inverse, equal_nan=True)


def test_lu_without_pivoting_is_refused() -> None:
    with pytest.raises(PipelineError, match=r"LU without pivoting \(pivot=False\) is not supported"):
        poptorch.inferenceModel(FunctionModel(lambda a: torch.linalg.lu_factor(a, pivot=False)))(SQUARE)


def _prints(x: torch.Tensor) -> torch.Tensor:
    torch.ops.aten._print("hello")
    return x * 2


class _PrintingLoss(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return poptorch.identity_loss(_prints(x * self.w).sum(), reduction="sum")


def test_other_effectful_op_is_refused_in_inference() -> None:
    with pytest.raises(CaptureError, match=r"the model calls aten\._print\.default, which has side effects"):
        poptorch.inferenceModel(FunctionModel(_prints))(torch.randn(3))


def test_other_effectful_op_is_refused_in_training() -> None:
    model = _PrintingLoss()
    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(model.parameters(), lr=0.1))
    with pytest.raises(CaptureError, match=r"the model calls aten\._print\.default, which has side effects"):
        training(torch.randn(3))


def test_linalg_error_check_keeps_its_effect_outside_capture() -> None:
    """The capture lifts the check's effect only while it traces: eager still raises."""
    from torch._higher_order_ops.effects import _get_effect

    poptorch.inferenceModel(FunctionModel(lambda x: x + 1))(torch.randn(2))
    assert _get_effect("aten::_linalg_check_errors") is not None
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.inv(torch.zeros(2, 2))

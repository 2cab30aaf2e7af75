"""Round trip of the matrix decompositions' C++ (issue 18): one model calls the Householder
QR family, eigh, the SVD, the pseudo-inverse, the matrix exponential and the LDL^T
factorisation and solve; its emitted C++ (calls of poplin/Decompositions.hpp) is built
against tools/poplar-host and run, and each output is compared with the IPU Model's (which
gives eager's LAPACK results). Skipped only when no C++ compiler is found."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

import poptorch
from helpers import FP32

sys.path.insert(0, str(Path(__file__).parent))
from test_roundtrip import CXX, _build_and_run, host_library  # noqa: E402, F401  (the module's fixture)

pytestmark = pytest.mark.skipif(CXX is None, reason="no C++ compiler (g++ / c++ / $CXX) on PATH: the emitted C++ cannot be built")

# the outputs of Decompositions.forward, in order
EXACT = ["q", "r", "q_complete", "r_complete", "r_only", "geqrf", "tau", "orgqr", "orgqr_2", "ormqr_left", "ormqr_left_t",
         "ormqr_right", "ormqr_right_t", "eigenvalues", "eigenvalues_upper", "s", "s_wide", "svdvals", "pinv", "pinv_wide",
         "pinv_hermitian", "matrix_exp", "ld", "pivots", "ldl_solved"]
UP_TO_SIGN = ["eigenvectors", "u", "vh", "u_wide", "vh_wide"]
GENERAL = ["eig_values", "eig_vectors"]  # up to order and phase


class Decompositions(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        # symmetric and indefinite with a small diagonal: Bunch-Kaufman takes 2x2 pivots and interchanges rows
        self.register_buffer("indefinite", torch.tensor([[0.01, 1.0, 2.0, 0.5], [1.0, 0.02, 3.0, 1.0],
                                                         [2.0, 3.0, 0.03, -1.0], [0.5, 1.0, -1.0, 4.0]]))
        self.register_buffer("eye", torch.eye(3))
        # eigenvalues near +-2i, 1 and 3: a complex pair and two real ones
        self.register_buffer("rotation", torch.tensor([[0.0, -2.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0],
                                                       [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 3.0]]))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:  # x [2, 4, 3]
        q, r = torch.linalg.qr(x)
        q_complete, r_complete = torch.linalg.qr(x.transpose(1, 2), mode="complete")  # wide 3 x 4
        r_only = torch.linalg.qr(x[0], mode="r")[1]
        a, tau = torch.geqrf(x)
        orgqr, orgqr_2 = torch.linalg.householder_product(a, tau), torch.linalg.householder_product(a, tau[:, :2])
        c = x[:, :, :2].flip(1) * 1.5 + 0.25  # not in Q's span: no product is rounding noise around 0
        ormqr = [torch.ormqr(a, tau, c, left=True, transpose=False), torch.ormqr(a, tau, c, left=True, transpose=True),
                 torch.ormqr(a, tau, c.transpose(1, 2), left=False, transpose=False),
                 torch.ormqr(a, tau, c.transpose(1, 2), left=False, transpose=True)]
        sym = x.transpose(1, 2) @ x - 1.5 * self.eye  # [2, 3, 3], indefinite
        lopsided = sym + torch.triu(torch.ones(3, 3), 1) * 7.0  # only the upper triangle differs: UPLO matters
        w, v = torch.linalg.eigh(sym)
        w_upper = torch.linalg.eigvalsh(lopsided, UPLO="U")
        u, s, vh = torch.linalg.svd(x, full_matrices=False)
        u_wide, s_wide, vh_wide = torch.linalg.svd(x[0].T)  # 3 x 4, full matrices: Vh 4 x 4
        ld, pivots = torch.linalg.ldl_factor(self.indefinite + 0.01 * x[0, 0, 0])
        return (q, r, q_complete, r_complete, r_only, a, tau, orgqr, orgqr_2, *ormqr, w, w_upper, s, s_wide,
                torch.linalg.svdvals(x), torch.linalg.pinv(x), torch.linalg.pinv(x[1].T, atol=0.5),  # Python float: f64 constant
                torch.linalg.pinv(lopsided, hermitian=True), torch.linalg.matrix_exp(sym * 0.3),
                ld, pivots, torch.linalg.ldl_solve(ld, pivots, x[0] + 1.0),
                v, u, vh, u_wide, vh_wide, *torch.linalg.eig(self.rotation + 0.1 * torch.cat([x, x[:, :, :1]], 2)))


def _same_up_to_sign(got: torch.Tensor, want: torch.Tensor, dim: int) -> None:
    """Singular / eigen vectors are unique up to a sign each (LAPACK's choice follows from its
    algorithm, which the host library does not reproduce): flip each of ``got``'s vectors
    (along ``dim``: -1 for columns, -2 for rows) to the IPU Model's sign, then compare."""
    sign = torch.sign((got * want).sum(dim, keepdim=True))
    torch.testing.assert_close(got * sign, want, **FP32)


def test_emitted_decompositions_match_the_ipu_model(host_library: Path, tmp_path: Path) -> None:
    """Exact (fp32 rtol 1e-5) where LAPACK's result is unique: Householder QR with LAPACK's sign
    convention (R's diagonal -sign(a_kk) * norm) and the products of its reflectors, the
    eigenvalues (ascending) and singular values, the pseudo-inverse, the matrix exponential,
    Bunch-Kaufman's packed factor and pivots and the LDL solve. Eigenvectors and singular
    vectors are compared up to one sign per vector (and u / vh flip together, since
    s = u^T a v); the full SVD's Vh rows beyond the rank (any orthonormal completion) are
    checked by orthonormality and by reconstructing the input; the general eigendecomposition
    (complex results) up to the eigenvalues' order and each vector's phase."""
    torch.manual_seed(0)
    x = torch.randn(2, 4, 3)
    wrapper = poptorch.inferenceModel(Decompositions(), poptorch.Options())
    expected = wrapper(x)
    assert len(expected) == len(EXACT) + len(UP_TO_SIGN) + len(GENERAL)
    source = tmp_path / "program.cpp"
    wrapper.exportPoplarCpp(str(source))
    text = source.read_text()
    assert "#include <poplin/Decompositions.hpp>" in text and "poplin::ldlFactor(" in text
    interface = wrapper._compiled.executable.interface
    [spec] = wrapper._compiled.captured.inputs
    (tmp_path / f"{interface.input_stream(spec.name)}.bin").write_bytes(x.numpy().tobytes())
    _build_and_run(source, host_library, "decompositions")

    got = {}
    for index, (name, want) in enumerate(zip(EXACT + UP_TO_SIGN + GENERAL, expected, strict=True)):
        raw = np.fromfile(tmp_path / f"{interface.output_stream(index)}.bin", dtype=want.numpy().dtype)
        assert raw.size == want.numel(), name
        got[name] = torch.from_numpy(raw).reshape(want.shape)
    want = dict(zip(EXACT + UP_TO_SIGN + GENERAL, expected, strict=True))
    assert (want["pivots"] < 0).any() and (want["pivots"].abs() != torch.arange(1, 5)).any()  # 2x2 blocks and interchanges
    for name in EXACT:
        torch.testing.assert_close(got[name], want[name], **FP32, msg=lambda m, n=name: f"{n}: {m}")
    _same_up_to_sign(got["eigenvectors"], want["eigenvectors"], -2)
    sign = torch.sign((got["u"] * want["u"]).sum(-2, keepdim=True))  # one sign per singular pair
    torch.testing.assert_close(got["u"] * sign, want["u"], **FP32)
    torch.testing.assert_close(got["vh"] * sign.transpose(-1, -2), want["vh"], **FP32)
    sign = torch.sign((got["u_wide"] * want["u_wide"]).sum(-2, keepdim=True))  # [1, 3]
    torch.testing.assert_close(got["u_wide"] * sign, want["u_wide"], **FP32)
    torch.testing.assert_close(got["vh_wide"][:3] * sign.T, want["vh_wide"][:3], **FP32)
    vh_wide = got["vh_wide"]
    torch.testing.assert_close(vh_wide @ vh_wide.T, torch.eye(4), **FP32)
    torch.testing.assert_close(got["u_wide"] @ torch.diag(got["s_wide"]) @ vh_wide[:3], x[0].T, **FP32)
    _same_eigenpairs(got["eig_values"], got["eig_vectors"], want["eig_values"], want["eig_vectors"])


def _same_eigenpairs(values: torch.Tensor, vectors: torch.Tensor, want_values: torch.Tensor, want_vectors: torch.Tensor) -> None:
    """A general eigendecomposition is unique up to the eigenvalues' order (LAPACK's follows
    from its QR iteration, which the host library does not reproduce) and a unit complex
    factor per eigenvector: each IPU Model eigenvalue is matched with the nearest emitted one
    (the eigenvalues are well apart), then values and phase-aligned vectors compare within fp32."""
    assert want_values.dtype == torch.complex64 and values.dtype == torch.complex64
    for b in range(values.shape[0]):
        order = [int((values[b] - w).abs().argmin()) for w in want_values[b]]
        assert sorted(order) == list(range(values.shape[1]))
        torch.testing.assert_close(values[b, order], want_values[b], **FP32)
        got = vectors[b][:, order]
        dot = (got.conj() * want_vectors[b]).sum(0, keepdim=True)
        torch.testing.assert_close(got * dot / dot.abs(), want_vectors[b], **FP32)

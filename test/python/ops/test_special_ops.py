"""Special functions and the remaining element-wise math end to end (``special.py``): each
op in a tiny model through ``poptorch.inferenceModel`` against eager PyTorch (FP32, eager's
dtypes: integer inputs promote to float), one SGD step through the differentiable ones
(their gradients use digamma, polygamma, i0, i1, erfc... themselves).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from helpers.op_runs import check_inference, check_training_step

_G = torch.Generator().manual_seed(0)
X = torch.randn(3, 4, generator=_G)
Y = torch.randn(3, 4, generator=_G)
ROW = torch.randn(4, generator=_G)
POSITIVE = torch.rand(3, 4, generator=_G) * 3 + 0.25
UNIT = torch.rand(3, 4, generator=_G) * 1.8 - 0.9
PROBABILITY = torch.rand(3, 4, generator=_G) * 0.9 + 0.05
INTS = torch.randint(1, 6, (3, 4), generator=_G)
DEGREES = torch.randint(0, 6, (3, 4), generator=_G).float()
EXPONENTS = torch.randint(-3, 4, (4,), generator=_G)

_UNARY: dict[str, Callable] = {
    "lgamma": torch.lgamma, "digamma": torch.digamma, "erfc": torch.erfc, "erfcx": torch.special.erfcx,
    "exp2": torch.exp2, "i0": torch.i0, "i0e": torch.special.i0e, "i1": torch.special.i1, "i1e": torch.special.i1e,
    "log_ndtr": torch.special.log_ndtr, "bessel_j0": torch.special.bessel_j0, "bessel_j1": torch.special.bessel_j1,
    "bessel_y0": torch.special.bessel_y0, "bessel_y1": torch.special.bessel_y1,
    "modified_bessel_i0": torch.special.modified_bessel_i0, "modified_bessel_i1": torch.special.modified_bessel_i1,
    "modified_bessel_k0": torch.special.modified_bessel_k0, "modified_bessel_k1": torch.special.modified_bessel_k1,
    "scaled_modified_bessel_k0": torch.special.scaled_modified_bessel_k0,
    "scaled_modified_bessel_k1": torch.special.scaled_modified_bessel_k1,
    "spherical_bessel_j0": torch.special.spherical_bessel_j0, "airy_ai": torch.special.airy_ai,
}

# name -> (function of the inputs, inputs)
CASES: dict[str, tuple[Callable, tuple]] = {
    **{name: (fn, (POSITIVE,)) for name, fn in _UNARY.items()},
    "erfc_negative": (torch.erfc, (X,)),
    "i1_negative": (torch.special.i1, (X,)),
    "airy_ai_negative": (torch.special.airy_ai, (X * 3,)),
    "lgamma_of_ints_is_float": (torch.lgamma, (INTS,)),
    "i0e_of_ints_is_float": (torch.special.i0e, (INTS,)),
    "erfinv": (torch.erfinv, (UNIT,)),
    "ndtri": (torch.special.ndtri, (PROBABILITY,)),
    "polygamma_0": (lambda x: torch.polygamma(0, x), (POSITIVE,)),
    "polygamma_3": (lambda x: torch.polygamma(3, x), (POSITIVE,)),
    "special_polygamma": (lambda x: torch.special.polygamma(2, x), (POSITIVE,)),
    "mvlgamma": (lambda x: torch.mvlgamma(x + 2, 3), (POSITIVE,)),
    "igamma": (torch.igamma, (POSITIVE, POSITIVE.flip(0))),
    "igammac_broadcast": (torch.igammac, (POSITIVE, ROW.abs() + 0.1)),
    "zeta": (torch.special.zeta, (POSITIVE + 1, POSITIVE)),
    "zeta_scalar_q": (lambda x: torch.special.zeta(x + 1, 2.0), (POSITIVE,)),
    "hypot": (torch.hypot, (X, Y)),
    "copysign": (torch.copysign, (X, Y)),
    "copysign_scalar": (lambda x: torch.copysign(x, -1.0), (X,)),
    "copysign_ints_is_float": (torch.copysign, (INTS, Y)),
    "nextafter": (torch.nextafter, (X, Y)),
    "fmax": (torch.fmax, (X, Y)),
    "fmin_broadcast": (torch.fmin, (X, ROW)),
    "fmax_ints": (torch.fmax, (INTS, INTS.flip(1))),
    "fmin_nan": (lambda x, y: torch.fmin(torch.where(x > 0, x, float("nan")), y), (X, Y)),
    "ldexp": (torch.ldexp, (X, EXPONENTS)),
    "logaddexp2": (torch.logaddexp2, (X, Y)),
    "frexp": (torch.frexp, (X * 100,)),
    "signbit": (torch.signbit, (X,)),
    "signbit_ints": (torch.signbit, (INTS - 3,)),
    "chebyshev_t_tensor_degree": (torch.special.chebyshev_polynomial_t, (UNIT, DEGREES)),
    "chebyshev_u_scalar_degree": (lambda x: torch.special.chebyshev_polynomial_u(x, 4), (UNIT,)),
    "chebyshev_v": (torch.special.chebyshev_polynomial_v, (UNIT, DEGREES)),
    "chebyshev_w": (torch.special.chebyshev_polynomial_w, (UNIT, DEGREES)),
    "shifted_chebyshev_t": (torch.special.shifted_chebyshev_polynomial_t, (PROBABILITY, DEGREES)),
    "shifted_chebyshev_u": (torch.special.shifted_chebyshev_polynomial_u, (PROBABILITY, DEGREES)),
    "shifted_chebyshev_v": (torch.special.shifted_chebyshev_polynomial_v, (PROBABILITY, DEGREES)),
    "shifted_chebyshev_w": (torch.special.shifted_chebyshev_polynomial_w, (PROBABILITY, DEGREES)),
    "hermite_h": (torch.special.hermite_polynomial_h, (X, DEGREES)),
    "hermite_he_scalar_degree": (lambda x: torch.special.hermite_polynomial_he(x, 3), (X,)),
    "laguerre_l": (torch.special.laguerre_polynomial_l, (POSITIVE, DEGREES)),
    "legendre_p": (torch.special.legendre_polynomial_p, (UNIT, DEGREES)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_op_matches_eager(name: str) -> None:
    fn, inputs = CASES[name]
    check_inference(fn, *inputs)


# name -> (function of one float tensor, an input in its domain)
TRAINED: dict[str, tuple[Callable, torch.Tensor]] = {
    "lgamma": (torch.lgamma, POSITIVE),
    "digamma": (torch.digamma, POSITIVE),
    "polygamma_2": (lambda x: torch.polygamma(2, x), POSITIVE),
    "mvlgamma": (lambda x: torch.mvlgamma(x + 2, 3), POSITIVE),
    "erfc": (torch.erfc, X),
    "erfcx": (torch.special.erfcx, X),
    "log_ndtr": (torch.special.log_ndtr, X),
    "erfinv": (lambda x: torch.erfinv(torch.tanh(x) * 0.9), X),
    "ndtri": (lambda x: torch.special.ndtri(torch.sigmoid(x)), X),
    "exp2": (torch.exp2, X),
    "logaddexp2": (lambda x: torch.logaddexp2(x, x.flip(0)), X),
    "i0": (torch.i0, X),
    "i0e": (torch.special.i0e, X),
    "i1": (torch.special.i1, X),
    "i1e": (torch.special.i1e, X),
    "igamma": (lambda x: torch.igamma(torch.full_like(x, 2.0), x.abs() + 0.5), X),
    "hypot": (lambda x: torch.hypot(x, x.flip(1)), X),
    "copysign": (lambda x: torch.copysign(x, x.flip(0)), X),
    "fmax": (lambda x: torch.fmax(x, x.flip(0)), X),
    "fmin": (lambda x: torch.fmin(x, x.flip(1)), X),
    "ldexp": (lambda x: torch.ldexp(x, EXPONENTS), X),
    "frexp_mantissa": (lambda x: torch.frexp(x * 10).mantissa, X),
    "sgn": (torch.sgn, X),
    "angle": (torch.angle, X),
}


@pytest.mark.parametrize("name", list(TRAINED))
def test_training_step_through_op_matches_eager(name: str) -> None:
    fn, x = TRAINED[name]
    check_training_step(fn, x)


def test_frexp_gives_an_int32_exponent_and_a_mantissa_in_half_to_one() -> None:
    x = torch.tensor([0.0, -0.0, 1.0, -3.0, 1e-20, 6.5e4])
    mantissa, exponent = check_inference(torch.frexp, x)
    assert exponent.dtype == torch.int32
    assert exponent.tolist() == [0, 0, 1, 2, -66, 16]
    assert mantissa.abs()[2:].ge(0.5).all() and mantissa.abs()[2:].lt(1).all()


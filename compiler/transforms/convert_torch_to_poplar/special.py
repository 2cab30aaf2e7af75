"""Special functions and the remaining element-wise math: gamma family (lgamma, digamma,
polygamma, igamma), error functions, Bessel functions, orthogonal polynomials, hypot,
copysign, nextafter, fmax / fmin, ldexp, frexp, signbit, each one ``poplar.popops_map``
function (a Poplar element-wise codelet), and ``_efficientzerotensor`` (the zeros some
gradient formulas produce)."""

from __future__ import annotations

from typing import Any

from torch_mlir import ir

from ipu_mlir.support.registry import Registry

from ... import torch_ir
from ...lowering import Lowering, Pattern, Unsupported, base_name, is_float, literal, result_type
from .elementwise import _expression

# Unary functions of a float: integer and boolean inputs promote to the float result type.
_UNARY = {
    "torch.aten.lgamma": "lgamma", "torch.aten.digamma": "digamma", "torch.aten.erfc": "erfc",
    "torch.aten.special_erfcx": "erfcx", "torch.aten.erfinv": "erfinv", "torch.aten.exp2": "exp2",
    "torch.aten.i0": "i0", "torch.aten.special_i0e": "i0e", "torch.aten.special_i1": "i1",
    "torch.aten.special_i1e": "i1e", "torch.aten.special_ndtri": "ndtri", "torch.aten.special_log_ndtr": "log_ndtr",
    "torch.aten.special_bessel_j0": "bessel_j0", "torch.aten.special_bessel_j1": "bessel_j1",
    "torch.aten.special_bessel_y0": "bessel_y0", "torch.aten.special_bessel_y1": "bessel_y1",
    "torch.aten.special_modified_bessel_i0": "modified_bessel_i0",
    "torch.aten.special_modified_bessel_i1": "modified_bessel_i1",
    "torch.aten.special_modified_bessel_k0": "modified_bessel_k0",
    "torch.aten.special_modified_bessel_k1": "modified_bessel_k1",
    "torch.aten.special_scaled_modified_bessel_k0": "scaled_modified_bessel_k0",
    "torch.aten.special_scaled_modified_bessel_k1": "scaled_modified_bessel_k1",
    "torch.aten.special_spherical_bessel_j0": "spherical_bessel_j0", "torch.aten.special_airy_ai": "airy_ai",
}

# Binary functions: both operands (a tensor, or a scalar as a literal) in the result's
# element type, as eager promotes them.
_BINARY = {
    "torch.aten.igamma": "igamma", "torch.aten.igammac": "igammac", "torch.aten.special_zeta": "zeta",
    "torch.aten.hypot": "hypot", "torch.aten.copysign": "copysign", "torch.aten.nextafter": "nextafter",
    "torch.aten.fmax": "fmax", "torch.aten.fmin": "fmin", "torch.aten.ldexp": "ldexp",
    **{f"torch.aten.special_{name}": name for name in (
        "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
        "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
        "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
        "legendre_polynomial_p")},
}


def _function(table: dict[str, str], op: ir.Operation) -> str:
    name = torch_ir.aten_name(op)
    return table[name] if name in table else table[base_name(name)]


def lower_special_unary(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x = lw.cast(lw.v(op.operands[0]), out.element_type)
    return [lw.map(f"{_function(_UNARY, op)}(_1)", [x], out)]


def lower_special_binary(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    if not is_float(out.element_type) and _function(_BINARY, op) not in ("fmax", "fmin"):
        raise Unsupported(f"{torch_ir.aten_name(op)} with a {out.element_type} result (eager computes it in floating point)")
    return [_expression(_function(_BINARY, op), lw, op.operands[0], op.operands[1], out.element_type, out)]


def lower_polygamma(lw: Lowering, op: ir.Operation) -> list[Any]:
    """polygamma (n, self): the n-th derivative of digamma; n is a constant int, an
    integer literal of the map (``polygamma(2, _1)``)."""
    out = result_type(op)
    n = lw.const(op.operands[0], "polygamma's order n")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise Unsupported(f"polygamma of order {n!r} (the order must be a non-negative int, as eager requires)")
    x = lw.cast(lw.v(op.operands[1]), out.element_type)
    return [lw.map(f"polygamma({literal(n)}, _1)", [x], out)]


def lower_signbit(lw: Lowering, op: ir.Operation) -> list[Any]:
    """signbit: whether the sign bit is set (true for -0.0 and negative ints), a bool."""
    return [lw.map("signbit(_1)", [lw.v(op.operands[0])], result_type(op))]


def lower_frexp(lw: Lowering, op: ir.Operation) -> list[Any]:
    """frexp.Tensor: ``x = mantissa * 2 ** exponent`` with |mantissa| in [0.5, 1) (0 for 0),
    the mantissa in x's float type and the exponent int32: two maps over x."""
    mantissa, exponent = result_type(op, 0), result_type(op, 1)
    x = lw.v(op.operands[0])
    if not is_float(mantissa.element_type):
        raise Unsupported(f"frexp of {mantissa.element_type} elements (eager takes floating point only)")
    return [lw.map("frexp_mantissa(_1)", [x], mantissa), lw.map("frexp_exponent(_1)", [x], exponent)]


def lower_efficient_zero_tensor(lw: Lowering, op: ir.Operation) -> list[Any]:
    """_efficientzerotensor (size, dtype, layout, device, pin_memory): a tensor of zeros
    (the gradient ATen's formulas give where it is known to vanish, e.g. sgn's)."""
    out = result_type(op)
    return [lw.zeros_or_ones(0, out.shape, out.element_type)]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: special functions and the remaining element-wise math."""
    patterns.register(*_UNARY)(lower_special_unary)
    patterns.register(*_BINARY)(lower_special_binary)
    patterns.register("torch.aten.polygamma")(lower_polygamma)
    patterns.register("torch.aten.signbit")(lower_signbit)
    patterns.register("torch.aten.frexp.Tensor")(lower_frexp)
    patterns.register("torch.aten._efficientzerotensor")(lower_efficient_zero_tensor)

"""Element-wise kernels against torch: binary ops, casts, map expressions and the
in-place maps that poplar-plan-in-place forms."""

from __future__ import annotations

import pytest
import torch

EXACT = {"rtol": 0, "atol": 0}


@pytest.mark.parametrize(("name", "reference"), [("add", torch.add), ("sub", torch.sub), ("mul", torch.mul), ("div", torch.div)])
def test_binary_ops_broadcast_like_torch(kernel_of, name, reference) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<2x3xf32>, %b: tensor<3xf32>",
                   f'%0 = "poplar.popops_{name}"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>')
    a, b = torch.randn(2, 3), torch.randn(3)
    torch.testing.assert_close(fn(a, b), reference(a, b), **EXACT)


def test_integer_division_truncates_as_popops_div(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<4xi32>, %b: tensor<4xi32>",
                   '%0 = "poplar.popops_div"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>')
    a, b = torch.tensor([7, -7, 9, -1], dtype=torch.int32), torch.tensor([2, 2, -4, 3], dtype=torch.int32)
    assert fn(a, b).tolist() == [3, -3, -2, 0]


def test_cast(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<3xf32>", '%0 = "poplar.popops_cast"(%a) : (tensor<3xf32>) -> tensor<3xf16>')
    a = torch.randn(3)
    out = fn(a)
    assert out.dtype == torch.float16
    torch.testing.assert_close(out, a.to(torch.float16), **EXACT)


def test_map_expression_with_a_broadcast_operand(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<2x3xf32>, %b: tensor<3xf32>",
                   '%0 = "poplar.popops_map"(%a, %b) {expr = "add(mul(_1, _2), 1.0)", operandSegmentSizes = array<i32: 1, 1, 0>}'
                   " : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>")
    a, b = torch.randn(2, 3), torch.randn(3)
    torch.testing.assert_close(fn(a, b), a * b + 1.0, **EXACT)


def test_map_select_and_comparison_give_torch_where(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<5xf32>",
                   '%0 = "poplar.popops_map"(%a) {expr = "select(gt(_1, 0.0), _1, mul(_1, 0.1))", operandSegmentSizes = array<i32: 1, 0, 0>}'
                   " : (tensor<5xf32>) -> tensor<5xf32>")
    a = torch.randn(5)
    torch.testing.assert_close(fn(a), torch.where(a > 0, a, a * 0.1), **EXACT)


def test_map_fills_a_literal_of_the_result_type(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<2x3xf32>",
                   '%0 = "poplar.popops_map"(%a) {expr = "2.5", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>')
    torch.testing.assert_close(fn(torch.randn(2, 3)), torch.full((2, 3), 2.5), **EXACT)


def test_map_of_integers_keeps_integer_literals(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<3xi64>",
                   '%0 = "poplar.popops_map"(%a) {expr = "add(_1, 1.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<3xi64>) -> tensor<3xi64>')
    out = fn(torch.tensor([1, 2, 3]))
    assert out.dtype == torch.int64 and out.tolist() == [2, 3, 4]


@pytest.mark.parametrize(("expr", "expected"), [("add(_1, mul(_2, 3))", [0, 4, 8]), ("sub(_1, mul(_2, 3))", [0, -2, -4])])
def test_scaled_add_of_integers_stays_integer(kernel_of, expr: str, expected: list[int]) -> None:  # noqa: ANN001
    # a +- b * k runs as one torch.add(a, b, alpha=+-k); for integer tensors alpha must be an int.
    fn = kernel_of("%a: tensor<3xi64>, %b: tensor<3xi64>",
                   f'%0 = "poplar.popops_map"(%a, %b) {{expr = "{expr}", operandSegmentSizes = array<i32: 1, 1, 0>}}'
                   " : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>")
    out = fn(torch.arange(3), torch.arange(3))
    assert out.dtype == torch.int64 and out.tolist() == expected


def test_sgd_update_in_place_writes_the_weight_as_eager_sgd(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%w: tensor<4xf32>, %d: tensor<4xf32>, %lr: tensor<f32>",
                   '"poplar.popops_map_in_place"(%w, %d, %lr) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>}'
                   " : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> ()")
    w, d, lr = torch.randn(4), torch.randn(4), torch.tensor(0.1)
    expected = w.clone().add_(d, alpha=-0.1)
    buffer = w.data_ptr()
    fn(w, d, lr)
    assert w.data_ptr() == buffer  # the variable's own buffer
    torch.testing.assert_close(w, expected, **EXACT)


def test_momentum_update_in_place(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%v: tensor<4xf32>, %m: tensor<f32>, %g: tensor<4xf32>",
                   '"poplar.popops_map_in_place"(%v, %m, %g) {expr = "add(mul(_1, _2), _3)", operandSegmentSizes = array<i32: 1, 1, 1>}'
                   " : (tensor<4xf32>, tensor<f32>, tensor<4xf32>) -> ()")
    v, g = torch.randn(4), torch.randn(4)
    expected = v.clone().mul_(0.9).add_(g)
    fn(v, torch.tensor(0.9), g)
    torch.testing.assert_close(v, expected, **EXACT)


def test_other_in_place_expressions_are_computed_then_written(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%w: tensor<2x3xf32>, %r: tensor<3xf32>",
                   '"poplar.popops_map_in_place"(%w, %r) {expr = "max(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>}'
                   " : (tensor<2x3xf32>, tensor<3xf32>) -> ()")
    w, r = torch.randn(2, 3), torch.randn(3)
    expected = torch.maximum(w, r)
    fn(w, r)
    torch.testing.assert_close(w, expected, **EXACT)


@pytest.mark.parametrize("scalar", [True, False])
def test_every_planned_in_place_update_has_a_fused_kernel(scalar: bool) -> None:
    """poplar-plan-in-place plans exactly the expressions the IPU Model fuses, in place."""
    from ipu_mlir.dialects.poplar import IN_PLACE_UPDATES, map_expression_args, parse_map_expression
    from ipu_mlir.runtime.kernels import in_place_expression

    for expr in IN_PLACE_UPDATES:
        arity = len(map_expression_args(parse_map_expression(expr)))
        assert in_place_expression(expr, [False] + [scalar] * (arity - 1)) is not None, expr
    assert in_place_expression("max(_1, _2)", [False, scalar]) is None


@pytest.mark.parametrize(
    ("name", "reference"),
    [("asinh", torch.asinh), ("acosh", torch.acosh), ("atanh", torch.atanh), ("sinh", torch.sinh),
     ("cosh", torch.cosh), ("log2", torch.log2), ("log10", torch.log10)],
)
def test_hyperbolic_and_logarithm_map_functions_are_torchs(kernel_of, name, reference) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<5xf32>",
                   f'%0 = "poplar.popops_map"(%a) {{expr = "{name}(_1)", operandSegmentSizes = array<i32: 1, 0, 0>}} : (tensor<5xf32>) -> tensor<5xf32>')
    a = torch.tensor([1.5, 0.25, 0.5, 0.75, 3.0])
    torch.testing.assert_close(fn(a), reference(a), **EXACT, equal_nan=True)


_UNARY_SPECIAL = {
    "lgamma": torch.lgamma, "digamma": torch.digamma, "erfc": torch.erfc, "erfcx": torch.special.erfcx,
    "erfinv": torch.erfinv, "exp2": torch.exp2, "i0": torch.i0, "i0e": torch.special.i0e, "i1": torch.special.i1,
    "i1e": torch.special.i1e, "ndtri": torch.special.ndtri, "log_ndtr": torch.special.log_ndtr,
    "bessel_j0": torch.special.bessel_j0, "bessel_j1": torch.special.bessel_j1, "bessel_y0": torch.special.bessel_y0,
    "bessel_y1": torch.special.bessel_y1, "modified_bessel_i0": torch.special.modified_bessel_i0,
    "modified_bessel_i1": torch.special.modified_bessel_i1, "modified_bessel_k0": torch.special.modified_bessel_k0,
    "modified_bessel_k1": torch.special.modified_bessel_k1,
    "scaled_modified_bessel_k0": torch.special.scaled_modified_bessel_k0,
    "scaled_modified_bessel_k1": torch.special.scaled_modified_bessel_k1,
    "spherical_bessel_j0": torch.special.spherical_bessel_j0, "airy_ai": torch.special.airy_ai,
    "frexp_mantissa": lambda x: torch.frexp(x).mantissa,
}


@pytest.mark.parametrize("name", list(_UNARY_SPECIAL))
def test_special_map_functions_are_torchs(kernel_of, name: str) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<5xf32>",
                   f'%0 = "poplar.popops_map"(%a) {{expr = "{name}(_1)", operandSegmentSizes = array<i32: 1, 0, 0>}} : (tensor<5xf32>) -> tensor<5xf32>')
    a = torch.tensor([0.3, -0.6, 0.9, 1.5, 4.0])
    torch.testing.assert_close(fn(a), _UNARY_SPECIAL[name](a), **EXACT, equal_nan=True)


_BINARY_SPECIAL = {
    "igamma": torch.igamma, "igammac": torch.igammac, "zeta": torch.special.zeta, "hypot": torch.hypot,
    "copysign": torch.copysign, "nextafter": torch.nextafter, "fmax": torch.fmax, "fmin": torch.fmin,
    "ldexp": torch.ldexp,
    **{name: getattr(torch.special, name) for name in (
        "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
        "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
        "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
        "legendre_polynomial_p")},
}


@pytest.mark.parametrize("name", list(_BINARY_SPECIAL))
def test_binary_special_map_functions_are_torchs_with_a_broadcast_operand(kernel_of, name: str) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<2x3xf32>, %b: tensor<3xf32>",
                   f'%0 = "poplar.popops_map"(%a, %b) {{expr = "{name}(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>}}'
                   " : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>")
    a, b = torch.tensor([[0.5, -0.25, 2.0], [1.5, 3.0, -0.75]]), torch.tensor([2.0, 3.0, 1.0])
    torch.testing.assert_close(fn(a, b), _BINARY_SPECIAL[name](a, b), **EXACT, equal_nan=True)


def test_polynomial_of_a_literal_degree(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<4xf32>",
                   '%0 = "poplar.popops_map"(%a) {expr = "hermite_polynomial_h(_1, 3.0)", operandSegmentSizes = array<i32: 1, 0, 0>}'
                   " : (tensor<4xf32>) -> tensor<4xf32>")
    a = torch.tensor([0.5, -1.0, 2.0, 0.0])
    torch.testing.assert_close(fn(a), torch.special.hermite_polynomial_h(a, 3), **EXACT)


@pytest.mark.parametrize("order", [0, 1, 3])
def test_polygamma_takes_its_order_as_an_integer_literal(kernel_of, order: int) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<4xf32>",
                   f'%0 = "poplar.popops_map"(%a) {{expr = "polygamma({order}, _1)", operandSegmentSizes = array<i32: 1, 0, 0>}}'
                   " : (tensor<4xf32>) -> tensor<4xf32>")
    a = torch.tensor([0.5, 1.0, 2.5, 7.0])
    torch.testing.assert_close(fn(a), torch.polygamma(order, a), **EXACT)


def test_frexp_exponent_and_signbit_keep_their_integer_and_bool_results(kernel_of) -> None:  # noqa: ANN001
    exponent = kernel_of("%a: tensor<5xf32>",
                         '%0 = "poplar.popops_map"(%a) {expr = "frexp_exponent(_1)", operandSegmentSizes = array<i32: 1, 0, 0>}'
                         " : (tensor<5xf32>) -> tensor<5xi32>")
    signbit = kernel_of("%a: tensor<5xf32>",
                        '%0 = "poplar.popops_map"(%a) {expr = "signbit(_1)", operandSegmentSizes = array<i32: 1, 0, 0>}'
                        " : (tensor<5xf32>) -> tensor<5xi1>")
    a = torch.tensor([0.0, -0.0, 3.0, -0.375, 1e-30])
    assert exponent(a).dtype == torch.int32 and exponent(a).tolist() == torch.frexp(a).exponent.tolist()
    assert signbit(a).tolist() == [False, True, False, True, False]

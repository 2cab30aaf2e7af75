"""``popops_map``'s torch path (runtime/kernels/elementwise.py) where an expression once
computed nothing new: a scaled add with a literal scale (0 too, and a broadcast first
operand) and a ``select`` on a 0-d condition. The result has the map's declared shape and
dtype and eager's bits, both through the map kernel and through poptorch against eager
(``torch.add(x, y, alpha=0)``, ``torch.where(flag, x, y)`` with a 0-d flag, a torch
function of such a where)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from helpers.op_runs import FunctionModel

import poptorch
from ipu_mlir.runtime.kernels.elementwise import compile_expression

# -0.0 and +0.0 plus b = +-inf / NaN: where a + 0 * b is not a
ROW = torch.tensor([-0.0, 1.0, 2.0, -0.0, 3.0, 0.5, -1.0])
SQUARE = torch.tensor([[1.0, float("inf"), float("nan"), -1.0, 0.0, -0.0, 2.5]] * 7) \
    + torch.arange(7.0).unsqueeze(1) * torch.tensor([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0])
MATRIX = torch.randn(300, 400, generator=torch.Generator().manual_seed(0))
BIAS = torch.randn(400, generator=torch.Generator().manual_seed(1))


def _same_bits(got: torch.Tensor, want: torch.Tensor) -> None:
    """The same dtype, shape and bits (-0.0 is not 0.0), NaN where eager has NaN."""
    assert isinstance(got, torch.Tensor), type(got)
    assert (got.dtype, tuple(got.shape)) == (want.dtype, tuple(want.shape))
    nan = want.isnan()
    assert torch.equal(got.isnan(), nan)
    bits = torch.int32 if want.dtype == torch.float32 else want.dtype
    assert torch.equal(got[~nan].view(bits), want[~nan].view(bits)), (got, want)


def _map(kernel_of: Callable, expr: str, operands: list[str], result: str) -> Callable:
    names = [f"%x{i}" for i in range(len(operands))]
    arguments = ", ".join(f"{n}: {t}" for n, t in zip(names, operands, strict=True))
    segments = ", ".join(["1"] * len(operands) + ["0"] * (3 - len(operands)))
    return kernel_of(arguments, f'%0 = "poplar.popops_map"({", ".join(names)}) {{expr = "{expr}", '
                                f"operandSegmentSizes = array<i32: {segments}>}} : ({', '.join(operands)}) -> {result}")


# -- the map kernel -------------------------------------------------------------------

@pytest.mark.parametrize(("expr", "eager"), [
    ("add(_1, mul(_2, 0.0))", lambda a, b: torch.add(a, b, alpha=0.0)),
    ("sub(_1, mul(_2, 0.0))", lambda a, b: torch.sub(a, b, alpha=0.0)),
    ("add(_1, mul(_2, 0.1))", lambda a, b: torch.add(a, b, alpha=0.1)),
    ("sub(_1, mul(_2, -1.5))", lambda a, b: torch.sub(a, b, alpha=-1.5)),
])
@pytest.mark.parametrize(("a", "b"), [(ROW, SQUARE), (SQUARE.t().contiguous(), SQUARE), (BIAS, MATRIX)],
                         ids=["broadcast", "whole", "bias"])
def test_a_literal_scaled_add_is_eagers_torch_add(kernel_of, expr: str, eager: Callable, a: torch.Tensor,  # noqa: ANN001
                                                  b: torch.Tensor) -> None:
    """``a +- b * k`` for a literal k is ``torch.add(a, b, alpha=+-k)`` as aten.add with alpha
    computes it: the broadcast shape, one rounding whatever a's shape, and for k = 0 NaN
    where b is infinite and +0 where a is -0 (not a as it is)."""
    shape = "x".join(map(str, b.shape))
    fn = _map(kernel_of, expr, [f"tensor<{'x'.join(map(str, a.shape))}xf32>", f"tensor<{shape}xf32>"],
              f"tensor<{shape}xf32>")
    want = eager(a, b)
    _same_bits(fn(a, b), want)
    _same_bits(compile_expression(expr, False)(a, b), want)


def test_a_zero_hyper_parameter_scale_keeps_the_first_operand_at_the_result_shape(kernel_of) -> None:  # noqa: ANN001
    """A 0-d tensor scale of 0 (an optimizer's weight decay of 0, whose term eager skips)
    gives a itself, broadcast to the declared shape in a buffer of its own."""
    fn = _map(kernel_of, "add(_1, mul(_2, _3))", ["tensor<7xf32>", "tensor<7x7xf32>", "tensor<f32>"], "tensor<7x7xf32>")
    a = ROW.clone()
    got = fn(a, SQUARE, torch.tensor(0.0))
    _same_bits(got, a.expand(7, 7).contiguous())
    got.fill_(5.0)
    assert torch.equal(a.view(torch.int32), ROW.view(torch.int32))  # not a view of a


@pytest.mark.parametrize("flag", [True, False])
def test_a_select_on_a_0d_condition_is_torch_where(kernel_of, flag: bool) -> None:  # noqa: ANN001
    fn = _map(kernel_of, "select(_1, _2, _3)", ["tensor<i1>", "tensor<7xf32>", "tensor<7x7xf32>"], "tensor<7x7xf32>")
    condition = torch.tensor(flag)
    want = torch.where(condition, ROW, SQUARE)
    _same_bits(fn(condition, ROW, SQUARE), want)
    _same_bits(compile_expression("select(_1, _2, _3)", False)(condition, ROW, SQUARE), want)


@pytest.mark.parametrize(("expr", "eager"), [
    ("log1p(select(le(_1, 0.0), 0.0, _2))", lambda x, g: torch.log1p(torch.where(x <= 0.0, 0.0, g))),
    ("exp(select(gt(_1, 0.0), _2, 0.0))", lambda x, g: torch.exp(torch.where(x > 0.0, g, 0.0))),
    ("tanh(select(gt(_1, 0.0), 1.0, _2))", lambda x, g: torch.tanh(torch.where(x > 0.0, 1.0, g))),
])
@pytest.mark.parametrize("x", [-1.0, 0.0, 2.0])
def test_a_torch_function_of_a_selected_literal(kernel_of, expr: str, eager: Callable, x: float) -> None:  # noqa: ANN001
    """A select on a 0-d condition choosing its literal branch gives a tensor (torch.where's),
    which a torch function takes (a Python float raised TypeError)."""
    fn = _map(kernel_of, expr, ["tensor<f32>", "tensor<7xf32>"], "tensor<7xf32>")
    scalar, g = torch.tensor(x), ROW.abs()
    _same_bits(fn(scalar, g), eager(scalar, g))
    _same_bits(compile_expression(expr, False)(scalar, g), eager(scalar, g))


# -- models against eager ---------------------------------------------------------------

FLAG = torch.tensor(1.0)
OFF = torch.tensor(-1.0)


@pytest.mark.parametrize(("fn", "inputs"), [
    (lambda x, y: torch.add(x, y, alpha=0), (ROW, SQUARE)),
    (lambda x, y: torch.add(x, y, alpha=0), (SQUARE.t().contiguous(), SQUARE)),
    (lambda x, y: torch.sub(x, y, alpha=0.0), (ROW, SQUARE)),
    (lambda x, y: torch.add(x, y, alpha=0.1), (BIAS, MATRIX)),
    (lambda c, x, y: torch.where(c > 0, x, y), (FLAG, ROW, SQUARE)),
    (lambda c, x, y: torch.where(c > 0, x, y), (OFF, ROW, SQUARE)),
    (lambda c, y: torch.where(c > 0, 0.0, y).exp(), (FLAG, SQUARE)),
    (lambda c, y: torch.where(c > 0, 0.0, y).exp(), (OFF, SQUARE)),
    (lambda x, c: x.masked_fill(c > 0, 0.0).log1p(), (SQUARE.abs(), FLAG)),
], ids=["add_alpha_0_broadcast", "add_alpha_0", "sub_alpha_0_broadcast", "add_alpha_broadcast_bias",
        "where_0d_true", "where_0d_false", "exp_of_where_0d_true", "exp_of_where_0d_false", "log1p_of_masked_fill_0d"])
def test_models_match_eager_bit_for_bit(fn: Callable, inputs: tuple[torch.Tensor, ...]) -> None:
    with torch.no_grad():
        want = fn(*inputs)
    _same_bits(poptorch.inferenceModel(FunctionModel(fn))(*inputs), want)


def test_select_on_a_0d_condition_hands_on_the_chosen_tensor_when_where_would_keep_it() -> None:
    """An optimizer's first-step select (``select(flag, 0.0, v)``) hands on the chosen tensor
    when the other branch is a literal or a tensor that where would not broadcast or promote
    it with; otherwise it is eager's where (the broadcast shape, the promoted type)."""

    x, flag = torch.randn(3, 4), torch.tensor(False)
    select = compile_expression("select(_1, 0.0, _2)", False)
    assert select(flag, x) is x
    assert torch.equal(select(torch.tensor(True), x), torch.zeros(3, 4))
    two = compile_expression("select(_1, _2, _3)", False)
    assert two(torch.tensor(True), x, x.clone()) is x
    wider = two(torch.tensor(True), x[0], x)  # the chosen [4] branch is broadcast to [3, 4]
    assert wider.shape == (3, 4) and torch.equal(wider, torch.where(torch.tensor(True), x[0], x))
    promoted = two(torch.tensor(True), x.to(torch.float16), x)
    assert promoted.dtype == torch.float32
    ints = compile_expression("select(_1, 0.5, _2)", True)(flag, torch.arange(4))  # a float literal promotes ints
    assert ints.dtype == torch.float32 and torch.equal(ints, torch.where(flag, 0.5, torch.arange(4)))

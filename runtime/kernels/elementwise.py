"""Element-wise kernels: the binary popops ops, casts, and ``popops_map`` expressions,
compiled once into torch calls, out of place and in place (``popops_map_in_place``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch_mlir import ir

from ipu_mlir.dialects.poplar import POPLAR_VIEWS, parse_map_expression

from .base import KERNELS, Kernel, attr, result_dtype, tensor_type

_VIEWS = frozenset(POPLAR_VIEWS)


def _extremum(pairwise: Callable[..., torch.Tensor], clamp: Callable[..., torch.Tensor]) -> Callable[..., torch.Tensor]:
    """max or min of two operands of which one may be a scalar: ``pairwise`` (torch.maximum)
    takes two tensors, ``clamp`` (torch.clamp_min) a tensor and a scalar bound."""

    def call(a: Any, b: Any) -> torch.Tensor:
        if isinstance(b, torch.Tensor) and isinstance(a, torch.Tensor):
            return pairwise(a, b)
        if isinstance(a, torch.Tensor):
            return clamp(a, b)
        return clamp(b, a)

    return call


def _as_tensor_first(fn: Callable[..., torch.Tensor]) -> Callable[..., torch.Tensor]:
    """Binary torch functions need a tensor first; swap-free wrapper for scalar lhs."""

    def call(a: Any, b: Any) -> torch.Tensor:
        if not isinstance(a, torch.Tensor):
            a = torch.scalar_tensor(a, dtype=b.dtype if isinstance(b, torch.Tensor) else torch.float32)
        return fn(a, b)

    return call


_MAP_FUNCTIONS: dict[str, Callable[..., torch.Tensor]] = {
    "neg": torch.neg, "abs": torch.abs, "exp": torch.exp, "expm1": torch.expm1, "log": torch.log,
    "log1p": torch.log1p, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "sin": torch.sin, "cos": torch.cos,
    "tan": torch.tan, "tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": torch.relu, "erf": torch.erf,
    "floor": torch.floor, "ceil": torch.ceil, "round": torch.round, "trunc": torch.trunc, "sign": torch.sign,
    "reciprocal": torch.reciprocal, "square": torch.square, "not": torch.logical_not,
    "bitwise_not": torch.bitwise_not, "isnan": torch.isnan, "isinf": torch.isinf, "atan": torch.atan,
    "asin": torch.asin, "acos": torch.acos, "asinh": torch.asinh, "acosh": torch.acosh, "atanh": torch.atanh,
    "sinh": torch.sinh, "cosh": torch.cosh, "log2": torch.log2, "log10": torch.log10,
    "add": _as_tensor_first(torch.add), "sub": _as_tensor_first(torch.sub), "mul": _as_tensor_first(torch.mul),
    "div": _as_tensor_first(torch.div),
    "floor_div": _as_tensor_first(lambda a, b: torch.div(a, b, rounding_mode="floor")),
    "trunc_div": _as_tensor_first(lambda a, b: torch.div(a, b, rounding_mode="trunc")),
    "pow": _as_tensor_first(torch.pow), "max": _extremum(torch.maximum, torch.clamp_min),
    "min": _extremum(torch.minimum, torch.clamp_max),
    "rem": _as_tensor_first(torch.remainder), "fmod": _as_tensor_first(torch.fmod),
    "atan2": _as_tensor_first(torch.atan2), "eq": _as_tensor_first(torch.eq), "ne": _as_tensor_first(torch.ne),
    "lt": _as_tensor_first(torch.lt), "le": _as_tensor_first(torch.le), "gt": _as_tensor_first(torch.gt),
    "ge": _as_tensor_first(torch.ge), "and": _as_tensor_first(torch.logical_and),
    "or": _as_tensor_first(torch.logical_or), "xor": _as_tensor_first(torch.logical_xor),
    "bitwise_and": _as_tensor_first(torch.bitwise_and), "bitwise_or": _as_tensor_first(torch.bitwise_or),
    "bitwise_xor": _as_tensor_first(torch.bitwise_xor),
    "select": lambda c, a, b: torch.where(c, a, b), "clamp": lambda x, lo, hi: torch.clamp(x, lo, hi),
}


def _polygamma(n: Any, x: torch.Tensor) -> torch.Tensor:
    """polygamma(n, x): the order is a literal (a Python float here); eager takes an int."""
    if isinstance(n, torch.Tensor) or not float(n).is_integer() or n < 0:
        raise ValueError(f"polygamma's order must be a non-negative integer literal, got {n!r}")
    return torch.polygamma(int(n), x)


# Special functions and the remaining element-wise math: the torch function eager calls.
_MAP_FUNCTIONS.update({
    "lgamma": torch.lgamma, "digamma": torch.digamma, "erfc": torch.erfc, "erfcx": torch.special.erfcx,
    "erfinv": torch.erfinv, "exp2": torch.exp2, "i0": torch.i0, "i0e": torch.special.i0e,
    "i1": torch.special.i1, "i1e": torch.special.i1e, "ndtri": torch.special.ndtri,
    "log_ndtr": torch.special.log_ndtr, "bessel_j0": torch.special.bessel_j0,
    "bessel_j1": torch.special.bessel_j1, "bessel_y0": torch.special.bessel_y0,
    "bessel_y1": torch.special.bessel_y1, "modified_bessel_i0": torch.special.modified_bessel_i0,
    "modified_bessel_i1": torch.special.modified_bessel_i1, "modified_bessel_k0": torch.special.modified_bessel_k0,
    "modified_bessel_k1": torch.special.modified_bessel_k1,
    "scaled_modified_bessel_k0": torch.special.scaled_modified_bessel_k0,
    "scaled_modified_bessel_k1": torch.special.scaled_modified_bessel_k1,
    "spherical_bessel_j0": torch.special.spherical_bessel_j0, "airy_ai": torch.special.airy_ai,
    "signbit": torch.signbit, "frexp_mantissa": lambda x: torch.frexp(x).mantissa,
    "frexp_exponent": lambda x: torch.frexp(x).exponent, "polygamma": _polygamma,
    **{name: _as_tensor_first(fn) for name, fn in {
        "igamma": torch.special.gammainc, "igammac": torch.special.gammaincc, "zeta": torch.special.zeta,
        "hypot": torch.hypot, "copysign": torch.copysign, "nextafter": torch.nextafter, "fmax": torch.fmax,
        "fmin": torch.fmin, "ldexp": torch.ldexp,
        "chebyshev_polynomial_t": torch.special.chebyshev_polynomial_t,
        "chebyshev_polynomial_u": torch.special.chebyshev_polynomial_u,
        "chebyshev_polynomial_v": torch.special.chebyshev_polynomial_v,
        "chebyshev_polynomial_w": torch.special.chebyshev_polynomial_w,
        "shifted_chebyshev_polynomial_t": torch.special.shifted_chebyshev_polynomial_t,
        "shifted_chebyshev_polynomial_u": torch.special.shifted_chebyshev_polynomial_u,
        "shifted_chebyshev_polynomial_v": torch.special.shifted_chebyshev_polynomial_v,
        "shifted_chebyshev_polynomial_w": torch.special.shifted_chebyshev_polynomial_w,
        "hermite_polynomial_h": torch.special.hermite_polynomial_h,
        "hermite_polynomial_he": torch.special.hermite_polynomial_he,
        "laguerre_polynomial_l": torch.special.laguerre_polynomial_l,
        "legendre_polynomial_p": torch.special.legendre_polynomial_p,
    }.items()},
})


def _scalar_of(value: Any) -> float | int | None:
    """A Python number for a Python scalar or a one-element (0-dim) tensor, else None."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    if isinstance(value, torch.Tensor) and value.dim() == 0 and value.dtype.is_floating_point:
        return value.item()
    return None


def _scaled_add(sign: float, literal: bool) -> Callable[[Any, Any, Any], Any]:
    """a + sign * b * c: one ``torch.add(a, b, alpha=sign * c)`` kernel when c is a scalar, as
    eager's ``aten.add(x, y, alpha=k)`` and eager optimizers compute it (one rounding, the
    broadcast shape; for a ``literal`` 0, a + 0 * b: NaN where b is infinite, +0 where a is
    -0). A computed scalar c of 0 (a 0-d tensor: an optimizer's hyper-parameter, a weight
    decay of 0, whose term eager skips) gives a itself, at the broadcast shape."""

    def run(a: Any, b: Any, c: Any) -> Any:
        scale = _scalar_of(c)
        if scale is None or not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
            product = torch.mul(b, c)
            return torch.add(a, product) if sign > 0 else torch.sub(a, product)
        if scale == 0 and not literal:
            shape = torch.broadcast_shapes(a.shape, b.shape)  # c is 0-d
            return a if a.shape == shape else a.expand(shape).contiguous()
        return torch.add(a, b, alpha=scale if sign > 0 else -scale)  # an int stays an int for int tensors

    return run


def _relu_grad(build: Callable[[tuple], Callable[[tuple], Any]], node: tuple) -> Callable[[tuple], Any]:
    """``select(le(x, 0.0), 0.0, g)``: ATen's threshold_backward(g, x, 0), one kernel where
    the ops are three (the same values: x <= 0 ? 0 : g)."""
    x, g = build(node[2][0][2][0]), build(node[2][2])
    le, where = _MAP_FUNCTIONS["le"], _MAP_FUNCTIONS["select"]

    def run(args: tuple) -> Any:
        xv, gv = x(args), g(args)
        if _same_float_tensors(xv, gv):
            return torch.ops.aten.threshold_backward(gv, xv, 0)
        return where(le(xv, 0.0), 0.0, gv)

    return run


def _sigmoid_grad(build: Callable[[tuple], Callable[[tuple], Any]], node: tuple) -> Callable[[tuple], Any]:
    """``mul(mul(g, sub(1.0, y)), y)``: ATen's sigmoid_backward(g, y), one kernel for three
    ops and the same roundings (g * (1 - y) * y)."""
    g, y = build(node[2][0][2][0]), build(node[2][1])
    mul, sub = _MAP_FUNCTIONS["mul"], _MAP_FUNCTIONS["sub"]

    def run(args: tuple) -> Any:
        gv, yv = g(args), y(args)
        if _same_float_tensors(gv, yv):
            return torch.ops.aten.sigmoid_backward(gv, yv)
        first = mul(gv, sub(1.0, yv))
        return first if _scalar_of(yv) == 1 and isinstance(first, torch.Tensor) else mul(first, yv)

    return run


def _same_float_tensors(a: Any, b: Any) -> bool:
    return isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.dtype == b.dtype \
        and a.dtype.is_floating_point and a.shape == b.shape


def _gradient_kernel(node: tuple) -> Callable[..., Callable[[tuple], Any]] | None:
    """The relu and sigmoid gradients as poplar-fuse-elementwise writes popnn's gradient
    ops into a map: run as the ATen kernels those ops ran."""
    name, operands = node[1], node[2]
    if name == "select" and operands[0][:2] == ("call", "le") and operands[0][2][1] == ("const", 0.0) \
            and operands[1] == ("const", 0.0):
        return _relu_grad
    if name == "mul" and operands[0][:2] == ("call", "mul") and operands[1][0] == "arg" \
            and operands[0][2][1] == ("call", "sub", [("const", 1.0), operands[1]]):
        return _sigmoid_grad
    return None



def _where_keeps(value: Any, other: Any) -> bool:
    """Whether ``torch.where(c, value, other)`` (either order) is ``value``'s shape and
    type: ``other`` a tensor of the same shape and type, or a Python number that does not
    promote ``value`` (a float with a floating tensor, an int with a non-bool one, a bool
    with a bool one)."""
    if not isinstance(value, torch.Tensor):
        return False
    if isinstance(other, torch.Tensor):
        return other.shape == value.shape and other.dtype == value.dtype
    if isinstance(other, bool):
        return value.dtype == torch.bool
    if isinstance(other, int):
        return value.dtype != torch.bool and not value.dtype.is_complex
    if isinstance(other, float):
        return value.is_floating_point()
    return False

def compile_expression(expr: str, integer_operands: bool) -> Callable[..., Any]:
    """A function of the operands computing a ``popops.map`` expression with torch ops.

    Literals become Python scalars (ints when every operand is an integer tensor and the
    literal is integral), so torch's scalar type rules apply as in eager code. Like
    Poplar's map fusion, a few expression shapes run as one kernel: ``a + b * s`` and
    ``a - b * s`` with a scalar ``s`` become ``torch.add(a, b, alpha=±s)`` (the kernel
    eager optimizers use), and multiplying or dividing by a scalar 1 and ``x * (1 - 0)`` are
    the identity.
    """
    compiled = compile_tree(parse_map_expression(expr), integer_operands)
    return lambda *args: compiled(args)


def compile_tree(tree: tuple, integer_operands: bool,
                 override: Callable[[tuple], Callable[[tuple], Any] | None] | None = None) -> Callable[[tuple], Any]:
    """:func:`compile_expression` of a parsed expression: a function of the operand tuple.
    ``override(node)`` may give the function computing a subtree instead (the fused maps'
    native kernels, ``fused_map.py``); None keeps the torch calls."""

    def build(node: tuple) -> Callable[[tuple], Any]:
        if override is not None and (replaced := override(node)) is not None:
            return replaced
        kind = node[0]
        if kind == "arg":
            index = node[1] - 1
            return lambda args: args[index]
        if kind == "const":
            value: Any = node[1]
            if integer_operands and float(value).is_integer():
                value = int(value)
            return lambda args: value
        name, operands = node[1], node[2]
        if name in ("add", "sub") and len(operands) == 2 and operands[1][0] == "call" and operands[1][1] == "mul":
            a, (b, c) = build(operands[0]), (build(x) for x in operands[1][2])
            fused = _scaled_add(1.0 if name == "add" else -1.0, operands[1][2][1][0] == "const")
            return lambda args: fused(a(args), b(args), c(args))
        gradient = _gradient_kernel(node)
        if gradient is not None:
            return gradient(build, node)
        if name in ("mul", "div") and len(operands) == 2:
            a, b = build(operands[0]), build(operands[1])
            fn = _MAP_FUNCTIONS[name]

            def scale(args: tuple) -> Any:
                x, y = a(args), b(args)
                if _scalar_of(y) == 1 and isinstance(x, torch.Tensor):
                    return x
                return fn(x, y)

            return scale
        if name == "select":
            cond, then, otherwise = (build(x) for x in operands)

            leaves = [operand[0] != "call" for operand in operands]  # an operand or a literal: free to read

            def select(args: tuple) -> Any:
                # A 0-d condition (an optimizer's first-step flag) picks one branch. When the
                # other branch is an operand or a literal whose where with the chosen one has
                # the chosen one's shape and type, the chosen tensor is the result and nothing
                # else is computed (SGD momentum's first-step selects: 40 torch.where calls,
                # 0.09 ms of MLP training's 15 ms step). Otherwise torch.where gives the
                # broadcast shape and the promoted type (a literal branch as a tensor), as
                # eager's where does.
                c = cond(args)
                if isinstance(c, torch.Tensor) and c.dim() == 0:
                    first = bool(c)
                    chosen, other, cheap = (then, otherwise, leaves[2]) if first else (otherwise, then, leaves[1])
                    value = chosen(args)
                    rest = other(args)
                    if cheap and _where_keeps(value, rest):
                        return value
                    return torch.where(c, value, rest) if first else torch.where(c, rest, value)
                return torch.where(c, then(args), otherwise(args))

            return select
        fn = _MAP_FUNCTIONS[name]
        children = [build(child) for child in operands]
        if len(children) == 1:
            (a,) = children
            return lambda args: fn(a(args))
        if len(children) == 2:
            a, b = children
            return lambda args: fn(a(args), b(args))
        a, b, c = children
        return lambda args: fn(a(args), b(args), c(args))

    return build(tree)


def in_place_expression(expr: str, scalar_operands: list[bool]) -> Callable[..., torch.Tensor] | None:
    """The fused in-place kernel of an update expression whose first operand (the
    variable) is overwritten, if it has one. ``scalar_operands[i]``: operand i is a 0-d
    float tensor, passed to torch as a Python number as eager optimizers pass theirs."""
    if expr in ("sub(_1, mul(_2, _3))", "add(_1, mul(_2, _3))"):
        # w - d * lr, w + d * s: eager's param.add_(d, alpha=-lr)
        update = torch.Tensor.sub_ if expr.startswith("sub") else torch.Tensor.add_
        if scalar_operands[2]:
            return lambda v, d, s: update(v, d, alpha=s.item())
        return lambda v, d, s: update(v, d * s)
    if expr == "add(mul(_1, _2), _3)":  # v * m + g: eager's buf.mul_(momentum).add_(grad)
        if scalar_operands[1]:
            return lambda v, m, g: v.mul_(m.item()).add_(g)
        return lambda v, m, g: v.mul_(m).add_(g)
    if expr == "mul(_1, _2)":
        if scalar_operands[1]:
            return lambda v, m: v.mul_(m.item())
        return lambda v, m: v.mul_(m)
    if expr == "add(_1, _2)":
        return lambda v, g: v.add_(g)
    return None


def _map_kernel(op: ir.Operation) -> Kernel:
    """The expression of a map as a function of its operands (literals typed as in
    eager code: ints when every operand is an integer tensor)."""
    operands = [tensor_type(v)[1] for v in op.operands]
    integer = all(not (d.is_floating_point or d.is_complex or d == torch.bool) for d in operands)
    return compile_expression(attr(op, "expr"), integer)


# The binary popops ops that are one torch function (the lowering casts their operands
# to the result's element type).
_BINARY_FUNCTIONS: dict[str, Kernel] = {
    "poplar.popops_add": torch.add, "poplar.popops_sub": torch.sub, "poplar.popops_mul": torch.mul,
}


@KERNELS.register(*_BINARY_FUNCTIONS)
def _binary(op: ir.Operation) -> Kernel:
    return _BINARY_FUNCTIONS[op.operation.name]


@KERNELS.register("poplar.popops_div")
def _div(op: ir.Operation) -> Kernel:
    if result_dtype(op).is_floating_point or result_dtype(op).is_complex:
        return torch.div
    return lambda a, b: torch.div(a, b, rounding_mode="trunc")


def dies_at(value: ir.Value, reader: ir.Operation) -> bool:
    """Whether ``value``'s buffer is a temporary that ``reader`` reads last: made by an op
    other than a variable or a constant, and neither ``value`` nor a value it views (through
    the view ops and identity maps it is made by) has another reader. Anything else (a
    block argument, a value read twice) may be read after ``reader``."""
    while True:
        uses = list(value.uses)
        if len(uses) != 1 or _operation(uses[0].owner) != _operation(reader):
            return False
        owner = value.owner
        if isinstance(owner, ir.Block):
            return False
        producer = _operation(owner)
        if producer.name in ("poplar.variable", "poplar.constant"):
            return False
        if producer.name not in _VIEWS and not (producer.name == "poplar.popops_map" and attr(producer, "expr") == "_1"):
            return True
        if len(producer.operands) != 1:
            return False
        value, reader = producer.operands[0], producer


def _operation(owner: Any) -> ir.Operation:
    return owner.operation if hasattr(owner, "operation") else owner


@KERNELS.register("poplar.popops_map")
def _map(op: ir.Operation) -> Kernel:
    """A map's expression; a fused chain (poplar-fuse-elementwise) runs its arithmetic as
    generated loops (``fused_map.py``), with the same results."""
    from . import fused_map

    shape, dtype = tensor_type(op.results[0])
    fn = fused_map.plan(attr(op, "expr"), [tensor_type(v) for v in op.operands], (shape, dtype)) or _map_kernel(op)
    # x * 1, x / 1 and a + b * c with a 0-d c of 0 compute nothing new: the expression
    # returns an operand itself. The passes take a map's result for a new buffer (unless the
    # map is the identity _1): plan-in-place may update a variable in place while a value
    # equal to it is still to be read, share-buffers hand the result's buffer to a variable.
    # The operand is handed on only where it is a temporary that dies here; the result is a
    # copy of any other (a weight, a constant, a value read again).
    kept = () if attr(op, "expr") == "_1" else tuple(i for i, v in enumerate(op.operands) if not dies_at(v, op))
    size = torch.Size(shape)

    def call(*args: torch.Tensor) -> torch.Tensor:
        out = fn(*args)
        if not isinstance(out, torch.Tensor):  # an expression of literals only ("2.5")
            return torch.full(shape, out, dtype=dtype, device=args[0].device if args else None)
        if out.shape != size:  # the declared shape, as eager's ops broadcast (an error if out does not)
            return torch.empty(size, dtype=dtype, device=out.device).copy_(out)
        if out.dtype != dtype:
            return out.to(dtype)
        for index in kept:
            if out is args[index]:
                return out.clone()
        return out

    return call


@KERNELS.register("poplar.popops_map_in_place")
def _map_in_place(op: ir.Operation) -> Kernel:
    """The update expressions eager optimizers write in place run as those fused
    in-place torch calls (momentum's as one generated kernel, ``fused_map.plan_in_place``);
    any other expression is computed, then copied into in1."""
    from . import fused_map

    scalar_operands = [not shape and dtype.is_floating_point for shape, dtype in map(tensor_type, op.operands)]
    fused = in_place_expression(attr(op, "expr"), scalar_operands)
    if fused is None:
        fn = _map_kernel(op)

        def compute_then_copy(*args: torch.Tensor) -> None:
            args[0].copy_(fn(*args))

        fused = compute_then_copy
    # SGD's momentum v * m + g is two passes over v for torch, one for a generated kernel
    return fused_map.plan_in_place(attr(op, "expr"), [tensor_type(v) for v in op.operands], fused) or fused


@KERNELS.register("poplar.popops_cast")
def _cast(op: ir.Operation) -> Kernel:
    dtype = result_dtype(op)
    return lambda x: x.to(dtype, copy=True)  # a cast to the operand's own type is a copy too


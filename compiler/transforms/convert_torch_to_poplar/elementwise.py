"""Element-wise lowerings: unary and binary math, comparisons, activations, clamps,
selects, dtype casts, copies and fills, mostly as ``poplar.popops_map`` expressions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import i64, string
from ipu_mlir.support.registry import Registry

from ... import torch_ir
from ...lowering import (
    Lowering,
    Pattern,
    Unsupported,
    base_name,
    element_of,
    is_float,
    literal,
    result_type,
    shape_of,
)
from ...torch_ir import is_none

_UNARY = {
    "torch.aten.neg": "neg", "torch.aten.abs": "abs", "torch.aten.exp": "exp", "torch.aten.expm1": "expm1",
    "torch.aten.log": "log", "torch.aten.log1p": "log1p", "torch.aten.sqrt": "sqrt", "torch.aten.rsqrt": "rsqrt",
    "torch.aten.sin": "sin", "torch.aten.cos": "cos", "torch.aten.tan": "tan", "torch.aten.erf": "erf",
    "torch.aten.floor": "floor", "torch.aten.ceil": "ceil", "torch.aten.round": "round", "torch.aten.trunc": "trunc",
    "torch.aten.sign": "sign", "torch.aten.reciprocal": "reciprocal", "torch.aten.square": "square",
    "torch.aten.logical_not": "not", "torch.aten.bitwise_not": "bitwise_not", "torch.aten.isnan": "isnan",
    "torch.aten.isinf": "isinf", "torch.aten.atan": "atan", "torch.aten.asin": "asin", "torch.aten.acos": "acos",
    "torch.aten.asinh": "asinh", "torch.aten.acosh": "acosh", "torch.aten.atanh": "atanh", "torch.aten.sinh": "sinh",
    "torch.aten.cosh": "cosh", "torch.aten.log2": "log2", "torch.aten.log10": "log10",
}


def lower_unary(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x = lw.v(op.operands[0])
    fn = _UNARY[torch_ir.aten_name(op)]
    complex_abs = fn == "abs" and isinstance(element_of(x), ir.ComplexType)  # |z| is real: no cast of z first
    if fn not in ("not", "isnan", "isinf") and not complex_abs:
        x = lw.cast(x, out.element_type)
    return [lw.map(f"{fn}(_1)", [x], out)]


def lower_round_decimals(lw: Lowering, op: ir.Operation) -> list[Any]:
    """round.decimals (self, decimals): round half to even at ``decimals`` places, as ATen's
    kernel computes it with p = 10^|decimals| in the element type: ``round(x * p) / p`` for
    decimals > 0, ``round(x / p) * p`` otherwise (decimals 0 is plain round)."""
    out = result_type(op)
    if not is_float(out.element_type):
        raise Unsupported(f"round with decimals on {out.element_type} elements (eager rounds floating point only)")
    decimals = int(lw.const(op.operands[1], "decimals"))
    x = lw.cast(lw.v(op.operands[0]), out.element_type)
    power = literal(float(10.0 ** abs(decimals)))
    expr = f"div(round(mul(_1, {power})), {power})" if decimals > 0 else f"mul(round(div(_1, {power})), {power})"
    return [lw.map(expr, [x], out)]


_NONLINEAR = {"torch.aten.relu": "relu", "torch.aten.sigmoid": "sigmoid", "torch.aten.tanh": "tanh", "torch.aten.silu": "silu",
              "torch.aten.hardsigmoid": "hard_sigmoid", "torch.aten.hardswish": "hard_swish"}


def lower_nonlinearity(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x = lw.cast(lw.v(op.operands[0]), out.element_type)
    return [lw.emit(pd.NonLinearityOp, x, string(_NONLINEAR[torch_ir.aten_name(op)]), i64(0), out)]


def lower_gelu(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    approximate = lw.const(op.operands[1], "gelu's approximate") if len(op.operands) > 1 else "none"
    kind = {"none": "gelu_erf", "tanh": "gelu_tanh"}.get(approximate)
    if kind is None:
        raise Unsupported(f"gelu approximate='{approximate}' (expected 'none' or 'tanh')")
    return [lw.emit(pd.NonLinearityOp, lw.v(op.operands[0]), string(kind), i64(0), out)]


_BINARY = {
    "torch.aten.add": ("add", pd.AddOp), "torch.aten.sub": ("sub", pd.SubOp), "torch.aten.mul": ("mul", pd.MulOp),
    "torch.aten.div": ("div", pd.DivOp), "torch.aten.pow": ("pow", None), "torch.aten.maximum": ("max", None),
    "torch.aten.minimum": ("min", None), "torch.aten.remainder": ("rem", None), "torch.aten.fmod": ("fmod", None),
    "torch.aten.atan2": ("atan2", None), "torch.aten.logical_and": ("and", None), "torch.aten.logical_or": ("or", None),
    "torch.aten.logical_xor": ("xor", None), "torch.aten.bitwise_and": ("bitwise_and", None),
    "torch.aten.bitwise_or": ("bitwise_or", None), "torch.aten.bitwise_xor": ("bitwise_xor", None),
    "torch.aten.rsub": ("rsub", None), "torch.aten.floor_divide": ("floor_div", None),
    "torch.aten.max.other": ("max", None), "torch.aten.min.other": ("min", None),
}


_COMPARE = {"torch.aten.eq": "eq", "torch.aten.ne": "ne", "torch.aten.lt": "lt", "torch.aten.le": "le",
            "torch.aten.gt": "gt", "torch.aten.ge": "ge"}


def _term(lw: Lowering, value: ir.Value, element: ir.Type, operands: list[ir.Value]) -> str:
    """``value`` as a term of a map expression over ``operands``: a literal for a constant
    scalar; a tensor is appended to ``operands`` and named ``_k``."""
    if torch_ir.is_vtensor(value.type):
        operands.append(lw.cast(lw.v(value), element))
        return f"_{len(operands)}"
    scalar = lw.const(value, "a scalar operand")
    return literal(float(scalar) if is_float(element) else scalar)


def _expression(fn: str, lw: Lowering, lhs: ir.Value, rhs: ir.Value, element: ir.Type, out: ir.Type) -> ir.Value:
    operands: list[ir.Value] = []
    terms = [_term(lw, value, element, operands) for value in (lhs, rhs)]
    if not operands:
        raise Unsupported("an element-wise op with only scalar operands")
    return lw.map(f"{fn}({terms[0]}, {terms[1]})", operands, out)


def _common_element(lw: Lowering, values: Sequence[ir.Value]) -> ir.Type | None:
    """Element type to compare in: the float type if any operand is float, else the widest int."""
    tensors = [lw.v(v) for v in values if torch_ir.is_vtensor(v.type)]
    elements = [element_of(t) for t in tensors]
    floats = [e for e in elements if is_float(e)]
    ranked = [(len(shape_of(t)) > 0, e) for t, e in zip(tensors, elements, strict=True)]
    if floats:
        dimensioned = [e for has_dims, e in ranked if has_dims and is_float(e)]
        return (dimensioned or floats)[0]
    return elements[0] if elements else None


def lower_binary(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    element = out.element_type
    name = torch_ir.aten_name(op)
    fn, cls = _BINARY[name] if name in _BINARY else _BINARY[base_name(name)]
    lhs, rhs = op.operands[0], op.operands[1]
    if fn in ("add", "sub") and len(op.operands) > 2:
        alpha = lw.const(op.operands[2], "alpha")
        if alpha != 1:
            return [_scaled_rhs(fn, lw, lhs, rhs, alpha, element, out)]
    if fn == "rsub":
        alpha = lw.const(op.operands[2], "alpha") if len(op.operands) > 2 else 1
        if alpha != 1:
            raise Unsupported("rsub with alpha != 1")
        return [_expression("sub", lw, rhs, lhs, element, out)]
    if fn == "div" and len(op.operands) > 2 and not is_none(op.operands[2]):
        mode = lw.const(op.operands[2], "rounding_mode")
        if mode not in ("floor", "trunc"):
            raise Unsupported(f"div rounding_mode '{mode}' (expected None, 'floor' or 'trunc')")
        fn, cls = {"floor": "floor_div", "trunc": "trunc_div"}[mode], None
    if fn in ("and", "or", "xor"):
        element = ir.IntegerType.get_signless(1)
    if cls is not None and torch_ir.is_vtensor(lhs.type) and torch_ir.is_vtensor(rhs.type):
        return [lw.binary(cls, lw.v(lhs), lw.v(rhs), out)]
    return [_expression(fn, lw, lhs, rhs, element, out)]


def _scaled_rhs(fn: str, lw: Lowering, lhs: ir.Value, rhs: ir.Value, alpha: float | int, element: ir.Type, out: ir.Type) -> ir.Value:
    """``lhs (+|-) alpha * rhs`` as one map expression (alpha folds into a scalar rhs)."""
    alpha_text = literal(float(alpha) if is_float(element) else alpha)
    operands: list[ir.Value] = []
    lhs_text = _term(lw, lhs, element, operands)
    if not torch_ir.is_vtensor(rhs.type):
        scalar = lw.const(rhs, "a scalar operand")
        rhs_text = literal((float(scalar) if is_float(element) else scalar) * alpha)
        if not operands:
            raise Unsupported("an element-wise op with only scalar operands")
        return lw.map(f"{fn}({lhs_text}, {rhs_text})", operands, out)
    operands.append(lw.cast(lw.v(rhs), element))
    return lw.map(f"{fn}({lhs_text}, mul(_{len(operands)}, {alpha_text}))", operands, out)


def lower_compare(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    element = _common_element(lw, op.operands[:2])
    if element is None:
        raise Unsupported("a comparison of two scalars")
    return [_expression(_COMPARE[base_name(torch_ir.aten_name(op))], lw, op.operands[0], op.operands[1], element, out)]


def lower_where(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    cond = lw.cast(lw.v(op.operands[0]), ir.IntegerType.get_signless(1))
    operands = [cond]
    then, otherwise = (_term(lw, value, out.element_type, operands) for value in op.operands[1:3])
    return [lw.map(f"select(_1, {then}, {otherwise})", operands, out)]


def lower_masked_fill(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x = lw.cast(lw.v(op.operands[0]), out.element_type)
    mask = lw.cast(lw.v(op.operands[1]), ir.IntegerType.get_signless(1))
    operands = [x, mask]
    fill = _term(lw, op.operands[2], out.element_type, operands)
    return [lw.map(f"select(_2, {fill}, _1)", operands, out)]


def lower_clamp(lw: Lowering, op: ir.Operation) -> list[Any]:
    """clamp / clamp_min / clamp_max (scalar or tensor bounds, either may be None),
    hardtanh and relu6 as ``min(max(x, lo), hi)``; a bound above ``hi`` gives ``hi``, as eager."""
    out = result_type(op)
    element = out.element_type
    operands = [lw.cast(lw.v(op.operands[0]), element)]
    name = base_name(torch_ir.aten_name(op))
    if name == "torch.aten.relu6":
        bounds: list[ir.Value | float | None] = [0.0, 6.0]
    elif name == "torch.aten.clamp_min":
        bounds = [op.operands[1], None]
    elif name == "torch.aten.clamp_max":
        bounds = [None, op.operands[1]]
    else:  # clamp (self, min, max) and hardtanh (self, min_val, max_val)
        bounds = [op.operands[1], op.operands[2]]
    expr = "_1"
    for fn, bound in zip(("max", "min"), bounds, strict=True):
        if bound is None or (isinstance(bound, ir.Value) and is_none(bound)):
            continue
        if isinstance(bound, ir.Value):
            term = _term(lw, bound, element, operands)
        else:
            term = literal(bound if is_float(element) else int(bound))
        expr = f"{fn}({expr}, {term})"
    return [lw.map(expr, operands, out)]


def lower_leaky_relu(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    slope = lw.const(op.operands[1], "negative_slope") if len(op.operands) > 1 else 0.01
    x = lw.v(op.operands[0])
    return [lw.map(f"select(gt(_1, 0.0), _1, mul(_1, {literal(float(slope))}))", [x], out)]


def lower_elu(lw: Lowering, op: ir.Operation) -> list[Any]:
    """elu (self, alpha=1, scale=1, input_scale=1): ``x * scale`` where x > 0, else
    ``expm1(x * input_scale) * alpha * scale`` (selu and celu decompose into it)."""
    out = result_type(op)
    if not is_float(out.element_type):
        raise Unsupported(f"elu of {out.element_type} elements (eager computes it in floating point only)")
    x = lw.cast(lw.v(op.operands[0]), out.element_type)
    alpha, scale, input_scale = (float(lw.const(op.operands[i], name)) if len(op.operands) > i else 1.0
                                 for i, name in enumerate(("alpha", "scale", "input_scale"), 1))
    positive = "_1" if scale == 1.0 else f"mul(_1, {literal(scale)})"
    scaled_input = "_1" if input_scale == 1.0 else f"mul(_1, {literal(input_scale)})"
    negative = f"mul(expm1({scaled_input}), {literal(alpha * scale)})"
    return [lw.map(f"select(gt(_1, 0.0), {positive}, {negative})", [x], out)]


def lower_fill(lw: Lowering, op: ir.Operation) -> list[Any]:
    """fill.Scalar (self, value): a constant of self's shape and dtype holding ``value``."""
    out = result_type(op)
    value = lw.const(op.operands[1], "the fill value")
    return [lw.zeros_or_ones(value, out.shape, out.element_type)]


def lower_copy(lw: Lowering, op: ir.Operation) -> list[Any]:
    """copy (self, src, non_blocking): ``src`` converted to self's dtype and broadcast to
    self's shape (what ``self.copy_(src)`` leaves in self); self's values are not read."""
    out = result_type(op)
    src = lw.cast(lw.v(op.operands[1]), out.element_type)
    if pd.broadcast_shapes([shape_of(src), list(out.shape)]) != list(out.shape):
        raise Unsupported(f"copy of a {shape_of(src)} source into a {list(out.shape)} tensor (the source must broadcast to it)")
    return [lw.broadcast(src, list(out.shape))]


def lower_empty(lw: Lowering, op: ir.Operation) -> list[Any]:
    """empty.memory_format, empty_strided, empty_permuted (and the empty_like / new_empty
    they come from): eager leaves the memory uninitialised, so no program may depend on
    its values; the IPU gives zeros of the result's shape and dtype (strides and memory
    formats describe layouts, which IPU tensors do not have)."""
    out = result_type(op)
    return [lw.zeros_or_ones(0, out.shape, out.element_type)]


def lower_num_to_tensor(lw: Lowering, op: ir.Operation) -> list[Any]:
    """prim.NumToTensor.Scalar: a constant scalar as a rank-0 tensor (a Scalar argument
    that export turned into a tensor, as in ``torch.div(x, 0.3, rounding_mode="floor")``)."""
    out = result_type(op)
    return [lw.zeros_or_ones(lw.const(op.operands[0], "the scalar"), [], out.element_type)]


def lower_scalar_conversion(lw: Lowering, op: ir.Operation) -> list[Any]:
    """Int.bool (a bool passed where torch takes a Scalar): no tensor; the ops that read
    it take its value as a constant (``torch_ir.constant_value``)."""
    lw.const(op.operands[0], "the converted bool")
    return [None]


def lower_cast(lw: Lowering, op: ir.Operation) -> list[Any]:
    return [lw.cast(lw.v(op.operands[0]), result_type(op).element_type)]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: element-wise math, activations, comparisons, selects, casts, copies and fills."""
    patterns.register(*_UNARY)(lower_unary)
    patterns.register("torch.aten.round.decimals")(lower_round_decimals)
    patterns.register(*_NONLINEAR)(lower_nonlinearity)
    patterns.register("torch.aten.gelu")(lower_gelu)
    patterns.register(*_BINARY)(lower_binary)
    patterns.register(*_COMPARE)(lower_compare)
    patterns.register("torch.aten.where")(lower_where)
    patterns.register("torch.aten.masked_fill")(lower_masked_fill)
    patterns.register("torch.aten.clamp", "torch.aten.clamp_min", "torch.aten.clamp_max", "torch.aten.hardtanh", "torch.aten.relu6")(lower_clamp)
    patterns.register("torch.aten.leaky_relu")(lower_leaky_relu)
    patterns.register("torch.aten.elu")(lower_elu)
    patterns.register("torch.aten.fill.Scalar")(lower_fill)
    patterns.register("torch.aten.Int.bool")(lower_scalar_conversion)
    patterns.register("torch.prim.NumToTensor.Scalar")(lower_num_to_tensor)
    patterns.register("torch.aten.copy")(lower_copy)
    patterns.register("torch.aten.empty.memory_format", "torch.aten.empty_strided", "torch.aten.empty_permuted")(lower_empty)
    patterns.register("torch.aten._to_copy", "torch.aten.to.dtype", "torch.aten.type_as", "torch.aten.to.dtype_layout",
        "torch.prims.convert_element_type")(lower_cast)

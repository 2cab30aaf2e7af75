"""convert-torch-to-poplar: Torch-dialect compute ops -> poplar dialect compute ops.

Input: ``func.func`` bodies in the Torch dialect with value semantics (as the frontend
imports them). Output: the same functions over builtin tensors whose bodies hold
``poplar.popops_*`` / ``poplin_*`` / ``popnn_*`` ops and tensor views. Ops and attributes
of the ``ipu`` dialect pass through with converted types. An op without a lowering is a
compile error; every offender is reported with its location in one run.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from torch_mlir import ir
from torch_mlir.dialects import func as func_d

from ipu_mlir.dialects import ipu as ipu_d
from ipu_mlir.dialects import poplar as pd
from ipu_mlir.dialects._base import build

from .. import torch_ir
from ipu_mlir.support.ir_walk import POPLAR_VIEWS
from ..pass_base import Diagnostics, ModulePass
from ipu_mlir.dialects.pipeline_attrs import CHECKPOINT_ATTR
from ..torch_ir import NotConstant, constant_value, is_none


class Unsupported(Exception):
    """This op (or this use of it) has no lowering; the message says why."""


def _i64(value: int) -> ir.IntegerAttr:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))


def _f64(value: float) -> ir.FloatAttr:
    return ir.FloatAttr.get(ir.F64Type.get(), float(value))


def _bool(value: bool) -> ir.BoolAttr:
    return ir.BoolAttr.get(bool(value))


def _array(values: Sequence[int]) -> ir.DenseI64ArrayAttr:
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


def _str(value: str) -> ir.StringAttr:
    return ir.StringAttr.get(value)


def _tensor(shape: Sequence[int], element: ir.Type) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(list(shape), element)


def shape_of(value: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(value.type).shape)


def element_of(value: ir.Value) -> ir.Type:
    return ir.RankedTensorType(value.type).element_type


def is_float(element: ir.Type) -> bool:
    return isinstance(element, ir.F32Type | ir.F16Type | ir.BF16Type | ir.F64Type)


def _literal(value: float | int | bool) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if math.isnan(value):
            return "nan"
        return repr(value)
    return str(int(value))


class Lowering:
    """Emits poplar ops for one torch op at a time into the new function body."""

    def __init__(self, block: ir.Block, training: bool = False) -> None:
        self.block = block
        self.training = training
        self.values: dict[ir.Value, Any] = {}
        self.location: ir.Location = ir.Location.unknown()

    # -- value access ---------------------------------------------------------------
    def v(self, value: ir.Value) -> ir.Value:
        if value not in self.values:
            raise Unsupported(f"operand {value.get_name()} is not a tensor this lowering knows")
        mapped = self.values[value]
        if not isinstance(mapped, ir.Value):
            raise Unsupported("a list-valued operand was used where a tensor was expected")
        return mapped

    def const(self, value: ir.Value, what: str) -> Any:
        try:
            return constant_value(value)
        except NotConstant as reason:
            raise Unsupported(f"{what} must be a compile-time constant, but it is {reason}") from None

    def maybe_tensor(self, value: ir.Value) -> ir.Value | None:
        return None if is_none(value) else self.v(value)

    # -- emission -------------------------------------------------------------------
    def emit(self, cls: type, *args: Any) -> Any:
        with self.location, ir.InsertionPoint(self.block):
            op = build(cls, *args)
        return op.result if len(op.operation.results) == 1 else op

    def map(self, expr: str, operands: Sequence[ir.Value], result_type: ir.Type) -> ir.Value:
        if not 1 <= len(operands) <= 3:
            raise Unsupported(f"an element-wise expression over {len(operands)} tensors (popops_map takes 1 to 3)")
        return self.emit(pd.MapOp, operands[0], list(operands[1:2]), list(operands[2:3]), _str(expr), result_type)

    def concat(self, tensors: Sequence[ir.Value], dim: int) -> ir.Value:
        """Concatenate by chaining binary ``poplar.concat`` views."""
        result = tensors[0]
        for tensor in tensors[1:]:
            shape = shape_of(result)
            shape[dim] += shape_of(tensor)[dim]
            result = self.emit(pd.ConcatOp, result, tensor, _i64(dim), _tensor(shape, element_of(result)))
        return result

    def cast(self, value: ir.Value, element: ir.Type) -> ir.Value:
        if element_of(value) == element:
            return value
        return self.emit(pd.CastOp, value, _tensor(shape_of(value), element))

    def reshape(self, value: ir.Value, shape: Sequence[int]) -> ir.Value:
        if shape_of(value) == list(shape):
            return value
        return self.emit(pd.ReshapeOp, value, _tensor(shape, element_of(value)))

    def dim_shuffle(self, value: ir.Value, permutation: Sequence[int]) -> ir.Value:
        if list(permutation) == list(range(len(permutation))):
            return value
        shape = shape_of(value)
        return self.emit(pd.DimShuffleOp, value, _array(permutation), _tensor([shape[p] for p in permutation], element_of(value)))

    def transpose_last(self, value: ir.Value) -> ir.Value:
        rank = len(shape_of(value))
        perm = list(range(rank))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        return self.dim_shuffle(value, perm)

    def broadcast(self, value: ir.Value, shape: Sequence[int]) -> ir.Value:
        if shape_of(value) == list(shape):
            return value
        return self.emit(pd.BroadcastOp, value, _tensor(shape, element_of(value)))

    def binary(self, cls: type, a: ir.Value, b: ir.Value, result_type: ir.RankedTensorType) -> ir.Value:
        element = result_type.element_type
        return self.emit(cls, self.cast(a, element), self.cast(b, element), result_type)

    def matmul(self, a: ir.Value, b: ir.Value, result_type: ir.RankedTensorType) -> ir.Value:
        """torch.matmul semantics on top of rank-2 / rank-3 ``poplin.matmul``."""
        element = result_type.element_type
        a, b = self.cast(a, element), self.cast(b, element)
        sa, sb = shape_of(a), shape_of(b)
        out_shape = list(result_type.shape)
        if len(sa) == 1 and len(sb) == 1:
            a2, b2 = self.reshape(a, [1, sa[0]]), self.reshape(b, [sb[0], 1])
            return self.reshape(self.emit(pd.MatMulOp, a2, b2, _tensor([1, 1], element)), out_shape)
        if len(sa) == 1:
            a = self.reshape(a, [1, sa[0]])
            sa = [1, sa[0]]
            squeeze_m = True
        else:
            squeeze_m = False
        if len(sb) == 1:
            b = self.reshape(b, [sb[0], 1])
            sb = [sb[0], 1]
            squeeze_n = True
        else:
            squeeze_n = False
        if len(sa) == 2 and len(sb) == 2:
            out = self.emit(pd.MatMulOp, a, b, _tensor([sa[0], sb[1]], element))
            return self.reshape(out, out_shape)
        if len(sb) == 2:
            # [.., m, k] x [k, n]: fold the batch dims into m (one large matmul).
            m = math.prod(sa[:-1])
            out = self.emit(pd.MatMulOp, self.reshape(a, [m, sa[-1]]), b, _tensor([m, sb[1]], element))
            return self.reshape(out, out_shape)
        batch = list(pd.broadcast_shapes([sa[:-2], sb[:-2]]) or [])
        groups = math.prod(batch) if batch else 1
        a3 = self.reshape(self.broadcast(a, batch + sa[-2:]), [groups, *sa[-2:]])
        b3 = self.reshape(self.broadcast(b, batch + sb[-2:]), [groups, *sb[-2:]])
        out = self.emit(pd.MatMulOp, a3, b3, _tensor([groups, sa[-2], sb[-1]], element))
        del squeeze_m, squeeze_n
        return self.reshape(out, out_shape)

    def zeros_or_ones(self, value: float, shape: Sequence[int], element: ir.Type) -> ir.Value:
        type_ = _tensor(shape, element)
        attr = ir.DenseElementsAttr.get_splat(type_, _scalar_attr(value, element))
        return self.emit(pd.ConstantOp, attr, _i64(0), type_)


def _scalar_attr(value: float | int | bool, element: ir.Type) -> ir.Attribute:
    if is_float(element):
        return ir.FloatAttr.get(element, float(value))
    return ir.IntegerAttr.get(element, int(value))


Pattern = Callable[[Lowering, ir.Operation], list[Any]]
PATTERNS: dict[str, Pattern] = {}


def lowers(*names: str) -> Callable[[Pattern], Pattern]:
    def register(fn: Pattern) -> Pattern:
        for name in names:
            PATTERNS[name] = fn
        return fn

    return register


def result_type(op: ir.Operation, index: int = 0) -> ir.RankedTensorType:
    try:
        return torch_ir.to_builtin_tensor(op.results[index].type)
    except ValueError as error:
        raise Unsupported(str(error)) from None


def dim_arg(value: int, rank: int) -> int:
    return value + max(rank, 1) if value < 0 else value


# ---------------------------------------------------------------------------------------
# Element-wise
# ---------------------------------------------------------------------------------------

_UNARY = {
    "torch.aten.neg": "neg", "torch.aten.abs": "abs", "torch.aten.exp": "exp", "torch.aten.expm1": "expm1",
    "torch.aten.log": "log", "torch.aten.log1p": "log1p", "torch.aten.sqrt": "sqrt", "torch.aten.rsqrt": "rsqrt",
    "torch.aten.sin": "sin", "torch.aten.cos": "cos", "torch.aten.tan": "tan", "torch.aten.erf": "erf",
    "torch.aten.floor": "floor", "torch.aten.ceil": "ceil", "torch.aten.round": "round", "torch.aten.trunc": "trunc",
    "torch.aten.sign": "sign", "torch.aten.reciprocal": "reciprocal", "torch.aten.square": "square",
    "torch.aten.logical_not": "not", "torch.aten.bitwise_not": "bitwise_not", "torch.aten.isnan": "isnan",
    "torch.aten.isinf": "isinf", "torch.aten.atan": "atan", "torch.aten.asin": "asin", "torch.aten.acos": "acos",
}


@lowers(*_UNARY)
def lower_unary(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x = lw.v(op.operands[0])
    fn = _UNARY[op.name]
    if fn not in ("not", "isnan", "isinf"):
        x = lw.cast(x, out.element_type)
    return [lw.map(f"{fn}(_1)", [x], out)]


_NONLINEAR = {"torch.aten.relu": "relu", "torch.aten.sigmoid": "sigmoid", "torch.aten.tanh": "tanh", "torch.aten.silu": "silu",
              "torch.aten.hardsigmoid": "hard_sigmoid", "torch.aten.hardswish": "hard_swish"}


@lowers(*_NONLINEAR)
def lower_nonlinearity(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x = lw.cast(lw.v(op.operands[0]), out.element_type)
    return [lw.emit(pd.NonLinearityOp, x, _str(_NONLINEAR[op.name]), _i64(0), out)]


@lowers("torch.aten.gelu")
def lower_gelu(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    approximate = lw.const(op.operands[1], "gelu's approximate") if len(op.operands) > 1 else "none"
    kind = {"none": "gelu_erf", "tanh": "gelu_tanh"}.get(approximate)
    if kind is None:
        raise Unsupported(f"gelu approximate='{approximate}' (expected 'none' or 'tanh')")
    return [lw.emit(pd.NonLinearityOp, lw.v(op.operands[0]), _str(kind), _i64(0), out)]


_BINARY = {
    "torch.aten.add": ("add", pd.AddOp), "torch.aten.sub": ("sub", pd.SubOp), "torch.aten.mul": ("mul", pd.MulOp),
    "torch.aten.div": ("div", pd.DivOp), "torch.aten.pow": ("pow", None), "torch.aten.maximum": ("max", None),
    "torch.aten.minimum": ("min", None), "torch.aten.remainder": ("rem", None), "torch.aten.fmod": ("fmod", None),
    "torch.aten.atan2": ("atan2", None), "torch.aten.logical_and": ("and", None), "torch.aten.logical_or": ("or", None),
    "torch.aten.logical_xor": ("xor", None), "torch.aten.bitwise_and": ("bitwise_and", None),
    "torch.aten.bitwise_or": ("bitwise_or", None), "torch.aten.bitwise_xor": ("bitwise_xor", None),
    "torch.aten.rsub": ("rsub", None), "torch.aten.floor_divide": ("floor_div", None),
}
_COMPARE = {"torch.aten.eq": "eq", "torch.aten.ne": "ne", "torch.aten.lt": "lt", "torch.aten.le": "le",
            "torch.aten.gt": "gt", "torch.aten.ge": "ge"}


def _base_name(name: str) -> str:
    """``torch.aten.add.Tensor`` -> ``torch.aten.add`` (registered ops carry no overload)."""
    parts = name.split(".")
    return ".".join(parts[:3])


def _operand_or_literal(lw: Lowering, value: ir.Value, element: ir.Type) -> tuple[str, list[ir.Value]]:
    """A map-expression term for an operand: a literal for a constant scalar, else ``_k``."""
    if torch_ir.is_vtensor(value.type):
        return "", [lw.cast(lw.v(value), element)]
    scalar = lw.const(value, "a scalar operand")
    return _literal(float(scalar) if is_float(element) else scalar), []


def _expression(fn: str, lw: Lowering, lhs: ir.Value, rhs: ir.Value, element: ir.Type, out: ir.Type) -> ir.Value:
    operands: list[ir.Value] = []
    terms = []
    for value in (lhs, rhs):
        literal, tensors = _operand_or_literal(lw, value, element)
        if tensors:
            operands.extend(tensors)
            terms.append(f"_{len(operands)}")
        else:
            terms.append(literal)
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


@lowers(*_BINARY)
def lower_binary(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    element = out.element_type
    fn, cls = _BINARY[_base_name(op.name)]
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
        fn = {"floor": "floor_div", "trunc": "trunc_div"}[mode]
    if fn in ("and", "or", "xor"):
        element = ir.IntegerType.get_signless(1)
    if cls is not None and torch_ir.is_vtensor(lhs.type) and torch_ir.is_vtensor(rhs.type):
        return [lw.binary(cls, lw.v(lhs), lw.v(rhs), out)]
    return [_expression(fn, lw, lhs, rhs, element, out)]


def _scaled_rhs(fn: str, lw: Lowering, lhs: ir.Value, rhs: ir.Value, alpha: float | int, element: ir.Type, out: ir.Type) -> ir.Value:
    """``lhs (+|-) alpha * rhs`` as one map expression (alpha folds into a scalar rhs)."""
    alpha_text = _literal(float(alpha) if is_float(element) else alpha)
    lhs_literal, lhs_tensors = _operand_or_literal(lw, lhs, element)
    if not torch_ir.is_vtensor(rhs.type):
        scalar = lw.const(rhs, "a scalar operand")
        rhs_text = _literal((float(scalar) if is_float(element) else scalar) * alpha)
        operands = lhs_tensors
        lhs_text = "_1" if lhs_tensors else lhs_literal
        if not operands:
            raise Unsupported("an element-wise op with only scalar operands")
        return lw.map(f"{fn}({lhs_text}, {rhs_text})", operands, out)
    operands = [*lhs_tensors, lw.cast(lw.v(rhs), element)]
    lhs_text = "_1" if lhs_tensors else lhs_literal
    return lw.map(f"{fn}({lhs_text}, mul(_{len(operands)}, {alpha_text}))", operands, out)


@lowers(*_COMPARE)
def lower_compare(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    element = _common_element(lw, op.operands[:2])
    if element is None:
        raise Unsupported("a comparison of two scalars")
    return [_expression(_COMPARE[_base_name(op.name)], lw, op.operands[0], op.operands[1], element, out)]


@lowers("torch.aten.where")
def lower_where(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    cond = lw.cast(lw.v(op.operands[0]), ir.IntegerType.get_signless(1))
    operands, terms = [cond], ["_1"]
    for value in op.operands[1:3]:
        literal, tensors = _operand_or_literal(lw, value, out.element_type)
        if tensors:
            operands.extend(tensors)
            terms.append(f"_{len(operands)}")
        else:
            terms.append(literal)
    return [lw.map(f"select({terms[0]}, {terms[1]}, {terms[2]})", operands, out)]


@lowers("torch.aten.masked_fill")
def lower_masked_fill(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x = lw.cast(lw.v(op.operands[0]), out.element_type)
    mask = lw.cast(lw.v(op.operands[1]), ir.IntegerType.get_signless(1))
    literal, tensors = _operand_or_literal(lw, op.operands[2], out.element_type)
    if tensors:
        return [lw.map("select(_2, _3, _1)", [x, mask, tensors[0]], out)]
    return [lw.map(f"select(_2, {literal}, _1)", [x, mask], out)]


@lowers("torch.aten.clamp", "torch.aten.clamp_min", "torch.aten.clamp_max", "torch.aten.hardtanh", "torch.aten.relu6")
def lower_clamp(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x = lw.cast(lw.v(op.operands[0]), out.element_type)
    name = _base_name(op.name)
    if name == "torch.aten.relu6":
        lo, hi = 0.0, 6.0
    elif name == "torch.aten.hardtanh":
        lo, hi = lw.const(op.operands[1], "min_val"), lw.const(op.operands[2], "max_val")
    elif name == "torch.aten.clamp_min":
        lo, hi = lw.const(op.operands[1], "min"), None
    elif name == "torch.aten.clamp_max":
        lo, hi = None, lw.const(op.operands[1], "max")
    else:
        lo, hi = lw.const(op.operands[1], "min"), lw.const(op.operands[2], "max")
    float_out = is_float(out.element_type)
    expr = "_1"
    if lo is not None:
        expr = f"max({expr}, {_literal(float(lo) if float_out else lo)})"
    if hi is not None:
        expr = f"min({expr}, {_literal(float(hi) if float_out else hi)})"
    return [lw.map(expr, [x], out)]


@lowers("torch.aten.leaky_relu")
def lower_leaky_relu(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    slope = lw.const(op.operands[1], "negative_slope") if len(op.operands) > 1 else 0.01
    x = lw.v(op.operands[0])
    return [lw.map(f"select(gt(_1, 0.0), _1, mul(_1, {_literal(float(slope))}))", [x], out)]


# ---------------------------------------------------------------------------------------
# Casts, copies, identities
# ---------------------------------------------------------------------------------------


@lowers("torch.aten._to_copy", "torch.aten.to.dtype", "torch.aten.type_as", "torch.aten.to.dtype_layout",
        "torch.prims.convert_element_type")
def lower_cast(lw: Lowering, op: ir.Operation) -> list[Any]:
    return [lw.cast(lw.v(op.operands[0]), result_type(op).element_type)]


@lowers("torch.aten.native_dropout")
def lower_native_dropout(lw: Lowering, op: ir.Operation) -> list[Any]:
    """Dropout draws a mask in training programs; in inference it is the identity (mask all true)."""
    x = lw.v(op.operands[0])
    p = lw.const(op.operands[1], "p")
    train = lw.const(op.operands[2], "train")
    mask = result_type(op, 1)
    if lw.training and train and p > 0:
        dropout = lw.emit(pd.DropoutOp, x, _f64(p), x.type, _tensor(mask.shape, ir.IntegerType.get_signless(1)))
        y, keep = list(dropout.operation.results)
        return [y, keep]
    return [x, lw.zeros_or_ones(True, mask.shape, mask.element_type)]


@lowers("torch.aten.clone", "torch.aten.contiguous", "torch.aten.detach", "torch.aten.alias", "torch.aten.lift_fresh_copy",
        "torch.aten.dropout", "torch.aten.feature_dropout", "torch.aten.positive")
def lower_identity(lw: Lowering, op: ir.Operation) -> list[Any]:
    # Dropout is the identity in inference (SEMANTICS: "dropout (identity in
    # inference)"); training programs replace it before this pass runs.
    return [lw.v(op.operands[0])]


# ---------------------------------------------------------------------------------------
# Views and data movement
# ---------------------------------------------------------------------------------------


@lowers("torch.aten.view", "torch.aten.reshape", "torch.aten._unsafe_view", "torch.aten.flatten", "torch.aten.unflatten",
        "torch.aten.squeeze", "torch.aten.unsqueeze", "torch.aten.view_as", "torch.aten.reshape_as")
def lower_reshape(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    return [lw.reshape(lw.v(op.operands[0]), out.shape)]


@lowers("torch.aten.permute")
def lower_permute(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    rank = len(shape_of(x))
    perm = [dim_arg(d, rank) for d in lw.const(op.operands[1], "permutation")]
    return [lw.dim_shuffle(x, perm)]


@lowers("torch.aten.transpose", "torch.aten.t", "torch.aten.numpy_T")
def lower_transpose(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    rank = len(shape_of(x))
    if rank < 2:
        return [x]
    if len(op.operands) >= 3:
        a, b = (dim_arg(lw.const(v, "dim"), rank) for v in op.operands[1:3])
    else:
        a, b = 0, 1
    perm = list(range(rank))
    perm[a], perm[b] = perm[b], perm[a]
    return [lw.dim_shuffle(x, perm)]


@lowers("torch.aten.expand", "torch.aten.broadcast_to", "torch.aten.expand_as")
def lower_expand(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    return [lw.broadcast(lw.v(op.operands[0]), out.shape)]


@lowers("torch.aten.slice")
def lower_slice(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    shape = shape_of(x)
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape))
    start = lw.const(op.operands[2], "start")
    end = lw.const(op.operands[3], "end")
    step = lw.const(op.operands[4], "step")
    begin_i, end_i, step_i = slice(start, end, step).indices(shape[dim])
    begin, stop, stride = [0] * len(shape), list(shape), [1] * len(shape)
    begin[dim], stop[dim], stride[dim] = begin_i, max(end_i, begin_i), step_i
    return [lw.emit(pd.SliceOp, x, _array(begin), _array(stop), _array(stride), result_type(op))]


@lowers("torch.aten.select")
def lower_select(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    shape = shape_of(x)
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape))
    index = lw.const(op.operands[2], "index")
    index = index + shape[dim] if index < 0 else index
    begin, stop, stride = [0] * len(shape), list(shape), [1] * len(shape)
    begin[dim], stop[dim] = index, index + 1
    sliced_shape = list(shape)
    sliced_shape[dim] = 1
    sliced = lw.emit(pd.SliceOp, x, _array(begin), _array(stop), _array(stride), _tensor(sliced_shape, element_of(x)))
    return [lw.reshape(sliced, result_type(op).shape)]


@lowers("torch.aten.cat", "torch.aten.concat")
def lower_cat(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    tensors = _list_operand(lw, op.operands[0])
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(out.shape))
    tensors = [lw.cast(t, out.element_type) for t in tensors if math.prod(shape_of(t)) > 0 or len(tensors) == 1]
    return [lw.reshape(lw.concat(tensors, dim), out.shape)]


@lowers("torch.aten.stack")
def lower_stack(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    tensors = _list_operand(lw, op.operands[0])
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(out.shape))
    expanded = []
    for t in tensors:
        shape = shape_of(t)
        expanded.append(lw.cast(lw.reshape(t, shape[:dim] + [1] + shape[dim:]), out.element_type))
    return [lw.concat(expanded, dim)]


@lowers("torch.aten.split.Tensor", "torch.aten.split_with_sizes", "torch.aten.split.sizes", "torch.aten.chunk",
        "torch.aten.unbind.int", "torch.aten.split")
def lower_split(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    shape = shape_of(x)
    name = aten_overload(op)
    if name == "torch.aten.unbind.int":
        dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape))
        sizes = [1] * shape[dim]
    else:
        dim = dim_arg(lw.const(op.operands[2], "dim"), len(shape))
        arg = lw.const(op.operands[1], "split size")
        if name == "torch.aten.chunk":
            size = -(-shape[dim] // arg)
            sizes = [min(size, shape[dim] - i) for i in range(0, shape[dim], size)]
        elif isinstance(arg, list):
            sizes = arg
        else:
            sizes = [min(arg, shape[dim] - i) for i in range(0, shape[dim], arg)]
    pieces, offset = [], 0
    for size in sizes:
        begin, stop, stride = [0] * len(shape), list(shape), [1] * len(shape)
        begin[dim], stop[dim] = offset, offset + size
        piece_shape = list(shape)
        piece_shape[dim] = size
        piece = lw.emit(pd.SliceOp, x, _array(begin), _array(stop), _array(stride), _tensor(piece_shape, element_of(x)))
        if name == "torch.aten.unbind.int":
            piece = lw.reshape(piece, shape[:dim] + shape[dim + 1 :])
        pieces.append(piece)
        offset += size
    return [pieces]


def aten_overload(op: ir.Operation) -> str:
    """The op's name including the overload when the op was imported as ``torch.operator``."""
    return torch_ir.aten_name(op)


def _list_operand(lw: Lowering, value: ir.Value) -> list[ir.Value]:
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "torch.prim.ListConstruct":
        raise Unsupported("a tensor list that is not built with prim.ListConstruct")
    return [lw.v(v) for v in owner.operation.operands]


@lowers("torch.prim.ListConstruct")
def lower_list_construct(lw: Lowering, op: ir.Operation) -> list[Any]:
    if all(torch_ir.is_vtensor(v.type) for v in op.operands) and op.operands:
        return [[lw.v(v) for v in op.operands]]
    return [None]  # a constant list: read by users through constant_value


@lowers("torch.prim.ListUnpack")
def lower_list_unpack(lw: Lowering, op: ir.Operation) -> list[Any]:
    items = lw.values.get(op.operands[0])
    if not isinstance(items, list):
        raise Unsupported("unpacking a list this lowering did not produce")
    return list(items)


@lowers("torch.aten.__getitem__.t", "torch.aten.getitem")
def lower_getitem(lw: Lowering, op: ir.Operation) -> list[Any]:
    items = lw.values.get(op.operands[0])
    index = lw.const(op.operands[1], "list index")
    if not isinstance(items, list):
        raise Unsupported("indexing a list this lowering did not produce")
    return [items[index]]


@lowers("torch.aten.gather")
def lower_gather(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape_of(x)))
    return [lw.emit(pd.GatherOp, x, lw.v(op.operands[2]), _i64(dim), result_type(op))]


@lowers("torch.aten.index_select")
def lower_index_select(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape_of(x)))
    return [lw.emit(pd.MultiSliceOp, x, lw.v(op.operands[2]), _i64(dim), result_type(op))]


@lowers("torch.aten.embedding")
def lower_embedding(lw: Lowering, op: ir.Operation) -> list[Any]:
    return [lw.emit(pd.MultiSliceOp, lw.v(op.operands[0]), lw.v(op.operands[1]), _i64(0), result_type(op))]


@lowers("torch.aten.constant_pad_nd", "torch.aten.pad")
def lower_pad(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    pads = lw.const(op.operands[1], "padding")
    if aten_overload(op) == "torch.aten.pad":
        mode = lw.const(op.operands[2], "pad mode")
        if mode != "constant":
            raise Unsupported(f"pad mode '{mode}' (only 'constant')")
        value = lw.const(op.operands[3], "pad value") if len(op.operands) > 3 else 0.0
    else:
        value = lw.const(op.operands[2], "pad value") if len(op.operands) > 2 else 0.0
    rank = len(shape_of(x))
    low, high = [0] * rank, [0] * rank
    for i in range(len(pads) // 2):
        low[rank - 1 - i], high[rank - 1 - i] = pads[2 * i], pads[2 * i + 1]
    if any(p < 0 for p in low + high):
        raise Unsupported("negative padding")
    return [lw.emit(pd.PadOp, x, _array(low), _array(high), _f64(value or 0.0), result_type(op))]


# ---------------------------------------------------------------------------------------
# Constants and tensor factories
# ---------------------------------------------------------------------------------------


@lowers("torch.vtensor.literal")
def lower_literal(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    attr = op.attributes["value"]
    if isinstance(attr, ir.DenseElementsAttr) and attr.type != out:
        attr = _retype_dense(attr, out)
    return [lw.emit(pd.ConstantOp, attr, _i64(0), out)]


def _retype_dense(attr: ir.DenseElementsAttr, out: ir.RankedTensorType) -> ir.Attribute:
    text = str(attr)
    body = text[: text.rindex(":")].strip()
    return ir.Attribute.parse(f"{body} : {out}")


@lowers("torch.aten.full", "torch.aten.zeros", "torch.aten.ones", "torch.aten.full_like", "torch.aten.zeros_like",
        "torch.aten.ones_like", "torch.aten.new_zeros", "torch.aten.new_ones", "torch.aten.new_full", "torch.aten.scalar_tensor")
def lower_full(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    name = aten_overload(op)
    if name.endswith("zeros") or name.endswith("zeros_like"):
        value = 0
    elif name.endswith("ones") or name.endswith("ones_like"):
        value = 1
    elif name in ("torch.aten.full", "torch.aten.full_like", "torch.aten.new_full"):
        value = lw.const(op.operands[1 if name != "torch.aten.new_full" else 2], "fill value")
    else:
        value = lw.const(op.operands[0], "scalar value")
    return [lw.zeros_or_ones(value, out.shape, out.element_type)]


@lowers("torch.aten.arange", "torch.aten.arange.start", "torch.aten.arange.start_step")
def lower_arange(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    args = [lw.const(v, "arange bound") for v in op.operands[:3] if torch_ir.is_vtensor(v.type) is False]
    numbers = [a for a in args if isinstance(a, int | float) and not isinstance(a, bool)]
    name = aten_overload(op)
    if name == "torch.aten.arange":
        start, step = 0, 1
    elif name == "torch.aten.arange.start":
        start, step = numbers[0], 1
    else:
        start, step = numbers[0], numbers[2]
    values = [start + i * step for i in range(out.shape[0])]
    if is_float(out.element_type):
        attr = ir.DenseElementsAttr.get([ir.FloatAttr.get(out.element_type, float(v)) for v in values], type=out)
    else:
        attr = ir.DenseElementsAttr.get([ir.IntegerAttr.get(out.element_type, int(v)) for v in values], type=out)
    return [lw.emit(pd.ConstantOp, attr, _i64(0), out)]


# ---------------------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------------------


def _reduce(lw: Lowering, x: ir.Value, op: str, dims: Sequence[int], keep: bool, scale: float, out: ir.RankedTensorType) -> ir.Value:
    return lw.emit(pd.ReduceOp, x, _str(op), _array(sorted(dims)), _bool(keep), _f64(scale), out)


def _dims(lw: Lowering, value: ir.Value | None, rank: int) -> list[int]:
    if value is None or is_none(value):
        return list(range(rank))
    dims = lw.const(value, "reduction dims")
    dims = dims if isinstance(dims, list) else [dims]
    return sorted({dim_arg(d, rank) for d in dims}) if dims else list(range(rank))


@lowers("torch.aten.sum", "torch.aten.sum.dim_IntList", "torch.aten.mean", "torch.aten.mean.dim", "torch.aten.amax",
        "torch.aten.amin", "torch.aten.prod", "torch.aten.prod.dim_int", "torch.aten.any", "torch.aten.all",
        "torch.aten.any.dim", "torch.aten.all.dim")
def lower_reduction(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x = lw.v(op.operands[0])
    rank = len(shape_of(x))
    name = _base_name(op.name)
    # The overload decides: sum(self, dtype) / mean(self, dtype) / prod(self, dtype) /
    # any(self) reduce everything; the .dim overloads take (self, dim, keepdim, ...).
    full = op.name in ("torch.aten.sum", "torch.aten.mean", "torch.aten.prod", "torch.aten.any", "torch.aten.all") or len(op.operands) == 1
    dims = list(range(rank)) if full else _dims(lw, op.operands[1], rank)
    keep = False if full else bool(lw.const(op.operands[2], "keepdim")) if len(op.operands) > 2 else False
    kind = {"torch.aten.sum": "add", "torch.aten.mean": "add", "torch.aten.amax": "max", "torch.aten.amin": "min",
            "torch.aten.prod": "mul", "torch.aten.any": "logical_or", "torch.aten.all": "logical_and"}[name]
    if kind in ("logical_or", "logical_and"):
        x = lw.cast(x, ir.IntegerType.get_signless(1))
    else:
        x = lw.cast(x, out.element_type)
    count = math.prod(shape_of(x)[d] for d in dims) if dims else 1
    scale = 1.0 / count if name == "torch.aten.mean" else 1.0
    return [_reduce(lw, x, kind, dims, keep, scale, out)]


@lowers("torch.aten.max.dim", "torch.aten.min.dim")
def lower_max_dim(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    rank = len(shape_of(x))
    dim = dim_arg(lw.const(op.operands[1], "dim"), rank)
    keep = bool(lw.const(op.operands[2], "keepdim"))
    kind = "max" if "max" in op.name else "min"
    values = _reduce(lw, x, kind, [dim], keep, 1.0, result_type(op, 0))
    cls = pd.ArgMaxOp if kind == "max" else pd.ArgMinOp
    indices = lw.emit(cls, x, _i64(dim), _bool(keep), result_type(op, 1))
    return [values, indices]


@lowers("torch.aten.max", "torch.aten.min")
def lower_max_full(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    if len(op.operands) > 1:
        raise Unsupported(f"{op.name} with {len(op.operands)} operands")
    kind = "max" if op.name.endswith("max") else "min"
    return [_reduce(lw, x, kind, list(range(len(shape_of(x)))), False, 1.0, result_type(op))]


@lowers("torch.aten.argmax", "torch.aten.argmin")
def lower_argmax(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    out = result_type(op)
    keep = bool(lw.const(op.operands[2], "keepdim")) if len(op.operands) > 2 else False
    if is_none(op.operands[1]):
        x = lw.reshape(x, [math.prod(shape_of(x))])
        dim = 0
    else:
        dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape_of(x)))
    cls = pd.ArgMaxOp if op.name.endswith("argmax") else pd.ArgMinOp
    return [lw.emit(cls, x, _i64(dim), _bool(keep), out)]


# ---------------------------------------------------------------------------------------
# Linear algebra
# ---------------------------------------------------------------------------------------


@lowers("torch.aten.matmul", "torch.aten.mm", "torch.aten.bmm")
def lower_matmul(lw: Lowering, op: ir.Operation) -> list[Any]:
    return [lw.matmul(lw.v(op.operands[0]), lw.v(op.operands[1]), result_type(op))]


@lowers("torch.aten.linear")
def lower_linear(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x, w = lw.v(op.operands[0]), lw.v(op.operands[1])
    bias = lw.maybe_tensor(op.operands[2]) if len(op.operands) > 2 else None
    y = lw.matmul(x, lw.transpose_last(w), out)
    if bias is not None:
        y = lw.binary(pd.AddOp, y, bias, out)
    return [y]


@lowers("torch.aten.addmm")
def lower_addmm(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    beta = lw.const(op.operands[3], "beta") if len(op.operands) > 3 else 1
    alpha = lw.const(op.operands[4], "alpha") if len(op.operands) > 4 else 1
    product = lw.matmul(lw.v(op.operands[1]), lw.v(op.operands[2]), out)
    bias = lw.v(op.operands[0])
    if beta == 1 and alpha == 1:
        return [lw.binary(pd.AddOp, product, bias, out)]
    return [lw.map(f"add(mul(_1, {_literal(float(alpha))}), mul(_2, {_literal(float(beta))}))", [product, lw.cast(bias, out.element_type)], out)]


@lowers("torch.aten.conv1d", "torch.aten.conv2d", "torch.aten.conv3d", "torch.aten.convolution", "torch.aten._convolution")
def lower_conv(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x, w = lw.v(op.operands[0]), lw.v(op.operands[1])
    bias = lw.maybe_tensor(op.operands[2])
    spatial = len(shape_of(x)) - 2
    stride, padding, dilation = (_expand(lw.const(op.operands[i], what), spatial) for i, what in ((3, "stride"), (4, "padding"), (5, "dilation")))
    if _base_name(op.name) in ("torch.aten.convolution", "torch.aten._convolution"):
        transposed = lw.const(op.operands[6], "transposed")
        if transposed:
            raise Unsupported("transposed convolution")
        groups = lw.const(op.operands[8], "groups")
    else:
        if isinstance(padding, str) or isinstance(lw.const(op.operands[4], "padding"), str):
            raise Unsupported("string padding ('same'/'valid'); give explicit padding")
        groups = lw.const(op.operands[6], "groups")
    bias_list = [bias] if bias is not None else []
    return [lw.emit(pd.ConvOp, x, w, bias_list, _array(stride), _array(padding), _array(dilation), _i64(groups), out)]


def _expand(value: Any, n: int) -> list[int]:
    if isinstance(value, str):
        raise Unsupported(f"padding '{value}'; give explicit padding")
    values = value if isinstance(value, list) else [value]
    return values * n if len(values) == 1 else values


@lowers("torch.aten.scaled_dot_product_attention")
def lower_sdpa(lw: Lowering, op: ir.Operation) -> list[Any]:
    """The math decomposition: softmax(q k^T * scale + mask) v."""
    out = result_type(op)
    q, k, v = (lw.v(op.operands[i]) for i in range(3))
    mask = lw.maybe_tensor(op.operands[3]) if len(op.operands) > 3 else None
    dropout = lw.const(op.operands[4], "dropout_p") if len(op.operands) > 4 else 0.0
    causal = lw.const(op.operands[5], "is_causal") if len(op.operands) > 5 else False
    scale = lw.const(op.operands[6], "scale") if len(op.operands) > 6 else None
    if dropout:
        raise Unsupported("attention dropout (dropout_p > 0) in inference")
    qs, ks = shape_of(q), shape_of(k)
    element = out.element_type
    scale = scale if scale is not None else 1.0 / math.sqrt(qs[-1])
    scores_shape = qs[:-1] + [ks[-2]]
    scores_type = _tensor(scores_shape, element)
    scores = lw.matmul(q, lw.transpose_last(k), scores_type)
    scores = lw.map(f"mul(_1, {_literal(float(scale))})", [scores], scores_type)
    if causal:
        import numpy as np  # local: numpy is a dependency, only needed here

        keep = np.tril(np.ones((qs[-2], ks[-2]), dtype=bool))
        mask_type = _tensor([qs[-2], ks[-2]], ir.IntegerType.get_signless(1))
        causal_mask = lw.emit(pd.ConstantOp, ir.DenseElementsAttr.get(keep, type=mask_type), _i64(0), mask_type)
        scores = lw.map("select(_2, _1, -inf)", [scores, causal_mask], scores_type)
    if mask is not None:
        if isinstance(element_of(mask), ir.IntegerType) and ir.IntegerType(element_of(mask)).width == 1:
            scores = lw.map("select(_2, _1, -inf)", [scores, mask], scores_type)
        else:
            scores = lw.map("add(_1, _2)", [scores, lw.cast(mask, element)], scores_type)
    probs = lw.emit(pd.NonLinearityOp, scores, _str("softmax"), _i64(len(scores_shape) - 1), scores_type)
    return [lw.matmul(probs, v, out)]


# ---------------------------------------------------------------------------------------
# Normalisation, softmax, pooling
# ---------------------------------------------------------------------------------------


def _ones_if_none(lw: Lowering, value: ir.Value | None, shape: Sequence[int], element: ir.Type, fill: float) -> ir.Value:
    if value is None or is_none(value):
        return lw.zeros_or_ones(fill, shape, element)
    return lw.cast(lw.v(value), element)


@lowers("torch.aten.batch_norm", "torch.aten._native_batch_norm_legit_no_training", "torch.aten.native_batch_norm",
        "torch.aten._native_batch_norm_legit")
def lower_batch_norm(lw: Lowering, op: ir.Operation) -> list[Any]:
    name = aten_overload(op)
    x = lw.v(op.operands[0])
    element = element_of(x)
    channels = [shape_of(x)[1]]
    if name == "torch.aten.batch_norm":
        training = lw.const(op.operands[5], "training")
        eps = lw.const(op.operands[7], "eps")
    elif name == "torch.aten._native_batch_norm_legit_no_training":
        training = False
        eps = lw.const(op.operands[6], "eps")
    else:
        training = lw.const(op.operands[5], "training")
        eps = lw.const(op.operands[7], "eps")
    if training:
        raise Unsupported("batch norm with batch statistics (training mode); call model.eval() for inference")
    weight = _ones_if_none(lw, op.operands[1], channels, element, 1.0)
    bias = _ones_if_none(lw, op.operands[2], channels, element, 0.0)
    mean = lw.cast(lw.v(op.operands[3]), element)
    var = lw.cast(lw.v(op.operands[4]), element)
    y = lw.emit(pd.NormOp, x, weight, bias, [mean, var], _str("batch"), _f64(eps), _i64(1), _i64(1), result_type(op, 0))
    # The saved mean / rstd results of the legit ops are empty in inference: no value.
    return [y]


@lowers("torch.aten.layer_norm", "torch.aten.native_layer_norm")
def lower_layer_norm(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    element = element_of(x)
    normalized = lw.const(op.operands[1], "normalized_shape")
    eps = lw.const(op.operands[4], "eps")
    weight = _ones_if_none(lw, op.operands[2], normalized, element, 1.0)
    bias = _ones_if_none(lw, op.operands[3], normalized, element, 0.0)
    if len(op.results) > 1:
        raise Unsupported("native_layer_norm's mean/rstd results (training)")
    return [lw.emit(pd.NormOp, x, weight, bias, [], _str("layer"), _f64(eps), _i64(1), _i64(len(normalized)), result_type(op))]


@lowers("torch.aten.group_norm")
def lower_group_norm(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    element = element_of(x)
    groups = lw.const(op.operands[1], "num_groups")
    eps = lw.const(op.operands[4], "eps")
    channels = [shape_of(x)[1]]
    weight = _ones_if_none(lw, op.operands[2], channels, element, 1.0)
    bias = _ones_if_none(lw, op.operands[3], channels, element, 0.0)
    return [lw.emit(pd.NormOp, x, weight, bias, [], _str("group"), _f64(eps), _i64(groups), _i64(1), result_type(op))]


@lowers("torch.aten.softmax", "torch.aten._softmax", "torch.aten.log_softmax", "torch.aten._log_softmax")
def lower_softmax(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x = lw.v(op.operands[0])
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape_of(x)))
    if _base_name(op.name) in ("torch.aten.softmax", "torch.aten.log_softmax"):
        x = lw.cast(x, out.element_type)
    elif lw.const(op.operands[2], "half_to_float"):
        x = lw.cast(x, out.element_type)
    kind = "log_softmax" if "log_softmax" in op.name else "softmax"
    return [lw.emit(pd.NonLinearityOp, x, _str(kind), _i64(dim), out)]


@lowers("torch.aten.max_pool1d", "torch.aten.max_pool2d", "torch.aten.max_pool3d", "torch.aten.avg_pool1d",
        "torch.aten.avg_pool2d", "torch.aten.avg_pool3d")
def lower_pool(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    spatial = len(shape_of(x)) - 2
    kind = "max" if "max_pool" in op.name else "avg"
    kernel = _expand(lw.const(op.operands[1], "kernel_size"), spatial)
    stride_arg = lw.const(op.operands[2], "stride")
    stride = _expand(stride_arg, spatial) if stride_arg else kernel
    padding = _expand(lw.const(op.operands[3], "padding"), spatial)
    if kind == "max":
        dilation = _expand(lw.const(op.operands[4], "dilation"), spatial)
        if any(d != 1 for d in dilation):
            raise Unsupported("max pooling with dilation")
        ceil = lw.const(op.operands[5], "ceil_mode")
        include_pad = True
    else:
        ceil = lw.const(op.operands[4], "ceil_mode")
        include_pad = lw.const(op.operands[5], "count_include_pad")
        if len(op.operands) > 6 and not is_none(op.operands[6]):
            raise Unsupported("avg pooling with divisor_override")
    return [lw.emit(pd.PoolOp, x, _str(kind), _array(kernel), _array(stride), _array(padding), _bool(ceil), _bool(include_pad), result_type(op))]


@lowers("torch.aten.adaptive_avg_pool1d", "torch.aten.adaptive_avg_pool2d", "torch.aten.adaptive_max_pool2d",
        "torch.aten._adaptive_avg_pool2d")
def lower_adaptive_pool(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    shape = shape_of(x)
    spatial = len(shape) - 2
    sizes = _expand(lw.const(op.operands[1], "output_size"), spatial)
    sizes = [s if s is not None else shape[2 + i] for i, s in enumerate(sizes)]
    kind = "max" if "max" in op.name else "avg"
    if len(op.results) > 1:
        raise Unsupported("adaptive max pooling with indices")
    if any(shape[2 + i] % s for i, s in enumerate(sizes)):
        raise Unsupported(f"adaptive pooling from {shape[2:]} to {sizes}: input sizes must be multiples of the output sizes")
    kernel = [shape[2 + i] // s for i, s in enumerate(sizes)]
    return [lw.emit(pd.PoolOp, x, _str(kind), _array(kernel), _array(kernel), _array([0] * spatial), _bool(False), _bool(True), result_type(op))]


# ---------------------------------------------------------------------------------------
# ipu dialect ops and scalars
# ---------------------------------------------------------------------------------------


@lowers("ipu.print_tensor")
def lower_print_tensor(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    with lw.location, ir.InsertionPoint(lw.block):
        build(pd.PrintTensorOp, x, op.attributes["title"])
    return [x]


@lowers("ipu.nop")
def lower_nop(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    return [lw.map("_1", [x], x.type)]  # a real op: the value is not forwarded away


@lowers("ipu.identity_loss")
def lower_identity_loss(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    reduction = ir.StringAttr(op.attributes["reduction"]).value
    if reduction == "none":
        return [x]
    rank = len(shape_of(x))
    count = math.prod(shape_of(x)) or 1
    scale = 1.0 / count if reduction == "mean" else 1.0
    return [_reduce(lw, x, "add", list(range(rank)), False, scale, result_type(op))]


@lowers("ipu.set_available_memory")
def lower_planning_hint(lw: Lowering, op: ir.Operation) -> list[Any]:
    """A hint for the planner: the value passes through."""
    return [lw.v(op.operands[0])]


@lowers("ipu.recomputation_checkpoint")
def lower_recomputation_checkpoint(lw: Lowering, op: ir.Operation) -> list[Any]:
    """The value passes through; the op computing it (through views: the ops computing
    what the view shows) gets ``pipeline.checkpoint``, so pipeline-schedule stashes it
    instead of recomputing it when recomputation is on."""
    value = lw.v(op.operands[0])
    pending = [value]
    while pending:
        current = pending.pop()
        owner = current.owner
        if not isinstance(owner, ir.Operation | ir.OpView):
            continue  # a function argument: an input or weight, never recomputed
        owner = owner.operation
        if owner.name in POPLAR_VIEWS:
            pending.extend(owner.operands)
            continue
        marked = set(ir.DenseI64ArrayAttr(owner.attributes[CHECKPOINT_ATTR])) if CHECKPOINT_ATTR in owner.attributes else set()
        marked.add(ir.OpResult(current).result_number)
        owner.attributes[CHECKPOINT_ATTR] = ir.DenseI64ArrayAttr.get(sorted(marked))
    return [value]


# ---------------------------------------------------------------------------------------
# Training: forward ops with batch statistics / randomness, and backward ops
# ---------------------------------------------------------------------------------------

_GRAD_KINDS = {
    "torch.aten.threshold_backward": "relu", "torch.aten.gelu_backward": "gelu", "torch.aten.silu_backward": "silu",
    "torch.aten.sigmoid_backward": "sigmoid", "torch.aten.tanh_backward": "tanh",
    "torch.aten.hardsigmoid_backward": "hard_sigmoid", "torch.aten.hardswish_backward": "hard_swish",
}


@lowers(*_GRAD_KINDS)
def lower_activation_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    name = _base_name(op.name)
    kind = _GRAD_KINDS[name]
    if kind == "relu":
        threshold = lw.const(op.operands[2], "threshold")
        if threshold != 0:
            raise Unsupported(f"threshold_backward with threshold {threshold} (only ReLU's 0)")
    if kind == "gelu":
        approximate = lw.const(op.operands[2], "approximate") if len(op.operands) > 2 else "none"
        kind = {"none": "gelu_erf", "tanh": "gelu_tanh"}[approximate]
    return [lw.emit(pd.NonLinearityGradOp, lw.v(op.operands[0]), lw.v(op.operands[1]), _str(kind), _i64(0), result_type(op))]


@lowers("torch.aten._softmax_backward_data", "torch.aten._log_softmax_backward_data")
def lower_softmax_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad, out = lw.v(op.operands[0]), lw.v(op.operands[1])
    dim = dim_arg(lw.const(op.operands[2], "dim"), len(shape_of(out)))
    kind = "log_softmax" if "log_softmax" in op.name else "softmax"
    return [lw.emit(pd.NonLinearityGradOp, grad, out, _str(kind), _i64(dim), result_type(op))]


@lowers("torch.aten._safe_softmax")
def lower_safe_softmax(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x = lw.cast(lw.v(op.operands[0]), out.element_type)
    dim = dim_arg(lw.const(op.operands[1], "dim"), len(shape_of(x)))
    return [lw.emit(pd.NonLinearityOp, x, _str("safe_softmax"), _i64(dim), out)]


_REDUCTION_NAMES = {0: "none", 1: "mean", 2: "sum"}


@lowers("torch.aten.nll_loss_forward")
def lower_nll_loss(lw: Lowering, op: ir.Operation) -> list[Any]:
    if not is_none(op.operands[2]):
        raise Unsupported("nll_loss with class weights")
    reduction = _REDUCTION_NAMES[lw.const(op.operands[3], "reduction")]
    ignore = lw.const(op.operands[4], "ignore_index")
    loss = lw.emit(pd.NllLossOp, lw.v(op.operands[0]), lw.v(op.operands[1]), _str(reduction), _i64(ignore), result_type(op, 0))
    return [loss, None]  # total_weight: popnn_nll_loss_grad recomputes it


@lowers("torch.aten.nll_loss_backward")
def lower_nll_loss_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    if not is_none(op.operands[3]):
        raise Unsupported("nll_loss with class weights")
    reduction = _REDUCTION_NAMES[lw.const(op.operands[4], "reduction")]
    ignore = lw.const(op.operands[5], "ignore_index")
    return [lw.emit(pd.NllLossGradOp, lw.v(op.operands[0]), lw.v(op.operands[1]), lw.v(op.operands[2]), _str(reduction),
                    _i64(ignore), result_type(op))]


@lowers("torch.aten.cross_entropy_loss")
def lower_cross_entropy(lw: Lowering, op: ir.Operation) -> list[Any]:
    """cross_entropy = nll_loss(log_softmax(x, class dim)) (no class weights or label smoothing)."""
    if not is_none(op.operands[2]):
        raise Unsupported("cross_entropy with class weights")
    if len(op.operands) > 5 and lw.const(op.operands[5], "label_smoothing"):
        raise Unsupported("cross_entropy with label smoothing")
    x = lw.v(op.operands[0])
    if len(shape_of(x)) > 2:
        raise Unsupported("cross_entropy over more than one batch dimension")
    reduction = _REDUCTION_NAMES[lw.const(op.operands[3], "reduction")]
    ignore = lw.const(op.operands[4], "ignore_index")
    target = lw.v(op.operands[1])
    if is_float(element_of(target)):
        raise Unsupported("cross_entropy with class probabilities as the target")
    log_probs = lw.emit(pd.NonLinearityOp, x, _str("log_softmax"), _i64(len(shape_of(x)) - 1), x.type)
    return [lw.emit(pd.NllLossOp, log_probs, target, _str(reduction), _i64(ignore), result_type(op))]


@lowers("torch.aten.nll_loss_nd", "torch.aten.nll_loss", "torch.aten.nll_loss2d")
def lower_nll_loss_nd(lw: Lowering, op: ir.Operation) -> list[Any]:
    if not is_none(op.operands[2]):
        raise Unsupported("nll_loss with class weights")
    x = lw.v(op.operands[0])
    if len(shape_of(x)) > 2:
        raise Unsupported("nll_loss over more than one batch dimension")
    reduction = _REDUCTION_NAMES[lw.const(op.operands[3], "reduction")]
    ignore = lw.const(op.operands[4], "ignore_index")
    return [lw.emit(pd.NllLossOp, x, lw.v(op.operands[1]), _str(reduction), _i64(ignore), result_type(op))]


@lowers("torch.aten.broadcast_tensors")
def lower_broadcast_tensors(lw: Lowering, op: ir.Operation) -> list[Any]:
    tensors = _list_operand(lw, op.operands[0])
    shape = pd.broadcast_shapes([shape_of(t) for t in tensors])
    if shape is None:
        raise Unsupported("tensors whose shapes do not broadcast")
    return [[lw.broadcast(t, shape) for t in tensors]]


@lowers("torch.aten.mse_loss")
def lower_mse_loss(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x, y = lw.v(op.operands[0]), lw.v(op.operands[1])
    reduction = _REDUCTION_NAMES[lw.const(op.operands[2], "reduction")]
    squared = lw.map("square(sub(_1, _2))", [x, lw.cast(y, element_of(x))], x.type)
    if reduction == "none":
        return [squared]
    count = math.prod(shape_of(x)) or 1
    return [_reduce(lw, squared, "add", list(range(len(shape_of(x)))), False, 1.0 / count if reduction == "mean" else 1.0, out)]


@lowers("torch.aten.mse_loss_backward")
def lower_mse_loss_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad, x, y = lw.v(op.operands[0]), lw.v(op.operands[1]), lw.v(op.operands[2])
    reduction = _REDUCTION_NAMES[lw.const(op.operands[3], "reduction")]
    factor = 2.0 / (math.prod(shape_of(x)) or 1) if reduction == "mean" else 2.0
    return [lw.map(f"mul(mul(sub(_1, _2), {_literal(factor)}), _3)", [x, lw.cast(y, element_of(x)), grad], result_type(op))]


def _norm_training(lw: Lowering, op: ir.Operation, kind: str, x: ir.Value, weight: ir.Value | None, bias: ir.Value | None,
                   param_shape: list[int], stats: list[ir.Value], eps: float, momentum: float, groups: int, num_dims: int,
                   stat_shape: list[int]) -> list[Any]:
    element = element_of(x)
    w = _ones_if_none(lw, weight, param_shape, element, 1.0)
    b = _ones_if_none(lw, bias, param_shape, element, 0.0)
    stat_type = _tensor(stat_shape, element)
    new_stats = [s.type for s in stats]
    op_ = lw.emit(pd.NormTrainingOp, x, w, b, stats, _str(kind), _f64(eps), _f64(momentum), _i64(groups), _i64(num_dims),
                  x.type, stat_type, stat_type, new_stats)
    return list(op_.operation.results)


@lowers("torch.aten._native_batch_norm_legit_functional", "torch.aten._native_batch_norm_legit.no_stats")
def lower_batch_norm_training(lw: Lowering, op: ir.Operation) -> list[Any]:
    name = aten_overload(op)
    x = lw.v(op.operands[0])
    channels = [shape_of(x)[1]]
    if name == "torch.aten._native_batch_norm_legit_functional":
        stats = [lw.cast(lw.v(op.operands[3]), element_of(x)), lw.cast(lw.v(op.operands[4]), element_of(x))]
        training, momentum, eps = (lw.const(op.operands[i], what) for i, what in ((5, "training"), (6, "momentum"), (7, "eps")))
    else:
        stats = []
        training, momentum, eps = (lw.const(op.operands[i], what) for i, what in ((3, "training"), (4, "momentum"), (5, "eps")))
    if not training:
        raise Unsupported("batch norm in eval mode inside a training program; it uses running statistics")
    return _norm_training(lw, op, "batch", x, op.operands[1], op.operands[2], channels, stats, eps, momentum, 1, 1, channels)


@lowers("torch.aten.native_layer_norm")
def lower_native_layer_norm(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    normalized = lw.const(op.operands[1], "normalized_shape")
    eps = lw.const(op.operands[4], "eps")
    shape = shape_of(x)
    stat_shape = shape[: len(shape) - len(normalized)] + [1] * len(normalized)
    return _norm_training(lw, op, "layer", x, op.operands[2], op.operands[3], normalized, [], eps, 0.0, 1, len(normalized), stat_shape)


@lowers("torch.aten.native_group_norm")
def lower_native_group_norm(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    groups = lw.const(op.operands[6], "group")
    eps = lw.const(op.operands[7], "eps")
    shape = shape_of(x)
    return _norm_training(lw, op, "group", x, op.operands[1], op.operands[2], [shape[1]], [], eps, 0.0, groups, 1, [shape[0], groups])


def _norm_grad(lw: Lowering, op: ir.Operation, kind: str, grad: ir.Value, x: ir.Value, mean: ir.Value, invstd: ir.Value,
               weight: ir.Value | None, param_shape: list[int], eps: float, groups: int, num_dims: int) -> list[Any]:
    element = element_of(x)
    w = _ones_if_none(lw, weight, param_shape, element, 1.0)
    param_type = _tensor(param_shape, element)
    op_ = lw.emit(pd.NormGradOp, grad, x, mean, invstd, w, _str(kind), _f64(eps), _i64(groups), _i64(num_dims),
                  x.type, param_type, param_type)
    return list(op_.operation.results)


@lowers("torch.aten.native_batch_norm_backward")
def lower_batch_norm_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad, x = lw.v(op.operands[0]), lw.v(op.operands[1])
    train = lw.const(op.operands[7], "train")
    if not train:
        raise Unsupported("batch norm backward with running statistics (eval mode)")
    eps = lw.const(op.operands[8], "eps")
    mean, invstd = lw.v(op.operands[5]), lw.v(op.operands[6])
    return _norm_grad(lw, op, "batch", grad, x, mean, invstd, op.operands[2], [shape_of(x)[1]], eps, 1, 1)


@lowers("torch.aten.native_layer_norm_backward")
def lower_layer_norm_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad, x = lw.v(op.operands[0]), lw.v(op.operands[1])
    normalized = lw.const(op.operands[2], "normalized_shape")
    mean, rstd = lw.v(op.operands[3]), lw.v(op.operands[4])
    return _norm_grad(lw, op, "layer", grad, x, mean, rstd, op.operands[5], normalized, 1e-5, 1, len(normalized))


@lowers("torch.aten.native_group_norm_backward")
def lower_group_norm_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad, x = lw.v(op.operands[0]), lw.v(op.operands[1])
    mean, rstd = lw.v(op.operands[2]), lw.v(op.operands[3])
    groups = lw.const(op.operands[8], "group")
    return _norm_grad(lw, op, "group", grad, x, mean, rstd, op.operands[4], [shape_of(x)[1]], 1e-5, groups, 1)


@lowers("torch.aten.convolution_backward")
def lower_conv_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad, x, w = lw.v(op.operands[0]), lw.v(op.operands[1]), lw.v(op.operands[2])
    spatial = len(shape_of(x)) - 2
    stride, padding, dilation = (_expand(lw.const(op.operands[i], what), spatial) for i, what in ((4, "stride"), (5, "padding"), (6, "dilation")))
    if lw.const(op.operands[7], "transposed"):
        raise Unsupported("transposed convolution")
    groups = lw.const(op.operands[9], "groups")
    mask = lw.const(op.operands[10], "output_mask")
    types = [[result_type(op, i)] if keep else [] for i, keep in enumerate(mask)]
    conv = lw.emit(pd.ConvGradOp, grad, x, w, _array(stride), _array(padding), _array(dilation), _i64(groups), *types)
    results = iter(conv.operation.results if hasattr(conv, "operation") else [conv])
    return [next(results) if keep else None for keep in mask]


@lowers("torch.aten.max_pool2d_with_indices", "torch.aten.max_pool3d_with_indices")
def lower_max_pool_with_indices(lw: Lowering, op: ir.Operation) -> list[Any]:
    x = lw.v(op.operands[0])
    spatial = len(shape_of(x)) - 2
    kernel = _expand(lw.const(op.operands[1], "kernel_size"), spatial)
    stride_arg = lw.const(op.operands[2], "stride")
    stride = _expand(stride_arg, spatial) if stride_arg else kernel
    padding = _expand(lw.const(op.operands[3], "padding"), spatial)
    if any(d != 1 for d in _expand(lw.const(op.operands[4], "dilation"), spatial)):
        raise Unsupported("max pooling with dilation")
    ceil = lw.const(op.operands[5], "ceil_mode")
    out = lw.emit(pd.PoolOp, x, _str("max"), _array(kernel), _array(stride), _array(padding), _bool(ceil), _bool(True), result_type(op, 0))
    return [out, None]  # the indices: popnn_pool_grad recomputes them from the input


@lowers("torch.aten.max_pool2d_with_indices_backward", "torch.aten.max_pool3d_with_indices_backward")
def lower_max_pool_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad, x = lw.v(op.operands[0]), lw.v(op.operands[1])
    spatial = len(shape_of(x)) - 2
    kernel = _expand(lw.const(op.operands[2], "kernel_size"), spatial)
    stride_arg = lw.const(op.operands[3], "stride")
    stride = _expand(stride_arg, spatial) if stride_arg else kernel
    padding = _expand(lw.const(op.operands[4], "padding"), spatial)
    ceil = lw.const(op.operands[6], "ceil_mode")
    return [lw.emit(pd.PoolGradOp, x, grad, _str("max"), _array(kernel), _array(stride), _array(padding), _bool(ceil), _bool(True), result_type(op))]


@lowers("torch.aten.avg_pool2d_backward", "torch.aten.avg_pool3d_backward")
def lower_avg_pool_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad, x = lw.v(op.operands[0]), lw.v(op.operands[1])
    spatial = len(shape_of(x)) - 2
    kernel = _expand(lw.const(op.operands[2], "kernel_size"), spatial)
    stride_arg = lw.const(op.operands[3], "stride")
    stride = _expand(stride_arg, spatial) if stride_arg else kernel
    padding = _expand(lw.const(op.operands[4], "padding"), spatial)
    ceil, include = lw.const(op.operands[5], "ceil_mode"), lw.const(op.operands[6], "count_include_pad")
    if not is_none(op.operands[7]):
        raise Unsupported("avg pooling with divisor_override")
    return [lw.emit(pd.PoolGradOp, x, grad, _str("avg"), _array(kernel), _array(stride), _array(padding), _bool(ceil), _bool(include), result_type(op))]


@lowers("torch.aten.native_dropout_backward")
def lower_dropout_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad, mask = lw.v(op.operands[0]), lw.v(op.operands[1])
    scale = lw.const(op.operands[2], "scale")
    return [lw.map(f"select(_2, mul(_1, {_literal(float(scale))}), 0.0)", [grad, lw.cast(mask, ir.IntegerType.get_signless(1))], result_type(op))]


@lowers("torch.aten.embedding_dense_backward")
def lower_embedding_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    if lw.const(op.operands[4], "scale_grad_by_freq"):
        raise Unsupported("embedding with scale_grad_by_freq")
    padding = lw.const(op.operands[3], "padding_idx")
    return [lw.emit(pd.MultiUpdateAddOp, lw.v(op.operands[0]), lw.v(op.operands[1]), _i64(max(padding, -1)), result_type(op))]


@lowers("torch.aten.select_backward")
def lower_select_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad = lw.v(op.operands[0])
    sizes = lw.const(op.operands[1], "input_sizes")
    dim = dim_arg(lw.const(op.operands[2], "dim"), len(sizes))
    index = lw.const(op.operands[3], "index")
    index = index + sizes[dim] if index < 0 else index
    shape = list(sizes)
    shape[dim] = 1
    low, high = [0] * len(sizes), [0] * len(sizes)
    low[dim], high[dim] = index, sizes[dim] - index - 1
    return [lw.emit(pd.PadOp, lw.reshape(grad, shape), _array(low), _array(high), _f64(0.0), result_type(op))]


@lowers("torch.aten.slice_backward")
def lower_slice_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    grad = lw.v(op.operands[0])
    sizes = lw.const(op.operands[1], "input_sizes")
    dim = dim_arg(lw.const(op.operands[2], "dim"), len(sizes))
    start, end, step = (lw.const(op.operands[i], what) for i, what in ((3, "start"), (4, "end"), (5, "step")))
    begin, _, stride = slice(start, end, step).indices(sizes[dim])
    if stride != 1:
        raise Unsupported("the gradient of a strided slice")
    low, high = [0] * len(sizes), [0] * len(sizes)
    low[dim], high[dim] = begin, sizes[dim] - begin - shape_of(grad)[dim]
    return [lw.emit(pd.PadOp, grad, _array(low), _array(high), _f64(0.0), result_type(op))]


# Hyper-parameters each update lowering reads (the dialect only requires lr).
_NEEDED_HYPER = {
    "ipu.sgd_update": ("lr", "momentum", "dampening", "weight_decay", "loss_scaling"),
    "ipu.adam_update": ("lr", "beta1", "beta2", "eps", "weight_decay", "loss_scaling"),
    "ipu.rmsprop_update": ("lr", "alpha", "eps", "momentum", "weight_decay", "loss_scaling"),
    "ipu.lamb_update": ("lr", "beta1", "beta2", "eps", "weight_decay", "max_weight_norm", "loss_scaling"),
}


def _update_operands(op: ir.Operation) -> tuple[ir.Value, ir.Value, list[ir.Value], list[ir.Value], dict[str, ir.Value], list[int]]:
    """(weight, grad, state, step, hyper by name, segment sizes) of an ipu update op, unconverted."""
    sizes = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    values = list(op.operands)
    state = values[2 : 2 + sizes[2]]
    step = values[2 + sizes[2] : 2 + sizes[2] + sizes[3]]
    hyper_values = values[2 + sizes[2] + sizes[3] :]
    names = [ir.StringAttr(a).value for a in ir.ArrayAttr(op.attributes["hyper_names"])]
    hyper = dict(zip(names, hyper_values, strict=True))
    needed = list(_NEEDED_HYPER.get(op.name, ()))
    if op.name == "ipu.sgd_update" and ir.StringAttr(op.attributes["variant"]).value == "combined":
        needed.append("velocity_scaling")
    missing = [name for name in needed if name not in hyper]
    if missing:
        raise Unsupported(f"the update needs the hyper-parameters {', '.join(missing)} as operands "
                          "(ipu-insert-training passes all of them)")
    return values[0], values[1], state, step, hyper, sizes


@lowers("ipu.sgd_update")
def lower_sgd_update(lw: Lowering, op: ir.Operation) -> list[Any]:
    """SGD as torch.optim.SGD computes it (PopTorch's separate variant):
    g = grad / loss_scaling + weight_decay * w; v = momentum * v + (1 - dampening) * g
    (velocity starts at zero); d = g + momentum * v (nesterov) or v; w = w - lr * d."""
    weight, grad, state, step, hyper, _ = _update_operands(op)
    variant = ir.StringAttr(op.attributes["variant"]).value
    w, g = lw.v(weight), lw.v(grad)
    wtype = w.type
    h = {name: lw.v(value) for name, value in hyper.items()}
    if variant == "combined" and state:
        return _combined_sgd(lw, op, w, g, lw.v(state[0]), lw.v(step[0]), h)
    if "loss_scaling" in h:
        g = lw.map("div(_1, _2)", [g, h["loss_scaling"]], wtype)
    if "weight_decay" in h:
        g = lw.map("add(_1, mul(_2, _3))", [g, w, h["weight_decay"]], wtype)
    results = []
    if state:
        count = lw.v(step[0])
        v = _velocity(lw, lw.v(state[0]), g, count, h)
        nesterov = ir.BoolAttr(op.attributes["nesterov"]).value
        direction = lw.map("add(_1, mul(_2, _3))", [g, v, h["momentum"]], wtype) if nesterov else v
        results += [v, _scalar(lw, "add(_1, 1.0)", [count])]
    else:
        direction = g
    new_w = lw.map("sub(_1, mul(_2, _3))", [w, direction, h["lr"]], wtype)
    return [new_w, *results]


def _velocity(lw: Lowering, v: ir.Value, g: ir.Value, count: ir.Value, h: dict[str, ir.Value]) -> ir.Value:
    """v * momentum + (1 - dampening) * g, except on the first step (count 0), where the
    velocity becomes the gradient itself (torch.optim.SGD): there momentum and dampening
    count as 0 (v starts at zero), so one expression serves every step and updates v in
    place."""
    first = lw.map("eq(_1, 0.0)", [count], _tensor([], ir.IntegerType.get_signless(1)))
    momentum = _scalar(lw, "select(_1, 0.0, _2)", [first, h["momentum"]])
    keep = _scalar(lw, "select(_1, 1.0, sub(1.0, _2))", [first, h["dampening"]])
    damped = lw.map("mul(_1, _2)", [g, keep], g.type)
    return lw.map("add(mul(_1, _2), _3)", [v, momentum, damped], g.type)


def _combined_sgd(lw: Lowering, op: ir.Operation, w: ir.Value, g: ir.Value, v: ir.Value, count: ir.Value, h: dict[str, ir.Value]) -> list[Any]:
    """PopTorch's combined variant: one velocity tensor kept scaled by velocity_scaling
    (vs); mathematically the separate variant's update.
    g' = vs / ls * g + vs * wd * w; v = momentum * v + (1 - dampening) * g';
    w = w - lr / vs * (nesterov ? g' + momentum * v : v)."""
    wtype = w.type
    scale = _scalar(lw, "div(_1, _2)", [h["velocity_scaling"], h["loss_scaling"]])
    g = lw.map("mul(_1, _2)", [g, scale], wtype)
    decay = _scalar(lw, "mul(_1, _2)", [h["velocity_scaling"], h["weight_decay"]])
    g = lw.map("add(_1, mul(_2, _3))", [g, w, decay], wtype)
    v = _velocity(lw, v, g, count, h)
    nesterov = ir.BoolAttr(op.attributes["nesterov"]).value
    direction = lw.map("add(_1, mul(_2, _3))", [g, v, h["momentum"]], wtype) if nesterov else v
    step = _scalar(lw, "div(_1, _2)", [h["lr"], h["velocity_scaling"]])
    return [lw.map("sub(_1, mul(_2, _3))", [w, direction, step], wtype), v, _scalar(lw, "add(_1, 1.0)", [count])]


@lowers("ipu.accumulate_grad")
def lower_accumulate_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    """acc + g (Sum, or Mean with the Post strategy: the update divides by G), or the
    running mean acc + (g - acc) / count (Mean with the Running strategy)."""
    accumulator, grad, count = (lw.v(v) for v in op.operands)
    grad = lw.cast(grad, element_of(accumulator))
    if ir.StringAttr(op.attributes["reduction"]).value == "mean" and ir.StringAttr(op.attributes["strategy"]).value == "running":
        return [lw.map("add(_1, div(sub(_2, _1), _3))", [accumulator, grad, count], accumulator.type)]
    return [lw.map("add(_1, _2)", [accumulator, grad], accumulator.type)]


def _scalar(lw: Lowering, expr: str, operands: list[ir.Value]) -> ir.Value:
    """A scalar (rank-0 f32) computed from scalar hyper-parameters, e.g. a bias correction."""
    return lw.map(expr, operands, _tensor([], ir.F32Type.get()))


def _scaled_grad(lw: Lowering, g: ir.Value, h: dict[str, ir.Value], w: ir.Value | None) -> ir.Value:
    """grad / loss_scaling (+ weight_decay * w when ``w`` is given: L2 decay into the gradient)."""
    if "loss_scaling" in h:
        g = lw.map("div(_1, _2)", [g, h["loss_scaling"]], g.type)
    if w is not None and "weight_decay" in h:
        g = lw.map("add(_1, mul(_2, _3))", [g, w, h["weight_decay"]], g.type)
    return g


def _moments(lw: Lowering, g: ir.Value, m: ir.Value, v: ir.Value, beta1: ir.Value, beta2: ir.Value, lerp: bool) -> tuple[ir.Value, ir.Value]:
    """First and second moments: m = beta1 m + (1 - beta1) g (as a lerp for Adam), v = beta2 v + (1 - beta2) g^2."""
    if lerp:
        m = lw.map("add(_1, mul(sub(1.0, _3), sub(_2, _1)))", [m, g, beta1], m.type)
    else:
        m = lw.map("add(mul(_1, _3), mul(_2, sub(1.0, _3)))", [m, g, beta1], m.type)
    v = lw.map("mul(_1, _2)", [v, beta2], v.type)
    v = lw.map("add(_1, mul(mul(_2, _2), sub(1.0, _3)))", [v, g, beta2], v.type)
    return m, v


@lowers("ipu.adam_update")
def lower_adam_update(lw: Lowering, op: ir.Operation) -> list[Any]:
    """Adam / AdamW as torch.optim computes them (single-tensor path):
    AdamW first decays w by (1 - lr wd), Adam adds wd w to the gradient; then the
    moments, the bias corrections 1 - beta^t and w -= lr / bc1 * m / (sqrt(v) / sqrt(bc2) + eps)."""
    weight, grad, state, step, hyper, _ = _update_operands(op)
    variant = ir.StringAttr(op.attributes["variant"]).value
    correct = ir.BoolAttr(op.attributes["bias_correction"]).value
    w, g = lw.v(weight), lw.v(grad)
    h = {name: lw.v(value) for name, value in hyper.items()}
    m, v = lw.v(state[0]), lw.v(state[1])
    t = _scalar(lw, "add(_1, 1.0)", [lw.v(step[0])])
    if variant == "adamw":
        w = lw.map("mul(_1, sub(1.0, mul(_2, _3)))", [w, h["lr"], h["weight_decay"]], w.type)
        g = _scaled_grad(lw, g, h, None)
    else:
        g = _scaled_grad(lw, g, h, w)
    m, v = _moments(lw, g, m, v, h["beta1"], h["beta2"], lerp=True)
    if correct:
        step_size = _scalar(lw, "div(_1, sub(1.0, pow(_2, _3)))", [h["lr"], h["beta1"], t])
        bc2_sqrt = _scalar(lw, "sqrt(sub(1.0, pow(_1, _2)))", [h["beta2"], t])
        denom = lw.map("add(div(sqrt(_1), _2), _3)", [v, bc2_sqrt, h["eps"]], v.type)
    else:
        step_size = h["lr"]
        denom = lw.map("add(sqrt(_1), _2)", [v, h["eps"]], v.type)
    ratio = lw.map("div(_1, _2)", [m, denom], m.type)
    new_w = lw.map("sub(_1, mul(_2, _3))", [w, ratio, step_size], w.type)
    return [new_w, m, v, t]


@lowers("ipu.rmsprop_update")
def lower_rmsprop_update(lw: Lowering, op: ir.Operation) -> list[Any]:
    """RMSprop as torch.optim computes it, or TensorFlow's form (use_tf_variant: the
    squared average starts at 1, eps inside the square root, lr folded into momentum)."""
    weight, grad, state, _, hyper, _ = _update_operands(op)
    centered = ir.BoolAttr(op.attributes["centered"]).value
    with_momentum = ir.BoolAttr(op.attributes["with_momentum"]).value
    tf = ir.BoolAttr(op.attributes["use_tf_variant"]).value
    w = lw.v(weight)
    h = {name: lw.v(value) for name, value in hyper.items()}
    g = _scaled_grad(lw, lw.v(grad), h, w)
    values = [lw.v(s) for s in state]
    square = lw.map("mul(_1, _2)", [values[0], h["alpha"]], w.type)
    square = lw.map("add(_1, mul(mul(_2, _2), sub(1.0, _3)))", [square, g, h["alpha"]], w.type)
    new_state = [square]
    buf = values[1] if with_momentum else None
    if centered:
        grad_avg = values[-1]
        grad_avg = lw.map("add(_1, mul(sub(1.0, _3), sub(_2, _1)))", [grad_avg, g, h["alpha"]], w.type)
        variance = lw.map("sub(_1, mul(_2, _2))", [square, grad_avg], w.type)
    else:
        grad_avg, variance = None, square
    if tf:
        avg = lw.map("sqrt(add(_1, _2))", [variance, h["eps"]], w.type)
    else:
        avg = lw.map("add(sqrt(_1), _2)", [variance, h["eps"]], w.type)
    quotient = lw.map("div(_1, _2)", [g, avg], w.type)
    if with_momentum:
        if tf:
            scaled = lw.map("mul(_1, _2)", [quotient, h["lr"]], w.type)
            buf = lw.map("add(mul(_1, _2), _3)", [buf, h["momentum"], scaled], w.type)
            new_w = lw.map("sub(_1, _2)", [w, buf], w.type)
        else:
            buf = lw.map("add(mul(_1, _2), _3)", [buf, h["momentum"], quotient], w.type)
            new_w = lw.map("sub(_1, mul(_2, _3))", [w, buf, h["lr"]], w.type)
        new_state.append(buf)
    else:
        new_w = lw.map("sub(_1, mul(_2, _3))", [w, quotient, h["lr"]], w.type)
    if centered:
        new_state.append(grad_avg)
    return [new_w, *new_state]


@lowers("ipu.lamb_update")
def lower_lamb_update(lw: Lowering, op: ir.Operation) -> list[Any]:
    """LAMB (You et al. 2019): Adam-style moments, u = m^ / (sqrt(v^) + eps) + wd w, then
    w -= lr * phi(||w||) / ||u|| * u with phi(z) = min(z, max_weight_norm) (ratio 1 when
    a norm is 0)."""
    weight, grad, state, step, hyper, _ = _update_operands(op)
    correct = ir.BoolAttr(op.attributes["bias_correction"]).value
    w = lw.v(weight)
    h = {name: lw.v(value) for name, value in hyper.items()}
    g = _scaled_grad(lw, lw.v(grad), h, None)
    t = _scalar(lw, "add(_1, 1.0)", [lw.v(step[0])])
    m, v = _moments(lw, g, lw.v(state[0]), lw.v(state[1]), h["beta1"], h["beta2"], lerp=False)
    if correct:
        m_hat = lw.map("div(_1, sub(1.0, pow(_2, _3)))", [m, h["beta1"], t], m.type)
        v_hat = lw.map("div(_1, sub(1.0, pow(_2, _3)))", [v, h["beta2"], t], v.type)
    else:
        m_hat, v_hat = m, v
    update = lw.map("div(_1, add(sqrt(_2), _3))", [m_hat, v_hat, h["eps"]], w.type)
    update = lw.map("add(_1, mul(_2, _3))", [update, w, h["weight_decay"]], w.type)
    rank = len(shape_of(w))
    f32 = _tensor([], element_of(w))
    weight_norm = _scalar(lw, "sqrt(_1)", [_reduce(lw, w, "square_add", list(range(rank)), False, 1.0, f32)])
    weight_norm = _scalar(lw, "min(_1, _2)", [weight_norm, h["max_weight_norm"]])
    update_norm = _scalar(lw, "sqrt(_1)", [_reduce(lw, update, "square_add", list(range(rank)), False, 1.0, f32)])
    ratio = _scalar(lw, "select(or(eq(_1, 0.0), eq(_2, 0.0)), 1.0, div(_1, _2))", [weight_norm, update_norm])
    scale = _scalar(lw, "mul(_1, _2)", [h["lr"], ratio])
    new_w = lw.map("sub(_1, mul(_2, _3))", [w, update, scale], w.type)
    return [new_w, m, v, t]


_SCALAR_OPS = ("torch.constant.int", "torch.constant.float", "torch.constant.bool", "torch.constant.none",
               "torch.constant.str", "torch.constant.device", "torch.aten.size.int")


# Ops with no result that only assert what capture already guarantees (static shapes and dtypes).
_DROPPED_OPS = ("torch.aten._assert_tensor_metadata", "torch.aten._assert_scalar", "torch.aten.sym_constrain_range_for_size",
                "torch.aten._assert_async")
# Discardable attributes of a torch op that its poplar ops inherit (placement).
_CARRIED_ATTRIBUTES = ("ipu.block", "pipeline.stage", "pipeline.ipu")


def _last_op(block: ir.Block) -> ir.Operation | None:
    ops = block.operations
    return ops[len(ops) - 1].operation if len(ops) else None


def _carry_placement(source: ir.Operation, block: ir.Block, before: ir.Operation | None) -> None:
    """Copy ``ipu.block`` (and other carried attributes) onto the ops just emitted for ``source``."""
    carried = [(name, source.attributes[name]) for name in _CARRIED_ATTRIBUTES if name in source.attributes]
    if not carried:
        return
    ops = [op.operation for op in block.operations]
    start = 0 if before is None else next(i for i, op in enumerate(ops) if op == before) + 1
    for op in ops[start:]:
        for name, attr in carried:
            op.attributes[name] = attr


def _lower_function(func: ir.Operation, diag: Diagnostics, training: bool = False) -> None:
    """Rebuild ``func`` over builtin tensors with poplar ops in its body."""
    body = func.regions[0].blocks[0]
    arg_types = []
    for arg in body.arguments:
        try:
            arg_types.append(torch_ir.to_builtin_tensor(arg.type))
        except ValueError as error:
            diag.error(func, f"argument #{arg.arg_number}: {error}")
            return
    old_ops = list(body.operations)
    terminator = old_ops[-1]
    try:
        result_types = [torch_ir.to_builtin_tensor(v.type) for v in terminator.operands]
    except ValueError as error:
        diag.error(terminator, f"function result: {error}")
        return

    # Build the lowered function beside the old one, then replace it.
    with func.location, ir.InsertionPoint(func):
        new_func = func_d.FuncOp(ir.StringAttr(func.attributes["sym_name"]).value, (arg_types, result_types))
    for index in range(len(func.attributes)):
        named = func.attributes[index]
        if named.name not in ("function_type", "sym_name"):
            new_func.attributes[named.name] = named.attr
    new_block = new_func.add_entry_block()
    lw = Lowering(new_block, training)
    for old, new in zip(body.arguments, new_block.arguments, strict=True):
        lw.values[old] = new

    unsupported: dict[str, list[ir.Operation]] = {}
    poisoned: set[ir.Value] = set()  # results of ops that failed: their users are not reported again
    for op in old_ops[:-1]:
        op = op.operation
        name = op.name
        if name in _SCALAR_OPS or name in _DROPPED_OPS or torch_ir.aten_name(op) in _DROPPED_OPS:
            continue
        lookup = torch_ir.aten_name(op)
        pattern = PATTERNS.get(lookup) or PATTERNS.get(_base_name(lookup))
        if pattern is None:  # reported even when fed by another offender: list them all
            unsupported.setdefault(lookup, []).append(op)
            poisoned.update(op.results)
            continue
        if any(operand in poisoned for operand in op.operands):
            poisoned.update(op.results)  # it has a lowering; its input is the problem
            continue
        lw.location = op.location
        before = _last_op(new_block)
        try:
            produced = pattern(lw, op)
        except Unsupported as reason:
            diag.error(op, f"'{lookup}' cannot be lowered to the poplar dialect: {reason}")
            poisoned.update(op.results)
            continue
        _carry_placement(op, new_block, before)
        for old_result, value in zip(op.results, produced, strict=False):
            if value is not None:
                lw.values[old_result] = value
    for name, ops in sorted(unsupported.items()):
        for op in ops:
            diag.error(op, f"'{name}' has no lowering to the poplar dialect (unsupported op)")
    if diag.failed:
        new_func.operation.erase()
        return
    try:
        returned = [lw.v(v) for v in terminator.operands]
    except Unsupported as reason:
        diag.error(terminator, f"cannot return: {reason}")
        new_func.operation.erase()
        return
    with terminator.location, ir.InsertionPoint(new_block):
        func_d.ReturnOp(returned)
    func.erase()


@dataclasses.dataclass(frozen=True)
class ConvertTorchToPoplar(ModulePass):
    """Lower Torch-dialect compute ops to poplar dialect ops (popops / poplin / popnn).

    Preconditions: value-semantic Torch IR with static shapes (as imported by the
    frontend). Every op without a lowering is reported with its location, and the pass
    fails; nothing falls back silently.

    Arguments:
      training: lower for a training program (dropout draws masks; default false:
        dropout is the identity, as in inference).
    """

    name: ClassVar[str] = "convert-torch-to-poplar"
    training: bool = False

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        for op in list(module.regions[0].blocks[0].operations):
            if op.operation.name == "func.func":
                _lower_function(op.operation, diag, self.training)


__all__ = ["ConvertTorchToPoplar", "PATTERNS", "ipu_d"]

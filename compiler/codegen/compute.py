"""The C++ of each poplar compute op: one PopLibs call (or Tensor view) per op.

Each ``emit_<op>(cx, op)`` returns the lines that compute the op's results into the
sequence ``cx.prog`` on the op's IPU's virtual graph ``cx.graph(op)``, after binding the
result names with ``cx.define``. ``EMITTERS`` maps op names to them; an op missing there
is a CodegenError naming it (``emitter.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ipu_mlir.dialects.poplar.planning import AVAILABLE_MEMORY_ATTR, available_memory_of, partials_type_of

from .errors import CodegenError
from .map_expr import map_expression

EMITTERS: dict[str, Callable[[Any, Any], list[str]]] = {}


def emits(*names: str) -> Callable:
    def register(fn: Callable) -> Callable:
        for name in names:
            if name in EMITTERS:
                raise ValueError(f"two C++ emissions for '{name}'")
            EMITTERS[name] = fn
        return fn

    return register


def _dims(values: list[int]) -> str:
    return "{" + ", ".join(str(v) for v in values) + "}"


def planning_options(cx: Any, op: Any) -> str:
    """The op's planning attributes as the option flags of its PopLibs matMul / convolution
    call, written to follow the call's debug argument (``, poplar::OptionFlags{...}``), or ""
    when it has none: ``poplar.available_memory`` as "availableMemoryProportion" and
    ``poplar.partials_type`` as "partialsType" ("float" / "half"; PopLibs applies it)."""
    operation = op.operation
    flags = []
    if AVAILABLE_MEMORY_ATTR in operation.attributes:
        flags.append(("availableMemoryProportion", repr(available_memory_of(operation))))
    try:
        partials = partials_type_of(operation)
    except ValueError as error:
        raise CodegenError(f"{cx.where(op)}: {error}") from None
    if partials is not None:
        flags.append(("partialsType", partials.value))
    if not flags:
        return ""
    return ", poplar::OptionFlags{" + ", ".join(f'{{"{key}", "{value}"}}' for key, value in flags) + "}"


# ---- views: Tensor methods, no program ---------------------------------------------

@emits("poplar.reshape")
def emit_reshape(cx: Any, op: Any) -> list[str]:
    return [f"poplar::Tensor {cx.define(op.results[0])} = {cx.name(op.operands[0])}.reshape({_dims(cx.shape(op.results[0]))});"]


@emits("poplar.dim_shuffle")
def emit_dim_shuffle(cx: Any, op: Any) -> list[str]:
    perm = cx.attr(op, "permutation")
    return [f"poplar::Tensor {cx.define(op.results[0])} = {cx.name(op.operands[0])}.dimShuffle({_dims(perm)});"]


@emits("poplar.slice")
def emit_slice(cx: Any, op: Any) -> list[str]:
    begin, end, stride = cx.attr(op, "begin"), cx.attr(op, "end"), cx.attr(op, "stride")
    if any(b < 0 or e < b for b, e in zip(begin, end, strict=True)) or any(s < 1 for s in stride):
        raise CodegenError(f"{cx.where(op)} with negative or reversed bounds has no emission")
    text = f"{cx.name(op.operands[0])}.slice({_dims(begin)}, {_dims(end)})"
    for d, s in enumerate(stride):
        if s != 1:
            text += f".subSample({s}, {d})"
    return [f"poplar::Tensor {cx.define(op.results[0])} = {text};"]


@emits("poplar.reverse")
def emit_reverse(cx: Any, op: Any) -> list[str]:
    text = cx.name(op.operands[0])
    for d in cx.attr(op, "dims"):
        text += f".reverse({d})"
    return [f"poplar::Tensor {cx.define(op.results[0])} = {text};"]


@emits("poplar.broadcast")
def emit_broadcast(cx: Any, op: Any) -> list[str]:
    src, dst = cx.shape(op.operands[0]), cx.shape(op.results[0])
    padded = [1] * (len(dst) - len(src)) + src
    text = cx.name(op.operands[0])
    if padded != src:
        text += f".reshape({_dims(padded)})"
    for d, (a, b) in enumerate(zip(padded, dst, strict=True)):
        if a != b:
            text += f".broadcast({b}, {d})"
    return [f"poplar::Tensor {cx.define(op.results[0])} = {text};"]


@emits("poplar.concat")
def emit_concat(cx: Any, op: Any) -> list[str]:
    return [f"poplar::Tensor {cx.define(op.results[0])} = poplar::concat({cx.name(op.operands[0])}, {cx.name(op.operands[1])}, "
            f"{cx.attr(op, 'dim')});"]


# ---- popops ------------------------------------------------------------------------

_BINARY = {"poplar.popops_add": "add", "poplar.popops_sub": "sub", "poplar.popops_mul": "mul", "poplar.popops_div": "div"}


@emits(*_BINARY)
def emit_binary(cx: Any, op: Any) -> list[str]:
    a, b = (cx.name(v) for v in op.operands)
    fn = _BINARY[op.operation.name]
    return [f"poplar::Tensor {cx.define(op.results[0])} = popops::{fn}({cx.graph(op)}, {a}, {b}, {cx.prog}, {cx.debug(op)});"]


@emits("poplar.popops_cast")
def emit_cast(cx: Any, op: Any) -> list[str]:
    out = cx.define(op.results[0])
    return [f"poplar::Tensor {out} = popops::cast({cx.graph(op)}, {cx.name(op.operands[0])}, poplar::{cx.ptype(op.results[0])}, "
            f"{cx.prog}, {cx.debug(op)});"]


_REDUCE = {"add": "ADD", "square_add": "SQUARE_ADD", "mul": "MUL", "min": "MIN", "max": "MAX",
           "logical_and": "LOGICAL_AND", "logical_or": "LOGICAL_OR"}


@emits("poplar.popops_reduce")
def emit_reduce(cx: Any, op: Any) -> list[str]:
    kind, dims, keep, scale = cx.attr(op, "op"), cx.attr(op, "dims"), cx.attr(op, "keep_dims"), cx.attr(op, "scale")
    x = op.operands[0]
    shape = cx.shape(x)
    out, g = cx.define(op.results[0]), cx.graph(op)
    text = (f"popops::reduce({g}, {cx.name(x)}, poplar::{cx.ptype(op.results[0])}, {_dims(sorted(dims))}, "
            f"popops::ReduceParams(popops::Operation::{_REDUCE[kind]}), {cx.prog}, {cx.debug(op)})")
    if keep:
        text += f".reshape({_dims(cx.shape(op.results[0]))})"
    lines = [f"poplar::Tensor {out} = {text};"]
    count = math.prod(shape[d] for d in dims)
    if scale != 1.0:
        # a mean (scale 1/N) divides by N, as the IPU Model's torch.mean; any other scale multiplies
        factor = ("DIVIDE", f"{count}.0f") if count and abs(scale * count - 1.0) < 1e-12 else ("MULTIPLY", f"{scale!r}f")
        lines.append(f"popops::mapInPlace({g}, pe::BinaryOp(pe::BinaryOpType::{factor[0]}, pe::_1, pe::Const({factor[1]})), "
                     f"{{{out}}}, {cx.prog}, {cx.debug(op, 'scale')});")
    return lines


@emits("poplar.popops_map")
def emit_map(cx: Any, op: Any) -> list[str]:
    operands = list(op.operands)
    tree = map_expression(cx.attr(op, "expr"), [cx.ptype(v) for v in operands], cx.ptype(op.results[0]), cx.where(op))
    args = "{" + ", ".join(cx.name(v) for v in operands) + "}"
    out = cx.define(op.results[0])
    lines = [f"poplar::Tensor {out} = popops::map({cx.graph(op)},", f"    {tree},", f"    {args}, {cx.prog}, {cx.debug(op)});"]
    if cx.shape(op.results[0]) != _broadcast([cx.shape(v) for v in operands]):
        raise CodegenError(f"{cx.where(op)} whose result shape is not its operands' broadcast shape")
    return lines


@emits("poplar.popops_map_in_place")
def emit_map_in_place(cx: Any, op: Any) -> list[str]:
    operands = list(op.operands)
    tree = map_expression(cx.attr(op, "expr"), [cx.ptype(v) for v in operands], cx.ptype(operands[0]), cx.where(op))
    args = "{" + ", ".join(cx.name(v) for v in operands) + "}"
    return [f"// {cx.name(operands[0])} = {cx.attr(op, 'expr')}, in place",
            f"popops::mapInPlace({cx.graph(op)},", f"    {tree},", f"    {args}, {cx.prog}, {cx.debug(op)});"]


def _broadcast(shapes: list[list[int]]) -> list[int]:
    rank = max((len(s) for s in shapes), default=0)
    out = [1] * rank
    for s in shapes:
        for i, n in enumerate(s):
            j = rank - len(s) + i
            out[j] = n if n != 1 else out[j]
    return out


@emits("poplar.popops_scaled_add_to")
def emit_scaled_add_to(cx: Any, op: Any) -> list[str]:
    dst, src = op.operands
    return [f"popops::scaledAddTo({cx.graph(op)}, {cx.name(dst)}, {cx.name(src)}, {cx.attr(op, 'scale')!r}f, {cx.prog}, {cx.debug(op)});"]


@emits("poplar.popops_pad")
def emit_pad(cx: Any, op: Any) -> list[str]:
    value = cx.attr(op, "value")
    if cx.ptype(op.results[0]) != "FLOAT":
        raise CodegenError(f"{cx.where(op)} of a {cx.ptype(op.results[0])} tensor has no emission (popops::pad pads with a float)")
    return [f"poplar::Tensor {cx.define(op.results[0])} = popops::pad({cx.graph(op)}, {cx.name(op.operands[0])}, "
            f"{_dims(cx.attr(op, 'low'))}, {_dims(cx.attr(op, 'high'))}, {value!r}f);"]


@emits("poplar.popops_arg_max", "poplar.popops_arg_min")
def emit_arg_extreme(cx: Any, op: Any) -> list[str]:
    x = op.operands[0]
    shape, dim = cx.shape(x), cx.attr(op, "dim")
    rank = len(shape)
    dim = dim + rank if dim < 0 else dim
    perm = [d for d in range(rank) if d != dim] + [dim]
    rows = math.prod(shape[d] for d in perm[:-1])
    fn = "argMax" if op.operation.name.endswith("max") else "argMin"
    rows_view = f"{cx.name(x)}.dimShuffle({_dims(perm)}).reshape({_dims([rows, shape[dim]])})"
    index = cx.fresh("index")
    out = cx.define(op.results[0])
    return [f"// popops::{fn} reduces the innermost dimension of a 2-D tensor: dim {dim} moved last, the others flattened",
            f"poplar::Tensor {index} = popops::{fn}({cx.graph(op)}, {rows_view}, {cx.prog}, {cx.debug(op)});",
            f"poplar::Tensor {out} = popops::cast({cx.graph(op)}, {index}, poplar::{cx.ptype(op.results[0])}, {cx.prog}, "
            f"{cx.debug(op, 'cast')}).reshape({_dims(cx.shape(op.results[0]))});"]


@emits("poplar.popops_multi_slice")
def emit_multi_slice(cx: Any, op: Any) -> list[str]:
    table, ids = op.operands
    dim, shape = cx.attr(op, "dim"), cx.shape(table)
    offsets = cx.fresh("offsets")
    count = math.prod(cx.shape(ids))
    lines = [f"poplar::Tensor {offsets} = popops::cast({cx.graph(op)}, {cx.name(ids)}.flatten().expand({{1}}), poplar::UNSIGNED_INT, "
             f"{cx.prog}, {cx.debug(op, 'offsets')});"]
    call = (f"popops::multiSlice({cx.graph(op)}, {cx.name(table)}, {offsets}, {{{dim}}}, {{1}}, {cx.prog}, "
            f"popops::SlicePlan(), poplar::OptionFlags(), {cx.debug(op)})")
    if dim == 0:
        return lines + [f"poplar::Tensor {cx.define(op.results[0])} = {call}.reshape({_dims(cx.shape(op.results[0]))});"]
    # multiSlice gives [N, *table shape with dim `dim` of size 1]: the slices moved to `dim`
    rows = cx.fresh("slices")
    rest = shape[:dim] + shape[dim + 1:]
    perm = list(range(1, dim + 1)) + [0] + list(range(dim + 1, len(shape)))
    return lines + [f"poplar::Tensor {rows} = {call};",
                    f"poplar::Tensor {cx.define(op.results[0])} = {rows}.reshape({_dims([count, *rest])}).dimShuffle({_dims(perm)})"
                    f".reshape({_dims(cx.shape(op.results[0]))});"]


# ---- poplin ------------------------------------------------------------------------

@emits("poplar.poplin_matmul")
def emit_matmul(cx: Any, op: Any) -> list[str]:
    a, b = op.operands
    sa, sb, so = cx.shape(a), cx.shape(b), cx.shape(op.results[0])
    out, ptype = cx.define(op.results[0]), cx.ptype(op.results[0])
    if len(sa) == 2 and len(sb) == 2:
        return [f"poplar::Tensor {out} = poplin::matMul({cx.graph(op)}, {cx.name(a)}, {cx.name(b)}, {cx.prog}, poplar::{ptype}, {cx.debug(op)}"
                f"{planning_options(cx, op)});"]
    if len(sa) == len(sb) >= 3 and sa[:-2] == sb[:-2]:
        groups = math.prod(sa[:-2])
        lhs = f"{cx.name(a)}.reshape({_dims([groups, *sa[-2:]])})"
        rhs = f"{cx.name(b)}.reshape({_dims([groups, *sb[-2:]])})"
        return [f"poplar::Tensor {out} = poplin::matMulGrouped({cx.graph(op)}, {lhs}, {rhs}, {cx.prog}, poplar::{ptype}, {cx.debug(op)}"
                f"{planning_options(cx, op)})",
                f"    .reshape({_dims(so)});"]
    raise CodegenError(f"{cx.where(op)} of shapes {sa} x {sb} (broadcast batch or vector operands) "
                       "has no emission yet")


@emits("poplar.poplin_linear")
def emit_linear(cx: Any, op: Any) -> list[str]:
    x, w, *bias = op.operands
    if len(cx.shape(x)) != 2:
        raise CodegenError(f"{cx.where(op)} of a rank-{len(cx.shape(x))} input has no emission yet")
    out = cx.define(op.results[0])
    lines = [f"poplar::Tensor {out} = poplin::matMul({cx.graph(op)}, {cx.name(x)}, {cx.name(w)}.transpose(), {cx.prog}, "
             f"poplar::{cx.ptype(op.results[0])}, {cx.debug(op)}{planning_options(cx, op)});"]
    if bias:
        lines.append(f"popops::addInPlace({cx.graph(op)}, {out}, {cx.name(bias[0])}, {cx.prog}, {cx.debug(op, 'bias')});")
    return lines


@emits("poplar.poplin_conv")
def emit_conv(cx: Any, op: Any) -> list[str]:
    x, w, *bias = op.operands
    sx, sw = cx.shape(x), cx.shape(w)
    groups = cx.attr(op, "groups")
    stride, padding, dilation = cx.attr(op, "stride"), cx.attr(op, "padding"), cx.attr(op, "dilation")
    out, params = cx.define(op.results[0]), cx.fresh("params")
    field, kernel = sx[2:], sw[2:]
    lines = [
        f"poplin::ConvParams {params}(poplar::{cx.ptype(x)}, {sx[0]}, {_dims(field)}, {_dims(kernel)}, "
        f"{sx[1] // groups}, {sw[0] // groups}, {groups});",
        f"{params}.inputTransform.paddingLower = {_dims(padding)};",
        f"{params}.inputTransform.paddingUpper = {_dims(padding)};",
        f"{params}.kernelTransform.dilation = {_dims(dilation)};",
        f"{params}.outputTransform.stride = {_dims(stride)};",
        # PyTorch's weights [G*Cout][Cin][kernel...] as poplin's [G][Cout][Cin][kernel...]
        f"poplar::Tensor {out} = poplin::convolution({cx.graph(op)}, {cx.name(x)}, "
        f"{cx.name(w)}.reshape({_dims([groups, sw[0] // groups, *sw[1:]])}), {params}, false, {cx.prog}, {cx.debug(op)}"
        f"{planning_options(cx, op)});",
    ]
    if bias:
        lines.append(f"poplin::addBias({cx.graph(op)}, {out}, {cx.name(bias[0])}, {cx.prog}, {cx.debug(op, 'bias')});")
    return lines


# ---- popnn -------------------------------------------------------------------------

_NONLINEARITY = {"relu": "RELU", "sigmoid": "SIGMOID", "tanh": "TANH", "gelu_tanh": "GELU", "gelu_erf": "GELU_ERF",
                 "silu": "SWISH", "hard_sigmoid": "HARD_SIGMOID", "softmax": "SOFTMAX_STABLE", "log_softmax": "popnn::logSoftmax"}


@emits("poplar.popnn_nonlinearity")
def emit_nonlinearity(cx: Any, op: Any) -> list[str]:
    kind, x = cx.attr(op, "kind"), op.operands[0]
    if kind == "safe_softmax":
        return _safe_softmax(cx, op)
    if kind not in _NONLINEARITY:
        raise CodegenError(f"{cx.where(op)}: kind '{kind}' has no emission "
                           f"(emitted: {', '.join(_NONLINEARITY)})")
    out = cx.define(op.results[0])
    if kind == "log_softmax":
        call = f"popnn::logSoftmax({cx.graph(op)}, {{}}, {cx.prog}, {cx.debug(op)})"
    else:
        call = f"popnn::nonLinearity({cx.graph(op)}, popnn::NonLinearityType::{_NONLINEARITY[kind]}, {{}}, {cx.prog}, {cx.debug(op)})"
    rank, dim = len(cx.shape(x)), cx.attr(op, "dim")
    if kind not in ("softmax", "log_softmax") or dim in (rank - 1, -1):
        return [f"poplar::Tensor {out} = {call.replace('{}', cx.name(x), 1)};"]
    # popnn's softmax normalises the innermost dimension: move `dim` there and back
    perm = [d for d in range(rank) if d != dim] + [dim]
    back = [perm.index(d) for d in range(rank)]
    return [f"poplar::Tensor {out} = {call.replace('{}', cx.name(x) + '.dimShuffle(' + _dims(perm) + ')', 1)}",
            f"    .dimShuffle({_dims(back)});"]


# the non-linearities whose popnn input gradient takes what our op's second operand is
# (the input for relu and gelu, the output for sigmoid and tanh)
_NONLINEARITY_GRAD = {"relu": "RELU", "sigmoid": "SIGMOID", "tanh": "TANH", "gelu_tanh": "GELU", "gelu_erf": "GELU_ERF"}


@emits("poplar.popnn_nonlinearity_grad")
def emit_nonlinearity_grad(cx: Any, op: Any) -> list[str]:
    kind = cx.attr(op, "kind")
    if kind in ("softmax", "log_softmax", "safe_softmax"):
        return _softmax_grad(cx, op, "log_softmax" if kind == "log_softmax" else "softmax")
    if kind not in _NONLINEARITY_GRAD:
        raise CodegenError(f"{cx.where(op)}: kind '{kind}' has no emission (emitted: {', '.join(_NONLINEARITY_GRAD)})")
    grad, act = op.operands
    out = cx.define(op.results[0])
    return [f"poplar::Tensor {out} = popnn::nonLinearityInputGradient({cx.graph(op)}, popnn::NonLinearityType::{_NONLINEARITY_GRAD[kind]}, "
            f"{cx.name(act)}, {cx.name(grad)}, {cx.prog}, {cx.debug(op)});"]


def _safe_softmax(cx: Any, op: Any) -> list[str]:
    """popnn's stable softmax over rows of the softmax dim (moved innermost), with 0 for rows
    whose every element is -inf (a fully masked attention row), as PyTorch's _safe_softmax."""
    x = op.operands[0]
    shape, dim = cx.shape(x), cx.attr(op, "dim")
    perm = [d for d in range(len(shape)) if d != dim] + [dim]
    back = [perm.index(d) for d in range(len(shape))]
    rows, inner = math.prod(shape) // max(shape[dim], 1), shape[dim]
    g, prog = cx.graph(op), cx.prog
    xs, y, top = cx.fresh("rows"), cx.fresh("softmax"), cx.fresh("rowMax")
    select = ("pe::TernaryOp(pe::TernaryOpType::SELECT, pe::Const(0.0f), pe::_1, pe::BinaryOp(pe::BinaryOpType::EQUAL, pe::_2, "
              "pe::Const(-std::numeric_limits<float>::infinity())))")
    return [f"poplar::Tensor {xs} = {cx.name(x)}.dimShuffle({_dims(perm)}).reshape({_dims([rows, inner])});",
            f"poplar::Tensor {y} = popnn::nonLinearity({g}, popnn::NonLinearityType::SOFTMAX_STABLE, {xs}, {prog}, {cx.debug(op)});",
            f"poplar::Tensor {top} = popops::reduce({g}, {xs}, poplar::{cx.ptype(x)}, {{1}}, popops::ReduceParams(popops::Operation::MAX), "
            f"{prog}, {cx.debug(op, 'max')}).reshape({{{rows}, 1}}).broadcast({inner}, 1);",
            f"poplar::Tensor {cx.define(op.results[0])} = popops::map({g}, {select}, {{{y}, {top}}}, {prog}, {cx.debug(op, 'masked')})"
            f".reshape({_dims([shape[d] for d in perm])}).dimShuffle({_dims(back)});"]


def _softmax_grad(cx: Any, op: Any, kind: str) -> list[str]:
    """PopLibs has no softmax input gradient: composed from popops::reduce and popops::map over
    rows of the softmax dim (moved innermost). softmax: y * (g - sum(g * y));
    log_softmax: g - exp(y) * sum(g)."""
    grad, saved = op.operands
    shape, dim = cx.shape(grad), cx.attr(op, "dim")
    rank = len(shape)
    perm = [d for d in range(rank) if d != dim] + [dim]
    back = [perm.index(d) for d in range(rank)]
    rows, inner = math.prod(shape) // max(shape[dim], 1), shape[dim]
    g, prog = cx.graph(op), cx.prog
    dy, y, total = cx.fresh("dy"), cx.fresh("y"), cx.fresh("rowSum")
    as_rows = f".dimShuffle({_dims(perm)}).reshape({_dims([rows, inner])})"
    lines = [f"poplar::Tensor {dy} = {cx.name(grad)}{as_rows};", f"poplar::Tensor {y} = {cx.name(saved)}{as_rows};"]
    summed = f"popops::mul({g}, {dy}, {y}, {prog}, {cx.debug(op, 'mul')})" if kind == "softmax" else dy
    lines.append(f"poplar::Tensor {total} = popops::reduce({g}, {summed}, poplar::{cx.ptype(grad)}, {{1}}, "
                 f"popops::ReduceParams(popops::Operation::ADD), {prog}, {cx.debug(op, 'sum')}).reshape({{{rows}, 1}}).broadcast({inner}, 1);")
    if kind == "softmax":
        expr = "pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::_2, pe::BinaryOp(pe::BinaryOpType::SUBTRACT, pe::_1, pe::_3))"
    else:
        expr = "pe::BinaryOp(pe::BinaryOpType::SUBTRACT, pe::_1, pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::UnaryOp(pe::UnaryOpType::EXPONENT, pe::_2), pe::_3))"
    shuffled = [shape[d] for d in perm]
    lines.append(f"poplar::Tensor {cx.define(op.results[0])} = popops::map({g}, {expr}, {{{dy}, {y}, {total}}}, {prog}, {cx.debug(op)})"
                 f".reshape({_dims(shuffled)}).dimShuffle({_dims(back)});")
    return lines


@emits("poplar.popnn_pool")
def emit_pool(cx: Any, op: Any) -> list[str]:
    kind, x = cx.attr(op, "kind"), op.operands[0]
    kernel, stride, padding = cx.attr(op, "kernel"), cx.attr(op, "stride"), cx.attr(op, "padding")
    if cx.attr(op, "ceil_mode"):
        raise CodegenError(f"{cx.where(op)} with ceil_mode has no emission yet")
    if kind == "avg" and any(padding) and cx.attr(op, "count_include_pad"):
        raise CodegenError(f"{cx.where(op)}: average counting the padding has no emission yet "
                           "(popnn's AVG does not count it)")
    sx = cx.shape(x)
    pooling = {"max": "MAX", "avg": "AVG", "sum": "SUM"}[kind]
    out = cx.define(op.results[0])
    pads = _dims(padding)
    return [f"poplar::Tensor {out} = popnn::pooling::pool({cx.graph(op)},",
            f"    popnn::pooling::PoolParams(popnn::PoolingType::{pooling}, {_dims(sx[2:])}, {_dims(kernel)}, {_dims(stride)}, "
            f"{pads}, {pads}, {sx[1]}, {sx[0]}, poplar::{cx.ptype(x)}),",
            f"    {cx.name(x)}, {cx.prog}, {cx.debug(op)});"]


@emits("poplar.popnn_norm")
def emit_norm(cx: Any, op: Any) -> list[str]:
    kind, eps = cx.attr(op, "kind"), cx.attr(op, "epsilon")
    x, w, b, *stats = op.operands
    out = cx.define(op.results[0])
    g = cx.graph(op)
    if kind == "batch" and len(stats) == 2:
        mean, var = stats
        inv = cx.fresh("invStdDev")
        return [f"// invStdDev = 1 / sqrt(running_var + eps)",
                f"poplar::Tensor {inv} = popops::map({g}, pe::BinaryOp(pe::BinaryOpType::DIVIDE, pe::Const(1.0f), "
                f"pe::UnaryOp(pe::UnaryOpType::SQRT, pe::BinaryOp(pe::BinaryOpType::ADD, pe::_1, pe::Const({eps!r}f)))), "
                f"{{{cx.name(var)}}}, {cx.prog}, {cx.debug(op, 'invStdDev')});",
                f"poplar::Tensor {out} = popnn::bn::batchNormalise({g}, {cx.name(x)}, {cx.name(w)}, {cx.name(b)}, "
                f"{cx.name(mean)}, {inv}, {cx.prog}, {cx.debug(op)}).first;"]
    if kind == "layer":
        shape = cx.shape(x)
        n = cx.attr(op, "num_dims")
        rows, cols = math.prod(shape[: len(shape) - n]), math.prod(shape[len(shape) - n:])
        acts, stats_name = cx.fresh("acts"), cx.fresh("stats")
        return [f"poplar::Tensor {acts} = {cx.name(x)}.reshape({_dims([rows, cols])});",
                f"auto {stats_name} = popnn::layerNorm::layerNormStatistics({g}, {acts}, {eps!r}f, {cx.prog}, false, false, "
                f"poplar::FLOAT, {cx.debug(op, 'statistics')});",
                f"poplar::Tensor {out} = popnn::layerNorm::layerNormalise({g}, {acts}, {cx.name(w)}.flatten(), {cx.name(b)}.flatten(), "
                f"{stats_name}.first, {stats_name}.second, {cx.prog}, {cx.debug(op)}).first.reshape({_dims(shape)});"]
    raise CodegenError(f"{cx.where(op)}: kind '{kind}' with {len(stats)} statistics has no emission yet "
                       "(emitted: batch with running statistics, layer)")

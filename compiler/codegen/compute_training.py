"""The C++ of the training ops (gradients, statistics, losses, embedding updates): one
PopLibs call each where PopLibs has the function, otherwise a short composition of public
Poplar / PopLibs calls (said in a comment). Registered in ``compute.EMITTERS``."""

from __future__ import annotations

import math
from typing import Any

from torch_mlir import ir

from .compute import _dims, emits, planning_options
from .errors import CodegenError


def _segments(op: Any, name: str, values: list[Any]) -> list[list[Any]]:
    sizes = list(ir.DenseI32ArrayAttr(op.operation.attributes[name]))
    out, at = [], 0
    for size in sizes:
        out.append(values[at:at + size])
        at += size
    return out


def _neg(text: str) -> str:
    return f"pe::UnaryOp(pe::UnaryOpType::NEGATE, {text})"


def _bin(kind: str, a: str, b: str) -> str:
    return f"pe::BinaryOp(pe::BinaryOpType::{kind}, {a}, {b})"


# ---- poplin ------------------------------------------------------------------------

@emits("poplar.poplin_conv_grad")
def emit_conv_grad(cx: Any, op: Any) -> list[str]:
    g, x, w = op.operands
    grad_input, grad_weights, grad_bias = _segments(op, "resultSegmentSizes", list(op.results))
    sx, sw, sg = cx.shape(x), cx.shape(w), cx.shape(g)
    groups = cx.attr(op, "groups")
    stride, padding, dilation = cx.attr(op, "stride"), cx.attr(op, "padding"), cx.attr(op, "dilation")
    field, kernel, out_field = sx[2:], sw[2:], sg[2:]
    cin, cout = sx[1] // groups, sw[0] // groups
    graph, ptype = cx.graph(op), cx.ptype(x)
    lines: list[str] = []
    if grad_weights:
        params = cx.fresh("params")
        lines += [f"poplin::ConvParams {params}(poplar::{ptype}, {sx[0]}, {_dims(field)}, {_dims(kernel)}, {cin}, {cout}, {groups});",
                  f"{params}.inputTransform.paddingLower = {_dims(padding)};",
                  f"{params}.inputTransform.paddingUpper = {_dims(padding)};",
                  f"{params}.kernelTransform.dilation = {_dims(dilation)};",
                  f"{params}.outputTransform.stride = {_dims(stride)};",
                  f"poplar::Tensor {cx.define(grad_weights[0])} = poplin::calculateWeightDeltas({graph}, {cx.name(g)}, {cx.name(x)}, "
                  f"{params}, {cx.prog}, {cx.debug(op, 'weights')}{planning_options(cx, op)})",
                  f"    .reshape({_dims(sw)});"]
    if grad_input:
        # the input gradient is the convolution of the output gradient, dilated by the stride and
        # padded so that the flipped kernel covers every input position, with the forward weights
        # transposed and flipped
        spans = [(k - 1) * d + 1 for k, d in zip(kernel, dilation, strict=True)]
        lower = [span - 1 - p for span, p in zip(spans, padding, strict=True)]
        upper = [n - 1 - (o - 1) * s + p for n, o, s, p in zip(field, out_field, stride, padding, strict=True)]
        if any(v < 0 for v in lower + upper):
            raise CodegenError(f"{cx.where(op)}: an input gradient whose padding exceeds the kernel span has no emission yet")
        params = cx.fresh("params")
        lines += [f"poplin::ConvParams {params}(poplar::{ptype}, {sx[0]}, {_dims(out_field)}, {_dims(kernel)}, {cout}, {cin}, {groups});",
                  f"{params}.inputTransform.dilation = {_dims(stride)};",
                  f"{params}.inputTransform.paddingLower = {_dims(lower)};",
                  f"{params}.inputTransform.paddingUpper = {_dims(upper)};",
                  f"{params}.kernelTransform.dilation = {_dims(dilation)};",
                  f"poplar::Tensor {cx.define(grad_input[0])} = poplin::convolution({graph}, {cx.name(g)}, "
                  f"{cx.name(w)}.reshape({_dims([groups, cout, *sw[1:]])}), {params}, true, {cx.prog}, {cx.debug(op, 'input')}{planning_options(cx, op)});"]
    if grad_bias:
        dims = [0, *range(2, len(sg))]
        lines.append(f"poplar::Tensor {cx.define(grad_bias[0])} = popops::reduce({graph}, {cx.name(g)}, poplar::{cx.ptype(grad_bias[0])}, "
                     f"{_dims(dims)}, popops::ReduceParams(popops::Operation::ADD), {cx.prog}, {cx.debug(op, 'bias')});")
    return lines


def _transpose_window(cx: Any, op: Any) -> tuple[list[int], list[int], list[int], list[int], int]:
    stride, padding, dilation = cx.attr(op, "stride"), cx.attr(op, "padding"), cx.attr(op, "dilation")
    return stride, padding, cx.attr(op, "output_padding"), dilation, cx.attr(op, "groups")


@emits("poplar.poplin_conv_transpose")
def emit_conv_transpose(cx: Any, op: Any) -> list[str]:
    """poplin::convolution with transposed ConvParams: the input dilated by the stride and
    padded by ``dilation * (kernel - 1) - padding`` (plus ``output_padding`` at the end), the
    weights [C_in, C_out / G, kernel] as [G][C_in / G][C_out / G][kernel] transposed and flipped."""
    x, w, *bias = op.operands
    sx, sw = cx.shape(x), cx.shape(w)
    stride, padding, output_padding, dilation, groups = _transpose_window(cx, op)
    kernel = sw[2:]
    cin, cout = sx[1] // groups, sw[1]
    lower = [d * (k - 1) - p for k, d, p in zip(kernel, dilation, padding, strict=True)]
    upper = [low + extra for low, extra in zip(lower, output_padding, strict=True)]
    if any(v < 0 for v in lower):
        raise CodegenError(f"{cx.where(op)}: a padding larger than dilation * (kernel - 1) has no emission yet "
                           "(it needs the input truncated)")
    out, params = cx.define(op.results[0]), cx.fresh("params")
    lines = [f"poplin::ConvParams {params}(poplar::{cx.ptype(x)}, {sx[0]}, {_dims(sx[2:])}, {_dims(kernel)}, {cin}, {cout}, {groups});",
             f"{params}.inputTransform.dilation = {_dims(stride)};",
             f"{params}.inputTransform.paddingLower = {_dims(lower)};",
             f"{params}.inputTransform.paddingUpper = {_dims(upper)};",
             f"{params}.kernelTransform.dilation = {_dims(dilation)};",
             f"poplar::Tensor {out} = poplin::convolution({cx.graph(op)}, {cx.name(x)}, {cx.name(w)}.reshape({_dims([groups, cin, cout, *kernel])}), "
             f"{params}, true, {cx.prog}, {cx.debug(op)}{planning_options(cx, op)});"]
    if bias:
        lines.append(f"poplin::addBias({cx.graph(op)}, {out}, {cx.name(bias[0])}, {cx.prog}, {cx.debug(op, 'bias')});")
    return lines


@emits("poplar.poplin_conv_transpose_grad")
def emit_conv_transpose_grad(cx: Any, op: Any) -> list[str]:
    """The transposed convolution's input gradient is the ordinary convolution of the output
    gradient with the forward's window (weights [G][C_in / G][C_out / G][kernel] as its
    [G][out][in][kernel]); its weight gradient that convolution's calculateWeightDeltas with
    the forward input as the deltas; the bias gradient a reduction of the output gradient."""
    g, x, w = op.operands
    grad_input, grad_weights, grad_bias = _segments(op, "resultSegmentSizes", list(op.results))
    sx, sw, sg = cx.shape(x), cx.shape(w), cx.shape(g)
    stride, padding, output_padding, dilation, groups = _transpose_window(cx, op)
    if any(extra >= s for extra, s in zip(output_padding, stride, strict=True)):
        raise CodegenError(f"{cx.where(op)}: an output_padding not smaller than the stride has no emission yet")
    kernel, cin, cout = sw[2:], sx[1] // groups, sw[1]
    graph, params = cx.graph(op), cx.fresh("params")
    lines = [f"// the convolution whose input gradient the transposed convolution is: output gradient -> input",
             f"poplin::ConvParams {params}(poplar::{cx.ptype(g)}, {sg[0]}, {_dims(sg[2:])}, {_dims(kernel)}, {cout}, {cin}, {groups});",
             f"{params}.inputTransform.paddingLower = {_dims(padding)};",
             f"{params}.inputTransform.paddingUpper = {_dims(padding)};",
             f"{params}.kernelTransform.dilation = {_dims(dilation)};",
             f"{params}.outputTransform.stride = {_dims(stride)};"]
    if grad_input:
        lines.append(f"poplar::Tensor {cx.define(grad_input[0])} = poplin::convolution({graph}, {cx.name(g)}, "
                     f"{cx.name(w)}.reshape({_dims([groups, cin, cout, *kernel])}), {params}, false, {cx.prog}, {cx.debug(op, 'input')}{planning_options(cx, op)});")
    if grad_weights:
        lines += [f"poplar::Tensor {cx.define(grad_weights[0])} = poplin::calculateWeightDeltas({graph}, {cx.name(x)}, {cx.name(g)}, "
                  f"{params}, {cx.prog}, {cx.debug(op, 'weights')}{planning_options(cx, op)})",
                  f"    .reshape({_dims(sw)});"]
    if grad_bias:
        dims = [0, *range(2, len(sg))]
        lines.append(f"poplar::Tensor {cx.define(grad_bias[0])} = popops::reduce({graph}, {cx.name(g)}, poplar::{cx.ptype(grad_bias[0])}, "
                     f"{_dims(dims)}, popops::ReduceParams(popops::Operation::ADD), {cx.prog}, {cx.debug(op, 'bias')});")
    return lines


# ---- popnn pooling -----------------------------------------------------------------

def _window(cx: Any, op: Any) -> tuple[str, str, str]:
    if cx.attr(op, "ceil_mode"):
        raise CodegenError(f"{cx.where(op)} with ceil_mode has no emission yet")
    return _dims(cx.attr(op, "kernel")), _dims(cx.attr(op, "stride")), _dims(cx.attr(op, "padding"))


@emits("poplar.popnn_max_pool_with_indices")
def emit_max_pool_with_indices(cx: Any, op: Any) -> list[str]:
    kernel, stride, padding = _window(cx, op)
    x = op.operands[0]
    result, indices = op.results
    pair, out = cx.fresh("pooled"), cx.define(result)
    return ["// PopLibs' pooling gives no indices: maxPoolWithIndices (above) keeps the first maximum of each window",
            f"auto {pair} = maxPoolWithIndices({cx.graph(op)}, {cx.name(x)}, {kernel}, {stride}, {padding}, "
            f"{_dims(cx.shape(result)[2:])}, {cx.prog}, {cx.debug(op)});",
            f"poplar::Tensor {out} = {pair}.first;",
            f"poplar::Tensor {cx.define(indices)} = popops::cast({cx.graph(op)}, {pair}.second, poplar::{cx.ptype(indices)}, "
            f"{cx.prog}, {cx.debug(op, 'indices')});"]


@emits("poplar.popnn_max_pool_grad_with_indices")
def emit_max_pool_grad_with_indices(cx: Any, op: Any) -> list[str]:
    kernel, stride, padding = _window(cx, op)
    x, g, indices = op.operands
    index = cx.fresh("index")
    return [f"poplar::Tensor {index} = popops::cast({cx.graph(op)}, {cx.name(indices)}, poplar::INT, {cx.prog}, {cx.debug(op, 'indices')});",
            f"poplar::Tensor {cx.define(op.results[0])} = maxPoolGradWithIndices({cx.graph(op)}, {cx.name(g)}, {index}, "
            f"{_dims(cx.shape(x)[2:])}, {kernel}, {stride}, {padding}, {cx.prog}, {cx.debug(op)});"]


@emits("poplar.popnn_pool_grad")
def emit_pool_grad(cx: Any, op: Any) -> list[str]:
    kernel, stride, padding = _window(cx, op)
    kind, (x, g) = cx.attr(op, "kind"), op.operands
    sx, sg = cx.shape(x), cx.shape(g)
    graph = cx.graph(op)
    if kind == "max":
        pair = cx.fresh("pooled")
        return ["// poolInputGradient would give the gradient to every maximum of a window: the first one gets it,",
                "// from the recomputed indices",
                f"auto {pair} = maxPoolWithIndices({graph}, {cx.name(x)}, {kernel}, {stride}, {padding}, {_dims(sg[2:])}, {cx.prog}, "
                f"{cx.debug(op, 'indices')});",
                f"poplar::Tensor {cx.define(op.results[0])} = maxPoolGradWithIndices({graph}, {cx.name(g)}, {pair}.second, "
                f"{_dims(sx[2:])}, {kernel}, {stride}, {padding}, {cx.prog}, {cx.debug(op)});"]
    if kind == "avg" and any(cx.attr(op, "padding")) and cx.attr(op, "count_include_pad"):
        raise CodegenError(f"{cx.where(op)}: average counting the padding has no emission yet (popnn's AVG does not count it)")
    pooling = {"avg": "AVG", "sum": "SUM"}[kind]
    return [f"poplar::Tensor {cx.define(op.results[0])} = popnn::pooling::poolInputGradient({graph},",
            f"    popnn::pooling::PoolParams(popnn::PoolingType::{pooling}, {_dims(sx[2:])}, {kernel}, {stride}, "
            f"{padding}, {padding}, {sx[1]}, {sx[0]}, poplar::{cx.ptype(x)}),",
            f"    1, {cx.name(g)}, {cx.prog}, {cx.debug(op)});"]


# ---- popnn normalisation -----------------------------------------------------------

def _layer_rows(cx: Any, op: Any, x: Any) -> tuple[int, int]:
    shape, n = cx.shape(x), cx.attr(op, "num_dims")
    return math.prod(shape[: len(shape) - n]), math.prod(shape[len(shape) - n:])


@emits("poplar.popnn_norm_training")
def emit_norm_training(cx: Any, op: Any) -> list[str]:
    kind, eps, momentum = cx.attr(op, "kind"), cx.attr(op, "epsilon"), cx.attr(op, "momentum")
    (x,), (w,), (b,), running = _segments(op, "operandSegmentSizes", list(op.operands))
    (result,), (mean,), (invstd,), updates = _segments(op, "resultSegmentSizes", list(op.results))
    g = cx.graph(op)
    stats = cx.fresh("stats")
    if kind == "batch":
        lines = [f"auto {stats} = popnn::bn::batchNormStatistics({g}, {cx.name(x)}, {eps!r}f, {cx.prog}, false, false, "
                 f"poplar::FLOAT, {cx.debug(op, 'statistics')});",
                 f"poplar::Tensor {cx.define(result)} = popnn::bn::batchNormalise({g}, {cx.name(x)}, {cx.name(w)}, {cx.name(b)}, "
                 f"{stats}.first, {stats}.second, {cx.prog}, {cx.debug(op)}).first;",
                 f"poplar::Tensor {cx.define(mean)} = {stats}.first;",
                 f"poplar::Tensor {cx.define(invstd)} = {stats}.second;"]
        if running:
            count = math.prod(cx.shape(x)) // cx.shape(x)[1]
            old_mean, old_var = running
            new_mean, new_var = updates
            keep = 1.0 - momentum
            # running = (1 - momentum) * running + momentum * batch statistic (unbiased variance,
            # recovered from invStdDev: (1 / invStdDev^2 - eps) * n / (n - 1))
            unbiased = _bin("MULTIPLY", _bin("SUBTRACT", _bin("DIVIDE", "pe::Const(1.0f)", _bin("MULTIPLY", "pe::_2", "pe::_2")),
                                             f"pe::Const({eps!r}f)"), f"pe::Const({count / max(count - 1, 1)!r}f)")
            lines += [f"poplar::Tensor {cx.define(new_mean)} = popops::map({g}, "
                      f"{_bin('ADD', _bin('MULTIPLY', f'pe::Const({keep!r}f)', 'pe::_1'), _bin('MULTIPLY', f'pe::Const({momentum!r}f)', 'pe::_2'))}, "
                      f"{{{cx.name(old_mean)}, {stats}.first}}, {cx.prog}, {cx.debug(op, 'running_mean')});",
                      f"poplar::Tensor {cx.define(new_var)} = popops::map({g}, "
                      f"{_bin('ADD', _bin('MULTIPLY', f'pe::Const({keep!r}f)', 'pe::_1'), _bin('MULTIPLY', f'pe::Const({momentum!r}f)', unbiased))}, "
                      f"{{{cx.name(old_var)}, {stats}.second}}, {cx.prog}, {cx.debug(op, 'running_var')});"]
        return lines
    if kind == "layer":
        rows, cols = _layer_rows(cx, op, x)
        acts = cx.fresh("acts")
        return [f"poplar::Tensor {acts} = {cx.name(x)}.reshape({_dims([rows, cols])});",
                f"auto {stats} = popnn::layerNorm::layerNormStatistics({g}, {acts}, {eps!r}f, {cx.prog}, false, false, "
                f"poplar::FLOAT, {cx.debug(op, 'statistics')});",
                f"poplar::Tensor {cx.define(result)} = popnn::layerNorm::layerNormalise({g}, {acts}, {cx.name(w)}.flatten(), "
                f"{cx.name(b)}.flatten(), {stats}.first, {stats}.second, {cx.prog}, {cx.debug(op)}).first.reshape({_dims(cx.shape(x))});",
                f"poplar::Tensor {cx.define(mean)} = {stats}.first.reshape({_dims(cx.shape(mean))});",
                f"poplar::Tensor {cx.define(invstd)} = {stats}.second.reshape({_dims(cx.shape(invstd))});"]
    raise CodegenError(f"{cx.where(op)}: kind '{kind}' has no emission yet (emitted: batch, layer)")


@emits("poplar.popnn_norm_grad")
def emit_norm_grad(cx: Any, op: Any) -> list[str]:
    kind = cx.attr(op, "kind")
    grad, x, mean, invstd, scale = op.operands
    grad_input, grad_scale, grad_bias = op.results
    g = cx.graph(op)
    if kind == "batch":
        ns, acts, dy, m, s, w = "popnn::bn::batchNorm", cx.name(x), cx.name(grad), cx.name(mean), cx.name(invstd), cx.name(scale)
        reshape = ""
    elif kind == "layer":
        rows, cols = _layer_rows(cx, op, x)
        ns = "popnn::layerNorm::layerNorm"
        acts, dy = f"{cx.name(x)}.reshape({_dims([rows, cols])})", f"{cx.name(grad)}.reshape({_dims([rows, cols])})"
        m, s, w = f"{cx.name(mean)}.flatten()", f"{cx.name(invstd)}.flatten()", f"{cx.name(scale)}.flatten()"
        reshape = f".reshape({_dims(cx.shape(x))})"
    else:
        raise CodegenError(f"{cx.where(op)}: kind '{kind}' has no emission yet (emitted: batch, layer)")
    params = cx.fresh("paramGrads")
    return [f"poplar::Tensor {cx.define(grad_input)} = {ns}Gradients({g}, {acts}, {dy}, {m}, {s}, {w}, {cx.prog}, poplar::FLOAT, "
            f"{cx.debug(op, 'input')}){reshape};",
            f"auto {params} = {ns}ParamGradients({g}, {acts}, {dy}, {m}, {s}, {cx.prog}, poplar::FLOAT, {cx.debug(op, 'params')});",
            f"poplar::Tensor {cx.define(grad_scale)} = {params}.first.reshape({_dims(cx.shape(grad_scale))});",
            f"poplar::Tensor {cx.define(grad_bias)} = {params}.second.reshape({_dims(cx.shape(grad_bias))});"]


# ---- popnn NLL loss ----------------------------------------------------------------

def _nll_selection(cx: Any, op: Any, log_probs: Any, target: Any, weight: list[Any]) -> tuple[list[str], str, int, int]:
    """Lines computing ``sel`` [N][C]: the one-hot of the targets times their class weight,
    zero rows for targets equal to ``ignore_index``; returns (lines, sel, N, C)."""
    shape = cx.shape(log_probs)
    n, c = (shape[0], shape[1]) if len(shape) == 2 else (1, shape[0])
    g, prog, ignore = cx.graph(op), cx.prog, cx.attr(op, "ignore_index")
    t, keep, idx, onehot, sel = (cx.fresh(s) for s in ("target", "keep", "classes", "onehot", "selected"))
    lines = ["// popnn::calcLoss takes probabilities; the loss of log-probabilities is the one-hot of the",
             "// targets (popops::encodeOneHot) times the log-probabilities, summed",
             f"poplar::Tensor {t} = popops::cast({g}, {cx.name(target)}.reshape({{{n}}}), poplar::INT, {prog}, {cx.debug(op, 'target')});",
             f"poplar::Tensor {keep} = popops::map({g}, {_bin('NOT_EQUAL', 'pe::_1', f'pe::Const({ignore})')}, {{{t}}}, {prog}, "
             f"{cx.debug(op, 'keep')});",
             f"poplar::Tensor {idx} = popops::cast({g}, popops::map({g}, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_1, pe::Const(0), pe::_2), "
             f"{{{t}, {keep}}}, {prog}, {cx.debug(op, 'classes')}), poplar::UNSIGNED_INT, {prog}, {cx.debug(op, 'classes')});",
             f"poplar::Tensor {onehot} = {g}.addVariable(poplar::{cx.ptype(log_probs)}, {{{n}, {c}}}, {cx.debug(op, 'onehot')});",
             f"mapLinearly({g}, {onehot}, 0, 1);",
             f"popops::encodeOneHot({g}, {idx}, {onehot}, {prog}, {cx.debug(op, 'onehot')});"]
    factors = f"{{{onehot}, {keep}.reshape({{{n}, 1}}).broadcast({c}, 1)"
    expr = _bin("MULTIPLY", "pe::_1", f"pe::Cast(pe::_2, poplar::{cx.ptype(log_probs)})")
    if weight:
        factors += f", {cx.name(weight[0])}.reshape({{1, {c}}}).broadcast({n}, 0)"
        expr = _bin("MULTIPLY", expr, "pe::_3")
    lines.append(f"poplar::Tensor {sel} = popops::map({g}, {expr}, {factors}}}, {prog}, {cx.debug(op, 'selected')});")
    return lines, sel, n, c


def _sum(cx: Any, op: Any, tensor: str, dims: list[int], ptype: str, what: str) -> str:
    return (f"popops::reduce({cx.graph(op)}, {tensor}, poplar::{ptype}, {_dims(dims)}, "
            f"popops::ReduceParams(popops::Operation::ADD), {cx.prog}, {cx.debug(op, what)})")


@emits("poplar.popnn_nll_loss")
def emit_nll_loss(cx: Any, op: Any) -> list[str]:
    (log_probs,), (target,), weight = _segments(op, "operandSegmentSizes", list(op.operands))
    lines, sel, n, c = _nll_selection(cx, op, log_probs, target, weight)
    g, ptype, reduction = cx.graph(op), cx.ptype(log_probs), cx.attr(op, "reduction")
    picked, out = cx.fresh("picked"), cx.define(op.results[0])
    product = f"popops::mul({g}, {sel}, {cx.name(log_probs)}.reshape({{{n}, {c}}}), {cx.prog}, {cx.debug(op, 'mul')})"
    lines.append(f"poplar::Tensor {picked} = {_sum(cx, op, product, [1], ptype, 'picked')};")
    if reduction == "none":
        lines.append(f"poplar::Tensor {out} = popops::map({g}, {_neg('pe::_1')}, {{{picked}}}, {cx.prog}, {cx.debug(op)})"
                     f".reshape({_dims(cx.shape(op.results[0]))});")
    elif reduction == "sum":
        lines.append(f"poplar::Tensor {out} = popops::map({g}, {_neg('pe::_1')}, {{{_sum(cx, op, picked, [0], ptype, 'sum')}}}, "
                     f"{cx.prog}, {cx.debug(op)}).reshape({{}});")
    else:
        total = cx.fresh("total")
        lines += [f"poplar::Tensor {total} = {_sum(cx, op, sel, [0, 1], ptype, 'total')};",
                  f"poplar::Tensor {out} = popops::map({g}, {_bin('DIVIDE', _neg('pe::_1'), 'pe::_2')}, "
                  f"{{{_sum(cx, op, picked, [0], ptype, 'sum')}, {total}}}, {cx.prog}, {cx.debug(op)}).reshape({{}});"]
    return lines


@emits("poplar.popnn_nll_loss_grad")
def emit_nll_loss_grad(cx: Any, op: Any) -> list[str]:
    (grad,), (log_probs,), (target,), weight = _segments(op, "operandSegmentSizes", list(op.operands))
    lines, sel, n, c = _nll_selection(cx, op, log_probs, target, weight)
    g, ptype, reduction = cx.graph(op), cx.ptype(log_probs), cx.attr(op, "reduction")
    out = cx.define(op.results[0])
    if reduction == "none":
        dy = f"{cx.name(grad)}.reshape({{{n}, 1}}).broadcast({c}, 1)"
    else:
        dy = f"{cx.name(grad)}.reshape({{1, 1}}).broadcast({n}, 0).broadcast({c}, 1)"
    if reduction == "mean":
        total = cx.fresh("total")
        lines += [f"poplar::Tensor {total} = {_sum(cx, op, sel, [0, 1], ptype, 'total')};",
                  f"poplar::Tensor {out} = popops::map({g}, {_neg(_bin('DIVIDE', _bin('MULTIPLY', 'pe::_1', 'pe::_2'), 'pe::_3'))}, "
                  f"{{{sel}, {dy}, {total}.reshape({{1, 1}}).broadcast({n}, 0).broadcast({c}, 1)}}, {cx.prog}, {cx.debug(op)})"
                  f".reshape({_dims(cx.shape(op.results[0]))});"]
    else:
        lines.append(f"poplar::Tensor {out} = popops::map({g}, {_neg(_bin('MULTIPLY', 'pe::_1', 'pe::_2'))}, {{{sel}, {dy}}}, "
                     f"{cx.prog}, {cx.debug(op)}).reshape({_dims(cx.shape(op.results[0]))});")
    return lines


# ---- popops embedding update -------------------------------------------------------

@emits("poplar.popops_multi_update_add")
def emit_multi_update_add(cx: Any, op: Any) -> list[str]:
    updates, indices = op.operands
    result = op.results[0]
    rows = math.prod(cx.shape(indices))
    row = cx.shape(updates)[len(cx.shape(indices)):]
    g, padding = cx.graph(op), cx.attr(op, "padding_index")
    out, offsets, scale = cx.define(result), cx.fresh("offsets"), cx.fresh("scale")
    lines = [f"poplar::Tensor {out} = {g}.addVariable(poplar::{cx.ptype(result)}, {_dims(cx.shape(result))}, {cx.debug(op)});",
             f"mapLinearly({g}, {out}, 0, 1);",
             f"popops::zero({g}, {out}, {cx.prog}, {cx.debug(op, 'zero')});",
             f"poplar::Tensor {offsets} = popops::cast({g}, {cx.name(indices)}.flatten().expand({{1}}), poplar::UNSIGNED_INT, "
             f"{cx.prog}, {cx.debug(op, 'offsets')});",
             f"poplar::Tensor {scale} = {g}.addConstant<float>(poplar::FLOAT, {{}}, 1.0f, {cx.debug(op, 'scale')});",
             f"mapLinearly({g}, {scale}, 0, 1);",
             f"popops::multiUpdateAdd({g}, {out}, {cx.name(updates)}.reshape({_dims([rows, 1, *row])}), {offsets}, {scale}, {{0}}, {{1}}, "
             f"{cx.prog}, popops::SlicePlan(), poplar::OptionFlags(), {cx.debug(op)});"]
    if padding >= 0:
        lines.append(f"popops::zero({g}, {out}.slice({padding}, {padding + 1}, 0), {cx.prog}, {cx.debug(op, 'padding_index')});")
    return lines


@emits("poplar.popops_gather")
def emit_gather(cx: Any, op: Any) -> list[str]:
    """torch.gather as popops::multiSlice of single elements of the flattened input: the flat
    offset of each result element is its index times the stride of ``dim`` plus the offset of
    its other coordinates (a constant)."""
    x, indices = op.operands
    dim, shape, ishape = cx.attr(op, "dim"), cx.shape(x), cx.shape(indices)
    strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]
    base = []
    for flat in range(math.prod(ishape)):
        offset, rest = 0, flat
        for d in range(len(ishape) - 1, -1, -1):
            coord, rest = rest % ishape[d], rest // ishape[d]
            offset += 0 if d == dim else coord * strides[d]
        base.append(offset)
    g, data, const, offsets = cx.graph(op), cx.fresh("data"), cx.fresh("base"), cx.fresh("offsets")
    n = len(base)
    return [f"static const int {data}[] = {{{', '.join(map(str, base))}}};",
            f"poplar::Tensor {const} = {g}.addConstant<int>(poplar::INT, {{{n}}}, {data}, {cx.debug(op, 'base')});",
            f"mapLinearly({g}, {const}, 0, 1);",
            f"poplar::Tensor {offsets} = popops::cast({g}, popops::map({g}, "
            f"{_bin('ADD', _bin('MULTIPLY', 'pe::Cast(pe::_1, poplar::INT)', f'pe::Const({strides[dim]})'), 'pe::_2')}, "
            f"{{{cx.name(indices)}.flatten(), {const}}}, {cx.prog}, {cx.debug(op, 'offsets')}), poplar::UNSIGNED_INT, {cx.prog}, "
            f"{cx.debug(op, 'offsets')}).expand({{1}});",
            f"poplar::Tensor {cx.define(op.results[0])} = popops::multiSlice({g}, {cx.name(x)}.flatten(), {offsets}, {{0}}, {{1}}, "
            f"{cx.prog}, popops::SlicePlan(), poplar::OptionFlags(), {cx.debug(op)}).reshape({_dims(ishape)});"]


@emits("poplar.popops_multi_update")
def emit_multi_update(cx: Any, op: Any) -> list[str]:
    """A copy of the table updated in slices along ``dim``: ``popops::multiUpdate`` (copy; of
    updates to one slice the last one written stays) or ``multiUpdateAdd`` with scale 1."""
    table, updates, indices = op.operands
    dim, kind = cx.attr(op, "dim"), cx.attr(op, "op")
    shape, ishape = cx.shape(table), cx.shape(indices)
    count = math.prod(ishape)
    g, prog = cx.graph(op), cx.prog
    out, offsets = cx.define(op.results[0]), cx.fresh("offsets")
    # updates [*table[:dim], *indices, *table[dim+1:]] as multiUpdate's [N, *table with dim of size 1]
    rank = len(ishape)
    perm = list(range(dim, dim + rank)) + list(range(dim)) + list(range(dim + rank, dim + rank + len(shape) - dim - 1))
    slices = f"{cx.name(updates)}.dimShuffle({_dims(perm)}).reshape({_dims([count, *shape[:dim], 1, *shape[dim + 1:]])})"
    lines = [f"poplar::Tensor {out} = {g}.addVariable(poplar::{cx.ptype(table)}, {_dims(shape)}, {cx.debug(op)});",
             f"mapLinearly({g}, {out}, 0, 1);",
             f"{prog}.add(poplar::program::Copy({cx.name(table)}, {out}));",
             f"poplar::Tensor {offsets} = popops::cast({g}, {cx.name(indices)}.flatten().expand({{1}}), poplar::UNSIGNED_INT, "
             f"{prog}, {cx.debug(op, 'offsets')});"]
    if kind == "add":
        scale = cx.fresh("scale")
        lines += [f"poplar::Tensor {scale} = {g}.addConstant<float>(poplar::FLOAT, {{}}, 1.0f, {cx.debug(op, 'scale')});",
                  f"mapLinearly({g}, {scale}, 0, 1);",
                  f"popops::multiUpdateAdd({g}, {out}, {slices}, {offsets}, {scale}, {{{dim}}}, {{1}}, {prog}, popops::SlicePlan(), "
                  f"poplar::OptionFlags(), {cx.debug(op)});"]
    elif kind == "copy":
        lines.append(f"popops::multiUpdate({g}, {out}, {slices}, {offsets}, {{{dim}}}, {{1}}, {prog}, popops::SlicePlan(), "
                     f"poplar::OptionFlags(), {cx.debug(op)});")
    else:
        raise CodegenError(f"{cx.where(op)}: op '{kind}' has no emission (emitted: copy, add)")
    return lines

"""The C++ of ``popops_histogram``: ``popops::histogram`` counts, with the bins torch puts
each element in. Registered in ``compute.EMITTERS``.

- ``histc``: each element's bin as torch computes it, ``((x - lo) * bins) / (hi - lo)``
  truncated in float (outside ``[lo, hi]`` or NaN: -1, the last edge in the last bin),
  counted by ``popops::histogram`` at the half-integer levels; a range ``[0, 0]`` takes the
  data's minimum and maximum (``popops::reduce``), equal ends widened by 1.
- ``histogram``: ``popops::histogram`` at the bin edges (the given ones, or torch's
  ``linspace`` of the range, computed here as torch computes it in float), the elements
  equal to the last edge added to the last bin; ``density`` divides by the total, then by
  the bin widths (``popops::map``), as torch.

Refused by name: ``histogramdd``, weights, and ``histogram`` without a range (its edges are
a fused multiply-add ``linspace`` of the data's extremes, which ``popops::map`` cannot
reproduce exactly).

``popops_segment_reduce`` (``torch.segment_reduce``) is here too: each element's segment is
counted from the segment ends, then the elements reduce with ``multiUpdateAdd`` /
``multiUpdateMax`` into a table of segments.
"""

from __future__ import annotations

import math
import struct
from typing import Any

from torch_mlir import ir

from .compute import _dims, emits
from .errors import CodegenError
from .map_expr import _float_literal


def _f32(value: float) -> float:
    return struct.unpack("f", struct.pack("f", value))[0]


def _const(value: float) -> str:
    return f"pe::Const({_float_literal(_f32(value))})"


def _bin(kind: str, a: str, b: str) -> str:
    return f"pe::BinaryOp(pe::BinaryOpType::{kind}, {a}, {b})"


def _select(a: str, b: str, condition: str) -> str:  # condition ? a : b
    return f"pe::TernaryOp(pe::TernaryOpType::SELECT, {a}, {b}, {condition})"


def linspace(low: float, high: float, steps: int) -> list[float]:
    """torch.linspace(low, high, steps) in float32: the step in float, each edge the fused
    multiply-add ``start + step * i`` from the nearer end, rounded once."""
    start, end = _f32(low), _f32(high)
    step = _f32(_f32(end - start) / _f32(steps - 1)) if steps > 1 else 0.0
    half = steps // 2
    return [_f32(start + step * i) if i < half else _f32(end - step * (steps - i - 1)) for i in range(steps)]


def _segment_sizes(op: Any, name: str) -> list[int]:
    return list(ir.DenseI32ArrayAttr(op.operation.attributes[name]))


@emits("poplar.popops_histogram")
def emit_histogram(cx: Any, op: Any) -> list[str]:
    convention, bins, bounds = cx.attr(op, "convention"), cx.attr(op, "bins"), cx.attr(op, "range")
    x = op.operands[0]
    _, weights, given = _segment_sizes(op, "operandSegmentSizes")
    if convention == "histogramdd":
        raise CodegenError(f"{cx.where(op)}: a histogramdd has no emission yet (popops::histogram counts one dimension); "
                           "use torch.histogram or torch.histc per dimension")
    if weights:
        raise CodegenError(f"{cx.where(op)}: a weighted histogram has no emission yet (popops::histogram counts elements)")
    if cx.ptype(x) != "FLOAT" or cx.ptype(op.results[0]) != "FLOAT":
        raise CodegenError(f"{cx.where(op)} of {cx.ptype(x)} elements has no emission (emitted: FLOAT)")
    if not cx.shape(x) or 0 in cx.shape(x):
        raise CodegenError(f"{cx.where(op)} of an empty or rank-0 input has no emission")
    if convention == "histc":
        return _histc(cx, op, bins[0], bounds)
    if not bounds and not given:
        raise CodegenError(f"{cx.where(op)}: a histogram without a range has no emission (its edges are a fused "
                           "multiply-add linspace of the data's minimum and maximum, which popops::map cannot reproduce "
                           "exactly); give range=(min, max) or the bin edges")
    return _histogram(cx, op, bins[0], bounds, op.operands[1] if given else None)


def _histc(cx: Any, op: Any, bins: int, bounds: list[float]) -> list[str]:
    x, hist = op.operands[0], op.results[0]
    g, prog = cx.graph(op), cx.prog
    flat = f"{cx.name(x)}.flatten()"
    lines = [f"// torch.histc: each element's bin as torch computes it, ((x - lo) * {bins}) / (hi - lo) truncated in float",
             "// (-1 outside [lo, hi] or NaN), counted at the half-integer levels"]
    low, high = bounds
    if low == high == 0.0:
        lo_t, hi_t = cx.fresh("low"), cx.fresh("high")
        lines.append("// the range [0, 0]: the data's minimum and maximum, equal ends widened by 1")
        for name, kind in ((lo_t, "MIN"), (hi_t, "MAX")):
            lines.append(f"poplar::Tensor {name} = popops::reduce({g}, {flat}, poplar::FLOAT, {{0}}, "
                         f"popops::ReduceParams(popops::Operation::{kind}), {prog}, {cx.debug(op, kind.lower())});")
        equal = _bin("EQUAL", "pe::_1", "pe::_2")
        lo_w, hi_w = cx.fresh("low"), cx.fresh("high")
        lines += [f"poplar::Tensor {lo_w} = popops::map({g}, {_select(_bin('SUBTRACT', 'pe::_1', 'pe::Const(1.0f)'), 'pe::_1', equal)}, "
                  f"{{{lo_t}, {hi_t}}}, {prog}, {cx.debug(op, 'min')});",
                  f"poplar::Tensor {hi_w} = popops::map({g}, {_select(_bin('ADD', 'pe::_2', 'pe::Const(1.0f)'), 'pe::_2', equal)}, "
                  f"{{{lo_t}, {hi_t}}}, {prog}, {cx.debug(op, 'max')});"]
        lo_t, hi_t = lo_w, hi_w
        lo, hi, operands = "pe::_2", "pe::_3", f"{{{flat}, {lo_t}, {hi_t}}}"
    else:
        if low == high:
            low, high = low - 1.0, high + 1.0
        lo, hi, operands = _const(low), _const(high), f"{{{flat}}}"
    inside = _bin("LOGICAL_AND", _bin("GREATER_THAN_EQUAL", "pe::_1", lo), _bin("LESS_THAN_EQUAL", "pe::_1", hi))
    raw = f"pe::UnaryOp(pe::UnaryOpType::FLOOR, {_bin('DIVIDE', _bin('MULTIPLY', _bin('SUBTRACT', 'pe::_1', lo), _const(bins)), _bin('SUBTRACT', hi, lo))})"
    position = _select(_bin("MINIMUM", raw, _const(bins - 1)), "pe::Const(-1.0f)", inside)
    positions, data, levels, counts = cx.fresh("positions"), cx.fresh("data"), cx.fresh("levels"), cx.fresh("counts")
    lines += [f"poplar::Tensor {positions} = popops::map({g}, {position}, {operands}, {prog}, {cx.debug(op, 'bins')});",
              f"static const float {data}[] = {{{', '.join(_float_literal(i - 0.5) for i in range(bins + 1))}}};",
              f"poplar::Tensor {levels} = {g}.addConstant<float>(poplar::FLOAT, {{{bins + 1}}}, {data}, {cx.debug(op, 'levels')});",
              f"mapLinearly({g}, {levels}, 0, 1);",
              f"poplar::Tensor {counts} = popops::histogram({g}, {positions}, {levels}, false, {prog}, {cx.debug(op)});",
              f"poplar::Tensor {cx.define(hist)} = {counts}.slice(1, {bins + 1});  // without the out-of-range count"]
    return lines


def _histogram(cx: Any, op: Any, bins: int, bounds: list[float], given: Any) -> list[str]:
    x, hist, edges_result = op.operands[0], op.results[0], op.results[1]
    g, prog = cx.graph(op), cx.prog
    flat = f"{cx.name(x)}.flatten()"
    lines: list[str] = []
    if given is not None:
        edges = cx.name(given)
        lines.append("// the given bin edges")
    else:
        low, high = bounds
        if low == high:
            low, high = low - 0.5, high + 0.5
        edges, data = cx.fresh("edges"), cx.fresh("data")
        lines += [f"// the bin edges: torch.linspace({low!r}, {high!r}, {bins + 1}) in float",
                  f"static const float {data}[] = {{{', '.join(_float_literal(e) for e in linspace(low, high, bins + 1))}}};",
                  f"poplar::Tensor {edges} = {g}.addConstant<float>(poplar::FLOAT, {{{bins + 1}}}, {data}, {cx.debug(op, 'edges')});",
                  f"mapLinearly({g}, {edges}, 0, 1);"]
    counts, top, out = cx.fresh("counts"), cx.fresh("atLastEdge"), cx.define(hist)
    equal = "pe::Cast(pe::BinaryOp(pe::BinaryOpType::EQUAL, pe::_1, pe::_2), poplar::FLOAT)"
    lines += [f"// popops::histogram counts [edge i, edge i + 1); the last bin also takes the elements equal to the last edge",
              f"poplar::Tensor {counts} = popops::histogram({g}, {flat}, {edges}, false, {prog}, {cx.debug(op)});",
              f"poplar::Tensor {top} = popops::reduce({g}, popops::map({g}, {equal}, {{{flat}, {edges}.slice({bins}, {bins + 1})}}, {prog}, "
              f"{cx.debug(op, 'last')}), poplar::FLOAT, {{0}}, popops::ReduceParams(popops::Operation::ADD), {prog}, {cx.debug(op, 'last')});",
              f"poplar::Tensor {out} = popops::cast({g}, {counts}.slice(1, {bins + 1}), poplar::FLOAT, {prog}, {cx.debug(op, 'bins')});",
              f"popops::addInPlace({g}, {out}.slice({bins - 1}, {bins}), {top}.reshape({{1}}), {prog}, {cx.debug(op, 'last')});"]
    if cx.attr(op, "density"):
        total = cx.fresh("total")
        lines += ["// density: divided by the total, then by the bin widths, as torch",
                  f"poplar::Tensor {total} = popops::reduce({g}, {out}, poplar::FLOAT, {{0}}, popops::ReduceParams(popops::Operation::ADD), "
                  f"{prog}, {cx.debug(op, 'total')});",
                  f"popops::mapInPlace({g}, {_bin('DIVIDE', _bin('DIVIDE', 'pe::_1', 'pe::_2'), _bin('SUBTRACT', 'pe::_3', 'pe::_4'))}, "
                  f"{{{out}, {total}, {edges}.slice(1, {bins + 1}), {edges}.slice(0, {bins})}}, {prog}, {cx.debug(op, 'density')});"]
    lines.append(f"poplar::Tensor {cx.define(edges_result)} = {edges};")
    return lines


def _segment_rows(cx: Any, op: Any, data: Any, segments: Any) -> tuple[list[str], str, str, int, int, int, int]:
    """The lines computing each element's row in the [lines x segments] table ([L * length, 1]
    UNSIGNED_INT) and the segments' sizes ([lines, segments] FLOAT); returns them with the
    names and (lines, length, rest, segments)."""
    reduce, kind, axis = cx.attr(op, "reduce"), cx.attr(op, "segments_by"), cx.attr(op, "axis")
    if reduce == "prod":
        raise CodegenError(f"{cx.where(op)}: a product segment reduction has no emission (PopLibs has no multiplying "
                           "multiUpdate); use sum, mean, max or min")
    if cx.ptype(data) != "FLOAT":
        raise CodegenError(f"{cx.where(op)} of {cx.ptype(data)} elements has no emission (emitted: FLOAT)")
    shape, seg_shape = cx.shape(data), cx.shape(segments)
    lead, length, rest = math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:])
    count = seg_shape[-1] - (1 if kind == "offsets" else 0)
    g, prog = cx.graph(op), cx.prog
    seg = f"popops::cast({g}, {cx.name(segments)}.reshape({{{lead}, {seg_shape[-1]}}}), poplar::FLOAT, {prog}, {cx.debug(op, 'segments')})"
    ends, sizes, ids, mask, pos, base = (cx.fresh(n) for n in ("ends", "sizes", "segmentOf", "mask", "positions", "lineBase"))
    lines = [f"poplar::Tensor {sizes}, {ends};"]
    if kind == "lengths":
        values = ", ".join("true" if j <= s else "false" for s in range(count) for j in range(count))
        lines += [f"{sizes} = {seg};",
                  f"static const bool {mask}Data[] = {{{values}}};",
                  f"poplar::Tensor {mask} = {g}.addConstant<bool>(poplar::BOOL, {{{count}, {count}}}, {mask}Data, {cx.debug(op, 'mask')});",
                  f"mapLinearly({g}, {mask}, 0, 1);",
                  "// the segments' ends: sums of the lengths up to each",
                  f"{ends} = popops::reduce({g}, popops::map({g}, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_1, pe::Const(0.0f), pe::_2), "
                  f"{{{sizes}.expand({{1}}).broadcast({count}, 1), {mask}.expand({{0}}).broadcast({lead}, 0)}}, {prog}, {cx.debug(op, 'ends')}), "
                  f"poplar::FLOAT, {{2}}, popops::ReduceParams(popops::Operation::ADD), {prog}, {cx.debug(op, 'ends')});"]
    else:
        offsets = cx.fresh("offsets")
        lines += [f"poplar::Tensor {offsets} = {seg};",
                  f"{ends} = {offsets}.slice(1, {count + 1}, 1);",
                  f"{sizes} = popops::sub({g}, {ends}, {offsets}.slice(0, {count}, 1), {prog}, {cx.debug(op, 'sizes')});"]
    lines += [f"static const float {pos}Data[] = {{{', '.join(f'{p}.0f' for p in range(length))}}};",
              f"poplar::Tensor {pos} = {g}.addConstant<float>(poplar::FLOAT, {{{length}}}, {pos}Data, {cx.debug(op, 'positions')});",
              f"mapLinearly({g}, {pos}, 0, 1);",
              f"static const int {base}Data[] = {{{', '.join(str(i * count) for i in range(lead))}}};",
              f"poplar::Tensor {base} = {g}.addConstant<int>(poplar::INT, {{{lead}, 1}}, {base}Data, {cx.debug(op, 'lines')});",
              f"mapLinearly({g}, {base}, 0, 1);",
              "// each element's row in the table: its line's first row + the count of segment ends at or below its position",
              f"poplar::Tensor {ids} = popops::cast({g}, popops::add({g}, popops::reduce({g}, popops::map({g}, pe::Cast(pe::BinaryOp("
              f"pe::BinaryOpType::LESS_THAN_EQUAL, pe::_1, pe::_2), poplar::INT), {{{ends}.expand({{1}}).broadcast({length}, 1), "
              f"{pos}.expand({{0, 2}}).broadcast({lead}, 0).broadcast({count}, 2)}}, {prog}, {cx.debug(op, 'segment')}), poplar::INT, {{2}}, "
              f"popops::ReduceParams(popops::Operation::ADD), {prog}, {cx.debug(op, 'segment')}), {base}.broadcast({length}, 1), {prog}, "
              f"{cx.debug(op, 'segment')}), poplar::UNSIGNED_INT, {prog}, {cx.debug(op, 'segment')}).reshape({{{lead * length}, 1}});"]
    return lines, ids, sizes, lead, length, rest, count


@emits("poplar.popops_segment_reduce")
def emit_segment_reduce(cx: Any, op: Any) -> list[str]:
    """Each element's segment is the count of segment ends at or below its position (the ends
    a sum of the lengths, or the offsets after the first); the elements then reduce into a
    table of [lines x segments] rows with ``popops::multiUpdateAdd`` (sum, mean) or
    ``multiUpdateMax`` (max; min as the maximum of negated values) from ``initial`` or the
    reduction's identity. A mean divides by the segment's length (torch adds ``initial`` to
    the sum first; an empty segment is ``initial``, or NaN). ``prod`` is refused."""
    data, segments = op.operands
    reduce, initial = cx.attr(op, "reduce"), cx.attr(op, "initial")
    lines, ids, sizes, lead, length, rest, count = _segment_rows(cx, op, data, segments)
    g, prog = cx.graph(op), cx.prog
    identity = {"sum": 0.0, "mean": 0.0, "max": float("-inf"), "min": float("-inf")}[reduce]
    start = initial[0] if initial and reduce != "mean" else identity
    if reduce == "min" and initial:
        start = -initial[0]
    table, rows = cx.fresh("table"), cx.fresh("rows")
    plan = f"{{0}}, {{1}}, {prog}, popops::SlicePlan(), poplar::OptionFlags(), {cx.debug(op)}"
    lines += [f"poplar::Tensor {table} = {g}.addVariable(poplar::FLOAT, {{{lead * count}, {rest}}}, {cx.debug(op, 'table')});",
              f"mapLinearly({g}, {table}, 0, 1);",
              f"popops::mapInPlace({g}, pe::Const({_float_literal(start)}), {{{table}}}, {prog}, {cx.debug(op, 'start')});",
              f"poplar::Tensor {rows} = {cx.name(data)}.reshape({{{lead * length}, 1, {rest}}});"]
    if reduce in ("sum", "mean"):
        scale = cx.fresh("scale")
        lines += [f"poplar::Tensor {scale} = {g}.addConstant<float>(poplar::FLOAT, {{}}, 1.0f, {cx.debug(op, 'scale')});",
                  f"mapLinearly({g}, {scale}, 0, 1);",
                  f"popops::multiUpdateAdd({g}, {table}, {rows}, {ids}, {scale}, {plan});"]
    elif reduce == "max":
        lines.append(f"popops::multiUpdateMax({g}, {table}, {rows}, {ids}, {plan});")
    else:
        negate = "pe::UnaryOp(pe::UnaryOpType::NEGATE, pe::_1)"
        lines += ["// min(a, x) = -max(-a, -x): PopLibs has no minimum update",
                  f"popops::multiUpdateMax({g}, {table}, popops::map({g}, {negate}, {{{rows}}}, {prog}, {cx.debug(op, 'negate')}), {ids}, {plan});",
                  f"popops::mapInPlace({g}, {negate}, {{{table}}}, {prog}, {cx.debug(op, 'negate')});"]
    if reduce == "mean":
        by = f"{sizes}.reshape({{{lead * count}, 1}}).broadcast({rest}, 1)"
        if initial:
            expr = (f"pe::TernaryOp(pe::TernaryOpType::SELECT, pe::Const({_float_literal(initial[0])}), pe::BinaryOp(pe::BinaryOpType::DIVIDE, "
                    f"pe::BinaryOp(pe::BinaryOpType::ADD, pe::_1, pe::Const({_float_literal(initial[0])})), pe::_2), "
                    f"pe::BinaryOp(pe::BinaryOpType::EQUAL, pe::_2, pe::Const(0.0f)))")
        else:
            expr = "pe::BinaryOp(pe::BinaryOpType::DIVIDE, pe::_1, pe::_2)"
        lines.append(f"popops::mapInPlace({g}, {expr}, {{{table}, {by}}}, {prog}, {cx.debug(op, 'mean')});")
    return lines + [f"poplar::Tensor {cx.define(op.results[0])} = {table}.reshape({_dims(cx.shape(op.results[0]))});"]


@emits("poplar.popops_segment_reduce_grad")
def emit_segment_reduce_grad(cx: Any, op: Any) -> list[str]:
    """Each element takes its segment's gradient (``popops::multiSlice`` of the gradient's
    table rows): as is for sum, divided by the segment's length for mean; for max and min only
    the elements equal to the segment's result (NaN equal to NaN) take it, split evenly among
    them (their count per segment by ``multiUpdateAdd``) where it is positive, as eager's ATen
    kernel does (a negative gradient goes whole to every tied element)."""
    grad, output, data, segments = op.operands
    reduce = cx.attr(op, "reduce")
    lines, ids, sizes, lead, length, rest, count = _segment_rows(cx, op, data, segments)
    g, prog = cx.graph(op), cx.prog
    plan = f"{{0}}, {{1}}, {prog}, popops::SlicePlan(), poplar::OptionFlags(), {cx.debug(op)}"
    table = f"{{{lead * count}, {rest}}}"
    mine = cx.fresh("segmentGrad")
    lines.append(f"poplar::Tensor {mine} = popops::multiSlice({g}, {cx.name(grad)}.reshape({table}), {ids}, {plan}).reshape({{{lead * length}, {rest}}});")
    result = cx.define(op.results[0])
    out_shape = _dims(cx.shape(op.results[0]))
    if reduce == "sum":
        return lines + [f"poplar::Tensor {result} = {mine}.reshape({out_shape});"]
    if reduce == "mean":
        size = f"popops::multiSlice({g}, {sizes}.reshape({{{lead * count}, 1}}), {ids}, {plan}).reshape({{{lead * length}, 1}}).broadcast({rest}, 1)"
        return lines + [f"poplar::Tensor {result} = popops::div({g}, {mine}, {size}, {prog}, {cx.debug(op, 'mean')}).reshape({out_shape});"]
    best, hits, ties, scale = cx.fresh("extremum"), cx.fresh("hits"), cx.fresh("ties"), cx.fresh("scale")
    same = ("pe::Cast(pe::BinaryOp(pe::BinaryOpType::LOGICAL_OR, pe::BinaryOp(pe::BinaryOpType::EQUAL, pe::_1, pe::_2), "
            "pe::BinaryOp(pe::BinaryOpType::LOGICAL_AND, pe::UnaryOp(pe::UnaryOpType::IS_NAN, pe::_1), pe::UnaryOp(pe::UnaryOpType::IS_NAN, pe::_2))), "
            "poplar::FLOAT)")
    return lines + [
        "// the elements equal to their segment's result share its gradient evenly",
        f"poplar::Tensor {best} = popops::multiSlice({g}, {cx.name(output)}.reshape({table}), {ids}, {plan}).reshape({{{lead * length}, {rest}}});",
        f"poplar::Tensor {hits} = popops::map({g}, {same}, {{{cx.name(data)}.reshape({{{lead * length}, {rest}}}), {best}}}, {prog}, {cx.debug(op, 'hits')});",
        f"poplar::Tensor {ties} = {g}.addVariable(poplar::FLOAT, {table}, {cx.debug(op, 'ties')});",
        f"mapLinearly({g}, {ties}, 0, 1);",
        f"popops::zero({g}, {ties}, {prog}, {cx.debug(op, 'ties')});",
        f"poplar::Tensor {scale} = {g}.addConstant<float>(poplar::FLOAT, {{}}, 1.0f, {cx.debug(op, 'scale')});",
        f"mapLinearly({g}, {scale}, 0, 1);",
        f"popops::multiUpdateAdd({g}, {ties}, {hits}.reshape({{{lead * length}, 1, {rest}}}), {ids}, {scale}, {plan});",
        "// as eager (ATen divides only where the gradient is positive): a negative gradient is not split",
        f"poplar::Tensor {result} = popops::map({g}, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::TernaryOp(pe::TernaryOpType::SELECT, "
        f"pe::BinaryOp(pe::BinaryOpType::DIVIDE, pe::_2, pe::_3), pe::_2, pe::BinaryOp(pe::BinaryOpType::GREATER_THAN, pe::_2, pe::Const(0.0f))), "
        f"pe::Const(0.0f), pe::BinaryOp(pe::BinaryOpType::NOT_EQUAL, pe::_1, pe::Const(0.0f))), "
        f"{{{hits}, {mine}, popops::multiSlice({g}, {ties}, {ids}, {plan}).reshape({{{lead * length}, {rest}}})}}, {prog}, {cx.debug(op, 'share')})"
        f".reshape({out_shape});"]

"""The C++ of the sorting and scan ops: ``popops_sort_key_value`` as
``popops::sortKeyValueInPlace`` on copies of the keys and values, the cumulative sum and
product as log-step scans of ``popops::addInPlace`` / ``mulInPlace``, the cumulative maximum and
minimum as log-step scans of (value, index) pairs with ``popops::map`` selects, the cumulative
log-sum-exp as a log-step scan of the stable log-add-exp, searchsorted as a count of the
elements below each value, the order statistics from a sorted copy of the line. Registered
in ``compute.EMITTERS``."""

from __future__ import annotations

from typing import Any

from .compute import _dims, emits
from .errors import CodegenError


@emits("poplar.popops_sort_key_value")
def emit_sort_key_value(cx: Any, op: Any) -> list[str]:
    keys, values = op.operands
    sorted_keys, sorted_values = op.results
    if cx.attr(op, "stable"):
        raise CodegenError(f"{cx.where(op)}: a stable sort has no emission (popops::sortKeyValue does not promise to keep "
                           "the order of equal keys); sort with stable=False")
    dim, descending = cx.attr(op, "dim"), cx.attr(op, "descending")
    g, prog = cx.graph(op), cx.prog
    if not cx.shape(keys):
        raise CodegenError(f"{cx.where(op)} of a rank-0 key has no emission (popops sorts along a dimension)")
    k, v = cx.fresh("keys"), cx.fresh("values")
    lines = []
    for name, value in ((k, keys), (v, values)):
        lines += [f"poplar::Tensor {name} = {g}.addVariable(poplar::{cx.ptype(value)}, {_dims(cx.shape(value))}, {cx.debug(op, name)});",
                  f"mapLinearly({g}, {name}, 0, 1);",
                  f"{prog}.add(poplar::program::Copy({cx.name(value)}, {name}));"]
    lines.append(f"popops::sortKeyValueInPlace({g}, {k}, {v}, {dim}, {prog}, {cx.debug(op)});")
    # popops sorts ascending with NaN last: descending is the reverse view (NaN first, as torch.sort)
    view = f".reverse({dim})" if descending else ""
    lines += [f"poplar::Tensor {cx.define(sorted_keys)} = {k}{view};", f"poplar::Tensor {cx.define(sorted_values)} = {v}{view};"]
    return lines


@emits("poplar.popops_cumulative_sum", "poplar.popops_cumulative_product")
def emit_cumulative(cx: Any, op: Any) -> list[str]:
    """A log-step (Hillis-Steele) inclusive scan: ``ceil(log2(n))`` steps, each a copy of the
    running result with the result shifted by ``shift`` along ``dim`` added (multiplied) in."""
    x, result = op.operands[0], op.results[0]
    shape, dim = cx.shape(x), cx.attr(op, "dim")
    g, prog, ptype = cx.graph(op), cx.prog, cx.ptype(result)
    scan, out = cx.fresh("scan"), cx.define(result)
    lines = [f"poplar::Tensor {scan} = popops::cast({g}, {cx.name(x)}, poplar::{ptype}, {prog}, {cx.debug(op, 'cast')});"]
    if shape and shape[dim] > 1:
        n, fn = shape[dim], "addInPlace" if op.operation.name.endswith("_sum") else "mulInPlace"
        lines += [f"for (unsigned shift = 1; shift < {n}; shift *= 2) {{",
                  f"  poplar::Tensor next = {g}.addVariable(poplar::{ptype}, {_dims(shape)}, {cx.debug(op, 'step')});",
                  f"  mapLinearly({g}, next, 0, 1);",
                  f"  {prog}.add(poplar::program::Copy({scan}, next));",
                  f"  popops::{fn}({g}, next.slice(shift, {n}, {dim}), {scan}.slice(0, {n} - shift, {dim}), {prog}, {cx.debug(op)});",
                  f"  {scan} = next;",
                  "}"]
    return lines + [f"poplar::Tensor {out} = {scan};"]


@emits("poplar.popops_top_k")
def emit_top_k(cx: Any, op: Any) -> list[str]:
    x = op.operands[0]
    values, indices = op.results
    if not cx.attr(op, "sorted"):
        raise CodegenError(f"{cx.where(op)}: an unsorted top-k has no emission (its order is torch.topk's own); "
                           "use sorted=True")
    shape, dim, k, largest = cx.shape(x), cx.attr(op, "dim"), cx.attr(op, "k"), cx.attr(op, "largest")
    if not shape:
        raise CodegenError(f"{cx.where(op)} of a rank-0 input has no emission (popops::topK works along a dimension)")
    perm = [d for d in range(len(shape)) if d != dim] + [dim]
    back = [perm.index(d) for d in range(len(shape))]
    g, prog, pair = cx.graph(op), cx.prog, cx.fresh("topK")
    order = "DESCENDING" if largest else "ASCENDING"
    shuffled = f".dimShuffle({_dims(perm)})" if perm != list(range(len(shape))) else ""
    restore = f".dimShuffle({_dims(back)})" if shuffled else ""
    return [f"// popops::topKWithPermutation works along the innermost dimension" + (f": dim {dim} moved there and back" if shuffled else ""),
            f"auto {pair} = popops::topKWithPermutation({g}, {prog}, {cx.name(x)}{shuffled}, "
            f"popops::TopKParams({k}, {'true' if largest else 'false'}, popops::SortOrder::{order}), {cx.debug(op)});",
            f"poplar::Tensor {cx.define(values)} = {pair}.first{restore};",
            f"poplar::Tensor {cx.define(indices)} = popops::cast({g}, {pair}.second, poplar::{cx.ptype(indices)}, {prog}, "
            f"{cx.debug(op, 'indices')}){restore};"]


@emits("poplar.popops_cumulative_max", "poplar.popops_cumulative_min")
def emit_cumulative_extremum(cx: Any, op: Any) -> list[str]:
    """A log-step (Hillis-Steele) scan over (value, index) pairs: at each step an element
    keeps its own pair unless the pair ``shift`` before it wins (``popops::map`` computes
    which, ``popops::mapInPlace`` selects). The later element takes over when it is at least
    as large (small) or NaN, so ties and NaN give the last position, as torch.cummax."""
    x = op.operands[0]
    values, indices = op.results
    shape, dim = cx.shape(x), cx.attr(op, "dim")
    g, prog, ptype = cx.graph(op), cx.prog, cx.ptype(values)
    val, idx = cx.fresh("scanValues"), cx.fresh("scanIndices")
    n = shape[dim] if shape else 1
    positions, data = cx.fresh("positions"), cx.fresh("data")
    before, after = shape[:dim], shape[dim + 1:]
    along = f"{positions}.reshape({_dims([1] * len(before) + [n] + [1] * len(after))})" if shape else f"{positions}.reshape({{}})"
    for d, size in enumerate(before + [1] + after):
        if shape and size != 1:
            along += f".broadcast({size}, {d})"
    lines = [f"// each element's position along dim {dim}",
             f"static const int {data}[] = {{{', '.join(map(str, range(n)))}}};",
             f"poplar::Tensor {positions} = {g}.addConstant<int>(poplar::INT, {{{n}}}, {data}, {cx.debug(op, 'positions')});",
             f"mapLinearly({g}, {positions}, 0, 1);",
             f"poplar::Tensor {val} = popops::cast({g}, {cx.name(x)}, poplar::{ptype}, {prog}, {cx.debug(op, 'values')});",
             f"poplar::Tensor {idx} = popops::cast({g}, {along}, poplar::INT, "
             f"{prog}, {cx.debug(op, 'indices')});"]
    if shape and n > 1:
        compare = "GREATER_THAN_EQUAL" if op.operation.name.endswith("_max") else "LESS_THAN_EQUAL"
        # the later element (_1) takes over when it is at least as large (small) as the earlier (_2), or NaN
        later = f"pe::BinaryOp(pe::BinaryOpType::{compare}, pe::_1, pe::_2)"
        if ptype in ("FLOAT", "HALF"):
            later = f"pe::BinaryOp(pe::BinaryOpType::LOGICAL_OR, {later}, pe::UnaryOp(pe::UnaryOpType::IS_NAN, pe::_1))"
        lines += [f"for (unsigned shift = 1; shift < {n}; shift *= 2) {{",
                  f"  poplar::Tensor later = popops::map({g}, {later}, {{{val}.slice(shift, {n}, {dim}), {val}.slice(0, {n} - shift, {dim})}}, "
                  f"{prog}, {cx.debug(op, 'later')});",
                  f"  poplar::Tensor nextValues = {g}.addVariable(poplar::{ptype}, {_dims(shape)}, {cx.debug(op, 'values')});",
                  f"  poplar::Tensor nextIndices = {g}.addVariable(poplar::INT, {_dims(shape)}, {cx.debug(op, 'indices')});",
                  f"  mapLinearly({g}, nextValues, 0, 1);",
                  f"  mapLinearly({g}, nextIndices, 0, 1);",
                  f"  {prog}.add(poplar::program::Copy({val}, nextValues));",
                  f"  {prog}.add(poplar::program::Copy({idx}, nextIndices));",
                  "  // SELECT(a, b, c) is c ? a : b: keep the element's own pair where it is the later winner",
                  f"  popops::mapInPlace({g}, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_1, pe::_2, pe::_3), "
                  f"{{nextValues.slice(shift, {n}, {dim}), {val}.slice(0, {n} - shift, {dim}), later}}, {prog}, {cx.debug(op, 'values')});",
                  f"  popops::mapInPlace({g}, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_1, pe::_2, pe::_3), "
                  f"{{nextIndices.slice(shift, {n}, {dim}), {idx}.slice(0, {n} - shift, {dim}), later}}, {prog}, {cx.debug(op, 'indices')});",
                  f"  {val} = nextValues;",
                  f"  {idx} = nextIndices;",
                  "}"]
    return lines + [f"poplar::Tensor {cx.define(values)} = {val};",
                    f"poplar::Tensor {cx.define(indices)} = popops::cast({g}, {idx}, poplar::{cx.ptype(indices)}, {prog}, "
                    f"{cx.debug(op, 'cast')});"]


def _log_add_exp() -> str:
    """log(exp(_1) + exp(_2)) as torch computes it: ``max + log1p(exp(min - max))``; two
    equal infinities give that infinity, a NaN gives NaN."""
    def op(kind: str, *args: str) -> str:
        group = "UnaryOp" if len(args) == 1 else "BinaryOp"
        return f"pe::{group}(pe::{group}Type::{kind}, {', '.join(args)})"

    high, low = op("MAXIMUM", "pe::_1", "pe::_2"), op("MINIMUM", "pe::_1", "pe::_2")
    stable = op("ADD", high, op("LOGARITHM_ONE_PLUS", op("EXPONENT", op("SUBTRACT", low, high))))
    same_infinity = op("LOGICAL_AND", op("EQUAL", "pe::_1", "pe::_2"), op("IS_INF", "pe::_1"))
    nan = op("LOGICAL_OR", op("IS_NAN", "pe::_1"), op("IS_NAN", "pe::_2"))
    select = "pe::TernaryOp(pe::TernaryOpType::SELECT, {}, {}, {})"
    return select.format(op("ADD", "pe::_1", "pe::_2"), select.format("pe::_1", stable, same_infinity), nan)


@emits("poplar.popops_cumulative_log_sum_exp")
def emit_cumulative_log_sum_exp(cx: Any, op: Any) -> list[str]:
    """A log-step (Hillis-Steele) scan of the stable log-add-exp (``popops::mapInPlace``): at
    each step an element combines with the running value ``shift`` before it."""
    x, result = op.operands[0], op.results[0]
    shape, dim = cx.shape(x), cx.attr(op, "dim")
    g, prog, ptype = cx.graph(op), cx.prog, cx.ptype(result)
    if ptype != "FLOAT":
        raise CodegenError(f"{cx.where(op)} of {ptype} elements has no emission (emitted: FLOAT)")
    scan, out = cx.fresh("scan"), cx.define(result)
    lines = [f"poplar::Tensor {scan} = popops::cast({g}, {cx.name(x)}, poplar::{ptype}, {prog}, {cx.debug(op, 'copy')});"]
    if shape and shape[dim] > 1:
        n = shape[dim]
        lines += [f"for (unsigned shift = 1; shift < {n}; shift *= 2) {{",
                  f"  poplar::Tensor next = {g}.addVariable(poplar::{ptype}, {_dims(shape)}, {cx.debug(op, 'step')});",
                  f"  mapLinearly({g}, next, 0, 1);",
                  f"  {prog}.add(poplar::program::Copy({scan}, next));",
                  f"  // log(exp(later) + exp(earlier)), stably",
                  f"  popops::mapInPlace({g}, {_log_add_exp()},",
                  f"      {{next.slice(shift, {n}, {dim}), {scan}.slice(0, {n} - shift, {dim})}}, {prog}, {cx.debug(op)});",
                  f"  {scan} = next;",
                  "}"]
    return lines + [f"poplar::Tensor {out} = {scan};"]


@emits("poplar.popops_search_sorted")
def emit_search_sorted(cx: Any, op: Any) -> list[str]:
    """The number of the line's elements ``< x`` (``right``: ``<= x``), NaN above every
    number: a ``popops::map`` compare of every element with every line element and a
    ``popops::reduce`` sum. On a sorted line that is the binary search's position; it does not
    depend on the line's order, so a sorter is not read."""
    sequence, x = op.operands[0], op.operands[1]
    result = op.results[0]
    shape, line = cx.shape(x), cx.shape(sequence)
    m, rank = line[-1], len(shape)
    g, prog = cx.graph(op), cx.prog
    if len(line) == 1:
        seq = f"{cx.name(sequence)}.reshape({_dims([1] * rank + [m])})"
        for d, size in enumerate(shape):
            seq += f".broadcast({size}, {d})" if size != 1 else ""
    else:
        seq = f"{cx.name(sequence)}.reshape({_dims(shape[:-1] + [1, m])})" + (f".broadcast({shape[-1]}, {rank - 1})" if shape[-1] != 1 else "")
    values = f"{cx.name(x)}.expand({{{rank}}})" + (f".broadcast({m}, {rank})" if m != 1 else "")

    def op_(kind: str, *args: str) -> str:
        group = "UnaryOp" if len(args) == 1 else "BinaryOp"
        return f"pe::{group}(pe::{group}Type::{kind}, {', '.join(args)})"

    compare = op_("LESS_THAN_EQUAL" if cx.attr(op, "right") else "LESS_THAN", "pe::_1", "pe::_2")
    if cx.ptype(x) in ("FLOAT", "HALF"):  # NaN is above every number: a NaN element is below no x, every element is below a NaN x
        number = op_("LOGICAL_NOT", op_("IS_NAN", "pe::_1"))
        compare = op_("LOGICAL_OR", op_("IS_NAN", "pe::_2"), op_("LOGICAL_AND", number, compare)) if cx.attr(op, "right") else \
            op_("LOGICAL_AND", number, op_("LOGICAL_OR", op_("IS_NAN", "pe::_2"), compare))
    below = cx.fresh("below")
    return ["// each result counts the line's elements below x (one compare per element pair, then a sum)",
            f"poplar::Tensor {below} = popops::map({g}, pe::Cast({compare}, poplar::INT), {{{seq}, {values}}}, {prog}, {cx.debug(op, 'compare')});",
            f"poplar::Tensor {cx.define(result)} = popops::cast({g}, popops::reduce({g}, {below}, poplar::INT, {{{rank}}}, "
            f"popops::ReduceParams(popops::Operation::ADD), {prog}, {cx.debug(op, 'count')}), poplar::{cx.ptype(result)}, {prog}, {cx.debug(op)});"]


@emits("poplar.popops_order_statistic")
def emit_order_statistic(cx: Any, op: Any) -> list[str]:
    """kth_value / median / nan_median: ``popops::sortKeyValueInPlace`` of a copy of the line
    with its positions, then the sorted line's element at the statistic's place (for
    nan_median a place that depends on the line's count of numbers: picked with a
    ``popops::map`` select and a sum). A median of a line holding NaN is NaN at its first
    NaN. Of repeated values, the position is the sort's (torch's own is its selection
    algorithm's). ``mode`` is refused."""
    x = op.operands[0]
    values, indices = op.results
    statistic, dim, k = cx.attr(op, "statistic"), cx.attr(op, "dim"), cx.attr(op, "k")
    shape = cx.shape(x)
    if statistic == "mode":
        raise CodegenError(f"{cx.where(op)}: torch.mode has no emission yet (its value and position rules need a "
                           "run-length count of the sorted line)")
    g, prog, ptype = cx.graph(op), cx.prog, cx.ptype(x)
    out_shape = cx.shape(values)
    if not shape:
        return [f"poplar::Tensor {cx.define(values)} = {cx.name(x)};",
                f"poplar::Tensor {cx.define(indices)} = {g}.addConstant<int>(poplar::{cx.ptype(indices)}, {{}}, 0, {cx.debug(op, 'index')});",
                f"mapLinearly({g}, {cx.name(indices)}, 0, 1);"]
    size, rank = shape[dim], len(shape)
    reduced = [s for d, s in enumerate(shape) if d != dim]
    data, positions, keys, at = cx.fresh("data"), cx.fresh("positions"), cx.fresh("keys"), cx.fresh("at")
    along = f"{positions}.reshape({_dims([size if d == dim else 1 for d in range(rank)])})"
    for d, n in enumerate(shape):
        along += f".broadcast({n}, {d})" if d != dim and n != 1 else ""
    lines = [f"static const int {data}[] = {{{', '.join(map(str, range(size)))}}};",
             f"poplar::Tensor {positions} = {g}.addConstant<int>(poplar::INT, {{{size}}}, {data}, {cx.debug(op, 'positions')});",
             f"mapLinearly({g}, {positions}, 0, 1);"]
    for name, source, kind in ((keys, cx.name(x), ptype), (at, along, "INT")):
        lines += [f"poplar::Tensor {name} = {g}.addVariable(poplar::{kind}, {_dims(shape)}, {cx.debug(op, name)});",
                  f"mapLinearly({g}, {name}, 0, 1);",
                  f"{prog}.add(poplar::program::Copy({source}, {name}));"]
    lines += [f"popops::sortKeyValueInPlace({g}, {keys}, {at}, {dim}, {prog}, {cx.debug(op, 'sort')});  // NaN sorts last"]
    value, index = cx.fresh("value"), cx.fresh("index")
    floating = ptype in ("FLOAT", "HALF")
    if statistic in ("kth_value", "median"):
        place = k - 1 if statistic == "kth_value" else (size - 1) // 2
        lines += [f"poplar::Tensor {value} = {keys}.slice({place}, {place + 1}, {dim}).reshape({_dims(reduced)});",
                  f"poplar::Tensor {index} = {at}.slice({place}, {place + 1}, {dim}).reshape({_dims(reduced)});"]
        if statistic == "median" and floating:
            last, first = cx.fresh("last"), cx.fresh("firstNaN")
            nan = "pe::UnaryOp(pe::UnaryOpType::IS_NAN, pe::_2)"
            lines += ["// a line holding NaN: NaN (its last sorted key) at the position of its first NaN",
                      f"poplar::Tensor {last} = {keys}.slice({size - 1}, {size}, {dim}).reshape({_dims(reduced)});",
                      f"poplar::Tensor {first} = popops::reduce({g}, popops::map({g}, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_2, "
                      f"pe::Const({size}), pe::UnaryOp(pe::UnaryOpType::IS_NAN, pe::_1)), {{{cx.name(x)}, {along}}}, {prog}, {cx.debug(op, 'nan')}), "
                      f"poplar::INT, {{{dim}}}, popops::ReduceParams(popops::Operation::MIN), {prog}, {cx.debug(op, 'nan')});",
                      f"{value} = popops::map({g}, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_2, pe::_1, {nan}), {{{value}, {last}}}, {prog}, "
                      f"{cx.debug(op, 'nan')});",
                      f"{index} = popops::map({g}, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_3, pe::_1, {nan}), {{{index}, {last}, {first}}}, "
                      f"{prog}, {cx.debug(op, 'nan')});"]
    elif statistic == "nan_median":
        count, target = cx.fresh("numbers"), cx.fresh("place")
        number = "pe::Cast(pe::UnaryOp(pe::UnaryOpType::LOGICAL_NOT, pe::UnaryOp(pe::UnaryOpType::IS_NAN, pe::_1)), poplar::INT)"
        chosen = "pe::BinaryOp(pe::BinaryOpType::EQUAL, pe::_2, pe::_3)"
        place = f"{target}.expand({{{dim}}})" + (f".broadcast({size}, {dim})" if size != 1 else "")
        lines += ["// the lower median of the line's numbers: the sorted line's element at (numbers - 1) / 2 (0 when all are NaN)",
                  f"poplar::Tensor {count} = popops::reduce({g}, popops::map({g}, {number}, {{{cx.name(x)}}}, {prog}, {cx.debug(op, 'numbers')}), "
                  f"poplar::INT, {{{dim}}}, popops::ReduceParams(popops::Operation::ADD), {prog}, {cx.debug(op, 'numbers')});",
                  f"poplar::Tensor {target} = popops::map({g}, pe::BinaryOp(pe::BinaryOpType::MAXIMUM, pe::BinaryOp(pe::BinaryOpType::DIVIDE, "
                  f"pe::BinaryOp(pe::BinaryOpType::SUBTRACT, pe::_1, pe::Const(1)), pe::Const(2)), pe::Const(0)), {{{count}}}, {prog}, {cx.debug(op, 'place')});",
                  f"poplar::Tensor {value} = popops::reduce({g}, popops::map({g}, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_1, "
                  f"pe::Const(0.0f), {chosen}), {{{keys}, {along}, {place}}}, {prog}, {cx.debug(op, 'value')}), poplar::{ptype}, {{{dim}}}, "
                  f"popops::ReduceParams(popops::Operation::ADD), {prog}, {cx.debug(op, 'value')});",
                  f"poplar::Tensor {index} = popops::reduce({g}, popops::map({g}, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_1, "
                  f"pe::Const(0), {chosen}), {{{at}, {along}, {place}}}, {prog}, {cx.debug(op, 'index')}), poplar::INT, {{{dim}}}, "
                  f"popops::ReduceParams(popops::Operation::ADD), {prog}, {cx.debug(op, 'index')});"]
    else:
        raise CodegenError(f"{cx.where(op)}: statistic '{statistic}' has no emission")
    return lines + [f"poplar::Tensor {cx.define(values)} = {value}.reshape({_dims(out_shape)});",
                    f"poplar::Tensor {cx.define(indices)} = popops::cast({g}, {index}, poplar::{cx.ptype(indices)}, {prog}, "
                    f"{cx.debug(op, 'indices')}).reshape({_dims(out_shape)});"]

"""poplar-fuse-elementwise: chains of element-wise ops become one ``popops_map``
expression, as Poplar's ``popops::map`` expression trees fuse them.

Input: a ``poplar.graph`` (after ``poplar-plan-in-place``, whose update maps are in
place by then, and ``poplar-fuse-linear``, whose bias adds are linear ops by then).
Output: the same graph where each element-wise op whose result only one element-wise
op reads is part of that op's expression: ``t = mul(x, 0.5); y = add(t, 1.0)`` is one
``popops_map`` of ``add(mul(_1, 0.5), 1.0)``. The IPU Model evaluates a map without
materialising its intermediates (``runtime/kernels/fused_map.py``) and gives the same
numbers as the ops one by one.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from torch_mlir import ir
from torch_mlir.dialects import ext

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.dialects._base import build
from ipu_mlir.dialects.poplar.popops import format_map_expression, parse_map_expression
from ipu_mlir.dialects.poplar.program_order import graphs_of, run_blocks

from ..pass_base import Diagnostics, ModulePass
from ..poplar_execution import carry_attributes, producer

# popops_map takes at most three operands (in1, in2, in3); a fused expression is also
# bounded in size and depth so that every later reader (the verifier's parser, the
# runtime's planner, the C++ emitter) stays far from Python's recursion limit.
MAX_OPERANDS = 3
MAX_CALLS = 48
MAX_DEPTH = 16

# Float element types a fused chain may compute in (integer and boolean chains keep
# their ops: the map's literal typing differs between integer and float operands).
_FLOATS = ("f16", "bf16", "f32", "f64")

# Element-wise ops other than popops_map, as expressions over their operands. The
# gradients are the expressions whose torch evaluation equals the ATen kernel bit for
# bit (tanh's gradient is not among them: ATen computes it with a fused multiply-add).
_BINARY = {"poplar.popops_add": "add", "poplar.popops_sub": "sub", "poplar.popops_mul": "mul",
           "poplar.popops_div": "div"}
_NONLINEARITIES = {"relu": "relu(_1)", "tanh": "tanh(_1)", "sigmoid": "sigmoid(_1)"}
_NONLINEARITY_GRADS = {"relu": "select(le(_2, 0.0), 0.0, _1)", "sigmoid": "mul(mul(_1, sub(1.0, _2)), _2)"}

# Functions by the kind of value they give: the operands' float type (T), a boolean
# (B); a literal is S. A chain is fused only where every step's kind is known.
_SAME_TYPE = frozenset({
    "neg", "abs", "exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid", "relu",
    "erf", "floor", "ceil", "round", "trunc", "sign", "reciprocal", "square", "atan", "asin", "acos", "asinh",
    "acosh", "atanh", "sinh", "cosh", "log2", "log10", "add", "sub", "mul", "div", "pow", "max", "min", "atan2",
    "clamp"})
_COMPARISONS = frozenset({"eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf"})
_LOGICAL = frozenset({"and", "or", "xor", "not"})


@dataclasses.dataclass
class _Group:
    """A consumer and the producers fused into it (indices in the run block)."""

    tree: tuple
    operands: list[ir.Value]
    first: int  # the earliest member's index: its operands are read at the consumer's place
    members: list[int] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class FuseElementwise(ModulePass):
    """Fuse chains of element-wise ops into one poplar.popops_map expression each.

    Preconditions: a poplar.graph. Element-wise ops are popops_map, popops_add / sub /
    mul / div, popnn_nonlinearity of kind relu, tanh or sigmoid, and
    popnn_nonlinearity_grad of kind relu or sigmoid. Within one run block (a function
    body, the stages of a pipeline.schedule in stage order, a program body), a producer
    is fused into its consumer when:
    - its result has exactly one use, the consumer, in the same block;
    - both carry the same placement attributes (pipeline.stage, pipeline.ipu,
      pipeline.phase, any other dialect attribute but poplar.cycles);
    - no op between the earliest fused op and the consumer may write a tensor (an op
      without the Pure trait: copies, in-place updates, calls, ...), since the fused op
      reads every operand where the consumer was;
    - the producer's result has the consumer's result shape (the operands of either may
      broadcast, as they did), and the producer computes in one float type T (f16,
      bf16, f32, f64) with every operand of both of type T or i1 (conditions); a cast
      ends a chain;
    - the fused expression has at most 3 operands (popops_map's in1, in2, in3), 48
      function calls and depth 16.
    The fused op replaces the consumer (its attributes kept); the producers go. In-place
    maps (popops_map_in_place) are neither producers nor consumers. The fused expression
    computes what the ops computed, rounding for rounding: a product fused into the
    second operand of an add or sub is written ``add(mul(..), a)`` / ``add(neg(mul(..)),
    a)``, since the IPU Model computes ``add(a, mul(b, c))`` as torch's scaled add (one
    rounding, as eager optimizers do) where the two ops rounded twice.

    Arguments: none.
    """

    name: ClassVar[str] = "poplar-fuse-elementwise"

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        for graph in graphs_of(module):
            for ops in list(run_blocks(graph)):
                _fuse_block(ops)


def _expression(op: ir.Operation) -> tuple | None:
    """The element-wise expression an op computes over its operands, or None."""
    name = op.name
    if name == "poplar.popops_map":
        try:
            return parse_map_expression(ir.StringAttr(op.attributes["expr"]).value)
        except (ValueError, RecursionError):  # the verifier reports it
            return None
    if name in _BINARY:
        return ("call", _BINARY[name], [("arg", 1), ("arg", 2)])
    if name in ("poplar.popnn_nonlinearity", "poplar.popnn_nonlinearity_grad"):
        table = _NONLINEARITIES if name == "poplar.popnn_nonlinearity" else _NONLINEARITY_GRADS
        text = table.get(ir.StringAttr(op.attributes["kind"]).value)
        return None if text is None else parse_map_expression(text)
    return None


def _element(value: ir.Value) -> str:
    return str(ir.RankedTensorType(value.type).element_type)


def _shape(value: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(value.type).shape)


def _kind(node: tuple, operand_kinds: list[str]) -> str | None:
    """T (the float type), B (i1) or S (a literal) for the value of ``node``, None when
    the chain rules do not know it."""
    if node[0] == "arg":
        return operand_kinds[node[1] - 1]
    if node[0] == "const":
        return "S"
    name, kinds = node[1], [_kind(child, operand_kinds) for child in node[2]]
    if None in kinds:
        return None
    if name in _SAME_TYPE:
        return None if "B" in kinds else ("T" if "T" in kinds else "S")
    if name in _COMPARISONS:
        return None if "B" in kinds else "B"
    if name in _LOGICAL:
        return "B" if all(k == "B" for k in kinds) else None
    if name == "select":
        condition, *branches = kinds
        if condition != "B" or "B" in branches:
            return None
        return "T" if "T" in branches else "S"
    return None


def _size(node: tuple, depth: int = 1) -> tuple[int, int]:
    """(function calls, depth) of an expression."""
    if node[0] != "call":
        return 0, depth
    calls, deepest = 1, depth
    for child in node[2]:
        c, d = _size(child, depth + 1)
        calls, deepest = calls + c, max(deepest, d)
    return calls, deepest


def _renumber(node: tuple, numbers: dict[int, int]) -> tuple:
    if node[0] == "arg":
        return ("arg", numbers[node[1]])
    if node[0] == "call":
        return ("call", node[1], [_renumber(child, numbers) for child in node[2]])
    return node


def _substitute(consumer: _Group, slot: int, producer_group: _Group) -> tuple[tuple, list[ir.Value]]:
    """The consumer's expression with operand ``slot`` (1-based) replaced by the
    producer's expression, and the operands of the result (the consumer's others in
    order, then the producer's new ones)."""
    operands = [v for i, v in enumerate(consumer.operands, start=1) if i != slot]
    numbers = {i: n for n, i in enumerate([i for i in range(1, len(consumer.operands) + 1) if i != slot], start=1)}
    inner: dict[int, int] = {}
    for i, value in enumerate(producer_group.operands, start=1):
        if value not in operands:
            operands.append(value)
        inner[i] = operands.index(value) + 1
    replacement = _renumber(producer_group.tree, inner)

    def walk(node: tuple) -> tuple:
        if node[0] == "arg":
            return replacement if node[1] == slot else ("arg", numbers[node[1]])
        if node[0] != "call":
            return node
        if node[1] in ("add", "sub") and node[2][1] == ("arg", slot) and replacement[:2] == ("call", "mul"):
            # add(a, mul(b, c)) is torch's scaled add to the IPU Model (one rounding, as
            # eager optimizers compute it); two ops made it with two roundings. a + m is
            # m + a, and a - m is (-m) + a, exactly: the fused map keeps both roundings.
            first = walk(node[2][0])
            term = replacement if node[1] == "add" else ("call", "neg", [replacement])
            return ("call", "add", [term, first])
        return ("call", node[1], [walk(child) for child in node[2]])

    return walk(consumer.tree), operands


def _placement(op: ir.Operation) -> dict[str, str]:
    return {name: str(op.attributes[name]) for name in [str(n) for n in op.attributes]
            if "." in name and name != pd.CYCLES_ATTR}


def _writes(op: ir.Operation) -> bool:
    """Whether ``op`` may write a tensor: it has no Pure trait."""
    return ext.Pure not in getattr(type(op.opview), "_traits", ())


def _fuse_block(ops: list[ir.Operation]) -> None:
    """Decide the groups of one run block from the IR as it is, then rewrite them."""
    position = {op: index for index, op in enumerate(ops)}
    writers_before = [0]
    for op in ops:
        writers_before.append(writers_before[-1] + _writes(op))
    trees = {index: tree for index, op in enumerate(ops) if len(op.results) == 1 and (tree := _expression(op)) is not None}
    groups: dict[int, _Group] = {}
    absorbed: set[int] = set()
    for index in sorted(trees):
        consumer = ops[index]
        result = consumer.results[0]
        group = _Group(trees[index], list(consumer.operands), index)
        types = {_element(v) for v in (result, *group.operands)} - {"i1"}
        if len(types) != 1 or next(iter(types)) not in _FLOATS:
            continue
        float_type = next(iter(types))
        while True:
            merged = _absorb_one(ops, index, group, groups, trees, position, writers_before, float_type)
            if merged is None:
                break
            absorbed.add(merged)
        if group.members:
            groups[index] = group
    _rewrite(ops, {i: g for i, g in groups.items() if i not in absorbed})


def _absorb_one(ops: list[ir.Operation], index: int, group: _Group, groups: dict[int, _Group],
                trees: dict[int, tuple], position: dict[ir.Operation, int], writers_before: list[int],
                float_type: str) -> int | None:
    """Fuse one producer into ``group`` (the consumer at ``index``); returns its index."""
    consumer = ops[index]
    result = consumer.results[0]
    for slot, value in enumerate(group.operands, start=1):
        definer = producer(value)
        source = position.get(definer) if definer is not None else None
        if source is None or source not in trees or source >= index:
            continue
        if len(list(value.uses)) != 1 or definer.block != consumer.block:
            continue
        if _placement(definer) != _placement(consumer) or _shape(value) != _shape(result):
            continue
        inner = groups.get(source) or _Group(trees[source], list(definer.operands), source)
        if _element(value) != float_type or any(_element(v) not in (float_type, "i1") for v in inner.operands):
            continue
        if _kind(inner.tree, ["T" if _element(v) == float_type else "B" for v in inner.operands]) != "T":
            continue
        first = min(group.first, inner.first)
        if writers_before[index] - writers_before[first + 1] > 0:
            continue
        tree, operands = _substitute(group, slot, inner)
        calls, depth = _size(tree)
        if len(operands) > MAX_OPERANDS or calls > MAX_CALLS or depth > MAX_DEPTH:
            continue
        root_kind = "B" if _element(result) == "i1" else "T"
        if _kind(tree, ["T" if _element(v) == float_type else "B" for v in operands]) != root_kind:
            continue
        group.tree, group.operands, group.first = tree, operands, first
        group.members += inner.members + [source]
        groups.pop(source, None)
        return source
    return None


def _rewrite(ops: list[ir.Operation], groups: dict[int, _Group]) -> None:
    """Replace each group's consumer by one map and erase its producers. An operand
    that is the result of an earlier group's consumer (erased by then) is read from
    the map that replaced it; every erased op is erased once, through the handle of
    the run block's list, and never read afterwards."""
    replaced: dict[int, ir.Value] = {}
    results_of_roots = {ops[index].results[0]: index for index in groups}
    plans = []
    for index, group in sorted(groups.items()):
        operands = [("root", results_of_roots[v]) if v in results_of_roots else ("value", v) for v in group.operands]
        plans.append((index, group, operands))
    for index, group, operands in plans:
        root = ops[index]
        values = [replaced[ref] if kind == "root" else ref for kind, ref in operands]
        with root.location, ir.InsertionPoint(root):
            fused = build(pd.MapOp, values[0], values[1:2], values[2:3],
                          ir.StringAttr.get(format_map_expression(group.tree)), root.results[0].type).operation
        carry_attributes(root, fused)
        if pd.CYCLES_ATTR in fused.attributes:
            del fused.attributes[pd.CYCLES_ATTR]
        root.results[0].replace_all_uses_with(fused.results[0])
        replaced[index] = fused.results[0]
        root.erase()
        for member in sorted(group.members, reverse=True):
            ops[member].erase()

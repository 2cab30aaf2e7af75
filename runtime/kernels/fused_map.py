"""Fused ``popops_map`` expressions on the IPU Model: one pass over memory for each run of
arithmetic, no intermediate tensors.

``poplar-fuse-elementwise`` makes a chain of element-wise ops one map, such as
``add(add(_2, mul(mul(_2, 0.044715), mul(pow(_3, 2.0), 3.0))), _1)`` (GPT-2's ``gelu_new``
gradient). Computed node by node with torch calls (:func:`elementwise.compile_tree`), it
would make a tensor per node. :func:`plan` instead finds the *regions* of the tree that
C computes exactly as torch does (IEEE ``+ - * /``, torch's multiply-add where torch
uses one, comparisons, selects, ``pow`` by 2 or 3 as ``x*x`` / ``x*x*x`` ...: see
``_NATIVE``) and generates one C loop per region (``native_build``: compiled in the
background, cached on disk, run on torch's OpenMP threads). Every other node (``tanh``,
``exp``: torch's vectorised implementations, which C would not reproduce bit for bit)
stays a torch call, made in place on a region's fresh buffer when it reads one. The
result equals the unfused ops' bit for bit; until a region's kernel is compiled, or
when an operand is not a contiguous CPU tensor of the planned layout, the region is
computed with torch calls, which also give the same bits.

A region reads each operand whole (the result's shape), as a scalar (one element), or
broadcast along leading dims (a bias: its shape is the result's trailing dims); any
other broadcast keeps the whole map on torch calls. Only float32 maps get kernels.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from ipu_mlir.dialects.poplar import parse_map_expression

from . import native_build

# A region pays when it saves passes over memory enough to cover a kernel call's cost
# (about 7 us of Python and ctypes against about 3 us a torch call; 1 thread): three or
# more torch calls from 1024 elements, two from 65536. An in-place update saves one pass
# of the two torch makes: it pays out of cache, from 262144 elements.
MIN_CALLS = 2
MIN_ELEMENTS = 1024
MIN_ELEMENTS_TWO_CALLS = 65536
MIN_ELEMENTS_IN_PLACE = 262144
GRAIN = 32768  # torch's grain for element-wise loops: smaller ones run on one thread

# Negation flips the sign bit through a union: GCC 12 (-march with FMA) folds a negated
# fmaf, -fmaf(b, c, a), into one fnmsub, which gives +0 where the fma is an exact 0 (torch:
# -(+0) = -0); x * -1 and x / -1 are folded into that negation too. A bit flip it leaves.
_NEGATE = "(((union {{ uint32_t u; float f; }}){{ .u = ((union {{ float f; uint32_t u; }}){{ .f = ({0}) }}).u ^ 0x80000000u }}).f)"
# (torch.sqrt is MKL's vsSqrt here, not always the correctly rounded sqrtf: it stays torch.)
_UNARY = {"neg": _NEGATE, "abs": "fabsf({0})", "square": "(({0}) * ({0}))",
          "reciprocal": "(1.0f / ({0}))", "floor": "floorf({0})", "ceil": "ceilf({0})", "trunc": "truncf({0})",
          "round": "nearbyintf({0})", "relu": "(isnan({0}) ? ({0}) : (({0}) < 0.0f ? 0.0f : ({0})))"}
_BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
_COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_LOGICAL = {"and": "&&", "or": "||", "xor": "!="}
_POWERS = {2.0: "(({0}) * ({0}))", 3.0: "((({0}) * ({0})) * ({0}))"}
# Unary torch functions made in place (``out=``) on a region's fresh buffer.
# In-place maps that take torch more than one pass (elementwise.in_place_expression).
_IN_PLACE_NATIVE = ("add(mul(_1, _2), _3)",)
_IN_PLACE = {"tanh": torch.tanh, "exp": torch.exp, "sigmoid": torch.sigmoid, "log": torch.log, "erf": torch.erf,
             "expm1": torch.expm1, "log1p": torch.log1p}

_FULL, _SUFFIX, _SCALAR = "full", "suffix", "scalar"
_STRIDED = torch.strided


@dataclass
class _Node:
    """Static facts of one expression node."""

    shape: tuple[int, ...] | None  # None: a literal
    kind: str  # "T" (float32), "B" (bool) or "S" (a literal)
    native: bool  # C computes this node (a call) in a region
    composite: bool = False  # add / sub of a mul: torch's scaled add, one node


@dataclass
class _Input:
    node: tuple
    mode: str
    shape: tuple[int, ...] | None
    c_type: str
    period: int = 0


@dataclass
class _Region:
    """A maximal subtree of native nodes computed by one generated loop."""

    root: tuple
    shape: tuple[int, ...]
    out_dtype: torch.dtype
    inputs: list[_Input] = field(default_factory=list)
    calls: int = 0


def _broadcast(*shapes: tuple[int, ...] | None) -> tuple[int, ...] | None:
    known = [s for s in shapes if s is not None]
    if not known:
        return None
    try:
        return tuple(torch.broadcast_shapes(*known))
    except RuntimeError:
        return None


def _analyse(tree: tuple, operands: list[tuple[list[int], torch.dtype]]) -> dict[int, _Node]:
    facts: dict[int, _Node] = {}

    def visit(node: tuple) -> _Node:
        if node[0] == "arg":
            shape, dtype = operands[node[1] - 1]
            fact = _Node(tuple(shape), "B" if dtype == torch.bool else "T", False)
        elif node[0] == "const":
            fact = _Node(None, "S", False)
        else:
            fact = _call(node, visit)
        facts[id(node)] = fact
        return fact

    visit(tree)
    return facts


def _call(node: tuple, visit: Callable[[tuple], _Node]) -> _Node:
    name, children = node[1], node[2]
    if name in ("add", "sub") and children[1][0] == "call" and children[1][1] == "mul":
        # torch's scaled add (elementwise._scaled_add): a and b tensors, c a tensor or scalar
        # The scale: a literal (torch.add's alpha, 0 included), or a tensor with dims. A 0-d
        # tensor's value decides at run time (0 returns a, no work at all: an optimizer's
        # weight decay of 0), so torch keeps it, as any other computed scalar.
        a, (b, c) = visit(children[0]), (visit(x) for x in children[1][2])
        shape = _broadcast(a.shape, b.shape, c.shape)
        scale = children[1][2][1][0] == "const" or (c.kind == "T" and c.shape is not None and len(c.shape) > 0)
        native = a.kind == "T" and a.shape is not None and b.kind == "T" and b.shape is not None and scale
        return _Node(shape, "T" if shape is not None else "S", native, composite=True)
    facts = [visit(child) for child in children]
    kinds = [f.kind for f in facts]
    shape = _broadcast(*(f.shape for f in facts))
    tensors = shape is not None
    if name in _BINARY or name in _UNARY or name == "pow":
        kind = "T" if tensors else "S"
        native = tensors and "B" not in kinds and (name != "pow" or (children[1][0] == "const" and children[1][1] in _POWERS
                                                                    and kinds[0] == "T"))
        return _Node(shape, kind, native)
    if name in _COMPARE:
        return _Node(shape, "B", tensors and "B" not in kinds)
    if name in _LOGICAL or name == "not":
        return _Node(shape, "B", tensors and all(k == "B" for k in kinds))
    if name == "select":
        return _Node(shape, "T", tensors and kinds[0] == "B" and "B" not in kinds[1:] and "T" in kinds[1:])
    kind = "B" if name in ("isnan", "isinf", "signbit") else ("T" if tensors else "S")
    return _Node(shape, kind, False)


def _regions(tree: tuple, facts: dict[int, _Node]) -> list[_Region]:
    """The regions worth a kernel, each with its inputs (in first-use order)."""
    found: list[_Region] = []

    def walk(node: tuple, parent_native: bool) -> None:
        fact = facts[id(node)]
        if node[0] != "call":
            return
        if fact.native and not parent_native:
            region = _Region(node, fact.shape or (), torch.bool if fact.kind == "B" else torch.float32)
            _members(node, region, facts, {})
            if _layout(region):
                found.append(region)
        children = [node[2][0], *node[2][1][2]] if fact.composite else node[2]
        for child in children:
            walk(child, fact.native)

    walk(tree, False)
    return found


def _members(node: tuple, region: _Region, facts: dict[int, _Node], seen: dict[int, int],
             count_elided: bool = False) -> None:
    """Add ``node``'s native subtree to ``region``: its calls, and its inputs in first-use
    order (``count_elided``: count mul / div by 1 or by a 0-d tensor as work, as they are
    for torch's in-place calls)."""
    fact = facts[id(node)]
    if node[0] == "call" and fact.native:
        # mul / div by 1 is no work for torch (elementwise.compile_tree), and by a 0-d
        # tensor may be: not counted
        elided = node[1] in ("mul", "div") and (facts[id(node[2][1])].shape == () or node[2][1] == ("const", 1.0))
        region.calls += 2 if fact.composite else (0 if elided and not count_elided else 1)
        children = [node[2][0], *node[2][1][2]] if fact.composite else node[2]
        for child in children:
            _members(child, region, facts, seen, count_elided)
        return
    if node[0] == "const":
        return
    key = _input_key(node)
    if key not in seen:
        seen[key] = len(region.inputs)
        region.inputs.append(_Input(node, "", fact.shape, "_Bool" if fact.kind == "B" else "float"))


def _input_key(node: tuple) -> int:
    """A region input: a torch-computed node by identity, an operand by number (each
    ``_2`` in the text is its own tuple)."""
    return id(node) if node[0] == "call" else -node[1]


def _layout(region: _Region) -> bool:
    """Fix each input's layout; False when the region does not pay or cannot read one."""
    n = math.prod(region.shape)
    smallest = MIN_ELEMENTS_TWO_CALLS if region.calls == MIN_CALLS else MIN_ELEMENTS
    if region.calls < MIN_CALLS or n < smallest or region.out_dtype not in (torch.float32, torch.bool):
        return False
    periods = set()
    for spec in region.inputs:
        shape = spec.shape
        if shape is None or math.prod(shape) == 1:
            spec.mode = _SCALAR
            if spec.c_type != "float":
                return False
            continue
        if shape == region.shape:
            spec.mode = _FULL
            continue
        trailing = tuple(shape)
        while trailing and trailing[0] == 1:
            trailing = trailing[1:]
        if not trailing or len(trailing) > len(region.shape) or region.shape[len(region.shape) - len(trailing):] != trailing:
            return False
        spec.mode, spec.period = _SUFFIX, math.prod(trailing)
        periods.add(spec.period)
    return len(periods) <= 1


def _literal(value: float) -> str:
    if math.isnan(value):
        return "((float)NAN)"
    if math.isinf(value):
        return "(INFINITY)" if value > 0 else "(-INFINITY)"
    return f"((float)({value!r}))"


def _source(region: _Region, facts: dict[int, _Node], symbol: str) -> str:
    """The C function computing ``region``: ``symbol(inputs, scalars, out, n, period, threads)``."""
    lines: list[str] = []
    names: dict[int, str] = {}
    reads: dict[int, str] = {}
    scalars = 0
    declarations = []
    for index, spec in enumerate(region.inputs):
        if spec.mode == _SCALAR:
            declarations.append(f"    const float x{index} = (float)sc[{scalars}];")
            reads[index] = f"x{index}"
            scalars += 1
        else:
            declarations.append(f"    const {spec.c_type}* x{index} = (const {spec.c_type}*)in[{index}];")
            reads[index] = f"x{index}[{'i' if spec.mode == _FULL else 'j'}]"
    by_node = {_input_key(spec.node): i for i, spec in enumerate(region.inputs)}

    def emit(node: tuple) -> str:
        if node[0] == "const":
            return _literal(node[1])
        fact = facts[id(node)]
        if node[0] == "arg" or not fact.native:
            return reads[by_node[_input_key(node)]]
        if id(node) in names:
            return names[id(node)]
        name, children = node[1], node[2]
        if fact.composite:
            a, (b, c) = emit(children[0]), (emit(x) for x in children[1][2])
            sign = "" if name == "add" else "-"
            op = "+" if name == "add" else "-"
            if children[1][2][1][0] == "const":
                # a literal scale: torch.add(a, b, alpha=±c), one rounding whatever a's
                # shape (0 too: a + 0 * b). A 0-d tensor scale stays torch's (_call).
                text = f"fmaf({b}, {sign}({c}), {a})"
            else:
                text = f"(({a}) {op} (({b}) * ({c})))"
        else:
            args = [emit(child) for child in children]
            if name in ("mul", "div") and children[1] == ("const", -1.0):
                text = _NEGATE.format(args[0])
            elif name == "mul" and children[0] == ("const", -1.0):
                text = _NEGATE.format(args[1])
            elif name in _BINARY:
                text = f"(({args[0]}) {_BINARY[name]} ({args[1]}))"
            elif name in _UNARY:
                text = _UNARY[name].format(args[0])
            elif name == "pow":
                text = _POWERS[children[1][1]].format(args[0])
            elif name in _COMPARE:
                text = f"(({args[0]}) {_COMPARE[name]} ({args[1]}))"
            elif name in _LOGICAL:
                text = f"(({args[0]}) {_LOGICAL[name]} ({args[1]}))"
            elif name == "not":
                text = f"(!({args[0]}))"
            else:  # select
                text = f"(({args[0]}) ? ({args[1]}) : ({args[2]}))"
        variable = f"t{len(names)}"
        lines.append(f"            const {'_Bool' if fact.kind == 'B' else 'float'} {variable} = {text};")
        names[id(node)] = variable
        return variable

    result = emit(region.root)
    out_type = "_Bool" if region.out_dtype == torch.bool else "float"
    body = "\n".join(lines)
    return f"""void {symbol}(void* const* in, const double* sc, void* out_, int64_t n, int64_t period, int threads) {{
{chr(10).join(declarations)}
    {out_type}* out = ({out_type}*)out_;
    (void)in; (void)sc;
    #pragma omp parallel num_threads(threads) if (n >= {GRAIN})
    {{
        const int64_t count = omp_get_num_threads(), me = omp_get_thread_num();
        const int64_t chunk = (n + count - 1) / count;
        const int64_t begin = me * chunk < n ? me * chunk : n, end = begin + chunk < n ? begin + chunk : n;
        for (int64_t start = begin; start < end;) {{
            const int64_t offset = start % period;
            const int64_t length = period - offset < end - start ? period - offset : end - start;
            #pragma GCC ivdep
            for (int64_t k = 0; k < length; k++) {{
            const int64_t i = start + k, j = offset + k;
            (void)j;
{body}
            out[i] = {result};
            }}
            start += length;
        }}
    }}
}}
"""


def _extent(value: torch.Tensor) -> tuple[int, int]:
    """The bytes ``value``'s elements lie in: [first, last + 1)."""
    start = value.const_data_ptr()  # data_ptr() would copy a copy-on-write tensor's memory first
    if value.numel() == 0:
        return start, start
    last = sum((size - 1) * stride for size, stride in zip(value.shape, value.stride(), strict=True))
    return start, start + (last + 1) * value.element_size()


def _overlaps(a: Any, b: Any) -> bool:
    """Whether the CPU tensors ``a`` and ``b`` share a byte (views of one buffer)."""
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.is_cpu and b.is_cpu
            and a.layout == torch.strided and b.layout == torch.strided):
        return False
    (a_start, a_end), (b_start, b_end) = _extent(a), _extent(b)
    return a_start < b_end and b_start < a_end


class _Runner:
    """Computes one region: its kernel when loaded and the inputs fit, else torch calls
    on the same input values."""

    def __init__(self, region: _Region, symbol: str, source: str, inputs: list[Callable[[tuple], Any]],
                 torch_path: Callable[[tuple], Any]) -> None:
        self.region = region
        self.kernel = native_build.request(symbol, source)
        self.inputs = inputs
        self.torch_path = torch_path  # a function of the input values
        self.numel = math.prod(region.shape)
        self.period = next((spec.period for spec in region.inputs if spec.mode == _SUFFIX), self.numel)
        self.scalars = [i for i, spec in enumerate(region.inputs) if spec.mode == _SCALAR]
        self._reads = [(i, torch.bool if spec.c_type == "_Bool" else torch.float32, torch.Size(spec.shape or ()))
                       for i, spec in enumerate(region.inputs) if spec.mode != _SCALAR]
        self._pointer_array = ctypes.c_void_p * max(1, len(region.inputs))
        self._scalar_array = ctypes.c_double * max(1, len(self.scalars))
        self._size = torch.Size(region.shape)
        self.native_calls = 0  # how many times the kernel computed the region (tests)

    def run(self, args: tuple) -> tuple[Any, bool]:
        """(value, fresh): fresh when the kernel wrote a new buffer."""
        values = tuple(fn(args) for fn in self.inputs)
        out = self.native(values)
        return (self.torch_path(values), False) if out is None else (out, True)

    def native(self, values: tuple, out: torch.Tensor | None = None) -> torch.Tensor | None:
        """The kernel's result for the input values, written into ``out`` (a contiguous
        float32 CPU tensor of the region's shape) or a new buffer; None when the kernel is
        not loaded or cannot read an input."""
        function = self.kernel.function if self.kernel is not None else None
        if function is None:
            return None
        pointers = self._pointer_array()
        for index, dtype, size in self._reads:
            value = values[index]
            # a CPU tensor whose memory holds its values as they are: strided (sparse or
            # mkldnn have no such memory), not lazily negated (``torch.imag(z.conj())``)
            if not (isinstance(value, torch.Tensor) and value.is_cpu and value.dtype == dtype and value.shape == size
                    and value.layout == _STRIDED and value.is_contiguous() and not value.is_neg()):
                return None
            # read only: a weight shared copy-on-write with the host (device_copy) stays shared
            pointers[index] = value.const_data_ptr()
        scalars = self._scalar_array()
        for slot, index in enumerate(self.scalars):
            value = values[index]
            if isinstance(value, torch.Tensor):
                if not (value.is_cpu and value.numel() == 1 and value.dtype == torch.float32
                        and value.layout == _STRIDED and not value.is_neg()):
                    return None
                value = value.item()
            scalars[slot] = float(value)
        if out is None:
            out = torch.empty(self._size, dtype=self.region.out_dtype)
        elif not (out.is_cpu and out.dtype == self.region.out_dtype and out.shape == self._size
                  and out.layout == _STRIDED and out.is_contiguous() and not out.is_neg()):
            return None
        # values and out (locals) keep every buffer alive while the kernel runs
        function(pointers, scalars, out.data_ptr(), self.numel, self.period, torch.get_num_threads())
        self.native_calls += 1
        return out

    def __call__(self, args: tuple) -> Any:
        return self.run(args)[0]


def plan_in_place(expr: str, operands: list[tuple[list[int], torch.dtype]],
                  fallback: Callable[..., Any]) -> Callable[..., Any] | None:
    """A ``popops_map_in_place`` whose whole expression one kernel computes, written
    straight into its first operand: ``v * m + g`` (SGD's momentum, ``v.mul_(m).add_(g)``:
    two passes over ``v`` for torch) in one pass, the same roundings. ``fallback`` (the
    torch calls) runs until the kernel is loaded, when an operand does not fit and when
    one shares memory with ``v``. None when the expression is one torch call already or
    has no such kernel."""
    if expr not in _IN_PLACE_NATIVE or operands[0][1] != torch.float32 or not native_build.enabled() \
            or any(d != torch.float32 for _, d in operands):
        return None
    tree = parse_map_expression(expr)
    facts = _analyse(tree, operands)
    region = _Region(tree, tuple(operands[0][0]), torch.float32)
    if not facts[id(tree)].native or facts[id(tree)].shape != region.shape:
        return None
    _members(tree, region, facts, {}, count_elided=True)
    if math.prod(region.shape) < MIN_ELEMENTS_IN_PLACE or not _layout(region) \
            or any(spec.node[0] != "arg" for spec in region.inputs):
        return None
    runner = _Runner(region, "map_in_place", _source(region, facts, "map_in_place"),
                     [lambda args, n=spec.node[1] - 1: args[n] for spec in region.inputs], lambda values: None)

    def update(*args: Any) -> None:
        # torch's calls update args[0] one op after the other (v.mul_(m).add_(g)): an
        # operand that is (a view of) the variable reads the values the first op wrote, or
        # torch refuses a partial overlap. The kernel reads every operand before it writes.
        if any(_overlaps(args[0], other) for other in args[1:]) \
                or runner.native(tuple(fn(args) for fn in runner.inputs), out=args[0]) is None:
            fallback(*args)

    update.runner = runner  # type: ignore[attr-defined]
    return update


def plan(expr: str, operands: list[tuple[list[int], torch.dtype]], result: tuple[list[int], torch.dtype]
         ) -> FusedMap | None:
    """A function of the operands computing ``expr`` with generated kernels for its
    regions, or None when no region pays (the map runs on torch calls only)."""
    from .elementwise import compile_tree  # elementwise imports this module

    if result[1] not in (torch.float32, torch.bool) or any(d not in (torch.float32, torch.bool) for _, d in operands) \
            or not any(d == torch.float32 for _, d in operands) or not native_build.enabled():
        return None
    tree = parse_map_expression(expr)
    facts = _analyse(tree, operands)
    regions = _regions(tree, facts)
    if not regions:
        return None
    runners: dict[int, _Runner] = {}

    def evaluate(node: tuple) -> Callable[[tuple], Any] | None:
        runner = runners.get(id(node))
        if runner is not None:
            return runner
        fn = _IN_PLACE.get(node[1]) if node[0] == "call" and len(node[2]) == 1 else None
        inner = runners.get(id(node[2][0])) if fn is not None else None
        if inner is None or inner.region.out_dtype != torch.float32:  # tanh(bool) is a float tensor: not in place
            return None

        def in_place(args: tuple) -> Any:
            value, fresh = inner.run(args)
            return fn(value, out=value) if fresh else fn(value)

        return in_place

    for number, region in enumerate(regions):
        symbol = f"fused_map_{number}"
        positions = {_input_key(spec.node): i for i, spec in enumerate(region.inputs)}

        def leaf(node: tuple, positions: dict[int, int] = positions) -> Callable[[tuple], Any] | None:
            index = positions.get(_input_key(node)) if node[0] != "const" else None
            return None if index is None else (lambda values: values[index])

        torch_path = compile_tree(region.root, False, leaf)
        inputs = [compile_tree(spec.node, False, evaluate) for spec in region.inputs]
        runners[id(region.root)] = _Runner(region, symbol, _source(region, facts, symbol), inputs, torch_path)
    return FusedMap(compile_tree(tree, False, evaluate), list(runners.values()))


class FusedMap:
    """A planned map: call it with the operands. ``native`` says whether every region's
    kernel is loaded (until then, and when it is not, torch calls compute the value)."""

    def __init__(self, compiled: Callable[[tuple], Any], runners: list[_Runner]) -> None:
        self._compiled = compiled
        self.runners = runners

    def __call__(self, *args: Any) -> Any:
        return self._compiled(args)

    @property
    def native(self) -> bool:
        return all(r.kernel is not None and r.kernel.function is not None for r in self.runners)


def wait_for_kernels(timeout: float = 120.0) -> bool:
    """Wait until every requested kernel is compiled (or failed): tests and benchmarks."""
    return native_build.wait_all(timeout)

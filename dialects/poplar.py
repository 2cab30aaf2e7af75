"""The ``poplar`` dialect: a Poplar graph program, one op per Poplar/PopLibs construct.

A ``poplar.graph`` holds the graph's data (``variable``, ``constant``, ``remote_buffer``,
``host_stream``), its functions and its control program (``program_*``). Tensor values
follow Poplar's model: a value names a tensor of the graph; compute ops
(``popops_*``, ``poplin_*``, ``popnn_*``) and views (``reshape``, ``slice``, ...) make new
tensors, and only program ops (``program_copy``, ``program_stream_copy``) and in-place
ops (``popops_scaled_add_to``) write into existing ones. The IPU Model runtime executes
this dialect; ``ipu-translate --poplar-to-cpp`` prints it as Poplar C++.

Op names mirror the C++ API with the namespace joined by an underscore
(``poplar.popops_add`` for ``popops::add``, ``poplar.program_copy`` for
``poplar::program::Copy``): IRDL, which defines our dialects, allows no dot inside an
op name.
"""

import re
from collections.abc import Sequence
from typing import Any

from torch_mlir import ir
from torch_mlir.dialects import ext

from ._base import I64ArrayAttr, Rules, RuleViolation, verify_with_rules


class Poplar(ext.Dialect, name="poplar"):
    pass


class PoplarOp(Poplar.Operation):
    """Base of every ``poplar`` op: runs the op's ``check`` rules as its verifier."""

    def verify_invariants(self) -> bool:
        return verify_with_rules(self, self._check_structure_then_rules)

    def _check_structure_then_rules(self, v: Rules) -> None:
        # This verifier runs before IRDL's, and ``check`` reads operands, results and
        # regions through ``ext`` accessors, which crash (IndexError, KeyError) on an op of
        # the wrong shape. So the shape is checked first.
        _check_structure(v, self)
        self.check(v)

    def check(self, v: Rules) -> None:  # pragma: no cover - overridden
        pass


def _check_structure(v: Rules, op: ext.Operation) -> None:
    """Region, result and operand counts as declared (and ``resultSegmentSizes`` /
    ``operandSegmentSizes``)."""
    cls, operation = type(op), op.operation

    def expect(what: str, declared: int, actual: int) -> None:
        v.require(declared == actual, f"expects {declared} {what}{'' if declared == 1 else 's'}, got {actual}")

    expect("region", cls._ODS_REGIONS[0], len(operation.regions))
    if cls._ODS_RESULT_SEGMENTS is None:
        expect("result", sum(isinstance(f, ext.ResultDef) for f in cls._fields), len(operation.results))
    else:
        _check_segments(v, "result", len(operation.results), cls._ODS_RESULT_SEGMENTS)
    if cls._ODS_OPERAND_SEGMENTS is None:
        expect("operand", sum(isinstance(f, ext.OperandDef) for f in cls._fields), len(operation.operands))
    else:
        _check_segments(v, "operand", len(operation.operands), cls._ODS_OPERAND_SEGMENTS)


def _check_segments(v: Rules, what: str, count: int, declared: Sequence[int]) -> None:
    """``operandSegmentSizes`` (``what`` = "operand") or ``resultSegmentSizes`` ("result")
    has one entry per group, 1 for a single value, and the entries add up to the number
    of operands or results."""
    # The ``ext`` accessors of variadic operands and results read the attribute without
    # checking it, and IRDL ignores it when an op has a single variadic group: a missing
    # or wrong attribute would crash ``check`` or silently misread the values.
    name = f"{what}SegmentSizes"
    attr = v._attr(name)
    v.require(
        isinstance(attr, ir.DenseI32ArrayAttr) and len(ir.DenseI32ArrayAttr(attr)) == len(declared),
        f"attribute '{name}' must be an array<i32: ...> with {len(declared)} elements, got {attr}",
    )
    sizes = list(ir.DenseI32ArrayAttr(attr))
    for group, (size, kind) in enumerate(zip(sizes, declared, strict=True)):
        v.require(size >= 0, f"attribute '{name}' has a negative entry: {sizes}")
        v.require(kind != 1 or size == 1, f"attribute '{name}' entry #{group} must be 1 (a single {what}), got {size}")
    v.require(sum(sizes) == count, f"attribute '{name}' {sizes} adds up to {sum(sizes)}, but the op has {count} {what}s")


Tensor = ext.Operand[ir.RankedTensorType]
TensorResult = ext.Result[ir.RankedTensorType]

VARIABLE_KINDS = ("weight", "buffer", "optimizer_state", "accumulator", "activation", "input", "output", "scalar")


def _shape(value: ir.Value, what: str) -> list[int]:
    return list(Rules.ranked(value, what).shape)


def _element(value: ir.Value) -> ir.Type:
    return ir.RankedTensorType(value.type).element_type


def _check_dim(v: Rules, dim: int, rank: int, what: str = "dim") -> None:
    v.require(0 <= dim < max(rank, 1), f"attribute '{what}' must be in [0, {max(rank, 1)}), got {dim}")


def broadcast_shapes(shapes: Sequence[Sequence[int]]) -> list[int] | None:
    """NumPy broadcasting of static shapes; None if they do not broadcast."""
    rank = max((len(s) for s in shapes), default=0)
    out: list[int] = []
    for axis in range(rank):
        sizes = {s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0}
        sizes.discard(1)
        if len(sizes) > 1:
            return None
        out.append(sizes.pop() if sizes else 1)
    return out


def _name_of(op: ir.Operation) -> str | None:
    """The ``name`` attribute of ``op`` if it is a string. Siblings may not be verified
    yet when a verifier looks at them, so nothing about them can be assumed."""
    attrs = op.attributes
    if "name" not in attrs or not isinstance(attrs["name"], ir.StringAttr):
        return None
    return ir.StringAttr(attrs["name"]).value


def _find_in_graph(op: ir.OpView, op_name: str, name: str) -> ir.Operation | None:
    """The ``op_name`` op named ``name`` in the ``poplar.graph`` enclosing ``op``."""
    graph = op.operation.parent
    while graph is not None and graph.name != "poplar.graph":
        graph = graph.parent
    if graph is None:
        return None
    for candidate in graph.regions[0].blocks[0].operations:
        if candidate.operation.name == op_name and _name_of(candidate.operation) == name:
            return candidate.operation
    return None


# ---------------------------------------------------------------------------------------
# Graph and data
# ---------------------------------------------------------------------------------------


class GraphOp(PoplarOp, name="graph"):
    """A Poplar graph for a target of ``num_ipus`` IPUs x ``replication_factor`` replicas.

    Semantics: the body holds the graph's variables, constants, streams, remote buffers,
    functions and exactly one ``poplar.program_sequence`` named ``"main"`` (the program
    the engine runs). ``tiles_per_ipu`` (>= 1) comes from the target.

    Example:
      "poplar.graph"() ({ ... }) {num_ipus = 1 : i64, replication_factor = 1 : i64,
                                  tiles_per_ipu = 1472 : i64} : () -> ()
    """

    num_ipus: ir.IntegerAttr
    replication_factor: ir.IntegerAttr
    tiles_per_ipu: ir.IntegerAttr
    body: ext.Region

    def check(self, v: Rules) -> None:
        v.int("num_ipus", min=1, max=64)
        v.int("replication_factor", min=1)
        v.int("tiles_per_ipu", min=1)
        # A generic-form region may have no block; MLIR allows at most one here.
        ops = list(self.body.blocks[0].operations) if len(self.body.blocks) else []
        names: dict[str, str] = {}
        mains = 0
        for op in ops:
            name = _name_of(op.operation)
            if name is not None and op.operation.name in _NAMED_GRAPH_OPS:
                v.require(name not in names, f"defines \"{name}\" twice ({names.get(name)} and {op.operation.name})")
                names[name] = op.operation.name
            if op.operation.name == "poplar.program_sequence" and name == "main":
                mains += 1
        v.require(mains == 1, f"must hold exactly one 'poplar.program_sequence' named \"main\" (the program the engine runs), got {mains}")


class VariableOp(PoplarOp, name="variable"):
    """A tensor variable of the graph, on IPU ``ipu``.

    Semantics: ``kind`` says what it holds (weight, buffer, optimizer_state,
    accumulator, activation, input, output, scalar); ``name`` (unique in the graph) is
    the parameter path for weights. ``tiles`` is the linear tile mapping
    ``array<i64: first_tile, num_tiles>``, empty until ``poplar-map-tiles`` runs.

    Example:
      %w = "poplar.variable"() {name = "fc.weight", kind = "weight", ipu = 0 : i64,
                                tiles = array<i64>} : () -> tensor<4x3xf32>
    """

    name: ir.StringAttr
    kind: ir.StringAttr
    ipu: ir.IntegerAttr
    tiles: I64ArrayAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        v.string("name", nonempty=True)
        v.string("kind", choices=VARIABLE_KINDS)
        v.int("ipu", min=0)
        tiles = v.i64_array("tiles", min=0)
        v.require(len(tiles) in (0, 2), f"attribute 'tiles' must be empty or [first_tile, num_tiles], got {tiles}")
        v.require(len(tiles) == 0 or tiles[1] >= 1, "attribute 'tiles' must map to at least one tile")
        Rules.ranked(self.result, "result")


class ConstantOp(PoplarOp, name="constant", traits=[ext.Pure]):
    """A constant tensor on IPU ``ipu`` (``graph.addConstant``).

    Example:
      %c = "poplar.constant"() {value = dense<1.0> : tensor<2xf32>, ipu = 0 : i64} : () -> tensor<2xf32>
    """

    value: Any
    ipu: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        attr = v._attr("value")
        v.require(_is_dense_elements(attr), f"attribute 'value' must be dense elements, got {attr}")
        v.int("ipu", min=0)
        v.require(attr.type == self.result.type, f"value type {attr.type} must equal result type {self.result.type}")


def _is_dense_elements(attr: ir.Attribute) -> bool:
    """``dense<...>`` or ``dense_resource<...>``. The bindings do not downcast the latter,
    so ``isinstance`` cannot see it; a cast can."""
    if isinstance(attr, ir.DenseElementsAttr):
        return True
    try:
        ir.DenseResourceElementsAttr(attr)
    except ValueError:
        return False
    return True


class RemoteBufferOp(PoplarOp, name="remote_buffer"):
    """Streaming (off-chip) memory holding ``repeats`` (>= 1) tensors of ``type``.

    Example:
      "poplar.remote_buffer"() {name = "fc.weight", type = tensor<4x3xf32>, repeats = 1 : i64} : () -> ()
    """

    name: ir.StringAttr
    type: ir.TypeAttr
    repeats: ir.IntegerAttr

    def check(self, v: Rules) -> None:
        v.string("name", nonempty=True)
        v.require(isinstance(v.type_attr("type"), ir.RankedTensorType), "attribute 'type' must be a ranked tensor type")
        v.int("repeats", min=1)


class HostStreamOp(PoplarOp, name="host_stream"):
    """A FIFO between the host and the device (``graph.addHostToDeviceFIFO`` and back).

    Semantics: ``direction`` is ``"host_to_device"`` (inputs, one element per
    ``program_stream_copy``) or ``"device_to_host"`` (outputs). ``type`` is one element.

    Example:
      "poplar.host_stream"() {name = "input.x", direction = "host_to_device", type = tensor<2x4xf32>} : () -> ()
    """

    name: ir.StringAttr
    direction: ir.StringAttr
    type: ir.TypeAttr

    def check(self, v: Rules) -> None:
        v.string("name", nonempty=True)
        v.string("direction", choices=("host_to_device", "device_to_host"))
        v.require(isinstance(v.type_attr("type"), ir.RankedTensorType), "attribute 'type' must be a ranked tensor type")


class FunctionOp(PoplarOp, name="function"):
    """A reusable program (``poplar::Function``) called with ``poplar.program_call``.

    Example:
      "poplar.function"() ({ ... }) {name = "stage0"} : () -> ()
    """

    name: ir.StringAttr
    body: ext.Region

    def check(self, v: Rules) -> None:
        v.string("name", nonempty=True)


_NAMED_GRAPH_OPS = ("poplar.variable", "poplar.remote_buffer", "poplar.host_stream", "poplar.function")


# ---------------------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------------------


class SequenceOp(PoplarOp, name="program_sequence"):
    """Runs its body's programs in order (``poplar::program::Sequence``).

    Example:
      "poplar.program_sequence"() ({ ... }) {name = "main"} : () -> ()
    """

    name: ir.StringAttr
    body: ext.Region

    def check(self, v: Rules) -> None:
        v.string("name")


class RepeatOp(PoplarOp, name="program_repeat"):
    """Runs its body ``count`` (>= 1) times (``poplar::program::Repeat``): the device loop
    over device iterations or gradient-accumulation micro-batches.

    Example:
      "poplar.program_repeat"() ({ ... }) {count = 4 : i64} : () -> ()
    """

    count: ir.IntegerAttr
    body: ext.Region

    def check(self, v: Rules) -> None:
        v.int("count", min=1)


class CopyOp(PoplarOp, name="program_copy"):
    """Copies ``source`` into ``destination`` (``poplar::program::Copy``); the two may sit on
    different IPUs, which makes it an inter-IPU exchange.

    Example:
      "poplar.program_copy"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> ()
    """

    source: Tensor
    destination: Tensor

    def check(self, v: Rules) -> None:
        v.require(self.source.type == self.destination.type, f"source type {self.source.type} must equal destination type {self.destination.type}")


class StreamCopyOp(PoplarOp, name="program_stream_copy"):
    """Moves one element between host stream ``stream`` and ``tensor``.

    Semantics: for a host-to-device stream the next host element is written into
    ``tensor``; for a device-to-host stream ``tensor`` is appended to the host's
    buffer. The stream must be declared in the enclosing graph with the same type.

    Example:
      "poplar.program_stream_copy"(%x) {stream = "input.x"} : (tensor<2x4xf32>) -> ()
    """

    tensor: Tensor
    stream: ir.StringAttr

    def check(self, v: Rules) -> None:
        name = v.string("stream", nonempty=True)
        decl = _find_in_graph(self, "poplar.host_stream", name)
        v.require(decl is not None, f"refers to host stream \"{name}\", which the enclosing 'poplar.graph' does not declare")
        declared_attr = decl.attributes["type"] if "type" in decl.attributes else None
        declared = ir.TypeAttr(declared_attr).value if isinstance(declared_attr, ir.TypeAttr) else declared_attr
        v.require(declared == self.tensor.type, f"tensor type {self.tensor.type} must equal the type of stream \"{name}\" ({declared})")


class SyncOp(PoplarOp, name="program_sync"):
    """Synchronises tiles (``poplar::program::Sync``); ``kind`` is ``"internal"`` (the
    tiles of one IPU), ``"external"`` (all IPUs) or ``"global"``.

    Example:
      "poplar.program_sync"() {kind = "external"} : () -> ()
    """

    kind: ir.StringAttr

    def check(self, v: Rules) -> None:
        v.string("kind", choices=("internal", "external", "global"))


class PrintTensorOp(PoplarOp, name="program_print_tensor"):
    """Prints ``tensor`` on the host with ``title`` when the program reaches this point
    (``poplar::program::PrintTensor``).

    Example:
      "poplar.program_print_tensor"(%t) {title = "activations"} : (tensor<2x3xf32>) -> ()
    """

    tensor: Tensor
    title: ir.StringAttr

    def check(self, v: Rules) -> None:
        v.string("title")


class CallOp(PoplarOp, name="program_call"):
    """Runs the ``poplar.function`` named ``callee`` (``poplar::program::Call``).

    Example:
      "poplar.program_call"() {callee = "stage0"} : () -> ()
    """

    callee: ir.StringAttr

    def check(self, v: Rules) -> None:
        name = v.string("callee", nonempty=True)
        v.require(_find_in_graph(self, "poplar.function", name) is not None, f"calls \"{name}\", which the enclosing 'poplar.graph' does not define")


# ---------------------------------------------------------------------------------------
# Collectives
# ---------------------------------------------------------------------------------------


class AllReduceOp(PoplarOp, name="gcl_all_reduce"):
    """Reduces a tensor across replicas; every replica gets the result (``gcl::allReduce``).

    Semantics: ``op`` is ``"add"``, ``"mean"``, ``"mul"``, ``"min"`` or ``"max"``.

    Example:
      %r = "poplar.gcl_all_reduce"(%g) {op = "mean"} : (tensor<4xf32>) -> tensor<4xf32>
    """

    input: Tensor
    op: ir.StringAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        v.string("op", choices=("add", "mean", "mul", "min", "max"))
        v.require(self.input.type == self.result.type, f"result type {self.result.type} must equal input type {self.input.type}")


# ---------------------------------------------------------------------------------------
# popops: element-wise, reductions, slicing
# ---------------------------------------------------------------------------------------

# Element-wise functions usable in ``popops_map`` expressions, with their arity.
MAP_FUNCTIONS: dict[str, int] = {
    # unary
    "neg": 1, "abs": 1, "exp": 1, "expm1": 1, "log": 1, "log1p": 1, "sqrt": 1, "rsqrt": 1,
    "sin": 1, "cos": 1, "tan": 1, "tanh": 1, "sigmoid": 1, "relu": 1, "erf": 1, "floor": 1,
    "ceil": 1, "round": 1, "trunc": 1, "sign": 1, "reciprocal": 1, "square": 1, "not": 1,
    "bitwise_not": 1, "isnan": 1, "isinf": 1, "atan": 1, "asin": 1, "acos": 1,
    # binary
    "add": 2, "sub": 2, "mul": 2, "div": 2, "floor_div": 2, "trunc_div": 2, "pow": 2,
    "max": 2, "min": 2, "rem": 2, "fmod": 2, "atan2": 2, "eq": 2, "ne": 2, "lt": 2,
    "le": 2, "gt": 2, "ge": 2, "and": 2, "or": 2, "xor": 2, "bitwise_and": 2,
    "bitwise_or": 2, "bitwise_xor": 2,
    # ternary
    "select": 3, "clamp": 3,
}

_TOKEN = re.compile(r"\s*(?:(?P<arg>_\d+)|(?P<num>-?(?:\d+\.?\d*(?:e[-+]?\d+)?|inf|nan))|(?P<name>[a-z_][a-z0-9_]*)|(?P<punct>[(),]))", re.I)


def parse_map_expression(expr: str) -> tuple:
    """Parse a ``popops_map`` expression into nested tuples.

    Grammar: ``expr := _N | number | name(expr, ...)``. ``_1`` is the first operand.
    Returns ``("arg", n)``, ``("const", float)`` or ``("call", name, [args])``.
    Raises ValueError with the position of the first problem.
    """
    tokens: list[tuple[str, str, int]] = []
    pos = 0
    while pos < len(expr):
        match = _TOKEN.match(expr, pos)
        if match is None or match.end() == pos:
            if expr[pos:].strip() == "":
                break
            raise ValueError(f"unexpected character {expr[pos]!r} at offset {pos}")
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind), match.start(kind)))
        pos = match.end()
    index = 0

    def parse() -> tuple:
        nonlocal index
        if index >= len(tokens):
            raise ValueError("expression ends early")
        kind, text, at = tokens[index]
        index += 1
        if kind == "arg":
            return ("arg", int(text[1:]))
        if kind == "num":
            return ("const", float(text))
        if kind == "name":
            if text not in MAP_FUNCTIONS:
                raise ValueError(f"unknown function '{text}' at offset {at}")
            if index >= len(tokens) or tokens[index][1] != "(":
                raise ValueError(f"expected '(' after '{text}' at offset {at}")
            index += 1
            args = [parse()]
            while index < len(tokens) and tokens[index][1] == ",":
                index += 1
                args.append(parse())
            if index >= len(tokens) or tokens[index][1] != ")":
                raise ValueError(f"expected ')' to close '{text}' at offset {at}")
            index += 1
            if len(args) != MAP_FUNCTIONS[text]:
                raise ValueError(f"'{text}' takes {MAP_FUNCTIONS[text]} arguments, got {len(args)}")
            return ("call", text, args)
        raise ValueError(f"unexpected '{text}' at offset {at}")

    tree = parse()
    if index != len(tokens):
        raise ValueError(f"unexpected '{tokens[index][1]}' at offset {tokens[index][2]}")
    return tree


def map_expression_args(tree: tuple) -> set[int]:
    """Operand numbers (1-based) an expression reads."""
    if tree[0] == "arg":
        return {tree[1]}
    if tree[0] == "call":
        return set().union(*(map_expression_args(a) for a in tree[2]))
    return set()


def _check_broadcast(v: Rules, operands: Sequence[ir.Value], result: ir.Value) -> None:
    shapes = [_shape(o, f"operand #{i}") for i, o in enumerate(operands)]
    out = broadcast_shapes(shapes)
    v.require(out is not None, f"operand shapes {shapes} do not broadcast")
    v.require(out == _shape(result, "result"), f"result shape {_shape(result, 'result')} must be the broadcast shape {out}")


class _BinaryOp(PoplarOp):
    """Element-wise binary op with NumPy broadcasting; operands and result share the
    element type."""

    lhs: Tensor
    rhs: Tensor
    result: TensorResult

    def check(self, v: Rules) -> None:
        _check_broadcast(v, [self.lhs, self.rhs], self.result)
        types = {str(_element(self.lhs)), str(_element(self.rhs)), str(_element(self.result))}
        v.require(len(types) == 1, f"operands and result must share one element type, got {', '.join(sorted(types))}")


class AddOp(_BinaryOp, name="popops_add", traits=[ext.Pure]):
    """``lhs + rhs`` (``popops::add``).

    Example:
      %r = "poplar.popops_add"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    """


class SubOp(_BinaryOp, name="popops_sub", traits=[ext.Pure]):
    """``lhs - rhs`` (``popops::sub``).

    Example:
      %r = "poplar.popops_sub"(%a, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    """


class MulOp(_BinaryOp, name="popops_mul", traits=[ext.Pure]):
    """``lhs * rhs`` (``popops::mul``).

    Example:
      %r = "poplar.popops_mul"(%a, %b) : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xf32>
    """


class DivOp(_BinaryOp, name="popops_div", traits=[ext.Pure]):
    """``lhs / rhs`` (``popops::div``); true division for floats.

    Example:
      %r = "poplar.popops_div"(%a, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    """


class MapOp(PoplarOp, name="popops_map", traits=[ext.Pure]):
    """An element-wise expression over up to three broadcast operands, run as one compute
    set (``popops::map`` with a ``popops::expr`` tree).

    Semantics: ``expr`` uses ``_1``, ``_2``, ``_3`` for the operands, numeric literals,
    and the functions of ``MAP_FUNCTIONS`` (e.g. ``select(gt(_1, 0.0), _1, mul(_1, 0.1))``).
    Each step computes in the operands' element type; comparisons give ``i1``. The
    operands sit in three groups (``in1``, then at most one each in ``in2`` and ``in3``)
    because IRDL makes all values of one variadic group share a type, and map operands
    differ (broadcast shapes, ``i1`` conditions).

    Example:
      %r = "poplar.popops_map"(%a, %b) {expr = "add(mul(_1, _2), 1.0)", operandSegmentSizes = array<i32: 1, 1, 0>}
             : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    """

    in1: Tensor
    in2: Sequence[Tensor]
    in3: Sequence[Tensor]
    expr: ir.StringAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        expr = v.string("expr", nonempty=True)
        try:
            tree = parse_map_expression(expr)
            # Walking the tree recurses too (two frames a level): it overflows first.
            used = map_expression_args(tree)
        except ValueError as error:
            raise RuleViolation(f"has an invalid expression \"{expr}\": {error}") from None
        except RecursionError:
            raise RuleViolation(f"has an expression nested too deeply ({len(expr)} characters)") from None
        second, third = list(self.in2), list(self.in3)
        v.require(len(second) <= 1 and len(third) <= 1, f"expects at most one operand in each of in2 and in3, got {len(second)} and {len(third)}")
        v.require(second or not third, "in3 needs an operand in in2")
        operands = [self.in1, *second, *third]
        v.require(all(1 <= n <= len(operands) for n in used), f"expression \"{expr}\" reads {sorted(used)} but the op has {len(operands)} operands")
        _check_broadcast(v, operands, self.result)


class CastOp(PoplarOp, name="popops_cast", traits=[ext.Pure]):
    """Converts ``input`` to the result's element type (``popops::cast``); the shape is kept.

    Example:
      %r = "poplar.popops_cast"(%a) : (tensor<3xf32>) -> tensor<3xf16>
    """

    input: Tensor
    result: TensorResult

    def check(self, v: Rules) -> None:
        v.require(_shape(self.input, "input") == _shape(self.result, "result"), "result shape must equal input shape")


class ReduceOp(PoplarOp, name="popops_reduce", traits=[ext.Pure]):
    """Reduces ``dims`` of ``input`` with ``op`` then multiplies by ``scale``
    (``popops::reduce`` with ``ReduceParams(op, false, scale)``).

    Semantics: ``op`` is ``"add"``, ``"mul"``, ``"min"``, ``"max"``, ``"square_add"``,
    ``"logical_and"`` or ``"logical_or"``; ``dims`` are distinct and in range;
    ``keep_dims`` keeps reduced dims as size 1. A mean is ``add`` with scale 1/N.

    Example:
      %r = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 1>, keep_dims = false,
                                       scale = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2xf32>
    """

    input: Tensor
    op: ir.StringAttr
    dims: I64ArrayAttr
    keep_dims: ir.IntegerAttr
    scale: ir.FloatAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        v.string("op", choices=("add", "mul", "min", "max", "square_add", "logical_and", "logical_or"))
        shape = _shape(self.input, "input")
        dims = v.i64_array("dims", min=0)
        v.require(len(set(dims)) == len(dims), f"attribute 'dims' has duplicates: {dims}")
        v.require(all(d < len(shape) for d in dims), f"attribute 'dims' {dims} out of range for rank {len(shape)}")
        keep = v.bool("keep_dims")
        v.float("scale")
        expected = [1 if i in dims else s for i, s in enumerate(shape)] if keep else [s for i, s in enumerate(shape) if i not in dims]
        v.require(_shape(self.result, "result") == expected, f"result shape must be {expected}, got {_shape(self.result, 'result')}")


class _ArgReduceOp(PoplarOp):
    """Index of the extreme element along ``dim``; the result has ``i32`` or ``i64`` elements."""

    input: Tensor
    dim: ir.IntegerAttr
    keep_dims: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = _shape(self.input, "input")
        dim = v.int("dim", min=0)
        _check_dim(v, dim, len(shape))
        keep = v.bool("keep_dims")
        element = _element(self.result)
        v.require(isinstance(element, ir.IntegerType), f"result must have integer elements, got {element}")
        if shape:
            expected = [1 if i == dim else s for i, s in enumerate(shape)] if keep else [s for i, s in enumerate(shape) if i != dim]
        else:
            expected = []
        v.require(_shape(self.result, "result") == expected, f"result shape must be {expected}, got {_shape(self.result, 'result')}")


class ArgMaxOp(_ArgReduceOp, name="popops_arg_max", traits=[ext.Pure]):
    """Index of the maximum along ``dim`` (``popops::argMax``); first index on ties.

    Example:
      %i = "poplar.popops_arg_max"(%a) {dim = 1 : i64, keep_dims = false} : (tensor<2x3xf32>) -> tensor<2xi64>
    """


class ArgMinOp(_ArgReduceOp, name="popops_arg_min", traits=[ext.Pure]):
    """Index of the minimum along ``dim`` (``popops::argMin``); first index on ties.

    Example:
      %i = "poplar.popops_arg_min"(%a) {dim = 0 : i64, keep_dims = true} : (tensor<2x3xf32>) -> tensor<1x3xi64>
    """


class MultiSliceOp(PoplarOp, name="popops_multi_slice", traits=[ext.Pure]):
    """Picks slices of ``table`` along ``dim`` at ``indices`` (``popops::multiSlice``):
    embedding lookups and ``index_select``.

    Semantics: result shape = table shape with dim ``dim`` replaced by the indices'
    shape.

    Example:
      %e = "poplar.popops_multi_slice"(%table, %ids) {dim = 0 : i64} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
    """

    table: Tensor
    indices: Tensor
    dim: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        table = _shape(self.table, "table")
        index_shape = _shape(self.indices, "indices")
        dim = v.int("dim", min=0)
        _check_dim(v, dim, len(table))
        v.require(isinstance(_element(self.indices), ir.IntegerType), "indices must have integer elements")
        expected = table[:dim] + index_shape + table[dim + 1 :]
        v.require(_shape(self.result, "result") == expected, f"result shape must be {expected}, got {_shape(self.result, 'result')}")


class GatherOp(PoplarOp, name="popops_gather", traits=[ext.Pure]):
    """Element-wise gather along ``dim`` (``popops::gather``, torch.gather semantics):
    ``result[i][j] = input[indices[i][j]][j]`` for ``dim = 0``.

    Example:
      %g = "poplar.popops_gather"(%a, %idx) {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
    """

    input: Tensor
    indices: Tensor
    dim: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = _shape(self.input, "input")
        dim = v.int("dim", min=0)
        _check_dim(v, dim, len(shape))
        index_shape = _shape(self.indices, "indices")
        v.require(isinstance(_element(self.indices), ir.IntegerType), "indices must have integer elements")
        v.require(len(index_shape) == len(shape), f"indices rank {len(index_shape)} must equal input rank {len(shape)}")
        v.require(
            all(i <= s for d, (i, s) in enumerate(zip(index_shape, shape, strict=True)) if d != dim),
            f"indices shape {index_shape} must not exceed input shape {shape} outside dim {dim}",
        )
        v.require(_shape(self.result, "result") == index_shape, "result shape must equal the indices' shape")


class ScaledAddToOp(PoplarOp, name="popops_scaled_add_to"):
    """In place: ``destination += scale * source`` (``popops::scaledAddTo``).

    Example:
      "poplar.popops_scaled_add_to"(%w, %g) {scale = -0.01 : f64} : (tensor<4xf32>, tensor<4xf32>) -> ()
    """

    destination: Tensor
    source: Tensor
    scale: ir.FloatAttr

    def check(self, v: Rules) -> None:
        v.float("scale")
        v.require(self.destination.type == self.source.type, f"source type {self.source.type} must equal destination type {self.destination.type}")


class PadOp(PoplarOp, name="popops_pad", traits=[ext.Pure]):
    """Pads each dim with ``low``/``high`` elements of ``value`` (``popops::pad``).

    Example:
      %p = "poplar.popops_pad"(%a) {low = array<i64: 0, 1>, high = array<i64: 0, 1>, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x5xf32>
    """

    input: Tensor
    low: I64ArrayAttr
    high: I64ArrayAttr
    value: ir.FloatAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = _shape(self.input, "input")
        low = v.i64_array("low", size=len(shape), min=0)
        high = v.i64_array("high", size=len(shape), min=0)
        v.float("value")
        expected = [s + a + b for s, a, b in zip(shape, low, high, strict=True)]
        v.require(_shape(self.result, "result") == expected, f"result shape must be {expected}, got {_shape(self.result, 'result')}")


# ---------------------------------------------------------------------------------------
# poplin: matmul and convolution
# ---------------------------------------------------------------------------------------


class MatMulOp(PoplarOp, name="poplin_matmul", traits=[ext.Pure]):
    """Matrix product (``poplin::matMul``; rank 3 operands are ``matMulGrouped``).

    Semantics: ``[.., m, k] x [.., k, n] -> [.., m, n]`` with the leading (group) dims
    equal; both operands rank 2 or both rank 3.

    Example:
      %c = "poplar.poplin_matmul"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    """

    lhs: Tensor
    rhs: Tensor
    result: TensorResult

    def check(self, v: Rules) -> None:
        a, b = _shape(self.lhs, "lhs"), _shape(self.rhs, "rhs")
        v.require(len(a) == len(b) and len(a) in (2, 3), f"operands must both be rank 2 or both rank 3, got ranks {len(a)} and {len(b)}")
        v.require(a[-1] == b[-2], f"contracting dims differ: lhs {a} and rhs {b}")
        v.require(a[:-2] == b[:-2], f"group dims differ: lhs {a} and rhs {b}")
        expected = a[:-1] + [b[-1]]
        v.require(_shape(self.result, "result") == expected, f"result shape must be {expected}, got {_shape(self.result, 'result')}")


def _conv_out(size: int, kernel: int, stride: int, pad_lo: int, pad_hi: int, dilation: int) -> int:
    return (size + pad_lo + pad_hi - dilation * (kernel - 1) - 1) // stride + 1


class ConvOp(PoplarOp, name="poplin_conv", traits=[ext.Pure]):
    """N-d convolution (``poplin::convolution``) with an optional bias (``poplin::addBias``).

    Semantics: input ``[N, C, *spatial]``, weights ``[O, C / groups, *kernel]``, bias
    ``[O]`` (zero or one operand); ``stride``, ``dilation`` (>= 1) and ``padding``
    (>= 0, same low and high) have one entry per spatial dim.

    Example:
      %y = "poplar.poplin_conv"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
             dilation = array<i64: 1, 1>, groups = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>}
             : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    """

    input: Tensor
    weights: Tensor
    bias: Sequence[Tensor]
    stride: I64ArrayAttr
    padding: I64ArrayAttr
    dilation: I64ArrayAttr
    groups: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        x, w = _shape(self.input, "input"), _shape(self.weights, "weights")
        v.require(len(x) >= 3 and len(x) == len(w), f"input and weights must have the same rank >= 3, got {len(x)} and {len(w)}")
        spatial = len(x) - 2
        stride = v.i64_array("stride", size=spatial, min=1)
        padding = v.i64_array("padding", size=spatial, min=0)
        dilation = v.i64_array("dilation", size=spatial, min=1)
        groups = v.int("groups", min=1)
        v.require(x[1] % groups == 0 and w[0] % groups == 0, f"channels ({x[1]} in, {w[0]} out) must be divisible by groups ({groups})")
        v.require(w[1] * groups == x[1], f"weights expect {w[1] * groups} input channels, input has {x[1]}")
        bias = list(self.bias)
        v.require(len(bias) <= 1, f"expects at most one bias, got {len(bias)}")
        if bias:
            v.require(_shape(bias[0], "bias") == [w[0]], f"bias shape must be [{w[0]}], got {_shape(bias[0], 'bias')}")
        expected = [x[0], w[0]] + [
            _conv_out(x[2 + i], w[2 + i], stride[i], padding[i], padding[i], dilation[i]) for i in range(spatial)
        ]
        v.require(_shape(self.result, "result") == expected, f"result shape must be {expected}, got {_shape(self.result, 'result')}")


# ---------------------------------------------------------------------------------------
# popnn: pooling, normalisation, non-linearities
# ---------------------------------------------------------------------------------------


class PoolOp(PoplarOp, name="popnn_pool", traits=[ext.Pure]):
    """Max or average pooling over the spatial dims (``popnn::pooling::pool``).

    Semantics: input ``[N, C, *spatial]``; ``kind`` ``"max"``, ``"avg"`` or
    ``"sum"``; ``kernel``, ``stride`` (>= 1) and ``padding`` (>= 0) per spatial dim;
    ``ceil_mode`` rounds the output size up; ``count_include_pad`` counts padding in
    averages.

    Example:
      %y = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>,
             padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true}
             : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
    """

    input: Tensor
    kind: ir.StringAttr
    kernel: I64ArrayAttr
    stride: I64ArrayAttr
    padding: I64ArrayAttr
    ceil_mode: ir.IntegerAttr
    count_include_pad: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        x = _shape(self.input, "input")
        expected = _check_pool_window(v, x)
        v.require(_shape(self.result, "result") == expected, f"result shape must be {expected}, got {_shape(self.result, 'result')}")


def _check_pool_window(v: Rules, x: list[int]) -> list[int]:
    """Check a pool's ``kind`` and window attributes against input shape ``x``; returns
    the pooled shape ``[N, C, *out]`` (PyTorch's formula, ceil_mode included)."""
    v.string("kind", choices=("max", "avg", "sum"))
    v.require(len(x) >= 3, f"input must have rank >= 3 ([N, C, *spatial]), got rank {len(x)}")
    spatial = len(x) - 2
    kernel = v.i64_array("kernel", size=spatial, min=1)
    stride = v.i64_array("stride", size=spatial, min=1)
    padding = v.i64_array("padding", size=spatial, min=0)
    ceil = v.bool("ceil_mode")
    v.bool("count_include_pad")
    v.require(all(2 * p <= k for p, k in zip(padding, kernel, strict=True)), f"padding {padding} must be at most half the kernel {kernel}")
    out = []
    for i in range(spatial):
        span = x[2 + i] + 2 * padding[i] - kernel[i]
        size = (-(-span // stride[i]) if ceil else span // stride[i]) + 1
        if ceil and (size - 1) * stride[i] >= x[2 + i] + padding[i]:
            size -= 1
        out.append(size)
    return x[:2] + out


NORM_STATS = {"batch": 2, "layer": 0, "group": 0, "instance": 0}


class NormOp(PoplarOp, name="popnn_norm", traits=[ext.Pure]):
    """Normalisation in inference form (``popnn::bn``, ``popnn::ln``, ``popnn::gn``).

    Semantics by ``kind``:
    - ``"batch"``: x ``[N, C, ...]`` normalised with the running ``stats`` (mean, var),
      both ``[C]``, then scaled and shifted by ``scale`` and ``bias`` ``[C]``.
    - ``"layer"``: over the last ``num_dims`` dims of x (scale/bias have those dims'
      shape); no stats.
    - ``"group"`` / ``"instance"``: ``num_groups`` groups of the channels (instance: one
      group per channel); scale/bias ``[C]``; no stats.
    ``epsilon`` > 0 is added to the variance.

    Example:
      %y = "poplar.popnn_norm"(%x, %g, %b) {kind = "layer", epsilon = 1.0e-05 : f64,
             num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>}
             : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    """

    input: Tensor
    scale: Tensor
    bias: Tensor
    stats: Sequence[Tensor]
    kind: ir.StringAttr
    epsilon: ir.FloatAttr
    num_groups: ir.IntegerAttr
    num_dims: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        kind = v.string("kind", choices=tuple(NORM_STATS))
        v.float("epsilon", min=0.0, min_exclusive=True)
        groups = v.int("num_groups", min=1)
        num_dims = v.int("num_dims", min=1)
        stats = list(self.stats)
        v.count(stats, NORM_STATS[kind], f"stats operands for kind \"{kind}\"")
        x = _shape(self.input, "input")
        v.require(_shape(self.result, "result") == x, "result shape must equal input shape")
        if kind == "layer":
            v.require(num_dims <= len(x), f"attribute 'num_dims' ({num_dims}) exceeds the input rank {len(x)}")
            param_shape = x[len(x) - num_dims :]
        else:
            v.require(len(x) >= 2, f"input must have rank >= 2 ([N, C, ...]), got rank {len(x)}")
            param_shape = [x[1]]
            if kind in ("group", "instance"):
                v.require(x[1] % groups == 0, f"channels ({x[1]}) must be divisible by num_groups ({groups})")
        for what, value in (("scale", self.scale), ("bias", self.bias), *((f"stats #{i}", t) for i, t in enumerate(stats))):
            v.require(_shape(value, what) == param_shape, f"{what} must have shape {param_shape}, got {_shape(value, what)}")


NONLINEARITIES = ("relu", "gelu_erf", "gelu_tanh", "sigmoid", "tanh", "silu", "hard_sigmoid", "hard_swish", "softmax", "log_softmax", "safe_softmax")
_SOFTMAX_KINDS = ("softmax", "log_softmax", "safe_softmax")


class NonLinearityOp(PoplarOp, name="popnn_nonlinearity", traits=[ext.Pure]):
    """A neural-network non-linearity (``popnn::nonLinearity`` / ``popnn::logSoftmax``).

    Semantics: ``kind`` is one of ``NONLINEARITIES``; softmax kinds normalise along
    ``dim`` (numerically stable form), element-wise kinds ignore it (set 0).

    Example:
      %y = "poplar.popnn_nonlinearity"(%x) {kind = "softmax", dim = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    """

    input: Tensor
    kind: ir.StringAttr
    dim: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        kind = v.string("kind", choices=NONLINEARITIES)
        dim = v.int("dim", min=0)
        shape = _shape(self.input, "input")
        if kind in _SOFTMAX_KINDS:
            _check_dim(v, dim, len(shape))
        v.require(self.input.type == self.result.type, f"result type {self.result.type} must equal input type {self.input.type}")


# ---------------------------------------------------------------------------------------
# Training: gradients, normalisation with batch statistics, losses, random
# ---------------------------------------------------------------------------------------


def _same_as(v: Rules, value: ir.Value, reference: ir.Value, what: str, reference_what: str) -> None:
    v.require(value.type == reference.type, f"{what} type {value.type} must equal {reference_what} type {reference.type}")


class NonLinearityGradOp(PoplarOp, name="popnn_nonlinearity_grad", traits=[ext.Pure]):
    """Input gradient of a non-linearity (``popnn::nonLinearityInputGradient``).

    Semantics: ``grad`` is the gradient of the output; ``saved`` is what the kind's
    gradient reads: the forward input for ``relu``, ``gelu_erf``, ``gelu_tanh``,
    ``silu``, ``hard_sigmoid`` and ``hard_swish``, the forward output for ``sigmoid``,
    ``tanh``, ``softmax``, ``log_softmax`` and ``safe_softmax`` (along ``dim``).

    Example:
      %gx = "poplar.popnn_nonlinearity_grad"(%g, %x) {kind = "relu", dim = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    """

    grad: Tensor
    saved: Tensor
    kind: ir.StringAttr
    dim: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        kind = v.string("kind", choices=NONLINEARITIES)
        dim = v.int("dim", min=0)
        if kind in _SOFTMAX_KINDS:
            _check_dim(v, dim, len(_shape(self.saved, "saved")))
        _same_as(v, self.saved, self.grad, "saved", "grad")
        _same_as(v, self.result, self.grad, "result", "grad")


class NormTrainingOp(PoplarOp, name="popnn_norm_training", traits=[ext.Pure]):
    """Normalisation with the batch's own statistics (``popnn::bn::batchNormalise`` with
    ``bn::batchNormStatistics``; ``popnn::ln``/``gn`` likewise).

    Semantics: ``kind`` ``"batch"``: statistics over all dims but 1 of x ``[N, C, ...]``;
    results ``mean`` and ``invstd`` are ``[C]``; with ``running_stats`` (running mean,
    running var ``[C]``) the op also gives their updates ``new_running_stats`` =
    (1 - momentum) * old + momentum * batch statistic (unbiased variance).
    ``"layer"``: over the last ``num_dims`` dims, mean and invstd keep the leading dims
    with the normalised ones as size 1; no running statistics. ``"group"``: over
    ``num_groups`` groups, mean and invstd ``[N, num_groups]``.

    Example:
      %y, %m, %r = "poplar.popnn_norm_training"(%x, %g, %b) {kind = "layer", epsilon = 1.0e-05 : f64,
             momentum = 0.0 : f64, num_groups = 1 : i64, num_dims = 1 : i64,
             operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>}
             : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
    """

    input: Tensor
    scale: Tensor
    bias: Tensor
    running_stats: Sequence[Tensor]
    kind: ir.StringAttr
    epsilon: ir.FloatAttr
    momentum: ir.FloatAttr
    num_groups: ir.IntegerAttr
    num_dims: ir.IntegerAttr
    result: TensorResult
    mean: TensorResult
    invstd: TensorResult
    new_running_stats: Sequence[TensorResult]

    def check(self, v: Rules) -> None:
        kind = v.string("kind", choices=("batch", "layer", "group"))
        v.float("epsilon", min=0.0, min_exclusive=True)
        v.float("momentum", min=0.0, max=1.0)
        groups = v.int("num_groups", min=1)
        num_dims = v.int("num_dims", min=1)
        x = _shape(self.input, "input")
        _same_as(v, self.result, self.input, "result", "input")
        stats, updates = list(self.running_stats), list(self.new_running_stats)
        v.require(kind == "batch" or not stats, f"running statistics apply to kind \"batch\" only, got {len(stats)} for \"{kind}\"")
        v.count(stats, (0, 2), "running statistics operands (mean, var)")
        v.require(len(updates) == len(stats), f"expects {len(stats)} new running statistics results, got {len(updates)}")
        if kind == "layer":
            v.require(num_dims <= len(x), f"attribute 'num_dims' ({num_dims}) exceeds the input rank {len(x)}")
            param_shape = x[len(x) - num_dims :]
            stat_shape = x[: len(x) - num_dims] + [1] * num_dims
        else:
            v.require(len(x) >= 2, f"input must have rank >= 2 ([N, C, ...]), got rank {len(x)}")
            param_shape = [x[1]]
            if kind == "group":
                v.require(x[1] % groups == 0, f"channels ({x[1]}) must be divisible by num_groups ({groups})")
                stat_shape = [x[0], groups]
            else:
                stat_shape = [x[1]]
        for what, value in (("scale", self.scale), ("bias", self.bias), *((f"running stats #{i}", t) for i, t in enumerate(stats)),
                            *((f"new running stats #{i}", t) for i, t in enumerate(updates))):
            v.require(_shape(value, what) == param_shape, f"{what} must have shape {param_shape}, got {_shape(value, what)}")
        for what, value in (("mean", self.mean), ("invstd", self.invstd)):
            v.require(_shape(value, what) == stat_shape, f"{what} must have shape {stat_shape}, got {_shape(value, what)}")


class NormGradOp(PoplarOp, name="popnn_norm_grad", traits=[ext.Pure]):
    """Gradients of a normalisation from its saved statistics (``popnn::bn::batchNormGradients``,
    ``ln::layerNormGradients``, ``gn::groupNormGradients``).

    Semantics: from the output gradient ``grad``, the forward ``input``, its ``mean``
    and ``invstd`` (as ``popnn_norm_training`` gives them) and ``scale``: the input
    gradient ``grad_input`` and the parameter gradients ``grad_scale`` and ``grad_bias``
    (shapes of ``scale``). Attributes as in ``popnn_norm_training``.

    Example:
      %gx, %gs, %gb = "poplar.popnn_norm_grad"(%g, %x, %m, %r, %s) {kind = "batch", epsilon = 1.0e-05 : f64,
             num_groups = 1 : i64, num_dims = 1 : i64}
             : (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
             -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
    """

    grad: Tensor
    input: Tensor
    mean: Tensor
    invstd: Tensor
    scale: Tensor
    kind: ir.StringAttr
    epsilon: ir.FloatAttr
    num_groups: ir.IntegerAttr
    num_dims: ir.IntegerAttr
    grad_input: TensorResult
    grad_scale: TensorResult
    grad_bias: TensorResult

    def check(self, v: Rules) -> None:
        v.string("kind", choices=("batch", "layer", "group"))
        v.float("epsilon", min=0.0, min_exclusive=True)
        v.int("num_groups", min=1)
        v.int("num_dims", min=1)
        _same_as(v, self.grad, self.input, "grad", "input")
        _same_as(v, self.grad_input, self.input, "grad_input", "input")
        _same_as(v, self.mean, self.invstd, "mean", "invstd")
        _same_as(v, self.grad_scale, self.scale, "grad_scale", "scale")
        _same_as(v, self.grad_bias, self.scale, "grad_bias", "scale")


class ConvGradOp(PoplarOp, name="poplin_conv_grad", traits=[ext.Pure]):
    """Gradients of ``poplin_conv`` (``poplin::calculateWeightDeltas`` and the input
    gradient convolution).

    Semantics: from the output gradient ``grad``, the forward ``input`` and ``weights``
    (and the forward's stride / padding / dilation / groups): ``grad_input`` (shape of
    input), ``grad_weights`` (shape of weights) and ``grad_bias`` (``[O]``); each result
    group holds zero or one value, as the program needs it.

    Example:
      %gi, %gw, %gb = "poplar.poplin_conv_grad"(%g, %x, %w) {stride = array<i64: 1, 1>,
             padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64,
             resultSegmentSizes = array<i32: 1, 1, 1>}
             : (tensor<1x4x8x8xf32>, tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>)
             -> (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
    """

    grad: Tensor
    input: Tensor
    weights: Tensor
    stride: I64ArrayAttr
    padding: I64ArrayAttr
    dilation: I64ArrayAttr
    groups: ir.IntegerAttr
    grad_input: Sequence[TensorResult]
    grad_weights: Sequence[TensorResult]
    grad_bias: Sequence[TensorResult]

    def check(self, v: Rules) -> None:
        x, w, g = _shape(self.input, "input"), _shape(self.weights, "weights"), _shape(self.grad, "grad")
        v.require(len(x) >= 3 and len(x) == len(w) == len(g), f"grad, input and weights must have the same rank >= 3, got {len(g)}, {len(x)} and {len(w)}")
        spatial = len(x) - 2
        stride = v.i64_array("stride", size=spatial, min=1)
        padding = v.i64_array("padding", size=spatial, min=0)
        dilation = v.i64_array("dilation", size=spatial, min=1)
        v.int("groups", min=1)
        expected = [x[0], w[0]] + [_conv_out(x[2 + i], w[2 + i], stride[i], padding[i], padding[i], dilation[i]) for i in range(spatial)]
        v.require(g == expected, f"grad shape must be the forward output shape {expected}, got {g}")
        for what, values, shape in (("grad_input", self.grad_input, x), ("grad_weights", self.grad_weights, w), ("grad_bias", self.grad_bias, [w[0]])):
            values = list(values)
            v.require(len(values) <= 1, f"expects at most one {what} result, got {len(values)}")
            if values:
                v.require(_shape(values[0], what) == shape, f"{what} must have shape {shape}, got {_shape(values[0], what)}")


class PoolGradOp(PoplarOp, name="popnn_pool_grad", traits=[ext.Pure]):
    """Input gradient of ``popnn_pool`` (``popnn::pooling::poolInputGradient``).

    Semantics: from the forward ``input`` and the output gradient ``grad``, with the
    forward's attributes; the result has the input's type.

    Example:
      %gx = "poplar.popnn_pool_grad"(%x, %g) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>,
             padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true}
             : (tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
    """

    input: Tensor
    grad: Tensor
    kind: ir.StringAttr
    kernel: I64ArrayAttr
    stride: I64ArrayAttr
    padding: I64ArrayAttr
    ceil_mode: ir.IntegerAttr
    count_include_pad: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        x = _shape(self.input, "input")
        _check_pool_window(v, x)
        _same_as(v, self.result, self.input, "result", "input")
        v.require(_shape(self.grad, "grad")[:2] == x[:2], f"grad must have the input's batch and channel dims {x[:2]}")


class NllLossOp(PoplarOp, name="popnn_nll_loss", traits=[ext.Pure]):
    """Negative log-likelihood of ``log_probs`` ``[N, C]`` (or ``[C]``) at integer ``target``
    ``[N]`` (``popnn::calcLoss`` with ``CROSS_ENTROPY`` on log-probabilities).

    Semantics: ``reduction`` ``"mean"`` (over targets not equal to ``ignore_index``),
    ``"sum"`` or ``"none"`` (one loss per sample).

    Example:
      %l = "poplar.popnn_nll_loss"(%lp, %t) {reduction = "mean", ignore_index = -100 : i64} : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32>
    """

    log_probs: Tensor
    target: Tensor
    reduction: ir.StringAttr
    ignore_index: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        reduction = v.string("reduction", choices=("mean", "sum", "none"))
        v.int("ignore_index")
        x, t = _shape(self.log_probs, "log_probs"), _shape(self.target, "target")
        v.require(len(x) in (1, 2), f"log_probs must be [N, C] or [C], got rank {len(x)}")
        v.require(isinstance(_element(self.target), ir.IntegerType), "target must have integer elements")
        v.require(t == x[:-1], f"target shape must be {x[:-1]}, got {t}")
        expected = x[:-1] if reduction == "none" else []
        v.require(_shape(self.result, "result") == expected, f"result shape must be {expected}, got {_shape(self.result, 'result')}")


class NllLossGradOp(PoplarOp, name="popnn_nll_loss_grad", traits=[ext.Pure]):
    """Gradient of ``popnn_nll_loss`` with respect to ``log_probs`` (the result has its type).

    Example:
      %g = "poplar.popnn_nll_loss_grad"(%gl, %lp, %t) {reduction = "mean", ignore_index = -100 : i64}
             : (tensor<f32>, tensor<4x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
    """

    grad: Tensor
    log_probs: Tensor
    target: Tensor
    reduction: ir.StringAttr
    ignore_index: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        reduction = v.string("reduction", choices=("mean", "sum", "none"))
        v.int("ignore_index")
        x = _shape(self.log_probs, "log_probs")
        expected = x[:-1] if reduction == "none" else []
        v.require(_shape(self.grad, "grad") == expected, f"grad shape must be {expected}, got {_shape(self.grad, 'grad')}")
        _shape(self.target, "target")
        v.require(isinstance(_element(self.target), ir.IntegerType), "target must have integer elements")
        _same_as(v, self.result, self.log_probs, "result", "log_probs")


class MultiUpdateAddOp(PoplarOp, name="popops_multi_update_add", traits=[ext.Pure]):
    """Sums rows of ``updates`` into a zero table at ``indices`` (``popops::multiUpdateAdd``):
    the weight gradient of an embedding.

    Semantics: result ``[num_rows, *row]`` from ``updates`` ``[*indices.shape, *row]``;
    rows at ``padding_index`` (if >= 0) get no gradient.

    Example:
      %gw = "poplar.popops_multi_update_add"(%g, %ids) {padding_index = -1 : i64} : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>
    """

    updates: Tensor
    indices: Tensor
    padding_index: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        v.int("padding_index", min=-1)
        u, i, r = _shape(self.updates, "updates"), _shape(self.indices, "indices"), _shape(self.result, "result")
        v.require(isinstance(_element(self.indices), ir.IntegerType), "indices must have integer elements")
        v.require(u[: len(i)] == i, f"updates {u} must start with the indices' shape {i}")
        v.require(len(r) >= 1 and r[1:] == u[len(i) :], f"result rows {r[1:]} must match the update rows {u[len(i):]}")
        v.require(_element(self.updates) == _element(self.result), "updates and result must share one element type")


class DropoutOp(PoplarOp, name="poprand_dropout"):
    """Zeroes elements with probability ``p`` and scales the rest by 1 / (1 - p)
    (``poprand::dropout``).

    Semantics: draws from the program's random generator (seeded by
    ``Options.randomSeed``), so the same seed gives the same masks; ``mask`` (``i1``,
    input's shape) records the kept elements for the gradient. Not pure: every
    execution draws a new mask.

    Example:
      %y, %m = "poplar.poprand_dropout"(%x) {p = 0.1 : f64} : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi1>)
    """

    input: Tensor
    p: ir.FloatAttr
    result: TensorResult
    mask: TensorResult

    def check(self, v: Rules) -> None:
        p = v.float("p", min=0.0)
        v.require(p < 1.0, f"attribute 'p' must be < 1, got {p}")
        _same_as(v, self.result, self.input, "result", "input")
        v.require(_shape(self.mask, "mask") == _shape(self.input, "input"), "mask must have the input's shape")
        element = _element(self.mask)
        v.require(isinstance(element, ir.IntegerType) and ir.IntegerType(element).width == 1, f"mask must have i1 elements, got {element}")


# ---------------------------------------------------------------------------------------
# Tensor views (methods of poplar::Tensor: no compute, no copy)
# ---------------------------------------------------------------------------------------


class ReshapeOp(PoplarOp, name="reshape", traits=[ext.Pure]):
    """``Tensor::reshape``: same elements, new shape.

    Example:
      %r = "poplar.reshape"(%a) : (tensor<2x3xf32>) -> tensor<6xf32>
    """

    input: Tensor
    result: TensorResult

    def check(self, v: Rules) -> None:
        a, r = _shape(self.input, "input"), _shape(self.result, "result")
        v.require(_prod(a) == _prod(r), f"cannot reshape {a} ({_prod(a)} elements) to {r} ({_prod(r)} elements)")
        v.require(_element(self.input) == _element(self.result), "element type must not change")


def _prod(shape: Sequence[int]) -> int:
    out = 1
    for s in shape:
        out *= s
    return out


class DimShuffleOp(PoplarOp, name="dim_shuffle", traits=[ext.Pure]):
    """``Tensor::dimShuffle``: result dim i is input dim ``permutation[i]``.

    Example:
      %t = "poplar.dim_shuffle"(%a) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    """

    input: Tensor
    permutation: I64ArrayAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = _shape(self.input, "input")
        perm = v.i64_array("permutation", size=len(shape))
        v.require(sorted(perm) == list(range(len(shape))), f"attribute 'permutation' {perm} is not a permutation of 0..{len(shape) - 1}")
        expected = [shape[p] for p in perm]
        v.require(_shape(self.result, "result") == expected, f"result shape must be {expected}, got {_shape(self.result, 'result')}")


class SliceOp(PoplarOp, name="slice", traits=[ext.Pure]):
    """``Tensor::slice`` with a stride (``subSample``): per dim, elements
    ``begin, begin + stride, ...`` below ``end``.

    Example:
      %s = "poplar.slice"(%a) {begin = array<i64: 0, 1>, end = array<i64: 2, 3>, stride = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
    """

    input: Tensor
    begin: I64ArrayAttr
    end: I64ArrayAttr
    stride: I64ArrayAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = _shape(self.input, "input")
        begin = v.i64_array("begin", size=len(shape), min=0)
        end = v.i64_array("end", size=len(shape), min=0)
        stride = v.i64_array("stride", size=len(shape), min=1)
        for d, (b, e, s) in enumerate(zip(begin, end, shape, strict=True)):
            v.require(b <= e <= s, f"dim {d}: need 0 <= begin ({b}) <= end ({e}) <= size ({s})")
        expected = [-(-(e - b) // st) for b, e, st in zip(begin, end, stride, strict=True)]
        v.require(_shape(self.result, "result") == expected, f"result shape must be {expected}, got {_shape(self.result, 'result')}")


class ConcatOp(PoplarOp, name="concat", traits=[ext.Pure]):
    """``poplar::concat`` of two tensors along ``dim`` (longer lists chain: views are free).

    Example:
      %c = "poplar.concat"(%a, %b) {dim = 0 : i64} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
    """

    lhs: Tensor
    rhs: Tensor
    dim: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        a, b = _shape(self.lhs, "lhs"), _shape(self.rhs, "rhs")
        dim = v.int("dim", min=0)
        v.require(len(a) >= 1, "cannot concatenate rank-0 tensors")
        _check_dim(v, dim, len(a))
        same = len(a) == len(b) and all(x == y for d, (x, y) in enumerate(zip(a, b, strict=True)) if d != dim)
        v.require(same, f"operand shapes {a} and {b} differ outside dim {dim}")
        v.require(_element(self.lhs) == _element(self.rhs) == _element(self.result), "operands and result must share one element type")
        expected = list(a)
        expected[dim] = a[dim] + b[dim]
        v.require(_shape(self.result, "result") == expected, f"result shape must be {expected}, got {_shape(self.result, 'result')}")


class BroadcastOp(PoplarOp, name="broadcast", traits=[ext.Pure]):
    """Broadcasts ``input`` to the result shape (NumPy rules; ``Tensor::broadcast``/``expand``).

    Example:
      %b = "poplar.broadcast"(%a) : (tensor<1x3xf32>) -> tensor<4x3xf32>
    """

    input: Tensor
    result: TensorResult

    def check(self, v: Rules) -> None:
        a, r = _shape(self.input, "input"), _shape(self.result, "result")
        v.require(broadcast_shapes([a, r]) == r and len(a) <= len(r), f"cannot broadcast {a} to {r}")
        v.require(_element(self.input) == _element(self.result), "element type must not change")


def register_traits() -> None:
    """Attach the traits ``ext`` cannot declare: regions without terminators."""
    for name in ("poplar.graph", "poplar.function", "poplar.program_sequence", "poplar.program_repeat"):
        ir.NoTerminatorTrait.attach(name)

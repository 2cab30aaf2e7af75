"""Graph-level ``poplar`` ops: the graph, its data (variables, constants, host streams,
remote buffers), its functions, and the control programs (``poplar::program::*``) that
order compute and move data. The graph's verifier checks its ``#poplar.interface`` and
``#poplar.memory_plan``, a function's checks its ``#pipeline.plan``.
"""

from typing import Any

from torch_mlir import ir
from torch_mlir.dialects import ext

from .._base import I64ArrayAttr, Rules, RuleViolation
from ..pipeline import Plan
from ..pipeline_attrs import PLAN_ATTR
from .attributes import ANCHORS_ATTR, INTERFACE_ATTR, MAIN_PROGRAM, MEMORY_ATTR, Interface, MemoryPlan, anchors_of
from .base import PoplarOp, Tensor, TensorResult
from ..print_format import read_print_format
from .enums import CopyMode, StreamDirection, SyncKind, VariableKind

# Discardable attribute of a program_copy: its CopyMode (poplar-share-buffers).
COPY_MODE_ATTR = "poplar.copy_mode"
PRINT_FORMAT_ATTR = "poplar.print_format"


def variable_kind(variable: ir.Operation) -> VariableKind:
    """What a (verified) ``poplar.variable`` holds: its ``kind``."""
    return VariableKind(ir.StringAttr(variable.attributes["kind"]).value)


def copy_mode(copy: ir.Operation) -> CopyMode:
    """How a (verified) ``poplar.program_copy`` writes its destination: its
    ``poplar.copy_mode``, ``copy`` when absent."""
    if COPY_MODE_ATTR not in copy.attributes:
        return CopyMode.COPY
    return CopyMode(ir.StringAttr(copy.attributes[COPY_MODE_ATTR]).value)


def _read(parse: Any, attr: ir.Attribute) -> Any:
    """``parse(attr)``, a malformed attribute's ValueError as a rule violation."""
    try:
        return parse(attr)
    except ValueError as error:
        raise RuleViolation(str(error)) from None


def _name_of(op: ir.Operation) -> str | None:
    """The ``name`` attribute of ``op`` if it is a string. Siblings may not be verified
    yet when a verifier looks at them, so nothing about them can be assumed."""
    attrs = op.attributes
    if "name" not in attrs or not isinstance(attrs["name"], ir.StringAttr):
        return None
    return ir.StringAttr(attrs["name"]).value


# The last graph searched: (its hash, (op name, name) -> position of the first such op in its
# block). Verifying a graph looks up every remote load / store, stream copy and call this way:
# a scan each was O(n^2) (4.8 s of BERT-base's compile). The index holds no op handle, and a
# hit is only believed after the op now at that position is read and matches: IR that changed
# since (ops erased, inserted, another graph at the same address) misses and is scanned again.
_graph_index: tuple[int, dict[tuple[str, str], int]] | None = None


def _find_in_graph(op: ir.OpView, op_name: str, name: str) -> ir.Operation | None:
    """The first ``op_name`` op named ``name`` in the ``poplar.graph`` enclosing ``op``."""
    global _graph_index
    graph = op.operation.parent
    while graph is not None and graph.name != "poplar.graph":
        graph = graph.parent
    if graph is None:
        return None
    ops = graph.regions[0].blocks[0].operations
    key = hash(graph)
    if _graph_index is not None and _graph_index[0] == key:
        position = _graph_index[1].get((op_name, name))
        if position is not None and position < len(ops):
            candidate = ops[position].operation
            if candidate.name == op_name and _name_of(candidate) == name:
                return candidate
    index: dict[tuple[str, str], int] = {}
    found = None
    for position, candidate in enumerate(ops):
        operation = candidate.operation
        candidate_name = _name_of(operation)
        if candidate_name is None:
            continue
        index.setdefault((operation.name, candidate_name), position)
        if found is None and operation.name == op_name and candidate_name == name:
            found = operation
    _graph_index = (key, index)
    return found


class GraphOp(PoplarOp, name="graph"):
    """A Poplar graph for a target of ``num_ipus`` IPUs x ``replication_factor`` replicas.

    Semantics: the body holds the graph's variables, constants, streams, remote buffers,
    functions and exactly one ``poplar.program_sequence`` named ``"main"`` (the program
    the engine runs). ``tiles_per_ipu`` (>= 1) comes from the target. Optional:
    ``poplar.interface`` (``#poplar.interface``: its streams, functions and main program
    must be in the graph), ``poplar.anchors`` (``[#poplar.anchor, ...]``: the anchored
    tensors, each through its own device-to-host stream of the graph) and ``poplar.memory``
    (``#poplar.memory_plan``, over the graph's IPUs).

    Example:
      "poplar.graph"() ({ ... }) {num_ipus = 1 : i64, replication_factor = 1 : i64,
                                  tiles_per_ipu = 1472 : i64} : () -> ()
    """

    num_ipus: ir.IntegerAttr
    replication_factor: ir.IntegerAttr
    tiles_per_ipu: ir.IntegerAttr
    body: ext.Region

    def check(self, v: Rules) -> None:
        num_ipus = v.int("num_ipus", min=1, max=64)
        v.int("replication_factor", min=1)
        v.int("tiles_per_ipu", min=1)
        # A generic-form region may have no block; MLIR allows at most one here.
        ops = list(self.body.blocks[0].operations) if len(self.body.blocks) else []
        names: dict[str, str] = {}
        streams: dict[str, str | None] = {}  # host stream -> its direction (None: not a string yet)
        variable_kinds: dict[str, str | None] = {}  # variable -> its kind (None: not a string yet)
        mains = 0
        for op in ops:
            name = _name_of(op.operation)
            if name is not None and op.operation.name in _NAMED_GRAPH_OPS:
                v.require(name not in names, f"defines \"{name}\" twice ({names.get(name)} and {op.operation.name})")
                names[name] = op.operation.name
            if name is not None and op.operation.name == "poplar.host_stream":
                direction = op.operation.attributes["direction"] if "direction" in op.operation.attributes else None
                streams[name] = ir.StringAttr(direction).value if isinstance(direction, ir.StringAttr) else None
            if name is not None and op.operation.name == "poplar.variable":
                kind = op.operation.attributes["kind"] if "kind" in op.operation.attributes else None
                variable_kinds[name] = ir.StringAttr(kind).value if isinstance(kind, ir.StringAttr) else None
            if op.operation.name == "poplar.program_sequence" and name == MAIN_PROGRAM:
                mains += 1
        v.require(mains == 1, f"must hold exactly one 'poplar.program_sequence' named \"{MAIN_PROGRAM}\" (the program the engine runs), got {mains}")
        if v.has(INTERFACE_ATTR):
            interface = _read(Interface.from_attr, self.operation.attributes[INTERFACE_ATTR])
            _check_interface(v, interface, names, streams, variable_kinds)
        if v.has(ANCHORS_ATTR):
            _check_anchors(v, _read(anchors_of, self.operation), streams)
        if v.has(MEMORY_ATTR):
            plan = _read(MemoryPlan.from_attr, self.operation.attributes[MEMORY_ATTR])
            for entry in plan.ipus:
                v.require(entry.ipu < num_ipus, f"'{MEMORY_ATTR}' plans IPU {entry.ipu} but the graph has num_ipus = {num_ipus}")


def _check_interface(v: Rules, interface: Interface, names: dict[str, str], streams: dict[str, str | None],
                     variable_kinds: dict[str, str | None]) -> None:
    """The interface names host streams of the right direction, state variables (once
    each), functions and the main program of the graph."""
    where = f"'{INTERFACE_ATTR}'"
    listed: set[str] = set()
    for _, name in interface.variables:
        v.require(name not in listed, f"{where} lists variable \"{name}\" twice")
        listed.add(name)
        v.require(name in variable_kinds, f"{where} variable \"{name}\" is not a 'poplar.variable' of the graph")
        kind = variable_kinds[name]
        v.require(kind not in tuple(VariableKind) or VariableKind(kind).outlives_a_run,
                  f"{where} variable \"{name}\" holds {kind}, not state the host provides")
    bound = [(f"input '{name}'", stream, StreamDirection.HOST_TO_DEVICE) for name, stream in interface.inputs.items()]
    bound += [(f"output #{index}", stream, StreamDirection.DEVICE_TO_HOST) for index, stream in enumerate(interface.outputs)]
    for what, stream, direction in bound:
        v.require(stream in streams, f"{where} {what} streams through \"{stream}\", which is not a 'poplar.host_stream' of the graph")
        v.require(streams[stream] in (None, direction.value),
                  f"{where} {what} streams through \"{stream}\", whose direction is {streams[stream]}, not {direction.value}")
    for role, function in (("step", interface.step), ("update", interface.update)):
        if function is not None:
            v.require(names.get(function) == "poplar.function",
                      f"{where} {role} function \"{function}\" is not a 'poplar.function' of the graph")
    v.require(interface.main == MAIN_PROGRAM, f"{where} main program must be \"{MAIN_PROGRAM}\", got \"{interface.main}\"")


def _check_anchors(v: Rules, anchors: Any, streams: dict[str, str | None]) -> None:
    """Each anchored tensor streams through a device-to-host stream of the graph of its own."""
    where = f"'{ANCHORS_ATTR}'"
    used: set[str] = set()
    for anchor in anchors:
        v.require(anchor.stream not in used, f"{where} streams two anchors through \"{anchor.stream}\"; each needs its own stream")
        used.add(anchor.stream)
        v.require(anchor.stream in streams, f"{where} anchor \"{anchor.name}\" streams through \"{anchor.stream}\", "
                                            "which is not a 'poplar.host_stream' of the graph")
        v.require(streams[anchor.stream] in (None, StreamDirection.DEVICE_TO_HOST.value),
                  f"{where} anchor \"{anchor.name}\" streams through \"{anchor.stream}\", whose direction is "
                  f"{streams[anchor.stream]}, not {StreamDirection.DEVICE_TO_HOST.value}")


class VariableOp(PoplarOp, name="variable"):
    """A tensor variable of the graph, on IPU ``ipu``.

    Semantics: ``kind`` (:class:`VariableKind`) says what it holds: state that outlives a
    run (weight, buffer, optimizer_state, accumulator, scalar), one micro-batch's data
    (input, anchor: an output for the host, exchange: a copy from another IPU) or a
    per-run sum of outputs (sum). It is the only source of the variable's role: no reader
    looks at the ``name`` (unique in the graph; the parameter path for weights).
    ``tiles`` is the linear tile mapping ``array<i64: first_tile, num_tiles>``, empty
    until ``poplar-map-tiles`` runs.

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
        v.enum("kind", VariableKind)
        v.int("ipu", min=0)
        tiles = v.i64_array("tiles", min=0)
        v.require(len(tiles) in (0, 2), f"attribute 'tiles' must be empty or [first_tile, num_tiles], got {tiles}")
        v.require(len(tiles) == 0 or tiles[1] >= 1, "attribute 'tiles' must map to at least one tile")
        Rules.ranked(self.result, "result")
        _check_replica_shard(v, self)


def _check_replica_shard(v: Rules, op: PoplarOp) -> None:
    """A sharded variable (``poplar.replica_shard``) holds its part of the tensor, across
    the enclosing graph's replicas."""
    from .gcl import replication_factor_of
    from .sharding import replica_shard_of

    try:
        shard = replica_shard_of(op.operation)
    except ValueError as error:
        v.require(False, str(error))
        return
    if shard is None:
        return
    replicas = replication_factor_of(op.operation)
    v.require(replicas is None or replicas == shard.replicas,
              f"is sharded across {shard.replicas} replicas but the enclosing 'poplar.graph' has "
              f"replication_factor {replicas}")


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
        v.enum("direction", StreamDirection)
        v.require(isinstance(v.type_attr("type"), ir.RankedTensorType), "attribute 'type' must be a ranked tensor type")


class FunctionOp(PoplarOp, name="function"):
    """A reusable program (``poplar::Function``) called with ``poplar.program_call``.

    Semantics: a step function split over several IPUs carries its ``pipeline.plan``
    (``#pipeline.plan``, from ``poplar-build-program``), which names each stage's IPU.

    Example:
      "poplar.function"() ({ ... }) {name = "stage0"} : () -> ()
    """

    name: ir.StringAttr
    body: ext.Region

    def check(self, v: Rules) -> None:
        v.string("name", nonempty=True)
        if v.has(PLAN_ATTR):
            plan = _read(Plan.from_attr, self.operation.attributes[PLAN_ATTR])
            v.require(len(plan.stage_ipus) == plan.num_stages,
                      f"'{PLAN_ATTR}' of a function must name the IPU of each of its {plan.num_stages} stages, got "
                      f"stage_ipus = {list(plan.stage_ipus)}")


_NAMED_GRAPH_OPS = ("poplar.variable", "poplar.remote_buffer", "poplar.host_stream", "poplar.function")


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

    Semantics: the optional discardable ``poplar.copy_mode`` (``CopyMode``, set by
    ``poplar-share-buffers``) says how the IPU Model runs the copy: ``"copy"`` (the
    default) writes the source's elements into the destination; ``"share"`` lets the
    destination, a ``poplar.variable`` that is no exchange buffer, take the source's
    buffer, which nothing else holds afterwards.

    Example:
      "poplar.program_copy"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> ()
      "poplar.program_copy"(%new, %w) {poplar.copy_mode = "share"} : (tensor<4xf32>, tensor<4xf32>) -> ()
    """

    source: Tensor
    destination: Tensor

    def check(self, v: Rules) -> None:
        v.require(self.source.type == self.destination.type, f"source type {self.source.type} must equal destination type {self.destination.type}")
        if not v.has(COPY_MODE_ATTR) or v.enum(COPY_MODE_ATTR, CopyMode) is CopyMode.COPY:
            return
        owner = self.destination.owner
        variable = None if isinstance(owner, ir.Block) else owner.operation
        v.require(variable is not None and variable.name == "poplar.variable",
                  f"{COPY_MODE_ATTR} \"share\" needs a 'poplar.variable' destination")
        v.require(variable_kind(variable) is not VariableKind.EXCHANGE,
                  f"{COPY_MODE_ATTR} \"share\" cannot write an exchange buffer: the copy moves data to another IPU")


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
        v.enum("kind", SyncKind)


class PrintTensorOp(PoplarOp, name="program_print_tensor"):
    """Prints ``tensor`` on the host with ``title`` when the program reaches this point
    (``poplar::program::PrintTensor``).

    Semantics: the optional discardable ``poplar.print_format`` (``PrintTensorFmt``: see
    ``dialects/print_format.py``) lays the values out; absent keys take Poplar's defaults.

    Example:
      "poplar.program_print_tensor"(%t) {title = "activations"} : (tensor<2x3xf32>) -> ()
      "poplar.program_print_tensor"(%t) {title = "a", poplar.print_format = {edge_items = 1 : i64}} : (tensor<2x3xf32>) -> ()
    """

    tensor: Tensor
    title: ir.StringAttr

    def check(self, v: Rules) -> None:
        v.string("title")
        read_print_format(self.operation, PRINT_FORMAT_ATTR)


class CallOp(PoplarOp, name="program_call"):
    """Runs the ``poplar.function`` named ``callee`` (``poplar::program::Call``).

    Example:
      "poplar.program_call"() {callee = "stage0"} : () -> ()
    """

    callee: ir.StringAttr

    def check(self, v: Rules) -> None:
        name = v.string("callee", nonempty=True)
        callee = _find_in_graph(self, "poplar.function", name)
        v.require(callee is not None, f"calls \"{name}\", which the enclosing 'poplar.graph' does not define")
        caller = self.operation.parent
        while caller is not None and caller.name != "poplar.function":
            caller = caller.parent
        path = _call_path(self, callee, _name_of(caller)) if callee is not None and caller is not None else None
        if path is not None:
            cycle = " -> ".join([_name_of(caller) or "?", *path, _name_of(caller) or "?"])
            v.require(False, f"calls \"{name}\", which calls back into the function that calls it ({cycle}): "
                             "Poplar programs cannot recurse")


def _call_path(op: ir.OpView, function: ir.Operation, target: str | None) -> list[str] | None:
    """The names of the functions from ``function`` (included) to the one that calls
    ``target`` ([] if ``function`` is ``target``), if ``function`` reaches a call of
    ``target`` directly or through other functions; None otherwise."""
    if target is None:
        return None
    if _name_of(function) == target:
        return []
    stack, seen = [(function, [_name_of(function) or "?"])], set()
    while stack:
        current, path = stack.pop()
        calls: list[str] = []

        def visit(inner: ir.Operation, calls: list[str] = calls) -> ir.WalkResult:
            if inner.name == "poplar.program_call" and isinstance(inner.attributes.get("callee"), ir.StringAttr):
                calls.append(ir.StringAttr(inner.attributes["callee"]).value)
            return ir.WalkResult.ADVANCE

        current.walk(visit)
        for name in calls:
            if name == target:
                return path
            found = _find_in_graph(op, "poplar.function", name)
            if found is not None and name not in seen:
                seen.add(name)
                stack.append((found, [*path, name]))
    return None

"""poplar-place-tensors: variables whose class lives off chip move to streaming memory.

Input: a ``poplar.graph`` after ``poplar-build-program`` / ``pipeline-schedule``, and the
module's ``#poplar.tensor_locations`` (written by the driver from
``Options.TensorLocations``; none: everything stays on chip). Output: each weight,
optimizer-state or accumulator variable whose class is off chip (and which has at least
``min_elements_for_off_chip`` elements) gets a ``poplar.remote_buffer`` named
``remote.<variable>`` and ``poplar.remote_buffer = "remote.<variable>"``; every program
that uses it loads it (``poplar.program_remote_load``) just before its first use and, if
it may write it, stores it (``poplar.program_remote_store``) just after its last use, so
it is on chip only in between (``poplar-plan-memory`` counts it there).

Off-chip activations (the activation class off chip): in each function holding a backward
pass (ops whose location says ``bwd``), every forward value read by the backward pass or after
it (with at least ``min_elements_for_off_chip`` elements, not a view of a variable) is stored
to a remote buffer ``activation.<n>`` (``pipeline.remote_store``) after its last forward use
and loaded (``pipeline.remote_load``) before its first later reader
(``phase_moves.move_activations``). Refused in a pipelined step (its stash keeps activations
on chip) and in phased execution (the phases' liveness decides).

Where the load goes: in the innermost block whose uses it must cover. A block whose uses
of the variable are all inside calls or nested programs (a ``program_repeat`` calling the
step, the ``update`` function) hands each of them its own load and store; a block with a
direct use loads before its first user and stores after its last.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from torch_mlir import ir

from ipu_mlir.dialects.pipeline import phases_of, plan_of
from ipu_mlir.dialects.poplar import (
    IO_TILES_ATTR,
    POPLAR_VIEWS,
    REMOTE_BUFFER_ATTR,
    TensorLocation,
    TensorLocations,
    tensor_locations_of,
    variable_kind,
)
from ipu_mlir.dialects.poplar.program_order import graphs_of
from ipu_mlir.support.ir_build import i64, string
from ipu_mlir.support.ir_walk import operands_within

from .. import location_metadata as meta
from ..pass_base import Diagnostics, ModulePass, PassOptionError
from ..phase_moves import move_activations

_REMOTE_PREFIX = "remote."
_GAP = 8  # ops without a use of an off-chip variable after which it is reloaded rather than kept


def _elements(value: ir.Value) -> int:
    count = 1
    for dim in ir.RankedTensorType(value.type).shape:
        count *= dim
    return count


def _callees(op: ir.Operation) -> list[str]:
    """The functions ``op`` calls, directly or in its nested programs."""
    found: list[str] = []

    def visit(inner: ir.Operation) -> ir.WalkResult:
        if inner.name == "poplar.program_call":
            found.append(ir.StringAttr(inner.attributes["callee"]).value)
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    return found


def _writes(op: ir.Operation, value: ir.Value) -> bool:
    """Whether ``op`` (or an op nested in it) may write ``value``: it is an operand of an op
    without results (program ops and in-place updates), except as a copy's source or a
    device-to-host stream's element. Conservative: a read counted as a write costs a store."""
    found = False

    def visit(inner: ir.Operation) -> ir.WalkResult:
        nonlocal found
        if inner.results or inner.name in ("poplar.program_remote_load", "poplar.program_remote_store",
                                           "poplar.program_print_tensor"):
            return ir.WalkResult.ADVANCE
        operands = list(inner.operands)
        if inner.name == "poplar.program_copy":
            operands = operands[1:]
        if value in operands:
            found = True
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    return found


class _BlockIndex:
    """One block's ops, and which ops use each value (directly or in nested programs) or call
    which functions: built once, so placing many variables stays linear in the block."""

    def __init__(self, block: ir.Block) -> None:
        self.ops = [op.operation for op in block.operations]
        self.users: dict[ir.Value, list[int]] = {}
        self.callees: list[list[str]] = []
        for index, op in enumerate(self.ops):
            for operand in set(operands_within(op)):
                self.users.setdefault(operand, []).append(index)
            self.callees.append(_callees(op))
        # The positions of the ops that call functions: placing a variable looks at these
        # only (every op for every variable was 1M checks in BERT-base's step).
        self.calling = [(index, callees) for index, callees in enumerate(self.callees) if callees]


class _Placer:
    """Inserts the loads and stores of the off-chip variables of one graph."""

    def __init__(self, graph: ir.Operation, io_tiles: int) -> None:
        self.functions: dict[str, ir.Block] = {}
        for op in graph.regions[0].blocks[0].operations:
            # a function whose region has no block runs nothing: it uses no variable
            if op.operation.name == "poplar.function" and len(op.operation.regions[0].blocks):
                self.functions[ir.StringAttr(op.operation.attributes["name"]).value] = op.operation.regions[0].blocks[0]
        self._indexes: list[tuple[ir.Block, _BlockIndex]] = []
        self._used: dict[str, set[ir.Value]] = {}
        self._done: set[tuple[str, ir.Value]] = set()
        self.io_tiles = io_tiles

    def index(self, block: ir.Block) -> _BlockIndex:
        """The block's index, built on first use. The loads and stores this pass inserts use
        only their own (already placed) variable, so the index of the other ops stays valid."""
        for known, index in self._indexes:
            if known == block:
                return index
        index = _BlockIndex(block)
        self._indexes.append((block, index))
        return index

    def function_values(self, name: str, seen: frozenset[str] = frozenset()) -> set[ir.Value]:
        """The values function ``name`` uses, directly or through its calls."""
        if name not in self._used:
            block = self.functions.get(name)
            used: set[ir.Value] = set()
            if block is not None and name not in seen:
                index = self.index(block)
                used.update(index.users)
                for callees in index.callees:
                    for callee in callees:
                        used |= self.function_values(callee, seen | {name})
            self._used[name] = used
        return self._used[name]

    def function_uses(self, name: str, value: ir.Value) -> bool:
        return value in self.function_values(name)

    def place(self, block: ir.Block, value: ir.Value, buffer: str, load_io: bool, store_io: bool) -> None:
        index = self.index(block)
        ops = index.ops
        # The variable and the views of it made in this block: a view reads its buffer.
        used = set(index.users.get(value, []))
        pending = list(used)
        while pending:
            at = pending.pop()
            if ops[at].name in POPLAR_VIEWS:
                for result in ops[at].results:
                    for later in index.users.get(result, []):
                        if later not in used:
                            used.add(later)
                            pending.append(later)
        direct = bool(index.users.get(value))
        for at, callees in index.calling:
            if any(self.function_uses(callee, value) for callee in callees):
                used.add(at)
        # A pipelined step runs only the ops of its stages (the decoder and Poplar run a
        # pipeline.schedule stage by stage, each micro-batch in turn): each stage using the
        # variable loads and stores its own, inside the stage.
        for at in sorted(at for at in used if ops[at].name == "pipeline.schedule"):
            used.discard(at)
            for stage in ops[at].regions[0].blocks[0].operations:
                for region in stage.operation.regions:
                    for inner in region.blocks:
                        self.place(inner, value, buffer, load_io, store_io)
        if not used:
            return
        positions = sorted(used)
        users = [ops[at] for at in positions]
        if not direct:  # only calls and nested programs use it: each loads and stores its own
            for op in users:
                if op.name == "poplar.program_call":
                    callee = ir.StringAttr(op.attributes["callee"]).value
                    if (callee, value) not in self._done:
                        self._done.add((callee, value))
                        self.place(self.functions[callee], value, buffer, load_io, store_io)
                else:
                    for region in op.regions:
                        for inner in region.blocks:
                            self.place(inner, value, buffer, load_io, store_io)
            return
        # One load per run of uses: more than _GAP ops without a use in between free the
        # on-chip copy (stored first if the run wrote it) until the next run loads it again.
        runs = [[positions[0]]]
        for at in positions[1:]:
            if at - runs[-1][-1] > _GAP:
                runs.append([])
            runs[-1].append(at)
        for run in runs:
            self._load_and_store([ops[at] for at in run], value, buffer, load_io, store_io)

    def _load_and_store(self, users: list[ir.Operation], value: ir.Value, buffer: str, load_io: bool,
                        store_io: bool) -> None:
        first, last = users[0], users[-1]
        written = any(_writes(op, value) or any(self.function_writes(c, value) for c in _callees(op)) for op in users)
        with ir.InsertionPoint(first):
            load = ir.Operation.create("poplar.program_remote_load", operands=[value],
                                       attributes={"buffer": string(buffer)}, loc=first.location)
        if load_io:
            load.attributes[IO_TILES_ATTR] = ir.UnitAttr.get()
        _copy_stage(first, load)
        if written:
            with ir.InsertionPoint(last):
                store = ir.Operation.create("poplar.program_remote_store", operands=[value],
                                            attributes={"buffer": string(buffer)}, loc=last.location)
            store.move_after(last)
            if store_io:
                store.attributes[IO_TILES_ATTR] = ir.UnitAttr.get()
            _copy_stage(last, store)

    def function_writes(self, name: str, value: ir.Value, seen: frozenset[str] = frozenset()) -> bool:
        block = self.functions.get(name)
        if block is None or name in seen:
            return False
        return any(_writes(op.operation, value) or any(self.function_writes(c, value, seen | {name})
                                                        for c in _callees(op.operation))
                   for op in block.operations)


def _has_backward(function: ir.Operation) -> bool:
    """Whether an op of ``function`` (nested ones too: a pipelined step's stages) is of the backward pass."""
    found = False

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal found
        found = found or meta.is_backward(op)
        return ir.WalkResult.INTERRUPT if found else ir.WalkResult.ADVANCE

    function.walk(visit)
    return found


def _copy_stage(source: ir.Operation, target: ir.Operation) -> None:
    """A load or store runs in the pipeline stage (and on the IPU) of the op it serves."""
    for name in ("pipeline.stage", "pipeline.ipu"):
        if name in source.attributes:
            target.attributes[name] = source.attributes[name]


@dataclasses.dataclass(frozen=True)
class PlaceTensors(ModulePass):
    """Move the variables of off-chip tensor classes to streaming memory, loaded before use and stored after update.

    Reads ``poplar.tensor_locations`` (``#poplar.tensor_locations``) on the module.

    Arguments:
      io-tiles: tiles of each IPU set aside for I/O (TensorLocations.numIOTiles); loads or
        stores through the I/O tiles need some (default 0).
    """

    name: ClassVar[str] = "poplar-place-tensors"
    io_tiles: int = 0

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        if self.io_tiles < 0:
            raise PassOptionError(f"pass '{self.name}': io-tiles must be >= 0, got {self.io_tiles}")
        try:
            locations = tensor_locations_of(module)
        except ValueError as error:
            diag.error(module, str(error))
            return
        if locations == TensorLocations():
            return
        for graph in graphs_of(module):
            self._place_graph(graph, locations, diag)
            if locations.activation.on_chip == 0:
                self._place_activations(graph, locations.activation, diag)

    def _place_activations(self, graph: ir.Operation, location: TensorLocation, diag: Diagnostics) -> None:
        """Off-chip activations: in each function holding a backward pass, the forward values
        read after it are stored after the forward pass and loaded before their backward use
        (``phase_moves.move_activations``)."""
        if (location.io_tiles_to_load or location.io_tiles_to_store) and self.io_tiles == 0:
            diag.error(graph, "activations are loaded or stored through I/O tiles (TensorLocationSettings."
                              "useIOTilesToLoad / useIOTilesToStore) but no I/O tiles are allocated: set "
                              "Options.TensorLocations.numIOTiles(32) or more")
            return
        for op in graph.regions[0].blocks[0].operations:
            function = op.operation
            if function.name != "poplar.function":
                continue
            if not _has_backward(function):
                continue  # no backward pass: nothing reads a forward value later
            plan, phases = plan_of(function), phases_of(function)
            if phases is not None:
                diag.error(function, "activations are placed off chip (TensorLocations.setActivationLocation("
                                     "TensorLocationSettings().useOnChipStorage(False))) in phased execution, where "
                                     "the liveness of the phases decides where activations live between phases: "
                                     "remove setActivationLocation and use strategy.setTensorsLiveness("
                                     "poptorch.Liveness.OffChipAfterFwd) instead")
                continue
            if plan is not None and plan.pipelined and plan.num_stages > 1:
                diag.error(function, "activations are placed off chip (TensorLocations.setActivationLocation("
                                     "TensorLocationSettings().useOnChipStorage(False))) in a pipelined step "
                                     f"({plan.num_stages} stages), which keeps the forward activations of the "
                                     "micro-batches in flight in on-chip stashes (pipeline.stash): off-chip "
                                     "activations are not available with pipelining. Keep activations on chip "
                                     "(the stash shrinks with recomputation: Options._Popart.set("
                                     "\"autoRecomputation\", 3)), or use ShardedExecution, or phased execution "
                                     "with Liveness.OffChipAfterFwd")
                continue
            for store, load in move_activations(function, location.min_elements_for_off_chip):
                if location.io_tiles_to_store:
                    store.attributes[IO_TILES_ATTR] = ir.UnitAttr.get()
                if location.io_tiles_to_load:
                    load.attributes[IO_TILES_ATTR] = ir.UnitAttr.get()

    def _place_graph(self, graph: ir.Operation, locations: TensorLocations, diag: Diagnostics) -> None:
        placer = _Placer(graph, self.io_tiles)
        main = None
        variables = []
        for op in graph.regions[0].blocks[0].operations:
            op = op.operation
            if op.name == "poplar.program_sequence":
                main = op
            elif op.name == "poplar.variable" and REMOTE_BUFFER_ATTR not in op.attributes:
                location = locations.of_kind(variable_kind(op))
                if location is not None and location.off_chip(_elements(op.results[0])):
                    variables.append((op, location))
        if main is None or not variables:
            return
        for op, location in variables:
            if (location.io_tiles_to_load or location.io_tiles_to_store) and self.io_tiles == 0:
                diag.error(graph, f"{variable_kind(op).value} tensors are loaded or stored through I/O tiles "
                                  "(TensorLocationSettings.useIOTilesToLoad / useIOTilesToStore) but no I/O tiles "
                                  "are allocated: set Options.TensorLocations.numIOTiles(32) or more")
                return
        for op, location in variables:
            name = ir.StringAttr(op.attributes["name"]).value
            buffer = _REMOTE_PREFIX + name
            with ir.InsertionPoint(op):
                remote = ir.Operation.create("poplar.remote_buffer", attributes={
                    "name": string(buffer), "type": ir.TypeAttr.get(op.results[0].type), "repeats": i64(1)})
            remote.move_after(op)
            if "ipu" in op.attributes:
                remote.attributes["pipeline.ipu"] = op.attributes["ipu"]
            op.attributes[REMOTE_BUFFER_ATTR] = string(buffer)
            for body in main.regions[0].blocks:  # none: a main with no block runs nothing
                placer.place(body, op.results[0], buffer, location.io_tiles_to_load, location.io_tiles_to_store)

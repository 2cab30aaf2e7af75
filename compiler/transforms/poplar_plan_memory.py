"""poplar-plan-memory: per-IPU and per-tile memory from tensor sizes and liveness.

Input: a tile-mapped ``poplar.graph``. Output: the graph annotated with its memory plan,
``poplar.memory = #poplar.memory_plan<[#poplar.ipu_memory<ipu, variables, temporaries,
stash, total>, ...]>`` (bytes), or a compile error naming the IPU that does not fit, its
largest tensors and the options that help.
Temporaries are the results of compute ops, live from their definition to their last
use (directly, through a view of them, or inside a nested program); the peak of their
sum over the program is added to the always-live variables. Views take no memory.
A matmul or convolution also holds its partial sums while it runs, where they are wider
than its result (float partials of a half result; ``dialects/poplar/planning.py``), split into
passes that fit its ``poplar.available_memory`` proportion of the IPU's compute memory.
The options record the user's defaults on those ops first: ``available-memory`` (per IPU,
``Options.setAvailableMemoryProportion``) and ``partials-type`` (``Precision.setPartialsType``).
I/O tiles (``io-tiles``, ``TensorLocations.numIOTiles``) are taken from every IPU's compute
tiles; they hold the buffers of host streams with a ``poplar.overlap`` (one or two copies by
mode) and the tensor of each remote load / store through them (``poplar.io_tiles``:
``TensorLocationSettings.useIOTilesToLoad`` / ``ToStore``; the copies of an IPU run one at a
time, so its largest one counts). An overlapped stream or an I/O-tile copy without I/O tiles,
or buffers beyond their memory, is an error.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from torch_mlir import ir

from ipu_mlir.dialects.pipeline import plan_of
from ipu_mlir.dialects.pipeline_attrs import STAGE_ATTR, ipu_of
from ipu_mlir.dialects.poplar import (
    IO_TILE_MEMORY_ATTR,
    MEMORY_ATTR,
    POPLAR_VIEWS,
    STREAMING_ATTR,
    IpuMemory,
    MemoryPlan,
    io_tile_memory_attr,
    streaming_attr,
)
from ipu_mlir.dialects.poplar import IO_TILES_ATTR, REMOTE_BUFFER_ATTR, variable_kind
from ipu_mlir.dialects.poplar.planning import (
    AVAILABLE_MEMORY_ATTR,
    PARTIALS_TYPE_ATTR,
    PLANNED_OPS,
    PartialsType,
    overlap_of,
    planned_temporaries,
)
from ipu_mlir.dialects.poplar.program_order import graphs_of
from ipu_mlir.support.ir_walk import operands_within, tensor_bytes
from ipu_mlir.support.target import MK2

from ..pass_base import Diagnostics, ModulePass, PassOptionError

_ALWAYS_LIVE = ("poplar.variable",)
_REMOTE_COPIES = ("poplar.program_remote_load", "poplar.program_remote_store", "pipeline.remote_load",
                  "pipeline.remote_store")


@dataclasses.dataclass
class IpuUsage:
    variables: int = 0
    temporaries: int = 0
    stash: int = 0  # copies kept for micro-batches in flight in a pipeline
    largest: list[tuple[int, str]] = dataclasses.field(default_factory=list)
    # Values already in ``largest``: a function called several times lists its tensors once.
    listed: set[ir.Value] = dataclasses.field(default_factory=set)

    @property
    def total(self) -> int:
        return self.variables + self.temporaries + self.stash


def _describe(op: ir.Operation) -> str:
    if "name" in op.attributes and isinstance(op.attributes["name"], ir.StringAttr):
        return f"variable '{ir.StringAttr(op.attributes['name']).value}'"
    return f"result of '{op.name}'"


def _peak_temporaries(block: ir.Block, usage: dict[int, IpuUsage], functions: dict[str, ir.Region],
                      compute_bytes: int) -> dict[int, int]:
    """Peak bytes of live compute results per IPU within ``block`` (calls included), with the
    planner temporaries of each matmul or convolution while it runs. ``functions``: each
    function's body region (a region without a block runs nothing)."""
    ops = [op.operation for op in block.operations]
    roots: dict[ir.Value, list[ir.Value]] = {}  # view result -> the values it aliases
    last_use: dict[ir.Value, int] = {}
    uses: dict[ir.Value, list[int]] = {}  # off-chip variables: where each load's copy is used
    loads: dict[ir.Value, list[int]] = {}
    for index, op in enumerate(ops):
        for operand in operands_within(op):
            for root in roots.get(operand, [operand]):
                last_use[root] = index
                uses.setdefault(root, []).append(index)
        if op.name == "poplar.program_remote_load":
            loads.setdefault(op.operands[0], []).append(index)
        if op.name in POPLAR_VIEWS:  # views alias their inputs: they keep them alive
            roots[op.results[0]] = [root for operand in op.operands for root in roots.get(operand, [operand])]
    live: dict[int, int] = {}
    peak: dict[int, int] = {}
    ending: dict[int, list[tuple[int, int]]] = {}
    for index, op in enumerate(ops):
        nested: dict[int, int] = {}
        if op.name == "poplar.program_call":
            callee = ir.StringAttr(op.attributes["callee"]).value
            for body in functions[callee].blocks if callee in functions else []:
                nested = _peak_temporaries(body, usage, functions, compute_bytes)
        for region in op.regions:
            for inner in region.blocks:
                for ipu, value in _peak_temporaries(inner, usage, functions, compute_bytes).items():
                    nested[ipu] = max(nested.get(ipu, 0), value)
        for ipu, value in nested.items():
            peak[ipu] = max(peak.get(ipu, 0), live.get(ipu, 0) + value)
        for result in op.results:
            if op.name in _ALWAYS_LIVE + POPLAR_VIEWS or not isinstance(result.type, ir.RankedTensorType):
                continue
            ipu = ipu_of(op)
            size = tensor_bytes(result.type)
            live[ipu] = live.get(ipu, 0) + size
            entry = usage.setdefault(ipu, IpuUsage())
            if result not in entry.listed:
                entry.listed.add(result)
                entry.largest.append((size, _describe(op)))
            ending.setdefault(last_use.get(result, index), []).append((ipu, size))
            peak[ipu] = max(peak.get(ipu, 0), live[ipu])
        if op.name == "poplar.program_remote_load":  # an off-chip variable: on chip until its last use here
            variable = op.operands[0]
            ipu, size = ipu_of(variable.owner), tensor_bytes(variable.type)
            live[ipu] = live.get(ipu, 0) + size
            following = [at for at in loads[variable] if at > index]
            until = following[0] if following else len(ops)
            ending.setdefault(max(at for at in uses[variable] if index <= at < until), []).append((ipu, size))
            peak[ipu] = max(peak.get(ipu, 0), live[ipu])
        if op.name in PLANNED_OPS:  # its partials beyond its results, while it runs
            ipu = ipu_of(op)
            peak[ipu] = max(peak.get(ipu, 0), live.get(ipu, 0) + planned_temporaries(op, compute_bytes))
        for ipu, size in ending.pop(index, []):
            live[ipu] -= size
    return peak


@dataclasses.dataclass(frozen=True)
class PlanMemory(ModulePass):
    """Compute per-IPU memory (variables + peak live temporaries) and reject programs that do not fit.

    Arguments:
      bytes-per-tile: memory of one tile (default 638976 = 624 KiB, Mk2).
      tiles-per-ipu: tiles of one IPU (default 1472, Mk2).
      io-tiles: tiles of each IPU set aside for overlapped host I/O (default 0).
      available-memory: the available memory proportion of each IPU's matmuls and
        convolutions, by IPU number, recorded on those without one (default: none, 0.6).
      partials-type: "float" or "half", recorded on matmuls and convolutions without one
        (default "": none).
    """

    name: ClassVar[str] = "poplar-plan-memory"
    bytes_per_tile: int = MK2.bytes_per_tile
    tiles_per_ipu: int = MK2.tiles_per_ipu
    io_tiles: int = 0
    available_memory: tuple[float, ...] = ()
    partials_type: str = ""

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        if not 0 <= self.io_tiles < self.tiles_per_ipu:  # a located error, as every option value the pass checks
            diag.error(module, f"{self.name}: io-tiles must be in [0, {self.tiles_per_ipu}) (tiles-per-ipu "
                               f"{self.tiles_per_ipu}: some tiles must compute), got {self.io_tiles}")
            return
        if any(not 0.0 <= p <= 1.0 for p in self.available_memory):
            diag.error(module, f"{self.name}: available-memory proportions must be in [0, 1], got {list(self.available_memory)}")
            return
        if self.partials_type:
            try:
                PartialsType.parse(self.partials_type, f"pass '{self.name}': partials-type")
            except ValueError as error:
                raise PassOptionError(str(error)) from None
        capacity = self.bytes_per_tile * (self.tiles_per_ipu - self.io_tiles)
        for graph in graphs_of(module):
            self._record_defaults(graph)
            usage: dict[int, IpuUsage] = {}
            functions: dict[str, ir.Block] = {}
            main = None
            io_buffers: dict[int, list[tuple[int, str]]] = {}
            streaming: dict[int, int] = {}  # bytes of remote buffers (poplar-place-tensors)
            by_kind: dict[int, dict[str, int]] = {}  # on-chip variable bytes by kind, for the advice
            for op in graph.regions[0].blocks[0].operations:
                op = op.operation
                if op.name == "poplar.host_stream" and overlap_of(op).io_buffers:
                    size = tensor_bytes(ir.TypeAttr(op.attributes["type"]).value) * overlap_of(op).io_buffers
                    io_buffers.setdefault(ipu_of(op), []).append((size, ir.StringAttr(op.attributes["name"]).value))
                elif op.name == "poplar.remote_buffer":
                    repeats = ir.IntegerAttr(op.attributes["repeats"]).value
                    size = tensor_bytes(ir.TypeAttr(op.attributes["type"]).value) * repeats
                    streaming[ipu_of(op)] = streaming.get(ipu_of(op), 0) + size
                elif op.name == "poplar.variable" and REMOTE_BUFFER_ATTR in op.attributes:
                    continue  # in streaming memory; on chip only from a remote load to its last use
                elif op.name == "poplar.variable":
                    size = tensor_bytes(op.results[0].type)
                    kinds = by_kind.setdefault(ipu_of(op), {})
                    kinds[variable_kind(op).value] = kinds.get(variable_kind(op).value, 0) + size
                    entry = usage.setdefault(ipu_of(op), IpuUsage())
                    entry.variables += size
                    entry.largest.append((size, _describe(op)))
                    tiles = list(ir.DenseI64ArrayAttr(op.attributes["tiles"]))
                    if tiles and -(-size // tiles[1]) > self.bytes_per_tile:
                        diag.error(op, f"{_describe(op)} needs {-(-size // tiles[1])} bytes per tile on {tiles[1]} tiles, "
                                   f"more than a tile's {self.bytes_per_tile} bytes; map it over more tiles")
                elif op.name == "poplar.function":
                    functions[ir.StringAttr(op.attributes["name"]).value] = op.regions[0]
                elif op.name == "poplar.program_sequence":
                    main = op
            self._check_io_tiles(graph, io_buffers, diag)
            self._check_io_copies(io_buffers, _io_copies(graph), diag)
            for body in main.regions[0].blocks if main is not None else []:
                for ipu, peak in _peak_temporaries(body, usage, functions, capacity).items():
                    usage.setdefault(ipu, IpuUsage()).temporaries = peak
            pipelined = _pipelined_step(graph)
            if pipelined is not None:
                for ipu, size in _stash_bytes(pipelined).items():
                    usage.setdefault(ipu, IpuUsage()).stash = size
            for ipu, entry in sorted(usage.items()):
                if entry.total > capacity:
                    largest = sorted(entry.largest, reverse=True)[:5]
                    listing = ", ".join(f"{what} ({size} bytes)" for size, what in largest)
                    advice = _location_advice(by_kind.get(ipu, {}), entry.total - capacity)
                    diag.error(graph, (
                        f"the program does not fit on IPU {ipu}: it needs {entry.total} bytes "
                        f"({entry.variables} in variables, {entry.temporaries} at the peak of live temporaries"
                        + (f", {entry.stash} stashed for micro-batches in flight" if entry.stash else "") + ") "
                        f"but an IPU has {capacity} bytes. Largest tensors: {listing}. " + advice +
                        "To fit: place tensors off chip (Options.TensorLocations), split the model over more IPUs "
                        "(poptorch.Block / BeginBlock with ShardedExecution or PipelinedExecution), use phased execution, "
                        "or reduce the micro-batch size."))
            plan = MemoryPlan.build([IpuMemory(ipu, entry.variables, entry.temporaries, entry.stash)
                                     for ipu, entry in usage.items()])
            graph.attributes[MEMORY_ATTR] = plan.attr()
            if streaming:
                graph.attributes[STREAMING_ATTR] = streaming_attr(streaming)
            if self.io_tiles:  # each IPU's I/O tiles: memory the compute tiles cannot use
                graph.attributes[IO_TILE_MEMORY_ATTR] = io_tile_memory_attr(self.io_tiles,
                                                                            self.io_tiles * self.bytes_per_tile)


    def _record_defaults(self, graph: ir.Operation) -> None:
        """The options' available memory (of the op's IPU) and partials type, on every
        matmul and convolution that has none of its own."""
        if not self.available_memory and not self.partials_type:
            return

        def visit(op: ir.Operation) -> ir.WalkResult:
            if op.name in PLANNED_OPS:
                ipu = ipu_of(op)
                if ipu < len(self.available_memory) and AVAILABLE_MEMORY_ATTR not in op.attributes:
                    op.attributes[AVAILABLE_MEMORY_ATTR] = ir.FloatAttr.get_f64(self.available_memory[ipu])
                if self.partials_type and PARTIALS_TYPE_ATTR not in op.attributes:
                    op.attributes[PARTIALS_TYPE_ATTR] = ir.StringAttr.get(self.partials_type)
            return ir.WalkResult.ADVANCE

        graph.walk(visit)

    def _check_io_tiles(self, graph: ir.Operation, io_buffers: dict[int, list[tuple[int, str]]], diag: Diagnostics) -> None:
        """Overlapped host streams need I/O tiles, and their buffers must fit in them."""
        io_capacity = self.io_tiles * self.bytes_per_tile
        for ipu, buffers in sorted(io_buffers.items()):
            names = ", ".join(f"'{name}' ({size} bytes)" for size, name in buffers)
            if self.io_tiles == 0:
                diag.error(graph, f"host streams {names} overlap computation (poptorch.set_overlap_for_input / "
                                  "_output), which needs I/O tiles to buffer them, but none are allocated: set "
                                  "Options.TensorLocations.numIOTiles(32) or more, or use OverlapMode.NoOverlap")
            elif sum(size for size, _ in buffers) > io_capacity:
                diag.error(graph, f"the overlapped host streams of IPU {ipu} need {sum(size for size, _ in buffers)} "
                                  f"bytes of I/O tile buffers ({names}) but {self.io_tiles} I/O tiles hold "
                                  f"{io_capacity} bytes: allocate more with Options.TensorLocations.numIOTiles, or "
                                  "overlap fewer or smaller tensors (OverlapMode.OverlapAccumulationLoop keeps one "
                                  "copy, OverlapDeviceIterationLoop two)")


    def _check_io_copies(self, io_buffers: dict[int, list[tuple[int, str]]],
                         copies: dict[int, tuple[int, str, ir.Operation]], diag: Diagnostics) -> None:
        """A remote copy through the I/O tiles holds its whole tensor there, beside the
        overlapped host streams' buffers: the largest copy of each IPU must fit with them."""
        io_capacity = self.io_tiles * self.bytes_per_tile
        for ipu, (size, what, op) in sorted(copies.items()):
            streams = sum(size for size, _ in io_buffers.get(ipu, []))
            if self.io_tiles == 0:
                diag.error(op, f"{what} ({size} bytes) goes through the I/O tiles (TensorLocationSettings."
                               "useIOTilesToLoad / useIOTilesToStore) but none are allocated: set "
                               "Options.TensorLocations.numIOTiles(32) or more")
            elif streams <= io_capacity < streams + size:  # streams alone over: _check_io_tiles said so
                beside = f" beside the {streams} bytes of overlapped host stream buffers" if streams else ""
                diag.error(op, f"{what} goes through the I/O tiles of IPU {ipu} (TensorLocationSettings."
                               f"useIOTilesToLoad / useIOTilesToStore), which must hold its {size} bytes{beside}, but "
                               f"{self.io_tiles} I/O tiles hold {io_capacity} bytes: allocate more with "
                               f"Options.TensorLocations.numIOTiles (at least "
                               f"{-(-(streams + size) // self.bytes_per_tile)} tiles of {self.bytes_per_tile} bytes), "
                               "or load and store this class through the compute tiles (remove useIOTilesToLoad / "
                               "useIOTilesToStore)")


def _io_copies(graph: ir.Operation) -> dict[int, tuple[int, str, ir.Operation]]:
    """The largest remote copy through the I/O tiles of each IPU: (bytes, what it copies, the op)."""
    largest: dict[int, tuple[int, str, ir.Operation]] = {}

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name in _REMOTE_COPIES and IO_TILES_ATTR in op.attributes:
            value = op.results[0] if op.name == "pipeline.remote_load" else op.operands[0]
            if "ipu_id" in op.attributes:
                ipu = ir.IntegerAttr(op.attributes["ipu_id"]).value
            else:  # a program copy: the IPU of the variable it loads or stores
                ipu = ipu_of(value.owner) if isinstance(value, ir.OpResult) else ipu_of(op)
            size = tensor_bytes(value.type)
            if ipu not in largest or size > largest[ipu][0]:
                kind = "load" if op.name.endswith("load") else "store"
                what = f"the remote {kind} of buffer '{ir.StringAttr(op.attributes['buffer']).value}'"
                largest[ipu] = (size, what, op)
        return ir.WalkResult.ADVANCE

    graph.walk(visit)
    return largest


_SETTERS = {"optimizer_state": "setOptimizerLocation", "weight": "setWeightLocation",
            "accumulator": "setAccumulatorLocation"}


def _location_advice(by_kind: dict[str, int], excess: int) -> str:
    """The TensorLocations settings that would move enough bytes off chip, alone or together."""
    movable = sorted(((size, kind) for kind, size in by_kind.items() if kind in _SETTERS), reverse=True)
    chosen: list[tuple[int, str]] = []
    for size, kind in movable:
        if sum(s for s, _ in chosen) >= excess:
            break
        chosen.append((size, kind))
    if not chosen:
        return ""
    if sum(s for s, _ in chosen) < excess:
        return (f"Placing every weight, optimizer state and accumulator off chip (Options.TensorLocations) would free "
                f"only {sum(s for s, _ in chosen)} of the {excess} bytes too many: the live temporaries must shrink too. ")
    calls = " and ".join(f"Options.TensorLocations.{_SETTERS[kind]}(poptorch.TensorLocationSettings()"
                         f".useOnChipStorage(False)) ({kind.replace('_', ' ')}: {size} bytes)" for size, kind in chosen)
    return f"Moving {calls} to streaming memory would free enough: the program would need less than the IPU has " \
           "(the moved tensors are loaded on chip only while used). "


def _pipelined_step(graph: ir.Operation) -> ir.Block | None:
    """The body of the graph's ``step`` function when it runs as a pipeline."""
    for op in graph.regions[0].blocks[0].operations:
        op = op.operation
        plan = plan_of(op) if op.name == "poplar.function" else None
        if plan is not None:
            blocks = op.regions[0].blocks
            return blocks[0] if plan.pipelined and len(blocks) else None
    return None


def _stash_bytes(step: ir.Block) -> dict[int, int]:
    """Bytes each IPU keeps for micro-batches in flight: every ``pipeline.stash`` of
    ``depth`` d (placed by pipeline-schedule) holds d copies of its value, one for each
    later micro-batch that runs the stashing stage before the restoring stage runs; a
    value sent to a stage more than one step later waits on the receiving IPU meanwhile."""
    stash: dict[int, int] = {}
    sends: dict[str, ir.Operation] = {}
    receives: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "pipeline.stash":
            depth = ir.IntegerAttr(op.attributes["depth"]).value
            stash[ipu_of(op)] = stash.get(ipu_of(op), 0) + tensor_bytes(op.operands[0].type) * depth
        elif op.name == "pipeline.send":
            sends[ir.StringAttr(op.attributes["channel"]).value] = op
        elif op.name == "pipeline.recv":
            receives.append(op)
        return ir.WalkResult.ADVANCE

    for op in step.operations:
        op.operation.walk(visit)
    for recv in receives:
        send = sends.get(ir.StringAttr(recv.attributes["channel"]).value)
        if send is None or STAGE_ATTR not in send.attributes or STAGE_ATTR not in recv.attributes:
            continue
        waits = ir.IntegerAttr(recv.attributes[STAGE_ATTR]).value - ir.IntegerAttr(send.attributes[STAGE_ATTR]).value - 1
        if waits > 0:
            ipu = ir.IntegerAttr(recv.attributes["dst_ipu"]).value
            stash[ipu] = stash.get(ipu, 0) + tensor_bytes(recv.results[0].type) * waits
    return stash


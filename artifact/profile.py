"""The cost model's picture of one host call, read off a graph that ``poplar-estimate-cycles``
annotated (``poplar.cycles`` on every op, ``poplar.cycles_target`` on the graph).

:func:`call_timeline` walks the main program once as the chip would run it: program
order, ``program_repeat`` bodies ``count`` times, calls into their callees, a pipelined
step's micro-batches over its ``m + S - 1`` time steps (the order of
:func:`ipu_mlir.artifact.schedule.pipelined_steps`). It yields the spans each IPU is busy
(compute, copies over the exchange or IPU-Links, syncs, host and Streaming Memory
transfers, pipeline stages per micro-batch) and every host stream transfer with its start
and end cycle. ``runtime/counters.py`` turns the transfers into PopTorch's performance
counters and latencies; ``artifact/report.py`` draws the spans. All values are estimates
of a model of the chip. This module imports neither torch nor the interpreter.
"""

from __future__ import annotations

import dataclasses

from torch_mlir import ir

from ipu_mlir.dialects.pipeline_attrs import ipu_of
from ipu_mlir.dialects.poplar import CYCLES_TARGET_ATTR, POPLAR_VIEWS, cycles_of, interface_of
from ipu_mlir.support.target import IpuTarget, target_named

from .schedule import pipelined_steps

MAX_SPANS = 4000  # spans kept per call; later ones are summed into the totals only

_KINDS = {"poplar.program_copy": "copy", "pipeline.send": "copy", "poplar.program_sync": "sync",
          "poplar.program_stream_copy": "host", "poplar.program_print_tensor": "host",
          "pipeline.remote_load": "streaming", "pipeline.remote_store": "streaming",
          "poplar.gcl_all_reduce": "collective", "poplar.gcl_reduce_scatter": "collective",
          "poplar.gcl_all_gather": "collective", "poplar.gcl_broadcast": "collective",
          "pipeline.stash": "stash", "pipeline.restore": "stash"}
_BODIES = ("poplar.function", "poplar.program_sequence", "pipeline.stage", "pipeline.phase", "pipeline.schedule")


@dataclasses.dataclass
class Span:
    """IPU ``ipu`` is busy with ``kind`` (compute, copy, sync, host, streaming, collective,
    stash, stage) from cycle ``start`` to ``end``; ``label`` says with what."""

    ipu: int
    start: int
    end: int
    kind: str
    label: str


@dataclasses.dataclass
class Transfer:
    """One host stream transfer: ``direction`` "input" or "output", its stream and cycles."""

    direction: str
    stream: str
    start: int
    end: int


@dataclasses.dataclass
class CallTimeline:
    target: IpuTarget
    cycles: int  # of one host call (the main program's poplar.cycles)
    spans: list[Span]
    transfers: list[Transfer]
    truncated: bool  # more than MAX_SPANS spans: the later ones are not listed
    inputs: list[str]  # host-to-device streams, by input index
    outputs: list[str]  # device-to-host streams, by output index (input updates after the outputs)

    def seconds(self, cycles: float) -> float:
        return cycles / self.target.clock_hz


class NotEstimated(ValueError):
    """The graph carries no cycle estimates (poplar-estimate-cycles did not run on it)."""


def graph_target(graph: ir.Operation) -> IpuTarget:
    if CYCLES_TARGET_ATTR not in graph.attributes:
        raise NotEstimated("the graph has no cycle estimates: run poplar-estimate-cycles (the compile pipeline's last pass)")
    return target_named(ir.StringAttr(graph.attributes[CYCLES_TARGET_ATTR]).value)


def call_timeline(graph: ir.Operation, max_spans: int = MAX_SPANS) -> CallTimeline:
    """The estimated timeline of one host call of ``graph``'s main program."""
    target = graph_target(graph)
    walker = _Walker(graph, max_spans, target)
    main = walker.main
    end = walker.op(main, 0)
    interface = interface_of(graph)
    streams = walker.directions
    inputs = list(interface.inputs.values()) if interface else []
    outputs = list(interface.outputs) if interface else []
    inputs += [s for s, d in streams.items() if d == "host_to_device" and s not in inputs]
    outputs += [s for s, d in streams.items() if d == "device_to_host" and s not in outputs]
    cycles = cycles_of(main)
    if end != cycles:  # the walk must follow the program as poplar-estimate-cycles summed it
        raise RuntimeError(f"internal error: the timeline of one call ends at cycle {end}, but the main program's "
                           f"poplar.cycles is {cycles}; please report this with the program's IR")
    return CallTimeline(target, cycles, walker.spans, walker.transfers, walker.truncated, inputs, outputs)


class _Walker:
    def __init__(self, graph: ir.Operation, max_spans: int, target: IpuTarget) -> None:
        self.target = target
        self.functions: dict[str, ir.Operation] = {}
        self.directions: dict[str, str] = {}
        self.main: ir.Operation | None = None
        for op in graph.regions[0].blocks[0].operations:
            op = op.operation
            if op.name == "poplar.function":
                self.functions[ir.StringAttr(op.attributes["name"]).value] = op
            elif op.name == "poplar.host_stream":
                self.directions[ir.StringAttr(op.attributes["name"]).value] = ir.StringAttr(op.attributes["direction"]).value
            elif op.name == "poplar.program_sequence":
                self.main = op
        if self.main is None or cycles_of(self.main) is None:
            raise NotEstimated("the graph has no estimated main program: run poplar-estimate-cycles")
        self.max_spans = max_spans
        self.spans: list[Span] = []
        self.transfers: list[Transfer] = []
        self.truncated = False
        self.label = "main"
        self.quiet = 0  # > 0 inside a pipeline stage: its stage span stands for its ops
        self._streams: dict[str, bool] = {}

    # -- recording ----------------------------------------------------------------------
    def span(self, ipu: int, start: int, end: int, kind: str, label: str) -> None:
        if end <= start or self.quiet:
            return
        last = self.spans[-1] if self.spans else None
        if last and last.ipu == ipu and last.kind == kind and last.label == label and last.end == start:
            last.end = end
            return
        if len(self.spans) >= self.max_spans:
            self.truncated = True
            return
        self.spans.append(Span(ipu, start, end, kind, label))

    def has_streams(self, op: ir.Operation) -> bool:
        """Whether running ``op`` transfers anything over a host stream (calls followed)."""
        found = False

        def visit(inner: ir.Operation) -> ir.WalkResult:
            nonlocal found
            if inner.name in ("poplar.program_stream_copy", "poplar.program_print_tensor"):
                found = True
                return ir.WalkResult.INTERRUPT
            if inner.name == "poplar.program_call":
                callee = ir.StringAttr(inner.attributes["callee"]).value
                if callee not in self._streams:
                    self._streams[callee] = False
                    self._streams[callee] = callee in self.functions and self.has_streams(self.functions[callee])
                if self._streams[callee]:
                    found = True
                    return ir.WalkResult.INTERRUPT
            return ir.WalkResult.ADVANCE

        op.walk(visit)
        return found

    # -- the walk ------------------------------------------------------------------------
    def block(self, block: ir.Block, t: int) -> int:
        for op in block.operations:
            t = self.op(op.operation, t)
        return t

    def op(self, op: ir.Operation, t: int) -> int:
        cycles = cycles_of(op) or 0
        name = op.name
        if len(self.spans) >= self.max_spans and not self.has_streams(op):
            self.truncated = self.truncated or cycles > 0
            return t + cycles
        if name in _BODIES:
            for region in op.regions:
                for block in region.blocks:
                    self.block(block, t)
        elif name == "poplar.program_call":
            callee = ir.StringAttr(op.attributes["callee"]).value
            if callee in self.functions:
                outer, self.label = self.label, callee
                self.op(self.functions[callee], t)
                self.label = outer
        elif name == "poplar.program_repeat":
            self.repeat(op, t)
        elif name in ("poplar.program_stream_copy", "poplar.program_print_tensor"):
            stream = ir.StringAttr(op.attributes["stream"]).value if "stream" in op.attributes else "print"
            direction = "input" if self.directions.get(stream) == "host_to_device" else "output"
            self.transfers.append(Transfer(direction, stream, t, t + cycles))
            self.span(_operand_ipu(op), t, t + cycles, "host", f"{direction} {stream}")
        elif cycles and name not in POPLAR_VIEWS:
            self.span(_operand_ipu(op) if name in _KINDS else ipu_of(op), t, t + cycles, _KINDS.get(name, "compute"),
                      self.label if name not in _KINDS else name.split(".")[-1].removeprefix("program_"))
        return t + cycles

    def repeat(self, op: ir.Operation, t: int) -> None:
        count = ir.IntegerAttr(op.attributes["count"]).value
        body = [inner.operation for inner in op.regions[0].blocks[0].operations]
        schedules = [self.pipelined(inner) for inner in body]
        if not any(schedules):
            per = sum(cycles_of(inner) or 0 for inner in body)
            spans, transfers = len(self.spans), len(self.transfers)
            self.block(op.regions[0].blocks[0], t)
            once, moved = self.spans[spans:], self.transfers[transfers:]
            for i in range(1, count):  # every iteration repeats the first, later by i * per cycles
                shift = i * per
                self.transfers += [Transfer(x.direction, x.stream, x.start + shift, x.end + shift) for x in moved]
                for span in once:
                    self.span(span.ipu, span.start + shift, span.end + shift, span.kind, span.label)
            return
        # A pipelined step: the non-pipelined part of each micro-batch follows its last stage.
        index = next(i for i, s in enumerate(schedules) if s)
        call, schedule = body[index], schedules[index]
        stages = {}
        for stage in schedule.regions[0].blocks[0].operations:
            stage = stage.operation
            stages[ir.IntegerAttr(stage.attributes["stage_id"]).value] = stage
        rest = (cycles_of(call) or 0) - (cycles_of(schedule) or 0)  # the step's ops outside the schedule
        after = body[index + 1:]
        sync = self.target.external_sync_cycles
        for step, pairs in enumerate(pipelined_steps(len(stages), count)):
            busy: dict[int, int] = {}
            for stage_id, micro_batch in pairs:
                stage = stages[stage_id]
                ipu = ir.IntegerAttr(stage.attributes["ipu_id"]).value
                start = t + busy.get(ipu, 0)
                self.span(ipu, start, start + (cycles_of(stage) or 0), "stage", f"stage {stage_id} mb {micro_batch}")
                self.quiet += 1
                self.op(stage, start)
                self.quiet -= 1
                busy[ipu] = busy.get(ipu, 0) + (cycles_of(stage) or 0)
            longest = max(busy.values(), default=0)
            for ipu in busy:
                self.span(ipu, t + longest, t + longest + sync, "sync", "sync")
            t += longest + sync
            finished = [mb for stage_id, mb in pairs if stage_id == len(stages) - 1]
            for _ in finished:  # the micro-batch that left the pipeline: the rest of its iteration
                t += rest
                for inner in body[:index] + after:
                    t = self.op(inner, t)

    def pipelined(self, op: ir.Operation) -> ir.Operation | None:
        if op.name != "poplar.program_call":
            return None
        function = self.functions.get(ir.StringAttr(op.attributes["callee"]).value)
        for inner in function.regions[0].blocks[0].operations if function is not None else []:
            if inner.operation.name == "pipeline.schedule" and ir.StringAttr(inner.attributes["kind"]).value == "pipelined":
                return inner.operation
        return None


def _operand_ipu(op: ir.Operation) -> int:
    if "pipeline.ipu" in op.attributes or "ipu" in op.attributes:
        return ipu_of(op)
    for operand in op.operands:
        owner = operand.owner
        if isinstance(owner, ir.OpView | ir.Operation):
            return ipu_of(owner.operation)
    return 0

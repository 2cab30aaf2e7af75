"""Pipeline schedules for the IPU Model: which stage of which micro-batch each emulated
IPU runs at each step, and pictures of a schedule as text and HTML. (The stage of every
op comes from the ``pipeline-schedule`` pass.)

A pipelined program of ``S`` stages over ``m`` micro-batches runs ``m + S - 1`` steps:
at step ``t`` stage ``s`` processes micro-batch ``t - s`` when ``0 <= t - s < m``
(ramp-up while ``t < S - 1``, steady state, ramp-down after ``t >= m``). Stages on
different IPUs in one step run concurrently; stages sharing an IPU run one after the
other. A sharded program runs every stage of a micro-batch before the next one, one IPU
busy at a time. A phased program (``#pipeline.phases``) runs its phases one after the other,
the stages of one phase at once, each on its own IPU (one row per phase and micro-batch).
The plan, the memory and the step function come from the graph's typed
attributes (``#pipeline.plan``, ``#poplar.memory_plan``, ``#poplar.interface``). This
module imports neither torch nor the interpreter.
"""

from __future__ import annotations

import dataclasses
import html

from torch_mlir import ir

from ipu_mlir.dialects.pipeline import ScheduleKind, phases_of, plan_of
from ipu_mlir.dialects.poplar import interface_of, io_tile_memory_of, memory_plan_of, streaming_of


def pipelined_steps(num_stages: int, micro_batches: int) -> list[list[tuple[int, int]]]:
    """``(stage, micro_batch)`` pairs of each step of a pipelined schedule."""
    return [[(stage, t - stage) for stage in range(num_stages) if 0 <= t - stage < micro_batches]
            for t in range(micro_batches + num_stages - 1)]


def sharded_steps(num_stages: int, micro_batches: int) -> list[list[tuple[int, int]]]:
    """``(stage, micro_batch)`` pairs of each step of a sharded schedule: one at a time."""
    return [[(stage, mb)] for mb in range(micro_batches) for stage in range(num_stages)]


def phased_steps(stage_phases: list[int], micro_batches: int) -> list[list[tuple[int, int]]]:
    """``(stage, micro_batch)`` pairs of each step of a phased schedule: per micro-batch, one
    step per phase in phase order holding every stage of that phase (they run in parallel)."""
    phases = sorted(set(stage_phases))
    return [[(stage, mb) for stage, phase in enumerate(stage_phases) if phase == current]
            for mb in range(micro_batches) for current in phases]


def ideal_utilisation(num_stages: int, micro_batches: int) -> float:
    """The busy fraction of a balanced pipeline: m / (m + p - 1)."""
    return micro_batches / (micro_batches + num_stages - 1)


def render_text(kind: str, stage_ipus: list[int], micro_batches: int, training: bool,
                peak_bytes: dict[int, int] | None = None, forward_stages: int | None = None,
                stage_phases: list[int] | None = None) -> str:
    """A table of the schedule: one row per step, one column per IPU; each cell says
    which stage of which micro-batch runs (``F`` forward, ``B`` backward stages). A phased
    schedule (``stage_phases``: the phase of each stage) adds each step's phase."""
    num_ipus = max(stage_ipus) + 1
    grid = _grid(kind, stage_ipus, micro_batches, stage_phases)
    names = _stage_names(len(stage_ipus), training, forward_stages, stage_phases is not None)
    phase_of = _phase_of_steps(grid, stage_phases)
    header = ["step"] + (["phase"] if phase_of else []) + [f"IPU{ipu}" for ipu in range(num_ipus)]
    rows = [[str(t)] + ([str(phase_of[t])] if phase_of else []) +
            [", ".join(f"{names[s]}:mb{mb}" for s, mb in cells[ipu]) or "-" for ipu in range(num_ipus)]
            for t, cells in enumerate(grid)]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [f"{kind} schedule: {len(stage_ipus)} stages on {num_ipus} IPUs, {micro_batches} micro-batches, "
             f"{len(grid)} steps"]
    lines += ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in [header, *rows]]
    busy = {ipu: sum(1 for cells in grid if cells[ipu]) for ipu in range(num_ipus)}
    lines.append("busy steps: " + ", ".join(f"IPU{ipu} {busy[ipu]}/{len(grid)}" for ipu in range(num_ipus)))
    if peak_bytes is not None:
        lines.append("peak memory: " + ", ".join(f"IPU{ipu} {peak_bytes.get(ipu, 0):,} B" for ipu in range(num_ipus)))
    return "\n".join(lines) + "\n"


def render_html(kind: str, stage_ipus: list[int], micro_batches: int, training: bool,
                peak_bytes: dict[int, int] | None = None, forward_stages: int | None = None,
                stage_phases: list[int] | None = None) -> str:
    """The schedule as a self-contained HTML page: a step x IPU grid coloured by stage."""
    num_ipus = max(stage_ipus) + 1
    grid = _grid(kind, stage_ipus, micro_batches, stage_phases)
    names = _stage_names(len(stage_ipus), training, forward_stages, stage_phases is not None)
    palette = ["#8ecae6", "#ffb703", "#90be6d", "#f28482", "#cdb4db", "#a8dadc", "#f4a261", "#b5e48c"]
    head = "".join(f"<th>IPU{ipu}</th>" for ipu in range(num_ipus))
    body = []
    for t, cells in enumerate(grid):
        tds = []
        for ipu in range(num_ipus):
            text = "<br>".join(html.escape(f"{names[s]} mb{mb}") for s, mb in cells[ipu])
            colour = palette[cells[ipu][0][0] % len(palette)] if cells[ipu] else "#eeeeee"
            tds.append(f'<td style="background:{colour}">{text or "idle"}</td>')
        body.append(f"<tr><th>{t}</th>{''.join(tds)}</tr>")
    memory = ""
    if peak_bytes is not None:
        items = "".join(f"<li>IPU{ipu}: {peak_bytes.get(ipu, 0):,} bytes</li>" for ipu in range(num_ipus))
        memory = f"<h2>Peak memory per IPU</h2><ul>{items}</ul>"
    title = html.escape(f"{kind} schedule: {len(stage_ipus)} stages on {num_ipus} IPUs, {micro_batches} micro-batches")
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>ipu-mlir schedule</title><style>"
            "table{border-collapse:collapse;font-family:monospace}td,th{border:1px solid #999;padding:4px 8px}"
            f"</style></head><body><h1>{title}</h1><table><tr><th>step</th>{head}</tr>{''.join(body)}</table>"
            f"{memory}</body></html>\n")


def _grid(kind: str, stage_ipus: list[int], micro_batches: int,
          stage_phases: list[int] | None = None) -> list[dict[int, list[tuple[int, int]]]]:
    num_ipus = max(stage_ipus) + 1
    if stage_phases is not None:
        steps = phased_steps(stage_phases, micro_batches)
    else:
        steps = (pipelined_steps if kind == ScheduleKind.PIPELINED else sharded_steps)(len(stage_ipus), micro_batches)
    grid = []
    for pairs in steps:
        cells: dict[int, list[tuple[int, int]]] = {ipu: [] for ipu in range(num_ipus)}
        for stage, mb in pairs:
            cells[stage_ipus[stage]].append((stage, mb))
        grid.append(cells)
    return grid


def _phase_of_steps(grid: list[dict[int, list[tuple[int, int]]]], stage_phases: list[int] | None) -> list[int]:
    """The phase each step of a phased grid runs (empty for other schedules)."""
    if stage_phases is None:
        return []
    return [next(stage_phases[s] for pairs in cells.values() for s, _ in pairs) for cells in grid]


def _stage_names(num_stages: int, training: bool, forward_stages: int | None, phased: bool = False) -> list[str]:
    forward = forward_stages if forward_stages is not None else (num_stages + 1) // 2 if training else num_stages
    names = []
    for stage in range(num_stages):
        if not training:
            names.append(f"F{stage}")
        elif phased:  # every forward stage has its own backward stage 2S - 1 - i
            names.append(f"F{stage}" if stage < forward else f"B{2 * forward - 1 - stage}")
        elif stage < forward - 1:
            names.append(f"F{stage}")
        elif stage == forward - 1:
            names.append(f"FB{stage}")  # the last forward stage also starts the backward pass
        else:
            names.append(f"B{2 * forward - 2 - stage}")
    return names


@dataclasses.dataclass(frozen=True)
class ScheduleSummary:
    """What a compiled ``poplar.graph`` runs: the inputs of :func:`render_text`."""

    kind: str
    stage_ipus: list[int]
    forward_stages: int
    micro_batches: int
    training: bool
    peak_bytes: dict[int, int] | None  # None without a memory plan
    note: str | None = None  # e.g. why a pipelined plan runs micro-batch by micro-batch
    remote: dict[int, RemoteTraffic] = dataclasses.field(default_factory=dict)  # streaming memory by IPU
    stage_phases: list[int] | None = None  # the phase of each stage of a phased step (#pipeline.phases)
    io_tiles: tuple[int, int] = (0, 0)  # each IPU's I/O tiles and their bytes (#poplar.io_tile_memory)

    def _remote_line(self) -> str:
        if not self.remote:
            return ""
        return "streaming memory: " + ", ".join(traffic.line(ipu) for ipu, traffic in self.remote.items())

    def text(self) -> str:
        text = render_text(self.kind, self.stage_ipus, self.micro_batches, self.training, self.peak_bytes, self.forward_stages,
                           self.stage_phases)
        if self.remote:
            text += self._remote_line() + "\n"
        if self.io_tiles[0]:
            text += (f"I/O tiles: {self.io_tiles[0]} per IPU, {self.io_tiles[1]:,} B each IPU (set aside, not in the "
                     "peak memory)\n")
        return text + (f"note: {self.note}\n" if self.note else "")

    def html(self) -> str:
        page = render_html(self.kind, self.stage_ipus, self.micro_batches, self.training, self.peak_bytes, self.forward_stages,
                           self.stage_phases)
        if self.remote:
            page = page.replace("</body>", f"<p>{html.escape(self._remote_line())}</p></body>")
        return page.replace("</body>", f"<p>note: {html.escape(self.note)}</p></body>") if self.note else page


def memory_report(graph: ir.Operation) -> dict[int, dict[str, int]]:
    """Each IPU's bytes (variables, temporaries, stash, total) from the graph's memory
    plan (poplar-plan-memory), ``streaming``: the bytes of its remote buffers in streaming
    memory (``#poplar.streaming_memory``), and ``io_tiles``: the memory of the I/O tiles it
    sets aside (``#poplar.io_tile_memory``, numIOTiles), which the compute tiles holding the
    on-chip total cannot use; neither is part of the total. Empty without a plan."""
    plan = memory_plan_of(graph)
    streaming = streaming_of(graph)
    _, io_tiles = io_tile_memory_of(graph)
    return {} if plan is None else {entry.ipu: entry.to_dict() | {"streaming": streaming.get(entry.ipu, 0),
                                                                  "io_tiles": io_tiles}
                                    for entry in plan.ipus}


@dataclasses.dataclass(frozen=True)
class RemoteTraffic:
    """Streaming memory of one IPU: its remote buffers' bytes and the remote loads and stores
    (``poplar.program_remote_load`` / ``_store`` of off-chip variables, ``pipeline.remote_load`` /
    ``_store`` of values crossing a phase boundary) of one step and of one update."""

    streaming_bytes: int
    step_loads: int
    step_stores: int
    update_loads: int = 0
    update_stores: int = 0

    def line(self, ipu: int) -> str:
        text = f"IPU{ipu} {self.streaming_bytes:,} B; per step {self.step_loads} loads, {self.step_stores} stores"
        if self.update_loads or self.update_stores:
            text += f"; per update {self.update_loads} loads, {self.update_stores} stores"
        return text


def remote_traffic(graph: ir.Operation, step: str, update: str | None) -> dict[int, RemoteTraffic]:
    """Each IPU's streaming memory and the remote copies its ``step`` and ``update`` functions make."""
    functions = {ir.StringAttr(op.operation.attributes["name"]).value: op.operation
                 for op in graph.regions[0].blocks[0].operations if op.operation.name == "poplar.function"}
    buffers = {ir.StringAttr(op.operation.attributes["name"]).value: _ipu(op.operation)
               for op in graph.regions[0].blocks[0].operations if op.operation.name == "poplar.remote_buffer"}

    def count(name: str | None) -> dict[int, list[int]]:
        found: dict[int, list[int]] = {}
        if name is None or name not in functions:
            return found

        def visit(op: ir.Operation) -> ir.WalkResult:
            if op.name in ("poplar.program_remote_load", "poplar.program_remote_store", "pipeline.remote_load",
                           "pipeline.remote_store"):
                ipu = buffers.get(ir.StringAttr(op.attributes["buffer"]).value, 0)
                found.setdefault(ipu, [0, 0])[op.name.endswith("store")] += 1
            return ir.WalkResult.ADVANCE

        functions[name].walk(visit)
        return found

    step_counts, update_counts = count(step), count(update)
    return {ipu: RemoteTraffic(size, *step_counts.get(ipu, [0, 0]), *update_counts.get(ipu, [0, 0]))
            for ipu, size in sorted(streaming_of(graph).items())}


def _ipu(op: ir.Operation) -> int:
    for key in ("ipu", "pipeline.ipu"):
        if key in op.attributes:
            return ir.IntegerAttr(op.attributes[key]).value
    return 0


def summarize(graph: ir.Operation) -> ScheduleSummary:
    """The schedule of a ``poplar.graph``: the plan of the step function its interface
    names (a single stage on IPU 0 without one), the micro-batches of the loop that
    calls it, and each IPU's peak memory from the memory plan."""
    if graph.name != "poplar.graph":
        raise ValueError(f"expected a 'poplar.graph', got '{graph.name}'")
    interface = interface_of(graph)
    if interface is None:
        raise ValueError("the graph has no 'poplar.interface' (its step function and main program): "
                         "run poplar-build-program first")
    programs = {}
    for op in graph.regions[0].blocks[0].operations:
        op = op.operation
        if op.name in ("poplar.function", "poplar.program_sequence"):
            programs[ir.StringAttr(op.attributes["name"]).value] = op
    step, main = programs[interface.step], programs[interface.main]
    plan = plan_of(step)
    kind, stage_ipus, forward = (ScheduleKind.SHARDED, [0], 1) if plan is None else \
        (plan.kind, list(plan.stage_ipus), plan.forward_stages)
    memory = memory_plan_of(graph)
    phases = phases_of(step)
    # Training: an update program, or (the update inside the step) backward stages beyond the forward ones.
    training = interface.update is not None or len(stage_ipus) > forward
    return ScheduleSummary(str(kind), stage_ipus, forward, _micro_batches(main, interface.step), training,
                           {entry.ipu: entry.total for entry in memory.ipus} if memory else None,
                           remote=remote_traffic(graph, interface.step, interface.update),
                           stage_phases=None if phases is None else list(phases.stage_phases),
                           io_tiles=io_tile_memory_of(graph))


def _micro_batches(main: ir.Operation, step: str) -> int:
    """The trip count of the innermost loop that calls ``step`` (1 without one)."""
    found = [1]

    def visit(op: ir.Operation, count: int) -> None:
        for inner in op.regions[0].blocks[0].operations:
            inner = inner.operation
            if inner.name == "poplar.program_repeat":
                visit(inner, ir.IntegerAttr(inner.attributes["count"]).value)
            elif inner.name == "poplar.program_call" and count > 1 and \
                    ir.StringAttr(inner.attributes["callee"]).value == step:
                found[0] = max(found[0], count)

    visit(main, 1)
    return found[0]

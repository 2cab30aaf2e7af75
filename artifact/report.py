"""The profiling report of a compiled program: a directory with ``profile.json`` (machine
readable) and ``profile.html`` (one self-contained page, no scripts), written by
:func:`write_report`. Everything in it comes from the compiler's plans and its cost model
(``poplar-plan-memory``, ``poplar-map-tiles``, ``poplar-estimate-cycles``): estimates of the
emulated IPU target, as PopVision's numbers are measurements of a real one.

``profile.json`` holds:

- ``target``: the IPU target's numbers; ``estimate``: true;
- ``program``: cycles and seconds of one host call, the calls so far;
- ``memory``: per IPU the bytes of variables, temporaries (peak of live compute results),
  stash (pipelined micro-batches in flight), Streaming Memory (remote buffers), the total and
  the capacity, and ``tiles``: the bytes on each tile (variables by their tile mapping,
  temporaries and stash spread evenly over the tiles);
- ``steps``: every op of every program (functions and the main sequence) in program order,
  with its IPU, estimated cycles and the bytes of compute results live after it (liveness);
- ``timeline``: spans of each IPU's estimated execution of one call (compute, copies, syncs,
  host transfers, pipeline stages by micro-batch), ``transfers`` (host stream transfers);
- ``host_spans``: the host-side tracepoints of ``poptorch.profiling.Channel``.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects.pipeline_attrs import ipu_of
from ipu_mlir.dialects.poplar import POPLAR_VIEWS, cycles_of, memory_plan_of
from ipu_mlir.support.ir_walk import operands_within, tensor_bytes

from .profile import call_timeline
from .report_html import render_html

REPORT_JSON = "profile.json"
REPORT_HTML = "profile.html"
FORMAT = "ipu-mlir-profile/1"
_NESTED = ("pipeline.schedule", "pipeline.stage", "pipeline.phase")


def report_data(graph: ir.Operation, host_spans: list[dict[str, Any]] | None = None, calls: int = 0) -> dict[str, Any]:
    """The report of ``graph`` (annotated by the compile pipeline) as JSON-ready data."""
    timeline = call_timeline(graph)
    target = timeline.target
    return {
        "format": FORMAT,
        "estimate": True,
        "target": target.to_dict(),
        "program": {"cycles_per_call": timeline.cycles, "seconds_per_call": timeline.seconds(timeline.cycles),
                    "calls": calls, "timeline_truncated": timeline.truncated},
        "memory": _memory(graph, target.tiles_per_ipu, target.bytes_per_ipu),
        "steps": _steps(graph),
        "timeline": [dataclasses.asdict(span) for span in timeline.spans],
        "transfers": [dataclasses.asdict(transfer) for transfer in timeline.transfers],
        "host_spans": list(host_spans or []),
    }


def write_report(directory: str, graph: ir.Operation, host_spans: list[dict[str, Any]] | None = None,
                 calls: int = 0) -> dict[str, str]:
    """Write ``profile.json`` and ``profile.html`` into ``directory`` (created); their paths."""
    data = report_data(graph, host_spans, calls)
    os.makedirs(directory, exist_ok=True)
    paths = {"json": os.path.join(directory, REPORT_JSON), "html": os.path.join(directory, REPORT_HTML)}
    for key, text in (("json", json.dumps(data, indent=1)), ("html", render_html(data))):
        partial = paths[key] + ".partial"
        with open(partial, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(partial, paths[key])
    return paths


def _memory(graph: ir.Operation, tiles_per_ipu: int, capacity: int) -> list[dict[str, Any]]:
    plan = memory_plan_of(graph)
    entries = {entry.ipu: entry.to_dict() for entry in plan.ipus} if plan else {}
    tiles: dict[int, list[int]] = {}
    streaming: dict[int, int] = {}
    for op in graph.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "poplar.variable":
            ipu = ipu_of(op)
            size = tensor_bytes(op.results[0].type)
            per = tiles.setdefault(ipu, [0] * tiles_per_ipu)
            mapping = list(ir.DenseI64ArrayAttr(op.attributes["tiles"])) if "tiles" in op.attributes else []
            start, count = (mapping[0], mapping[1]) if len(mapping) == 2 and mapping[1] > 0 else (0, tiles_per_ipu)
            for i in range(count):
                per[(start + i) % tiles_per_ipu] += size // count + (1 if i < size % count else 0)
        elif op.name == "poplar.remote_buffer":
            size = tensor_bytes(ir.TypeAttr(op.attributes["type"]).value) * ir.IntegerAttr(op.attributes["repeats"]).value
            streaming[0] = streaming.get(0, 0) + size
    result = []
    for ipu in sorted(set(entries) | set(tiles) | set(streaming)):
        entry = entries.get(ipu, {"variables": sum(tiles.get(ipu, [])), "temporaries": 0, "stash": 0})
        per = tiles.setdefault(ipu, [0] * tiles_per_ipu)
        spread = entry.get("temporaries", 0) + entry.get("stash", 0)
        per = [b + spread // tiles_per_ipu + (1 if i < spread % tiles_per_ipu else 0) for i, b in enumerate(per)]
        result.append({"ipu": ipu, "variables": entry.get("variables", 0), "temporaries": entry.get("temporaries", 0),
                       "stash": entry.get("stash", 0), "streaming": streaming.get(ipu, 0),
                       "total": entry.get("variables", 0) + spread, "capacity": capacity, "tiles": per})
    return result


def _flat(block: ir.Block) -> list[ir.Operation]:
    """The ops of ``block`` in program order, pipeline regions opened (their ops run in them)."""
    ops = []
    for op in block.operations:
        op = op.operation
        if op.name in _NESTED:
            for region in op.regions:
                for inner in region.blocks:
                    ops.extend(_flat(inner))
        else:
            ops.append(op)
    return ops


def _steps(graph: ir.Operation) -> list[dict[str, Any]]:
    steps = []
    for program in graph.regions[0].blocks[0].operations:
        program = program.operation
        if program.name not in ("poplar.function", "poplar.program_sequence"):
            continue
        name = ir.StringAttr(program.attributes["name"]).value
        ops = _flat(program.regions[0].blocks[0])
        roots: dict[ir.Value, list[ir.Value]] = {}
        last_use: dict[ir.Value, int] = {}
        for index, op in enumerate(ops):
            for operand in operands_within(op):
                for root in roots.get(operand, [operand]):
                    last_use[root] = index
            if op.name in POPLAR_VIEWS:
                roots[op.results[0]] = [r for operand in op.operands for r in roots.get(operand, [operand])]
        live: dict[int, int] = {}
        ending: dict[int, list[tuple[int, int]]] = {}
        for index, op in enumerate(ops):
            for result in op.results:
                if op.name in POPLAR_VIEWS or op.name == "poplar.variable" or not isinstance(result.type, ir.RankedTensorType):
                    continue
                size = tensor_bytes(result.type)
                live[ipu_of(op)] = live.get(ipu_of(op), 0) + size
                ending.setdefault(last_use.get(result, index), []).append((ipu_of(op), size))
            steps.append({"program": name, "index": index, "op": op.name, "ipu": ipu_of(op),
                          "cycles": cycles_of(op) or 0, "live_bytes": {str(k): v for k, v in sorted(live.items())}})
            for ipu, size in ending.pop(index, []):
                live[ipu] -= size
    return steps

"""The timeline of a pipelined loop (:mod:`ipu_mlir.runtime.pipeline_executor`): what each
emulated IPU's worker did when, and where its idle time went.

A :class:`PipelineTrace` is the list of ``(step, ipu, stage, micro-batch, start, end)`` of
each task of the last loop (a stage of one micro-batch), and keeps each task's
:class:`TaskRecord` (also when its worker began waiting for it), the plan (which tasks each
waited for), the host's hand-off and wake-up times and, when profiled, each IPU's time per
kind of step. :func:`breakdown` splits each IPU's time over the loop's span (first task
start to last task end) into:

- busy: its stage tasks (with a profile: kernels, copies, stash / restore, host streams);
- waiting: for a task of another IPU its next task needs (the schedule's fill, imbalance
  between the stages, a slow stage);
- hand-off: from the moment that task ended to the moment this worker started (waking a
  thread, taking the GIL);
- between tasks: the worker's own Python from one task's end to waiting for the next;
- drain: after its last task, until the other IPUs finish theirs.

The measured utilisation is busy / (IPUs x span); the rest, in points, is the sum of the
other four. ``dispatch`` is the host's part outside the span: handing the loop to the
workers and waking up after it.
"""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass(frozen=True)
class TaskRecord:
    """One task of a loop: time step, IPU, stage, micro-batch; ``free`` is when its worker
    began waiting for it, ``start`` / ``end`` when it ran (``time.perf_counter`` seconds)."""

    step: int
    ipu: int
    stage: int
    mb: int
    free: float
    start: float
    end: float


class PipelineTrace(list):
    """``(step, ipu, stage, micro-batch, start, end)`` of each task of the last pipelined
    loop, with the records, plan, host times and step profile :func:`breakdown` reads."""

    def __init__(self, records: list[TaskRecord] | None = None, plan: Any = None, begin: float = 0.0,
                 end: float = 0.0, kinds: list[dict[str, float]] | None = None) -> None:
        records = list(records or [])
        super().__init__((r.step, r.ipu, r.stage, r.mb, r.start, r.end) for r in records)
        self.records = records
        self.plan = plan  # runtime.pipeline_executor.LoopPlan
        self.begin, self.end = begin, end  # the host handed the loop out / woke up after it
        self.kinds = list(kinds or [])  # per worker (the plan's IPUs): seconds per kind of step


# Kinds of step by the decoder's closure names (runtime/decoder.py, runtime/steps.py).
_KINDS = {
    "copy_to_ipu": "copy to a new buffer (send, per-micro-batch variable)",
    "copy": "copy into a variable",
    "share": "share (no copy)",
    "stash": "stash (a reference, no copy)",
    "take.<locals>.run": "restore / recv (a reference, no copy)",
    "read": "host stream in",
    "write": "host stream out",
    "remote_load": "remote buffer copy",
    "remote_store": "remote buffer copy",
}


def step_kind(step: Any) -> str:
    """The kind of a decoded step, for the profile: its closure's name, through the
    wrappers that free dead slots or check floating-point exceptions."""
    while step.__name__ in ("run_and_free", "run") and step.__closure__ and "step" in step.__code__.co_freevars:
        step = step.__closure__[step.__code__.co_freevars.index("step")].cell_contents
    name = step.__qualname__
    if name.endswith("take.<locals>.run"):
        return _KINDS["take.<locals>.run"]
    return _KINDS.get(name.rsplit(".", 1)[-1], "kernels")


@dataclasses.dataclass
class Breakdown:
    """Where each IPU's time over a loop's span went (seconds, by IPU); see the module doc."""

    ipus: list[int]
    span: float
    busy: dict[int, float]
    waiting: dict[int, float]
    handoff: dict[int, float]
    between: dict[int, float]
    drain: dict[int, float]
    dispatch: float
    stage_seconds: dict[int, float]  # mean time of one task of each stage
    kinds: dict[str, float]  # profiled step time by kind, all IPUs
    loop_overhead: float  # profiled: task time not in any step (shared-variable moves, the loop)
    stage_ipus: dict[int, int]  # the IPU of each stage
    # The utilisation the loop's plan allows with each task taking its stage's mean time and
    # no hand-off cost (plan_utilisation; m / (m + p - 1) for balanced stages).
    stage_time_ideal: float = float("nan")

    @property
    def utilisation(self) -> float:
        return sum(self.busy.values()) / (len(self.ipus) * self.span)

    def points(self, part: dict[int, float]) -> float:
        """``part`` summed over the IPUs, in points of utilisation (1 point = 1 % of IPUs x span)."""
        return 100 * sum(part.values()) / (len(self.ipus) * self.span)

    def text(self, ideal: float) -> str:
        """The breakdown as lines of text: utilisation, each loss in points, the stage times."""
        n = len(self.ipus)
        lines = [f"utilisation {self.utilisation:.3f} (ideal {ideal:.3f}, for the measured stage times "
                 f"{self.stage_time_ideal:.3f}); span {self.span * 1e3:.2f} ms x {n} IPUs"]
        rows = [("waiting for another IPU", self.waiting), ("idle after its last task", self.drain),
                ("hand-off (wake-up, GIL)", self.handoff), ("Python between tasks", self.between)]
        for label, part in rows:
            per_ipu = ", ".join(f"IPU{ipu} {part[ipu] * 1e3:.2f} ms" for ipu in self.ipus)
            lines.append(f"  {label:26s} {self.points(part):5.2f} points  ({per_ipu})")
        lines.append(f"  schedule fill + drain     {100 * (1 - ideal):5.2f} points of them (1 - ideal)")
        lines.append(f"  host dispatch + wake-up   {self.dispatch * 1e3:.2f} ms outside the span")
        stages = ", ".join(f"stage {s} (IPU{self.stage_ipus[s]}) {t * 1e3:.2f} ms"
                           for s, t in sorted(self.stage_seconds.items()))
        lines.append(f"  mean task time: {stages}")
        if self.kinds:
            busy = sum(self.busy.values())
            parts = sorted(self.kinds.items(), key=lambda item: -item[1])
            kinds = ", ".join(f"{kind} {100 * t / busy:.1f}%" for kind, t in parts)
            lines.append(f"  busy time by step kind: {kinds}, stage loop {100 * self.loop_overhead / busy:.1f}%")
        return "\n".join(lines)


def breakdown(trace: PipelineTrace) -> Breakdown:
    """Where each IPU's time went over the span of the loop ``trace`` records."""
    records = trace.records
    if not records:
        raise ValueError("the trace has no tasks: run a pipelined loop first")
    span_start = min(r.start for r in records)
    span_end = max(r.end for r in records)
    ended = {(r.stage, r.mb): r.end for r in records}
    plan = trace.plan
    ipus = sorted({r.ipu for r in records})
    # The tasks each task waited for on other IPUs (from the plan's worker counts).
    waited_on: dict[tuple[int, int], list[tuple[int, int]]] = {}
    if plan is not None:
        for queue in plan.queues:
            for task in queue:
                waited_on[(task.stage, task.mb)] = [(t.stage, t.mb) for other, count in task.waits
                                                    for t in [plan.queues[other][count - 1]]]
    busy, waiting, handoff, between, drain = ({ipu: 0.0 for ipu in ipus} for _ in range(5))
    for ipu in ipus:
        mine = sorted((r for r in records if r.ipu == ipu), key=lambda r: r.start)
        previous = span_start
        for r in mine:
            busy[ipu] += r.end - r.start
            free = min(max(r.free, previous), r.start)
            between[ipu] += free - previous
            ready = max([ended[key] for key in waited_on.get((r.stage, r.mb), []) if key in ended], default=free)
            ready = min(max(ready, free), r.start)
            waiting[ipu] += ready - free
            handoff[ipu] += r.start - ready
            previous = r.end
        drain[ipu] += span_end - previous
    stage_times: dict[int, list[float]] = {}
    for r in records:
        stage_times.setdefault(r.stage, []).append(r.end - r.start)
    kinds: dict[str, float] = {}
    for per_worker in trace.kinds:
        for kind, seconds in per_worker.items():
            kinds[kind] = kinds.get(kind, 0.0) + seconds
    loop_overhead = sum(busy.values()) - sum(kinds.values()) if kinds else 0.0
    dispatch = (span_start - trace.begin) + (trace.end - span_end) if trace.end else 0.0
    stage_seconds = {stage: sum(times) / len(times) for stage, times in stage_times.items()}
    ideal = plan_utilisation(plan, stage_seconds) if plan is not None else float("nan")
    return Breakdown(ipus, span_end - span_start, busy, waiting, handoff, between, drain, dispatch, stage_seconds,
                     kinds, loop_overhead, {r.stage: r.ipu for r in records}, ideal)


def plan_utilisation(plan: Any, stage_seconds: dict[int, float]) -> float:
    """The utilisation of ``plan`` (a ``LoopPlan``) if each task took ``stage_seconds`` of
    its stage and started the moment its worker and what it waits for were done."""
    ends: list[list[float]] = [[] for _ in plan.queues]
    progress = True
    while progress:
        progress = False
        for me, queue in enumerate(plan.queues):
            while len(ends[me]) < len(queue):
                task = queue[len(ends[me])]
                if any(len(ends[other]) < count for other, count in task.waits):
                    break
                start = max([ends[me][-1] if ends[me] else 0.0] + [ends[other][count - 1] for other, count in task.waits])
                ends[me].append(start + stage_seconds[task.stage])
                progress = True
    span = max(end for mine in ends for end in mine)
    busy = sum(stage_seconds[task.stage] for queue in plan.queues for task in queue)
    return busy / (len(plan.queues) * span)

"""Pipelined execution on the IPU Model: a step function cut into stages
(:class:`StagedFunction`) runs over the micro-batches of a device loop in the order of
:func:`ipu_mlir.artifact.schedule.pipelined_steps`, each emulated IPU on a worker thread
(:class:`PipelineExecutor`), so stages on different IPUs overlap as on hardware.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import os
import time
from collections.abc import Callable

import torch
from torch_mlir import ir

from ipu_mlir.artifact import schedule

from .steps import Step

# How long the host waits for the emulated IPUs to finish one time step of a pipeline
# before it reports them stuck (seconds; IPU_MLIR_PIPELINE_STEP_TIMEOUT overrides it).
DEFAULT_STEP_TIMEOUT_S = 3600.0


class PipelineTimeoutError(RuntimeError):
    """The worker threads of the emulated IPUs did not finish a time step in time."""


def step_timeout() -> float:
    """The time-step timeout in seconds, from ``IPU_MLIR_PIPELINE_STEP_TIMEOUT`` if set."""
    text = os.environ.get("IPU_MLIR_PIPELINE_STEP_TIMEOUT", "")
    if not text:
        return DEFAULT_STEP_TIMEOUT_S
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise ValueError(f"IPU_MLIR_PIPELINE_STEP_TIMEOUT must be a positive number of seconds, got '{text}'")
    return value


# (step, ipu, stage, micro-batch, start, end) of each task of a pipelined loop.
Trace = list[tuple[int, int, int, int, float, float]]
# Each time step of a pipelined loop: its (stage, micro-batch) tasks grouped by IPU, and
# the micro-batches its last stage finishes, in order.
Timeline = list[tuple[list[list[tuple[int, int]]], list[int]]]


@dataclasses.dataclass
class StagedFunction:
    """A step function cut into pipeline stages. Each micro-batch has its own
    environment; variables that outlive a micro-batch (weights, accumulators, state)
    are read from the shared environment when a stage starts and written back when it
    ends, so a stage sees the updates of the stages before it."""

    stage_ipus: list[int]
    segments: list[list[Step]]
    reads: list[tuple[int, ...]]
    writes: list[tuple[int, ...]]

    @classmethod
    def build(cls, ops: list[ir.Operation], op_stages: list[int], steps: list[Step], step_stages: list[int],
              stage_ipus: list[int], slot_of: Callable[[ir.Value], int], shared: set[int]) -> StagedFunction:
        """``ops`` run in stages ``op_stages``, decoded into ``steps`` of stages
        ``step_stages``; ``shared`` are the slots of the variables that outlive a
        micro-batch."""
        count = len(stage_ipus)
        segments: list[list[Step]] = [[] for _ in range(count)]
        for step, stage in zip(steps, step_stages, strict=True):
            segments[stage].append(step)
        reads: list[set[int]] = [set() for _ in range(count)]
        writes: list[set[int]] = [set() for _ in range(count)]
        for op, stage in zip(ops, op_stages, strict=True):
            operands = [slot_of(v) for v in op.operands]
            reads[stage].update(slot for slot in operands if slot in shared)
            if op.name == "poplar.program_copy" and operands[1] in shared:
                writes[stage].add(operands[1])
        return cls(list(stage_ipus), segments, [tuple(r) for r in reads], [tuple(w) for w in writes])

    def timeline(self, count: int) -> Timeline:
        """The time steps of a loop over ``count`` micro-batches (built once, at decode time)."""
        last = len(self.stage_ipus) - 1
        steps: Timeline = []
        for pairs in schedule.pipelined_steps(len(self.stage_ipus), count):
            by_ipu: dict[int, list[tuple[int, int]]] = {}
            for stage, mb in pairs:
                by_ipu.setdefault(self.stage_ipus[stage], []).append((stage, mb))
            steps.append((list(by_ipu.values()), [mb for stage, mb in pairs if stage == last]))
        return steps

    def run_stage(self, stage: int, env: list, shared: list) -> None:
        for slot in self.reads[stage]:
            env[slot] = shared[slot]
        for step in self.segments[stage]:
            step(env)
        for slot in self.writes[stage]:
            shared[slot] = env[slot]


class PipelineExecutor:
    """Runs staged functions as pipelines; owns the worker threads of the emulated IPUs."""

    def __init__(self, num_ipus: int) -> None:
        self.num_ipus = num_ipus
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self.last_trace: Trace = []

    def run(self, staged: StagedFunction, timeline: Timeline, tail: list[Step], anchors: list[int], env: list) -> None:
        """Run the micro-batches of ``staged`` in the order of ``timeline``; each finished
        micro-batch runs the ``tail`` steps (its output copies) and hands its ``anchors``
        to ``env``, in order."""
        envs: dict[int, list] = {}
        trace = self.last_trace = []
        if self._pool is None and self.num_ipus > 1:
            # Each worker emulates one IPU: the host's intra-op threads are shared out
            # between the IPUs that run at once instead of each worker using them all.
            busy = len(set(staged.stage_ipus))
            threads = max(1, torch.get_num_threads() // busy)
            self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=busy, thread_name_prefix="ipu",
                                                               initializer=torch.set_num_threads, initargs=(threads,))

        def work(t: int, items: list[tuple[int, int]]) -> None:
            for stage, mb in items:
                if stage == 0:
                    envs[mb] = list(env)
                start = time.perf_counter()
                staged.run_stage(stage, envs[mb], env)
                trace.append((t, staged.stage_ipus[stage], stage, mb, start, time.perf_counter()))

        for t, (by_ipu, finished) in enumerate(timeline):
            # Even a step with one busy IPU runs on a worker: the host thread's own
            # intra-op threads would compete with the workers' for the cores.
            if self._pool is None:
                for items in by_ipu:
                    work(t, items)
            else:
                futures = [self._pool.submit(work, t, items) for items in by_ipu]
                # Every IPU finishes its step before an error surfaces, within a bound.
                timeout = step_timeout()
                _, pending = concurrent.futures.wait(futures, timeout=timeout)
                if pending:
                    self._abandon_pool()
                    stuck = sorted({staged.stage_ipus[stage] for future, items in zip(futures, by_ipu, strict=True)
                                    if future in pending for stage, _ in items})
                    raise PipelineTimeoutError(
                        f"pipelined loop: emulated IPU(s) {stuck} did not finish time step {t} within {timeout:g} s, "
                        "so the run was stopped (the step's kernels never returned). If the step is just slow, "
                        "raise IPU_MLIR_PIPELINE_STEP_TIMEOUT (seconds)"
                    )
                for future in futures:
                    future.result()
            for mb in finished:  # the micro-batch is done: move its outputs, in order
                done = envs.pop(mb)
                for step in tail:
                    step(done)
                for slot in anchors:
                    env[slot] = done[slot]

    def _abandon_pool(self) -> None:
        """Drop a pool whose workers are stuck: cancel what has not started, do not wait."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def close(self) -> None:
        """Stop the worker threads (a later run starts new ones). Every task a run
        submitted has finished (a run waits for them or abandons the pool), so this
        does not block."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

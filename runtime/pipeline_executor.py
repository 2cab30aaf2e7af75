"""Pipelined execution on the IPU Model: a step function cut into stages
(:class:`StagedFunction`) runs over the micro-batches of a device loop in the order of
:func:`ipu_mlir.artifact.schedule.pipelined_steps`, each emulated IPU on a worker thread
(:class:`PipelineExecutor`), so stages on different IPUs overlap as on hardware.

Each worker runs its IPU's tasks (one stage of one micro-batch) in the schedule's order and
waits only for what a task needs (:class:`LoopPlan`): the previous stage of its micro-batch
when that ran on another IPU, and, when stages on different IPUs touch the same variable,
the other IPU's last task of an earlier time step touching it. There is no barrier at each
time step: a stage that runs long on one IPU delays only the tasks that need its result, as
the exchange between IPUs does. The last stage's worker moves each finished micro-batch's
outputs, in order. The host thread hands the loop to the workers and wakes when they are
done (or a task overruns ``IPU_MLIR_PIPELINE_STEP_TIMEOUT``).

Every run leaves a :class:`~ipu_mlir.runtime.pipeline_timeline.PipelineTrace`
(``last_trace``): each task's time step, IPU, stage, micro-batch and times, from which
:func:`~ipu_mlir.runtime.pipeline_timeline.breakdown` says where the IPUs' idle time goes.
With ``IPU_MLIR_PIPELINE_PROFILE=1`` the workers also time every step of a stage by kind
(kernels, inter-IPU copies, stash / restore, host streams).
"""

from __future__ import annotations

import atexit
import bisect
import dataclasses
import itertools
import logging
import os
import queue
import threading
import time
import weakref
from collections.abc import Callable

import torch
from torch_mlir import ir

from ipu_mlir.artifact import schedule

from .pipeline_timeline import PipelineTrace, TaskRecord, step_kind
from .steps import Step

logger = logging.getLogger("ipu_mlir.runtime")

# How long one task (a stage of one micro-batch) may run before the host reports the
# emulated IPU stuck (seconds; IPU_MLIR_PIPELINE_STEP_TIMEOUT overrides it).
DEFAULT_STEP_TIMEOUT_S = 3600.0


class PipelineTimeoutError(RuntimeError):
    """The worker thread of an emulated IPU did not finish a task in time."""


# How many time steps a worker may run ahead of the others (LoopPlan.build's slack): one
# absorbs the jitter of a stage's time and keeps one more micro-batch in flight than the
# schedule.
RUN_AHEAD_STEPS = 1


def step_timeout() -> float:
    """The task timeout in seconds, from ``IPU_MLIR_PIPELINE_STEP_TIMEOUT`` if set."""
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


def profiling() -> bool:
    """Whether the workers time each step of a stage (``IPU_MLIR_PIPELINE_PROFILE=1``)."""
    text = os.environ.get("IPU_MLIR_PIPELINE_PROFILE", "")
    if text not in ("", "0", "1"):
        raise ValueError(f"IPU_MLIR_PIPELINE_PROFILE must be 0 or 1, got '{text}'")
    return text == "1"


@dataclasses.dataclass(frozen=True)
class Task:
    """One stage of one micro-batch at time step ``step`` of the schedule, on ``ipu``;
    before it starts, each ``(worker, count)`` of ``waits`` has finished ``count`` tasks."""

    step: int
    stage: int
    mb: int
    ipu: int
    waits: tuple[tuple[int, int], ...]
    last: bool  # the micro-batch's last stage: its outputs move after it


@dataclasses.dataclass(frozen=True)
class LoopPlan:
    """The tasks of a pipelined loop, built once at decode time: ``ipus`` are the IPUs with
    tasks (one worker each), ``queues`` the tasks of each worker in the order it runs them."""

    ipus: tuple[int, ...]
    queues: tuple[tuple[Task, ...], ...]
    stage_ipus: tuple[int, ...]

    @classmethod
    def build(cls, stage_ipus: list[int], slots: list[frozenset[int]], count: int, slack: int | None = 1) -> LoopPlan:
        """The plan of ``count`` micro-batches of stages on ``stage_ipus`` whose shared
        variables are ``slots``. A task of time step ``t`` waits for

        - the previous stage of its micro-batch (when it ran on another IPU);
        - each other IPU's last task of an earlier time step that shares a variable with it
          (read or written: the order the time steps give them);
        - each other IPU's tasks of time steps up to ``t - 1 - slack``: a worker runs at
          most ``slack`` steps ahead of the others, so at most ``slack`` more micro-batches
          are in flight than the schedule has (0: a barrier per step; None: no bound)."""
        ipus = tuple(sorted(set(stage_ipus)))
        worker = {ipu: index for index, ipu in enumerate(ipus)}
        steps = schedule.pipelined_steps(len(stage_ipus), count)
        order: list[list[tuple[int, int, int]]] = [[] for _ in ipus]  # (step, stage, mb) of each worker
        where: dict[tuple[int, int], tuple[int, int]] = {}  # (stage, mb) -> (worker, position)
        for t, pairs in enumerate(steps):
            for stage, mb in pairs:
                me = worker[stage_ipus[stage]]
                where[(stage, mb)] = (me, len(order[me]))
                order[me].append((t, stage, mb))
        # done_by[w][t]: how many tasks worker w has once it finished all of steps <= t.
        done_by = [[0] * len(steps) for _ in ipus]
        for w, mine in enumerate(order):
            for step, _, _ in mine:
                done_by[w][step] += 1
            done_by[w] = list(itertools.accumulate(done_by[w]))
        # touching[w][s]: (steps, positions) of worker w's tasks sharing a variable with stage s.
        touching = [[([step for step, before, _ in mine if slots[before] & slots[s]],
                      [p for p, (_, before, _) in enumerate(mine) if slots[before] & slots[s]])
                     for s in range(len(stage_ipus))] for mine in order]
        queues: list[list[Task]] = [[] for _ in ipus]
        for me, mine in enumerate(order):
            for t, stage, mb in mine:
                needs = {other: 0 for other in range(len(ipus)) if other != me}
                if stage > 0:
                    other, position = where[(stage - 1, mb)]
                    if other != me:
                        needs[other] = position + 1
                for other in needs:
                    conflict_steps, positions = touching[other][stage]
                    earlier = bisect.bisect_left(conflict_steps, t)  # those of steps < t
                    if earlier:
                        needs[other] = max(needs[other], positions[earlier - 1] + 1)
                    if slack is not None and t - 1 - slack >= 0:
                        needs[other] = max(needs[other], done_by[other][t - 1 - slack])
                waits = tuple(sorted((other, count) for other, count in needs.items() if count))
                queues[me].append(Task(t, stage, mb, stage_ipus[stage], waits, stage == len(stage_ipus) - 1))
        return cls(ipus, tuple(tuple(q) for q in queues), tuple(stage_ipus))


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

    def timeline(self, count: int) -> LoopPlan:
        """The plan of a loop over ``count`` micro-batches (built once, at decode time)."""
        slots = [frozenset(r) | frozenset(w) for r, w in zip(self.reads, self.writes, strict=True)]
        return LoopPlan.build(self.stage_ipus, slots, count, RUN_AHEAD_STEPS)

    def run_stage(self, stage: int, env: list, shared: list) -> None:
        for slot in self.reads[stage]:
            env[slot] = shared[slot]
        for step in self.segments[stage]:
            step(env)
        for slot in self.writes[stage]:
            shared[slot] = env[slot]

    def run_stage_profiled(self, stage: int, env: list, shared: list, seconds: dict[str, float]) -> None:
        """:meth:`run_stage`, adding each step's time to ``seconds`` under its kind."""
        clock = time.perf_counter
        for slot in self.reads[stage]:
            env[slot] = shared[slot]
        for step in self.segments[stage]:
            start = clock()
            step(env)
            kind = step_kind(step)
            seconds[kind] = seconds.get(kind, 0.0) + clock() - start
        for slot in self.writes[stage]:
            shared[slot] = env[slot]


class _Worker:
    """The thread of one emulated IPU: runs the loops handed to it, one after the other."""

    def __init__(self, ipu: int) -> None:
        self.ipu = ipu
        self.inbox: queue.SimpleQueue[_Loop | None] = queue.SimpleQueue()
        # Notified each time this worker finishes a task (other workers wait on it).
        self.finished = threading.Condition(threading.Lock())
        self.threads = 0  # the intra-op threads set on this thread (0: not yet)
        self.thread = threading.Thread(target=self._serve, name=f"ipu{ipu}", daemon=True)
        _LIVE.add(self)
        self.thread.start()

    def _serve(self) -> None:
        # Grad mode is per thread: the host's torch.no_grad() does not reach this one, and an
        # input that requires grad would give every stage result an autograd graph (and the
        # in-place gradient accumulator a graph growing each step). Kernels never record one.
        torch.set_grad_enabled(False)
        try:
            while (loop := self.inbox.get()) is not None:
                loop.work(self)
                del loop  # hold none of the run's tensors while idle
        finally:
            _LIVE.discard(self)


class _Loop:
    """One run of a pipelined loop: what the workers share while they run it."""

    def __init__(self, plan: LoopPlan, staged: StagedFunction, tail: list[Step], anchors: list[int], env: list,
                 workers: list[_Worker], threads: int, profile: bool) -> None:
        self.plan, self.staged, self.tail, self.anchors, self.env = plan, staged, tail, anchors, env
        self.workers = workers
        self.threads = threads
        self.envs: dict[int, list] = {}
        self.done = [0] * len(plan.ipus)  # tasks each worker has finished
        self.running: list[tuple[Task, float] | None] = [None] * len(plan.ipus)
        self.records: list[TaskRecord] = []
        self.kinds: list[dict[str, float]] = [{} for _ in plan.ipus] if profile else []
        self.error: BaseException | None = None
        self.failed = False
        self.active = len(plan.ipus)
        self.over = threading.Event()
        self._lock = threading.Lock()

    def work(self, worker: _Worker) -> None:
        """Run worker ``worker``'s tasks (called on its thread, or inline with no workers)."""
        me = self.workers.index(worker) if self.workers else 0
        try:
            if self.workers and worker.threads != self.threads:
                torch.set_num_threads(self.threads)  # this thread's OpenMP and MKL settings
                worker.threads = self.threads
            self._run_tasks(me)
        except BaseException as error:  # noqa: BLE001 - surfaced on the host thread
            self.fail(error)
        finally:
            with self._lock:
                self.active -= 1
                if self.active == 0:
                    self.over.set()

    def _run_tasks(self, me: int) -> None:
        staged, envs, env, clock = self.staged, self.envs, self.env, time.perf_counter
        kinds = self.kinds[me] if self.kinds else None
        mine = self.workers[me].finished if self.workers else None
        for task in self.plan.queues[me]:
            free = clock()
            for other, count in task.waits:
                if self.done[other] < count and not self._await(other, count):
                    return
            if self.failed:
                return
            start = clock()
            self.running[me] = (task, start)
            if task.stage == 0:
                envs[task.mb] = list(env)
            if kinds is None:
                staged.run_stage(task.stage, envs[task.mb], env)
            else:
                staged.run_stage_profiled(task.stage, envs[task.mb], env, kinds)
            if task.last:  # the micro-batch is done: move its outputs, in order
                done = envs.pop(task.mb)
                for step in self.tail:
                    step(done)
                for slot in self.anchors:
                    env[slot] = done[slot]
            end = clock()
            self.running[me] = None
            self.records.append(TaskRecord(task.step, task.ipu, task.stage, task.mb, free, start, end))
            if mine is None:
                self.done[me] += 1
            else:
                with mine:
                    self.done[me] += 1
                    mine.notify_all()

    def _await(self, other: int, count: int) -> bool:
        """Wait until worker ``other`` has finished ``count`` tasks; False if the loop failed."""
        finished = self.workers[other].finished
        with finished:
            while self.done[other] < count and not self.failed:
                finished.wait()
        return not self.failed

    def fail(self, error: BaseException | None) -> None:
        """Stop the loop: workers finish their current task and take no other."""
        with self._lock:
            if self.error is None and error is not None:
                self.error = error
            self.failed = True
        for worker in self.workers:
            with worker.finished:
                worker.finished.notify_all()


class PipelineExecutor:
    """Runs staged functions as pipelines; owns the worker threads of the emulated IPUs."""

    def __init__(self, num_ipus: int) -> None:
        self.num_ipus = num_ipus
        self._workers: dict[int, _Worker] = {}
        self.last_trace: PipelineTrace = PipelineTrace()
        # An executor dropped without close() still stops its threads (they do not refer to it).
        weakref.finalize(self, _stop, self._workers)

    def run(self, staged: StagedFunction, timeline: LoopPlan, tail: list[Step], anchors: list[int], env: list) -> None:
        """Run the micro-batches of ``staged`` as ``timeline`` plans; each finished
        micro-batch runs the ``tail`` steps (its output copies) and hands its ``anchors``
        to ``env``, in order."""
        timeout, profile = step_timeout(), profiling()
        plan = timeline
        # Each worker emulates one IPU: the host's intra-op threads are shared out between
        # the IPUs instead of each worker using them all (each thread has its own setting).
        threads = max(1, torch.get_num_threads() // len(plan.ipus))
        # One IPU busy: its tasks run on this thread, nothing to hand off.
        workers = [] if len(plan.ipus) == 1 else [self._worker(ipu) for ipu in plan.ipus]
        loop = _Loop(plan, staged, tail, anchors, env, workers, threads, profile)
        begin = time.perf_counter()
        if not workers:
            loop.work(None)  # type: ignore[arg-type]
        else:
            for worker in workers:
                worker.inbox.put(loop)
            self._wait(loop, timeout)
        self.last_trace = PipelineTrace(loop.records, plan, begin, time.perf_counter(), loop.kinds)
        if loop.error is not None:
            raise loop.error

    def _worker(self, ipu: int) -> _Worker:
        worker = self._workers.get(ipu)
        if worker is None:
            worker = self._workers[ipu] = _Worker(ipu)
        return worker

    def _wait(self, loop: _Loop, timeout: float) -> None:
        """Wait for the workers to finish ``loop``; a task running longer than ``timeout`` is
        an error naming its IPU (the others stop after their current task)."""
        try:
            remaining = timeout
            while not loop.over.wait(remaining):
                now = time.perf_counter()
                running = [entry for entry in loop.running if entry is not None]
                overdue = sorted((task.step, task.ipu) for task, start in running if now - start >= timeout)
                if overdue:
                    self._abandon(loop)
                    step = overdue[0][0]
                    stuck = sorted({ipu for t, ipu in overdue if t == step})
                    raise PipelineTimeoutError(
                        f"pipelined loop: emulated IPU(s) {stuck} did not finish time step {step} within {timeout:g} s, "
                        "so the run was stopped (the step's kernels never returned). If the step is just slow, "
                        "raise IPU_MLIR_PIPELINE_STEP_TIMEOUT (seconds)"
                    )
                oldest = min((start for _, start in running), default=now)
                remaining = max(timeout - (now - oldest), 1e-3)
        except PipelineTimeoutError:
            raise
        except BaseException:  # e.g. KeyboardInterrupt: stop the workers before leaving
            loop.fail(None)
            if not loop.over.wait(timeout):
                self._abandon(loop)
            raise

    def _abandon(self, loop: _Loop) -> None:
        """Stop ``loop`` and drop its workers without waiting for them (one is stuck in a
        kernel): each thread exits once its current task returns; a later run starts new ones."""
        loop.fail(None)
        for worker in loop.workers:
            worker.inbox.put(None)
            if self._workers.get(worker.ipu) is worker:
                del self._workers[worker.ipu]

    def close(self) -> None:
        """Stop the worker threads (a later run starts new ones). A run waits for its
        tasks or abandons its workers, so no worker is busy here and this does not block."""
        for worker in _stop(self._workers):
            worker.thread.join()


# The workers whose thread has not ended. At interpreter exit each is stopped and joined
# (_join_at_exit) before the interpreter finalizes: a daemon thread that runs Python then
# (dropping a run's tensors when woken to stop) is ended inside the C++ call it is in, a
# tensor's deallocation, and the process aborts ("terminate called without an active
# exception"). A worker abandoned in a stuck kernel gets EXIT_JOIN_TIMEOUT_S to finish it.
_LIVE: set[_Worker] = set()
EXIT_JOIN_TIMEOUT_S = 10.0


def _join_at_exit() -> None:
    workers = list(_LIVE)
    for worker in workers:
        worker.inbox.put(None)
    deadline = time.monotonic() + EXIT_JOIN_TIMEOUT_S
    for worker in workers:
        worker.thread.join(max(0.0, deadline - time.monotonic()))
    stuck = sorted(worker.ipu for worker in workers if worker.thread.is_alive())
    if stuck:
        logger.warning("the threads of emulated IPU(s) %s were still running a kernel at exit after %g s; the "
                       "interpreter may abort when they return", stuck, EXIT_JOIN_TIMEOUT_S)


atexit.register(_join_at_exit)


def _stop(workers: dict[int, _Worker]) -> list[_Worker]:
    """Tell each of ``workers`` to exit once idle; empty the dict; the workers it held."""
    stopped = list(workers.values())
    workers.clear()
    for worker in stopped:
        worker.inbox.put(None)
    return stopped

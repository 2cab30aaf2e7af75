"""The pipeline executor's behaviour and its timeline.

The workers of the emulated IPUs run their tasks (a stage of one micro-batch) in the
schedule's order, each waiting only for what it needs: the previous stage of its
micro-batch, and another IPU's earlier task that touches one of its variables. A slow
stage therefore delays only its dependants (no barrier per time step). The trace of a run
says when each task ran and :func:`breakdown` where each IPU's idle time went.
"""

from __future__ import annotations

import re
import threading
import time

import pytest
import torch

import poptorch
from helpers.models import LayersOverIpus
from ipu_mlir.artifact.schedule import ideal_utilisation
from ipu_mlir.runtime.pipeline_executor import LoopPlan, PipelineExecutor, StagedFunction
from ipu_mlir.runtime.pipeline_timeline import PipelineTrace, TaskRecord, breakdown, plan_utilisation


def _staged(stage_ipus: list[int], body, shared: dict[int, tuple[int, ...]] | None = None) -> StagedFunction:  # noqa: ANN001
    """Stages calling ``body(stage, env)``; ``shared`` gives stages a shared slot (read)."""
    shared = shared or {}
    segments = [[lambda env, s=s: body(s, env)] for s in range(len(stage_ipus))]
    return StagedFunction(stage_ipus=stage_ipus, segments=segments,
                          reads=[shared.get(s, ()) for s in range(len(stage_ipus))],
                          writes=[() for _ in stage_ipus])


def _run(staged: StagedFunction, count: int, env: list | None = None) -> PipelineTrace:
    executor = PipelineExecutor(num_ipus=max(staged.stage_ipus) + 1)
    try:
        executor.run(staged, staged.timeline(count), tail=[], anchors=[], env=env if env is not None else [None, None])
    finally:
        executor.close()
    return executor.last_trace


def _task(trace: PipelineTrace, stage: int, mb: int) -> TaskRecord:
    (record,) = [r for r in trace.records if r.stage == stage and r.mb == mb]
    return record


# -- the plan -------------------------------------------------------------------------
def test_plan_waits_for_the_previous_stage_on_another_ipu_only() -> None:
    # Training over 2 IPUs: F0 on IPU 0, FB1 on IPU 1, B0 back on IPU 0.
    plan = LoopPlan.build([0, 1, 0], [frozenset(), frozenset(), frozenset()], 3)
    assert plan.ipus == (0, 1)
    ipu0 = [(t.step, t.stage, t.mb) for t in plan.queues[0]]
    assert ipu0 == [(0, 0, 0), (1, 0, 1), (2, 0, 2), (2, 2, 0), (3, 2, 1), (4, 2, 2)]  # steps, stage order within one
    ipu1 = plan.queues[1]
    # FB1 of micro-batch j waits for IPU 0's F0 of j: IPU 0's first j + 1 tasks.
    assert [t.waits for t in ipu1] == [((0, 1),), ((0, 2),), ((0, 3),)]
    # B0 of j waits for IPU 1's FB1 of j; F0 waits for nothing (its IPU runs in order).
    assert [t.waits for t in plan.queues[0]] == [(), (), (), ((1, 1),), ((1, 2),), ((1, 3),)]
    assert [t.last for t in plan.queues[0]] == [False, False, False, True, True, True]


def test_plan_lets_a_worker_run_one_step_ahead() -> None:
    # Inference: stage 0 of micro-batch j (step j) waits for IPU 1's tasks up to step j - 2.
    plan = LoopPlan.build([0, 1], [frozenset(), frozenset()], 5)
    assert [t.waits for t in plan.queues[0]] == [(), (), (), ((1, 1),), ((1, 2),)]
    assert [t.waits for t in LoopPlan.build([0, 1], [frozenset(), frozenset()], 5, slack=2).queues[0]] == \
        [(), (), (), (), ((1, 1),)]
    assert [t.waits for t in LoopPlan.build([0, 1], [frozenset(), frozenset()], 5, slack=None).queues[0]] == \
        [(), (), (), (), ()]
    # slack 0 is a barrier per step: step j waits for IPU 1's step j - 1.
    assert [t.waits for t in LoopPlan.build([0, 1], [frozenset(), frozenset()], 5, slack=0).queues[0]] == \
        [(), (), ((1, 1),), ((1, 2),), ((1, 3),)]


def test_plan_orders_stages_of_different_ipus_sharing_a_variable_by_time_step() -> None:
    plan = LoopPlan.build([0, 1], [frozenset({7}), frozenset({7})], 3)
    # F0 of micro-batch 2 (step 2) comes after IPU 1's F1 of micro-batch 0 (step 1), which
    # touches the same variable: it waits for IPU 1's first task.
    assert [t.waits for t in plan.queues[0]] == [(), (), ((1, 1),)]
    assert [t.waits for t in plan.queues[1]] == [((0, 1),), ((0, 2),), ((0, 3),)]


# -- the executor ---------------------------------------------------------------------
def test_a_slow_stage_delays_only_the_tasks_that_need_it() -> None:
    """No barrier per time step: IPU 0 runs ahead while IPU 1's first task is slow."""

    def body(stage: int, env: list) -> None:
        if stage == 1 and env[1] == 0:
            time.sleep(0.3)

    def numbered(stage: int, env: list) -> None:
        if stage == 0:
            env[1] = numbered.count
            numbered.count += 1
        body(stage, env)

    numbered.count = 0
    trace = _run(_staged([0, 1], numbered), 4)
    slow = _task(trace, 1, 0)
    # With a barrier per step, stage 0 of micro-batch 2 (step 2) waited for step 1's slow task.
    assert all(_task(trace, 0, mb).end < slow.end for mb in range(3))
    # One step ahead at most: stage 0 of micro-batch 3 (step 3) waits for IPU 1's step 1.
    assert _task(trace, 0, 3).start >= slow.end
    # Every task still ran after its micro-batch's previous stage, and each IPU in order.
    for mb in range(4):
        assert _task(trace, 1, mb).start >= _task(trace, 0, mb).end
    for ipu in (0, 1):
        mine = sorted((r for r in trace.records if r.ipu == ipu), key=lambda r: r.start)
        assert [r.step for r in mine] == sorted(r.step for r in mine)
        assert all(a.end <= b.start for a, b in zip(mine, mine[1:]))


def test_stages_sharing_a_variable_keep_the_order_of_the_time_steps() -> None:
    order: list[tuple[int, int]] = []

    def body(stage: int, env: list) -> None:
        if stage == 1:
            time.sleep(0.05)  # IPU 0 would run ahead without the variable's order
        env[0].append((stage, env[1]))

    def numbered(stage: int, env: list) -> None:
        if stage == 0:
            env[1] = numbered.count
            numbered.count += 1
        body(stage, env)

    numbered.count = 0
    trace = _run(_staged([0, 1], numbered, shared={0: (0,), 1: (0,)}), 4, env=[order, None])
    # Tasks of different time steps touching the variable ran in step order.
    steps = {(r.stage, r.mb): r.step for r in trace.records}
    recorded = [steps[pair] for pair in order]
    assert recorded == sorted(recorded), order
    assert _task(trace, 0, 2).start >= _task(trace, 1, 0).end


def test_a_failing_stage_stops_the_loop_and_the_executor_runs_again() -> None:
    ran: list[tuple[int, int]] = []

    def body(stage: int, env: list) -> None:
        ran.append((stage, env[1]))
        if stage == 1 and env[1] == 1 and body.fail:
            raise RuntimeError("kernel failed")

    def numbered(stage: int, env: list) -> None:
        if stage == 0:
            env[1] = numbered.count
            numbered.count += 1
        body(stage, env)

    body.fail, numbered.count = True, 0
    staged = _staged([0, 1], numbered)
    executor = PipelineExecutor(num_ipus=2)
    with pytest.raises(RuntimeError, match="kernel failed"):
        executor.run(staged, staged.timeline(6), tail=[], anchors=[], env=[None, None])
    assert (1, 2) not in ran  # IPU 1 took no task after the failure
    body.fail, numbered.count = False, 0
    ran.clear()
    executor.run(staged, staged.timeline(3), tail=[], anchors=[], env=[None, None])
    executor.close()
    assert sorted(ran) == [(s, mb) for s in range(2) for mb in range(3)]


def test_each_worker_gets_its_share_of_the_intra_op_threads() -> None:
    seen: dict[int, set[int]] = {0: set(), 1: set()}

    def body(stage: int, env: list) -> None:
        seen[stage].add(torch.get_num_threads())

    staged = _staged([0, 1], body)
    executor = PipelineExecutor(num_ipus=2)
    before = torch.get_num_threads()
    try:
        for host_threads, expected in ((4, 2), (1, 1)):
            torch.set_num_threads(host_threads)
            seen[0].clear()
            seen[1].clear()
            executor.run(staged, staged.timeline(2), tail=[], anchors=[], env=[None, None])
            assert seen == {0: {expected}, 1: {expected}}  # the host's threads, shared by 2 IPUs
            assert torch.get_num_threads() == host_threads  # the host thread keeps its own setting
    finally:
        executor.close()
        torch.set_num_threads(before)


def test_stages_on_one_ipu_run_on_the_calling_thread() -> None:
    threads: set[str] = set()
    trace = _run(_staged([0, 0], lambda stage, env: threads.add(threading.current_thread().name)), 3)
    assert threads == {threading.current_thread().name}
    assert sorted((r.stage, r.mb) for r in trace.records) == [(s, mb) for s in range(2) for mb in range(3)]


def test_close_stops_the_worker_threads() -> None:
    staged = _staged([0, 1], lambda stage, env: None)
    executor = PipelineExecutor(num_ipus=2)
    executor.run(staged, staged.timeline(2), tail=[], anchors=[], env=[None, None])
    workers = list(executor._workers.values())
    assert [w.thread.is_alive() for w in workers] == [True, True]
    executor.close()
    assert [w.thread.is_alive() for w in workers] == [False, False]


# -- the timeline -----------------------------------------------------------------------
def _synthetic() -> PipelineTrace:
    """Two stages on two IPUs, two micro-batches, times in seconds:
    IPU 0: F0 mb0 [0, 2], F0 mb1 free 2.5 [2.5, 4.5];
    IPU 1: F1 mb0 free 0 (waits for F0 mb0 until 2) starts 2.25, ends 4.25;
           F1 mb1 free 4.5 (its input ended at 4.5) starts 5, ends 7."""
    plan = LoopPlan.build([0, 1], [frozenset(), frozenset()], 2)
    records = [TaskRecord(0, 0, 0, 0, 0.0, 0.0, 2.0), TaskRecord(1, 0, 0, 1, 2.5, 2.5, 4.5),
               TaskRecord(1, 1, 1, 0, 0.0, 2.25, 4.25), TaskRecord(2, 1, 1, 1, 4.5, 5.0, 7.0)]
    return PipelineTrace(records, plan, begin=-0.5, end=7.25)


def test_breakdown_splits_each_ipus_span() -> None:
    trace = _synthetic()
    assert list(trace) == [(0, 0, 0, 0, 0.0, 2.0), (1, 0, 0, 1, 2.5, 4.5), (1, 1, 1, 0, 2.25, 4.25),
                           (2, 1, 1, 1, 5.0, 7.0)]  # the (step, ipu, stage, micro-batch, start, end) view
    parts = breakdown(trace)
    assert parts.span == 7.0
    assert parts.busy == {0: 4.0, 1: 4.0}
    assert parts.between == {0: 0.5, 1: 0.25}  # IPU 0: 2 -> 2.5; IPU 1: 4.25 -> 4.5
    assert parts.waiting == {0: 0.0, 1: 2.0}  # IPU 1 waited for F0 mb0 (0 -> 2)
    assert parts.handoff == {0: 0.0, 1: 0.75}  # 2 -> 2.25 and 4.5 -> 5
    assert parts.drain == {0: 2.5, 1: 0.0}  # IPU 0 after its last task
    assert parts.dispatch == 0.5 + 0.25
    assert parts.utilisation == 8.0 / 14.0
    for ipu in (0, 1):
        total = parts.busy[ipu] + parts.between[ipu] + parts.waiting[ipu] + parts.handoff[ipu] + parts.drain[ipu]
        assert total == parts.span
    assert parts.stage_seconds == {0: 2.0, 1: 2.0}
    assert parts.stage_time_ideal == ideal_utilisation(2, 2)  # balanced stages
    text = parts.text(ideal_utilisation(2, 2))
    assert text.splitlines()[0] == ("utilisation 0.571 (ideal 0.667, for the measured stage times 0.667); "
                                    "span 7000.00 ms x 2 IPUs")
    assert re.search(r"hand-off \(wake-up, GIL\)\s+5\.36 points", text)  # 0.75 s of 14
    assert re.search(r"waiting for another IPU\s+14\.29 points", text)


def test_the_utilisation_stage_times_allow() -> None:
    inference = LoopPlan.build([0, 1], [frozenset(), frozenset()], 4)
    assert plan_utilisation(inference, {0: 1.0, 1: 1.0}) == ideal_utilisation(2, 4)
    # Stage 1 twice as slow: IPU 1 sets the pace, busy 4 + 8 over 2 x (1 + 4 x 2).
    assert plan_utilisation(inference, {0: 1.0, 1: 2.0}) == 12 / 18
    # Training with equal layers: IPU 0 does F0 (3) + B0 (5), IPU 1 does FB1 (9) per micro-batch;
    # IPU 1 runs back to back after F0 of micro-batch 0, IPU 0 ends with B0 of the last one.
    training = LoopPlan.build([0, 1, 0], [frozenset()] * 3, 16)
    assert plan_utilisation(training, {0: 3.0, 1: 9.0, 2: 5.0}) == pytest.approx(16 * 17 / (2 * (3 + 16 * 9 + 5)))


def test_breakdown_of_an_empty_trace_is_an_error() -> None:
    with pytest.raises(ValueError, match="the trace has no tasks: run a pipelined loop first"):
        breakdown(PipelineTrace())


@pytest.fixture(scope="module")
def training() -> poptorch.PoplarExecutor:
    torch.manual_seed(1)
    model = LayersOverIpus("block", 2)
    options = poptorch.Options()
    options.Training.gradientAccumulation(5)
    wrapper = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1))
    wrapper(torch.randn(20, 8), torch.randint(0, 3, (20,)))
    yield wrapper
    wrapper.destroy()


def test_a_real_loop_accounts_for_every_ipus_span(training) -> None:  # noqa: ANN001
    training(torch.randn(20, 8), torch.randint(0, 3, (20,)))
    trace = training._compiled.program.last_trace
    assert sorted((r.stage, r.mb) for r in trace.records) == [(s, mb) for s in range(3) for mb in range(5)]
    parts = breakdown(trace)
    for ipu in (0, 1):
        total = parts.busy[ipu] + parts.between[ipu] + parts.waiting[ipu] + parts.handoff[ipu] + parts.drain[ipu]
        assert total == pytest.approx(parts.span, rel=1e-9)
    assert parts.stage_ipus == {0: 0, 1: 1, 2: 0}
    assert trace.begin <= min(r.start for r in trace.records) and trace.end >= max(r.end for r in trace.records)
    assert not parts.kinds  # not profiled


def test_profiled_loop_times_steps_by_kind(training, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("IPU_MLIR_PIPELINE_PROFILE", "1")
    training(torch.randn(20, 8), torch.randint(0, 3, (20,)))
    parts = breakdown(training._compiled.program.last_trace)
    # The stages send activations and gradients between the IPUs, stash forward
    # activations for the backward stage and restore them there.
    for kind in ("kernels", "copy to a new buffer (send, per-micro-batch variable)", "stash (a reference, no copy)",
                 "restore / recv (a reference, no copy)", "host stream in"):
        assert parts.kinds.get(kind, 0.0) > 0.0, (kind, parts.kinds)
    assert 0.0 <= parts.loop_overhead < sum(parts.busy.values())
    assert "busy time by step kind: kernels" in parts.text(ideal_utilisation(2, 5))


def test_a_bad_profile_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IPU_MLIR_PIPELINE_PROFILE", "yes")
    staged = _staged([0, 1], lambda stage, env: None)
    with pytest.raises(ValueError, match=re.escape("IPU_MLIR_PIPELINE_PROFILE must be 0 or 1, got 'yes'")):
        PipelineExecutor(num_ipus=2).run(staged, staged.timeline(1), tail=[], anchors=[], env=[None, None])


def test_an_executor_dropped_without_close_stops_its_threads() -> None:
    staged = _staged([0, 1], lambda stage, env: None)
    executor = PipelineExecutor(num_ipus=2)
    executor.run(staged, staged.timeline(2), tail=[], anchors=[], env=[None, None])
    threads = [w.thread for w in executor._workers.values()]
    del executor
    for thread in threads:
        thread.join(timeout=10)
    assert [t.is_alive() for t in threads] == [False, False]

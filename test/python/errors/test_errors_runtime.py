"""Error catalogue, runtime: every wait on a worker thread has a bound and an error.

The pipelined loop waits for the emulated IPUs' worker threads at each time step; a step
that does not finish within ``IPU_MLIR_PIPELINE_STEP_TIMEOUT`` seconds is an error that
names the IPUs and the step, not a hang.
"""

from __future__ import annotations

import re
import time

import pytest

from ipu_mlir.runtime.pipeline_executor import PipelineExecutor, PipelineTimeoutError, StagedFunction


def _two_stages(seconds: float) -> StagedFunction:
    """Stage 0 on IPU 0 appends 0; stage 1 on IPU 1 sleeps ``seconds`` then appends 1."""

    def first(env: list) -> None:
        env[0] = env[0] + [0]

    def second(env: list) -> None:
        time.sleep(seconds)
        env[0] = env[0] + [1]

    return StagedFunction(stage_ipus=[0, 1], segments=[[first], [second]], reads=[(), ()], writes=[(), ()])


def test_a_stuck_stage_is_an_error_naming_the_ipu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IPU_MLIR_PIPELINE_STEP_TIMEOUT", "0.2")
    staged = _two_stages(seconds=1.0)
    executor = PipelineExecutor(num_ipus=2)
    start = time.perf_counter()
    with pytest.raises(PipelineTimeoutError, match=re.escape(
            "pipelined loop: emulated IPU(s) [1] did not finish time step 1 within 0.2 s, so the run was stopped")):
        executor.run(staged, staged.timeline(2), tail=[], anchors=[], env=[[]])
    assert time.perf_counter() - start < 1.0  # it did not wait for the stuck stage
    executor.close()


def test_steps_within_the_bound_run_to_the_end(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IPU_MLIR_PIPELINE_STEP_TIMEOUT", "30")
    staged = _two_stages(seconds=0.0)
    executor = PipelineExecutor(num_ipus=2)
    executor.run(staged, staged.timeline(3), tail=[], anchors=[0], env=[[]])
    executor.close()
    # Each of the 3 micro-batches ran both stages, on their IPUs.
    assert sorted((ipu, stage, mb) for _, ipu, stage, mb, _, _ in executor.last_trace) == [
        (0, 0, 0), (0, 0, 1), (0, 0, 2), (1, 1, 0), (1, 1, 1), (1, 1, 2)]


@pytest.mark.parametrize("value", ["0", "-1", "soon"])
def test_a_bad_timeout_setting(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("IPU_MLIR_PIPELINE_STEP_TIMEOUT", value)
    staged = _two_stages(seconds=0.0)
    with pytest.raises(ValueError, match=re.escape(
            f"IPU_MLIR_PIPELINE_STEP_TIMEOUT must be a positive number of seconds, got '{value}'")):
        PipelineExecutor(num_ipus=2).run(staged, staged.timeline(1), tail=[], anchors=[], env=[[]])

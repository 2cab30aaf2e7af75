"""Pipeline schedules as a user sees them: the step tables of runtime.schedule, the
trace of a pipelined run on the emulated IPUs (which stage of which micro-batch each
IPU ran at each step), ``PoplarExecutor.schedule()`` and ``ipu-translate
--schedule-to-text`` / ``--schedule-to-html``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch
from helpers import FP32
from helpers.checks import eager_per_micro_batch
from helpers.models import LayersOverIpus

import poptorch
from ipu_mlir.artifact import schedule
from ipu_mlir.tools import ipu_translate

# -- the schedule tables ---------------------------------------------------------------


def test_pipelined_steps_ramp_up_steady_ramp_down() -> None:
    steps = schedule.pipelined_steps(3, 4)
    assert steps == [
        [(0, 0)],  # ramp-up
        [(0, 1), (1, 0)],
        [(0, 2), (1, 1), (2, 0)],  # steady state: every stage busy
        [(0, 3), (1, 2), (2, 1)],
        [(1, 3), (2, 2)],  # ramp-down
        [(2, 3)],
    ]
    assert len(steps) == 4 + 3 - 1
    pairs = [pair for step in steps for pair in step]
    assert sorted(pairs) == [(s, j) for s in range(3) for j in range(4)]  # each (stage, mb) once
    assert all(t == j + s for t, step in enumerate(steps) for s, j in step)


def test_pipelined_steps_of_one_stage_is_one_micro_batch_per_step() -> None:
    assert schedule.pipelined_steps(1, 3) == [[(0, 0)], [(0, 1)], [(0, 2)]]


def test_sharded_steps_run_one_stage_at_a_time_micro_batch_by_micro_batch() -> None:
    assert schedule.sharded_steps(2, 3) == [[(0, 0)], [(1, 0)], [(0, 1)], [(1, 1)], [(0, 2)], [(1, 2)]]
    assert all(len(step) == 1 for step in schedule.sharded_steps(3, 4))


def test_ideal_utilisation() -> None:
    assert schedule.ideal_utilisation(2, 8) == pytest.approx(8 / 9)
    assert schedule.ideal_utilisation(1, 5) == 1.0
    assert schedule.ideal_utilisation(4, 4) == pytest.approx(4 / 7)


def test_render_text_names_forward_and_backward_stages() -> None:
    # Pipelined training over 2 IPUs: F0 on IPU 0, FB1 (last forward + first backward)
    # on IPU 1, B0 (backward of stage 0) back on IPU 0.
    text = schedule.render_text("pipelined", [0, 1, 0], 3, training=True, peak_bytes={0: 2048, 1: 1024})
    assert text.splitlines()[0] == "pipelined schedule: 3 stages on 2 IPUs, 3 micro-batches, 5 steps"
    assert re.search(r"^2\s+F0:mb2, B0:mb0\s+FB1:mb1$", text, re.M)
    assert "peak memory: IPU0 2,048 B, IPU1 1,024 B" in text
    assert "peak memory" not in schedule.render_text("pipelined", [0, 1], 2, training=False)


# -- compiled models -------------------------------------------------------------------


def _rows(text: str) -> list[list[str]]:
    """The cells of each step row of a text schedule (step number first)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("step "))
    rows = []
    for line in lines[start + 1 :]:
        if not line[:1].isdigit():
            break
        rows.append(re.split(r"\s{2,}", line.strip()))
    return rows


@pytest.fixture(scope="module")
def inference() -> tuple[poptorch.PoplarExecutor, torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    model = LayersOverIpus("block", 2).eval()
    wrapper = poptorch.inferenceModel(model, poptorch.Options().deviceIterations(4))  # pipelined by default
    x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
    out, _ = wrapper(x, y)
    expected = torch.cat([logits for logits, _ in eager_per_micro_batch(model, 4, x, y)])
    return wrapper, out, expected


@pytest.fixture(scope="module")
def training() -> poptorch.PoplarExecutor:
    torch.manual_seed(1)
    model = LayersOverIpus("block", 2)
    options = poptorch.Options()
    options.Training.gradientAccumulation(3)  # 2 forward stages: G >= 2 x 2 - 1
    wrapper = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1))
    wrapper(torch.randn(12, 8), torch.randint(0, 3, (12,)))
    yield wrapper
    wrapper.destroy()


def test_pipelined_inference_trace_and_outputs(inference) -> None:  # noqa: ANN001
    wrapper, out, expected = inference
    torch.testing.assert_close(out, expected, **FP32)
    trace = wrapper._compiled.program.last_trace
    assert len(trace) == 4 * 2
    assert sorted((stage, mb) for _, _, stage, mb, _, _ in trace) == [(s, j) for s in range(2) for j in range(4)]
    for step, ipu, stage, mb, start, end in trace:
        assert step == mb + stage, (step, stage, mb)
        assert ipu == stage  # stage s runs on IPU s
        assert start <= end
    # On each IPU the micro-batches run in order, one step after the other.
    for ipu in range(2):
        mine = sorted((step, mb) for step, i, _, mb, _, _ in trace if i == ipu)
        assert [mb for _, mb in mine] == [0, 1, 2, 3]


def test_pipelined_inference_schedule_text(inference) -> None:  # noqa: ANN001
    wrapper, _, _ = inference
    text = wrapper.schedule()
    assert text == wrapper.schedule("text")
    lines = text.splitlines()
    assert lines[0] == "pipelined schedule: 2 stages on 2 IPUs, 4 micro-batches, 5 steps"
    rows = _rows(text)
    assert [row[0] for row in rows] == ["0", "1", "2", "3", "4"]
    assert rows[0] == ["0", "F0:mb0", "-"]  # ramp-up: IPU 1 waits
    assert rows[1] == ["1", "F0:mb1", "F1:mb0"]
    assert rows[4] == ["4", "-", "F1:mb3"]  # ramp-down: IPU 0 is done
    assert "busy steps: IPU0 4/5, IPU1 4/5" in lines
    assert 4 / 5 == schedule.ideal_utilisation(2, 4)
    (memory,) = [line for line in lines if line.startswith("peak memory:")]
    assert re.fullmatch(r"peak memory: IPU0 [\d,]+ B, IPU1 [\d,]+ B", memory)
    memory_plan = wrapper._compiled.memory_per_ipu()
    assert memory == f"peak memory: IPU0 {memory_plan[0]['total']:,} B, IPU1 {memory_plan[1]['total']:,} B"


def test_pipelined_inference_schedule_html(inference) -> None:  # noqa: ANN001
    wrapper, _, _ = inference
    page = wrapper.schedule("html")
    assert page.startswith("<!DOCTYPE html>")
    assert "<table>" in page and "</table>" in page
    assert "pipelined schedule: 2 stages on 2 IPUs, 4 micro-batches" in page
    assert page.count("<tr>") == 1 + 5  # the header and one row per step
    assert "F1 mb3" in page and "idle" in page


def test_schedule_rejects_unknown_format(inference) -> None:  # noqa: ANN001
    wrapper, _, _ = inference
    with pytest.raises(ValueError, match=r"'text' or 'html'"):
        wrapper.schedule("pdf")


def test_schedule_before_compilation_is_an_error() -> None:
    wrapper = poptorch.inferenceModel(LayersOverIpus("block", 2).eval(), poptorch.Options().deviceIterations(4))
    with pytest.raises(RuntimeError, match="not compiled"):
        wrapper.schedule()


def test_pipelined_training_trace_and_schedule(training) -> None:  # noqa: ANN001
    trace = training._compiled.program.last_trace
    assert len(trace) == 3 * 3  # forward 0, forward 1 + backward 1, backward 0 x 3 micro-batches
    assert sorted((stage, mb) for _, _, stage, mb, _, _ in trace) == [(s, j) for s in range(3) for j in range(3)]
    assert all(step == mb + stage for step, _, stage, mb, _, _ in trace)
    ipus = {stage: ipu for _, ipu, stage, _, _, _ in trace}
    assert ipus == {0: 0, 1: 1, 2: 0}  # the backward of stage 0 runs back on IPU 0
    text = training.schedule()
    assert text.splitlines()[0] == "pipelined schedule: 3 stages on 2 IPUs, 3 micro-batches, 5 steps"
    assert "FB1" in text and "B0" in text
    rows = _rows(text)
    assert rows[2] == ["2", "F0:mb2, B0:mb0", "FB1:mb1"]  # IPU 0 runs two stages in one step
    assert "busy steps: IPU0 5/5, IPU1 3/5" in text


def test_training_schedule_counts_accumulation_micro_batches_not_device_iterations() -> None:
    torch.manual_seed(3)
    model = LayersOverIpus("block", 2)
    options = poptorch.Options().deviceIterations(5)
    options.Training.gradientAccumulation(3)
    wrapper = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1))
    try:
        wrapper(torch.randn(60, 8), torch.randint(0, 3, (60,)))
        micro_batches = {mb for _, _, _, mb, _, _ in wrapper._compiled.program.last_trace}
        assert micro_batches == {0, 1, 2}  # each pipelined loop runs the 3 accumulated micro-batches
        assert wrapper.schedule().splitlines()[0] == "pipelined schedule: 3 stages on 2 IPUs, 3 micro-batches, 5 steps"
    finally:
        wrapper.destroy()


def test_sharded_schedule_keeps_one_ipu_busy_per_step() -> None:
    torch.manual_seed(2)
    options = poptorch.Options().deviceIterations(4)
    options.setExecutionStrategy(LayersOverIpus.strategy("sharded", 2))
    wrapper = poptorch.inferenceModel(LayersOverIpus("block", 2).eval(), options)
    wrapper(torch.randn(16, 8), torch.randint(0, 3, (16,)))
    text = wrapper.schedule()
    assert text.startswith("sharded schedule:")
    rows = _rows(text)
    assert len(rows) == 2 * 4  # every stage of every micro-batch, one after the other
    for row in rows:
        assert sum(cell != "-" for cell in row[1:]) == 1, row
    assert [row[1:] for row in rows[:2]] == [["F0:mb0", "-"], ["-", "F1:mb0"]]
    assert "busy steps: IPU0 4/8, IPU1 4/8" in text
    assert "<table>" in wrapper.schedule("html")


# -- ipu-translate ----------------------------------------------------------------------


def test_ipu_translate_draws_the_same_schedule(inference, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    wrapper, _, _ = inference
    path = tmp_path / "pipelined.mlir"
    path.write_text(wrapper._compiled.ir_text())
    assert ipu_translate.run(["--schedule-to-text", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.out == wrapper.schedule()
    assert captured.err == ""
    assert ipu_translate.run(["--schedule-to-html", str(path)]) == 0
    assert capsys.readouterr().out == wrapper.schedule("html")
    output = tmp_path / "schedule.html"
    assert ipu_translate.run(["--schedule-to-html", str(path), "-o", str(output)]) == 0
    assert output.read_text() == wrapper.schedule("html")


def test_ipu_translate_training_schedule(training, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    path = tmp_path / "training.mlir"
    path.write_text(training._compiled.ir_text())
    assert ipu_translate.run(["--schedule-to-text", str(path)]) == 0
    assert capsys.readouterr().out == training.schedule()


@pytest.mark.parametrize("flag", ["--schedule-to-text", "--schedule-to-html"])
def test_ipu_translate_without_a_graph_is_an_error(flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "empty.mlir"
    path.write_text("module {}\n")
    assert ipu_translate.run([flag, str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("ipu-translate: error:")
    assert "poplar.graph" in captured.err

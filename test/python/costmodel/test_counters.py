"""cycleCount, getPerfCounters and the latency getters: the reference's types and shapes,
values from the cost model on every call (emulated estimates)."""

from __future__ import annotations

import logging

import pytest
import torch
from helpers import FP32
from torch import nn

import poptorch

pytestmark = pytest.mark.usefixtures("fresh_poptorch_logging")

KEYS = ("input", "input_complete", "output", "output_complete")


class TwoInputs(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = torch.relu(self.fc(x)) + y
        return h, h.sum(-1)


def _model(width: int = 32, iterations: int = 3, log: bool = True) -> tuple[nn.Module, poptorch.PoplarExecutor]:
    torch.manual_seed(0)
    model = TwoInputs(width).eval()
    options = poptorch.Options().deviceIterations(iterations).logCycleCount(log)
    return model, poptorch.inferenceModel(model, options)


def test_counters_have_the_reference_shapes_and_order() -> None:
    model, ipu = _model()
    x, y = torch.randn(6, 32), torch.randn(6, 32)
    with pytest.raises(RuntimeError, match="run the model at least once"):
        ipu.getPerfCounters()
    out, total = ipu(x, y)
    want_out, want_total = model(x, y)
    torch.testing.assert_close(out, want_out, **FP32)
    torch.testing.assert_close(total, want_total, **FP32)
    counters = ipu.getPerfCounters()
    assert sorted(counters) == sorted(KEYS)
    assert len(counters["input"]) == len(counters["input_complete"]) == 2  # x and y
    assert len(counters["output"]) == len(counters["output_complete"]) == 2  # out and total
    for key in KEYS:
        for values in counters[key]:
            assert len(values) == 3  # one per device iteration
            assert all(isinstance(v, float) for v in values)
            assert values == sorted(values)
    for i in range(3):  # each iteration: inputs requested, transferred, outputs requested, written back
        first_in = min(v[i] for v in counters["input"])
        last_in = max(v[i] for v in counters["input_complete"])
        first_out = min(v[i] for v in counters["output"])
        last_out = max(v[i] for v in counters["output_complete"])
        assert first_in < last_in <= first_out < last_out
    later = ipu(x, y)
    assert later[0].shape == out.shape
    again = ipu.getPerfCounters()
    assert again["input"][0][0] >= counters["output_complete"][-1][-1] > counters["input"][0][0]  # the clock runs on


def test_latencies_are_min_max_average_tuples() -> None:
    _, ipu = _model()
    ipu(torch.randn(6, 32), torch.randn(6, 32))
    latencies = {name: getattr(ipu, name)() for name in
                 ("getLatency", "getComputeLatency", "getHostIpuLatency", "getIpuHostLatency")}
    for name, value in latencies.items():
        assert isinstance(value, tuple) and len(value) == 3, name
        assert all(isinstance(v, float) for v in value), name
        low, high, average = value
        assert 0 < low <= average <= high, (name, value)
        assert high < 1e-2, (name, value)  # microseconds for this model, not wall-clock time
    round_trip = latencies["getLatency"][2]
    assert round_trip >= latencies["getHostIpuLatency"][2] + latencies["getIpuHostLatency"][2] * 0.99
    assert round_trip > latencies["getComputeLatency"][2]


def test_cycle_count_needs_log_cycle_count_and_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    _, quiet = _model(log=False)
    quiet(torch.randn(6, 32), torch.randn(6, 32))
    with pytest.raises(RuntimeError, match="logCycleCount"):
        quiet.cycleCount()
    _, ipu = _model()
    with caplog.at_level(logging.DEBUG, logger="poptorch"):
        ipu(torch.randn(6, 32), torch.randn(6, 32))
    cycles = ipu.cycleCount()
    assert isinstance(cycles, int) and cycles > 0
    assert f"Total number of IPU cycles: {cycles} (emulated estimate" in caplog.text


def test_cycle_count_grows_with_the_work() -> None:
    counts = {}
    for width, iterations in ((32, 3), (512, 3), (32, 12)):
        _, ipu = _model(width, iterations)
        ipu(torch.randn(2 * iterations, width), torch.randn(2 * iterations, width))
        counts[width, iterations] = ipu.cycleCount()
    assert counts[512, 3] > counts[32, 3]
    assert counts[32, 12] == pytest.approx(4 * counts[32, 3], rel=0.05)  # 4x the device iterations


def test_bow_target_runs_faster_than_mk2(monkeypatch: pytest.MonkeyPatch) -> None:
    latency = {}
    for target in ("ipu-model-mk2", "ipu-model-bow"):
        monkeypatch.setenv("IPU_MLIR_TARGET", target)
        _, ipu = _model(256)
        ipu(torch.randn(6, 256), torch.randn(6, 256))
        latency[target] = ipu.getComputeLatency()[2]
    assert latency["ipu-model-bow"] < latency["ipu-model-mk2"]


def test_set_ipu_target_selects_bow() -> None:
    latency = {}
    for target in ("ipu-model-mk2", "ipu-model-bow"):
        torch.manual_seed(0)
        model = TwoInputs(256).eval()
        ipu = poptorch.inferenceModel(model, poptorch.Options().setIpuTarget(target))
        x, y = torch.randn(2, 256), torch.randn(2, 256)
        torch.testing.assert_close(ipu(x, y)[0], model(x, y)[0], **FP32)
        latency[target] = ipu.getComputeLatency()[2]
    assert latency["ipu-model-bow"] < latency["ipu-model-mk2"]
    assert poptorch.ipuHardwareVersion() == 2
    with pytest.raises(ValueError, match="unknown target 'mk3'; choose one of ipu-model-mk2, ipu-model-bow"):
        poptorch.Options().setIpuTarget("mk3")


def test_a_program_without_estimates_gets_them() -> None:
    """An executable exported before the pipeline estimated cycles is estimated when counted."""
    from ipu_mlir.artifact.profile import NotEstimated, call_timeline

    _, ipu = _model()
    ipu(torch.randn(6, 32), torch.randn(6, 32))
    expected = ipu.cycleCount()
    graph = next(op.operation for op in ipu._compiled.module.body.operations if op.operation.name == "poplar.graph")
    del graph.attributes["poplar.cycles_target"]
    with pytest.raises(NotEstimated, match="run poplar-estimate-cycles"):
        call_timeline(graph)
    assert ipu._compiled.perf_counters().record_call().cycles == expected

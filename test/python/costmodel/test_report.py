"""The profiling report: enableProfiling(dir) / POPLAR_ENGINE_OPTIONS write profile.json and
profile.html; poptorch.profiling.Channel's tracepoints go into it; the page renders in
headless Chromium without console errors."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import torch
from helpers import FP32
from torch import nn

import poptorch

pytestmark = pytest.mark.usefixtures("fresh_poptorch_logging")


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


class TwoIpus(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(32, 32)
        self.fc2 = nn.Linear(32, 8)
        poptorch.BeginBlock(self.fc2, "second", ipu_id=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


def _profiled(tmp_path: Path, model: nn.Module, options: poptorch.Options, x: torch.Tensor) -> dict:
    ipu = poptorch.inferenceModel(model, options)
    channel = poptorch.profiling.Channel("test")
    with channel.tracepoint("first call"):
        out = ipu(x)
    torch.testing.assert_close(out, model(x), **FP32)

    class Loop:
        def step(self) -> torch.Tensor:
            return ipu(x)

    loop = Loop()
    channel.instrument(loop, "step")
    loop.step()  # the report written after this call holds the first tracepoint
    return json.loads((tmp_path / "inference" / "profile.json").read_text())


def test_enable_profiling_writes_json_and_html(tmp_path: Path) -> None:
    torch.manual_seed(0)
    data = _profiled(tmp_path, Net().eval(), poptorch.Options().deviceIterations(2).enableProfiling(str(tmp_path)),
                     torch.randn(8, 64))
    assert sorted(p.name for p in (tmp_path / "inference").iterdir()) == ["profile.html", "profile.json"]
    assert data["estimate"] is True
    assert data["target"]["name"] == "ipu-model-mk2" and data["target"]["tiles_per_ipu"] == 1472
    assert data["program"]["calls"] == 2 and data["program"]["cycles_per_call"] > 0
    (memory,) = data["memory"]
    weights = 4 * (64 * 128 + 128 + 128 * 10 + 10)
    assert memory["variables"] >= weights
    assert len(memory["tiles"]) == 1472
    assert sum(memory["tiles"]) == memory["total"] == memory["variables"] + memory["temporaries"] + memory["stash"]
    ops = [step["op"] for step in data["steps"] if step["program"] == "step"]
    assert "poplar.poplin_linear" in ops or "poplar.poplin_matmul" in ops
    assert all(step["cycles"] >= 0 for step in data["steps"])
    assert max(sum(step["live_bytes"].values()) for step in data["steps"]) > 0
    kinds = {span["kind"] for span in data["timeline"]}
    assert {"compute", "host"} <= kinds
    assert max(span["end"] for span in data["timeline"]) == data["program"]["cycles_per_call"]
    assert len([t for t in data["transfers"] if t["direction"] == "input"]) == 2  # two device iterations
    names = [span["name"] for span in data["host_spans"] if span["channel"] == "test"]
    assert "first call" in names
    page = (tmp_path / "inference" / "profile.html").read_text()
    assert "Memory per tile" in page and "Execution timeline" in page and "first call" in page
    assert "<script" not in page and "http" not in page  # self-contained


def test_engine_options_take_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POPLAR_ENGINE_OPTIONS", json.dumps({"autoReport.all": "true", "autoReport.directory": str(tmp_path / "env")}))
    model = Net().eval()
    ipu = poptorch.inferenceModel(model, poptorch.Options().enableProfiling(str(tmp_path / "option")))
    ipu(torch.randn(4, 64))
    assert (tmp_path / "env" / "inference" / "profile.json").exists()
    assert not (tmp_path / "option").exists()
    monkeypatch.setenv("POPLAR_ENGINE_OPTIONS", "{autoReport.all: true")
    with pytest.raises(ValueError, match="POPLAR_ENGINE_OPTIONS is not valid JSON"):
        poptorch.inferenceModel(model, poptorch.Options())(torch.randn(4, 64))


def test_no_report_without_profiling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("POPLAR_ENGINE_OPTIONS", raising=False)
    poptorch.inferenceModel(Net().eval())(torch.randn(4, 64))
    assert list(tmp_path.iterdir()) == []


def test_pipelined_timeline_shows_stages_per_ipu(tmp_path: Path) -> None:
    torch.manual_seed(0)
    options = poptorch.Options().deviceIterations(4).enableProfiling(str(tmp_path))
    data = _profiled(tmp_path, TwoIpus().eval(), options, torch.randn(8, 32))
    assert [m["ipu"] for m in data["memory"]] == [0, 1]
    stages = [span for span in data["timeline"] if span["kind"] == "stage"]
    assert {span["ipu"] for span in stages} == {0, 1}
    assert sorted(span["label"] for span in stages if span["ipu"] == 1) == [f"stage 1 mb {i}" for i in range(4)]
    # the two IPUs overlap: stage 0 of micro-batch 1 runs while stage 1 of micro-batch 0 does
    first = {span["label"]: span for span in stages}
    assert first["stage 0 mb 1"]["start"] == first["stage 1 mb 0"]["start"]


def test_channel_rejects_bad_names() -> None:
    with pytest.raises(TypeError, match="non-empty str"):
        poptorch.profiling.Channel("")
    with pytest.raises(AttributeError, match="no method 'missing'"):
        poptorch.profiling.Channel("c").instrument(object(), "missing")


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome", "headless_shell"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def _render(browser: str, page: Path, screenshot: Path) -> str:
    """Render ``page`` headless, save a screenshot, return the browser's log (console messages included)."""
    done = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
                           "--window-size=1100,1500", f"--screenshot={screenshot}", page.as_uri()],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stderr


@pytest.mark.skipif(_chromium() is None, reason="no Chromium installed (the OS package 'chromium')")
def test_html_report_renders_in_chromium_without_console_errors(tmp_path: Path) -> None:
    browser = _chromium()
    assert browser is not None
    # The check sees console messages: a page that logs an error shows in the log.
    control = tmp_path / "control.html"
    control.write_text('<html><body><script>console.error("control-marker")</script></body></html>')
    assert "control-marker" in _render(browser, control, tmp_path / "control.png")
    _profiled(tmp_path, TwoIpus().eval(), poptorch.Options().deviceIterations(4).enableProfiling(str(tmp_path)),
              torch.randn(8, 32))
    screenshot = tmp_path / "profile.png"
    log = _render(browser, tmp_path / "inference" / "profile.html", screenshot)
    console = [line for line in log.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == []
    png = screenshot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000  # drawn, not blank


def test_training_writes_its_report_and_counts_cycles(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 4))

    class WithLoss(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            out = self.model(x)
            return out, nn.functional.cross_entropy(out, y)

    options = poptorch.Options().enableProfiling(str(tmp_path)).logCycleCount(True)
    options.Training.gradientAccumulation(2)
    ipu = poptorch.trainingModel(WithLoss(), options, torch.optim.SGD(model.parameters(), lr=0.1))
    ipu(torch.randn(8, 16), torch.randint(0, 4, (8,)))
    data = json.loads((tmp_path / "training" / "profile.json").read_text())
    assert data["program"]["cycles_per_call"] == ipu.cycleCount() > 0
    assert {step["program"] for step in data["steps"]} >= {"step", "update", "main"}
    counters = ipu.getPerfCounters()
    assert [len(values) for values in counters["input"]] == [2, 2]  # x and y, one per micro-batch

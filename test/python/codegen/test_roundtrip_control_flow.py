"""poptorch.for_loop and poptorch.cond in the emitted Poplar C++ (issue 15 item 1, issue 18):
the device loop is a poplar::program::Repeat of a Call of the body's function, the
conditional a poplar::program::If on the device-computed predicate. The program builds
against tools/poplar-host and gives the IPU Model's outputs, for both branches.
Skipped only when no C++ compiler is found."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import torch

import poptorch
from helpers import FP32

sys.path.insert(0, str(Path(__file__).parent))
from test_roundtrip import CXX, HOST, host_library, pytestmark  # noqa: E402,F401  (the library fixture, the skip)


class LoopThenCond(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        a, b = poptorch.for_loop(4, lambda a, b: (torch.tanh(self.lin(a)) + b, b * 0.5), [x, x * 2])
        c = poptorch.cond(a.sum() > 0, lambda t: t * 3.0, [a], lambda t: t - b, [a])[0]
        return a, c


def test_loop_and_cond_in_the_emitted_cpp(host_library: Path, tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = LoopThenCond()
    x = torch.randn(2, 3)
    wrapper = poptorch.inferenceModel(model)
    wrapper.compile(x)
    source = tmp_path / "program.cpp"
    wrapper.exportPoplarCpp(str(source))
    text = source.read_text()
    assert "poplar::program::Repeat(4, " in text and "poplar::program::If(" in text
    built = subprocess.run([CXX, "-std=c++17", "-O1", f"-I{HOST / 'include'}", str(source), str(host_library),
                            "-o", str(tmp_path / "program")], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-4000:]
    interface = wrapper._compiled.executable.interface
    [spec] = wrapper._compiled.captured.inputs
    for sample in (x, -x, torch.randn(2, 3)):  # the branches the device picks
        (tmp_path / f"{interface.input_stream(spec.name)}.bin").write_bytes(sample.numpy().tobytes())
        ran = subprocess.run([str(tmp_path / "program"), str(tmp_path)], capture_output=True, text=True, timeout=60)
        assert ran.returncode == 0, ran.stderr
        expected = model(sample)
        for index, want in enumerate(expected):
            raw = np.fromfile(tmp_path / f"{interface.output_stream(index)}.bin", dtype=np.float32)
            torch.testing.assert_close(torch.from_numpy(raw).reshape(want.shape), want.detach(), **FP32)
        torch.testing.assert_close(wrapper(sample)[1], expected[1].detach(), **FP32)

"""The planning options in the emitted Poplar C++: Options.setAvailableMemoryProportion and
Precision.setPartialsType reach each matMul as PopLibs option flags
(availableMemoryProportion, partialsType), and the program, built against tools/poplar-host
(which checks the flags it is given), matches the IPU Model. Skipped only when no C++
compiler is found."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

import poptorch
from helpers import FP32

sys.path.insert(0, str(Path(__file__).parent))
from roundtrip_models import MLP  # noqa: E402
from test_roundtrip import _build_and_run, host_library, pytestmark  # noqa: E402,F401  (the library fixture, the skip)


def test_planning_options_are_matmul_option_flags(host_library: Path, tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = MLP()
    options = poptorch.Options().setAvailableMemoryProportion({"IPU0": 0.3})
    options.Precision.setPartialsType(torch.float)
    wrapper = poptorch.inferenceModel(model, options)
    x = torch.randn(4, 8)
    expected = wrapper(x)
    source = tmp_path / "program.cpp"
    wrapper.exportPoplarCpp(str(source))
    flags = 'poplar::FLOAT, "poplin_linear", poplar::OptionFlags{{"availableMemoryProportion", "0.3"}, {"partialsType", "float"}});'
    assert source.read_text().count(flags) == 2  # both layers
    interface = wrapper._compiled.executable.interface
    [spec] = wrapper._compiled.captured.inputs
    (tmp_path / f"{interface.input_stream(spec.name)}.bin").write_bytes(x.numpy().tobytes())
    _build_and_run(source, host_library, "planning options")
    raw = np.fromfile(tmp_path / f"{interface.output_stream(0)}.bin", dtype=np.float32)
    torch.testing.assert_close(torch.from_numpy(raw).reshape(expected.shape), expected, **FP32)

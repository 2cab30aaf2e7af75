"""The IPU Model's target and memory accounting, as a user sees them."""

from __future__ import annotations

import logging

import pytest
import torch
import torch.nn as nn

import poptorch
from ipu_mlir.support.target import MK2, SMALL, default_target
from poptorch import _logging


def test_mk2_constants_are_the_gc200_numbers() -> None:
    assert MK2.tiles_per_ipu == 1472
    assert MK2.threads_per_tile == 6
    assert MK2.bytes_per_tile == 624 * 1024
    assert MK2.bytes_per_ipu == 1472 * 624 * 1024  # ~900 MB
    assert MK2.clock_hz == pytest.approx(1.33e9)
    assert MK2.peak_flops_fp16 == pytest.approx(250e12)
    assert MK2.peak_flops_fp32 == pytest.approx(62.5e12)


def test_target_is_chosen_by_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IPU_MLIR_TARGET", "ipu-model-small")
    assert default_target() is SMALL
    monkeypatch.setenv("IPU_MLIR_TARGET", "ipu-model-mk3")
    with pytest.raises(ValueError, match="ipu-model-mk3.*ipu-model-mk2, ipu-model-bow, ipu-model-small"):
        default_target()


def test_memory_per_ipu_counts_weights_and_live_temporaries() -> None:
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 8)).eval()
    wrapper = poptorch.inferenceModel(model)
    wrapper(torch.randn(4, 256))
    usage = wrapper._compiled.memory_per_ipu()[0]
    weights = (256 * 512 + 512 + 512 * 8 + 8) * 4
    inputs_and_outputs = (4 * 256 + 4 * 8) * 4  # the input variable and the output anchor
    assert usage["variables"] == weights + inputs_and_outputs
    # The largest live temporaries: the [4, 512] activation before and after the ReLU.
    assert usage["temporaries"] >= 2 * 4 * 512 * 4
    assert usage["total"] == usage["variables"] + usage["temporaries"]


def test_a_model_too_big_for_the_ipu_is_a_compile_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IPU_MLIR_TARGET", "ipu-model-small")  # 4 tiles x 624 KiB
    model = nn.Sequential(nn.Linear(1024, 1024), nn.Linear(1024, 1024)).eval()  # 8 MiB of weights
    with pytest.raises(RuntimeError) as error:
        poptorch.inferenceModel(model)(torch.randn(2, 1024))
    message = str(error.value)
    assert "does not fit on IPU 0" in message
    assert "variable '0.weight' (4194304 bytes)" in message
    assert "Block" in message and "TensorLocations" in message  # the ways out


def test_hardware_request_warns_once(caplog: pytest.LogCaptureFixture) -> None:
    _logging.reset_warn_once()
    options = poptorch.Options().useIpuModel(False)
    with caplog.at_level(logging.WARNING, logger="poptorch"):
        poptorch.inferenceModel(nn.Linear(2, 2), options)
        poptorch.inferenceModel(nn.Linear(2, 2), options)
    warnings = [r for r in caplog.records if "IPU Model emulator" in r.getMessage()]
    assert len(warnings) == 1


def test_name_scope_prefixes_the_op_locations() -> None:
    import ipu_mlir

    class Scoped(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(3, 3)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            with poptorch.NameScope("encoder"):
                y = self.fc(x)
            return torch.relu(y)

    from ipu_mlir.compiler.frontend.capture import capture_inference
    from ipu_mlir.dialects import make_context

    captured = capture_inference(Scoped().eval(), (torch.randn(2, 3),), {}, make_context())
    text = captured.module.operation.get_asm(enable_debug_info=True)
    assert '"encoder/fc"' in text  # the linear, traced inside the scope
    assert '"<model>"' in text  # the relu, outside it
    del ipu_mlir

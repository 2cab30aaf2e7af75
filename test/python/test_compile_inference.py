"""ipu_mlir.compile_inference, the direct use without the poptorch API: the compiled
program runs like eager PyTorch, and an option only training reads is refused."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
from helpers import FP32
from helpers.checks import eager_per_micro_batch

import ipu_mlir
from ipu_mlir.driver import DeviceStore


def test_the_compiled_program_runs_like_eager() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU()).eval()
    x = torch.randn(6, 4)
    compiled = ipu_mlir.compile_inference(model, (x[:3],), device_iterations=2)
    state = model.state_dict()
    stores = {0: DeviceStore(0)}
    for _, name in compiled.arguments:  # the weights the host provides
        stores[0].put(name, state[name].clone())
    (input_name,) = [spec.name for spec in compiled.captured.inputs]
    streams = compiled.program.run(stores, {compiled.executable.input_stream(input_name): list(x.split(3))})
    got = torch.cat(streams[compiled.executable.output_stream(0)])
    torch.testing.assert_close(got, torch.cat(eager_per_micro_batch(model, 3, x)), **FP32)


@pytest.mark.parametrize("option", [{"gradient_accumulation": 4}, {"reduction": "sum"}, {"strategy": "running"},
                                    {"auto_loss_scaling": True}, {"recompute": True}], ids=lambda o: next(iter(o)))
def test_a_training_only_option_is_refused(option: dict) -> None:
    name = next(iter(option))
    with pytest.raises(TypeError, match=f"compile_inference: {name} only apply to a training step"):
        ipu_mlir.compile_inference(nn.Linear(4, 3), (torch.randn(3, 4),), **option)

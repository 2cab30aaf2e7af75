"""Emulated IPUs placed on torch devices (``Options.setIpuModelDevices``, an ipu-mlir
extension): each IPU's tensors live on its device, inputs and outputs cross from and to
the host. This machine has only the CPU, so the tests place IPUs on the CPU explicitly
(which runs the same moves at every IPU boundary) and check the errors for devices this
process cannot use."""

from __future__ import annotations

import concurrent.futures
import copy
import threading

import pytest
import torch
import torch.nn as nn
from helpers import FP32
from helpers.checks import assert_parameters_close, eager_accumulated_step
from torch.utils._python_dispatch import TorchDispatchMode

from ipu_mlir.runtime import pipeline_executor

import poptorch


class TwoIpus(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.front = nn.Linear(8, 16)
        self.back = nn.Linear(16, 3)
        self.loss = nn.CrossEntropyLoss()
        poptorch.BeginBlock(self.back, "back", ipu_id=1)

    def forward(self, x: torch.Tensor, target: torch.Tensor):  # noqa: ANN201
        out = self.back(torch.relu(self.front(x)))
        return out, self.loss(out, target)


@pytest.mark.parametrize("devices", ["cpu", {"IPU0": "cpu", "IPU1": torch.device("cpu")}, {"IPU1": "cpu:0"}])
def test_pipelined_training_on_placed_ipus_matches_eager(devices: object) -> None:
    torch.manual_seed(0)
    model = TwoIpus()
    reference = copy.deepcopy(model)
    options = poptorch.Options().setIpuModelDevices(devices)
    options.Training.gradientAccumulation(3)
    training = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
    eager = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    x, y = torch.randn(12, 8), torch.randint(0, 3, (12,))
    for _ in range(2):
        out, loss = training(x, y)
        eager_accumulated_step(reference, eager, 4, x, y)
    assert out.device.type == "cpu" and loss.device.type == "cpu"
    assert_parameters_close(model, reference)
    assert {ipu: store.device.type for ipu, store in training._stores.items()} == {0: "cpu", 1: "cpu"}
    assert all(store.placed for store in training._stores.values())
    # The optimizer state comes back to the host (state_dict() reads the device's).
    momentum = training._optimizer.state_dict()["state"][0]["momentum_buffer"]
    assert momentum.device.type == "cpu"
    torch.testing.assert_close(momentum, eager.state[reference.front.weight]["momentum_buffer"], **FP32)


def test_inference_on_placed_ipus_matches_eager() -> None:
    torch.manual_seed(0)
    model = TwoIpus().eval()
    options = poptorch.Options().deviceIterations(2).setIpuModelDevices({"IPU0": "cpu", "IPU1": "cpu"})
    inference = poptorch.inferenceModel(model, options)
    x, y = torch.randn(8, 8), torch.randint(0, 3, (8,))
    out, _ = inference(x, y)
    with torch.no_grad():
        torch.testing.assert_close(out, model(x, y)[0], **FP32)


@pytest.mark.parametrize(("devices", "match"), [
    ("cuda:0", "device 'cuda:0' for every IPU is not available in this process"),
    ({"IPU1": "cuda:1"}, "device 'cuda:1' for IPU1 is not available in this process"),
    ("meta", "the 'meta' device holds no data"),
    ("gpu7", "'gpu7' for every IPU is not a torch device"),
    ({"ipu": "cpu"}, "key 'ipu' does not name an IPU"),
])
def test_unusable_devices_are_rejected(devices: object, match: str) -> None:
    if not isinstance(devices, dict) and str(devices).startswith("cuda") and torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(ValueError, match=match):
        poptorch.Options().setIpuModelDevices(devices)


def test_placing_an_ipu_the_model_does_not_use_is_an_error() -> None:
    model = nn.Linear(4, 2)
    options = poptorch.Options().setIpuModelDevices({"IPU0": "cpu", "IPU3": "cpu"})
    inference = poptorch.inferenceModel(model, options)
    with pytest.raises(ValueError, match=r"places IPU3, but the model runs on 1 IPU\(s\)"):
        inference(torch.randn(1, 4))


def test_devices_are_reported_and_copied() -> None:
    options = poptorch.Options().setIpuModelDevices({"IPU1": "cpu"})
    assert options.toDict()["ipu_model_devices"] == {"IPU1": "cpu"}
    assert options.clone().ipu_model_device(1) == torch.device("cpu")
    assert poptorch.Options().ipu_model_devices == {}


# --- a second device, simulated --------------------------------------------------------
# This machine has no GPU. To check that no op mixes the tensors of two IPUs on different
# devices, IPU1 is put on torch's 'meta' device (shapes only) and a dispatch mode records
# every op whose tensor arguments sit on two devices (a 0-dim CPU tensor may join any
# device, as on CUDA). It fakes the data of meta -> CPU copies: the values are
# meaningless, only the placement is checked.
aten = torch.ops.aten


class _RecordMixedDevices(TorchDispatchMode):
    def __init__(self, mixed: list[str]) -> None:
        super().__init__()
        self.mixed = mixed

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
        kwargs = kwargs or {}
        on_meta = [a for a in args if isinstance(a, torch.Tensor) and a.device.type == "meta"]
        if func is aten._local_scalar_dense.default and on_meta:
            return 0.5 if args[0].dtype.is_floating_point else 1
        if func is aten._to_copy.default and on_meta and str(kwargs.get("device")) == "cpu":
            return torch.zeros(args[0].shape, dtype=kwargs.get("dtype") or args[0].dtype)
        if func is aten.copy_.default and args[1].device.type == "meta" and args[0].device.type != "meta":
            return args[0]
        if func in (aten.equal.default, aten.is_nonzero.default) and on_meta:
            return True
        if func not in (aten.copy_.default, aten._to_copy.default):
            devices = {t.device.type for t in torch.utils._pytree.tree_leaves((args, kwargs))
                       if isinstance(t, torch.Tensor) and not (t.device.type == "cpu" and t.dim() == 0)}
            if len(devices) > 1:
                self.mixed.append(f"{func} on {sorted(devices)}")
        return func(*args, **kwargs)


class ConstantsAndDropout(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.front, self.back, self.loss = nn.Linear(8, 16), nn.Linear(16, 3), nn.CrossEntropyLoss()
        self.drop = nn.Dropout(0.25)
        poptorch.BeginBlock(self.back, "back", ipu_id=1)

    def forward(self, x: torch.Tensor, target: torch.Tensor):  # noqa: ANN201
        out = self.back(self.drop(torch.relu(self.front(x))))
        out = out + torch.ones_like(out)  # a constant made in IPU1's block
        return out, self.loss(out, target)


@pytest.mark.parametrize("case", ["inference", "inference_sum", "training"])
def test_no_op_mixes_the_devices_of_two_ipus(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from poptorch import options as options_module

    real = options_module._torch_device
    monkeypatch.setattr(options_module, "_torch_device",
                        lambda label, what, value: torch.device("meta") if value == "meta" else real(label, what, value))
    mixed: list[str] = []
    submit = concurrent.futures.ThreadPoolExecutor.submit

    def recorded_submit(pool, fn, *args, **kwargs):  # noqa: ANN001, ANN202 - IPU worker threads record too
        def run(*a, **k):  # noqa: ANN002, ANN003, ANN202
            with _RecordMixedDevices(mixed):
                return fn(*a, **k)
        return submit(pool, run, *args, **kwargs)

    monkeypatch.setattr(concurrent.futures.ThreadPoolExecutor, "submit", recorded_submit)
    # The pipeline executor's own worker threads (one per emulated IPU) run the stages and
    # move the outputs: they record (and fake meta -> CPU copies) too.
    work = pipeline_executor._Loop.work

    def recorded_work(loop, worker):  # noqa: ANN001, ANN202
        if threading.current_thread() is threading.main_thread():
            return work(loop, worker)
        with _RecordMixedDevices(mixed):
            return work(loop, worker)

    monkeypatch.setattr(pipeline_executor._Loop, "work", recorded_work)
    torch.manual_seed(0)
    model = ConstantsAndDropout()
    options = poptorch.Options().setIpuModelDevices({"IPU0": "cpu", "IPU1": "meta"})
    x, y = torch.randn(12, 8), torch.randint(0, 3, (12,))
    if case == "training":
        options.Training.gradientAccumulation(3)
        wrapper = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
    else:
        options.deviceIterations(3)
        if case == "inference_sum":
            options.outputMode(poptorch.OutputMode.Sum)
        wrapper = poptorch.inferenceModel(model.eval(), options)
    wrapper.compile(x, y)
    assert wrapper._compiled.program.num_ipus == 2
    with _RecordMixedDevices(mixed):
        wrapper(x, y)
        wrapper(x, y)
    assert {ipu: store.device.type for ipu, store in wrapper._stores.items()} == {0: "cpu", 1: "meta"}
    assert mixed == []

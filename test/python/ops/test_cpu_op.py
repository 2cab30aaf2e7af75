"""``poptorch.CPU`` (issue 15, item 1): a host function called in the middle of an
inference program, as one ``poplar.program_host_call`` per call (inputs streamed to the
host, results streamed back), against eager PyTorch, which calls the function directly."""

from __future__ import annotations

import gc

import pytest
import torch
from helpers import FP32
from torch_mlir import ir

import poptorch

_G = torch.Generator().manual_seed(0)
X = torch.randn(2, 3, generator=_G)


def _ops(model: poptorch.PoplarExecutor, name: str) -> list[ir.Operation]:
    found = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == name:
            found.append(op)
        return ir.WalkResult.ADVANCE

    model._compiled.module.operation.walk(visit)
    return found


class ReferenceModel(torch.nn.Module):
    """The API reference's example: three calls of one CPU op, with device work between."""

    def __init__(self) -> None:
        super().__init__()
        self.cpu = poptorch.CPU(self.myCpuOp, "MyCPUOp")
        self.calls = 0

    def myCpuOp(self, x):  # noqa: N802 - the reference's name
        self.calls += 1
        return x * 2.0

    def forward(self, x):
        out = self.cpu(x)
        out = self.cpu(torch.relu(out) + 1)
        out = self.cpu(out)
        return out.sum(1)


def test_reference_example_matches_eager_and_calls_the_host() -> None:
    model = ReferenceModel()
    want = model(X)
    compiled = poptorch.inferenceModel(model)
    torch.testing.assert_close(compiled(X), want, **FP32)
    calls = [ir.StringAttr(op.attributes["handle"]).value for op in _ops(compiled, "poplar.program_host_call")]
    assert len(calls) == 3 and len(set(calls)) == 1 and calls[0].startswith("MyCPUOp#")
    before = model.calls
    got = compiled(X + 1)
    assert model.calls - before == 3  # each run calls the host function once per call in the program
    torch.testing.assert_close(got, model(X + 1), **FP32)


def test_host_function_sees_device_values_and_may_return_several_tensors() -> None:
    seen = []

    def host(x, i):
        seen.append(x.clone())
        return x.cumsum(1), (i * 3).to(torch.int32)

    class Model(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.cpu = poptorch.CPU(host, "Host")

        def forward(self, x, i):
            a, b = self.cpu(x * 2, i)
            return a + 1, b

    i = torch.tensor([1, 2, 3])
    got = poptorch.inferenceModel(Model())(X, i)
    torch.testing.assert_close(got[0], (X * 2).cumsum(1) + 1, **FP32)
    assert got[1].dtype == torch.int32 and got[1].tolist() == [3, 6, 9]
    torch.testing.assert_close(seen[-1], X * 2, **FP32)  # the host got the device's value


def test_execute_and_register_persistent_data() -> None:
    cpu = poptorch.CPU(lambda x: x + 1, "Plus")
    with pytest.raises(RuntimeError, match="registerPersistentData needs the inputs' shapes"):
        cpu.registerPersistentData()
    out = cpu.host_call((X,))  # what the program's host call does: fill inputs, execute, read outputs
    torch.testing.assert_close(out[0], X + 1, **FP32)
    cpu.inputs[0].fill_(5.0)
    cpu.execute()
    assert cpu.outputs[0].eq(6.0).all()


def test_training_is_refused() -> None:
    class Model(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(3, 3)
            self.cpu = poptorch.CPU(lambda x: x * 2, "Doubler")

        def forward(self, x, t):
            y = self.cpu(self.linear(x))
            return y, torch.nn.functional.mse_loss(y, t)

    model = Model()
    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(model.parameters(), lr=0.1))
    with pytest.raises(Exception, match=r"poptorch.CPU op \"Doubler\": CPU ops are only supported in inference graphs"):
        training(X, X)


def test_a_freed_cpu_object_is_a_clear_error() -> None:
    from ipu_mlir.runtime.kernels import KERNELS
    from ipu_mlir.support.host_functions import register_host_call

    class Temporary:
        pass

    handle = register_host_call("Gone", Temporary())
    gc.collect()
    with ir.Context() as context, ir.Location.unknown():
        context.allow_unregistered_dialects = True
        op = ir.Operation.create("poplar.program_host_call", results=[], operands=[],
                                 attributes={"handle": ir.StringAttr.get(handle)})
        with pytest.raises(Exception, match=r"poptorch.CPU op \"Gone\" is not in this process"):
            KERNELS.get("poplar.program_host_call")(op)

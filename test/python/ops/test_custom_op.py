"""``poptorch.custom_op`` (issue 15, item 1): a user op kept as one ``poplar.custom_op``
whose implementation the IPU Model runs.

Implementations come from ``poptorch.register_custom_op`` (a Python forward, optionally a
backward) or from a torch.library op ``domain::name`` (its autograd is the gradient).
Each model runs through ``poptorch.inferenceModel`` / ``trainingModel`` against eager,
which calls the same implementation; the graph is checked to carry the op with its name,
domain, version and attributes, and the training graph its ``poplar.custom_op_grad``.
"""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F
from helpers import EXACT, FP32
from helpers.checks import assert_parameters_close
from torch_mlir import ir

import poptorch
from ipu_mlir.support.host_functions import unregister_custom_op

_G = torch.Generator().manual_seed(0)
X = torch.randn(3, 4, generator=_G)


def _ops(model: poptorch.PoplarExecutor, name: str) -> list[ir.Operation]:
    found = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == name:
            found.append(op)
        return ir.WalkResult.ADVANCE

    model._compiled.module.operation.walk(visit)
    return found


@pytest.fixture
def cube():
    """``Cube``: scale * x**3 and, as a second output, the row sums (a different shape)."""
    calls = []

    def forward(x, scale, **_options):
        calls.append(x.shape)
        return scale * x ** 3, x.sum(1)

    poptorch.register_custom_op("Cube", "custom.ops", forward)
    yield calls
    unregister_custom_op("custom.ops", "Cube")


class CubeModel(torch.nn.Module):
    def forward(self, x):
        out = poptorch.custom_op((x,), "Cube", "custom.ops", 1, example_outputs=(x, x[:, 0]),
                                 attributes={"scale": 0.5, "mode": "fast", "sizes": [1, 2]})
        return out[0] + 1, out[1] * 2


def test_python_forward_matches_eager_and_is_one_op(cube) -> None:
    model = CubeModel()
    compiled = poptorch.inferenceModel(model)
    got, want = compiled(X), model(X)
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w, **FP32)
    (op,) = _ops(compiled, "poplar.custom_op")
    assert ir.StringAttr(op.attributes["op_name"]).value == "Cube"
    assert ir.StringAttr(op.attributes["domain"]).value == "custom.ops"
    assert ir.IntegerAttr(op.attributes["domain_version"]).value == 1
    assert str(op.attributes["op_attributes"]) == '{mode = "fast", scale = 5.000000e-01 : f64, sizes = [1, 2]}'
    assert [str(r.type) for r in op.results] == ["tensor<3x4xf32>", "tensor<3xf32>"]


def test_inputs_of_different_dtypes() -> None:
    poptorch.register_custom_op("Pick", "custom.ops", lambda x, i: (x.index_select(0, i), i + 1))
    try:
        class Model(torch.nn.Module):
            def forward(self, x, i):
                out = poptorch.custom_op((x, i), "Pick", "custom.ops", 2, example_outputs=(x[:2], i))
                return out[0], out[1]

        i = torch.tensor([2, 0])
        got = poptorch.inferenceModel(Model())(X, i)
        torch.testing.assert_close(got[0], X[[2, 0]], **EXACT)
        torch.testing.assert_close(got[1], i + 1, **EXACT)
    finally:
        unregister_custom_op("custom.ops", "Pick")


# A torch.library op: the emulator calls it, and its autograd is the gradient.
@torch.library.custom_op("d2test::softclip", mutates_args=())
def softclip(x: torch.Tensor, limit: float) -> torch.Tensor:
    return limit * torch.tanh(x / limit)


softclip.register_fake(lambda x, limit: torch.empty_like(x))
softclip.register_autograd(
    lambda ctx, grad: (grad * (1 - torch.tanh(ctx.x / ctx.limit) ** 2), None),
    setup_context=lambda ctx, inputs, output: setattr(ctx, "x", inputs[0]) or setattr(ctx, "limit", inputs[1]))


class Regressor(torch.nn.Module):
    """A linear layer through a custom op, then MSE against the target."""

    def __init__(self, name: str, domain: str, attributes: dict | None = None) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(4, 4)
        self.op = (name, domain, attributes)

    def forward(self, x, target):
        name, domain, attributes = self.op
        h = self.linear(x)
        y = poptorch.custom_op((h,), name, domain, 1, example_outputs=(h,), attributes=attributes)[0]
        return y, F.mse_loss(y, target)


def _train_like_eager(model: torch.nn.Module, steps: int = 2) -> poptorch.PoplarExecutor:
    reference = copy.deepcopy(model)
    eager_optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(model.parameters(), lr=0.1))
    target = torch.randn(3, 4, generator=torch.Generator().manual_seed(1))
    for step in range(steps):
        _, got = training(X, target)
        eager_optimizer.zero_grad()
        _, want = reference(X, target)
        want.backward()
        eager_optimizer.step()
        torch.testing.assert_close(got, want.detach(), **FP32, msg=lambda m, s=step: f"loss of step {s}: {m}")
    training.copyWeightsToHost()
    assert_parameters_close(model, reference)
    return training


def test_torch_library_op_inference_and_training() -> None:
    model = Regressor("softclip", "d2test", {"limit": 0.7})
    compiled = poptorch.inferenceModel(copy.deepcopy(model))
    torch.testing.assert_close(compiled(X, X)[0], model(X, X)[0], **FP32)
    training = _train_like_eager(model)
    assert len(_ops(training, "poplar.custom_op")) == 1
    assert len(_ops(training, "poplar.custom_op_grad")) == 1


def test_registered_backward_is_used_in_training() -> None:
    # The backward is deliberately not the forward's derivative: a step that used autograd
    # through forward would give other weights than eager (which uses the backward too).
    seen = []

    def backward(inputs, outputs, grads, gain):
        seen.append(len(grads))
        return (grads[0] * gain * 0.25,)

    poptorch.register_custom_op("Gain", "custom.ops", lambda x, gain: x * gain, backward)
    try:
        _train_like_eager(Regressor("Gain", "custom.ops", {"gain": 3.0}))
        assert seen  # the IPU Model and eager both called it
    finally:
        unregister_custom_op("custom.ops", "Gain")


def test_gradient_by_autograd_through_a_python_forward() -> None:
    poptorch.register_custom_op("Square", "custom.ops", lambda x: x * x)
    try:
        _train_like_eager(Regressor("Square", "custom.ops"))
    finally:
        unregister_custom_op("custom.ops", "Square")


def test_unregistered_op_is_a_compile_error_that_says_how_to_register() -> None:
    model = Regressor("Missing", "custom.ops")
    with pytest.raises(Exception, match=r"poptorch.custom_op \"Missing\" \(domain \"custom.ops\"\) has no implementation: "
                                        r"register its implementation with poptorch.register_custom_op\(\"Missing\", "
                                        r"\"custom.ops\", forward, backward=None\).*torch.library op \"custom.ops::Missing\"") as info:
        poptorch.inferenceModel(model)(X, X)
    assert "static shapes" not in str(info.value)  # not a capture problem: the message is the whole error


def test_implementation_must_match_the_example_outputs(cube) -> None:
    class Model(torch.nn.Module):
        def forward(self, x):
            return poptorch.custom_op((x,), "Cube", "custom.ops", 1, example_outputs=(x, x),
                                      attributes={"scale": 1.0})[0]

    with pytest.raises(Exception, match=r"output #1 is torch.float32 \[3\], the program expects torch.float32 \[3, 4\]"):
        poptorch.inferenceModel(Model())(X)


@pytest.mark.parametrize(("attributes", "message"), [
    ({"flag": True}, r"attribute \"flag\" = True: values must be floats, ints, strings"),
    ({"mixed": [1, "a"]}, r"attribute \"mixed\" = \[1, 'a'\]"),
    ({1: 2}, r"attribute keys must be strings"),
])
def test_attribute_errors(cube, attributes, message) -> None:
    with pytest.raises(TypeError, match=message):
        poptorch.custom_op((X,), "Cube", "custom.ops", 1, example_outputs=(X,), attributes=attributes)

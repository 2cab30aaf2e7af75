"""``poptorch.for_loop`` and ``poptorch.cond`` as device control flow (issue 15, item 1).

Each model runs through ``poptorch.inferenceModel`` against eager PyTorch, which runs the
same functions in Python (the body ``count`` times, the branch the condition picks). The
compiled graph is checked to hold a device loop (``poplar.program_repeat`` calling the
body's function: the body is not unrolled) or a device conditional (``poplar.program_if``).
"""

from __future__ import annotations

import pytest
import torch
from helpers import FP32

import poptorch

_G = torch.Generator().manual_seed(0)
X = torch.randn(2, 3, generator=_G)
Y = torch.randn(2, 3, generator=_G)


def _graph(model: poptorch.PoplarExecutor):
    module = model._compiled.module
    return next(op.operation for op in module.body.operations if op.operation.name == "poplar.graph")


def _ops(graph, name: str) -> list:
    from torch_mlir import ir

    found = []

    def visit(op):
        if op.name == name:
            found.append(op)
        return ir.WalkResult.ADVANCE

    graph.walk(visit)
    return found


def _functions(graph) -> dict[str, object]:
    from torch_mlir import ir

    return {ir.StringAttr(op.attributes["name"]).value: op for op in _ops(graph, "poplar.function")}


def _run(model: torch.nn.Module, *inputs: torch.Tensor) -> tuple[list[torch.Tensor], poptorch.PoplarExecutor]:
    compiled = poptorch.inferenceModel(model)
    out = compiled(*inputs)
    return (list(out) if isinstance(out, (list, tuple)) else [out]), compiled


def _check(model: torch.nn.Module, *inputs: torch.Tensor) -> poptorch.PoplarExecutor:
    expected = model(*inputs)
    expected = list(expected) if isinstance(expected, (list, tuple)) else [expected]
    got, compiled = _run(model, *inputs)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        torch.testing.assert_close(g, e, **FP32)
    return compiled


class ReferenceExample(torch.nn.Module):
    """The reference's for_loop: the body's outputs are the next iteration's inputs."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        def body(x: torch.Tensor) -> torch.Tensor:
            return x * 2

        return poptorch.for_loop(10, body, [x])[0]


def test_reference_example_runs_as_a_device_loop():
    x = torch.tensor([1.0, 2.0, 3.0])
    compiled = _check(ReferenceExample(), x)
    assert torch.equal(compiled(x), torch.tensor([1024.0, 2048.0, 3072.0]))
    graph = _graph(compiled)
    repeats = [op for op in _ops(graph, "poplar.program_repeat") if op.attributes["count"].value == 10]
    assert len(repeats) == 1
    calls = _ops(repeats[0], "poplar.program_call")
    assert len(calls) == 1
    callee = calls[0].attributes["callee"].value
    assert callee.startswith("step.loop") and callee.endswith(".body")
    body = _functions(graph)[callee]
    # Not unrolled: the body's one multiplication, once.
    assert len(_ops(body, "poplar.popops_map")) + len(_ops(body, "poplar.popops_mul")) == 1


class LoopWithWeightsAndCaptures(torch.nn.Module):
    """Two carried values of different shapes and dtypes, a weight and a model input read by the body."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        scale = y * 0.5  # computed in the step, read by every iteration

        def body(a: torch.Tensor, n: torch.Tensor):
            return torch.tanh(self.lin(a)) + scale, n + 1

        a, n = poptorch.for_loop(4, body, [x, torch.zeros(2, dtype=torch.int32)])
        return a - 1, n


def test_loop_carries_several_values_and_reads_weights_and_inputs():
    torch.manual_seed(0)
    _check(LoopWithWeightsAndCaptures(), X, Y)


class SwapLoop(torch.nn.Module):
    """The body exchanges its carried values: every copy must read the same iteration."""

    def forward(self, x: torch.Tensor, y: torch.Tensor):
        return poptorch.for_loop(3, lambda a, b: (b, a + b), [x, y])


def test_loop_body_swapping_values_reads_one_iteration():
    _check(SwapLoop(), X, Y)


class NestedLoops(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        def outer(a: torch.Tensor) -> torch.Tensor:
            return poptorch.for_loop(3, lambda b: b * 0.9 + 0.1, [a])[0].sin()

        return poptorch.for_loop(2, outer, [x])[0]


def test_nested_loops():
    compiled = _check(NestedLoops(), X)
    counts = sorted(op.attributes["count"].value for op in _ops(_graph(compiled), "poplar.program_repeat"))
    assert 2 in counts and 3 in counts


def test_zero_iterations_return_the_inputs():
    class Zero(torch.nn.Module):
        def forward(self, x):
            return poptorch.for_loop(0, lambda a: a * 2, [x])[0] + 1

    _check(Zero(), X)


class CondModel(torch.nn.Module):
    """The condition is computed on the device from the input; the branches read a weight and an input."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, x: torch.Tensor, y: torch.Tensor):
        return poptorch.cond(x.sum() > 0, lambda a, b: [self.lin(a) * b, a], [x, y],
                             lambda a: [a - y, a * 0.5], [x])


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_cond_runs_the_branch_the_device_picks(sign: float):
    torch.manual_seed(0)
    model = CondModel()
    compiled = poptorch.inferenceModel(model)
    for x in (sign * X.abs(), -sign * X.abs()):  # one compiled program, both branches
        for got, expected in zip(compiled(x, Y), model(x, Y), strict=True):
            torch.testing.assert_close(got, expected, **FP32)
    graph = _graph(compiled)
    assert len(_ops(graph, "poplar.program_if")) == 1
    names = _functions(graph)
    assert any(n.endswith(".then") for n in names) and any(n.endswith(".else") for n in names)


def test_cond_inside_a_loop():
    class CondInLoop(torch.nn.Module):
        def forward(self, x):
            def body(a):
                return poptorch.cond(a.mean() > 0, lambda t: t - 1.0, [a], lambda t: t + 2.0, [a])[0]

            return poptorch.for_loop(5, body, [x])[0]

    _check(CondInLoop(), X)


def test_cond_branches_must_return_the_same_types():
    class Mismatch(torch.nn.Module):
        def forward(self, x):
            return poptorch.cond(x.sum() > 0, lambda a: a, [x], lambda a: a.sum(), [x])[0]

    with pytest.raises(Exception, match="must match then_body's outputs in number, shapes and dtypes"):
        poptorch.inferenceModel(Mismatch())(X)


def test_loop_body_must_keep_its_signature():
    class Changes(torch.nn.Module):
        def forward(self, x):
            return poptorch.for_loop(2, lambda a: a.sum(), [x])[0]

    with pytest.raises(Exception, match="must match the body's inputs in number, shapes and dtypes"):
        poptorch.inferenceModel(Changes())(X)
    with pytest.raises(ValueError, match="must match the body's inputs"):
        Changes()(X)  # eager says the same


def test_argument_errors():
    with pytest.raises(ValueError, match="count must be an int >= 0"):
        poptorch.for_loop(-1, lambda a: a, [X])
    with pytest.raises(TypeError, match="inputs must be a tensor or a list of tensors"):
        poptorch.for_loop(2, lambda a: a, [1.0])
    with pytest.raises(TypeError, match="condition must be a bool tensor of one element"):
        poptorch.cond(X, lambda a: a, [X], lambda a: a, [X])


def test_eager_behaviour_off_the_ipu():
    assert torch.equal(poptorch.for_loop(3, lambda a: a + 1, [X])[0], X + 3)
    assert torch.equal(poptorch.cond(torch.tensor(False), lambda a: a, [X], lambda a: -a, [X])[0], -X)


def test_training_through_a_loop_is_refused_by_name():
    class Train(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)

        def forward(self, x, target):
            out = poptorch.for_loop(2, lambda a: self.lin(a), [x])[0]
            return out, torch.nn.functional.mse_loss(out, target)

    model = Train()
    training = poptorch.trainingModel(model, optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    with pytest.raises(Exception, match="for_loop cannot be trained through yet"):
        training(X, Y)


class IgnoresItsInput(torch.nn.Module):
    """A body that does not read its inputs (the export drops its begin marker): every
    iteration computes the same value."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return poptorch.for_loop(3, lambda a: y * 2, [x])[0]


class BranchWithoutInputs(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return poptorch.cond(x.sum() > 0, lambda: [y * 2], [], lambda a: [a.exp()], [x])[0]


@pytest.mark.parametrize("model", [IgnoresItsInput, BranchWithoutInputs])
def test_bodies_that_do_not_read_their_inputs(model: type):
    for x in (X.abs(), -X.abs()):
        _check(model(), x, Y)


def test_device_iterations_restart_the_loop_each_iteration():
    model = SwapLoop()
    xs, ys = torch.randn(6, 3, generator=_G), torch.randn(6, 3, generator=_G)
    compiled = poptorch.inferenceModel(model, poptorch.Options().deviceIterations(3))
    got = compiled(xs, ys)
    for index, value in enumerate(got):
        expected = torch.cat([model(xs[2 * i:2 * i + 2], ys[2 * i:2 * i + 2])[index] for i in range(3)])
        torch.testing.assert_close(value, expected, **FP32)


class InitialValueReadAfterTheLoop(torch.nn.Module):
    """The loop starts from a product the body also reads and the step reads afterwards;
    the body writes a carried value back into its variable: the product must survive."""

    def forward(self, x: torch.Tensor):
        p = x * x
        a, b = poptorch.for_loop(3, lambda a, b: (a + b * p, a), [x, p])
        return a, b, p + 1


def test_a_loop_never_overwrites_the_values_it_starts_from():
    _check(InitialValueReadAfterTheLoop(), X)


def test_training_a_model_whose_loop_needs_no_gradient():
    """The loop preprocesses an input (nothing in it needs a gradient): the step trains as eager."""
    import copy

    class Train(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)

        def forward(self, x, target):
            x = poptorch.for_loop(3, lambda a: a * 0.5 + 1, [x])[0]
            out = self.lin(x)
            return out, torch.nn.functional.mse_loss(out, target)

    torch.manual_seed(0)
    model = Train()
    reference = copy.deepcopy(model)
    _, loss = poptorch.trainingModel(model, optimizer=torch.optim.SGD(model.parameters(), lr=0.1))(X, Y)
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    _, expected = reference(X, Y)
    expected.backward()
    optimizer.step()
    torch.testing.assert_close(loss, expected.detach(), **FP32)
    torch.testing.assert_close(model.lin.weight.detach(), reference.lin.weight.detach(), **FP32)


_NESTED_CONTROL_FLOW = """
import torch, poptorch

class CondInLoop(torch.nn.Module):
    def forward(self, x):
        def body(a):
            return poptorch.cond(a.mean() > 0, lambda t: t - 1.0, [a], lambda t: t + 2.0, [a])[0]
        return poptorch.for_loop(5, body, [x])[0] * 2.0, poptorch.for_loop(3, lambda b: b + 1.0, [x])[0]

x = torch.arange(6.0).reshape(2, 3) - 2.0
got = poptorch.inferenceModel(CondInLoop())(x)
want = CondInLoop()(x)
for g, w in zip(got, want):
    torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-6)
print("ok")
"""


def test_expanding_control_flow_reads_no_erased_op():
    """Expanding a loop erases the ops that read its results; the expansion once kept
    Python handles of them and read freed memory (a segfault in a long pytest run). With
    freed memory poisoned, such a read crashes on every run, so this pins the fix."""
    from helpers import run_poisoned

    done = run_poisoned(_NESTED_CONTROL_FLOW)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("ok")

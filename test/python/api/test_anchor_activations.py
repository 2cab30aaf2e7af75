"""Options.anchorTensor on the model's own tensors (activations, inputs, outputs): getTensorNames()
lists them by readable names, the compiled program streams an anchored one to the host under its
output mode (All, EveryN, Final, Sum; Default follows the outputs'), and getAnchoredTensor returns
it after a call, equal to the same tensor in eager (a forward hook) for inference and training."""

from __future__ import annotations

import copy

import pytest
import torch
from helpers import FP32

import poptorch
from poptorch.enums import OutputMode

MICRO = 2  # the micro-batch


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(3, 4)
        self.fc2 = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class TrainNet(Net):
    def forward(self, x, y):  # noqa: D102
        out = super().forward(x)
        return out, torch.nn.functional.mse_loss(out, y)


def _hooked(model: Net) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """Record fc1's output and relu's (fc2's input) on every eager forward."""
    linear, relu = [], []
    model.fc1.register_forward_hook(lambda _m, _i, out: linear.append(out.detach().clone()))
    model.fc2.register_forward_hook(lambda _m, inputs, _o: relu.append(inputs[0].detach().clone()))
    return linear, relu


def _under(mode: OutputMode, period: int, steps: list[torch.Tensor]) -> torch.Tensor:
    """One value per step -> what the host gets under the mode (outputs' rules: dim 0 concatenated)."""
    if mode is OutputMode.All:
        return torch.cat(steps)
    if mode is OutputMode.EveryN:
        return torch.cat(steps[period - 1::period])
    if mode is OutputMode.Final:
        return steps[-1]
    return torch.stack(steps).sum(0)


MODES = [(OutputMode.All, 1), (OutputMode.EveryN, 2), (OutputMode.Final, 1), (OutputMode.Sum, 1)]


def test_tensor_names_list_activations_inputs_outputs_and_weights():
    model = poptorch.inferenceModel(Net())
    model(torch.randn(MICRO, 3))
    assert model.getTensorNames() == ["fc1.bias", "fc1.weight", "fc1/linear", "fc2.bias", "fc2.weight",
                                      "fc2/linear_1", "output.0", "relu", "x"]


def test_training_tensor_names_are_the_forward_ops_and_the_inputs():
    model = TrainNet()
    step = poptorch.trainingModel(model, None, torch.optim.SGD(model.parameters(), lr=0.1))
    step(torch.randn(MICRO, 3), torch.randn(MICRO, 2))
    names = step.getTensorNames()
    assert {"x", "y", "relu", "addmm", "addmm_1", "mse_loss", "output.0", "output.1", "fc1.weight", "0.lr"} <= set(names)
    assert not any(name.startswith(("primals", "tangents", "mse_loss_backward", "threshold_backward")) for name in names)


@pytest.mark.parametrize("iterations", [1, 4])
@pytest.mark.parametrize("mode, period", MODES)
def test_inference_activation_under_each_mode_matches_eager(iterations, mode, period):
    torch.manual_seed(0)
    net = Net()
    eager = copy.deepcopy(net)
    linear, relu = _hooked(eager)
    period = min(period, iterations)
    opts = (poptorch.Options().deviceIterations(iterations).anchorTensor("h", "relu", mode, period)
            .anchorTensor("l", "fc1/linear", mode, period))
    model = poptorch.inferenceModel(net, opts)
    x = torch.randn(MICRO * iterations, 3)
    for call in range(2):  # each call replaces the anchored values
        x = x + call
        out = model(x)
        linear.clear()
        relu.clear()
        with torch.no_grad():
            expected = torch.cat([eager(chunk) for chunk in x.split(MICRO)])
        torch.testing.assert_close(out, expected, **FP32)  # outputs unchanged (OutputMode.All by default)
        torch.testing.assert_close(model.getAnchoredTensor("h"), _under(mode, period, relu), **FP32)
        torch.testing.assert_close(model.getAnchoredTensor("l"), _under(mode, period, linear), **FP32)


@pytest.mark.parametrize("outputs, period", MODES)
def test_default_mode_follows_the_outputs(outputs, period):
    torch.manual_seed(0)
    net = Net()
    eager = copy.deepcopy(net)
    _, relu = _hooked(eager)
    opts = poptorch.Options().deviceIterations(4).outputMode(outputs, period if outputs is OutputMode.EveryN else None)
    opts.anchorTensor("h", "relu")
    model = poptorch.inferenceModel(net, opts)
    x = torch.randn(MICRO * 4, 3)
    out = model(x)
    with torch.no_grad():
        steps = [eager(chunk) for chunk in x.split(MICRO)]
    torch.testing.assert_close(out, _under(outputs, period, steps), **FP32)
    torch.testing.assert_close(model.getAnchoredTensor("h"), _under(outputs, period, relu), **FP32)


def test_inputs_and_outputs_by_name_with_their_own_modes():
    torch.manual_seed(0)
    net = Net()
    opts = (poptorch.Options().deviceIterations(4).outputMode(OutputMode.Final)
            .anchorTensor("x_all", "x", OutputMode.All).anchorTensor("out_sum", "output.0", OutputMode.Sum)
            .anchorTensor("out_every", "output.0", OutputMode.EveryN, 2))
    model = poptorch.inferenceModel(net, opts)
    x = torch.randn(MICRO * 4, 3)
    out = model(x)
    with torch.no_grad():
        steps = [net(chunk) for chunk in x.split(MICRO)]
    torch.testing.assert_close(out, steps[-1], **FP32)
    torch.testing.assert_close(model.getAnchoredTensor("x_all"), x, **FP32)
    torch.testing.assert_close(model.getAnchoredTensor("out_sum"), torch.stack(steps).sum(0), **FP32)
    torch.testing.assert_close(model.getAnchoredTensor("out_every"), torch.cat(steps[1::2]), **FP32)


def _eager_training(model: TrainNet, x: torch.Tensor, y: torch.Tensor, iterations: int, accumulation: int
                    ) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """SGD in eager, micro-batch by micro-batch (mean of G gradients per update): fc1's and relu's
    output of every micro-batch, with the weights of its iteration."""
    linear, relu = _hooked(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    xs, ys = x.split(MICRO), y.split(MICRO)
    for i in range(iterations):
        optimizer.zero_grad()
        for g in range(accumulation):
            (model(xs[i * accumulation + g], ys[i * accumulation + g])[1] / accumulation).backward()
        optimizer.step()
    return linear, relu


@pytest.mark.parametrize("iterations, accumulation", [(1, 1), (4, 1), (2, 2)])
@pytest.mark.parametrize("mode, period", MODES)
def test_training_activation_under_each_mode_matches_eager(iterations, accumulation, mode, period):
    torch.manual_seed(0)
    net = TrainNet()
    eager = copy.deepcopy(net)
    steps = iterations * accumulation
    period = min(period, steps)
    opts = (poptorch.Options().deviceIterations(iterations).anchorTensor("h", "relu", mode, period)
            .anchorTensor("l", "addmm", mode, period).anchorTensor("in", "y", mode, period))
    opts.Training.gradientAccumulation(accumulation)
    model = poptorch.trainingModel(net, opts, torch.optim.SGD(net.parameters(), lr=0.1))
    x, y = torch.randn(MICRO * steps, 3), torch.randn(MICRO * steps, 2)
    model(x, y)
    linear, relu = _eager_training(eager, x, y, iterations, accumulation)
    torch.testing.assert_close(model.getAnchoredTensor("h"), _under(mode, period, relu), **FP32)
    torch.testing.assert_close(model.getAnchoredTensor("l"), _under(mode, period, linear), **FP32)
    torch.testing.assert_close(model.getAnchoredTensor("in"), _under(mode, period, list(y.split(MICRO))), **FP32)


def test_training_default_mode_is_final_like_the_outputs():
    torch.manual_seed(0)
    net = TrainNet()
    eager = copy.deepcopy(net)
    model = poptorch.trainingModel(net, poptorch.Options().deviceIterations(3).anchorTensor("h", "relu"),
                                   torch.optim.SGD(net.parameters(), lr=0.1))
    x, y = torch.randn(MICRO * 3, 3), torch.randn(MICRO * 3, 2)
    model(x, y)
    _, relu = _eager_training(eager, x, y, 3, 1)
    torch.testing.assert_close(model.getAnchoredTensor("h"), relu[-1], **FP32)


def test_unknown_activation_name_lists_close_matches():
    opts = poptorch.Options().anchorTensor("h", "fc1/linera")
    model = poptorch.inferenceModel(Net(), opts)
    with pytest.raises(ValueError, match=r"anchorTensor\('h', 'fc1/linera'\): the compiled program has no tensor "
                                         r"'fc1/linera'\. Did you mean 'fc1/linear'"):
        model(torch.randn(MICRO, 3))


def test_every_n_period_other_than_the_outputs_is_an_error():
    opts = (poptorch.Options().deviceIterations(4).outputMode(OutputMode.EveryN, 4)
            .anchorTensor("h", "relu", OutputMode.EveryN, 2))
    model = poptorch.inferenceModel(Net(), opts)
    with pytest.raises(ValueError, match=r"anchorTensor\('h', 'relu', OutputMode.EveryN, 2\): the program sends its "
                                         r"EveryN values to the host every n steps for one n, and the outputs' "
                                         r"\(Options.outputMode\) period is 4"):
        model(torch.randn(MICRO * 4, 3))
    opts = poptorch.Options().deviceIterations(4).anchorTensor("h", "relu", OutputMode.EveryN, 3)
    with pytest.raises(ValueError, match=r"EveryN, 3\): each call runs deviceIterations x gradientAccumulation = 4 "
                                         r"steps, which is not a multiple of 3"):
        poptorch.inferenceModel(Net(), opts)(torch.randn(MICRO * 4, 3))


def test_anchored_activation_before_running_is_an_error():
    model = poptorch.inferenceModel(Net(), poptorch.Options().anchorTensor("h", "relu"))
    model.compile(torch.randn(MICRO, 3))
    with pytest.raises(RuntimeError, match="has not run yet"):
        model.getAnchoredTensor("h")

"""Options.anchorTensor on state (weights, buffers, optimizer state, hyper-parameters) under every
output mode: the value is taken at the end of each step (micro-batch), the last step of an
iteration ending with its optimizer update, and getAnchoredTensor returns it under the mode as
outputs are returned. Each test compares with a hand-written eager loop."""

from __future__ import annotations

import copy

import pytest
import torch
from helpers import FP32

import poptorch
from poptorch.enums import OutputMode

MICRO = 2  # the micro-batch
MODES = [(OutputMode.All, 1), (OutputMode.EveryN, 2), (OutputMode.Final, 1), (OutputMode.Sum, 1)]


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)

    def forward(self, x, y):
        out = self.fc(x)
        return out, torch.nn.functional.mse_loss(out, y)


def _under(mode: OutputMode, period: int, steps: list[torch.Tensor]) -> torch.Tensor:
    """One value per step -> what the host gets under the mode (outputs' rules: dim 0 concatenated,
    a scalar's values stacked)."""
    if mode is OutputMode.Final:
        return steps[-1]
    if mode is OutputMode.Sum:
        return torch.stack(steps).sum(0)
    chosen = steps if mode is OutputMode.All else steps[period - 1::period]
    if len(chosen) == 1:
        return chosen[0]
    return torch.stack(chosen) if chosen[0].dim() == 0 else torch.cat(chosen)


def _eager_states(model: Net, x: torch.Tensor, y: torch.Tensor, iterations: int, accumulation: int
                  ) -> dict[str, list[torch.Tensor]]:
    """SGD with momentum in eager, micro-batch by micro-batch (mean of G gradients per update): the
    weight, its velocity and the learning rate at the end of every step (after the update for the
    last step of an iteration)."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    xs, ys = x.split(MICRO), y.split(MICRO)
    weight = model.fc.weight
    found: dict[str, list[torch.Tensor]] = {"w": [], "v": [], "lr": []}
    for i in range(iterations):
        optimizer.zero_grad()
        for g in range(accumulation):
            (model(xs[i * accumulation + g], ys[i * accumulation + g])[1] / accumulation).backward()
            if g == accumulation - 1:
                optimizer.step()
            velocity = optimizer.state[weight].get("momentum_buffer")
            found["w"].append(weight.detach().clone())
            found["v"].append(torch.zeros_like(weight) if velocity is None else velocity.clone())
            found["lr"].append(torch.tensor(0.1))
    return found


@pytest.mark.parametrize("iterations, accumulation", [(1, 1), (4, 1), (2, 2)])
@pytest.mark.parametrize("mode, period", MODES)
def test_training_state_under_each_mode_matches_eager(iterations, accumulation, mode, period):
    torch.manual_seed(0)
    net = Net()
    eager = copy.deepcopy(net)
    steps = iterations * accumulation
    period = min(period, steps)
    opts = (poptorch.Options().deviceIterations(iterations).anchorTensor("w", "fc.weight", mode, period)
            .anchorTensor("v", "fc.weight/velocity", mode, period).anchorTensor("lr", "0.lr", mode, period))
    opts.Training.gradientAccumulation(accumulation)
    model = poptorch.trainingModel(net, opts, torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9))
    x, y = torch.randn(MICRO * steps, 3), torch.randn(MICRO * steps, 2)
    model(x, y)
    expected = _eager_states(eager, x, y, iterations, accumulation)
    for name in ("w", "v", "lr"):
        torch.testing.assert_close(model.getAnchoredTensor(name), _under(mode, period, expected[name]), **FP32)
    torch.testing.assert_close(net.fc.weight.detach(), eager.fc.weight.detach(), **FP32)  # training unchanged


def test_weight_after_each_optimizer_step_over_two_calls():
    torch.manual_seed(0)
    net = Net()
    eager = copy.deepcopy(net)
    opts = poptorch.Options().deviceIterations(3).anchorTensor("w", "fc.weight", OutputMode.All)
    model = poptorch.trainingModel(net, opts, torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9))
    optimizer = torch.optim.SGD(eager.parameters(), lr=0.1, momentum=0.9)
    for call in range(2):  # each call replaces the values; the second continues from the first's weights
        x, y = torch.randn(MICRO * 3, 3) + call, torch.randn(MICRO * 3, 2)
        model(x, y)
        weights = []
        for xs, ys in zip(x.split(MICRO), y.split(MICRO), strict=True):
            optimizer.zero_grad()
            eager(xs, ys)[1].backward()
            optimizer.step()
            weights.append(eager.fc.weight.detach().clone())
        torch.testing.assert_close(model.getAnchoredTensor("w"), torch.cat(weights), **FP32)


def test_batchnorm_running_statistics_after_each_step():
    torch.manual_seed(0)

    class Norm(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(3, 4)
            self.bn = torch.nn.BatchNorm1d(4)

        def forward(self, x, y):
            out = self.bn(self.fc(x))
            return out, torch.nn.functional.mse_loss(out, y)

    net = Norm()
    eager = copy.deepcopy(net)
    opts = (poptorch.Options().deviceIterations(3).anchorTensor("mean", "bn.running_mean", OutputMode.All)
            .anchorTensor("count", "bn.num_batches_tracked", OutputMode.All))
    model = poptorch.trainingModel(net, opts, torch.optim.SGD(net.parameters(), lr=0.1))
    x, y = torch.randn(4 * 3, 3), torch.randn(4 * 3, 4)
    model(x, y)
    optimizer = torch.optim.SGD(eager.parameters(), lr=0.1)
    means, counts = [], []
    for xs, ys in zip(x.split(4), y.split(4), strict=True):
        optimizer.zero_grad()
        eager(xs, ys)[1].backward()
        optimizer.step()
        means.append(eager.bn.running_mean.clone())
        counts.append(eager.bn.num_batches_tracked.clone())
    torch.testing.assert_close(model.getAnchoredTensor("mean"), torch.cat(means), **FP32)
    torch.testing.assert_close(model.getAnchoredTensor("count"), torch.stack(counts))


@pytest.mark.parametrize("mode, period", MODES)
def test_inference_weight_is_the_same_at_every_step(mode, period):
    layer = torch.nn.Sequential(torch.nn.Linear(3, 2))
    opts = poptorch.Options().deviceIterations(4).anchorTensor("w", "0.weight", mode, period)
    model = poptorch.inferenceModel(layer, opts)
    model(torch.randn(MICRO * 4, 3))
    weight = layer[0].weight.detach()
    torch.testing.assert_close(model.getAnchoredTensor("w"), _under(mode, period, [weight] * 4), **FP32)


def test_state_and_activation_every_n_share_one_period():
    opts = (poptorch.Options().deviceIterations(4).anchorTensor("h", "0/linear", OutputMode.EveryN, 2)
            .anchorTensor("w", "0.weight", OutputMode.EveryN, 4))
    model = poptorch.inferenceModel(torch.nn.Sequential(torch.nn.Linear(3, 2)), opts)
    with pytest.raises(ValueError, match=r"anchorTensor\('w', '0.weight', OutputMode.EveryN, 4\): the program sends "
                                         r"its EveryN values to the host every n steps for one n"):
        model(torch.randn(MICRO * 4, 3))


def test_unknown_state_name_over_several_steps_lists_close_matches():
    # Over several steps a name that is no model tensor is compiled in as state if it names a
    # variable of the program; any other name is poptorch's error, with the close matches.
    torch.manual_seed(0)
    net = Net()
    opts = poptorch.Options().deviceIterations(2).anchorTensor("v", "fc.weight/momentum", OutputMode.All)
    model = poptorch.trainingModel(net, opts, torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9))
    with pytest.raises(ValueError, match=r"anchorTensor\('v', 'fc.weight/momentum'\): the compiled program has no tensor "
                                         r"'fc.weight/momentum'\. Did you mean .*'fc.weight/velocity'"):
        model(torch.randn(MICRO * 2, 3), torch.randn(MICRO * 2, 2))

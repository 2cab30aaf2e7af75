"""A training model that returns a weight or a buffer through an op that computes nothing
new (``w * 1.0``, ``w / 1``, a select on a constant condition, a sum over no dims) returns
its value of the forward pass, as eager PyTorch does, not the value after the update.

The IPU Model computes such ops without work: the expression hands back its operand. The
passes take the op's result for a new buffer, so poplar-plan-in-place updated the weight in
place while the output still was that weight's buffer (the output was the updated weight:
0.066 off eager). The kernel now hands an operand on only where it is a temporary that
dies there, and copies a weight, a buffer, a constant or a value read again.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import poptorch
from helpers import FP32
from helpers.checks import assert_state_dicts_close

Extras = Callable[[nn.Module], tuple[torch.Tensor, ...]]

# Each group is one model (one compile). Views of a weight (t, view, detach) stop the
# update in place on their own, so they are a group apart from the ops on a weight.
GROUPS: dict[str, Extras] = {
    # the ops the IPU Model computed as the weight itself
    "weight_ops": lambda m: (m.fc.weight * 1.0, m.fc.weight / 1.0,
                             torch.where(torch.tensor(True), m.fc.weight, m.fc.weight * 2.0)),
    # ops that were right, the same hazard
    "weight_copies": lambda m: (m.fc.weight + 0.0, m.fc.weight.clone(), m.fc.weight.to(torch.float32), -(-m.fc.weight)),
    "weight_views": lambda m: (m.fc.weight.t(), m.fc.weight.view(-1), m.fc.weight.detach(), m.fc.weight.reshape(4, 8)),
    # reductions over no dims of a 0-d parameter
    "scalar_reductions": lambda m: (m.scale.sum(), m.scale.mean(), m.scale.amax(), m.scale * 1.0),
    # a buffer the step updates (the running mean of batch norm)
    "buffer": lambda m: (m.norm.running_mean * 1.0, m.norm.running_var / 1.0),
}


class Model(nn.Module):
    def __init__(self, extras: Extras) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc = nn.Linear(8, 4)
        self.norm = nn.BatchNorm1d(4)
        self.scale = nn.Parameter(torch.tensor(0.5))
        self.extras = extras

    def forward(self, x: torch.Tensor, y: torch.Tensor):  # noqa: ANN201
        out = self.norm(self.fc(x)) * self.scale
        return (out, F.mse_loss(out, y), *self.extras(self))


@pytest.mark.parametrize("group", list(GROUPS))
def test_identity_outputs_of_state_are_their_forward_values(group: str) -> None:
    model = Model(GROUPS[group])
    reference = copy.deepcopy(model)
    training = poptorch.trainingModel(model, poptorch.Options(), torch.optim.SGD(model.parameters(), lr=0.1))
    eager_optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    torch.manual_seed(1)
    for _ in range(2):  # the second step reads the state the first one left
        x, y = torch.randn(6, 8), torch.randn(6, 4)
        got = training(x, y)
        eager_optimizer.zero_grad()
        want = reference(x, y)
        want[1].backward()
        want = [w.detach().clone() for w in want]
        eager_optimizer.step()
        assert len(got) == len(want)
        for index, (actual, expected) in enumerate(zip(got, want, strict=True)):
            torch.testing.assert_close(actual, expected, **FP32, msg=lambda m, i=index: f"output {i}: {m}")
    training.copyWeightsToHost()
    assert_state_dicts_close(model, reference)


class ViewsOfWeight(nn.Module):
    """Returns views of its weight as outputs, besides its result and loss."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor, y: torch.Tensor | None = None):  # noqa: ANN201
        out = self.fc(x)
        views = (self.fc.weight.t(), self.fc.weight[0], self.fc.bias.view(2, 4))
        if y is None:
            return (out, *views)
        return (out, F.mse_loss(out, y), *views)


def _off_chip(options: poptorch.Options) -> poptorch.Options:
    off_chip = poptorch.TensorLocationSettings().useOnChipStorage(False).minElementsForOffChip(0)
    options.TensorLocations.setWeightLocation(off_chip)
    options.TensorLocations.setOptimizerLocation(off_chip)
    return options


@pytest.mark.parametrize("accumulation", [1, 2])
@pytest.mark.parametrize("off_chip", [False, True], ids=["on_chip", "off_chip"])
def test_views_of_weights_are_their_forward_values(off_chip: bool, accumulation: int) -> None:
    """An output that is a view of a weight is the weight of the forward pass, bit for bit,
    when the update runs after the micro-batches (gradient accumulation: another block, which
    updated the weight in place under the output) and when the weight lives off chip (its
    store wrote the new weight into the remote buffer the output viewed), and it stays so
    after later steps."""
    model = ViewsOfWeight()
    reference = copy.deepcopy(model)
    options = poptorch.Options()
    options.Training.gradientAccumulation(accumulation)
    options.outputMode(poptorch.OutputMode.All)
    if off_chip:
        _off_chip(options)
    training = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
    eager_optimizer = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    generator = torch.Generator().manual_seed(1)
    kept = []
    for step in range(3):
        x, y = torch.randn(4 * accumulation, 8, generator=generator), torch.randn(4 * accumulation, 8, generator=generator)
        want = [v.detach().clone() for v in reference(x[:4], y[:4])[2:]]
        eager_optimizer.zero_grad()
        for micro in range(accumulation):
            rows = slice(4 * micro, 4 * micro + 4)
            (F.mse_loss(reference.fc(x[rows]), y[rows]) / accumulation).backward()
        eager_optimizer.step()
        got = training(x, y)[2:]
        for index, (actual, expected) in enumerate(zip(got, want, strict=True)):
            # OutputMode.All: one value per micro-batch, each the weight before the update
            expected = torch.cat([expected] * accumulation) if accumulation > 1 else expected
            assert torch.equal(actual, expected), f"step {step}, view {index}"
        kept.append((got, want))
    for step, (got, want) in enumerate(kept):
        assert torch.equal(got[0][:8], want[0]), f"step {step}: the view output changed after later steps"
    training.copyWeightsToHost()
    for name, value in reference.state_dict().items():
        assert torch.equal(model.state_dict()[name], value), name


@pytest.mark.parametrize("off_chip", [False, True], ids=["on_chip", "off_chip"])
def test_writing_into_a_view_output_leaves_the_weights(off_chip: bool) -> None:
    """An inference output that is a view of a weight is the host's own tensor: writing
    into it changes neither the device's weight nor the next run's outputs."""
    model = ViewsOfWeight()
    options = _off_chip(poptorch.Options()) if off_chip else poptorch.Options()
    inference = poptorch.inferenceModel(model, options)
    x = torch.randn(4, 8)
    first = inference(x)
    want = [v.detach().clone() for v in model(x)]
    for output in first:
        output.zero_()
    second = inference(x)
    for index, (actual, expected) in enumerate(zip(second, want, strict=True)):
        assert torch.equal(actual, expected), f"output {index}"

"""Options.autoBalancePipeline: the compiler splits an unannotated model into pipeline
stages at module boundaries from the cost model's estimates."""

from __future__ import annotations

import itertools

import pytest
import torch
from helpers import FP32
from torch import nn

import poptorch
from poptorch._auto_balance import split

pytestmark = pytest.mark.usefixtures("fresh_poptorch_logging")


def _largest_group(costs: list[int], starts: list[int]) -> int:
    bounds = [*starts, len(costs)]
    return max(sum(costs[a:b]) for a, b in itertools.pairwise(bounds))


def test_split_minimises_the_slowest_group() -> None:
    costs = [5, 1, 1, 1, 1, 1, 8, 2, 2]
    for groups in (2, 3, 4):
        starts = split(costs, [0] * len(costs), groups, capacity=1)
        every = min(_largest_group(costs, [0, *rest]) for rest in itertools.combinations(range(1, len(costs)), groups - 1))
        assert starts[0] == 0 and len(starts) == groups
        assert _largest_group(costs, starts) == every


def test_split_keeps_each_group_within_memory() -> None:
    costs, memory = [1, 1, 1, 10], [4, 4, 4, 1]
    assert split(costs, memory, 2, capacity=100) == [0, 3]  # by cycles alone
    assert split(costs, memory, 2, capacity=8) == [0, 2]  # three of the first units do not fit together
    with pytest.raises(ValueError, match="no split of the 4 modules over 2 IPUs keeps every IPU within its 3 bytes"):
        split(costs, memory, 2, capacity=3)


class Encoder(nn.Module):
    def __init__(self, layers: int = 12) -> None:
        super().__init__()
        self.embed = nn.Linear(64, 64)
        self.layers = nn.ModuleList(nn.TransformerEncoderLayer(64, 4, 256, dropout=0.0, batch_first=True)
                                    for _ in range(layers))
        self.head = nn.Linear(64, 1000)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.embed(x)
        for layer in self.layers:
            h = layer(h)
        return self.head(h).softmax(-1)


def _hand_split(model: Encoder, sizes: list[int], x: torch.Tensor) -> int:
    starts = [sum(sizes[:i]) for i in range(len(sizes))]
    for ipu, first in enumerate(starts):
        poptorch.BeginBlock(model.layers[first], f"hand{ipu}", ipu_id=ipu)
    try:
        ipu = poptorch.inferenceModel(model, poptorch.Options().deviceIterations(4).logCycleCount(True))
        ipu(x)
    finally:
        poptorch.removeBlocks(model)
    return ipu.cycleCount()


def test_auto_balanced_12_layer_encoder_is_as_fast_as_hand_splits() -> None:
    torch.manual_seed(0)
    model = Encoder().eval()
    x = torch.randn(8, 16, 64)
    options = poptorch.Options().deviceIterations(4).autoBalancePipeline(4).logCycleCount(True)
    ipu = poptorch.inferenceModel(model, options)
    torch.testing.assert_close(ipu(x), model(x), **FP32)
    groups = ipu.balance_plan.groups
    assert [name for group in groups for name in group] == [f"layers.{i}" for i in range(12)]
    assert len(groups) == 4 and all(groups)
    # The chosen blocks show in the IR and the schedule; the user's modules keep no annotations.
    text = ipu._compiled.ir_text()
    for g in range(4):
        assert f'"auto_balance{g}"' in text
    schedule = ipu.schedule()
    assert "4 stages on 4 IPUs" in schedule
    assert not any("_poptorch_begin_block" in module.__dict__ for module in model.modules())
    auto = ipu.cycleCount()
    # Hand splits a user would try (not all 165): even, and the ends lighter or heavier.
    hand = {tuple(sizes): _hand_split(model, sizes, x) for sizes in ([3, 3, 3, 3], [2, 3, 3, 4], [4, 3, 3, 2],
                                                                      [3, 4, 3, 2], [2, 4, 4, 2])}
    best = min(hand.values())
    assert auto <= 1.10 * best, (auto, hand)


def test_auto_balance_needs_module_boundaries_and_no_blocks() -> None:
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
    options = poptorch.Options().deviceIterations(4).autoBalancePipeline(4)
    with pytest.raises(ValueError, match=r"autoBalancePipeline\(4\): the model has no nn.ModuleList or nn.Sequential of at least 4"):
        poptorch.inferenceModel(model, options)(torch.randn(4, 4))
    encoder = Encoder(4).eval()
    poptorch.BeginBlock(encoder.layers[2], "mine", ipu_id=1)
    with pytest.raises(ValueError, match="already has poptorch.BeginBlock annotations"):
        poptorch.inferenceModel(encoder, poptorch.Options().deviceIterations(4).autoBalancePipeline(2))(torch.randn(4, 16, 64))
    with pytest.raises(ValueError, match="num_ipus must be an int >= 2"):
        poptorch.Options().autoBalancePipeline(1)


class Layers(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(16, 16) for _ in range(6))
        self.head = nn.Linear(16, 4)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        for layer in self.layers:
            x = torch.relu(layer(x))
        out = self.head(x)
        return out, nn.functional.cross_entropy(out, y)


def test_auto_balanced_training_matches_eager() -> None:
    torch.manual_seed(0)
    model = Layers()
    reference = Layers()
    reference.load_state_dict(model.state_dict())
    options = poptorch.Options().autoBalancePipeline(2)
    options.Training.gradientAccumulation(4)
    ipu = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1))
    x, y = torch.randn(16, 16), torch.randint(0, 4, (16,))
    ipu(x, y)
    assert len(ipu.balance_plan.groups) == 2
    assert "2 IPUs" in ipu.schedule()
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    loss = sum(reference(x[i * 4:(i + 1) * 4], y[i * 4:(i + 1) * 4])[1] for i in range(4)) / 4
    loss.backward()
    optimizer.step()
    ipu.copyWeightsToHost()
    for got, want in zip(model.parameters(), reference.parameters(), strict=True):
        torch.testing.assert_close(got, want, **FP32)

"""Replicated execution in one process (Options.replicationFactor): R replicas, each on its
own slice of every host batch, gradients reduced across them before the update. The
reference is eager PyTorch trained on the whole batch (SEMANTICS "Replication",
"Batching", "Gradient accumulation")."""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F

import poptorch
from helpers import FP32



class Regression(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.net = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.net(x)
        return out, F.mse_loss(out, y)


def _eager(model: torch.nn.Module, batches: list[tuple[torch.Tensor, torch.Tensor]], micro: int, sum_reduction: bool,
           lr: float = 0.05) -> torch.nn.Module:
    """Eager SGD with momentum, one update per host batch: the mean (or the sum) of the
    micro-batches' mean losses."""
    model = copy.deepcopy(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    for x, y in batches:
        optimizer.zero_grad()
        losses = [model(xs, ys)[1] for xs, ys in zip(x.split(micro), y.split(micro), strict=True)]
        loss = torch.stack(losses).sum() if sum_reduction else torch.stack(losses).mean()
        loss.backward()
        optimizer.step()
    return model


def _batches(count: int, size: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    generator = torch.Generator().manual_seed(1)
    return [(torch.randn(size, 6, generator=generator), torch.randn(size, 3, generator=generator)) for _ in range(count)]


@pytest.mark.parametrize("replicas", [2, 4])
@pytest.mark.parametrize("accumulation", [1, 2])
@pytest.mark.parametrize("reduction", [poptorch.ReductionType.Mean, poptorch.ReductionType.Sum])
def test_replicas_train_as_eager_on_the_whole_batch(replicas: int, accumulation: int, reduction: poptorch.ReductionType) -> None:
    micro = 3
    model = Regression()
    batches = _batches(3, micro * replicas * accumulation)
    expected = _eager(model, batches, micro, reduction == poptorch.ReductionType.Sum)
    opts = poptorch.Options().replicationFactor(replicas)
    opts.Training.gradientAccumulation(accumulation)
    opts.Training.accumulationAndReplicationReductionType(reduction)
    trained = poptorch.trainingModel(model, opts, torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9))
    for x, y in batches:
        out, loss = trained(x, y)
    assert out.shape == (micro * replicas, 3)  # Final: the last micro-batch of each replica
    assert loss.shape == (replicas,)
    trained.copyWeightsToHost()
    for (name, got), (_, want) in zip(model.named_parameters(), expected.named_parameters(), strict=True):
        torch.testing.assert_close(got, want, **FP32, msg=name)


def test_replica_losses_are_each_replicas_own() -> None:
    """Output mode All: R x D x G results on dim 0, in the order of the host batch."""
    model = Regression()
    opts = poptorch.Options().replicationFactor(2).deviceIterations(2).outputMode(poptorch.OutputMode.All)
    trained = poptorch.trainingModel(model, opts, torch.optim.SGD(model.parameters(), lr=0.0))
    x, y = _batches(1, 8)[0]
    out, loss = trained(x, y)
    assert out.shape == (8, 3) and loss.shape == (4,)
    reference = copy.deepcopy(model)
    for k in range(4):  # micro-batch k of the host batch, whichever replica ran it
        want_out, want_loss = reference(x[2 * k:2 * k + 2], y[2 * k:2 * k + 2])
        torch.testing.assert_close(out[2 * k:2 * k + 2], want_out, **FP32)
        torch.testing.assert_close(loss[k], want_loss, **FP32)


def test_replicated_pipeline_trains_as_eager() -> None:
    """R = 2 replicas of a 2-stage pipeline (4 IPUs)."""

    class Staged(Regression):
        def __init__(self) -> None:
            super().__init__()
            self.net[2] = poptorch.BeginBlock(self.net[2], ipu_id=1)

    micro, replicas, accumulation = 2, 2, 4
    model = Staged()
    batches = _batches(2, micro * replicas * accumulation)
    expected = _eager(model, batches, micro, sum_reduction=False)
    opts = poptorch.Options().replicationFactor(replicas)
    opts.Training.gradientAccumulation(accumulation)
    opts.setExecutionStrategy(poptorch.PipelinedExecution())
    trained = poptorch.trainingModel(model, opts, torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9))
    for x, y in batches:
        trained(x, y)
    trained.copyWeightsToHost()
    for (name, got), (_, want) in zip(model.named_parameters(), expected.named_parameters(), strict=True):
        torch.testing.assert_close(got, want, **FP32, msg=name)


def test_set_optimizer_reaches_every_replica() -> None:
    model = Regression()
    batches = _batches(2, 4)
    opts = poptorch.Options().replicationFactor(2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    trained = poptorch.trainingModel(model, opts, optimizer)
    trained(*batches[0])
    for group in optimizer.param_groups:
        group["lr"] = 0.2
    trained.setOptimizer(optimizer)
    trained(*batches[1])
    reference = Regression()
    eager_optimizer = torch.optim.SGD(reference.parameters(), lr=0.05)
    for index, (x, y) in enumerate(batches):
        if index == 1:
            for group in eager_optimizer.param_groups:
                group["lr"] = 0.2
        eager_optimizer.zero_grad()
        torch.stack([reference(xs, ys)[1] for xs, ys in zip(x.split(2), y.split(2), strict=True)]).mean().backward()
        eager_optimizer.step()
    for (name, got), (_, want) in zip(model.named_parameters(), reference.named_parameters(), strict=True):
        torch.testing.assert_close(got, want, **FP32, msg=name)


def test_replicated_model_saves_and_loads(tmp_path) -> None:  # noqa: ANN001
    """A replicated training model written with save() continues in poptorch.load exactly."""
    model = Regression()
    trained = poptorch.trainingModel(model, poptorch.Options().replicationFactor(2),
                                     torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9))
    batches = _batches(3, 6)
    trained(*batches[0])
    path = tmp_path / "replicated.popef"
    trained.save(str(path))
    want = [trained(x, y)[1] for x, y in batches[1:]]
    loaded = poptorch.load(str(path))
    got = [loaded(x, y)[1] for x, y in batches[1:]]
    for a, b in zip(got, want, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0)


def test_a_pickled_parameter_has_no_live_grouping() -> None:
    """The replicaGrouping method is bound to its wrapper: a pickled copy of the model does
    not carry the wrapper along, and calling it says why."""
    import pickle

    model = torch.nn.Sequential(torch.nn.Linear(3, 3))  # a class pickle can find again
    trained = poptorch.inferenceModel(model, poptorch.Options().replicationFactor(2))
    copied = pickle.loads(pickle.dumps(model))
    with pytest.raises(RuntimeError, match="belongs to no live PopTorch model"):
        copied[0].weight.replicaGrouping(poptorch.CommGroupType.Consecutive, 1)
    trained.model[0].weight.replicaGrouping(poptorch.CommGroupType.All, 1)  # the wrapped model's own: accepted


@pytest.mark.parametrize("group_type", [poptorch.CommGroupType.Consecutive, poptorch.CommGroupType.Orthogonal])
def test_input_groups_train_on_their_shared_micro_batches(group_type: poptorch.CommGroupType) -> None:
    """R = 4 in input groups of 2: each step has two distinct micro-batches, each run by
    the two replicas of its group; the mean over the 4 replicas is eager's mean over the 2."""
    micro = 3
    model = Regression()
    batches = _batches(2, micro * 2)
    expected = _eager(model, batches, micro, sum_reduction=False)
    opts = poptorch.Options().replicationFactor(4).inputReplicaGrouping(2, group_type)
    trained = poptorch.trainingModel(model, opts, torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9))
    for x, y in batches:
        _, loss = trained(x, y)
    assert loss.shape == (4,)
    groups = [[0, 1], [2, 3]] if group_type == poptorch.CommGroupType.Consecutive else [[0, 2], [1, 3]]
    for group in groups:  # the replicas of a group ran the same micro-batch
        torch.testing.assert_close(loss[group[0]], loss[group[1]], rtol=0, atol=0)
    trained.copyWeightsToHost()
    for (name, got), (_, want) in zip(model.named_parameters(), expected.named_parameters(), strict=True):
        torch.testing.assert_close(got, want, **FP32, msg=name)

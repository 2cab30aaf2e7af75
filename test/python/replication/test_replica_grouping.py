"""Weights grouped across replicas (param.replicaGrouping) and buffers kept in sync
(Options.broadcastBuffers), against hand-written references (seed 003: CommGroupType,
VariableRetrievalMode, replicaGrouping; SEMANTICS "Replication")."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import poptorch
from helpers import FP32

REPLICAS, MICRO, LR = 4, 3, 0.1


class Grouped(torch.nn.Module):
    """out = x @ W + b: W one value per replica group ([groups, 6, 3] on the host), b shared."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.W = torch.nn.Parameter(torch.randn(groups, 6, 3))
        self.b = torch.nn.Parameter(torch.randn(3))

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = x @ self.W + self.b
        return out, F.mse_loss(out, y)


def _groups_of(kind: poptorch.CommGroupType, shards: int) -> list[list[int]]:
    if kind == poptorch.CommGroupType.NoGrouping:
        return [[r] for r in range(REPLICAS)]
    count = REPLICAS // shards
    if kind == poptorch.CommGroupType.Consecutive:
        return [list(range(g * shards, (g + 1) * shards)) for g in range(count)]
    return [list(range(g, REPLICAS, count)) for g in range(count)]


def _reference(W: torch.Tensor, b: torch.Tensor, groups: list[list[int]], batches: list[tuple[torch.Tensor, torch.Tensor]]
               ) -> tuple[torch.Tensor, torch.Tensor]:
    """SGD by hand: replica r runs micro-batch r of each host batch with its group's W;
    W[g] takes the mean gradient of its group's replicas, b the mean over all replicas."""
    W, b = W.clone(), b.clone()
    for x, y in batches:
        grads_w, grads_b = [], []
        for r in range(REPLICAS):
            g = next(i for i, group in enumerate(groups) if r in group)
            w_r = W[g].clone().requires_grad_(True)
            b_r = b.clone().requires_grad_(True)
            loss = F.mse_loss(x[r * MICRO:(r + 1) * MICRO] @ w_r + b_r, y[r * MICRO:(r + 1) * MICRO])
            gw, gb = torch.autograd.grad(loss, [w_r, b_r])
            grads_w.append(gw)
            grads_b.append(gb)
        for g, group in enumerate(groups):
            W[g] -= LR * torch.stack([grads_w[r] for r in group]).mean(0)
        b -= LR * torch.stack(grads_b).mean(0)
    return W, b


def _batches(count: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    generator = torch.Generator().manual_seed(3)
    return [(torch.randn(REPLICAS * MICRO, 6, generator=generator), torch.randn(REPLICAS * MICRO, 3, generator=generator))
            for _ in range(count)]


@pytest.mark.parametrize(("kind", "shards"), [(poptorch.CommGroupType.Consecutive, 2), (poptorch.CommGroupType.Orthogonal, 2),
                                              (poptorch.CommGroupType.NoGrouping, 1)])
def test_each_group_trains_its_own_weight(kind: poptorch.CommGroupType, shards: int) -> None:
    groups = _groups_of(kind, shards)
    model = Grouped(len(groups))
    want_w, want_b = _reference(model.W.detach(), model.b.detach(), groups, _batches(2))
    trained = poptorch.trainingModel(model, poptorch.Options().replicationFactor(REPLICAS),
                                     torch.optim.SGD(model.parameters(), lr=LR))
    trained.W.replicaGrouping(kind, shards, poptorch.VariableRetrievalMode.OnePerGroup)
    for x, y in _batches(2):
        out, _ = trained(x, y)
    assert out.shape == (REPLICAS * MICRO, 3)
    trained.copyWeightsToHost()
    assert model.W.shape == (len(groups), 6, 3)
    torch.testing.assert_close(model.W.detach(), want_w, **FP32)
    torch.testing.assert_close(model.b.detach(), want_b, **FP32)


def test_all_replicas_retrieval_returns_every_replica_and_writes_back() -> None:
    groups = _groups_of(poptorch.CommGroupType.Orthogonal, 2)  # {0, 2}, {1, 3}
    model = Grouped(len(groups))
    start_w, start_b = model.W.detach().clone(), model.b.detach().clone()
    batches = _batches(3)
    trained = poptorch.trainingModel(model, poptorch.Options().replicationFactor(REPLICAS),
                                     torch.optim.SGD(model.parameters(), lr=LR))
    trained.W.replicaGrouping(poptorch.CommGroupType.Orthogonal, 2, poptorch.VariableRetrievalMode.AllReplicas)
    for x, y in batches[:2]:
        trained(x, y)
    trained.copyWeightsToHost()
    want_w, _ = _reference(start_w, start_b, groups, batches[:2])
    assert model.W.shape == (REPLICAS, 6, 3)  # one value per replica
    for r in range(REPLICAS):
        torch.testing.assert_close(model.W.detach()[r], want_w[r % 2], **FP32)
    # Writing per-replica values to the device: each replica takes its own row.
    with torch.no_grad():
        model.W[2] += 1.0  # replica 2 now differs from replica 0, its group's other member
    trained.copyWeightsToDevice()
    trained(*batches[2])
    trained.copyWeightsToHost()
    assert model.W.shape == (REPLICAS, 6, 3)
    assert not torch.equal(model.W[0], model.W[2])  # replicas 0 and 2 started the step from different values
    # Replicas 0 and 2 form one group: both take the group's mean gradient, so they stay 1.0 apart.
    torch.testing.assert_close(model.W[0] - model.W[2], torch.full((6, 3), -1.0), **FP32)


def test_grouping_errors_are_ours() -> None:
    model = Grouped(3)
    trained = poptorch.trainingModel(model, poptorch.Options().replicationFactor(REPLICAS),
                                     torch.optim.SGD(model.parameters(), lr=LR))
    trained.W.replicaGrouping(poptorch.CommGroupType.Consecutive, 2)
    x, y = _batches(1)[0]
    with pytest.raises(ValueError, match=r"W.replicaGrouping\(Consecutive, 2\): the parameter must hold one value per "
                                         r"replica group on its first dimension \(\[2, \.\.\.\] for 2 groups"):
        trained(x, y)
    with pytest.raises(ValueError, match="shards is the number of replicas in each group"):
        trained.W.replicaGrouping(poptorch.CommGroupType.Consecutive, 0)


class WithStatistics(torch.nn.Module):
    """A BatchNorm and a buffer that the forward uses: an exponential average of the input."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc = torch.nn.Linear(4, 4)
        self.bn = torch.nn.BatchNorm1d(4)
        self.register_buffer("average", torch.zeros(4))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self.average.mul_(0.5).add_(0.5 * x.mean(0))
        out = self.bn(self.fc(x)) + self.average
        return out, poptorch.identity_loss(out.pow(2), reduction="mean")


@pytest.mark.parametrize("broadcast", [True, False])
def test_broadcast_buffers_keeps_replicas_in_sync(broadcast: bool) -> None:
    model = WithStatistics()
    opts = poptorch.Options().replicationFactor(2).broadcastBuffers(broadcast).outputMode(poptorch.OutputMode.All)
    trained = poptorch.trainingModel(model, opts, torch.optim.SGD(model.parameters(), lr=0.0))
    generator = torch.Generator().manual_seed(4)
    batches = [torch.randn(2 * MICRO, 4, generator=generator) for _ in range(2)]
    for x in batches:
        out, _ = trained(x)
    # By hand: replica r sees micro-batch r; after step 1 its average is 0.5 x mean(x_r).
    first = [0.5 * batches[0][r * MICRO:(r + 1) * MICRO].mean(0) for r in range(2)]
    # Step 2's output of replica 1 uses its own average (not in sync) or replica 0's (broadcast).
    x1 = batches[1][MICRO:]
    average_1 = 0.5 * (first[0] if broadcast else first[1]) + 0.5 * x1.mean(0)
    with torch.no_grad():
        want = model.bn(model.fc(x1)) + average_1
    torch.testing.assert_close(out[MICRO:], want, **FP32)
    # BatchNorm running statistics: the host reads replica 0's; with broadcast every
    # replica holds the same (the device state of each replica).
    trained.copyWeightsToHost()
    stores = trained._replica_stores
    ipu = 0
    same = torch.equal(stores[0][ipu].tensors["bn.running_mean"], stores[1][ipu].tensors["bn.running_mean"])
    assert same == broadcast
    reference = WithStatistics()
    for x in batches:
        reference(x[:MICRO])  # replica 0's micro-batches
    torch.testing.assert_close(model.bn.running_mean, reference.bn.running_mean, **FP32)
    torch.testing.assert_close(model.average, reference.average, **FP32)


def test_export_writes_each_replicas_weights(tmp_path) -> None:  # noqa: ANN001
    """exportPoplarCpp's weights.bin holds every variable once per replica, replica after
    replica, when a weight is grouped across replicas (the C++ main writes each replica its own)."""
    groups = _groups_of(poptorch.CommGroupType.Consecutive, 2)
    model = Grouped(len(groups))
    trained = poptorch.inferenceModel(model, poptorch.Options().replicationFactor(REPLICAS))
    trained.W.replicaGrouping(poptorch.CommGroupType.Consecutive, 2)
    x, y = _batches(1)[0]
    trained(x, y)
    trained.exportPoplarCpp(str(tmp_path / "program.cpp"))
    data = torch.frombuffer(bytearray((tmp_path / "weights.bin").read_bytes()), dtype=torch.float32)
    per_replica = data.reshape(REPLICAS, -1)  # W (6 x 3) then b (3) for each replica
    for r in range(REPLICAS):
        torch.testing.assert_close(per_replica[r, :18].reshape(6, 3), model.W.detach()[r // 2], rtol=0, atol=0)
        torch.testing.assert_close(per_replica[r, 18:], model.b.detach(), rtol=0, atol=0)

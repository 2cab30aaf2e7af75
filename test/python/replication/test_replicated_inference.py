"""Replicated inference: each replica runs its own micro-batches of the host batch, and
the outputs come back with R x D (x G) on dim 0 in the order of the host batch
(SEMANTICS "Batching": the output-mode table; input replica groups)."""

from __future__ import annotations

import pytest
import torch

import poptorch
from helpers import EXACT, FP32



def _model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))


@pytest.mark.parametrize("replicas", [2, 4])
def test_outputs_line_up_with_the_host_batch(replicas: int) -> None:
    model = _model()
    opts = poptorch.Options().replicationFactor(replicas).deviceIterations(3)
    x = torch.randn(2 * 3 * replicas, 6)
    out = poptorch.inferenceModel(model, opts)(x)
    torch.testing.assert_close(out, model(x).detach(), **FP32)


@pytest.mark.parametrize(("mode", "rows"), [(poptorch.OutputMode.Final, "last"), (poptorch.OutputMode.Sum, "sum")])
def test_final_and_sum_give_one_result_per_replica(mode: poptorch.OutputMode, rows: str) -> None:
    model = _model()
    replicas, iterations, micro = 2, 3, 2
    opts = poptorch.Options().replicationFactor(replicas).deviceIterations(iterations).outputMode(mode)
    x = torch.randn(micro * iterations * replicas, 6)
    out = poptorch.inferenceModel(model, opts)(x)
    assert out.shape == (replicas * micro, 3)
    per_microbatch = model(x).detach().reshape(iterations, replicas, micro, 3)  # micro-batch k = step x R + replica
    want = per_microbatch[-1] if rows == "last" else per_microbatch.sum(0)
    torch.testing.assert_close(out, want.reshape(replicas * micro, 3), **FP32)


@pytest.mark.parametrize("group_type", [poptorch.CommGroupType.Consecutive, poptorch.CommGroupType.Orthogonal])
def test_input_groups_share_their_micro_batches(group_type: poptorch.CommGroupType) -> None:
    """R = 4 in input groups of 2: two distinct micro-batches per step, each seen by the
    two replicas of its group; outputs keep R x D on dim 0."""
    model = _model()
    opts = poptorch.Options().replicationFactor(4).inputReplicaGrouping(2, group_type)
    x = torch.randn(2 * 5, 6)  # N = D x R / I = 2 micro-batches of 5
    out = poptorch.inferenceModel(model, opts)(x)
    assert out.shape == (4 * 5, 3)
    by_replica = out.reshape(4, 5, 3)
    # Consecutive groups {0, 1}, {2, 3}; Orthogonal groups {0, 2}, {1, 3}.
    groups = [[0, 1], [2, 3]] if group_type == poptorch.CommGroupType.Consecutive else [[0, 2], [1, 3]]
    for q, group in enumerate(groups):
        want = model(x[5 * q:5 * q + 5]).detach()
        for replica in group:
            torch.testing.assert_close(by_replica[replica], want, **FP32)
        torch.testing.assert_close(by_replica[group[0]], by_replica[group[1]], **EXACT)


def test_input_group_size_must_divide_the_replicas() -> None:
    opts = poptorch.Options().replicationFactor(4).inputReplicaGrouping(3)
    with pytest.raises(ValueError, match=r"inputReplicaGrouping\(3, ...\): the input group size must divide replicationFactor \(4\)"):
        poptorch.inferenceModel(_model(), opts)(torch.randn(12, 6))


def test_the_ipu_count_counts_replicas() -> None:
    """R x IPUs per replica must be a power of 2 (SEMANTICS "IPU count")."""

    class TwoIpus(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = torch.nn.Linear(4, 4)
            self.b = poptorch.BeginBlock(torch.nn.Linear(4, 4), ipu_id=1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.b(self.a(x))

    for auto_round in (False, True):  # rounding cannot help 3 replicas: the error does not suggest it
        opts = poptorch.Options().replicationFactor(3).autoRoundNumIPUs(auto_round)
        opts.setExecutionStrategy(poptorch.ShardedExecution())
        with pytest.raises(Exception, match=r"6 IPUs \(2 per replica x 3 replicas\), which is not a power of 2, "
                                            r"and replicationFactor\(3\) is not one either") as caught:
            poptorch.inferenceModel(TwoIpus(), opts)(torch.randn(6, 4))
        assert "autoRoundNumIPUs(True)" not in str(caught.value)

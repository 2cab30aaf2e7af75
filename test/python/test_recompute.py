"""Pipelined training with recomputation (``Options._Popart.set("autoRecomputation", 3)``,
PopART's RecomputationType.Pipeline) and ``poptorch.recomputationCheckpoint``: a
backward stage recomputes its forward activations instead of stashing them, the stash
shrinks to the stage inputs and the checkpoints, and the weights still match eager
PyTorch."""

from __future__ import annotations

import copy
import logging

import pytest
import torch
import torch.nn as nn
from helpers import EXACT, FP32
from helpers.checks import assert_named_close, assert_parameters_close, eager_accumulated_step
from helpers.models import execution_strategy

import poptorch
from poptorch import _logging

MICRO_BATCH, FEATURES, HIDDEN = 4, 8, 16
ACCUMULATION = 3  # G >= 2p - 1 for p = 2 stages


class TwoStages(nn.Module):
    """Stage 0 on IPU 0: two Linear+ReLU; stage 1 on IPU 1: the head and the loss."""

    def __init__(self, checkpoint: bool = False) -> None:
        super().__init__()
        self.checkpoint = checkpoint
        self.fc1 = nn.Linear(FEATURES, HIDDEN)
        self.fc2 = nn.Linear(HIDDEN, HIDDEN)
        self.head = nn.Linear(HIDDEN, 3)
        self.loss = nn.CrossEntropyLoss()
        poptorch.BeginBlock(self.head, "head", ipu_id=1)

    def forward(self, x: torch.Tensor, target: torch.Tensor):  # noqa: ANN201
        h = torch.relu(self.fc1(x))
        if self.checkpoint:
            h = poptorch.recomputationCheckpoint(h)
        h = torch.relu(self.fc2(h))
        out = self.head(h)
        return out, self.loss(out, target)


def _train(recompute: bool, checkpoint: bool = False, steps: int = 2) -> tuple[poptorch.PoplarExecutor, TwoStages]:
    torch.manual_seed(0)
    model = TwoStages(checkpoint)
    reference = copy.deepcopy(model)
    options = poptorch.Options()
    options.Training.gradientAccumulation(ACCUMULATION)
    if recompute:
        options._Popart.set("autoRecomputation", 3)
    training = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
    eager = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(MICRO_BATCH * ACCUMULATION, FEATURES)
    y = torch.randint(0, 3, (MICRO_BATCH * ACCUMULATION,))
    for _ in range(steps):
        training(x, y)
        eager_accumulated_step(reference, eager, MICRO_BATCH, x, y)
    assert_parameters_close(model, reference)
    return training, model


def _stage_ops(training: poptorch.PoplarExecutor, op: str, stage: int) -> int:
    return sum(1 for line in training._compiled.ir_text().splitlines()
               if f'"{op}"' in line and f"pipeline.stage = {stage} : i64" in line)


def _matmuls(training: poptorch.PoplarExecutor, stage: int) -> int:
    """Matrix products of a stage: a linear layer's (poplin_linear, from poplar-fuse-linear) and the others."""
    return _stage_ops(training, "poplar.poplin_matmul", stage) + _stage_ops(training, "poplar.poplin_linear", stage)


def test_stash_holds_every_activation_the_backward_stage_reads() -> None:
    training, _ = _train(recompute=False)
    stash = training._compiled.memory_per_ipu()[0]["stash"]
    # Stage 2 (the backward of stage 0, on IPU 0) runs two micro-batches after stage 0:
    # the input and fc1/fc2's activations wait in the stash at depth 2.
    input_bytes, hidden_bytes = MICRO_BATCH * FEATURES * 4, MICRO_BATCH * HIDDEN * 4
    assert stash >= 2 * (input_bytes + 2 * hidden_bytes)
    assert _stage_ops(training, "pipeline.stash", 0) >= 3
    assert _stage_ops(training, "pipeline.restore", 2) == _stage_ops(training, "pipeline.stash", 0)
    assert _matmuls(training, 2) == 3  # the weight and input gradients only


def test_recomputation_stashes_only_the_stage_input_and_matches_eager() -> None:
    plain, _ = _train(recompute=False)
    training, _ = _train(recompute=True)
    memory = training._compiled.memory_per_ipu()
    # Only x, the input of stage 0, is stashed; fc1 and fc2 run again in stage 2.
    assert memory[0]["stash"] == 2 * MICRO_BATCH * FEATURES * 4
    assert memory[1]["stash"] == 0
    assert memory[0]["stash"] < plain._compiled.memory_per_ipu()[0]["stash"]
    assert _stage_ops(training, "pipeline.stash", 0) == 1
    assert _matmuls(training, 2) == _matmuls(plain, 2) + 2
    # The pipeline still overlaps: every (stage, micro-batch) ran once.
    trace = training._compiled.program.last_trace
    assert sorted((stage, mb) for _, _, stage, mb, _, _ in trace) == [
        (stage, mb) for stage in range(3) for mb in range(ACCUMULATION)]


def test_checkpoint_is_stashed_and_recomputation_starts_from_it() -> None:
    training, _ = _train(recompute=True, checkpoint=True)
    # x and the checkpointed relu(fc1(x)) are stashed; only fc2 is recomputed.
    assert training._compiled.memory_per_ipu()[0]["stash"] == 2 * MICRO_BATCH * (FEATURES + HIDDEN) * 4
    assert _stage_ops(training, "pipeline.stash", 0) == 2
    plain, _ = _train(recompute=False, checkpoint=True)
    assert _matmuls(training, 2) == _matmuls(plain, 2) + 1


def test_checkpoint_without_recomputation_changes_nothing() -> None:
    with_checkpoint, model = _train(recompute=False, checkpoint=True)
    without, _ = _train(recompute=False)
    assert with_checkpoint._compiled.memory_per_ipu() == without._compiled.memory_per_ipu()
    # Outside a pipeline the checkpoint is the identity.
    x = torch.randn(MICRO_BATCH, FEATURES)
    torch.testing.assert_close(poptorch.recomputationCheckpoint(x), x, **EXACT)


def test_recomputation_outside_pipelined_training_warns_once(caplog: pytest.LogCaptureFixture) -> None:
    _logging.reset_warn_once()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(FEATURES, 3))
    options = poptorch.Options()
    options._Popart.set("autoRecomputation", 3)
    inference = poptorch.inferenceModel(model, options)
    with caplog.at_level(logging.WARNING, logger="poptorch"):
        out = inference(torch.randn(2, FEATURES))
    assert out.shape == (2, 3)
    messages = [r.getMessage() for r in caplog.records if "autoRecomputation" in r.getMessage()]
    assert len(messages) == 1 and "only pipelined training" in messages[0]


@pytest.mark.parametrize(("value", "match"), [
    (1, "RecomputationType.Standard is not supported by the IPU Model; use 3"),
    (4, "RecomputationType.RecomputeAll is not supported"),
    (7, "expected a RecomputationType value"),
    (True, "expected a RecomputationType value"),
])
def test_unsupported_recomputation_types_are_rejected(value: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        poptorch.Options()._Popart.set("autoRecomputation", value)


def test_popart_options_copy_and_report(caplog: pytest.LogCaptureFixture) -> None:
    _logging.reset_warn_once()
    options = poptorch.Options()
    options._Popart.set("autoRecomputation", 3)
    with caplog.at_level(logging.WARNING, logger="poptorch"):
        options._Popart.set("enableOutlining", False)
    assert any("'enableOutlining'" in r.getMessage() and "no effect" in r.getMessage() for r in caplog.records)
    values = options.toDict()
    assert values["_Popart.autoRecomputation"] == 3 and values["_Popart.enableOutlining"] is False
    assert options.clone()._Popart.recompute_pipeline


class UpdatesBuffer(nn.Module):
    """Stage 0 updates a buffer and scales its activation by it; the backward stage needs
    that activation, so it must see this micro-batch's buffer, not a later one's."""

    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = nn.Linear(4, 4), nn.Linear(4, 4)
        self.register_buffer("running", torch.ones(4))
        self.loss = nn.MSELoss()

    def forward(self, x: torch.Tensor, target: torch.Tensor):  # noqa: ANN201
        with poptorch.Block("s0", ipu_id=0):
            self.running.mul_(0.5).add_(x.mean(0).detach())
            h = self.a(x) * self.running
        with poptorch.Block("s1", ipu_id=1):
            return self.loss(self.b(h), target)


def test_recomputation_stashes_values_computed_from_updated_state() -> None:
    x = torch.arange(12.0).reshape(12, 1).repeat(1, 4)
    states = {}
    for kind in ("sharded", "pipelined"):
        torch.manual_seed(0)
        model = UpdatesBuffer()
        options = poptorch.Options()
        options.Training.gradientAccumulation(ACCUMULATION)
        options._Popart.set("autoRecomputation", 3)
        stages = [poptorch.Stage("s0").ipu(0), poptorch.Stage("s1").ipu(1)]
        options.setExecutionStrategy(execution_strategy(kind, stages))
        training = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1))
        training(x, torch.zeros(12, 4))
        states[kind] = {k: v.detach().clone() for k, v in model.state_dict().items()}
    assert_named_close(states["pipelined"], states["sharded"])


class Chain(nn.Module):
    """Linear+ReLU blocks b0, b1, ... on the given IPUs; the last one takes the loss."""

    def __init__(self, ipus: tuple[int, ...]) -> None:
        super().__init__()
        self.ipus = ipus
        self.layers = nn.ModuleList(nn.Linear(8, 8) for _ in ipus)
        self.loss = nn.CrossEntropyLoss()

    def forward(self, x: torch.Tensor, target: torch.Tensor):  # noqa: ANN201
        for index, ipu in enumerate(self.ipus):
            with poptorch.Block(f"b{index}", ipu_id=ipu):
                x = torch.relu(self.layers[index](x))
                if index == len(self.ipus) - 1:
                    return x, self.loss(x, target)
        raise AssertionError("unreachable")


@pytest.mark.parametrize("ipus", [(0, 1, 2, 3), (0, 0, 1)])
def test_recomputation_over_more_stages_matches_sharded(ipus: tuple[int, ...]) -> None:
    """Four IPUs: a backward stage recomputes from a value received from another IPU
    (received once, not twice). IPUs (0, 0, 1): stage 1 reads stage 0's output from a
    stash, and its recomputation in stage 3 restores that value again."""
    stages = len(ipus)
    accumulation = 2 * stages - 1
    x, y = torch.randn(4 * accumulation, 8), torch.randint(0, 8, (4 * accumulation,))
    results = {}
    for kind in ("sharded", "pipelined"):
        torch.manual_seed(0)
        model = Chain(ipus)
        options = poptorch.Options()
        options.Training.gradientAccumulation(accumulation)
        options._Popart.set("autoRecomputation", 3)
        blocks = [poptorch.Stage(f"b{i}").ipu(ipu) for i, ipu in enumerate(ipus)]
        options.setExecutionStrategy(execution_strategy(kind, blocks))
        training = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1))
        losses = [training(x, y)[1].clone() for _ in range(2)]
        results[kind] = (losses, {k: v.detach().clone() for k, v in model.state_dict().items()})
        if kind == "pipelined":
            assert training._compiled.ir_text().count('"pipeline.recv"') == training._compiled.ir_text().count('"pipeline.send"')
    for a, b in zip(results["sharded"][0], results["pipelined"][0], strict=True):
        torch.testing.assert_close(a, b, **FP32)
    assert_named_close(results["pipelined"][1], results["sharded"][1])

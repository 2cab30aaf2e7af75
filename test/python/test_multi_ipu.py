"""Models split over 2 and 4 emulated IPUs (SEMANTICS "Multi-IPU execution"): results
match the same model on one IPU and eager PyTorch, with each annotation style of the
seed examples; each IPU holds its own weights and the memory report is per IPU."""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn as nn
from helpers import EXACT, FP32
from helpers.checks import (
    assert_named_close,
    assert_parameters_close,
    eager_accumulated_step,
    eager_per_micro_batch,
)
from helpers.models import LayersOverIpus, execution_strategy

import poptorch


@pytest.mark.parametrize("style", ["begin_block", "block", "block_function"])
@pytest.mark.parametrize("ipus", [2, 4])
@pytest.mark.parametrize("kind", ["sharded", "pipelined"])
def test_inference_over_ipus_matches_one_ipu_and_eager(style: str, ipus: int, kind: str) -> None:
    torch.manual_seed(0)
    model = LayersOverIpus(style, ipus).eval()
    x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
    options = poptorch.Options().deviceIterations(4)
    options.setExecutionStrategy(LayersOverIpus.strategy(kind, ipus))
    wrapper = poptorch.inferenceModel(model, options)
    out, loss = wrapper(x, y)
    expected = torch.cat([logits for logits, _ in eager_per_micro_batch(model, 4, x, y)])
    torch.testing.assert_close(out, expected, **FP32)
    memory = wrapper._compiled.memory_per_ipu()
    assert sorted(memory) == list(range(ipus))  # every IPU holds part of the model
    weights_per_ipu = (8 * 8 + 8) * 4 * (4 // ipus)
    assert all(memory[ipu]["variables"] >= weights_per_ipu for ipu in range(ipus))


@pytest.mark.parametrize("style", ["begin_block", "block"])
@pytest.mark.parametrize("ipus", [2, 4])
def test_pipelined_training_over_ipus_matches_eager(style: str, ipus: int) -> None:
    torch.manual_seed(1)
    model = LayersOverIpus(style, ipus)
    reference = copy.deepcopy(model)
    stages = ipus  # one forward stage per IPU: G >= 2p - 1
    accumulation = 2 * stages - 1
    options = poptorch.Options()
    options.Training.gradientAccumulation(accumulation)
    training = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1))
    eager = torch.optim.SGD(reference.parameters(), lr=0.1)
    x, y = torch.randn(4 * accumulation, 8), torch.randint(0, 3, (4 * accumulation,))
    for _ in range(2):
        training(x, y)
        eager_accumulated_step(reference, eager, 4, x, y)
    assert_parameters_close(model, reference)
    memory = training._compiled.memory_per_ipu()
    assert sorted(memory) == list(range(ipus))
    # Forward activations wait for their backward stage: every IPU but the last (whose
    # forward and backward are one stage) stashes them for the micro-batches in flight.
    assert all(memory[ipu]["stash"] > 0 for ipu in range(ipus - 1)) and memory[ipus - 1]["stash"] == 0
    # The micro-batches really went through the pipeline: 2p - 1 stages each, stage s
    # of micro-batch j at step j + s.
    trace = training._compiled.program.last_trace
    assert sorted((stage, mb) for _, _, stage, mb, _, _ in trace) == [
        (stage, mb) for stage in range(2 * stages - 1) for mb in range(accumulation)]
    assert all(step == mb + stage for step, _, stage, mb, _, _ in trace)
    training.destroy()


def test_stage_ids_from_fstrings_and_inter_ipu_copies() -> None:
    torch.manual_seed(2)
    model = LayersOverIpus("block", 2).eval()
    options = poptorch.Options().deviceIterations(2)
    options.setExecutionStrategy(LayersOverIpus.strategy("sharded", 2))
    wrapper = poptorch.inferenceModel(model, options)
    wrapper(torch.randn(4, 8), torch.randint(0, 3, (4,)))
    text = wrapper._compiled.ir_text()
    assert "exchange." in text  # the activation crosses from IPU 0 to IPU 1 by an explicit copy
    assert "num_ipus = 2" in text


def test_pipelined_training_needs_enough_accumulation() -> None:
    model = LayersOverIpus("block", 2)
    options = poptorch.Options()
    options.Training.gradientAccumulation(2)  # 2 stages need G >= 3
    with pytest.raises(RuntimeError, match=r"pipelined training over 2 stages needs gradientAccumulation >= 2 x 2 - 1 = 3, got 2"):
        poptorch.trainingModel(model, options)(torch.randn(8, 8), torch.randint(0, 3, (8,)))


def test_pipelined_inference_needs_enough_device_iterations() -> None:
    model = LayersOverIpus("block", 4).eval()
    with pytest.raises(RuntimeError, match=r"pipelined inference over 4 stages needs deviceIterations >= 4, got 2"):
        poptorch.inferenceModel(model, poptorch.Options().deviceIterations(2))(torch.randn(8, 8), torch.randint(0, 3, (8,)))


def test_non_power_of_two_ipus_and_auto_round() -> None:
    class Three(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a, self.b, self.c = nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for index, layer in enumerate((self.a, self.b, self.c)):
                with poptorch.Block(f"l{index}", ipu_id=index):
                    x = layer(x)
            return x

    options = poptorch.Options().deviceIterations(4)
    options.setExecutionStrategy(poptorch.ShardedExecution(poptorch.AutoStage.SameAsIpu))
    with pytest.raises(RuntimeError, match=r"uses 3 IPUs .* not a power of 2; .*autoRoundNumIPUs\(True\)"):
        poptorch.inferenceModel(Three().eval(), options)(torch.randn(4, 4))
    options = poptorch.Options().deviceIterations(4).autoRoundNumIPUs(True)
    options.setExecutionStrategy(poptorch.ShardedExecution(poptorch.AutoStage.SameAsIpu))
    model = Three().eval()
    wrapper = poptorch.inferenceModel(model, options)
    x = torch.randn(4, 4)
    torch.testing.assert_close(wrapper(x), model(x), **FP32)
    assert "num_ipus = 4" in wrapper._compiled.ir_text()  # rounded up; IPU 3 idle


@pytest.mark.parametrize("mode", ["All", "Final", "Sum", "EveryN"])
def test_pipelined_output_modes_match_sharded(mode: str) -> None:
    torch.manual_seed(4)
    model = LayersOverIpus("block", 2).eval()
    x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
    results = {}
    for kind in ("pipelined", "sharded"):
        options = poptorch.Options().deviceIterations(8)
        options.outputMode(getattr(poptorch.OutputMode, mode), **({"output_return_period": 2} if mode == "EveryN" else {}))
        options.setExecutionStrategy(LayersOverIpus.strategy(kind, 2))
        wrapper = poptorch.inferenceModel(model, options)
        results[kind] = wrapper(x, y)
        if kind == "pipelined" and mode != "EveryN":  # EveryN's loop runs micro-batch by micro-batch
            assert len(wrapper._compiled.program.last_trace) == 4 * 8
    for pipelined, sharded in zip(results["pipelined"], results["sharded"], strict=True):
        torch.testing.assert_close(pipelined, sharded, **FP32)


class _ReturnsEarlyValues(nn.Module):
    """Returns an activation of stage 0 and an input only stage 1 reads."""

    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = nn.Linear(8, 8), nn.Linear(8, 8)

    def forward(self, x: torch.Tensor, y: torch.Tensor):  # noqa: ANN201
        with poptorch.Block("s0", ipu_id=0):
            h = torch.relu(self.a(x))
        with poptorch.Block("s1", ipu_id=1):
            return self.b(h) * y, h, y


@pytest.mark.parametrize("kind", ["sharded", "pipelined"])
def test_outputs_from_early_stages_and_inputs_match_eager(kind: str) -> None:
    torch.manual_seed(5)
    model = _ReturnsEarlyValues().eval()
    x, y = torch.randn(16, 8), torch.randn(16, 8)
    options = poptorch.Options().deviceIterations(4)
    stages = [poptorch.Stage("s0").ipu(0), poptorch.Stage("s1").ipu(1)]
    options.setExecutionStrategy(execution_strategy(kind, stages))
    outputs = poptorch.inferenceModel(model, options)(x, y)
    with torch.no_grad():
        for got, expected in zip(outputs, model(x, y), strict=True):
            torch.testing.assert_close(got, expected, **FP32)


class _Buffered(nn.Module):
    def __init__(self, update_in_first: bool) -> None:
        super().__init__()
        self.update_in_first = update_in_first
        self.a, self.b = nn.Linear(8, 8), nn.Linear(8, 8)
        self.register_buffer("running", torch.zeros(8))
        self.loss = nn.MSELoss()

    def forward(self, x: torch.Tensor, t: torch.Tensor):  # noqa: ANN201
        with poptorch.Block("s0", ipu_id=0):
            h = torch.relu(self.a(x))
            if self.update_in_first:
                self.running += x.sum(0).detach()
            else:
                h = h + self.running
        with poptorch.Block("s1", ipu_id=1):
            out = self.b(h)
            if self.update_in_first:
                out = out + self.running  # the new value, read by the next stage
            else:
                self.running.mul_(0.9).add_(out.mean(0).detach() * 0.1)
            return self.loss(out, t)


def _train_buffered(kind: str, update_in_first: bool) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    torch.manual_seed(6)
    model = _Buffered(update_in_first)
    options = poptorch.Options()
    options.Training.gradientAccumulation(3)
    stages = [poptorch.Stage("s0").ipu(0), poptorch.Stage("s1").ipu(1)]
    options.setExecutionStrategy(execution_strategy(kind, stages))
    training = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1))
    torch.manual_seed(7)
    loss = training(torch.randn(12, 8), torch.randn(12, 8))
    state = {name: value.detach().clone() for name, value in model.state_dict().items()}
    training.destroy()
    return loss, state


def test_pipelined_buffer_updated_in_a_stage_and_read_by_the_next() -> None:
    loss, state = _train_buffered("pipelined", update_in_first=True)
    expected_loss, expected_state = _train_buffered("sharded", update_in_first=True)
    torch.testing.assert_close(loss, expected_loss, **FP32)
    assert_named_close(state, expected_state)


def test_pipelined_buffer_read_before_the_stage_that_updates_it_is_an_error() -> None:
    with pytest.raises(RuntimeError, match=r"'running' is updated in pipeline stage 1 and used in stage\(s\) 0: .*"
                                           r"keep the layers that read and update it in one poptorch.Block, or use "
                                           r"poptorch.ShardedExecution"):
        _train_buffered("pipelined", update_in_first=False)
    _train_buffered("sharded", update_in_first=False)  # runs in order: no conflict


class DropoutStages(nn.Module):
    """Dropout in both stages of a 2-IPU model."""

    def __init__(self) -> None:
        super().__init__()
        self.front, self.back = nn.Linear(8, 16), nn.Linear(16, 3)
        self.drop_front, self.drop_back = nn.Dropout(0.3), nn.Dropout(0.2)
        self.loss = nn.CrossEntropyLoss()
        poptorch.BeginBlock(self.front, "front", ipu_id=0)
        poptorch.BeginBlock(self.back, "back", ipu_id=1)

    def forward(self, x: torch.Tensor, target: torch.Tensor):  # noqa: ANN201
        h = self.drop_front(torch.relu(self.front(x)))
        out = self.back(self.drop_back(h))
        return out, self.loss(out, target)


def test_pipelined_dropout_overlaps_and_draws_the_sharded_masks() -> None:
    """Each micro-batch's masks come from the seed and the micro-batch's number, not the
    order the stages run in: a pipeline overlaps its stages and trains exactly as the
    same model run sharded, one micro-batch at a time."""
    x, y = torch.randn(20, 8), torch.randint(0, 3, (20,))
    weights, losses = {}, {}
    for kind in ("sharded", "pipelined"):
        torch.manual_seed(0)
        model = DropoutStages()
        options = poptorch.Options().randomSeed(5)
        options.Training.gradientAccumulation(5)
        stages = [poptorch.Stage("front").ipu(0), poptorch.Stage("back").ipu(1)]
        options.setExecutionStrategy(execution_strategy(kind, stages))
        training = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1))
        losses[kind] = [training(x, y)[1].clone() for _ in range(2)]
        weights[kind] = {k: v.detach().clone() for k, v in model.state_dict().items()}
        if kind == "pipelined":
            assert training._compiled.program.sequential_reason is None
            assert "one micro-batch at a time" not in training.schedule()
            trace = training._compiled.program.last_trace
            assert sorted((stage, mb) for _, _, stage, mb, _, _ in trace) == [(s, m) for s in range(3) for m in range(5)]
    for a, b in zip(losses["sharded"], losses["pipelined"], strict=True):
        torch.testing.assert_close(a, b, **EXACT)
    assert not torch.equal(losses["pipelined"][0], losses["pipelined"][1])  # fresh masks each call
    assert_named_close(weights["pipelined"], weights["sharded"], EXACT)


def test_pipelined_every_n_records_the_device_iterations_on_the_schedule() -> None:
    """EveryN splits the device loop around the step; the schedule still says D = 8."""
    torch.manual_seed(0)
    model = LayersOverIpus("begin_block", 4).eval()
    options = poptorch.Options().deviceIterations(8)
    options.outputMode(poptorch.OutputMode.EveryN, output_return_period=4)
    options.setExecutionStrategy(LayersOverIpus.strategy("pipelined", 4))
    inference = poptorch.inferenceModel(model, options)
    x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
    out, _ = inference(x, y)
    micro_batches = eager_per_micro_batch(model, 4, x, y)
    expected = torch.cat([micro_batches[i][0] for i in (3, 7)])
    torch.testing.assert_close(out, expected, **FP32)
    assert "device_iterations = 8 : i64, gradient_accumulation = 1 : i64, kind = \"pipelined\"" in inference._compiled.ir_text()


class SkipOverAnIpu(nn.Module):
    """A residual connection from the block on IPU 0 to the block on IPU 2: the gradient
    of ``a`` sums one part from IPU 2's backward and one from IPU 1's."""

    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(8, 8) for _ in range(4))
        self.loss = nn.CrossEntropyLoss()

    def forward(self, x: torch.Tensor, target: torch.Tensor):  # noqa: ANN201
        with poptorch.Block("b0", ipu_id=0):
            a = torch.relu(self.layers[0](x))
        with poptorch.Block("b1", ipu_id=1):
            b = torch.relu(self.layers[1](a))
        with poptorch.Block("b2", ipu_id=2):
            c = torch.relu(self.layers[2](b)) + a
        with poptorch.Block("b3", ipu_id=3):
            out = self.layers[3](c)
            return out, self.loss(out, target)


def test_pipelined_training_with_a_skip_connection_across_ipus_matches_eager() -> None:
    torch.manual_seed(0)
    model = SkipOverAnIpu()
    reference = copy.deepcopy(model)
    options = poptorch.Options()
    options.Training.gradientAccumulation(7)
    training = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1))
    eager = torch.optim.SGD(reference.parameters(), lr=0.1)
    x, y = torch.randn(28, 8), torch.randint(0, 8, (28,))
    for _ in range(2):
        training(x, y)
        eager_accumulated_step(reference, eager, 4, x, y)
    assert_parameters_close(model, reference)
    assert training._compiled.schedule().kind == "pipelined"

"""Phased execution (SerialPhasedExecution / ParallelPhasedExecution) on the IPU Model:
training over 2 and 4 emulated IPUs matches eager PyTorch with every Liveness mode and with
a separate backward phase; off-chip liveness lowers the peak memory of each IPU; and the
errors of SEMANTICS "Phased execution" name the phase and the fix."""

from __future__ import annotations

import copy
import re

import pytest
import torch
from torch import nn

import poptorch
from helpers import FP32
from helpers.checks import assert_parameters_close, eager_accumulated_step

LIVENESS = [poptorch.Liveness.AlwaysLive, poptorch.Liveness.OffChipAfterFwd,
            poptorch.Liveness.OffChipAfterFwdNoOverlap, poptorch.Liveness.OffChipAfterEachPhase]


class Chain(nn.Module):
    """``n`` Linear(8, 8) + ReLU blocks "b0".."b{n-1}"; the last also holds a head and the loss."""

    def __init__(self, n: int, ipu_ids: list[int] | None = None) -> None:
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(8, 8) for _ in range(n))
        self.head = nn.Linear(8, 3)
        self.loss = nn.CrossEntropyLoss()
        self.ipu_ids = ipu_ids

    def forward(self, x: torch.Tensor, target: torch.Tensor):  # noqa: ANN201
        count = len(self.layers)
        for index, layer in enumerate(self.layers):
            ipu = None if self.ipu_ids is None else self.ipu_ids[index]
            with poptorch.Block(f"b{index}", ipu_id=ipu):
                x = torch.relu(layer(x))
                if index == count - 1:
                    out = self.head(x)
                    return out, self.loss(out, target)
        raise AssertionError("unreachable")


def _strategy(kind: str, ipus: int) -> tuple[int, poptorch.ExecutionStrategy]:
    """(blocks, strategy): serial phases of ``ipus`` stages each on IPUs 0..ipus-1; parallel
    phases alternating between the even and the odd IPUs (ipus / 2 stages each)."""
    if kind == "serial":
        blocks = 2 * ipus
        strategy = poptorch.SerialPhasedExecution(*[
            poptorch.Phase(*[poptorch.Stage(f"b{p * ipus + s}") for s in range(ipus)]) for p in range(2)])
        for phase in range(2):
            strategy.phase(phase).ipus(*range(ipus))
        return blocks, strategy
    per_phase = ipus // 2
    blocks = 4 * per_phase
    strategy = poptorch.ParallelPhasedExecution(*[
        poptorch.Phase(*[poptorch.Stage(f"b{p * per_phase + s}") for s in range(per_phase)]) for p in range(4)])
    for phase in range(4):
        strategy.phase(phase).ipus(*range(phase % 2, ipus, 2))
    return blocks, strategy


def _train(kind: str, ipus: int, liveness: poptorch.Liveness, separate: bool = False, batch: int = 4):
    torch.manual_seed(0)
    blocks, strategy = _strategy(kind, ipus)
    strategy.setTensorsLiveness(liveness)
    if separate:
        strategy.useSeparateBackwardPhase(True)
    model = Chain(blocks)
    reference = copy.deepcopy(model)
    options = poptorch.Options()
    options.setExecutionStrategy(strategy)
    training = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1))
    eager = torch.optim.SGD(reference.parameters(), lr=0.1)
    x, y = torch.randn(batch, 8), torch.randint(0, 3, (batch,))
    for _ in range(2):
        out, loss = training(x, y)
        losses, outputs = eager_accumulated_step(reference, eager, batch, x, y)
        torch.testing.assert_close(loss, losses[0], **FP32)
        torch.testing.assert_close(out, outputs[0], **FP32)
    assert_parameters_close(model, reference)
    return training


def _step_text(training) -> str:  # noqa: ANN001
    text = str(training._compiled.module)
    return text[text.index('"poplar.function"'):]


@pytest.mark.parametrize("liveness", LIVENESS, ids=lambda live: live.name)
@pytest.mark.parametrize("kind,ipus", [("serial", 2), ("serial", 4), ("parallel", 2), ("parallel", 4)])
def test_phased_training_matches_eager(kind: str, ipus: int, liveness: poptorch.Liveness) -> None:
    training = _train(kind, ipus, liveness)
    assert sorted(training._compiled.memory_per_ipu()) == list(range(ipus))
    step = _step_text(training)
    moves = step.count('"pipeline.remote_store"'), step.count('"pipeline.remote_load"')
    if liveness == poptorch.Liveness.AlwaysLive:
        assert moves == (0, 0)
    else:  # tensors crossing phase boundaries really went through streaming memory
        assert moves[0] > 0 and moves[1] >= moves[0]
    training.destroy()


@pytest.mark.parametrize("kind,ipus", [("serial", 2), ("parallel", 4)])
def test_separate_backward_phase_matches_eager(kind: str, ipus: int) -> None:
    training = _train(kind, ipus, poptorch.Liveness.OffChipAfterEachPhase, separate=True)
    # Forward phases 0, 1 (serial) / 0..3 (parallel) run backward in phases 2N - k: none shared.
    phases = re.search(r'#pipeline.phases<"off_chip_after_each_phase", (\d+) : i64, array<i64: ([\d, ]+)>>',
                       str(training._compiled.module))
    assert phases is not None
    forward = int(phases.group(1))
    stage_phases = [int(p) for p in phases.group(2).split(", ")]
    half = len(stage_phases) // 2
    assert [2 * forward - p for p in reversed(stage_phases[:half])] == stage_phases[half:]
    assert not set(stage_phases[:half]) & set(stage_phases[half:])
    training.destroy()


def test_shared_backward_phase_numbering() -> None:
    """SEMANTICS: forward phases 0, 1, 2 run backward as 4, 3, 2 (the last one shared)."""
    strategy = poptorch.SerialPhasedExecution(["b0"], ["b1"], ["b2"])
    assert [strategy.backward_phase_id(p) for p in range(3)] == [4, 3, 2]
    strategy.useSeparateBackwardPhase(True)
    assert [strategy.backward_phase_id(p) for p in range(3)] == [6, 5, 4]


@pytest.mark.parametrize("kind,ipus", [("serial", 2), ("parallel", 2)])
def test_off_chip_liveness_lowers_the_peak_per_ipu(kind: str, ipus: int) -> None:
    peaks = {}
    for liveness in (poptorch.Liveness.AlwaysLive, poptorch.Liveness.OffChipAfterEachPhase):
        training = _train(kind, ipus, liveness, batch=256)  # activations outweigh the weights
        peaks[liveness] = training._compiled.memory_per_ipu()
        training.destroy()
    live, off_chip = peaks[poptorch.Liveness.AlwaysLive], peaks[poptorch.Liveness.OffChipAfterEachPhase]
    for ipu in range(ipus):
        assert off_chip[ipu]["total"] < live[ipu]["total"], (ipu, live, off_chip)
        assert off_chip[ipu]["variables"] == live[ipu]["variables"]  # only activations moved
        # ... into the IPU's streaming memory, which AlwaysLive does not use
        assert off_chip[ipu]["streaming"] > 0 and live[ipu].get("streaming", 0) == 0


# -- errors ------------------------------------------------------------------------------


def _compile(model: nn.Module, strategy: poptorch.ExecutionStrategy) -> None:
    options = poptorch.Options()
    options.setExecutionStrategy(strategy)
    poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1))(
        torch.randn(4, 8), torch.randint(0, 3, (4,)))


def test_parallel_phase_on_the_wrong_ipu_parity() -> None:
    strategy = poptorch.ParallelPhasedExecution(["b0"], ["b1"])
    with pytest.raises(ValueError, match=r"ParallelPhasedExecution: Stage\('b1'\).ipu\(0\) is in phase 1 but on IPU 0\. .*odd "
                                         r"phases must run on odd IPUs\. Move the stage to an odd IPU"):
        strategy.phase(1).ipus(0)
    # The IPUs given by the blocks: the compiler checks the parity.
    with pytest.raises(RuntimeError, match=r"ParallelPhasedExecution: phase 1 is odd but runs stages on IPU\(s\) \[2\]; "
                                           r".*give phase 1 odd IPUs with strategy.phase\(1\).ipus\(...\), or use "
                                           r"SerialPhasedExecution"):
        _compile(Chain(2, ipu_ids=[0, 2]), poptorch.ParallelPhasedExecution(["b0"], ["b1"]))


def test_stages_that_do_not_match_the_phase_ipus() -> None:
    strategy = poptorch.SerialPhasedExecution(["b0"], ["b1"])
    strategy.phase(0).ipus(0)
    with pytest.raises(ValueError, match=r"SerialPhasedExecution: phase 1 runs on IPUs \[1\] but phase 0 runs on IPUs "
                                         r"\[0\]\. .*give every phase the same IPUs"):
        strategy.phase(1).ipus(1)
    with pytest.raises(RuntimeError, match=r"SerialPhasedExecution: phase 1 runs on IPUs \[1\] but phase 0 on IPUs \[0\]; "
                                           r"serial phases all run on one group of IPUs: give phase 1 the same IPUs with "
                                           r"strategy.phase\(1\).ipus\(...\)"):
        _compile(Chain(2, ipu_ids=[0, 1]), poptorch.SerialPhasedExecution(["b0"], ["b1"]))
    two_on_one = poptorch.SerialPhasedExecution(poptorch.Phase(poptorch.Stage("b0"), poptorch.Stage("b1")))
    with pytest.raises(RuntimeError, match=r"SerialPhasedExecution: phase 0 puts its stages \[\['b0'\], \['b1'\]\] on "
                                           r"IPUs \[0, 0\], but the stages of a phase run in parallel, each on its own "
                                           r"IPU: give them different IPUs with strategy.phase\(0\).ipus\(...\)"):
        _compile(Chain(2, ipu_ids=[0, 0]), two_on_one)


def test_phase_ipus_with_the_wrong_count_names_the_phase() -> None:
    strategy = poptorch.ParallelPhasedExecution(["b0"], poptorch.Phase(poptorch.Stage("b1"), poptorch.Stage("b2")))
    with pytest.raises(ValueError, match=re.escape(
            "Phase.ipus(1): phase 1 of the ParallelPhasedExecution has 2 stage(s) (Stage('b1'), Stage('b2')) but 1 "
            "IPU(s) were given. Pass exactly one IPU per stage.")):
        strategy.phase(1).ipus(1)
    with pytest.raises(ValueError, match=re.escape(  # a phase of no strategy yet
            "Phase.ipus(0, 2): this phase has 1 stage(s) (Stage('b0')) but 2 IPU(s) were given.")):
        poptorch.Phase("b0").ipus(0, 2)


def test_unknown_block() -> None:
    strategy = poptorch.SerialPhasedExecution(["b0"], ["nope"])
    for phase in range(2):
        strategy.phase(phase).ipus(0)
    with pytest.raises(RuntimeError, match=r"SerialPhasedExecution: phase 1 names block 'nope', which the model does "
                                           r"not have \(its blocks: 'b0', 'b1'\); use the user_id of a poptorch.Block"):
        _compile(Chain(2), strategy)


def test_phases_out_of_execution_order() -> None:
    strategy = poptorch.SerialPhasedExecution(["b1"], ["b0"])
    for phase in range(2):
        strategy.phase(phase).ipus(0)
    with pytest.raises(RuntimeError, match=r"SerialPhasedExecution: block 'b1' of phase 0 runs after block 'b0' of "
                                           r"phase 1; phases run in order"):
        _compile(Chain(2), strategy)


def test_phased_training_with_replicas_and_accumulation() -> None:
    torch.manual_seed(0)
    model = Chain(2)
    reference = copy.deepcopy(model)
    strategy = poptorch.ParallelPhasedExecution(["b0"], ["b1"])
    strategy.phase(0).ipus(0)
    strategy.phase(1).ipus(1)
    strategy.setTensorsLiveness(poptorch.Liveness.OffChipAfterFwd)
    options = poptorch.Options().replicationFactor(2)
    options.Training.gradientAccumulation(2)
    options.setExecutionStrategy(strategy)
    training = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1))
    x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
    training(x, y)  # 2 replicas x 2 micro-batches of 4
    eager_accumulated_step(reference, torch.optim.SGD(reference.parameters(), lr=0.1), 4, x, y)
    assert_parameters_close(model, reference)
    training.destroy()


def test_phased_inference_matches_eager() -> None:
    torch.manual_seed(0)
    model = Chain(2).eval()
    strategy = poptorch.SerialPhasedExecution(["b0"], ["b1"])
    for phase in range(2):
        strategy.phase(phase).ipus(0)
    strategy.setTensorsLiveness(poptorch.Liveness.OffChipAfterEachPhase)
    options = poptorch.Options()
    options.setExecutionStrategy(strategy)
    inference = poptorch.inferenceModel(model, options)
    x, y = torch.randn(4, 8), torch.randint(0, 3, (4,))
    out, loss = inference(x, y)
    expected_out, expected_loss = model(x, y)
    torch.testing.assert_close(out, expected_out, **FP32)
    torch.testing.assert_close(loss, expected_loss, **FP32)
    assert '"pipeline.remote_load"' in _step_text(inference)


def test_schedule_picture_shows_phases_in_parallel_and_their_remote_copies() -> None:
    """One row per phase: the stages of a phase side by side on their IPUs (serial phases over
    2 IPUs: forward phases 0, 1, the shared backward phase 1 and backward phase 2), and the
    phase-boundary moves counted as the step's loads and stores of each IPU."""
    training = _train("serial", 2, poptorch.Liveness.OffChipAfterEachPhase)
    summary = training._compiled.schedule()
    text = summary.text()
    assert "phased_serial schedule: 8 stages on 2 IPUs, 1 micro-batches, 3 steps" in text, text
    rows = [line.split() for line in text.splitlines()[1:5]]
    assert rows == [["step", "phase", "IPU0", "IPU1"],
                    ["0", "0", "F0:mb0", "F1:mb0"],
                    ["1", "1", "F2:mb0,", "B2:mb0", "F3:mb0,", "B3:mb0"],
                    ["2", "2", "B0:mb0", "B1:mb0"]], text
    step = _step_text(training)
    loads, stores = step.count('"pipeline.remote_load"'), step.count('"pipeline.remote_store"')
    assert sum(t.step_loads for t in summary.remote.values()) == loads > 0
    assert sum(t.step_stores for t in summary.remote.values()) == stores > 0
    assert "per step" in text and "<td" in summary.html()
    training.destroy()

"""Error catalogue, annotations: Block / BeginBlock / Stage / Phase mistakes and the
multi-IPU rules they break. IPU ids are tested at the per-process limit (63 / 64).

Issue 20: ``Block(..., ipu_id=2**40)`` made ipu-assign-stages count up one by one to the
next power of 2 (it never returned); it is now refused at once.
"""

from __future__ import annotations

import re

import pytest
import torch
from torch import nn

import poptorch


class TwoBlocks(nn.Module):
    def __init__(self, first_ipu: int, second_ipu: int) -> None:
        super().__init__()
        self.a, self.b = nn.Linear(4, 4), nn.Linear(4, 4)
        self.ipus = (first_ipu, second_ipu)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with poptorch.Block("a", ipu_id=self.ipus[0]):
            x = self.a(x)
        with poptorch.Block("b", ipu_id=self.ipus[1]):
            x = self.b(x)
        return x


def test_huge_ipu_id_is_refused_at_once(run_python) -> None:
    result = run_python("""
        import poptorch
        try:
            poptorch.Block("a", ipu_id=2**40)
        except ValueError as error:
            print(error)
    """)
    assert result.stdout.strip() == (
        "Block: ipu_id must be below 64 (one process drives at most 64 IPUs, numbered from 0), got 1099511627776. "
        "Use a smaller ipu_id, or distributed execution (several processes) for more IPUs.")


def test_ipu_id_64_is_one_past_the_last() -> None:
    with pytest.raises(ValueError, match=re.escape("Block: ipu_id must be below 64 (one process drives at most 64 "
                                                   "IPUs, numbered from 0), got 64.")):
        poptorch.Block("a", ipu_id=64)


def test_ipu_id_63_is_accepted() -> None:
    assert poptorch.Block("a", ipu_id=63).ipu_id == 63


def test_negative_ipu_id() -> None:
    with pytest.raises(ValueError, match=re.escape("Block: ipu_id must be >= 0 (IPUs are numbered from 0), got -1.")):
        poptorch.Block("a", ipu_id=-1)


def test_empty_block_name() -> None:
    with pytest.raises(ValueError, match=re.escape("Block: user_id must not be empty. Give the block a name")):
        poptorch.Block("", ipu_id=0)


def test_block_name_that_is_not_a_string() -> None:
    with pytest.raises(TypeError, match=re.escape(
            "Block: user_id must be a str (or None for an automatic id), got 3 of type int")):
        poptorch.Block(3, ipu_id=0)


def test_begin_block_on_something_that_is_not_a_module() -> None:
    with pytest.raises(TypeError, match=re.escape("BeginBlock: layer_to_call must be a torch.nn.Module, got int.")):
        poptorch.BeginBlock(3, "a", ipu_id=0)


def test_stage_on_ipu_64() -> None:
    with pytest.raises(ValueError, match=re.escape(
            "Stage.ipu(64): one process drives at most 64 IPUs (indices 0 to 63)")):
        poptorch.Stage("a").ipu(64)


def test_stage_without_blocks() -> None:
    with pytest.raises(ValueError, match=re.escape("Stage(): a stage needs at least one block id")):
        poptorch.Stage()


def test_block_in_two_stages() -> None:
    with pytest.raises(ValueError, match=re.escape(
            "PipelinedExecution: block 'a' is in stage 0 (Stage('a')) and again in stage 1 (Stage('a')). A block "
            "belongs to exactly one stage")):
        poptorch.PipelinedExecution(poptorch.Stage("a"), poptorch.Stage("a"))


def test_phase_with_more_ipus_than_stages() -> None:
    with pytest.raises(ValueError, match=re.escape(
            "Phase.ipus(1, 2): this phase has 1 stage(s) (Stage('a')) but 2 IPU(s) were given")):
        poptorch.Phase(poptorch.Stage("a")).ipus(1, 2)


def test_pipeline_stages_out_of_execution_order() -> None:
    with pytest.raises(RuntimeError, match=re.escape(
            "block 'b' is in stage 0 but runs after block 'a' of stage 1; in PipelinedExecution stages run in "
            "increasing order")):
        poptorch.inferenceModel(TwoBlocks(1, 0), poptorch.Options().deviceIterations(2))(torch.ones(4, 4))


def test_ipu_count_that_is_not_a_power_of_two() -> None:
    with pytest.raises(RuntimeError, match=re.escape(
            "the model uses 3 IPUs (3 per replica x 1 replicas), which is not a power of 2; use a power of 2, or "
            "Options().autoRoundNumIPUs(True)")):
        poptorch.inferenceModel(TwoBlocks(0, 2), poptorch.Options().deviceIterations(2))(torch.ones(4, 4))

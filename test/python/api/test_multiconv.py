"""poptorch.MultiConv (issue 15, item 2): the reference's example runs unchanged, its convolutions
are grouped in the IR with every plan option recorded, the cost model reads the plan, and results
are those of eager PyTorch."""

from __future__ import annotations

import re

import pytest
import torch
from helpers import FP32
from torch import nn

import poptorch


class TwoConvs(nn.Module):
    """The reference's example: two data-independent convolutions in one MultiConv."""

    def __init__(self, multi_conv: poptorch.MultiConv | None = None) -> None:
        super().__init__()
        self.convA = nn.Conv2d(3, 8, 3, padding=1)
        self.convB = nn.Conv2d(4, 8, 3)
        self.multi_conv = multi_conv

    def forward(self, x: torch.Tensor, u: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        with self.multi_conv if self.multi_conv is not None else poptorch.MultiConv():
            y = self.convA(x)
            v = self.convB(u)
        return torch.relu(y), v


def _inputs() -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    return torch.randn(2, 3, 8, 8), torch.randn(2, 4, 10, 10)


def _convs(wrapper: poptorch.PoplarExecutor) -> list[str]:
    return [line for line in wrapper._compiled.ir_text().splitlines() if '"poplar.poplin_conv"' in line]


def _cycles(line: str) -> int:
    return int(re.search(r"poplar\.cycles = (\d+)", line).group(1))


def test_reference_example_groups_the_convolutions_and_matches_eager() -> None:
    torch.manual_seed(1)
    model = TwoConvs()
    x, u = _inputs()
    wrapper = poptorch.inferenceModel(model)
    out = wrapper(x, u)
    expected = model(x, u)
    for got, want in zip(out, expected, strict=True):
        torch.testing.assert_close(got, want, **FP32)
    convs = _convs(wrapper)
    assert len(convs) == 2
    groups = [re.search(r"poplar\.multi_conv = \{group = (\d+) : i64, index = (\d) : i64, plan_type = \"parallel\"\}", c)
              for c in convs]
    assert all(groups), convs
    assert groups[0].group(1) == groups[1].group(1)  # one group
    assert sorted(g.group(2) for g in groups) == ["0", "1"]


def test_every_plan_option_is_recorded_on_its_convolution() -> None:
    torch.manual_seed(2)
    multi = (poptorch.MultiConv().availableMemoryProportions([0.25, 0.5]).partialsTypes([torch.float, torch.half])
             .enableConvDithering([True, False]).perConvReservedTiles(16).cycleBackOff(0.3)
             .planType(poptorch.MultiConvPlanType.Serial))
    model = TwoConvs(multi)
    x, u = _inputs()
    wrapper = poptorch.inferenceModel(model)
    out = wrapper(x, u)
    for got, want in zip(out, model(x, u), strict=True):
        torch.testing.assert_close(got, want, **FP32)
    first, second = _convs(wrapper)
    assert "poplar.available_memory = 2.500000e-01 : f64" in first
    assert 'poplar.partials_type = "float"' in first
    assert ("poplar.multi_conv = {cycle_back_off = 3.000000e-01 : f64, enable_conv_dithering = true, group = "
            in first)
    assert 'index = 0 : i64, per_conv_reserved_tiles = 16 : i64, plan_type = "serial"}' in first
    assert "poplar.available_memory = 5.000000e-01 : f64" in second
    assert 'poplar.partials_type = "half"' in second
    assert "enable_conv_dithering = false" in second and "index = 1 : i64" in second


def test_single_values_apply_to_every_convolution() -> None:
    model = TwoConvs(poptorch.MultiConv().availableMemoryProportions(0.4).partialsTypes(torch.half))
    wrapper = poptorch.inferenceModel(model)
    wrapper(*_inputs())
    for conv in _convs(wrapper):
        assert "poplar.available_memory = 4.000000e-01 : f64" in conv and 'poplar.partials_type = "half"' in conv


def test_a_parallel_plan_runs_the_group_in_one_compute_set() -> None:
    """Parallel: the group takes its longest member (on its share of the tiles), carried by the
    first member; serial: each convolution runs alone, one after the other."""
    parallel = poptorch.inferenceModel(TwoConvs(poptorch.MultiConv()))
    serial = poptorch.inferenceModel(TwoConvs(poptorch.MultiConv().planType(poptorch.MultiConvPlanType.Serial)))
    parallel(*_inputs())
    serial(*_inputs())
    parallel_cycles = [_cycles(c) for c in _convs(parallel)]
    serial_cycles = [_cycles(c) for c in _convs(serial)]
    assert parallel_cycles[0] > 0 and parallel_cycles[1] == 0
    assert all(c > 0 for c in serial_cycles)
    assert sum(parallel_cycles) < sum(serial_cycles)


def test_training_with_a_multi_conv_matches_eager() -> None:
    class Trained(TwoConvs):
        def forward(self, x: torch.Tensor, u: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
            y, v = super().forward(x, u)
            return poptorch.identity_loss(y.square().mean() + v.square().mean(), "none")

    torch.manual_seed(3)
    model = Trained()
    reference = Trained()
    reference.load_state_dict(model.state_dict())
    x, u = _inputs()
    wrapper = poptorch.trainingModel(model, optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    loss = wrapper(x, u)
    eager_optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    eager_loss = reference(x, u)
    eager_loss.backward()
    eager_optimizer.step()
    torch.testing.assert_close(loss, eager_loss.detach(), **FP32)
    wrapper.copyWeightsToHost()
    for (name, got), want in zip(model.named_parameters(), reference.parameters(), strict=True):
        torch.testing.assert_close(got, want, **FP32, msg=name)
    assert len([c for c in _convs(wrapper) if "poplar.multi_conv" in c]) == 2


def test_option_errors_name_the_option() -> None:
    with pytest.raises(ValueError, match=r"availableMemoryProportions: each proportion must be in \[0, 1\)"):
        poptorch.MultiConv().availableMemoryProportions(1.0)
    with pytest.raises(ValueError, match="partialsTypes: partials are torch.float or torch.half"):
        poptorch.MultiConv().partialsTypes(torch.float64)
    with pytest.raises(TypeError, match="enableConvDithering: expected a bool"):
        poptorch.MultiConv().enableConvDithering([True, 1])
    with pytest.raises(ValueError, match="perConvReservedTiles"):
        poptorch.MultiConv().perConvReservedTiles(0)
    with pytest.raises(ValueError, match="cycleBackOff"):
        poptorch.MultiConv().cycleBackOff(1.5)
    with pytest.raises(TypeError, match="MultiConvPlanType"):
        poptorch.MultiConv().planType(1)


def test_a_list_with_the_wrong_number_of_values_is_an_error_in_eager_and_compiled() -> None:
    model = TwoConvs(poptorch.MultiConv().partialsTypes([torch.half]))
    with pytest.raises(ValueError, match="convolution 2 ran in the scope, but the options give values for 1"):
        model(*_inputs())
    model = TwoConvs(poptorch.MultiConv().availableMemoryProportions([0.1, 0.2, 0.3]))
    with pytest.raises(ValueError, match="availableMemoryProportions has 3 values but 2 convolutions ran"):
        model(*_inputs())
    with pytest.raises(Exception, match="availableMemoryProportions has 3 values but 2 convolutions ran"):
        poptorch.inferenceModel(model)(*_inputs())  # a CaptureError quoting it


def test_a_scope_without_a_convolution_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="no convolution ran inside the scope"):
        with poptorch.MultiConv():
            torch.relu(torch.ones(2))

"""A BERT-style encoder that does not fit one IPU for training with Adam (the small test
target: 4 tiles of 624 KiB) fits with the optimizer state and the weights off chip, as the
compiler's error says; off chip it trains as eager PyTorch does (SGD with momentum, whose
velocities are the optimizer state; Adam's numbers are those of the on-chip program).
bench/locations.py runs the 12 BERT-base layers on the Mk2 IPU."""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F

import poptorch
from helpers import FP32


class Encoder(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        layer = torch.nn.TransformerEncoderLayer(80, 4, 320, batch_first=True, dropout=0.0)
        self.body = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.body(x)
        return out, F.mse_loss(out, y)


def _inputs(step: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(step)
    return torch.randn(2, 8, 80, generator=generator), torch.randn(2, 8, 80, generator=generator)


def _training(model: torch.nn.Module, off_chip: bool, adam: bool = False) -> poptorch.PoplarExecutor:
    options = poptorch.Options().setIpuTarget("ipu-model-small")
    if off_chip:
        options.TensorLocations.setOptimizerLocation(poptorch.TensorLocationSettings().useOnChipStorage(False))
        options.TensorLocations.setWeightLocation(poptorch.TensorLocationSettings().useOnChipStorage(False))
    optimizer = poptorch.optim.Adam(model.parameters(), lr=1e-3) if adam else \
        poptorch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    return poptorch.trainingModel(model, options, optimizer=optimizer)


def test_the_error_names_the_location_that_makes_it_fit() -> None:
    model = Encoder()
    with pytest.raises(Exception) as error:
        _training(model, off_chip=False, adam=True)(*_inputs(0))
    message = str(error.value)
    assert "does not fit on IPU 0" in message
    # 155680 parameters in 24 tensors: Adam's two moments of 4 bytes each and a 4-byte step
    # count per tensor; the largest class first, then the next until the excess is covered.
    assert ("Moving Options.TensorLocations.setOptimizerLocation(poptorch.TensorLocationSettings().useOnChipStorage(False)) "
            "(optimizer state: 1245536 bytes) and Options.TensorLocations.setWeightLocation("
            "poptorch.TensorLocationSettings().useOnChipStorage(False)) (weight: 622720 bytes)") in message
    assert "to streaming memory would free enough" in message
    # And it does: with both off chip the step fits, and its loss is eager's.
    model = Encoder()
    reference = copy.deepcopy(model)
    training = _training(model, off_chip=True, adam=True)
    x, y = _inputs(0)
    out, loss = training(x, y)
    want_out, want_loss = reference(x, y)
    torch.testing.assert_close(loss, want_loss.detach(), **FP32)
    torch.testing.assert_close(out, want_out.detach(), **FP32)
    assert training._compiled.memory_per_ipu()[0]["total"] <= 4 * 638976


def test_optimizer_state_and_weights_off_chip_fit_and_train_as_eager() -> None:
    model = Encoder()
    reference = copy.deepcopy(model)
    eager = torch.optim.SGD(reference.parameters(), lr=1e-2, momentum=0.9)
    training = _training(model, off_chip=True)
    for step in range(3):
        x, y = _inputs(step)
        out, loss = training(x, y)
        eager.zero_grad()
        want_out, want_loss = reference(x, y)
        want_loss.backward()
        eager.step()
        torch.testing.assert_close(loss, want_loss.detach(), **FP32)
        torch.testing.assert_close(out, want_out.detach(), **FP32)
    training.copyWeightsToHost()
    for (name, got), want in zip(model.named_parameters(), reference.parameters(), strict=True):
        torch.testing.assert_close(got, want, **FP32, msg=f"parameter {name}")
    memory = training._compiled.memory_per_ipu()[0]
    parameters = sum(p.numel() for p in model.parameters())
    assert memory["streaming"] == 2 * 4 * parameters  # each weight and its velocity
    assert memory["total"] <= 4 * 638976  # fits the small target's 4 tiles


def test_placement_leaves_every_number_unchanged() -> None:
    """With Adam, off chip or on chip (on the Mk2 IPU, where both fit), the outputs and the
    trained weights are bit-identical: loads and stores only copy. (Against eager, Adam's
    normalised update magnifies the last bits of gradients that are zero in exact arithmetic,
    such as the key bias of attention's in_proj_bias, on chip and off chip alike.)"""
    results = []
    for off_chip in (False, True):
        model = Encoder()
        options = poptorch.Options()
        if off_chip:
            options.TensorLocations.setOptimizerLocation(poptorch.TensorLocationSettings().useOnChipStorage(False))
            options.TensorLocations.setWeightLocation(poptorch.TensorLocationSettings().useOnChipStorage(False))
        training = poptorch.trainingModel(model, options, optimizer=poptorch.optim.Adam(model.parameters(), lr=1e-3))
        outputs = [training(*_inputs(step))[0] for step in range(2)]
        training.copyWeightsToHost()
        results.append((outputs, [p.detach().clone() for p in model.parameters()]))
    for got, want in zip(results[1][0] + results[1][1], results[0][0] + results[0][1], strict=True):
        torch.testing.assert_close(got, want, rtol=0, atol=0)

"""Eager-PyTorch reference runs and the comparisons of an IPU run against them: outputs
per micro-batch, one gradient-accumulation step, and named tensors (weights, buffers,
optimizer state) compared by name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
import torch.nn as nn

from helpers import FP32


def eager_per_micro_batch(model: nn.Module, micro_batch: int, *inputs: torch.Tensor) -> list[Any]:
    """The model's eager outputs, without autograd, for each run of ``micro_batch`` rows
    of the inputs in order: what an inference model computes at each device iteration."""
    count = inputs[0].shape[0] // micro_batch
    with torch.no_grad():
        return [model(*(t[i * micro_batch : (i + 1) * micro_batch] for t in inputs)) for i in range(count)]


def eager_accumulated_step(model: nn.Module, optimizer: Any, micro_batch: int, x: torch.Tensor, y: torch.Tensor,
                           *, mean: bool = True, max_grad_norm: float | None = None) -> tuple[list, list]:
    """One optimizer step of gradient accumulation in eager PyTorch, as trainingModel runs
    it: ``model(x, y)`` returns (output, loss); the losses of the micro-batches of ``x``
    are backpropagated, each divided by their number G when ``mean`` (Mean reduction),
    the gradients clipped to ``max_grad_norm`` if given, then the optimizer steps.
    Returns the detached losses and outputs of the micro-batches."""
    xs, ys = x.split(micro_batch), y.split(micro_batch)
    optimizer.zero_grad()
    losses, outputs = [], []
    for x_micro, y_micro in zip(xs, ys, strict=True):
        out, loss = model(x_micro, y_micro)
        (loss / len(xs) if mean else loss).backward()
        losses.append(loss.detach())
        outputs.append(out.detach())
    if max_grad_norm is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return losses, outputs


def assert_named_close(actual: Mapping[str, torch.Tensor], expected: Mapping[str, torch.Tensor],
                       tolerance: dict = FP32) -> None:
    """The same names in the same order, and each tensor close to the expected one; a
    failure names the tensor."""
    assert list(actual) == list(expected)
    for name, want in expected.items():
        torch.testing.assert_close(actual[name], want, **tolerance, msg=lambda m, n=name: f"{n}: {m}")


def assert_parameters_close(model: nn.Module, reference: nn.Module, tolerance: dict = FP32) -> None:
    """The model's parameters (read from the host, which syncs a trained model's weights
    back from the device) against the reference's, by name."""
    assert_named_close(dict(model.named_parameters()), dict(reference.named_parameters()), tolerance)


def assert_state_dicts_close(model: nn.Module, reference: nn.Module, tolerance: dict = FP32) -> None:
    """The model's state_dict (parameters and buffers) against the reference's, by name."""
    assert_named_close(model.state_dict(), reference.state_dict(), tolerance)

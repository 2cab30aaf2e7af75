"""One ATen op (a function of tensors) run through poptorch against eager PyTorch: an
inference run compared value by value and dtype by dtype, and one SGD training step
through the op compared by the updated weight. Used by the op tests in ``test/python/ops``."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import torch
import torch.nn as nn
import torch.utils._pytree as pytree
from helpers import EXACT, FP32

import poptorch

LEARNING_RATE = 0.01


class FunctionModel(nn.Module):
    """``forward(*inputs) = fn(*inputs)``: one op (or a few) as a model to compile."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *inputs: torch.Tensor) -> Any:
        return self.fn(*inputs)


def assert_same_results(got: Any, want: Any, what: str = "result") -> None:
    """The same structure; each tensor with eager's dtype and shape, floats within FP32
    (NaN where eager has NaN), integers and booleans exactly."""
    got_leaves, got_spec = pytree.tree_flatten(got)
    want_leaves, want_spec = pytree.tree_flatten(want)
    assert got_spec == want_spec, f"{what}: structure {got_spec} differs from eager's {want_spec}"
    for index, (g, w) in enumerate(zip(got_leaves, want_leaves, strict=True)):
        assert isinstance(g, torch.Tensor), f"{what} #{index}: got {type(g).__name__}, eager gives a tensor"
        assert g.dtype == w.dtype, f"{what} #{index}: dtype {g.dtype}, eager gives {w.dtype}"
        assert g.shape == w.shape, f"{what} #{index}: shape {tuple(g.shape)}, eager gives {tuple(w.shape)}"
        tolerance = FP32 if w.dtype.is_floating_point else EXACT
        torch.testing.assert_close(g, w, **tolerance, equal_nan=True, msg=lambda m, i=index: f"{what} #{i}: {m}")


def check_inference(fn: Callable[..., Any], *inputs: torch.Tensor) -> Any:
    """Compile ``fn`` with ``poptorch.inferenceModel``, run it on ``inputs`` and compare
    with eager; returns the IPU's result."""
    with torch.no_grad():
        want = fn(*inputs)
    got = poptorch.inferenceModel(FunctionModel(fn))(*inputs)
    assert_same_results(got, want)
    return got


class _WeightedOp(nn.Module):
    """``out = fn(x * w)`` with a weight ``w`` of x's shape, and the loss ``sum(out**2)``:
    the op's gradient is what trains ``w``."""

    def __init__(self, fn: Callable[..., torch.Tensor], shape: torch.Size) -> None:
        super().__init__()
        self.fn = fn
        generator = torch.Generator().manual_seed(0)
        self.w = nn.Parameter(1.0 + 0.25 * torch.randn(shape, generator=generator))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.fn(x * self.w)
        return out, poptorch.identity_loss((out * out).sum(), reduction="sum")


def check_training_step(fn: Callable[..., torch.Tensor], x: torch.Tensor) -> None:
    """One SGD step (lr 0.01) through ``fn`` with ``poptorch.trainingModel``: the output,
    the loss and the updated weight match eager's ``torch.optim.SGD`` step within FP32."""
    model = _WeightedOp(fn, x.shape)
    reference = copy.deepcopy(model)
    optimizer = torch.optim.SGD(reference.parameters(), lr=LEARNING_RATE)
    want_out, want_loss = reference(x)
    want_loss.backward()
    optimizer.step()
    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(model.parameters(), lr=LEARNING_RATE))
    out, loss = training(x)
    assert_same_results(out, want_out.detach(), "output")
    torch.testing.assert_close(loss, want_loss.detach(), **FP32, msg=lambda m: f"loss: {m}")
    torch.testing.assert_close(model.w.detach(), reference.w.detach(), **FP32, msg=lambda m: f"updated weight: {m}")
    training.destroy()

"""Training capture of real models (SEMANTICS.md "Training"): the model's Python runs
under the exporting flag that libraries check (``torch.compiler.is_exporting()``), so
Hugging Face models take their traced path, and models built the way ResNets are
(``Conv2d(bias=False)`` + BatchNorm) train. Each case trains a few steps and matches eager.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from helpers import FP32
from helpers.checks import assert_parameters_close, assert_state_dicts_close

import poptorch


def train_both(model: nn.Module, batches: list[tuple], *, optimizer: Callable[[Any], Any] = lambda p: torch.optim.SGD(p, lr=0.1),
               loss_of: Callable[[Any], torch.Tensor] = lambda out: out[1], options: poptorch.Options | None = None,
               ) -> tuple[nn.Module, nn.Module]:
    """Train ``model`` with trainingModel and a deep copy in eager PyTorch, one step per
    batch (each an (args, kwargs) pair); the losses of every step must match. Returns
    (model, eager copy) for the caller to compare weights."""
    reference = copy.deepcopy(model)
    eager_optimizer = optimizer(reference.parameters())
    training = poptorch.trainingModel(model, options=options, optimizer=optimizer(model.parameters()))
    for step, (args, kwargs) in enumerate(batches):
        got = loss_of(training(*args, **kwargs))
        eager_optimizer.zero_grad()
        want = loss_of(reference(*args, **kwargs))
        want.backward()
        eager_optimizer.step()
        torch.testing.assert_close(got.detach(), want.detach(), **FP32, msg=lambda m, s=step: f"loss of step {s}: {m}")
    training.copyWeightsToHost()
    return model, reference


# =======================================================================================
# A ResNet block: Conv2d(bias=False) + BatchNorm + ReLU + residual
# =======================================================================================
class ResidualBlock(nn.Module):
    """The first convolution sees the model input (no input gradient) and has no bias, so
    its gradient op yields the weight gradient alone."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 3, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(3)
        self.conv2 = nn.Conv2d(3, 3, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(3)
        self.fc = nn.Linear(3, 4)
        self.loss = nn.CrossEntropyLoss()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.relu(self.bn2(self.conv2(h)) + x)
        out = self.fc(h.mean((2, 3)))
        return out, self.loss(out, y)


def test_resnet_block_without_conv_bias_trains_as_eager() -> None:
    torch.manual_seed(0)
    batches = [((torch.randn(4, 3, 6, 6), torch.randint(0, 4, (4,))), {}) for _ in range(3)]
    model, reference = train_both(ResidualBlock(), batches)
    assert_state_dicts_close(model, reference)  # weights and BatchNorm running statistics


# =======================================================================================
# Tracing mode: the model's Python runs as under torch.export
# =======================================================================================
class ExportAware(nn.Module):
    """Takes a data-dependent shortcut in eager (reading a tensor's value), which no trace
    can follow, and a traceable path when ``torch.compiler.is_exporting()``, as
    transformers' mask code does."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(6, 3)
        self.loss = nn.MSELoss()
        self.exporting_seen: list[bool] = []

    def forward(self, x: torch.Tensor, mask: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        exporting = torch.compiler.is_exporting() and torch.compiler.is_compiling()
        self.exporting_seen.append(exporting)
        if not exporting and bool(mask.all()):  # eager only: a value read no trace can make
            masked = x
        else:
            masked = x * mask
        out = self.linear(masked)
        return out, self.loss(out, y)


def test_every_trace_runs_under_the_exporting_flag() -> None:
    torch.manual_seed(0)
    model = ExportAware()
    batches = [((torch.randn(4, 6), torch.ones(4, 6), torch.randn(4, 3)), {}) for _ in range(2)]
    model, reference = train_both(model, batches)
    assert_parameters_close(model, reference)
    assert model.exporting_seen and all(model.exporting_seen)  # the export and the joint trace
    assert not any(reference.exporting_seen)  # eager itself stays eager


class Attention(nn.Module):
    """F.scaled_dot_product_attention with a boolean mask (True = attend) and grouped-query
    heads (4 query heads share 2 key/value heads), as transformers calls it while exporting."""

    def __init__(self) -> None:
        super().__init__()
        self.q, self.kv = nn.Linear(8, 16), nn.Linear(8, 16)
        self.loss = nn.MSELoss()

    def forward(self, x: torch.Tensor, mask: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        q = self.q(x).view(2, 5, 4, 4).transpose(1, 2)
        k, v = self.kv(x).view(2, 5, 2, 8).transpose(1, 2).chunk(2, dim=-1)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True).transpose(1, 2).flatten(2)
        return out, self.loss(out, y)


def test_attention_with_boolean_mask_and_grouped_heads_trains_as_eager() -> None:
    torch.manual_seed(0)
    mask = torch.ones(5, 5, dtype=torch.bool).tril().expand(2, 1, 5, 5)
    batches = [((torch.randn(2, 5, 8), mask, torch.randn(2, 5, 16)), {}) for _ in range(3)]
    model, reference = train_both(Attention(), batches)
    assert_parameters_close(model, reference)


# =======================================================================================
# A Hugging Face model from a tiny config, returning its ModelOutput with .loss
# =======================================================================================
def test_llama_trains_as_eager() -> None:
    transformers = pytest.importorskip("transformers")
    # Llama's own SiLU MLP: its gradient (torch.aten.silu_backward) imports as a torch.operator.
    config = transformers.LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(config)
    batches = []
    for _ in range(3):
        ids = torch.randint(0, 64, (2, 8))
        batches.append(((), {"input_ids": ids, "labels": ids}))
    model, reference = train_both(model, batches, loss_of=lambda out: out.loss)
    assert_parameters_close(model, reference)


# =======================================================================================
# Tensors that are neither parameters, buffers nor inputs are constants, as in inference
# =======================================================================================
SCALE = torch.tensor([1.0, 2.0, 3.0, 4.0])


class _ReadsConstants(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)
        self.offset = torch.full((4,), 0.5)  # a plain attribute, not a buffer

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return poptorch.identity_loss(((self.linear(x) + self.offset) * SCALE).square().sum(), reduction="sum")


def test_module_global_and_plain_attribute_tensors_train_as_constants() -> None:
    torch.manual_seed(0)
    model, reference = _ReadsConstants(), _ReadsConstants()
    reference.load_state_dict(model.state_dict())
    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(model.parameters(), lr=0.01))
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.01)
    for step in range(3):
        x = torch.randn(3, 4, generator=torch.Generator().manual_seed(step))
        loss = training(x)
        optimizer.zero_grad()
        expected = reference(x)
        expected.backward()
        optimizer.step()
        torch.testing.assert_close(loss, expected.detach(), **FP32)
    training.copyWeightsToHost()
    torch.testing.assert_close(model.linear.weight, reference.linear.weight, **FP32)


# =======================================================================================
# What the one joint trace records of the model's outputs and inputs
# =======================================================================================
class _CountBeforeLoss(torch.nn.Module):
    """A non-tensor output before the loss, the loss between two tensor outputs, and the
    inputs in a dict: the tensor outputs are output.0 (out), output.1 (the loss), output.2."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 3)

    def forward(self, batch: dict[str, torch.Tensor]) -> tuple[Any, ...]:
        out = self.linear(batch["x"])
        return 7, out, F.mse_loss(out, batch["target"]), out * 2


def test_outputs_and_inputs_are_named_in_the_users_order() -> None:
    torch.manual_seed(0)
    model = _CountBeforeLoss()
    eager = copy.deepcopy(model)
    options = (poptorch.Options().anchorTensor("out", "output.0").anchorTensor("loss", "output.1")
               .anchorTensor("twice", "output.2").anchorTensor("x", "batch_x"))
    training = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1))
    batch = {"x": torch.randn(2, 4), "target": torch.randn(2, 3)}
    got = training(batch)
    want = eager(batch)
    assert got[0] == 7
    for index, name in ((1, "out"), (2, "loss"), (3, "twice")):
        torch.testing.assert_close(got[index], want[index].detach(), **FP32)
        torch.testing.assert_close(training.getAnchoredTensor(name), want[index].detach(), **FP32)
    torch.testing.assert_close(training.getAnchoredTensor("x"), batch["x"])
    assert {"batch_x", "batch_target", "output.0", "output.1", "output.2"} <= set(training.getTensorNames())

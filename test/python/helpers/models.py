"""Models and optimizer references used by more than one test file: the small classifier
MLP of the training tests, the four-layer model split over IPUs of the multi-IPU and
schedule tests, the two-block model of the off-chip tests on two IPUs, the small regression of
the replicated tensor sharding tests and LAMB
written from the paper's formulas."""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn as nn
import torch.nn.functional as F

import poptorch


class MLPClassifier(nn.Module):
    """Linear(6, 12) -> ReLU -> Linear(12, 3). With a target it also returns the
    CrossEntropyLoss, (logits, loss), as a training model does; without one only the
    logits, as an inference model does."""

    def __init__(self) -> None:
        super().__init__()
        self.l1 = nn.Linear(6, 12)
        self.l2 = nn.Linear(12, 3)
        self.loss = nn.CrossEntropyLoss()

    def forward(self, x: torch.Tensor, y: torch.Tensor | None = None) -> Any:
        out = self.l2(F.relu(self.l1(x)))
        if y is None:
            return out
        return out, self.loss(out, y)

    @staticmethod
    def batch(n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """``n`` samples and their class targets, drawn from ``generator``."""
        return torch.randn(n, 6, generator=generator), torch.randint(0, 3, (n,), generator=generator)


def execution_strategy(kind: str, stages: list[poptorch.Stage]) -> poptorch.ExecutionStrategy:
    """The stages run as a pipeline (kind "pipelined") or one after the other ("sharded")."""
    if kind == "pipelined":
        return poptorch.PipelinedExecution(*stages)
    if kind == "sharded":
        return poptorch.ShardedExecution(*stages)
    raise ValueError(f"kind {kind!r}: expected 'pipelined' or 'sharded'")


class LayersOverIpus(nn.Module):
    """Four Linear(8, 8) + ReLU blocks "layer0".."layer3", then a head Linear(8, 3) and a
    CrossEntropyLoss in the last block; block i runs on IPU ``i * ipus // 4``.

    ``style`` is how the blocks are annotated, one of the user guide's three ways:
    "begin_block" (BeginBlock on the existing layers), "block" (inline ``poptorch.Block``
    with f-string ids) or "block_function" (``poptorch.BlockFunction``).
    """

    def __init__(self, style: str, ipus: int) -> None:
        super().__init__()
        self.style, self.ipus = style, ipus
        self.layers = nn.ModuleList(nn.Linear(8, 8) for _ in range(4))
        self.head = nn.Linear(8, 3)
        self.loss = nn.CrossEntropyLoss()
        if style == "begin_block":  # BeginBlock on existing layers
            for index, layer in enumerate(self.layers):
                poptorch.BeginBlock(layer, f"layer{index}", ipu_id=index * ipus // 4)

    def forward(self, x: torch.Tensor, target: torch.Tensor):  # noqa: ANN201
        # The head and the loss run in the last block, so nothing after the first
        # Block is left outside one (SEMANTICS: such ops are an error).
        def last(v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            out = self.head(torch.relu(self.layers[3](v)))
            return out, self.loss(out, target)

        for index, layer in enumerate(self.layers[:3]):
            ipu = index * self.ipus // 4
            if self.style == "block":  # inline Block with f-string ids
                with poptorch.Block(f"layer{index}", ipu_id=ipu):
                    x = torch.relu(layer(x))
            elif self.style == "block_function":
                x = poptorch.BlockFunction(f"layer{index}", ipu_id=ipu)(lambda v, layer=layer: torch.relu(layer(v)))(x)
            else:
                x = torch.relu(layer(x))
        ipu = 3 * self.ipus // 4
        if self.style == "block":
            with poptorch.Block("layer3", ipu_id=ipu):
                return last(x)
        if self.style == "block_function":
            return poptorch.BlockFunction("layer3", ipu_id=ipu)(last)(x)
        return last(x)

    @staticmethod
    def strategy(kind: str, ipus: int) -> poptorch.ExecutionStrategy:
        """One stage per block, on the block's IPU, pipelined or sharded."""
        return execution_strategy(kind, [poptorch.Stage(f"layer{i}").ipu(i * ipus // 4) for i in range(4)])


class TwoBlocks(nn.Module):
    """Linear(8, 16) -> tanh -> Linear(16, 3) in blocks "front" (IPU 0) and "back" (IPU 1),
    returning (output, MSE loss); seeded weights."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.front, self.back = nn.Linear(8, 16), nn.Linear(16, 3)
        poptorch.BeginBlock(self.front, "front", ipu_id=0)
        poptorch.BeginBlock(self.back, "back", ipu_id=1)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.back(torch.tanh(self.front(x)))
        return out, F.mse_loss(out, y)


class Regression(nn.Module):
    """Linear(6, 15) -> tanh -> Linear(15, 3), returning (output, MSE loss); seeded weights."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.net = nn.Sequential(nn.Linear(6, 15), nn.Tanh(), nn.Linear(15, 3))

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.net(x)
        return out, F.mse_loss(out, y)


def regression_batches(size: int, steps: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """``steps`` seeded (x, y) batches of ``size`` rows for :class:`Regression`."""
    generator = torch.Generator().manual_seed(1)
    return [(torch.randn(size, 6, generator=generator), torch.randn(size, 3, generator=generator)) for _ in range(steps)]


class RefLAMB:
    """LAMB from the paper's formulas, independent of poptorch.optim.LAMB.step:
    m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; optional bias correction;
    u = m^ / (sqrt(v^) + eps) + wd w; w -= lr * min(||w||, max_weight_norm) / ||u|| * u,
    with the ratio 1 when either norm is 0. Its ``state`` holds torch.optim.Adam's keys
    (step, exp_avg, exp_avg_sq), to compare with the device's optimizer state."""

    def __init__(self, params: Any, lr: float, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, bias_correction: bool = True, max_weight_norm: float | None = None) -> None:
        self.params = list(params)
        self.lr, (self.b1, self.b2), self.eps, self.wd = lr, betas, eps, weight_decay
        self.bias_correction = bias_correction
        self.max_weight_norm = math.inf if max_weight_norm is None else max_weight_norm
        self.state: dict[torch.Tensor, dict[str, Any]] = {}

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        for w in self.params:
            g = w.grad
            st = self.state.setdefault(w, {"step": torch.tensor(0.0), "exp_avg": torch.zeros_like(w),
                                            "exp_avg_sq": torch.zeros_like(w)})
            st["step"] += 1
            t = float(st["step"])
            m = st["exp_avg"].mul_(self.b1).add_((1 - self.b1) * g)
            v = st["exp_avg_sq"].mul_(self.b2).add_((1 - self.b2) * g * g)
            if self.bias_correction:
                m = m / (1 - self.b1**t)
                v = v / (1 - self.b2**t)
            u = m / (v.sqrt() + self.eps) + self.wd * w
            w_norm = min(float(w.norm()), self.max_weight_norm)
            u_norm = float(u.norm())
            ratio = w_norm / u_norm if w_norm > 0 and u_norm > 0 else 1.0
            w.sub_(self.lr * ratio * u)

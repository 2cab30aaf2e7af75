"""poptorch.trainingModel numerics against eager PyTorch (SEMANTICS.md "Training").

For each optimizer (SGD separate / combined, with and without momentum; Adam; AdamW;
RMSprop plain / centered / momentum; LAMB), N optimizer steps on the emulated IPU give
the same weights, per-micro-batch losses, outputs and optimizer state as eager PyTorch
with ``torch.optim`` (LAMB: ``helpers.models.RefLAMB``, written from the paper's formulas).

The grid covers gradient accumulation (G), device iterations (D), Mean / Sum reductions,
Running / Post mean strategies, loss scaling, velocity scaling (SGD combined) and
max_grad_norm. Every case compiles one tiny MLP (~0.3-0.5 s).

The eager reference: a host batch of B x D x G samples is D optimizer steps of G
micro-batches each. Per step the micro-batch gradients are summed (Sum) or averaged
(Mean: loss / G before backward), clipped with ``clip_grad_norm_`` when max_grad_norm
is set, then ``torch.optim``'s ``step()`` runs. Loss scaling and velocity scaling must
not change the result, so their reference is the same unscaled eager run.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Callable
from typing import Any

import pytest
import torch
import torch.nn as nn
from helpers import FP32
from helpers.checks import assert_named_close, assert_parameters_close, eager_accumulated_step
from helpers.models import MLPClassifier, RefLAMB

import poptorch
from poptorch import MeanReductionStrategy, OutputMode, ReductionType

MICRO_BATCH = 4  # B
HOST_CALLS = 3  # host batches per test: N optimizer steps = HOST_CALLS x D


# ---------------------------------------------------------------------------------------
# Optimizer cases: (poptorch optimizer factory, eager reference factory)
# ---------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Case:
    ipu: Callable[..., torch.optim.Optimizer]  # (params, **poptorch-only kwargs)
    ref: Callable[[Any], Any]  # (params) -> torch.optim optimizer or RefLAMB
    clips: bool = True  # takes max_grad_norm


_SGD = {"lr": 0.1, "weight_decay": 0.01}
_SGD_M = {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01}
_ADAM = {"lr": 0.01, "betas": (0.8, 0.95), "weight_decay": 0.01}
_ADAMW = {"lr": 0.01, "betas": (0.8, 0.95), "weight_decay": 0.1}
_RMS = {"lr": 0.01, "alpha": 0.9, "weight_decay": 0.01}
_LAMB = {"lr": 0.05, "betas": (0.8, 0.95), "weight_decay": 0.01}

CASES: dict[str, Case] = {
    "sgd": Case(lambda p, **k: poptorch.optim.SGD(p, **_SGD, **k), lambda p: torch.optim.SGD(p, **_SGD)),
    "sgd_momentum": Case(lambda p, **k: poptorch.optim.SGD(p, **_SGD_M, **k), lambda p: torch.optim.SGD(p, **_SGD_M)),
    "sgd_nesterov": Case(
        lambda p, **k: poptorch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, **k),
        lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
    ),
    "sgd_combined": Case(
        lambda p, **k: poptorch.optim.SGD(p, **_SGD, use_combined_accum=True, **k), lambda p: torch.optim.SGD(p, **_SGD)
    ),
    "sgd_combined_momentum": Case(
        lambda p, **k: poptorch.optim.SGD(p, **_SGD_M, use_combined_accum=True, **k),
        lambda p: torch.optim.SGD(p, **_SGD_M),
    ),
    "adam": Case(lambda p, **k: poptorch.optim.Adam(p, **_ADAM, **k), lambda p: torch.optim.Adam(p, **_ADAM)),
    "adamw": Case(lambda p, **k: poptorch.optim.AdamW(p, **_ADAMW, **k), lambda p: torch.optim.AdamW(p, **_ADAMW)),
    "rmsprop": Case(lambda p, **k: poptorch.optim.RMSprop(p, **_RMS, **k), lambda p: torch.optim.RMSprop(p, **_RMS),
                    clips=False),
    "rmsprop_centered": Case(
        lambda p, **k: poptorch.optim.RMSprop(p, **_RMS, centered=True, **k),
        lambda p: torch.optim.RMSprop(p, **_RMS, centered=True),
        clips=False,
    ),
    "rmsprop_momentum": Case(
        lambda p, **k: poptorch.optim.RMSprop(p, **_RMS, momentum=0.5, **k),
        lambda p: torch.optim.RMSprop(p, **_RMS, momentum=0.5),
        clips=False,
    ),
    "lamb": Case(lambda p, **k: poptorch.optim.LAMB(p, **_LAMB, **k), lambda p: RefLAMB(p, **_LAMB), clips=False),
    "lamb_no_bias_correction_capped": Case(
        lambda p, **k: poptorch.optim.LAMB(p, **_LAMB, bias_correction=False, max_weight_norm=0.5, **k),
        lambda p: RefLAMB(p, **_LAMB, bias_correction=False, max_weight_norm=0.5),
        clips=False,
    ),
}


@dataclasses.dataclass(frozen=True)
class Config:
    G: int = 1
    D: int = 1
    reduction: ReductionType = ReductionType.Mean
    strategy: MeanReductionStrategy | None = None  # None: the default (Post)
    loss_scaling: float | None = None
    velocity_scaling: float | None = None
    max_grad_norm: float | None = None

    def id(self) -> str:
        parts = [f"G{self.G}", f"D{self.D}", self.reduction.name]
        if self.strategy is not None:
            parts.append(self.strategy.name)
        if self.loss_scaling is not None:
            parts.append(f"ls{self.loss_scaling:g}")
        if self.velocity_scaling is not None:
            parts.append(f"vs{self.velocity_scaling:g}")
        if self.max_grad_norm is not None:
            parts.append(f"clip{self.max_grad_norm:g}")
        return "-".join(parts)


# ---------------------------------------------------------------------------------------
# The runs
# ---------------------------------------------------------------------------------------
def _data(config: Config, seed: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    generator = torch.Generator().manual_seed(seed)
    return [MLPClassifier.batch(MICRO_BATCH * config.D * config.G, generator) for _ in range(HOST_CALLS)]


def _options(config: Config) -> poptorch.Options:
    options = poptorch.Options().deviceIterations(config.D)
    options.Training.gradientAccumulation(config.G)
    options.Training.accumulationAndReplicationReductionType(config.reduction)
    if config.strategy is not None:
        options.Training.setMeanAccumulationAndReplicationReductionStrategy(config.strategy)
    options.outputMode(OutputMode.All)
    return options


def _ipu_kwargs(config: Config) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    if config.loss_scaling is not None:
        kwargs["loss_scaling"] = config.loss_scaling
    if config.velocity_scaling is not None:
        kwargs["velocity_scaling"] = config.velocity_scaling
    if config.max_grad_norm is not None:
        kwargs["max_grad_norm"] = config.max_grad_norm
    return kwargs


def run_eager(model: nn.Module, optimizer: Any, config: Config, data: list) -> tuple[list, list]:
    """Losses and outputs per host call, as OutputMode.All returns them."""
    losses, outputs = [], []
    rows_per_step = MICRO_BATCH * config.G
    for x, y in data:
        call_losses, call_outputs = [], []
        for step in range(config.D):
            rows = slice(step * rows_per_step, (step + 1) * rows_per_step)
            step_losses, step_outputs = eager_accumulated_step(
                model, optimizer, MICRO_BATCH, x[rows], y[rows],
                mean=config.reduction == ReductionType.Mean, max_grad_norm=config.max_grad_norm)
            call_losses += step_losses
            call_outputs += step_outputs
        losses.append(torch.stack(call_losses))
        outputs.append(torch.cat(call_outputs))
    return losses, outputs


def run_ipu(model: nn.Module, optimizer: torch.optim.Optimizer, config: Config, data: list) -> tuple[Any, list, list]:
    training = poptorch.trainingModel(model, _options(config), optimizer)
    losses, outputs = [], []
    for x, y in data:
        out, loss = training(x, y)
        losses.append(loss.detach().reshape(-1))  # [] when D x G = 1 (SEMANTICS "Batching")
        outputs.append(out.detach())
    return training, losses, outputs


def check_against_eager(case_name: str, config: Config) -> None:
    case = CASES[case_name]
    torch.manual_seed(0)
    model = MLPClassifier()
    reference = copy.deepcopy(model)
    data = _data(config, seed=1)

    ref_optimizer = case.ref(reference.parameters())
    ref_losses, ref_outputs = run_eager(reference, ref_optimizer, config, data)

    optimizer = case.ipu(model.parameters(), **_ipu_kwargs(config))
    training, losses, outputs = run_ipu(model, optimizer, config, data)
    try:
        for call, (got, want) in enumerate(zip(losses, ref_losses, strict=True)):
            torch.testing.assert_close(got, want, **FP32, msg=lambda m, c=call: f"losses of host call {c}: {m}")
        for call, (got, want) in enumerate(zip(outputs, ref_outputs, strict=True)):
            torch.testing.assert_close(got, want, **FP32, msg=lambda m, c=call: f"outputs of host call {c}: {m}")
        # Reading the user's model syncs the device's weights back (lazily).
        assert_parameters_close(model, reference)
        ref_params = dict(reference.named_parameters())
        # The optimizer's state_dict() downloads the device state into optimizer.state.
        optimizer.state_dict()
        for name, param in model.named_parameters():
            want_state = ref_optimizer.state[ref_params[name]]
            got_state = optimizer.state[param]
            for key, want in want_state.items():
                if not isinstance(want, torch.Tensor) or key == "step":
                    continue  # step counts: test_training_api.py::test_optimizer_state_dict_*
                assert key in got_state, f"{name}: optimizer state {key!r} missing (has {sorted(got_state)})"
                torch.testing.assert_close(got_state[key].float(), want.float(), **FP32,
                                           msg=lambda m, n=name, k=key: f"state {k} of {n}: {m}")
    finally:
        training.destroy()


# ---------------------------------------------------------------------------------------
# The grid
# ---------------------------------------------------------------------------------------
BASE = Config()
ACCUMULATED = Config(G=3, D=2)

# Every optimizer at G = 1 and at G > 1 with D > 1.
GRID: list[tuple[str, Config]] = [(name, BASE) for name in CASES] + [(name, ACCUMULATED) for name in CASES]

# Reductions, strategies and loss scaling, on a representative of each update kind.
_REPRESENTATIVES = ["sgd_momentum", "sgd_combined_momentum", "adam", "rmsprop_centered", "lamb"]
_VARIANTS = [
    Config(G=2, D=1, reduction=ReductionType.Sum),
    Config(G=2, D=2, reduction=ReductionType.Mean, strategy=MeanReductionStrategy.Running),
    Config(G=2, D=1, reduction=ReductionType.Sum, strategy=MeanReductionStrategy.Running),
    Config(G=3, D=1, reduction=ReductionType.Mean, strategy=MeanReductionStrategy.Post),
    Config(G=1, D=3),
    Config(G=1, D=1, loss_scaling=1000.0),
    Config(G=2, D=2, loss_scaling=128.0, reduction=ReductionType.Sum),
]
GRID += [(name, config) for name in _REPRESENTATIVES for config in _VARIANTS]
# Loss scaling on the optimizers not covered above.
GRID += [(name, Config(G=2, D=1, loss_scaling=1000.0)) for name in CASES if name not in _REPRESENTATIVES]

# Velocity scaling: the SGD combined variant (effective gradient scale velocity_scaling / loss_scaling).
GRID += [
    ("sgd_combined_momentum", Config(velocity_scaling=4.0)),
    ("sgd_combined_momentum", Config(G=2, D=2, velocity_scaling=4.0, loss_scaling=16.0)),
    ("sgd_combined_momentum", Config(G=2, velocity_scaling=0.25, loss_scaling=1000.0, reduction=ReductionType.Sum)),
    ("sgd_combined", Config(G=2, velocity_scaling=8.0, loss_scaling=2.0)),
]

# max_grad_norm (clipping by the global norm; 0.05 is below the gradients' norm, so it clips).
GRID += [(name, Config(max_grad_norm=0.05)) for name, case in CASES.items() if case.clips]
GRID += [
    ("sgd_momentum", Config(G=2, D=2, max_grad_norm=0.05, loss_scaling=1000.0)),
    ("adam", Config(G=2, max_grad_norm=0.05, reduction=ReductionType.Sum, loss_scaling=64.0)),
    ("sgd_combined_momentum", Config(G=2, max_grad_norm=0.05, velocity_scaling=4.0, loss_scaling=16.0)),
    ("sgd_momentum", Config(max_grad_norm=1e3)),  # above the norm: no clipping
]


@pytest.mark.parametrize(("case_name", "config"), GRID, ids=[f"{n}-{c.id()}" for n, c in GRID])
def test_matches_eager(case_name: str, config: Config) -> None:
    check_against_eager(case_name, config)


def test_grid_covers_the_issue() -> None:
    """Every optimizer at G = 1 and G > 1; every option in the issue somewhere in the grid."""
    for name in CASES:
        assert (name, BASE) in GRID and (name, ACCUMULATED) in GRID
    configs = [c for _, c in GRID]
    assert any(c.reduction == ReductionType.Sum for c in configs)
    for strategy in (MeanReductionStrategy.Running, MeanReductionStrategy.Post):
        assert any(c.strategy == strategy and c.reduction == ReductionType.Mean and c.G > 1 for c in configs)
    assert any(c.D > 1 and c.G > 1 for c in configs)
    assert any(c.velocity_scaling for c in configs)
    assert any(c.max_grad_norm for c in configs)


def test_clipping_is_active() -> None:
    """The max_grad_norm cases really clip: the eager gradient norm exceeds 0.05."""
    torch.manual_seed(0)
    model = MLPClassifier()
    x, y = _data(BASE, seed=1)[0]
    model(x, y)[1].backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), math.inf)
    assert norm > 0.05 * 4, norm


def test_loss_scaling_gives_the_same_weights() -> None:
    """Loss scaling on and off: the device weights agree with each other (not only with eager)."""
    results = []
    for scaling in (None, 1000.0):
        torch.manual_seed(0)
        model = MLPClassifier()
        kwargs = {} if scaling is None else {"loss_scaling": scaling}
        optimizer = poptorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, **kwargs)
        config = Config(G=2)
        training, losses, _ = run_ipu(model, optimizer, config, _data(config, seed=2))
        training.destroy()
        results.append(({n: p.detach().clone() for n, p in model.named_parameters()}, losses))
    (w0, l0), (w1, l1) = results
    assert_named_close(w1, w0)
    for a, b in zip(l0, l1, strict=True):
        torch.testing.assert_close(b, a, **FP32)

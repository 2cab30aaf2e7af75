"""accum_type and the momentum accum types set the dtypes the compiled program stores the
optimizer state and gradient accumulators in (SEMANTICS "Optimizers"): the state comes back
in that dtype through optimizer.state_dict(), and the numbers match an eager reference that
keeps the same dtypes (update computed in float32 from the stored values, state rounded to
its dtype after every step)."""

from __future__ import annotations

import copy

import pytest
import torch
from helpers import FP32, poptorch_warnings
from torch import nn

import poptorch
from poptorch import optim

pytestmark = pytest.mark.usefixtures("fresh_poptorch_logging")

STEPS = 3


class _Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.fc(x)
        return out, nn.functional.mse_loss(out, y)


def _data(batch: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    generator = torch.Generator().manual_seed(1)
    return [(torch.randn(batch, 4, generator=generator), torch.randn(batch, 3, generator=generator))
            for _ in range(STEPS)]


def _round_state(optimizer: torch.optim.Optimizer, dtypes: dict[str, torch.dtype]) -> None:
    """Store each named state tensor as the compiled program does: rounded to its dtype."""
    for state in optimizer.state.values():
        for key, dtype in dtypes.items():
            state[key].copy_(state[key].to(dtype).float())


def _train(model: nn.Module, optimizer: torch.optim.Optimizer, data: list, options: poptorch.Options | None = None):
    training = poptorch.trainingModel(model, options or poptorch.Options(), optimizer)
    try:
        losses = [training(x, y)[1] for x, y in data]
        optimizer.state_dict()  # downloads the device state into optimizer.state
    finally:
        training.destroy()
    return losses


@pytest.mark.parametrize(("cls", "kwargs", "dtypes"), [
    (optim.SGD, {"lr": 0.1, "momentum": 0.9, "velocity_accum_type": torch.float16},
     {"momentum_buffer": torch.float16}),
    (optim.Adam, {"lr": 0.01, "first_order_momentum_accum_type": torch.float16},
     {"exp_avg": torch.float16, "exp_avg_sq": torch.float32}),
    (optim.Adam, {"lr": 0.01, "second_order_momentum_accum_type": torch.float16},
     {"exp_avg": torch.float32, "exp_avg_sq": torch.float16}),
    (optim.RMSprop, {"lr": 0.01, "centered": True, "second_order_momentum_accum_type": torch.float16},
     {"square_avg": torch.float32, "grad_avg": torch.float16}),
], ids=["sgd-velocity-f16", "adam-m-f16", "adam-v-f16", "rmsprop-grad-avg-f16"])
def test_state_is_stored_in_the_requested_dtype(cls, kwargs, dtypes, caplog):
    torch.manual_seed(0)
    model = _Model()
    reference = copy.deepcopy(model)
    data = _data(2)
    optimizer = cls(model.parameters(), **kwargs)
    losses = _train(model, optimizer, data)

    torch_cls = {optim.SGD: torch.optim.SGD, optim.Adam: torch.optim.Adam, optim.RMSprop: torch.optim.RMSprop}[cls]
    ref_optimizer = torch_cls(reference.parameters(), **{k: v for k, v in kwargs.items() if "accum" not in k})
    rounded = {key: dtype for key, dtype in dtypes.items() if dtype != torch.float32}
    for (x, y), loss in zip(data, losses, strict=True):
        ref_optimizer.zero_grad()
        ref_loss = reference(x, y)[1]
        ref_loss.backward()
        ref_optimizer.step()
        _round_state(ref_optimizer, rounded)
        torch.testing.assert_close(loss, ref_loss.detach(), **FP32)

    state = optimizer.state_dict()["state"]
    for index, ((name, param), ref_param) in enumerate(zip(model.named_parameters(), reference.parameters(), strict=True)):
        torch.testing.assert_close(param.detach(), ref_param.detach(), **FP32, msg=lambda m, n=name: f"{n}: {m}")
        for key, dtype in dtypes.items():
            got = state[index][key]
            assert got.dtype == dtype, f"{name} {key}: stored as {got.dtype}, asked for {dtype}"
            want = ref_optimizer.state[ref_param][key].to(dtype)
            torch.testing.assert_close(got, want, **FP32, msg=lambda m, n=name, k=key: f"{n} {k}: {m}")
    assert not any("accum_type" in w for w in poptorch_warnings(caplog))  # no "not stored in that dtype" warning


def test_float16_gradient_accumulators_keep_a_running_mean():
    """accum_type=float16 with gradientAccumulation 2: the accumulators are float16 and keep the
    running mean (forced by the float16 accumulator, as in PopTorch); SGD applies their mean."""
    torch.manual_seed(0)
    model = _Model()
    reference = copy.deepcopy(model)
    accumulation = 2
    data = _data(2 * accumulation)
    options = poptorch.Options()
    options.Training.gradientAccumulation(accumulation)
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.5, accum_type=torch.float16)
    _train(model, optimizer, data, options)

    ref_optimizer = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.5)
    params = list(reference.parameters())
    for x, y in data:
        accumulators = [torch.zeros_like(p, dtype=torch.float16) for p in params]
        for count, rows in enumerate((slice(0, 2), slice(2, 4)), start=1):
            reference.zero_grad()
            reference(x[rows], y[rows])[1].backward()
            for accumulator, p in zip(accumulators, params, strict=True):
                grad = p.grad.to(torch.float16)
                accumulator.add_((grad - accumulator) / count)
        for accumulator, p in zip(accumulators, params, strict=True):
            p.grad = accumulator.float()
        ref_optimizer.step()
    for param, ref_param in zip(model.parameters(), params, strict=True):
        torch.testing.assert_close(param.detach(), ref_param.detach(), **FP32)
        # The separate variant's velocity was not given a dtype: it keeps the weight's.
        assert optimizer.state[param]["momentum_buffer"].dtype == torch.float32


def test_combined_variant_ignores_state_dtypes_and_says_so(caplog):
    model = _Model()
    optim.SGD(model.parameters(), lr=0.1, momentum=0.9, use_combined_accum=True, velocity_accum_type=torch.float16)
    (warning,) = poptorch_warnings(caplog)
    assert "use_combined_accum=True) ignores velocity_accum_type" in warning

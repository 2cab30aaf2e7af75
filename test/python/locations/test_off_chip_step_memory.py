"""The memory of a training step with weights and optimizer state off chip (issue 19 item 5):
the IPU Model holds an off-chip variable once, in its remote buffer. A load shares that
buffer (no on-chip copy, none kept between steps), so the step's live tensors stay within
what the model needs, and the numbers stay eager PyTorch's exactly."""

from __future__ import annotations

import copy

import torch

import poptorch

WIDTH, LAYERS, BATCH, STEPS = 512, 3, 4, 3


def _model() -> torch.nn.Module:
    torch.manual_seed(0)
    layers: list[torch.nn.Module] = []
    for _ in range(LAYERS):
        layers += [torch.nn.Linear(WIDTH, WIDTH), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers)


class WithLoss(torch.nn.Module):
    def __init__(self, body: torch.nn.Module) -> None:
        super().__init__()
        self.body = body

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.body(x)
        return out, torch.nn.functional.mse_loss(out, y)


def _batches() -> list[tuple[torch.Tensor, torch.Tensor]]:
    generator = torch.Generator().manual_seed(1)
    return [(torch.randn(BATCH, WIDTH, generator=generator), torch.randn(BATCH, WIDTH, generator=generator))
            for _ in range(STEPS)]


def test_off_chip_step_holds_each_variable_once_and_matches_eager() -> None:
    model = WithLoss(_model())
    reference = copy.deepcopy(model)
    eager_optimizer = torch.optim.SGD(reference.parameters(), lr=0.01, momentum=0.9)
    options = poptorch.Options()
    off_chip = poptorch.TensorLocationSettings().useOnChipStorage(False)
    options.TensorLocations.setWeightLocation(off_chip)
    options.TensorLocations.setOptimizerLocation(off_chip)
    training = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9))

    peak: dict[str, int] = {}
    for step, (x, y) in enumerate(_batches()):
        eager_optimizer.zero_grad()
        eager_out, eager_loss = reference(x, y)
        eager_loss.backward()
        eager_optimizer.step()
        if step < STEPS - 1:
            out, loss = training(x, y)
        else:  # the steady state: the last step, observed op by op
            with training._compiled.program.peak_live_bytes(training._stores) as observed:
                out, loss = training(x, y)
            peak.update(observed)
        assert torch.equal(out, eager_out.detach()), f"step {step}: output"
        assert torch.equal(loss, eager_loss.detach()), f"step {step}: loss"
    training.copyWeightsToHost()
    for name, value in reference.state_dict().items():
        assert torch.equal(model.state_dict()[name], value), f"weight {name}"

    # The bound, from the model: P bytes of weights and as many of velocities live in
    # streaming memory (2P); the backward pass holds every gradient before the update (P);
    # each variable's update runs in place on its loaded buffer (stored right after), so
    # no new weight or velocity takes memory of its own; the activations, their gradients
    # and the outputs of a batch of 4 are a few 2 KiB rows each (under 64 KiB, against
    # P = 3 MiB). New values written back at the step's end (2P more) or a load buffer
    # per variable (on-chip copies, kept or live to the update: 2P) would exceed it.
    params = sum(p.numel() * p.element_size() for p in model.parameters())
    assert peak["streaming"] == 2 * params, peak
    bound = 3 * params + 64 * 1024
    assert sum(peak.values()) <= bound, f"peak live bytes {sum(peak.values()):,} > {bound:,}: {peak}"

"""The README demo: a PopTorch training script run unchanged on two emulated IPUs.

A small classifier, split into two blocks with ``poptorch.BeginBlock`` (IPU 0 and IPU 1),
learns a synthetic 4-class problem with ``poptorch.trainingModel``: forward, backward
and AdamW are compiled into one pipelined program on the IPU Model (3 pipeline stages,
4 device iterations x 4 accumulated micro-batches per host call, the two IPUs running
in worker threads). It prints the schedule and the loss going down, then evaluates with
a ``poptorch.inferenceModel`` of the same model, which picks up the trained weights by
itself, and checks the host copy of the weights against a second model trained the same
way by eager PyTorch.
"""

from __future__ import annotations

import copy
import time

import torch
import torch.nn as nn
from tqdm import tqdm

import poptorch


def make_data(samples: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    centers = torch.tensor([[2.0, 2.0], [-2.0, 2.0], [-2.0, -2.0], [2.0, -2.0]])
    labels = torch.randint(0, 4, (samples,), generator=generator)
    points = centers[labels] + 1.2 * torch.randn(samples, 2, generator=generator)
    features = torch.cat([points, points**2, points.prod(dim=1, keepdim=True)], dim=1)
    return features, labels


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(5, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))
        self.loss = nn.CrossEntropyLoss()
        poptorch.BeginBlock(self.net[0], "front", ipu_id=0)
        poptorch.BeginBlock(self.net[2], "back", ipu_id=1)  # the rest, loss included, on IPU 1

    def forward(self, x: torch.Tensor, labels: torch.Tensor | None = None):  # noqa: ANN201
        logits = self.net(x)
        if labels is None:
            return torch.softmax(logits, dim=-1)
        return logits, self.loss(logits, labels)


def main() -> None:
    generator = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    train_x, train_y = make_data(4096, generator)
    test_x, test_y = make_data(1024, generator)

    model = Classifier()
    reference = copy.deepcopy(model)  # trained by eager PyTorch, to compare with at the end

    # Pipelined training over p = 2 IPUs needs gradientAccumulation >= 2p - 1 = 3.
    micro_batch, device_iterations, accumulation = 16, 4, 4
    options = poptorch.Options().deviceIterations(device_iterations)
    options.Training.gradientAccumulation(accumulation)
    optimizer = poptorch.optim.AdamW(model.parameters(), lr=0.01)
    training = poptorch.trainingModel(model, options, optimizer)

    per_call = micro_batch * device_iterations * accumulation  # 256 samples per host call
    start = time.perf_counter()
    training.compile(train_x[:per_call], train_y[:per_call])
    print(f"compiled the training program (forward + backward + AdamW) in {time.perf_counter() - start:.2f} s")
    print(training.schedule())

    reference_optimizer = torch.optim.AdamW(reference.parameters(), lr=0.01)
    for epoch in range(4):
        losses = []
        bar = tqdm(range(0, len(train_x), per_call), desc=f"epoch {epoch}", unit="call")
        for begin in bar:
            _, loss = training(train_x[begin : begin + per_call], train_y[begin : begin + per_call])
            losses.append(float(loss))  # Final output mode: the last micro-batch's loss
            bar.set_postfix(loss=f"{sum(losses) / len(losses):.4f}")
            for step in range(device_iterations):  # the same optimizer steps, eagerly
                reference_optimizer.zero_grad()
                for micro in range(accumulation):
                    offset = begin + (step * accumulation + micro) * micro_batch
                    _, eager_loss = reference(train_x[offset : offset + micro_batch], train_y[offset : offset + micro_batch])
                    (eager_loss / accumulation).backward()
                reference_optimizer.step()
        print(f"epoch {epoch}: loss {sum(losses) / len(losses):.4f} (mean over calls, on the emulated IPU)")

    # Sees the trained weights by itself; pipelined inference needs deviceIterations >= 2.
    evaluation = poptorch.inferenceModel(model.eval(), poptorch.Options().deviceIterations(4))
    probabilities = evaluation(test_x)
    accuracy = float((probabilities.argmax(dim=1) == test_y).float().mean())
    print(f"test accuracy on the emulated IPU: {accuracy:.3f}")

    # Reading model's parameters brings the device's weights back to the host first.
    difference = max((p - q).abs().max().item() for p, q in zip(model.parameters(), reference.parameters(), strict=True))
    print(f"largest weight difference from eager PyTorch + torch.optim.AdamW after training: {difference:.2e}")
    for ipu, usage in training._compiled.memory_per_ipu().items():
        print(f"IPU {ipu}: {usage['total']} bytes ({usage['variables']} in variables, {usage['temporaries']} peak "
              f"temporaries, {usage['stash']} stashed for micro-batches in flight)")


if __name__ == "__main__":
    main()

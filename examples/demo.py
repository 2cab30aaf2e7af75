"""The README demo: a PopTorch script run unchanged on the emulated IPU.

A small classifier on a synthetic 4-class problem is trained for a few epochs with
plain PyTorch on the CPU, then evaluated with ``poptorch.inferenceModel`` on the IPU
Model (deviceIterations = 4): it prints the accuracy on the emulated IPU, the largest
difference from eager PyTorch, the compile time and the memory the program uses per IPU.
"""

from __future__ import annotations

import time

import torch
import torch.nn as nn

import poptorch


def make_data(samples: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    centers = torch.tensor([[2.0, 2.0], [-2.0, 2.0], [-2.0, -2.0], [2.0, -2.0]])
    labels = torch.randint(0, 4, (samples,), generator=generator)
    points = centers[labels] + torch.randn(samples, 2, generator=generator)
    features = torch.cat([points, points**2, points.prod(dim=1, keepdim=True)], dim=1)
    return features, labels


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(5, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.net(x), dim=-1)


def main() -> None:
    generator = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    train_x, train_y = make_data(2048, generator)
    test_x, test_y = make_data(512, generator)

    model = Classifier()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(5):
        for start in range(0, len(train_x), 64):
            optimizer.zero_grad()
            probs = model(train_x[start : start + 64])
            loss = nn.functional.nll_loss(torch.log(probs), train_y[start : start + 64])
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: training loss {loss.item():.4f} (eager PyTorch on the CPU)")
    model.eval()

    options = poptorch.Options().deviceIterations(4)
    ipu_model = poptorch.inferenceModel(model, options)
    start = time.perf_counter()
    ipu_model.compile(test_x[:128])
    print(f"compiled for the IPU Model in {time.perf_counter() - start:.2f} s")

    correct, max_diff = 0, 0.0
    for start in range(0, len(test_x), 128):  # 4 device iterations of 32 samples per call
        batch = test_x[start : start + 128]
        probs = ipu_model(batch)
        with torch.no_grad():
            max_diff = max(max_diff, (probs - model(batch)).abs().max().item())
        correct += int((probs.argmax(dim=1) == test_y[start : start + 128]).sum())
    print(f"accuracy on the emulated IPU: {correct / len(test_x):.3f} ({correct}/{len(test_x)})")
    print(f"largest difference from eager PyTorch: {max_diff:.3e}")
    for ipu, usage in ipu_model._compiled.memory_per_ipu().items():
        print(f"IPU {ipu}: {usage['total']} bytes ({usage['variables']} in variables, {usage['temporaries']} peak temporaries)")


if __name__ == "__main__":
    main()

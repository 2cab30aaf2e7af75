"""The training loop of the PopTorch introduction, fed by ``poptorch.DataLoader``.

A model with its loss inside ``forward`` is wrapped with ``poptorch.trainingModel`` and
``torch.optim.AdamW``; the loop has no ``.backward()`` and no ``.step()``: each call of the
wrapped model runs forward, backward and the optimizer on the (emulated) IPU. The
``poptorch.DataLoader`` yields ``combinedBatchSize`` = batch_size x deviceIterations
samples per call, read in a worker process with ``--mode Async``. A tqdm bar shows each
epoch's progress and its running loss.

    python examples/train_dataloader.py [--epochs 3] [--samples 4000] [--mode Sync|Async|AsyncRebatched]
"""

from __future__ import annotations

import argparse

import torch
from tqdm import tqdm

import poptorch


class ExampleDataset(torch.utils.data.Dataset):
    """Random features; the label is the largest of a fixed projection, so it can be learnt."""

    def __init__(self, shape: list[int], length: int) -> None:
        self._shape, self._length = shape, length
        self._projection = torch.randn(shape[-1], 10, generator=torch.Generator().manual_seed(42))

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        x = torch.randn(self._shape, generator=torch.Generator().manual_seed(index))
        return x, (x @ self._projection).argmax()


class ExampleModelWithLoss(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(10, 10)
        self.loss = torch.nn.CrossEntropyLoss()

    def forward(self, x: torch.Tensor, target: torch.Tensor | None = None):  # noqa: ANN201
        fc = self.fc(x)
        if self.training:
            return fc, self.loss(fc, target)
        return fc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--samples", type=int, default=4000)
    parser.add_argument("--mode", default="Sync", choices=poptorch.DataLoaderMode.choices())
    args = parser.parse_args()

    torch.manual_seed(0)
    model = ExampleModelWithLoss()
    opts = poptorch.Options().deviceIterations(4)
    # The optimizer goes to the wrapper, which applies it on the IPU: no .step() below.
    poptorch_model = poptorch.trainingModel(model, opts, optimizer=torch.optim.AdamW(model.parameters(), lr=0.01))
    training_data = poptorch.DataLoader(opts, ExampleDataset(shape=[10], length=args.samples), batch_size=10,
                                        shuffle=True, drop_last=True, mode=args.mode)
    print(f"{len(training_data)} steps of combinedBatchSize {training_data.combinedBatchSize} per epoch", flush=True)
    for epoch in range(args.epochs):
        total, steps = 0.0, 0
        bar = tqdm(training_data, desc=f"epoch {epoch}", unit="step")
        for data, labels in bar:
            _output, loss = poptorch_model(data, labels)  # forward, backward and AdamW; no .backward()
            total, steps = total + float(loss), steps + 1
            bar.set_postfix(loss=f"{total / steps:.4f}")
        bar.close()
        print(f"epoch {epoch}: mean loss {total / steps:.4f}", flush=True)
    training_data.terminate()


if __name__ == "__main__":
    main()

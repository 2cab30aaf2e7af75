"""PyTorch Lightning 2.6 on the emulated IPUs: an MNIST-like classifier on synthetic data.

There are no downloads: each "digit" is a fixed random 28x28 prototype of its class plus
noise. The LightningModule is ordinary Lightning code, with ``self.log`` in its
``training_step`` and ``validation_step``; ``import ipu_mlir.lightning`` registers the
accelerator and strategy "ipu". The run shows Lightning's own progress bar, writes the
logged metrics with ``CSVLogger`` and a checkpoint with ``ModelCheckpoint``, then tests
the model loaded back from that checkpoint.

    python examples/lightning_mnist_like.py [--epochs 3] [--samples 2048] [--out lightning_logs]
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import lightning.pytorch as pl
import torch
import torch.nn.functional as F
from lightning.pytorch.callbacks import ModelCheckpoint
from lightning.pytorch.loggers import CSVLogger

import ipu_mlir.lightning  # noqa: F401 - registers accelerator="ipu" and strategy="ipu"


class SyntheticDigits(torch.utils.data.Dataset):
    """Class prototypes plus noise; the same prototypes for every split (seed 0)."""

    def __init__(self, samples: int, seed: int) -> None:
        prototypes = torch.randn(10, 1, 28, 28, generator=torch.Generator().manual_seed(0))
        g = torch.Generator().manual_seed(seed)
        self.labels = torch.randint(0, 10, (samples,), generator=g)
        self.images = 0.6 * prototypes[self.labels] + 2.0 * torch.randn(samples, 1, 28, 28, generator=g)

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.images[index], self.labels[index]


class Classifier(pl.LightningModule):
    def __init__(self, lr: float = 0.05) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.net = torch.nn.Sequential(
            torch.nn.Conv2d(1, 8, 3, stride=2), torch.nn.ReLU(), torch.nn.Flatten(),
            torch.nn.Linear(8 * 13 * 13, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)

    def _metrics(self, batch, prefix: str) -> torch.Tensor:
        images, labels = batch
        logits = self(images)
        loss = F.cross_entropy(logits, labels)
        accuracy = (logits.argmax(-1) == labels).float().mean()
        self.log_dict({f"{prefix}_loss": loss, f"{prefix}_acc": accuracy}, prog_bar=True, on_epoch=True)
        return loss

    def training_step(self, batch, batch_idx):
        return self._metrics(batch, "train")

    def validation_step(self, batch, batch_idx):
        self._metrics(batch, "val")

    def test_step(self, batch, batch_idx):
        self._metrics(batch, "test")

    def configure_optimizers(self):
        optimizer = torch.optim.SGD(self.parameters(), lr=self.hparams.lr, momentum=0.9)
        return [optimizer], [torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.7)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--samples", type=int, default=2048)
    parser.add_argument("--out", default="lightning_logs")
    args = parser.parse_args()

    def loader(samples: int, seed: int, shuffle: bool) -> torch.utils.data.DataLoader:
        return torch.utils.data.DataLoader(SyntheticDigits(samples, seed), batch_size=16, shuffle=shuffle)

    logger = CSVLogger(args.out, name="mnist_like")
    checkpoint = ModelCheckpoint(monitor="val_acc", mode="max", filename="best-{epoch}-{val_acc:.3f}")
    trainer = pl.Trainer(accelerator="ipu", strategy="ipu", devices=1, max_epochs=args.epochs, logger=logger,
                         callbacks=[checkpoint], log_every_n_steps=8, enable_model_summary=False)
    trainer.fit(Classifier(), loader(args.samples, 1, True), loader(args.samples // 4, 2, False))

    print(f"best checkpoint: {checkpoint.best_model_path}")
    best = Classifier.load_from_checkpoint(checkpoint.best_model_path)
    results = trainer.test(best, loader(args.samples // 4, 3, False), verbose=False)[0]
    with open(Path(logger.log_dir) / "metrics.csv") as f:
        rows = [row for row in csv.DictReader(f) if row.get("val_acc")]
    for row in rows:
        print(f"epoch {row['epoch']}: val_loss {float(row['val_loss']):.4f} val_acc {float(row['val_acc']):.3f}")
    print(f"test accuracy of the checkpoint: {results['test_acc']:.3f}")


if __name__ == "__main__":
    main()

"""Tiny LightningModules and data for the Lightning tests (no randomness in the loop)."""

from __future__ import annotations

import lightning.pytorch as pl
import torch
import torch.nn.functional as F


def dataset(n: int = 32, features: int = 4, seed: int = 0) -> torch.utils.data.TensorDataset:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, features, generator=g)
    w = torch.randn(features, 1, generator=g)
    return torch.utils.data.TensorDataset(x, x @ w + 0.1)


def loader(n: int = 32, batch_size: int = 4, **kwargs) -> torch.utils.data.DataLoader:
    return torch.utils.data.DataLoader(dataset(n), batch_size=batch_size, shuffle=False, **kwargs)


class Regressor(pl.LightningModule):
    def __init__(self, lr: float = 0.05, momentum: float = 0.0, scheduler: bool = False) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
        self.lr, self.momentum, self.scheduler = lr, momentum, scheduler

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.mse_loss(self(x), y)
        self.log("train_loss", loss, on_step=True, on_epoch=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", F.mse_loss(self(x), y))

    def test_step(self, batch, batch_idx):
        x, y = batch
        self.log("test_loss", F.mse_loss(self(x), y))
        self.log("test_mae", F.l1_loss(self(x), y))

    def predict_step(self, batch, batch_idx):
        return self(batch[0])

    def configure_optimizers(self):
        optimizer = torch.optim.SGD(self.parameters(), lr=self.lr, momentum=self.momentum)
        if not self.scheduler:
            return optimizer
        return [optimizer], [torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)]


def trainer(accelerator: str = "ipu", **kwargs) -> pl.Trainer:
    import ipu_mlir.lightning  # noqa: F401 - registers "ipu"

    defaults = dict(accelerator=accelerator, devices=1, max_epochs=2, logger=False, enable_checkpointing=False,
                    enable_progress_bar=False, enable_model_summary=False, num_sanity_val_steps=0)
    if accelerator == "ipu":
        defaults["strategy"] = "ipu"
    defaults.update(kwargs)
    return pl.Trainer(**defaults)

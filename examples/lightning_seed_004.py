"""The snippets of Lightning 1.x's "IPU support" page, on Lightning 2.6 and ipu-mlir.

Lightning 2 has no ``Trainer(ipus=N)`` and takes only precision / checkpoint / cluster
plugins in ``plugins=``, so each snippet is rewritten the way Lightning 2 requires:
``ipus=8`` becomes ``accelerator="ipu", strategy="ipu", devices=8`` and
``plugins=IPUPlugin(...)`` becomes ``strategy=IPUPlugin(...)`` (IPUPlugin is IPUStrategy's
old name). ``strategy="ipu"`` stays necessary: with ``strategy="auto"`` Lightning 2.6 picks
one of its built-in strategies without asking the accelerator. Everything else is as on the
page. ``devices`` means replicas, as ``ipus`` did: ``--devices 8`` (the page's value, the
default) runs 8 replicas of each step in this process (poptorch ``replicationFactor(8)``).
The synthetic dataset has 256 samples per replica, so each snippet takes the same number of
steps whatever ``--devices``.

    python examples/lightning_seed_004.py [--devices 8|1]
"""

from __future__ import annotations

import argparse
import warnings

import lightning.pytorch as pl
import torch
import torch.nn.functional as F

import ipu_mlir.lightning  # noqa: F401 - registers "ipu"
import poptorch
from ipu_mlir.lightning import IPUPlugin

Trainer = pl.Trainer
IPUS = 8
COMMON = dict(max_epochs=1, logger=False, enable_checkpointing=False, enable_model_summary=False)


class MyLightningModule(pl.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))

    def training_step(self, batch, batch_idx):
        x, y = batch
        self.replica_batch = x.shape[0]  # the micro-batch one replica's compiled step sees
        loss = F.mse_loss(self.net(x), y)
        self.log("train_loss", loss)  # not possible on the seed's IPUs; it is here
        return loss

    def train_dataloader(self):
        g = torch.Generator().manual_seed(0)
        x = torch.randn(256 * IPUS, 8, generator=g)
        return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, x.sum(1, keepdim=True)), batch_size=4)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)


def training_with_ipus():
    trainer = pl.Trainer(accelerator="ipu", strategy="ipu", devices=IPUS, **COMMON)  # was pl.Trainer(ipus=8)
    trainer.fit(MyLightningModule())
    return trainer


def mixed_precision():
    my_model = MyLightningModule()
    trainer = pl.Trainer(accelerator="ipu", strategy="ipu", devices=IPUS, precision=16, **COMMON)
    trainer.fit(my_model)
    return trainer


def pure_16_bit():
    my_model = MyLightningModule()
    trainer = pl.Trainer(accelerator="ipu", devices=IPUS, precision=16,
                         strategy=IPUPlugin(convert_model_to_half=True), **COMMON)
    trainer.fit(my_model)
    return trainer


def device_iterations():
    my_model = MyLightningModule()
    trainer = pl.Trainer(accelerator="ipu", devices=IPUS, strategy=IPUPlugin(device_iterations=32), **COMMON)
    trainer.fit(my_model)
    return trainer


def poptorch_options():
    my_model = MyLightningModule()
    inference_opts = poptorch.Options()
    inference_opts.deviceIterations(32)

    training_opts = poptorch.Options()
    training_opts.deviceIterations(32)

    trainer = Trainer(
        accelerator="ipu", devices=IPUS,
        strategy=IPUPlugin(inference_opts=inference_opts, training_opts=training_opts),
        **COMMON,
    )
    trainer.fit(my_model)
    return trainer


SNIPPETS = [training_with_ipus, mixed_precision, pure_16_bit, device_iterations, poptorch_options]


def main() -> None:
    global IPUS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=8)
    IPUS = parser.parse_args().devices
    warnings.filterwarnings("ignore", "IPUPlugin is IPUStrategy's old name")
    for snippet in SNIPPETS:
        trainer = snippet()
        loss = float(trainer.callback_metrics["train_loss"])
        replicas = trainer.strategy.training_opts.replication_factor
        batch = trainer.lightning_module.replica_batch
        print(f"{snippet.__name__}: {trainer.global_step} steps of {replicas} replicas x batch {batch}, "
              f"train_loss {loss:.4f}")


if __name__ == "__main__":
    main()

"""PyTorch Lightning 2.6 on the emulated IPUs (``pip install ipu-mlir[lightning]``).

Importing this module registers, through Lightning's public registries only:

- the accelerator ``"ipu"`` (:class:`IPUAccelerator`): ``devices`` counts replicas (1 or a
  power of two), run in this process by the IPU strategy;
- the strategy ``"ipu"`` (:class:`IPUStrategy`, alias :class:`IPUPlugin` for scripts
  written for Lightning 1.x), which runs the LightningModule's step functions compiled by
  ``poptorch.trainingModel`` / ``poptorch.inferenceModel``;
- :class:`IPUPrecision`, which the strategy substitutes for whatever precision plugin
  Lightning chose from ``precision=`` ("32-true", "16-mixed", "16-true", 16).

``accelerator="ipu"`` needs ``strategy="ipu"`` as well: with ``strategy="auto"`` Lightning
2.6 chooses among its built-in strategies without asking the accelerator (there is no public
hook for it), and the accelerator's ``setup`` then says to add ``strategy="ipu"``.

Example::

    import lightning.pytorch as pl
    import ipu_mlir.lightning  # registers "ipu"

    trainer = pl.Trainer(accelerator="ipu", strategy="ipu", devices=1, max_epochs=2)
    trainer.fit(MyLightningModule())
"""

from __future__ import annotations

from .accelerator import IPUAccelerator
from .precision import IPUPrecision
from .strategy import IPUPlugin, IPUStrategy


def register() -> None:
    """Register "ipu" with Lightning's accelerator and strategy registries (idempotent)."""
    from lightning.pytorch.accelerators import AcceleratorRegistry
    from lightning.pytorch.strategies import StrategyRegistry

    if "ipu" not in AcceleratorRegistry:
        AcceleratorRegistry.register("ipu", IPUAccelerator, description="ipu-mlir's emulated IPUs (IPU Model)")
    if "ipu" not in StrategyRegistry:
        StrategyRegistry.register("ipu", IPUStrategy, description="step functions compiled by poptorch (ipu-mlir)")


register()

__all__ = ["IPUAccelerator", "IPUPlugin", "IPUPrecision", "IPUStrategy", "register"]

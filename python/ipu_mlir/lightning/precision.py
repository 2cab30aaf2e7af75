"""``IPUPrecision``: Lightning's precision flags mapped onto PopTorch's half precision.

- ``"32-true"``: float32 weights and compute.
- ``"16-true"`` (or the strategy's ``convert_model_to_half=True``): PopTorch's pure float16,
  as ``model.half()`` in a PopTorch script: the weights, the optimizer update and the float
  inputs are float16.
- ``"16-mixed"`` (and the old ``16``): float32 master weights on the device, float16
  compute: the compiled step casts the weights and the float inputs to float16, so the
  gradients flow back through the casts into the float32 weights the optimizer updates.
  There is no loss scaling (as in the seed's Lightning 1.x IPU support); use
  ``poptorch.Options().Training.setAutomaticLossScaling(True)`` in ``training_opts`` if
  gradients underflow.

The step runs on the device: this plugin's ``backward`` and ``optimizer_step`` only run
Lightning's hooks around it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from lightning.pytorch.plugins.precision import Precision

_SUPPORTED = ("32-true", "16-mixed", "16-true")


class IPUPrecision(Precision):
    """Precision for the IPU strategy: ``precision`` is one of "32-true", "16-mixed", "16-true"."""

    def __init__(self, precision: str = "32-true") -> None:
        precision = {"16": "16-mixed", "32": "32-true"}.get(str(precision), str(precision))
        if precision not in _SUPPORTED:
            raise ValueError(
                f"Trainer(accelerator='ipu', precision={precision!r}): the IPU strategy supports precision "
                f"{', '.join(repr(p) for p in _SUPPORTED)} (and 16). bfloat16 and float64 are not IPU types")
        self.precision = precision

    @property
    def half_compute(self) -> bool:
        return self.precision in ("16-mixed", "16-true")

    def convert_module(self, module: torch.nn.Module) -> torch.nn.Module:
        return module.half() if self.precision == "16-true" else module

    def backward(self, tensor: torch.Tensor, model: Any, optimizer: Any, *args: Any, **kwargs: Any) -> None:
        """No host backward: the compiled step computed the gradients on the device."""

    def optimizer_step(self, optimizer: Any, model: Any, closure: Callable[[], Any], **kwargs: Any) -> Any:
        """Run the closure (the compiled step, which also updated the weights on the device)
        and Lightning's ``on_before_optimizer_step`` hooks; there is no host ``optimizer.step``."""
        result = closure()
        self._after_closure(model, optimizer)
        # The optimizer did step, on the device: tell torch's LR schedulers so, or each
        # scheduler.step() warns that it came before optimizer.step().
        getattr(optimizer, "optimizer", optimizer)._opt_called = True
        return result


def from_lightning(plugin: Precision | None) -> IPUPrecision:
    """The IPU precision for the plugin Lightning built from ``Trainer(precision=...)``."""
    if plugin is None or isinstance(plugin, IPUPrecision):
        return plugin or IPUPrecision()
    name = getattr(plugin, "precision", None)
    if type(plugin) is Precision or name is None:
        return IPUPrecision("32-true")
    return IPUPrecision(str(name))

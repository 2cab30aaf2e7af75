"""``IPUAccelerator``: Lightning's accelerator for ipu-mlir's emulated IPUs."""

from __future__ import annotations

from typing import Any

import torch
from lightning.pytorch.accelerators import Accelerator


def _replicas(devices: Any) -> int:
    """The number of replicas asked for by ``Trainer(devices=...)``: an int (or a digit
    string) that is 1 or a power of two."""
    if isinstance(devices, str) and devices.strip().isdigit():
        devices = int(devices)
    if isinstance(devices, list | tuple):
        raise ValueError(
            f"Trainer(accelerator='ipu', devices={devices!r}): IPUs are not picked by index; pass the number of "
            "replicas instead, e.g. devices=1")
    if devices == "auto" or devices is None:
        devices = 1
    if isinstance(devices, bool) or not isinstance(devices, int) or devices < 1:
        raise ValueError(
            f"Trainer(accelerator='ipu', devices={devices!r}): devices is the number of model replicas, a positive "
            "integer (1 or a power of two)")
    if devices & (devices - 1):
        raise ValueError(
            f"Trainer(accelerator='ipu', devices={devices}): the number of IPUs (replicas) must be 1 or a power of "
            f"two (2, 4, 8...), as on IPU hardware; use devices={1 << (devices.bit_length() - 1)} or "
            f"{1 << devices.bit_length()}")
    return devices


class IPUAccelerator(Accelerator):
    """The emulated IPUs (IPU Model): tensors live on the host CPU, the compiled step runs
    on the emulator. ``devices`` is the number of replicas, 1 or a power of two: the IPU
    strategy runs them in this process (poptorch ``replicationFactor(devices)``), each on its
    own slice of every combined batch, with the gradients reduced across them."""

    def setup_device(self, device: torch.device) -> None:
        if device.type != "cpu":
            raise ValueError(f"IPUAccelerator: the emulated IPUs exchange tensors through the host CPU, got {device}")

    def setup(self, trainer: Any) -> None:
        from .strategy import IPUStrategy

        if not isinstance(trainer.strategy, IPUStrategy):
            raise ValueError(
                f"Trainer(accelerator='ipu') runs with the IPU strategy, but Lightning picked "
                f"{type(trainer.strategy).__name__}: with strategy='auto' (the default) Lightning 2.6 chooses one of "
                "its built-in strategies (SingleDeviceStrategy for one device, DDP for more) without asking the "
                "accelerator, and offers no public way for an accelerator to choose its strategy. Pass "
                "strategy='ipu' (or strategy=ipu_mlir.lightning.IPUStrategy(...)) as well")

    def teardown(self) -> None:
        pass

    @staticmethod
    def parse_devices(devices: Any) -> int:
        return _replicas(devices)

    @staticmethod
    def get_parallel_devices(devices: Any) -> list[torch.device]:
        return [torch.device("cpu")] * _replicas(devices)

    @staticmethod
    def auto_device_count() -> int:
        return 1

    @staticmethod
    def is_available() -> bool:
        return True  # the IPU Model emulator runs on any host

    def get_device_stats(self, device: Any) -> dict[str, Any]:
        return {}

    @staticmethod
    def name() -> str:
        return "ipu"

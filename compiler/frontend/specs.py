"""The tensor specs of a capture, in a module of their own: what an executable file restores
without importing the capture machinery (torch.export, the FX importer)."""

from __future__ import annotations

import dataclasses

import torch


@dataclasses.dataclass(frozen=True)
class TensorSpec:
    """A function argument or result: its name, shape and dtype."""

    name: str
    shape: tuple[int, ...]
    dtype: torch.dtype


__all__ = ["TensorSpec"]

"""Models of the executable tests, importable by name, so that a pickled (exported) model
loads in a fresh subprocess that puts this folder on sys.path."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F


class DropoutClassifier(torch.nn.Module):
    """Linear(6, 8) -> dropout -> Linear(8, 3); with a target also the cross-entropy loss.
    The dropout makes a training step draw from the random stream."""

    def __init__(self) -> None:
        super().__init__()
        self.l1 = torch.nn.Linear(6, 8)
        self.drop = torch.nn.Dropout(0.5)
        self.l2 = torch.nn.Linear(8, 3)

    def forward(self, x: torch.Tensor, y: torch.Tensor | None = None) -> Any:
        out = self.l2(self.drop(torch.relu(self.l1(x))))
        if y is None:
            return out
        return out, F.cross_entropy(out, y)


class Wider(DropoutClassifier):
    """The same parameter names as DropoutClassifier, another shape."""

    def __init__(self) -> None:
        super().__init__()
        self.l1 = torch.nn.Linear(6, 9)
        self.l2 = torch.nn.Linear(9, 3)

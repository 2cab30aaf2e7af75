"""Datasets for the data-loading tests, in a module of their own: an AsynchronousDataAccessor
worker started with ForkServer or a spawn strategy unpickles them by import."""

from __future__ import annotations

import math
import os
import signal
import time

import torch
import torch.utils.data


def sample(index: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Sample ``index``: features that name it, and a label."""
    return torch.arange(4, dtype=torch.float32) + 10.0 * index, torch.tensor(index % 3)


class Squares(torch.utils.data.Dataset):
    """A map-style dataset of ``size`` samples."""

    def __init__(self, size: int) -> None:
        self.size = size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        return sample(index)


class DictSamples(Squares):
    """Samples as dicts."""

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:  # type: ignore[override]
        x, y = sample(index)
        return {"x": x, "y": y}


class Stream(torch.utils.data.IterableDataset):
    """An iterable dataset of ``size`` samples; each torch worker reads its own contiguous
    slice (the torch convention, through get_worker_info)."""

    def __init__(self, size: int) -> None:
        self.size = size

    def __len__(self) -> int:
        return self.size

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        start, stop = 0, self.size
        if info is not None:
            per_worker = math.ceil(self.size / info.num_workers)
            start = info.id * per_worker
            stop = min(self.size, start + per_worker)
        for index in range(start, stop):
            yield sample(index)


class Failing(Squares):
    """Raises in __getitem__ at index ``bad``."""

    def __init__(self, size: int, bad: int) -> None:
        super().__init__(size)
        self.bad = bad

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        if index == self.bad:
            raise KeyError(f"sample {index} is missing")
        return sample(index)


class SelfKilling(Squares):
    """The loading process kills itself with SIGKILL at index ``bad``."""

    def __init__(self, size: int, bad: int) -> None:
        super().__init__(size)
        self.bad = bad

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        if index == self.bad:
            os.kill(os.getpid(), signal.SIGKILL)
        return sample(index)


class Slow(Squares):
    """Sleeps ``delay`` seconds per sample."""

    def __init__(self, size: int, delay: float) -> None:
        super().__init__(size)
        self.delay = delay

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        time.sleep(self.delay)
        return sample(index)

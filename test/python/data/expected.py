"""What a loader must yield: the sample indices of each item, computed from the rules
(SEMANTICS "Data") rather than by running torch's loader."""

from __future__ import annotations

import math

import torch


def indices_of(batch) -> list[int]:
    """The sample indices in a batch of loader_datasets samples (features name them)."""
    x = batch["x"] if isinstance(batch, dict) else batch[0]
    return [int(v) // 10 for v in x[:, 0].tolist()]


def map_style(size: int, combined: int, drop_last: bool) -> list[list[int]]:
    order = list(range(size))
    batches = [order[i:i + combined] for i in range(0, size, combined)]
    return [b for b in batches if len(b) == combined or not drop_last]


def _worker_batches(size: int, workers: int, batch: int, drop_last: bool) -> list[list[int]]:
    """torch's order for an iterable dataset: each worker batches its own slice, and the
    loader takes one batch from each worker in turn."""
    if workers == 0:
        slices = [list(range(size))]
    else:
        per_worker = math.ceil(size / workers)
        slices = [list(range(w * per_worker, min(size, (w + 1) * per_worker))) for w in range(workers)]
    queues = []
    for part in slices:
        batches = [part[i:i + batch] for i in range(0, len(part), batch)]
        queues.append([b for b in batches if len(b) == batch or not drop_last])
    out = []
    while any(queues):
        for queue in queues:
            if queue:
                out.append(queue.pop(0))
    return out


def iterable(size: int, combined: int, drop_last: bool, workers: int) -> list[list[int]]:
    return _worker_batches(size, workers, combined, drop_last)


def rebatched(size: int, combined: int, drop_last: bool, workers: int, worker_batch: int | None = None) -> list[list[int]]:
    """AsyncRebatched on an iterable dataset: the workers' batches (incomplete ones too)
    joined in arrival order and cut into batches of ``combined``."""
    flat = [i for b in _worker_batches(size, workers, worker_batch or combined, False) for i in b]
    batches = [flat[i:i + combined] for i in range(0, len(flat), combined)]
    return [b for b in batches if len(b) == combined or not drop_last]


def same_batches(got: list, want: list[list[int]]) -> None:
    assert [indices_of(b) for b in got] == want
    for batch in got:
        x, y = (batch["x"], batch["y"]) if isinstance(batch, dict) else batch
        idx = torch.tensor(indices_of(batch))
        torch.testing.assert_close(x, torch.arange(4.0)[None, :] + 10.0 * idx[:, None].float(), rtol=0, atol=0)
        torch.testing.assert_close(y, idx % 3, rtol=0, atol=0)

"""Batches as trees of tensors (dicts, lists, tuples, namedtuples): flattening a batch into
its tensors and a picklable structure, rebuilding it, and rebatching items along dim 0.
Used by the AsynchronousDataAccessor, whose ring buffer holds the flat tensors."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import torch


class _Leaf:
    """Stands for the tensor at ``index`` of a batch's flat tensor list."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


def flatten(obj: Any, tensors: list[torch.Tensor]) -> Any:
    """The batch's structure with each tensor replaced by a _Leaf (tensors appended)."""
    if isinstance(obj, torch.Tensor):
        tensors.append(obj)
        return _Leaf(len(tensors) - 1)
    if isinstance(obj, dict):
        return type(obj)((key, flatten(value, tensors)) for key, value in obj.items())
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(flatten(value, tensors) for value in obj))
    if isinstance(obj, (tuple, list)):
        return type(obj)(flatten(value, tensors) for value in obj)
    return obj


def rebuild(structure: Any, tensors: list[torch.Tensor]) -> Any:
    if isinstance(structure, _Leaf):
        return tensors[structure.index]
    if isinstance(structure, dict):
        return type(structure)((key, rebuild(value, tensors)) for key, value in structure.items())
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*(rebuild(value, tensors) for value in structure))
    if isinstance(structure, (tuple, list)):
        return type(structure)(rebuild(value, tensors) for value in structure)
    return structure


def has_plain_leaf(structure: Any) -> bool:
    if isinstance(structure, _Leaf):
        return False
    if isinstance(structure, dict):
        return any(has_plain_leaf(value) for value in structure.values())
    if isinstance(structure, (tuple, list)):
        return any(has_plain_leaf(value) for value in structure)
    return True


def rebatched(items: Any, size: int, drop_last: bool) -> Iterator[Any]:
    """Join the items' tensors along dim 0 and cut them into batches of ``size``."""
    pending: list[list[torch.Tensor]] = []
    rows = 0
    structure = None
    for item in items:
        tensors: list[torch.Tensor] = []
        structure = flatten(item, tensors)
        if has_plain_leaf(structure) or not tensors or any(t.dim() == 0 for t in tensors):
            raise TypeError(
                "AsynchronousDataAccessor(rebatched_size=...): rebatching joins batches along dim 0, so every leaf "
                f"of each item must be a tensor with a batch dimension; got {type(item).__name__} {item!r:.200}")
        count = tensors[0].shape[0]
        if any(t.shape[0] != count for t in tensors):
            raise ValueError("AsynchronousDataAccessor(rebatched_size=...): the tensors of one item have different "
                             f"batch sizes {[t.shape[0] for t in tensors]}")
        pending.append(tensors)
        rows += count
        while rows >= size:
            joined = [torch.cat(parts) for parts in zip(*pending, strict=True)] if len(pending) > 1 else pending[0]
            yield rebuild(structure, [t[:size] for t in joined])
            rows -= size
            pending = [[t[size:] for t in joined]] if rows else []
    if rows and not drop_last:
        joined = [torch.cat(parts) for parts in zip(*pending, strict=True)]
        yield rebuild(structure, joined)

"""Replicated tensor sharding on the host side: a sharded variable (``poplar.replica_shard``)
holds one replica's part of a tensor, so the host writes it part by part and reads it back
by joining every replica's part (the compiler's rule: flattened, zero-padded to R * s,
replica r holds elements [r s, (r + 1) s))."""

from __future__ import annotations

from typing import Any

import torch


def split(shard: Any, value: torch.Tensor) -> list[torch.Tensor]:
    """The part of ``value`` (the whole tensor) each replica holds, in rank order."""
    flat = value.detach().reshape(-1)
    if flat.numel() != shard.elements:
        raise ValueError(f"a tensor sharded as {list(shard.shape)} takes {shard.elements} elements, got shape "
                         f"{list(value.shape)}")
    padded = torch.zeros(shard.padded, dtype=value.dtype)
    padded[: shard.elements] = flat
    return [padded[rank * shard.part:(rank + 1) * shard.part].clone() for rank in range(shard.replicas)]


def join(shard: Any, parts: list[torch.Tensor]) -> torch.Tensor:
    """The whole tensor from every replica's part, in rank order."""
    if len(parts) != shard.replicas:
        raise ValueError(f"a tensor sharded across {shard.replicas} replicas needs {shard.replicas} parts, "
                         f"got {len(parts)}")
    return torch.cat([part.reshape(-1).to("cpu") for part in parts])[: shard.elements].reshape(shard.shape)

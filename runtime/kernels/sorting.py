"""Sorting kernels: ``popops_sort_key_value`` (``torch.sort`` with the values permuted
as the keys) and ``popops_top_k`` (``torch.topk``)."""

from __future__ import annotations

import torch
from torch_mlir import ir

from .base import KERNELS, Kernel, attr, tensor_type


@KERNELS.register("poplar.popops_sort_key_value")
def _sort_key_value(op: ir.Operation) -> Kernel:
    dim, descending, stable = attr(op, "dim"), attr(op, "descending"), attr(op, "stable")

    def sort(keys: torch.Tensor, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        sorted_keys, permutation = torch.sort(keys, dim=dim, descending=descending, stable=stable)
        return sorted_keys, torch.gather(values, dim, permutation)

    return sort


@KERNELS.register("poplar.popops_top_k")
def _top_k(op: ir.Operation) -> Kernel:
    dim, k, largest, ordered = attr(op, "dim"), attr(op, "k"), attr(op, "largest"), attr(op, "sorted")
    index_dtype = tensor_type(op.results[1])[1]

    def top_k(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        values, indices = torch.topk(x, k, dim=dim, largest=largest, sorted=ordered)
        return values, indices if indices.dtype == index_dtype else indices.to(index_dtype)

    return top_k

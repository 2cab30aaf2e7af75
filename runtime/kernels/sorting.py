"""Sorting kernels: ``popops_sort_key_value`` (``torch.sort`` with the values permuted
as the keys), ``popops_top_k`` (``torch.topk``), ``popops_order_statistic``
(``torch.kthvalue`` / ``median`` / ``nanmedian`` / ``mode``, whose positions of repeated
values only these functions reproduce) and ``popops_search_sorted`` (``torch.searchsorted``)."""

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


# statistic -> the torch function whose values and positions it gives
_STATISTICS = {
    "kth_value": torch.kthvalue, "median": torch.median, "nan_median": torch.nanmedian, "mode": torch.mode,
}


@KERNELS.register("poplar.popops_order_statistic")
def _order_statistic(op: ir.Operation) -> Kernel:
    statistic, dim, k, keep = attr(op, "statistic"), attr(op, "dim"), attr(op, "k"), attr(op, "keep_dims")
    fn, index_dtype = _STATISTICS[statistic], tensor_type(op.results[1])[1]
    args = (k,) if statistic == "kth_value" else ()

    def select(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        values, indices = fn(x, *args, dim=dim, keepdim=keep)
        return values, indices.to(index_dtype)

    return select


@KERNELS.register("poplar.popops_search_sorted")
def _search_sorted(op: ir.Operation) -> Kernel:
    right, out_int32 = attr(op, "right"), tensor_type(op.results[0])[1] == torch.int32

    def search(sequence: torch.Tensor, x: torch.Tensor, *sorter: torch.Tensor) -> torch.Tensor:
        return torch.searchsorted(sequence, x, right=right, out_int32=out_int32, sorter=sorter[0] if sorter else None)

    return search

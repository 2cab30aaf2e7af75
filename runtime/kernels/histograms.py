"""Histogram and segment kernels: ``popops_histogram`` (``torch.histc`` /
``torch.histogram`` / ``torch.histogramdd``, each convention by its own torch function,
since their bin placement differs at the edges) and ``popops_segment_reduce`` with its
gradient (``torch.segment_reduce`` / ``aten._segment_reduce_backward``)."""

from __future__ import annotations

import torch
from torch_mlir import ir

from .base import KERNELS, Kernel, attr, segments


@KERNELS.register("poplar.popops_histogram")
def _histogram(op: ir.Operation) -> Kernel:
    convention, bins, bounds, density = attr(op, "convention"), attr(op, "bins"), attr(op, "range"), attr(op, "density")

    if convention == "histc":
        low, high = bounds
        return lambda x: torch.histc(x, bins[0], low, high)

    weighted, given = segments(op, "operandSegmentSizes")[1:]
    sizes = [b + 1 for b in bins]

    def split(rest: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor | None, list[torch.Tensor]]:
        """The weight (or None) and the given edges of each dim (or [])."""
        edges = list(torch.split(rest[weighted], sizes)) if given else []
        return (rest[0] if weighted else None), edges

    if convention == "histogram":

        def histogram(x: torch.Tensor, *rest: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            weight, edges = split(rest)
            if edges:
                return torch.histogram(x, edges[0], weight=weight, density=density)
            return torch.histogram(x, bins[0], range=bounds or None, weight=weight, density=density)

        return histogram

    def histogramdd(x: torch.Tensor, *rest: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        weight, edges = split(rest)
        hist, out_edges = torch.histogramdd(x, edges or bins, range=None if edges else bounds or None, weight=weight, density=density)
        return hist, torch.cat(out_edges)

    return histogramdd


def _segment_options(op: ir.Operation) -> tuple[str, str, int, float | None]:
    initial = attr(op, "initial")
    return attr(op, "reduce"), attr(op, "segments_by"), attr(op, "axis"), initial[0] if initial else None


@KERNELS.register("poplar.popops_segment_reduce")
def _segment_reduce(op: ir.Operation) -> Kernel:
    reduce, kind, axis, initial = _segment_options(op)
    return lambda data, segments: torch.segment_reduce(data, reduce, **{kind: segments}, axis=axis, initial=initial)


@KERNELS.register("poplar.popops_segment_reduce_grad")
def _segment_reduce_grad(op: ir.Operation) -> Kernel:
    reduce, kind, axis, initial = _segment_options(op)

    def grad(grad: torch.Tensor, output: torch.Tensor, data: torch.Tensor, segments: torch.Tensor) -> torch.Tensor:
        return torch.ops.aten._segment_reduce_backward(grad, output, data, reduce, **{kind: segments}, axis=axis, initial=initial)

    return grad

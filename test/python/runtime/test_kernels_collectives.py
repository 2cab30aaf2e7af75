"""Collective kernels of a replica alone (a graph of one replica): a reduction of one value
is that value, a gather of one is itself, a broadcast comes from itself. The collectives
among several replicas are in test_replicas.py."""

from __future__ import annotations

import pytest
import torch

ALL = '#poplar.comm_group<"all", 0 : i64>'


@pytest.mark.parametrize("op", ["add", "mean", "mul", "min", "max"])
def test_all_reduce_of_one_replica(kernel_of, op) -> None:  # noqa: ANN001
    fn = kernel_of("%g: tensor<4xf32>",
                   f'%0 = "poplar.gcl_all_reduce"(%g) {{op = "{op}", group = {ALL}}} : (tensor<4xf32>) -> tensor<4xf32>')
    g = torch.randn(4)
    out = fn(g)
    torch.testing.assert_close(out, g, rtol=0, atol=0)
    assert out.data_ptr() != g.data_ptr()  # each replica owns its result


@pytest.mark.parametrize(("body", "shape"), [
    (f'"poplar.gcl_reduce_scatter"(%g) {{op = "add", group = {ALL}}} : (tensor<4xf32>) -> tensor<4xf32>', 4),
    (f'"poplar.gcl_all_gather"(%g) {{group = {ALL}}} : (tensor<4xf32>) -> tensor<4xf32>', 4),
    (f'"poplar.gcl_broadcast"(%g) {{root = 0 : i64, group = {ALL}}} : (tensor<4xf32>) -> tensor<4xf32>', 4),
])
def test_other_collectives_of_one_replica(kernel_of, body, shape) -> None:  # noqa: ANN001
    fn = kernel_of("%g: tensor<4xf32>", f"%0 = {body}")
    g = torch.randn(shape)
    torch.testing.assert_close(fn(g), g, rtol=0, atol=0)

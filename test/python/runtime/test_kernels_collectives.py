"""Collective kernels of one replica: an all-reduce over a single replica is its input."""

from __future__ import annotations

import pytest
import torch


@pytest.mark.parametrize("op", ["add", "mean", "max"])
def test_all_reduce_of_one_replica(kernel_of, op) -> None:  # noqa: ANN001
    fn = kernel_of("%g: tensor<4xf32>", f'%0 = "poplar.gcl_all_reduce"(%g) {{op = "{op}"}} : (tensor<4xf32>) -> tensor<4xf32>')
    g = torch.randn(4)
    torch.testing.assert_close(fn(g), g, rtol=0, atol=0)

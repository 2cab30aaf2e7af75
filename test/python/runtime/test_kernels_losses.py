"""Loss kernels against torch: the NLL loss with each reduction and an ignored class."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

EXACT = {"rtol": 0, "atol": 0}


@pytest.mark.parametrize(("reduction", "result"), [("mean", "tensor<f32>"), ("sum", "tensor<f32>"), ("none", "tensor<4xf32>")])
def test_nll_loss(kernel_of, reduction, result) -> None:  # noqa: ANN001
    fn = kernel_of("%lp: tensor<4x3xf32>, %t: tensor<4xi64>",
                   f'%0 = "poplar.popnn_nll_loss"(%lp, %t) {{reduction = "{reduction}", ignore_index = 1 : i64}} : (tensor<4x3xf32>, tensor<4xi64>) -> {result}')
    log_probs, target = torch.log_softmax(torch.randn(4, 3), 1), torch.tensor([0, 1, 2, 2])
    torch.testing.assert_close(fn(log_probs, target), F.nll_loss(log_probs, target, reduction=reduction, ignore_index=1), **EXACT)

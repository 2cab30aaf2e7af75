"""Loss kernels against torch: the NLL loss with each reduction and an ignored class."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

EXACT = {"rtol": 0, "atol": 0}


@pytest.mark.parametrize(("reduction", "result"), [("mean", "tensor<f32>"), ("sum", "tensor<f32>"), ("none", "tensor<4xf32>")])
def test_nll_loss(kernel_of, reduction, result) -> None:  # noqa: ANN001
    fn = kernel_of("%lp: tensor<4x3xf32>, %t: tensor<4xi64>",
                   f'%0 = "poplar.popnn_nll_loss"(%lp, %t) {{reduction = "{reduction}", ignore_index = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 0>}} : (tensor<4x3xf32>, tensor<4xi64>) -> {result}')
    log_probs, target = torch.log_softmax(torch.randn(4, 3), 1), torch.tensor([0, 1, 2, 2])
    torch.testing.assert_close(fn(log_probs, target), F.nll_loss(log_probs, target, reduction=reduction, ignore_index=1), **EXACT)


@pytest.mark.parametrize(("reduction", "result"), [("mean", "tensor<f32>"), ("sum", "tensor<f32>"), ("none", "tensor<4xf32>")])
def test_nll_loss_with_class_weights(kernel_of, reduction, result) -> None:  # noqa: ANN001
    fn = kernel_of("%lp: tensor<4x3xf32>, %t: tensor<4xi64>, %w: tensor<3xf32>",
                   f'%0 = "poplar.popnn_nll_loss"(%lp, %t, %w) {{reduction = "{reduction}", ignore_index = 1 : i64, '
                   f'operandSegmentSizes = array<i32: 1, 1, 1>}} : (tensor<4x3xf32>, tensor<4xi64>, tensor<3xf32>) -> {result}')
    log_probs, target = torch.log_softmax(torch.randn(4, 3), 1), torch.tensor([0, 1, 2, 2])
    weight = torch.tensor([0.5, 3.0, 2.0])
    expected = F.nll_loss(log_probs, target, weight, reduction=reduction, ignore_index=1)
    torch.testing.assert_close(fn(log_probs, target, weight), expected, **EXACT)

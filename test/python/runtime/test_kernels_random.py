"""Random kernels: dropout draws its mask from the seed it is given, as the decoder
derives it per call and op."""

from __future__ import annotations

import torch

DROPOUT = ('%0:2 = "poplar.poprand_dropout"(%x) {p = 0.25 : f64} : (tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xi1>)')


def test_dropout_scales_the_kept_elements_and_returns_its_mask(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%x: tensor<64x64xf32>", DROPOUT)
    x = torch.randn(64, 64)
    out, mask = fn(1234, x)
    assert mask.dtype == torch.bool
    torch.testing.assert_close(out, x * mask / 0.75, rtol=1e-6, atol=0)
    assert 0.7 < mask.float().mean().item() < 0.8  # p = 0.25 of 4096 elements dropped


def test_the_same_seed_draws_the_same_mask(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%x: tensor<64x64xf32>", DROPOUT)
    x = torch.randn(64, 64)
    _, first = fn(7, x)
    _, again = fn(7, x)
    _, other = fn(8, x)
    generator = torch.Generator()
    generator.manual_seed(7)
    assert torch.equal(first, again)
    assert torch.equal(first, torch.empty(64, 64, dtype=torch.bool).bernoulli_(0.75, generator=generator))
    assert not torch.equal(first, other)

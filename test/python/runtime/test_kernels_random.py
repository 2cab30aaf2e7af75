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


def _generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def test_uniform_reals_are_torch_rand_of_the_seed(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("", '%0 = "poplar.poprand_uniform"() {min_val = 0.0 : f64, max_val = 1.0 : f64} : () -> tensor<3x4xf32>')
    (out,) = fn(11)
    assert torch.equal(out, torch.rand(3, 4, generator=_generator(11)))
    assert not torch.equal(out, fn(12)[0])


def test_uniform_reals_in_a_range(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("", '%0 = "poplar.poprand_uniform"() {min_val = -2.0 : f64, max_val = 3.0 : f64} : () -> tensor<1000xf16>')
    (out,) = fn(1)
    assert out.dtype == torch.float16
    assert -2 <= out.min() and out.max() <= 3  # [-2, 3) in float32, rounded to float16
    assert torch.equal(out, torch.empty(1000, dtype=torch.float16).uniform_(-2.0, 3.0, generator=_generator(1)))


def test_uniform_integers_are_torch_randint(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("", '%0 = "poplar.poprand_uniform"() {min_val = 3.0 : f64, max_val = 9.0 : f64} : () -> tensor<500xi32>')
    (out,) = fn(4)
    assert out.dtype == torch.int32
    assert set(out.tolist()) == set(range(3, 9))
    assert torch.equal(out, torch.randint(3, 9, (500,), generator=_generator(4), dtype=torch.int32))


def test_normal_draws(kernel_of) -> None:  # noqa: ANN001
    standard = kernel_of("", '%0 = "poplar.poprand_normal"() {mean = 0.0 : f64, std_dev = 1.0 : f64} : () -> tensor<6xf32>')
    assert torch.equal(standard(3)[0], torch.randn(6, generator=_generator(3)))
    shifted = kernel_of("", '%0 = "poplar.poprand_normal"() {mean = 5.0 : f64, std_dev = 0.5 : f64} : () -> tensor<100x100xf32>')
    (out,) = shifted(3)
    assert abs(out.mean().item() - 5.0) < 0.02 and abs(out.std().item() - 0.5) < 0.02


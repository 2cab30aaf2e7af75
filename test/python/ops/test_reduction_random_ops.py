"""Reductions, scans and random draws end to end through ``poptorch``.

Reductions and scans (var, std, var_mean, cumsum, cumprod, and the overloads of sum /
mean / prod / amax / amin / any / all / max / min / argmax / argmin) compare with eager
PyTorch: FP32 for floats, integers and booleans exact, eager's dtypes; the differentiable
ones also train one SGD step. Random draws (rand, randn, randint, randperm, uniform_,
normal_, bernoulli, exponential_) cannot match eager's numbers: they must have eager's
dtype and shape, repeat under the same ``Options.randomSeed``, change with another seed
and follow their distribution.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from helpers.op_runs import FunctionModel, check_inference, check_training_step

import poptorch

_G = torch.Generator().manual_seed(0)
X = torch.randn(3, 4, generator=_G)
X3 = torch.randn(2, 3, 4, generator=_G)
INTS = torch.randint(-6, 7, (3, 4), generator=_G)
BOOLS = X > 0

CASES: dict[str, tuple[Callable, tuple]] = {
    # -- variance (var.dim, var.correction and the default overload) --------------------
    "var_all": (lambda x: x.var(), (X,)),
    "var_all_biased": (lambda x: x.var(unbiased=False), (X,)),
    "var_dim": (lambda x: x.var(1), (X,)),
    "var_negative_dim_keepdim": (lambda x: x.var(-1, keepdim=True), (X3,)),
    "var_dims": (lambda x: x.var((0, 2)), (X3,)),
    "var_correction_0": (lambda x: torch.var(x, 0, correction=0), (X,)),
    "var_correction_2": (lambda x: torch.var(x, 1, correction=2, keepdim=True), (X,)),
    "var_unbiased_false_dim": (lambda x: torch.var(x, dim=0, unbiased=False), (X,)),
    "var_direct_dim_overload": (lambda x: torch.ops.aten.var.dim(x, [1], True, False), (X,)),
    "var_of_one_element_is_nan": (lambda x: x[:, :1].var(1), (X,)),
    "std": (lambda x: x.std(1), (X,)),
    "std_all_biased": (lambda x: x.std(unbiased=False), (X3,)),
    "var_mean": (lambda x: torch.var_mean(x, 1), (X,)),
    "var_mean_keepdim": (lambda x: torch.var_mean(x, (0, 1), keepdim=True, correction=0), (X3,)),
    "std_mean": (lambda x: torch.std_mean(x, -1), (X3,)),
    # -- scans -------------------------------------------------------------------------------
    "cumsum": (lambda x: x.cumsum(1), (X,)),
    "cumsum_negative_dim": (lambda x: torch.cumsum(x, -3), (X3,)),
    "cumsum_dtype": (lambda x: torch.cumsum(x, 0, dtype=torch.float64), (X,)),
    "cumsum_ints_count_in_int64": (lambda a: a.cumsum(1), (INTS.to(torch.int32),)),
    "cumsum_bools": (lambda b: b.cumsum(0), (BOOLS,)),
    "cumsum_rank0": (lambda x: x.sum().cumsum(0), (X,)),
    "cumprod": (lambda x: x.cumprod(1), (X,)),
    "cumprod_ints": (lambda a: a.cumprod(0), (INTS,)),
    # -- the overloads of the reductions lowered before ------------------------------------
    "sum_all": (lambda x: x.sum(), (X,)),
    "sum_dims_keepdim": (lambda x: x.sum((0, -1), keepdim=True), (X3,)),
    "sum_dtype": (lambda x: x.sum(1, dtype=torch.float64), (X,)),
    "sum_ints_is_int64": (lambda a: a.to(torch.int32).sum(0), (INTS,)),
    "sum_bools_is_int64": (lambda b: b.sum(), (BOOLS,)),
    "mean_all": (lambda x: x.mean(), (X3,)),
    "mean_negative_dim": (lambda x: x.mean(-2), (X3,)),
    "mean_dtype": (lambda x: x.mean(0, dtype=torch.float64), (X,)),
    "prod_all": (lambda x: x.prod(), (X,)),
    "prod_dim_keepdim": (lambda x: x.prod(-1, keepdim=True), (X,)),
    "prod_ints": (lambda a: a.prod(1), (INTS,)),
    "amax_dims": (lambda x: x.amax((0, 2)), (X3,)),
    "amin_keepdim": (lambda x: x.amin(-1, keepdim=True), (X3,)),
    "amax_ints": (lambda a: a.amax(0), (INTS,)),
    "any_all": (lambda b: b.any(), (BOOLS,)),
    "any_dim_of_floats": (lambda x: x.any(1), (X.round(),)),
    "any_dims": (lambda b: torch.any(b, dim=(0, 1)), (BOOLS,)),
    "all_all": (lambda b: b.all(), (BOOLS,)),
    "all_dim_keepdim": (lambda a: a.all(0, keepdim=True), (INTS,)),
    "max_all": (lambda x: x.max(), (X,)),
    "min_all_ints": (lambda a: a.min(), (INTS,)),
    "max_dim": (lambda x: x.max(1), (X,)),
    "min_dim_keepdim_negative": (lambda x: x.min(-1, keepdim=True), (X3,)),
    "max_dim_ints": (lambda a: torch.max(a, 0), (INTS,)),
    "max_dim_bools": (lambda b: b.max(0), (BOOLS,)),
    "argmax_without_dim": (lambda x: x.argmax(), (X3,)),
    "argmin_without_dim_keepdim": (lambda x: torch.argmin(x, keepdim=True), (X,)),
    "argmax_dim": (lambda x: x.argmax(-1), (X3,)),
    "argmin_dim_keepdim": (lambda a: a.argmin(0, keepdim=True), (INTS,)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_op_matches_eager(name: str) -> None:
    fn, inputs = CASES[name]
    check_inference(fn, *inputs)


TRAINED: dict[str, tuple[Callable, torch.Tensor]] = {
    "var": (lambda x: x.var(1), X),
    "var_correction_0_keepdim": (lambda x: torch.var(x, 0, correction=0, keepdim=True), X),
    "std": (lambda x: x.std(), X3),
    "var_mean": (lambda x: torch.add(*torch.var_mean(x, -1)), X3),
    "mean_sum": (lambda x: x.mean(0) + x.sum(-1, keepdim=True), X),
    "amax": (lambda x: x.amax(1), X),
    "logsumexp": (lambda x: torch.logsumexp(x, 0), X),
    "cumsum": (lambda x: x.cumsum(1), X),  # the gradient is a reversed cumsum (flip)
    "cumprod": (lambda x: x.cumprod(0), X),
    "prod_through_cumprod": (lambda x: x.prod(1), X),  # its gradient uses cumprod and flip
    "max_dim": (lambda x: x.max(1)[0], X),  # its gradient scatters
}

@pytest.mark.parametrize("name", list(TRAINED))
def test_training_step_through_op_matches_eager(name: str) -> None:
    fn, x = TRAINED[name]
    check_training_step(fn, x)


# -- random draws ----------------------------------------------------------------------
# name -> (function of X, check of the drawn values)
DRAWS: dict[str, tuple[Callable, Callable[[torch.Tensor], bool]]] = {
    "rand": (lambda x: torch.rand(200, 50), lambda t: 0 <= t.min() and t.max() < 1 and abs(t.mean() - 0.5) < 0.02),
    "rand_half": (lambda x: torch.rand(64, dtype=torch.float16), lambda t: 0 <= t.min() and t.max() < 1),
    "rand_like": (lambda x: torch.rand_like(x) + x, lambda t: True),
    "randn": (lambda x: torch.randn(200, 50), lambda t: abs(t.mean()) < 0.03 and abs(t.std() - 1) < 0.03),
    "randn_like": (lambda x: torch.randn_like(x), lambda t: True),
    "randint_low_high": (lambda x: torch.randint(3, 9, (1000,)), lambda t: set(t.tolist()) == set(range(3, 9))),
    "randint_high_int32": (lambda x: torch.randint(4, (1000,), dtype=torch.int32), lambda t: set(t.tolist()) == set(range(4))),
    "randint_like_float": (lambda x: torch.randint_like(x, -2, 2), lambda t: set(t.flatten().tolist()) <= {-2.0, -1.0, 0.0, 1.0}),
    "randperm": (lambda x: torch.randperm(50), lambda t: sorted(t.tolist()) == list(range(50))),
    "randperm_float": (lambda x: torch.randperm(7, dtype=torch.float32), lambda t: sorted(t.tolist()) == list(range(7))),
    "uniform_": (lambda x: torch.empty(100, 100).uniform_(-2, 3), lambda t: -2 <= t.min() and t.max() < 3 and abs(t.mean() - 0.5) < 0.05),
    "normal_": (lambda x: torch.empty(100, 100).normal_(2.0, 0.5), lambda t: abs(t.mean() - 2) < 0.02 and abs(t.std() - 0.5) < 0.02),
    "normal_float_float": (lambda x: torch.normal(-1.0, 2.0, (100, 100)), lambda t: abs(t.mean() + 1) < 0.06 and abs(t.std() - 2) < 0.06),
    "normal_tensor_mean": (lambda x: torch.normal(x * 100, 0.01), lambda t: (t - X * 100).abs().max() < 0.1),
    "normal_tensor_std": (lambda x: torch.normal(5.0, x.abs() * 0.001), lambda t: (t - 5).abs().max() < 0.05),
    "bernoulli": (lambda x: torch.bernoulli(torch.full((100, 100), 0.3)), lambda t: set(t.unique().tolist()) == {0.0, 1.0} and abs(t.mean() - 0.3) < 0.02),
    "bernoulli_p": (lambda x: torch.empty(100, 100).bernoulli_(0.8), lambda t: abs(t.mean() - 0.8) < 0.02),
    "bernoulli_tensor_p": (lambda x: torch.empty(3, 4).bernoulli_((x > 0).float()), lambda t: torch.equal(t, (X > 0).float())),
    "exponential_": (lambda x: torch.empty(100, 100).exponential_(4.0), lambda t: t.min() >= 0 and abs(t.mean() - 0.25) < 0.01),
}


def _draw(fn: Callable, seed: int) -> torch.Tensor:
    return poptorch.inferenceModel(FunctionModel(fn), poptorch.Options().randomSeed(seed))(X)


@pytest.mark.parametrize("name", list(DRAWS))
def test_random_draw_has_eagers_type_repeats_per_seed_and_follows_its_distribution(name: str) -> None:
    fn, follows_distribution = DRAWS[name]
    want = fn(X)
    first, again, other = _draw(fn, 5), _draw(fn, 5), _draw(fn, 6)
    assert (first.dtype, first.shape) == (want.dtype, want.shape)
    assert torch.equal(first, again), "the same randomSeed must draw the same values"
    if name != "bernoulli_tensor_p":  # p is 0 or 1 everywhere: nothing is random
        assert not torch.equal(first, other), "another randomSeed must draw other values"
    assert follows_distribution(first.double()), f"values do not follow the distribution: {first.flatten()[:8]}"


def test_each_run_draws_new_values() -> None:
    model = poptorch.inferenceModel(FunctionModel(lambda x: torch.rand(8) + x.sum() * 0), poptorch.Options().randomSeed(3))
    assert not torch.equal(model(X), model(X))


def test_random_draws_in_a_training_step_repeat_per_seed() -> None:
    """A draw inside a trained model (noise added to the input) repeats under one seed."""

    def trained(seed: int) -> torch.Tensor:
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 2)

        class Noisy(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.linear = model

            def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
                out = self.linear(x + 0.1 * torch.randn_like(x))
                return out, poptorch.identity_loss(out.pow(2).sum(), reduction="sum")

        noisy = Noisy()
        training = poptorch.trainingModel(noisy, poptorch.Options().randomSeed(seed), poptorch.optim.SGD(noisy.parameters(), lr=0.1))
        training(X)
        weight = noisy.linear.weight.detach().clone()
        training.destroy()
        return weight

    assert torch.equal(trained(1), trained(1))
    assert not torch.equal(trained(1), trained(2))

"""Random distributions, copies, resize and the other leftovers of the op sweep end to end
through ``poptorch``.

Deterministic ops compare with eager PyTorch (FP32 for floats, integers exactly, eager's
dtypes); random draws cannot match eager's numbers: they must have eager's dtype and shape,
repeat under the same ``Options.randomSeed``, change with another seed and follow their
distribution.
"""

from __future__ import annotations

from collections.abc import Callable

import copy

import pytest
import torch
import torch.nn.functional as F
from helpers import FP32
from helpers.op_runs import FunctionModel, check_inference, check_training_step

import poptorch

_G = torch.Generator().manual_seed(0)
X = torch.randn(3, 4, generator=_G)

IMAGE = torch.randn(2, 3, 7, 9, generator=_G)  # [N, C, H, W]
VOLUME = torch.randn(2, 3, 4, 5, 6, generator=_G)  # [N, C, D, H, W]
GRID3 = torch.rand(2, 3, 4, 2, 3, generator=_G) * 3.2 - 1.6  # [N, D_out, H_out, W_out, 3], past every face
SAMPLES2 = torch.rand(2, 3, 2, generator=_G)  # fractional pooling: a sample per plane and dim
SAMPLES3 = torch.rand(2, 3, 3, generator=_G)
GRID_OPTIONS = [
    {"align_corners": False}, {"align_corners": True}, {"padding_mode": "border", "align_corners": False},
    {"padding_mode": "reflection", "align_corners": False}, {"padding_mode": "reflection", "align_corners": True},
    {"mode": "nearest", "align_corners": False}, {"mode": "nearest", "padding_mode": "border", "align_corners": True},
]

CASES: dict[str, tuple[Callable, tuple]] = {
    # -- resize: self's first elements in row-major order ----------------------------------
    "resize_shrinks": (lambda x: x.clone().resize_(2, 5) * 2, (X,)),
    "resize_as_shrinks": (lambda x: x.clone().resize_as_(torch.ones(2, 2)), (X,)),
    "resize_as_same_numel": (lambda x: x.clone().resize_as_(torch.ones(4, 3)) + 1, (X,)),
    "resize_functional": (lambda x: torch.ops.aten.resize(x, [6]), (X,)),
    # eager leaves the grown elements uninitialised: only the first 12 are compared
    "resize_grows": (lambda x: torch.ops.aten.resize(x, [4, 4]).flatten()[:12], (X,)),
    # -- nonzero_static: coordinates of the first `size` non-zero elements, then fill_value ----
    "nonzero_static_pads": (lambda x: torch.nonzero_static(x, size=20), (torch.where(X > 0, X, 0),)),
    "nonzero_static_truncates": (lambda x: torch.nonzero_static(x, size=3, fill_value=7), (torch.where(X > 0, X, 0),)),
    "nonzero_static_3d_bools": (lambda b: torch.nonzero_static(b, size=10, fill_value=-5), (X.reshape(2, 3, 2) > 0,)),
    "nonzero_static_1d_ints": (lambda a: torch.nonzero_static(a, size=4), (torch.tensor([0, 3, 0, 0, 2, 0]),)),
    "nonzero_static_nan_is_nonzero": (lambda x: torch.nonzero_static(x, size=3), (torch.tensor([0.0, float("nan"), 0.0]),)),
    "nonzero_static_scalar": (lambda x: torch.nonzero_static(x, size=2), (torch.tensor(1.5),)),
    # -- copies: their views (torch's decompositions) -------------------------------------------
    "permute_copy": (lambda x: torch.permute_copy(x, (1, 0)), (X,)),
    "view_copy": (lambda x: torch.view_copy(x, (2, 6)), (X,)),
    "unbind_copy": (lambda x: torch.unbind_copy(x, 1), (X,)),
    "as_strided_copy": (lambda x: torch.as_strided_copy(x, (2, 2), (1, 2), 1), (X,)),
    # -- complex tensors from real ones ---------------------------------------------------------
    "complex": (lambda x: torch.complex(x, 2 * x), (X,)),
    "complex_broadcasts": (lambda x: torch.view_as_real(torch.complex(x, x[0])), (X,)),
    "polar": (lambda x: torch.polar(x.abs(), x), (X,)),
    # -- grid_sample of volumes (grid_sampler_3d) ---------------------------------------------
    **{f"grid_sample_3d_{'-'.join(str(v) for v in o.values())}": (lambda x, g, o=o: F.grid_sample(x, g, **o), (VOLUME, GRID3))
       for o in GRID_OPTIONS},
    # -- antialiased bilinear resampling (_upsample_bilinear2d_aa) -----------------------------
    "interpolate_antialias_down": (lambda x: F.interpolate(x, size=(3, 4), mode="bilinear", antialias=True), (IMAGE,)),
    "interpolate_antialias_up_and_down": (lambda x: F.interpolate(x, size=(11, 2), mode="bilinear", antialias=True), (IMAGE,)),
    "interpolate_antialias_align_corners": (lambda x: F.interpolate(x, size=(4, 3), mode="bilinear", align_corners=True,
                                                                    antialias=True), (IMAGE,)),
    "interpolate_antialias_scale_factor": (lambda x: F.interpolate(x, scale_factor=0.35, mode="bilinear", antialias=True),
                                           (IMAGE,)),
    "interpolate_antialias_width_only": (lambda x: F.interpolate(x, size=(7, 3), mode="bilinear", antialias=True), (IMAGE,)),
    # -- fractional max pooling with given samples (the windows they choose are data) ----------
    "fractional_max_pool2d": (lambda x, u: F.fractional_max_pool2d(x, 3, output_size=(5, 4), return_indices=True, _random_samples=u),
                              (IMAGE, SAMPLES2)),
    "fractional_max_pool2d_rect": (lambda x, u: F.fractional_max_pool2d(x, (2, 3), output_ratio=(0.5, 0.7), return_indices=True,
                                                                        _random_samples=u), (IMAGE, SAMPLES2)),
    "fractional_max_pool2d_unbatched": (lambda x, u: F.fractional_max_pool2d(x[0], 2, output_size=(4, 1), return_indices=True,
                                                                             _random_samples=u[:1]), (IMAGE, SAMPLES2)),
    "fractional_max_pool2d_full_size": (lambda x, u: F.fractional_max_pool2d(x, 1, output_size=(7, 9), _random_samples=u), (IMAGE, SAMPLES2)),
    "fractional_max_pool3d": (lambda x, u: F.fractional_max_pool3d(x, 2, output_size=(2, 2, 4), return_indices=True, _random_samples=u),
                              (VOLUME, SAMPLES3)),
    # -- rrelu in eval: leaky_relu with the mean slope ------------------------------------------
    "rrelu_eval": (lambda x: torch.nn.functional.rrelu(x, 0.1, 0.3, training=False), (X,)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_op_matches_eager(name: str) -> None:
    fn, inputs = CASES[name]
    check_inference(fn, *inputs)


def test_a_grown_resize_is_zero_beyond_the_old_elements() -> None:
    got = poptorch.inferenceModel(FunctionModel(lambda x: torch.ops.aten.resize(x, [4, 4])))(X)
    assert torch.equal(got.flatten()[12:], torch.zeros(4))


@pytest.mark.parametrize("name", ["permute_copy", "view_copy", "as_strided_copy", "rrelu_eval", "interpolate_antialias_down",
                                  "interpolate_antialias_up_and_down", "interpolate_antialias_align_corners"])
def test_training_step_through_op_matches_eager(name: str) -> None:
    fn, inputs = CASES[name]
    check_training_step(fn, inputs[0])


@pytest.mark.parametrize(("pool", "x", "options"), [
    (F.fractional_max_pool2d, IMAGE, {"kernel_size": 3, "output_size": (5, 4), "_random_samples": SAMPLES2}),
    (F.fractional_max_pool2d, IMAGE, {"kernel_size": 2, "output_size": (6, 8), "_random_samples": SAMPLES2}),  # windows overlap
    (F.fractional_max_pool3d, VOLUME, {"kernel_size": (2, 3, 2), "output_size": (2, 2, 4), "_random_samples": SAMPLES3}),
], ids=["2d", "2d_overlapping", "3d"])
def test_fractional_max_pool_training_step_matches_eager(pool: Callable, x: torch.Tensor, options: dict) -> None:
    check_training_step(lambda t: pool(t, **options), x)


def test_fractional_max_pool_draws_its_own_samples() -> None:
    """Without samples, F.fractional_max_pool2d draws them (torch.rand: poprand_uniform):
    each output is the maximum at its index, and another seed chooses other windows."""
    fn = lambda x: F.fractional_max_pool2d(x, 2, output_size=(4, 5), return_indices=True)  # noqa: E731
    (out, index), (again, _), (other, _) = (
        poptorch.inferenceModel(FunctionModel(fn), poptorch.Options().randomSeed(seed))(IMAGE) for seed in (1, 1, 2))
    assert out.shape == (2, 3, 4, 5) and index.dtype == torch.int64
    assert torch.equal(out, IMAGE.flatten(2).gather(2, index.flatten(2)).reshape(out.shape))
    assert torch.equal(out, again) and not torch.equal(out, other)


class _GridSample3d(torch.nn.Module):
    """``grid_sample(x * a, g * b)`` of a volume: both the volume and the grid train."""

    def __init__(self, **options: object) -> None:
        super().__init__()
        self.options = options
        generator = torch.Generator().manual_seed(1)
        self.a = torch.nn.Parameter(1.0 + 0.25 * torch.randn(VOLUME.shape, generator=generator))
        self.b = torch.nn.Parameter(1.0 + 0.1 * torch.randn(GRID3.shape, generator=generator))

    def forward(self, x: torch.Tensor, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = F.grid_sample(x * self.a, g * self.b, **self.options)
        return out, poptorch.identity_loss((out * out).sum(), reduction="sum")


@pytest.mark.parametrize("options", GRID_OPTIONS, ids=lambda options: "-".join(str(v) for v in options.values()))
def test_grid_sample_3d_training_step_updates_volume_and_grid_as_eager(options: dict) -> None:
    model = _GridSample3d(**options)
    reference = copy.deepcopy(model)
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.01)
    want_out, want_loss = reference(VOLUME, GRID3)
    want_loss.backward()
    optimizer.step()
    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(model.parameters(), lr=0.01))
    out, loss = training(VOLUME, GRID3)
    torch.testing.assert_close(out, want_out.detach(), **FP32)
    torch.testing.assert_close(loss, want_loss.detach(), **FP32)
    torch.testing.assert_close(model.a.detach(), reference.a.detach(), **FP32, msg=lambda m: f"volume weight: {m}")
    torch.testing.assert_close(model.b.detach(), reference.b.detach(), **FP32, msg=lambda m: f"grid weight: {m}")
    training.destroy()


# -- random draws ----------------------------------------------------------------------
# name -> (function of X, check of the drawn values)
DRAWS: dict[str, tuple[Callable, Callable[[torch.Tensor], bool]]] = {
    "cauchy_": (lambda x: torch.empty(200, 100).cauchy_(1.0, 2.0),
                lambda t: abs(t.median() - 1) < 0.15 and abs((t - 1).abs().median() - 2) < 0.15),
    "geometric_": (lambda x: torch.empty(200, 100).geometric_(0.25),
                   lambda t: t.min() >= 1 and torch.equal(t, t.round()) and abs(t.mean() - 4) < 0.15),
    "log_normal_": (lambda x: torch.empty(200, 100).log_normal_(0.5, 0.2),
                    lambda t: t.min() > 0 and abs(t.log().mean() - 0.5) < 0.01 and abs(t.log().std() - 0.2) < 0.01),
    "multinomial_with_replacement": (lambda x: torch.multinomial(WEIGHTS, 20000, replacement=True),
                                     lambda t: _frequencies_near(t, WEIGHTS / WEIGHTS.sum(-1, keepdim=True), 0.015)),
    "multinomial_1d": (lambda x: torch.multinomial(WEIGHTS[0], 20000, True), lambda t: _frequencies_near(t[None], WEIGHTS[:1] / 1.0, 0.015)),
    # without replacement: distinct categories, never one of weight 0; the first pick follows the weights
    "multinomial_without_replacement": (lambda x: torch.multinomial(WEIGHTS.repeat(5000, 1), 3),
                                        lambda t: all(len(set(row)) == 3 and 1 not in row for row in t.long().tolist()[::2])
                                        and _frequencies_near(t[::2, :1].T, WEIGHTS[:1], 0.02)),
    "rrelu_training": (lambda x: torch.nn.functional.rrelu(-x.abs().expand(50, 3, 4), 0.1, 0.3, training=True),
                       lambda t: _slopes_in(t / -X.abs().double(), 0.1, 0.3)),
}


WEIGHTS = torch.tensor([[0.1, 0.0, 0.6, 0.3], [2.0, 2.0, 1.0, 3.0]])


def _frequencies_near(samples: torch.Tensor, probabilities: torch.Tensor, tolerance: float) -> bool:
    """Each row's category frequencies are within ``tolerance`` of its probabilities."""
    counts = torch.stack([torch.bincount(row.long(), minlength=probabilities.shape[-1]) for row in samples])
    return bool(((counts / samples.shape[-1]).double() - probabilities.double()).abs().max() < tolerance)


def _slopes_in(slopes: torch.Tensor, lower: float, upper: float) -> bool:
    return bool(slopes.min() >= lower and slopes.max() < upper and abs(slopes.mean() - (lower + upper) / 2) < 0.01)


def _draw(fn: Callable, seed: int) -> torch.Tensor:
    return poptorch.inferenceModel(FunctionModel(fn), poptorch.Options().randomSeed(seed))(X)


@pytest.mark.parametrize("name", list(DRAWS))
def test_random_draw_has_eagers_type_repeats_per_seed_and_follows_its_distribution(name: str) -> None:
    fn, follows_distribution = DRAWS[name]
    want = fn(X)
    first, again, other = _draw(fn, 5), _draw(fn, 5), _draw(fn, 6)
    assert (first.dtype, first.shape) == (want.dtype, want.shape)
    assert torch.equal(first, again), "the same randomSeed must draw the same values"
    assert not torch.equal(first, other), "another randomSeed must draw other values"
    assert follows_distribution(first.double()), f"values do not follow the distribution: {first.flatten()[:8]}"


def test_multinomial_without_replacement_of_every_category_is_a_permutation() -> None:
    got = poptorch.inferenceModel(FunctionModel(lambda w: torch.multinomial(w, 4)))(WEIGHTS)
    assert got.dtype == torch.int64
    assert all(sorted(row) == [0, 1, 2, 3] for row in got[1:].tolist())


def test_multinomial_without_replacement_of_too_many_samples_is_refused() -> None:
    with pytest.raises(Exception, match=r"multinomial of 5 samples without replacement from 4 categories"):
        poptorch.inferenceModel(FunctionModel(lambda w: torch.ops.aten.multinomial(w, 5, False)))(WEIGHTS)


def test_rrelu_training_step_uses_the_slopes_it_drew() -> None:
    """``out = x * slope`` for negative x (a slope drawn per element), ``x`` elsewhere; the
    loss ``sum(rrelu(x * w))`` gives ``w`` the gradient ``slope * x``: one SGD step with
    lr 1 moves ``w`` by exactly the slopes the forward pass drew."""
    x = torch.cat([X.abs() + 0.5, -X.abs() - 0.5])

    class Model(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.ones_like(x))

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            out = torch.nn.functional.rrelu(x * self.w, 0.1, 0.3, training=True)
            return out, poptorch.identity_loss(out.sum(), reduction="sum")

    model = Model()
    training = poptorch.trainingModel(model, poptorch.Options().randomSeed(1), poptorch.optim.SGD(model.parameters(), lr=1.0))
    out, _ = training(x)
    training.copyWeightsToHost()
    slopes = (1.0 - model.w.detach()) / x  # the gradient of sum(out) over w
    negative = x < 0
    torch.testing.assert_close(out, x * slopes, rtol=1e-5, atol=1e-5)
    assert torch.equal(slopes[~negative], torch.ones(12))
    assert slopes[negative].min() >= 0.1 and slopes[negative].max() < 0.3
    assert len(slopes[negative].unique()) > 1, "every element draws its own slope"


# -- what the IPU cannot hold: our errors, naming the op and the way out --------------------
@pytest.mark.parametrize(("fn", "inputs", "message"), [
    (lambda x: x.to_sparse() * 2, (X,), r"aten\.to_sparse.* gives a tensor with the sparse_coo layout: sparse layouts are "
                                        r"not supported on the IPU\. Use dense tensors"),
    (lambda x: x * 2, (X.to_sparse_csr(),), r"input 'inputs' is a tensor with the sparse_csr layout: sparse layouts "
                                              r"are not supported on the IPU\. Pass dense tensors"),
    (lambda x: (x * 100).to(torch.uint64), (X,), r"gives a torch\.uint64 tensor, an element type the IPU does not support"),
    (lambda x: x.to(torch.complex128), (X,), r"takes dtype=torch\.complex128 as an argument, which the compiler cannot "
                                              r"import .* Use torch\.complex64 instead"),
    (lambda x: x.chalf(), (X,), r"gives a torch\.complex32 tensor, an element type the IPU does not support"),
], ids=["to_sparse", "sparse_input", "uint64", "complex128_argument", "chalf"])
def test_unsupported_tensors_are_refused_by_name(fn: Callable, inputs: tuple, message: str) -> None:
    with pytest.raises(Exception, match=message) as error:
        poptorch.inferenceModel(FunctionModel(fn))(*inputs)
    assert error.type.__name__ in ("CaptureError", "ValueError")

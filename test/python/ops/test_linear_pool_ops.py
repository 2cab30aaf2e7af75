"""Pooling, distances, embedding bags, FFTs, matrix products, norms and convolution
variants end to end: each op in a tiny model through ``poptorch.inferenceModel`` against
eager PyTorch (FP32 for floats, NaN where eager has NaN, integers exact, eager's dtypes and
shapes), one SGD step through it with ``poptorch.trainingModel`` against
``torch.optim.SGD`` (every parameter compared), and the refusals.

Covers the Core ATen ops _adaptive_avg_pool2d_backward, _adaptive_avg_pool3d,
_cdist_forward, _pdist_forward, _embedding_bag, _fft_r2c and _fft_c2r, and what reaches the
lowering from nn.ConvTranspose1d/2d/3d, padding="same"/"valid", unbatched inputs,
nn.EmbeddingBag, torch.cdist / F.pdist, adaptive and dilated pooling, avg_pool options,
baddbmm / addmv / addbmm / addmm, nn.Bilinear, F.normalize, torch.norm /
linalg.vector_norm, instance / group / frozen batch norm, nn.LocalResponseNorm, complex
spectra (conj, angle, view_as_real / view_as_complex) and half-precision variants.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils._pytree as pytree
from helpers import EXACT, FP32

import poptorch
from ipu_mlir.compiler.pass_pipeline import PipelineError

LEARNING_RATE = 0.01
_G = torch.Generator().manual_seed(0)


def _randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=_G)


SEQ = _randn(2, 4, 9)  # [N, C, L]
IMAGE = _randn(2, 4, 8, 9)  # [N, C, H, W]
VOLUME = _randn(2, 3, 6, 5, 4)  # [N, C, D, H, W]
POINTS = _randn(3, 4)
BAG_INDICES = torch.tensor([1, 2, 4, 4, 3, 9, 0])
BAG_OFFSETS = torch.tensor([0, 2, 2, 5])  # bag 1 is empty
BAG_OFFSETS_WITH_END = torch.tensor([0, 2, 2, 5, 7])
BAG_ROWS = torch.tensor([[1, 2, 4], [4, 3, 9]])


# ---------------------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------------------
class Weighted(nn.Module):
    """``fn(x * w, *rest)`` with a weight ``w`` of x's shape: a functional op as a model
    whose gradient trains ``w``."""

    def __init__(self, fn: Callable[..., Any], shape: torch.Size) -> None:
        super().__init__()
        self.fn = fn
        self.w = nn.Parameter(1.0 + 0.25 * torch.randn(shape, generator=torch.Generator().manual_seed(1)))

    def forward(self, x: torch.Tensor, *rest: torch.Tensor) -> Any:
        return self.fn(x * self.w, *rest)


class Bag(nn.Module):
    """``F.embedding_bag`` over a [10, 3] table, optionally with trainable per-sample weights."""

    def __init__(self, per_sample_weights: bool = False, **options: Any) -> None:
        super().__init__()
        generator = torch.Generator().manual_seed(2)
        self.table = nn.Parameter(torch.randn(10, 3, generator=generator))
        self.sample_weights = nn.Parameter(torch.rand(7, generator=generator)) if per_sample_weights else None
        self.options = options

    def forward(self, indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return F.embedding_bag(indices, self.table, offsets, per_sample_weights=self.sample_weights, **self.options)


class _Function(nn.Module):
    """``fn(*inputs)`` as a model without parameters (inference only)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *inputs: torch.Tensor) -> Any:
        return self.fn(*inputs)


def _frozen_batch_norm_block() -> nn.Module:
    """A convolution and a batch norm in eval mode (frozen statistics, trained scale and
    shift), as fine-tuning keeps them."""
    norm = nn.BatchNorm2d(5)
    with torch.no_grad():
        norm.running_mean.uniform_(-1, 1)
        norm.running_var.uniform_(0.5, 2)
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.uniform_(-1, 1)
    return nn.Sequential(nn.Conv2d(4, 5, 3), norm.eval())


class _BatchNormWithUpdate(nn.Module):
    """ATen's _batch_norm_with_update on trained scale and shift, running statistics in buffers."""

    def __init__(self) -> None:
        super().__init__()
        self.weight, self.bias = nn.Parameter(torch.linspace(0.5, 1.5, 4)), nn.Parameter(torch.linspace(-1, 1, 4))
        self.register_buffer("running_mean", torch.zeros(4))
        self.register_buffer("running_var", torch.ones(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.aten._batch_norm_with_update(x, self.weight, self.bias, self.running_mean, self.running_var, 0.1, 1e-5)[0]


def _seeded(factory: Callable[[], nn.Module]) -> Callable[[], nn.Module]:
    def make() -> nn.Module:
        torch.manual_seed(3)
        return factory()

    return make


# name -> (model factory, inputs). Every case runs in inference and one training step.
CASES: dict[str, tuple[Callable[[], nn.Module], tuple]] = {
    # -- convolution variants -------------------------------------------------------------
    "conv_transpose1d": (_seeded(lambda: nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1)), (SEQ,)),
    "conv_transpose2d_groups_dilation": (_seeded(lambda: nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2,
                                                                           dilation=2, bias=False)), (IMAGE,)),
    "conv_transpose3d": (_seeded(lambda: nn.ConvTranspose3d(3, 2, 2, stride=2)), (VOLUME,)),
    "conv2d_same_odd_total": (_seeded(lambda: nn.Conv2d(4, 5, 4, padding="same")), (IMAGE,)),
    "conv2d_same_dilated": (_seeded(lambda: nn.Conv2d(4, 5, 3, padding="same", dilation=2)), (IMAGE,)),
    "conv1d_valid": (_seeded(lambda: nn.Conv1d(4, 5, 3, padding="valid")), (SEQ,)),
    # -- matrix products --------------------------------------------------------------------
    "baddbmm": (lambda: Weighted(lambda w, a, b: torch.baddbmm(w, a, b, beta=0.5, alpha=2.0), (2, 3, 5)), (_randn(2, 3, 5), _randn(2, 3, 4), _randn(2, 4, 5))),
    "addmv": (lambda: Weighted(lambda w, m, v: torch.addmv(w, m, v), (3,)), (_randn(3), _randn(3, 4), _randn(4))),
    "addmv_scaled": (lambda: Weighted(lambda w, m, v: torch.addmv(w, m, v, beta=0.3, alpha=-1.5), (3,)), (_randn(3), _randn(3, 4), _randn(4))),
    "addbmm": (lambda: Weighted(lambda w, a, b: torch.addbmm(w, a, b), (3, 5)), (_randn(3, 5), _randn(2, 3, 4), _randn(2, 4, 5))),
    "addbmm_many": (lambda: Weighted(lambda w, a, b: torch.addbmm(w, a, b, beta=0.7, alpha=1.3), (5, 10)),
                    (_randn(5, 10) * 3, _randn(4, 5, 6) * 3, _randn(4, 6, 10) * 3)),
    "addmm_matrix_bias": (lambda: Weighted(lambda w, a, b: torch.addmm(w, a, b, beta=2.0), (3, 5)), (_randn(3, 5), _randn(3, 4), _randn(4, 5))),
    "addbmm_beta_zero": (lambda: Weighted(lambda w, a, b: torch.addbmm(w, a, b, beta=0.0, alpha=0.5), (3, 5)), (_randn(3, 5), _randn(2, 3, 4), _randn(2, 4, 5))),
    "bilinear": (_seeded(lambda: nn.Bilinear(4, 5, 3)), (_randn(2, 4), _randn(2, 5))),
    # -- norms and distances ----------------------------------------------------------------
    "normalize": (lambda: Weighted(lambda x: F.normalize(x, dim=1), (5, 4)), (_randn(5, 4),)),
    "norm_dim": (lambda: Weighted(lambda x: torch.norm(x, dim=1), (5, 4)), (_randn(5, 4),)),
    "norm_all": (lambda: Weighted(torch.norm, (5, 4)), (_randn(5, 4),)),
    "vector_norm_ord1": (lambda: Weighted(lambda x: torch.linalg.vector_norm(x, ord=1, dim=0), (5, 4)), (_randn(5, 4),)),
    "vector_norm_ord3_keepdim": (lambda: Weighted(lambda x: torch.linalg.vector_norm(x, ord=3, dim=(0, -1), keepdim=True), (2, 5, 4)), (_randn(2, 5, 4),)),
    "vector_norm_inf": (lambda: Weighted(lambda x: torch.linalg.vector_norm(x, ord=float("inf")), (5, 4)), (_randn(5, 4),)),
    "vector_norm_minus_inf": (lambda: Weighted(lambda x: torch.linalg.vector_norm(x, ord=float("-inf"), dim=-1), (5, 4)), (_randn(5, 4),)),
    "vector_norm_ord0": (lambda: Weighted(lambda x: torch.linalg.vector_norm(x, ord=0, dim=-1), (5, 4)), (_randn(5, 4),)),
    "cdist": (lambda: Weighted(lambda x, y: torch.cdist(x, y), (3, 4)), (POINTS, _randn(5, 4))),
    "cdist_by_matmul": (lambda: Weighted(lambda x, y: torch.cdist(x, y), (3, 4)), (POINTS, _randn(30, 4))),
    "cdist_batched": (lambda: Weighted(lambda x, y: torch.cdist(x, y), (2, 3, 4)), (_randn(2, 3, 4), _randn(2, 5, 4))),
    **{f"cdist_p{p}": (lambda p=p: Weighted(lambda x, y: torch.cdist(x, y, p=p), (3, 4)), (POINTS, _randn(5, 4)))
       for p in (0.0, 0.5, 1.0, 1.5, 3.0, float("inf"))},
    **{f"pdist_p{p}": (lambda p=p: Weighted(lambda x: F.pdist(x, p=p), (5, 4)), (_randn(5, 4),)) for p in (1.0, 2.0, 3.0, float("inf"))},
    "group_norm_summed": (lambda: Weighted(lambda x: F.group_norm(x, 2, torch.linspace(-1, 1, 6), torch.linspace(0, 1, 6), eps=0.5).sum(), (2, 6, 3)),
                          (_randn(2, 6, 3),)),  # the gradient of a sum is an expanded tensor
    "group_norm_of_expanded_input": (lambda: Weighted(lambda x: F.group_norm(x.expand(2, 6, 3), 3), (1, 6, 3)), (_randn(1, 6, 3),)),
    "batch_norm_frozen_in_training": (_seeded(lambda: _frozen_batch_norm_block()), (IMAGE,)),
    "batch_norm_with_update": (lambda: _BatchNormWithUpdate(), (IMAGE,)),
    "layer_norm_negative_eps": (lambda: Weighted(lambda x: F.layer_norm(x, [9], eps=-1e-3), SEQ.shape), (SEQ * 5,)),
    "instance_norm2d": (lambda: Weighted(nn.InstanceNorm2d(4), IMAGE.shape), (IMAGE,)),
    "instance_norm1d_affine": (_seeded(lambda: nn.InstanceNorm1d(4, affine=True)), (SEQ,)),
    "local_response_norm": (lambda: Weighted(nn.LocalResponseNorm(3), IMAGE.shape), (IMAGE,)),  # its gradient crops (negative pad)
    "constant_pad_nd_negative": (lambda: Weighted(lambda x: torch.ops.aten.constant_pad_nd(x, [-2, 1, 1, -3], 0.5), IMAGE.shape), (IMAGE,)),
    # -- embedding bags ---------------------------------------------------------------------
    "embedding_bag_sum": (_seeded(lambda: nn.EmbeddingBag(10, 3, mode="sum")), (BAG_ROWS,)),
    "embedding_bag_mean": (_seeded(lambda: nn.EmbeddingBag(10, 3, mode="mean")), (BAG_ROWS,)),
    "embedding_bag_max": (_seeded(lambda: nn.EmbeddingBag(10, 3, mode="max")), (BAG_ROWS,)),
    "embedding_bag_sum_offsets": (lambda: Bag(mode="sum"), (BAG_INDICES, BAG_OFFSETS)),
    "embedding_bag_mean_padding_idx": (lambda: Bag(mode="mean", padding_idx=4), (BAG_INDICES, BAG_OFFSETS)),
    "embedding_bag_max_padding_idx": (lambda: Bag(mode="max", padding_idx=4), (BAG_INDICES, BAG_OFFSETS)),
    "embedding_bag_max_include_last_offset": (lambda: Bag(mode="max", include_last_offset=True), (BAG_INDICES, BAG_OFFSETS_WITH_END)),
    "embedding_bag_per_sample_weights": (lambda: Bag(per_sample_weights=True, mode="sum", padding_idx=3), (BAG_INDICES, BAG_OFFSETS)),
    "embedding_bag_per_sample_weights_last_offset": (lambda: Bag(per_sample_weights=True, mode="sum", include_last_offset=True),
                                                     (BAG_INDICES, BAG_OFFSETS_WITH_END)),
    # -- pooling ----------------------------------------------------------------------------
    "adaptive_avg_pool1d_uneven": (lambda: Weighted(lambda x: F.adaptive_avg_pool1d(x, 4), SEQ.shape), (SEQ,)),
    "adaptive_avg_pool2d_uneven": (lambda: Weighted(lambda x: F.adaptive_avg_pool2d(x, (3, 4)), IMAGE.shape), (IMAGE,)),
    "adaptive_avg_pool2d_none_size": (lambda: Weighted(lambda x: F.adaptive_avg_pool2d(x, (3, None)), IMAGE.shape), (IMAGE,)),
    "adaptive_avg_pool3d": (lambda: Weighted(lambda x: F.adaptive_avg_pool3d(x, (3, 5, 2)), VOLUME.shape), (VOLUME,)),
    "adaptive_avg_pool3d_uneven": (lambda: Weighted(lambda x: F.adaptive_avg_pool3d(x, (4, 3, 3)), VOLUME.shape), (VOLUME,)),
    "adaptive_max_pool1d": (lambda: Weighted(lambda x: F.adaptive_max_pool1d(x, 3), SEQ.shape), (SEQ,)),
    "adaptive_max_pool1d_uneven": (lambda: Weighted(lambda x: F.adaptive_max_pool1d(x, 4), SEQ.shape), (SEQ,)),
    "adaptive_max_pool2d_uneven": (lambda: Weighted(lambda x: F.adaptive_max_pool2d(x, (3, 5)), IMAGE.shape), (IMAGE,)),
    "adaptive_max_pool3d": (lambda: Weighted(lambda x: F.adaptive_max_pool3d(x, (3, 5, 2)), VOLUME.shape), (VOLUME,)),
    "adaptive_max_pool3d_uneven": (lambda: Weighted(lambda x: F.adaptive_max_pool3d(x, (4, 3, 3)), VOLUME.shape), (VOLUME,)),
    "avg_pool2d_ceil_mode": (lambda: Weighted(lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True), IMAGE.shape), (IMAGE,)),
    "avg_pool2d_no_pad_count": (lambda: Weighted(lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), IMAGE.shape), (IMAGE,)),
    "avg_pool2d_divisor_override": (lambda: Weighted(lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, divisor_override=5), IMAGE.shape), (IMAGE,)),
    "avg_pool3d_divisor_override": (lambda: Weighted(lambda x: F.avg_pool3d(x, 2, divisor_override=3), VOLUME.shape), (VOLUME,)),
    "avg_pool1d": (lambda: Weighted(lambda x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False), SEQ.shape), (SEQ,)),
    "max_pool1d_dilation": (lambda: Weighted(lambda x: F.max_pool1d(x, 3, 2, 1, dilation=2), SEQ.shape), (SEQ,)),
    "max_pool2d_dilation": (lambda: Weighted(lambda x: F.max_pool2d(x, 2, 1, 0, dilation=2), IMAGE.shape), (IMAGE,)),
    "max_pool2d_dilation_padding_ceil": (lambda: Weighted(lambda x: F.max_pool2d(x, 3, 2, 1, dilation=2, ceil_mode=True), IMAGE.shape), (IMAGE,)),
    # Unbatched inputs ([C, *spatial]) run as a batch of one.
    "adaptive_avg_pool2d_unbatched": (lambda: Weighted(lambda x: F.adaptive_avg_pool2d(x, (3, 5)), IMAGE.shape[1:]), (IMAGE[0],)),
    "adaptive_max_pool1d_unbatched": (lambda: Weighted(lambda x: F.adaptive_max_pool1d(x, 4), SEQ.shape[1:]), (SEQ[0],)),
    "max_pool3d_unbatched": (lambda: Weighted(lambda x: F.max_pool3d(x, 2, ceil_mode=True), VOLUME.shape[1:]), (VOLUME[0],)),
    "avg_pool2d_unbatched": (lambda: Weighted(lambda x: F.avg_pool2d(x, 3, 2, 1, divisor_override=4), IMAGE.shape[1:]), (IMAGE[0],)),
    "conv_transpose1d_unbatched": (_seeded(lambda: nn.ConvTranspose1d(4, 3, 3, stride=2)), (SEQ[0],)),
    "conv2d_same_unbatched": (_seeded(lambda: nn.Conv2d(4, 3, 3, padding="same")), (IMAGE[0],)),
    "max_pool3d_dilation": (lambda: Weighted(lambda x: F.max_pool3d(x, 2, 1, 1, dilation=(2, 1, 2)), VOLUME.shape), (VOLUME,)),
    # -- FFTs (complex values carried as complex<f32>) ------------------------------------
    "rfft": (lambda: Weighted(torch.fft.rfft, SEQ.shape), (SEQ,)),
    "rfft_magnitude": (lambda: Weighted(lambda x: torch.fft.rfft(x, norm="ortho").abs(), SEQ.shape), (SEQ,)),
    "irfft_of_rfft": (lambda: Weighted(lambda x: torch.fft.irfft(torch.fft.rfft(x), n=9), SEQ.shape), (SEQ,)),
    "irfft_even_length": (lambda: Weighted(lambda x: torch.fft.irfft(torch.fft.rfft(x), norm="forward"), SEQ.shape), (SEQ,)),
    "fft_ifft_real_part": (lambda: Weighted(lambda x: torch.fft.ifft(torch.fft.fft(x, dim=1), dim=1, norm="ortho").real, SEQ.shape), (SEQ,)),
    "rfft2_irfft2": (lambda: Weighted(lambda x: torch.fft.irfft2(torch.fft.rfft2(x) * 0.5, s=(8, 9)), IMAGE.shape), (IMAGE,)),
    "view_as_real_of_spectrum": (lambda: Weighted(lambda x: torch.view_as_real(torch.fft.rfft(x)), SEQ.shape), (SEQ,)),
    "fft_convolution": (lambda: Weighted(lambda x, k: torch.fft.irfft(torch.fft.rfft(x) * torch.fft.rfft(k), n=9), SEQ.shape), (SEQ, _randn(2, 4, 9))),
    "fft_cross_correlation_conj": (lambda: Weighted(lambda x, k: torch.fft.irfft(torch.fft.rfft(x) * torch.fft.rfft(k).conj(), n=9), SEQ.shape),
                                   (SEQ, _randn(2, 4, 9))),
    "spectrogram_of_frames": (lambda: Weighted(lambda x: torch.fft.rfft(x.unfold(-1, 4, 2) * torch.hann_window(4), dim=-1).abs(), SEQ.shape), (SEQ,)),
}

# Inference only: the pool indices (integers, compared exactly; no gradient flows into them).
INFERENCE_ONLY: dict[str, tuple[Callable[[], nn.Module], tuple]] = {
    "max_pool2d_indices": (lambda: Weighted(lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True), IMAGE.shape), (IMAGE,)),
    "max_pool2d_dilation_indices": (lambda: Weighted(lambda x: F.max_pool2d(x, 3, 2, 1, dilation=2, return_indices=True), IMAGE.shape), (IMAGE,)),
    "adaptive_max_pool2d_indices": (lambda: Weighted(lambda x: F.adaptive_max_pool2d(x, 4, return_indices=True), IMAGE.shape), (IMAGE,)),
    "adaptive_max_pool2d_uneven_indices": (lambda: Weighted(lambda x: F.adaptive_max_pool2d(x, (3, 5), return_indices=True), IMAGE.shape), (IMAGE,)),
    "adaptive_max_pool3d_uneven_indices": (lambda: Weighted(lambda x: F.adaptive_max_pool3d(x, (4, 3, 3), return_indices=True), VOLUME.shape), (VOLUME,)),
    "fft_of_complex_input": (lambda: _Function(lambda z: torch.fft.fft(z, dim=0)), (torch.complex(_randn(4, 3), _randn(4, 3)),)),
    "view_as_complex": (lambda: _Function(lambda x: torch.fft.ifft(torch.view_as_complex(x))), (_randn(3, 5, 2),)),
    # The gradient of angle multiplies by a complex Python scalar, which torch-mlir's importer cannot import.
    "angle_of_spectrum": (lambda: _Function(lambda x: torch.fft.rfft(x).angle()), (SEQ,)),
    "angle_of_reals": (lambda: _Function(torch.angle), (torch.tensor([-1.5, 0.0, 2.0, float("nan")]),)),
    # Half precision: sums accumulate in f32 as ATen's do, so the results are eager's bit for bit.
    "adaptive_avg_pool2d_uneven_half": (lambda: _Function(lambda x: F.adaptive_avg_pool2d(x, (3, 4))), (IMAGE.half(),)),
    "avg_pool2d_divisor_override_bfloat16": (lambda: _Function(lambda x: F.avg_pool2d(x, 3, 2, 1, divisor_override=5)), (IMAGE.bfloat16(),)),
    "max_pool2d_dilation_half": (lambda: _Function(lambda x: F.max_pool2d(x, 2, 1, 0, dilation=2)), (IMAGE.half(),)),
    "vector_norm_half": (lambda: _Function(lambda x: torch.linalg.vector_norm(x, dim=1)), (POINTS.half(),)),
    "vector_norm_dtype": (lambda: _Function(lambda x: torch.linalg.vector_norm(x, ord=3, dtype=torch.float64)), (POINTS,)),
    "embedding_bag_max_bfloat16": (lambda: _Function(lambda i: F.embedding_bag(i, torch.linspace(-1, 1, 30).reshape(10, 3).bfloat16(), mode="max")),
                                   (BAG_ROWS,)),
    "embedding_bag_int32_indices": (lambda: _Function(lambda i, o: F.embedding_bag(i, torch.linspace(-1, 1, 30).reshape(10, 3), o, mode="mean")),
                                    (BAG_INDICES.int(), BAG_OFFSETS.int())),
    "conv_transpose2d_half": (lambda: _Function(lambda x: F.conv_transpose2d(x, torch.linspace(-1, 1, 72).reshape(4, 2, 3, 3).half(), stride=2)),
                              (IMAGE.half(),)),
    "rfft_of_ints": (lambda: _Function(lambda x: torch.fft.rfft(x)), (torch.randint(-4, 5, (3, 8), generator=_G),)),
    "bilinear_empty_batch": (lambda: _Function(lambda a, b: F.bilinear(a, b, torch.ones(3, 4, 5))), (_randn(0, 4), _randn(0, 5))),
    "vector_norm_of_0d_over_dim_0": (lambda: _Function(lambda x: torch.linalg.vector_norm(x, dim=0)), (torch.tensor(-3.0),)),
    "native_batch_norm_eval_saved_statistics": (lambda: _Function(lambda x: torch.ops.aten.native_batch_norm(
        x, None, None, torch.linspace(-1, 1, 4), torch.linspace(0.5, 2, 4), False, 0.1, 1e-5)), (_randn(2, 4, 3),)),
    "embedding_bag_sparse_in_inference": (_seeded(lambda: nn.EmbeddingBag(10, 3, mode="mean", sparse=True)), (BAG_ROWS,)),
    "instance_norm2d_running_stats": (_seeded(lambda: nn.InstanceNorm2d(4, track_running_stats=True).eval()), (IMAGE,)),
}


# ---------------------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------------------
def assert_same_results(got: Any, want: Any, what: str = "result") -> None:
    """The same structure; each tensor with eager's dtype and shape, floats within FP32
    (NaN where eager has NaN), integers exactly."""
    got_leaves, got_spec = pytree.tree_flatten(got)
    want_leaves, want_spec = pytree.tree_flatten(want)
    assert got_spec == want_spec, f"{what}: structure {got_spec} differs from eager's {want_spec}"
    for index, (g, w) in enumerate(zip(got_leaves, want_leaves, strict=True)):
        assert g.dtype == w.dtype, f"{what} #{index}: dtype {g.dtype}, eager gives {w.dtype}"
        assert g.shape == w.shape, f"{what} #{index}: shape {tuple(g.shape)}, eager gives {tuple(w.shape)}"
        tolerance = FP32 if (w.dtype.is_floating_point or w.dtype.is_complex) else EXACT
        torch.testing.assert_close(g, w, **tolerance, equal_nan=True, msg=lambda m, i=index: f"{what} #{i}: {m}")


class WithLoss(nn.Module):
    """The model's output and the loss ``sum(out ** 2)`` (``|out| ** 2`` for complex outputs)."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, *inputs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.inner(*inputs)
        squares = out.abs() ** 2 if out.is_complex() else out * out
        return out, poptorch.identity_loss(squares.sum(), reduction="sum")


def check_inference(factory: Callable[[], nn.Module], inputs: tuple) -> None:
    model = factory()
    with torch.no_grad():
        want = model(*inputs)
    assert_same_results(poptorch.inferenceModel(copy.deepcopy(model))(*inputs), want)


def check_training_step(factory: Callable[[], nn.Module], inputs: tuple) -> None:
    """One SGD step: the output, the loss and every updated parameter match eager's."""
    model = WithLoss(factory())
    reference = copy.deepcopy(model)
    optimizer = torch.optim.SGD(reference.parameters(), lr=LEARNING_RATE)
    want_out, want_loss = reference(*inputs)
    want_loss.backward()
    optimizer.step()
    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(model.parameters(), lr=LEARNING_RATE))
    try:
        out, loss = training(*inputs)
        assert_same_results(out, want_out.detach(), "output")
        torch.testing.assert_close(loss, want_loss.detach(), **FP32, msg=lambda m: f"loss: {m}")
        trained, expected = dict(model.named_parameters()), dict(reference.named_parameters())
        assert list(trained) == list(expected) and expected
        for name, value in expected.items():
            torch.testing.assert_close(trained[name].detach(), value.detach(), **FP32, msg=lambda m, n=name: f"updated {n}: {m}")
    finally:
        training.destroy()


@pytest.mark.parametrize("name", [*CASES, *INFERENCE_ONLY])
def test_op_matches_eager(name: str) -> None:
    check_inference(*(CASES.get(name) or INFERENCE_ONLY[name]))


@pytest.mark.parametrize("name", list(CASES))
def test_training_step_through_op_matches_eager(name: str) -> None:
    check_training_step(*CASES[name])


# ---------------------------------------------------------------------------------------
# Refusals: what the IPU program cannot do says so, naming the op and the reason
# ---------------------------------------------------------------------------------------
def test_embedding_bag_scale_grad_by_freq_is_refused_in_training() -> None:
    model = WithLoss(nn.EmbeddingBag(10, 3, mode="sum", scale_grad_by_freq=True))
    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(model.parameters(), lr=LEARNING_RATE))
    with pytest.raises(PipelineError, match=r"'torch.aten._embedding_bag_backward' cannot be lowered to the poplar dialect: "
                                            r"embedding bag with scale_grad_by_freq=True"):
        training(BAG_ROWS)


def test_embedding_bag_bookkeeping_results_are_refused_outside_the_gradient() -> None:
    table = torch.randn(10, 3)

    def bag_of_each_index(indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return torch.ops.aten._embedding_bag(table, indices, offsets, False, 1)[1]

    with pytest.raises(PipelineError, match=r"result #1 of _embedding_bag \(offset2bag, bag_size, max_indices\) is read outside its gradient"):
        poptorch.inferenceModel(_Function(bag_of_each_index))(BAG_INDICES, BAG_OFFSETS)

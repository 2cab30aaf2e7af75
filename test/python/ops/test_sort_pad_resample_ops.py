"""Sorting, padding, resampling, im2col and grid-sampling core ATen ops end to end: each op
in a tiny model through ``poptorch.inferenceModel`` against eager PyTorch (FP32 for floats,
indices and integers exact, eager's dtypes), one SGD step through each differentiable one,
and the refusals.

Covers sort (plain, stable, descending; argsort and msort decompose to it) and topk
(largest / smallest, sorted or not), F.pad in every mode (reflection_pad1d/2d/3d,
replication_pad1d/2d/3d and their gradients, circular and constant), upsampling
(nearest, nearest-exact, linear / bilinear / trilinear with and without align_corners, by
size or scale factor; nn.Upsample) and its gradients, F.unfold / F.fold (im2col /
col2im, each the other's gradient) and F.grid_sample (grid_sampler_2d and its gradient:
bilinear and nearest, zeros / border / reflection padding, both align_corners).
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from helpers import FP32
from helpers.op_runs import FunctionModel, check_inference, check_training_step

import poptorch
from ipu_mlir.compiler.pass_pipeline import PipelineError

_G = torch.Generator().manual_seed(0)
X = torch.randn(3, 6, generator=_G)
TIES = torch.tensor([[3, 1, 3, 2, 1, 3], [0, 0, 5, 5, 0, 1]])
NANS = torch.tensor([1.0, float("nan"), -2.0, float("inf"), 0.5, float("nan")])
SIGNAL = torch.randn(2, 3, 7, generator=_G)  # [N, C, W]
IMAGE = torch.randn(2, 3, 5, 6, generator=_G)  # [N, C, H, W]
VOLUME = torch.randn(1, 2, 3, 4, 5, generator=_G)  # [N, C, D, H, W]
COLUMNS = torch.randn(2, 12, 12, generator=_G)  # F.fold input: [N, C * 2 * 3, L]
GRID = torch.rand(2, 4, 3, 2, generator=_G) * 3.2 - 1.6  # reaches past the image on every side

# name -> (function of the inputs, inputs)
CASES: dict[str, tuple[Callable, tuple]] = {
    # -- sort / topk ---------------------------------------------------------------------
    "sort": (lambda x: torch.sort(x), (X,)),
    "sort_dim0_descending": (lambda x: torch.sort(x, dim=0, descending=True), (X,)),
    "sort_negative_dim": (lambda x: torch.sort(x, dim=-2), (X,)),
    "sort_ints": (lambda a: torch.sort(a, dim=1), (TIES,)),
    "sort_stable_keeps_ties_in_order": (lambda a: torch.sort(a, dim=1, stable=True), (TIES,)),
    "sort_stable_descending": (lambda a: torch.sort(a, dim=1, stable=True, descending=True), (TIES,)),
    "sort_bool": (lambda a: torch.sort(a > 1, dim=1), (TIES,)),
    "sort_half": (lambda x: torch.sort(x.half(), dim=1), (X,)),
    "sort_nan_and_inf": (lambda x: torch.sort(x, descending=True), (NANS,)),
    "sort_scalar": (lambda x: torch.sort(x[0, 0]), (X,)),
    "argsort": (lambda x: torch.argsort(x, dim=1, descending=True), (X,)),
    "argsort_stable": (lambda a: torch.argsort(a, stable=True), (TIES,)),
    "msort": (torch.msort, (X,)),
    "topk": (lambda x: torch.topk(x, 3), (X,)),
    "topk_smallest_dim0": (lambda x: torch.topk(x, 2, dim=0, largest=False), (X,)),
    "topk_unsorted": (lambda x: torch.topk(x, 4, dim=-1, sorted=False), (X,)),
    "topk_ints": (lambda a: torch.topk(a, 2), (TIES,)),
    "topk_none": (lambda x: torch.topk(x, 0), (X,)),
    "topk_nan_is_largest": (lambda x: torch.topk(x, 3), (NANS,)),
    "topk_scalar": (lambda x: torch.topk(x[0, 0], 1), (X,)),
    # -- padding -------------------------------------------------------------------------
    "reflect_1d": (lambda x: F.pad(x, (3, 2), mode="reflect"), (SIGNAL,)),
    "reflect_1d_unbatched": (lambda x: F.pad(x, (2, 4), mode="reflect"), (X,)),
    "reflect_2d": (lambda x: F.pad(x, (2, 1, 0, 3), mode="reflect"), (IMAGE,)),
    "reflect_3d": (lambda x: F.pad(x, (1, 2, 2, 1, 1, 1), mode="reflect"), (VOLUME,)),
    "reflection_pad_module": (nn.ReflectionPad2d((1, 0, 2, 1)), (IMAGE,)),
    "replicate_1d": (lambda x: F.pad(x, (2, 3), mode="replicate"), (SIGNAL,)),
    "replicate_2d": (lambda x: F.pad(x, (0, 2, 3, 1), mode="replicate"), (IMAGE,)),
    "replicate_3d": (lambda x: F.pad(x, (1, 1, 0, 2, 2, 1), mode="replicate"), (VOLUME,)),
    "replicate_ints": (lambda a: F.pad(a.unsqueeze(0), (2, 1), mode="replicate"), (TIES,)),
    "replication_pad_module": (nn.ReplicationPad1d(3), (SIGNAL,)),
    "circular_2d": (lambda x: F.pad(x, (2, 1, 1, 3), mode="circular"), (IMAGE,)),
    "circular_pad_module": (nn.CircularPad1d((1, 4)), (SIGNAL,)),
    "constant_value": (lambda x: F.pad(x, (1, 2, 0, 1), value=3.5), (X,)),
    "constant_ints": (lambda a: F.pad(a, (1, 1), value=7), (TIES,)),
    # -- upsampling ----------------------------------------------------------------------
    "nearest_scale_2": (lambda x: F.interpolate(x, scale_factor=2), (IMAGE,)),
    "nearest_size": (lambda x: F.interpolate(x, size=(7, 4)), (IMAGE,)),
    "nearest_fractional_scales": (lambda x: F.interpolate(x, scale_factor=(1.5, 0.7)), (IMAGE,)),
    "nearest_dim_keeping_its_size": (lambda x: F.interpolate(x, scale_factor=(1.1, 2.0)), (IMAGE,)),
    "nearest_uint8": (lambda a: F.interpolate(a.to(torch.uint8).reshape(1, 2, 1, 6), scale_factor=(3, 0.5)), (TIES,)),
    "nearest_exact": (lambda x: F.interpolate(x, size=(8, 4), mode="nearest-exact"), (IMAGE,)),
    "nearest_1d": (lambda x: F.interpolate(x, scale_factor=2.5), (SIGNAL,)),
    "nearest_3d": (lambda x: F.interpolate(x, scale_factor=(1.5, 2, 1)), (VOLUME,)),
    "bilinear_size": (lambda x: F.interpolate(x, size=(8, 9), mode="bilinear"), (IMAGE,)),
    "bilinear_align_corners": (lambda x: F.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=True), (IMAGE,)),
    "bilinear_down": (lambda x: F.interpolate(x, scale_factor=(0.5, 0.7), mode="bilinear"), (IMAGE,)),
    "bilinear_recomputed_scale": (lambda x: F.interpolate(x, scale_factor=1.7, mode="bilinear", recompute_scale_factor=True), (IMAGE,)),
    "bilinear_to_one_row": (lambda x: F.interpolate(x, size=(1, 4), mode="bilinear", align_corners=True), (IMAGE,)),
    "linear_1d": (lambda x: F.interpolate(x, size=11, mode="linear"), (SIGNAL,)),
    "trilinear": (lambda x: F.interpolate(x, size=(4, 6, 3), mode="trilinear", align_corners=True), (VOLUME,)),
    "upsample_module": (nn.Upsample(scale_factor=2, mode="bilinear"), (IMAGE,)),
    # -- im2col / col2im -----------------------------------------------------------------
    "unfold": (lambda x: F.unfold(x, (2, 3)), (IMAGE,)),
    "unfold_every_option": (lambda x: F.unfold(x, (3, 2), dilation=(1, 2), padding=(1, 2), stride=(2, 1)), (IMAGE,)),
    "unfold_unbatched": (lambda x: F.unfold(x[0], 2, stride=2), (IMAGE,)),
    "unfold_module": (nn.Unfold(kernel_size=3, padding=1), (IMAGE,)),
    "fold": (lambda c: F.fold(c, (4, 6), (2, 3)), (COLUMNS,)),
    "fold_every_option": (lambda c: F.fold(c, (5, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), (COLUMNS,)),
    "fold_unbatched": (lambda c: F.fold(c[0], (4, 6), (2, 3)), (COLUMNS,)),
    "fold_module": (nn.Fold(output_size=(4, 6), kernel_size=(2, 3)), (COLUMNS,)),
    # -- grid_sample ---------------------------------------------------------------------
    "grid_sample": (lambda x, g: F.grid_sample(x, g, align_corners=False), (IMAGE, GRID)),
    "grid_sample_align_corners": (lambda x, g: F.grid_sample(x, g, align_corners=True), (IMAGE, GRID)),
    "grid_sample_border": (lambda x, g: F.grid_sample(x, g, padding_mode="border", align_corners=False), (IMAGE, GRID)),
    "grid_sample_reflection": (lambda x, g: F.grid_sample(x, g, padding_mode="reflection", align_corners=False), (IMAGE, GRID)),
    "grid_sample_reflection_align_corners": (lambda x, g: F.grid_sample(x, g, padding_mode="reflection", align_corners=True),
                                             (IMAGE, GRID)),
    "grid_sample_nearest": (lambda x, g: F.grid_sample(x, g, mode="nearest", align_corners=False), (IMAGE, GRID)),
    "grid_sample_nearest_border": (lambda x, g: F.grid_sample(x, g, mode="nearest", padding_mode="border", align_corners=True),
                                   (IMAGE, GRID)),
    "grid_sample_affine_grid": (lambda x: F.grid_sample(x, F.affine_grid(torch.tensor([[[0.8, 0.2, 0.1], [-0.3, 0.9, 0.0]]] * 2),
                                                                         [2, 3, 4, 5], align_corners=False), align_corners=False),
                                (IMAGE,)),
}


@pytest.mark.parametrize("name", CASES)
def test_op_matches_eager(name: str) -> None:
    fn, inputs = CASES[name]
    check_inference(fn, *inputs)


# name -> (function of one tensor, input): one SGD step through the op's gradient.
TRAINING: dict[str, tuple[Callable, torch.Tensor]] = {
    "sort": (lambda t: torch.sort(t, dim=1, descending=True)[0], X),
    "sort_stable": (lambda t: torch.sort(t, dim=0, stable=True)[0], X),
    "topk": (lambda t: torch.topk(t, 3)[0], X),
    "topk_smallest": (lambda t: torch.topk(t, 2, dim=0, largest=False)[0], X),
    "reflect_1d": (lambda t: F.pad(t, (3, 2), mode="reflect"), SIGNAL),
    "reflect_2d": (lambda t: F.pad(t, (2, 1, 0, 3), mode="reflect"), IMAGE),
    "reflect_3d": (lambda t: F.pad(t, (1, 2, 2, 1, 1, 1), mode="reflect"), VOLUME),
    "replicate_1d": (lambda t: F.pad(t, (2, 3), mode="replicate"), SIGNAL),
    "replicate_2d": (lambda t: F.pad(t, (0, 2, 3, 1), mode="replicate"), IMAGE),
    "replicate_3d": (lambda t: F.pad(t, (1, 1, 0, 2, 2, 1), mode="replicate"), VOLUME),
    "circular_2d": (lambda t: F.pad(t, (2, 1, 1, 3), mode="circular"), IMAGE),  # decomposed (slices and copies) in training
    "nearest_scale_2": (lambda t: F.interpolate(t, scale_factor=2), IMAGE),
    "nearest_size": (lambda t: F.interpolate(t, size=(7, 4)), IMAGE),
    "nearest_exact": (lambda t: F.interpolate(t, size=(8, 4), mode="nearest-exact"), IMAGE),
    "nearest_3d": (lambda t: F.interpolate(t, scale_factor=(1.5, 2, 1)), VOLUME),
    "bilinear_size": (lambda t: F.interpolate(t, size=(8, 9), mode="bilinear"), IMAGE),
    "bilinear_align_corners": (lambda t: F.interpolate(t, scale_factor=1.5, mode="bilinear", align_corners=True), IMAGE),
    "bilinear_down": (lambda t: F.interpolate(t, scale_factor=(0.5, 0.7), mode="bilinear"), IMAGE),
    "linear_1d": (lambda t: F.interpolate(t, size=11, mode="linear"), SIGNAL),
    "trilinear": (lambda t: F.interpolate(t, size=(4, 6, 3), mode="trilinear", align_corners=True), VOLUME),
    "upsample_module": (nn.Upsample(scale_factor=2, mode="bilinear"), IMAGE),
    "unfold": (lambda t: F.unfold(t, (3, 2), dilation=(1, 2), padding=(1, 2), stride=(2, 1)), IMAGE),
    "fold": (lambda t: F.fold(t, (5, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), COLUMNS),
}


@pytest.mark.parametrize("name", TRAINING)
def test_training_step_through_op_matches_eager(name: str) -> None:
    fn, x = TRAINING[name]
    check_training_step(fn, x)


class _GridSample(nn.Module):
    """``grid_sample(x * a, g * b)``: both the image and the grid train."""

    def __init__(self, **options: object) -> None:
        super().__init__()
        self.options = options
        generator = torch.Generator().manual_seed(1)
        self.a = nn.Parameter(1.0 + 0.25 * torch.randn(IMAGE.shape, generator=generator))
        self.b = nn.Parameter(1.0 + 0.1 * torch.randn(GRID.shape, generator=generator))

    def forward(self, x: torch.Tensor, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = F.grid_sample(x * self.a, g * self.b, **self.options)
        return out, poptorch.identity_loss((out * out).sum(), reduction="sum")


@pytest.mark.parametrize("options", [
    {"align_corners": False}, {"align_corners": True}, {"padding_mode": "border", "align_corners": False},
    {"padding_mode": "border", "align_corners": True}, {"padding_mode": "reflection", "align_corners": False},
    {"padding_mode": "reflection", "align_corners": True}, {"mode": "nearest", "align_corners": False},
    {"mode": "nearest", "padding_mode": "reflection", "align_corners": True},
], ids=lambda options: "-".join(str(v) for v in options.values()))
def test_grid_sample_training_step_updates_image_and_grid_as_eager(options: dict) -> None:
    model = _GridSample(**options)
    reference = copy.deepcopy(model)
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.01)
    want_out, want_loss = reference(IMAGE, GRID)
    want_loss.backward()
    optimizer.step()
    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(model.parameters(), lr=0.01))
    out, loss = training(IMAGE, GRID)
    torch.testing.assert_close(out, want_out.detach(), **FP32)
    torch.testing.assert_close(loss, want_loss.detach(), **FP32)
    torch.testing.assert_close(model.a.detach(), reference.a.detach(), **FP32, msg=lambda m: f"image weight: {m}")
    torch.testing.assert_close(model.b.detach(), reference.b.detach(), **FP32, msg=lambda m: f"grid weight: {m}")
    training.destroy()


@pytest.mark.parametrize(("fn", "inputs", "message"), [
    (lambda x, g: F.grid_sample(x, g, mode="bicubic", align_corners=False), (IMAGE, GRID),
     r"'torch.aten.grid_sampler_2d' cannot be lowered to the poplar dialect: grid_sample with mode 'bicubic' .* use mode='bilinear'"),
    (lambda x: F.pad(x, (-1, 2)), (X,),
     r"'torch.aten.pad' cannot be lowered to the poplar dialect: negative constant padding \[-1, 2\] \(cropping\); slice the tensor instead"),
], ids=["grid_sample_bicubic", "negative_constant_padding"])
def test_unsupported_arguments_are_refused_with_the_reason(fn: Callable, inputs: tuple, message: str) -> None:
    with pytest.raises(PipelineError, match=message):
        poptorch.inferenceModel(FunctionModel(fn))(*inputs)

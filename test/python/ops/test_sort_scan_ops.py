"""Selection, search, scan, histogram and segment ops end to end: each op in a tiny model
through ``poptorch.inferenceModel`` against eager PyTorch (FP32 for floats, indices and
counts exact, eager's dtypes), one SGD step through each differentiable one, and the
refusals.

Covers kthvalue, median / nanmedian (over a dim and over everything), mode, with repeated
values and NaNs (the index eager picks among equal values); searchsorted (left / right /
side, out_int32, sorter, one line per row, a Python number), bucketize, isin;
cummax / cummin (ties and NaN), logcumsumexp (large and infinite inputs); histc,
histogram (bin count or edges, range, weight, density), histogramdd; segment_reduce
(lengths / offsets, every reduction, empty segments, initial) and its gradient; dist.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from helpers.op_runs import FunctionModel, check_inference, check_training_step

import poptorch
from ipu_mlir.compiler.pass_pipeline import PipelineError

_G = torch.Generator().manual_seed(0)
X = torch.randn(4, 7, generator=_G)
# Few distinct values: every line holds repeats, so the index eager picks among equal
# values is what is compared.
TIES = torch.randint(0, 3, (5, 9), generator=_G).float()
TIES_LONG = torch.randint(0, 4, (3, 40), generator=_G).float()
NANS = torch.tensor([[1.0, float("nan"), -2.0, 3.0, 0.5, float("nan")],
                     [float("nan")] * 6,
                     [2.0, 2.0, -1.0, float("inf"), 2.0, -1.0]])
SEQUENCE = torch.tensor([-1.5, -0.5, 0.0, 0.0, 0.25, 1.0, 2.0])
LINES = torch.sort(torch.randn(4, 5, generator=_G), dim=1).values
SAMPLES = torch.randn(30, 2, generator=_G)
DATA = torch.randn(8, 3, generator=_G)
LENGTHS = torch.tensor([2, 0, 3, 3])
OFFSETS = torch.tensor([0, 2, 2, 5, 8])
FAR = X.flip(0) + 1.0  # the other point of dist's gradient

# name -> (function of the inputs, inputs)
CASES: dict[str, tuple[Callable, tuple]] = {
    # -- order statistics ------------------------------------------------------------------
    "kthvalue": (lambda x: torch.kthvalue(x, 3, dim=1), (X,)),
    "kthvalue_ties": (lambda x: torch.kthvalue(x, 4, dim=1), (TIES,)),
    "kthvalue_ties_long_lines": (lambda x: torch.kthvalue(x, 17, dim=1, keepdim=True), (TIES_LONG,)),
    "kthvalue_dim0_nan": (lambda x: torch.kthvalue(x, 3, dim=0), (NANS,)),
    "median_dim": (lambda x: torch.median(x, dim=1), (X,)),
    "median_dim_ties": (lambda x: torch.median(x, dim=1, keepdim=True), (TIES_LONG,)),
    "median_dim_nan": (lambda x: torch.median(x, dim=1), (NANS,)),
    "median_all": (torch.median, (X,)),
    "median_all_nan": (torch.median, (NANS,)),
    "nanmedian_dim_nan": (lambda x: torch.nanmedian(x, dim=1), (NANS,)),
    "nanmedian_all_nan": (torch.nanmedian, (NANS,)),
    "nanmedian_ties": (lambda x: torch.nanmedian(x, dim=0), (TIES,)),
    "mode": (lambda x: torch.mode(x, dim=1), (TIES,)),
    "mode_long_lines": (lambda x: torch.mode(x, dim=-1, keepdim=True), (TIES_LONG,)),
    "mode_ints": (lambda x: torch.mode(x.long(), dim=0), (TIES,)),
    # -- search ----------------------------------------------------------------------------
    "searchsorted": (lambda s, x: torch.searchsorted(s, x), (SEQUENCE, X)),
    "searchsorted_right_on_repeats": (lambda s: torch.searchsorted(s, torch.tensor([0.0, -0.5, 5.0, -9.0]), right=True), (SEQUENCE,)),
    "searchsorted_side_right_int32": (lambda s, x: torch.searchsorted(s, x, side="right", out_int32=True), (SEQUENCE, X)),
    "searchsorted_rows": (lambda s, x: torch.searchsorted(s, x), (LINES, X)),
    "searchsorted_sorter": (lambda s, x: torch.searchsorted(s, x, sorter=torch.argsort(s)), (SEQUENCE.flip(0), X)),
    "searchsorted_scalar": (lambda s: torch.searchsorted(s, 0.1, right=True), (SEQUENCE,)),
    "bucketize": (lambda x, b: torch.bucketize(x, b), (X, SEQUENCE)),
    "bucketize_right_int32": (lambda x, b: torch.bucketize(x, b, right=True, out_int32=True), (TIES, torch.tensor([0.0, 1.0, 1.5]))),
    "isin": (lambda x, t: torch.isin(x, t), (TIES, torch.tensor([2.0, 5.0]))),
    "isin_invert": (lambda x, t: torch.isin(x, t, invert=True), (TIES, torch.tensor([0.0, 1.0, 7.0]))),
    # -- scans -----------------------------------------------------------------------------
    "cummax": (lambda x: torch.cummax(x, dim=1), (X,)),
    "cummax_ties": (lambda x: torch.cummax(x, dim=1), (TIES,)),
    "cummin_ties_dim0": (lambda x: torch.cummin(x, dim=0), (TIES,)),
    "cummax_nan": (lambda x: torch.cummax(x, dim=-1), (NANS,)),
    "cummin_nan": (lambda x: torch.cummin(x, dim=1), (NANS,)),
    "cummax_ints": (lambda x: torch.cummax(x.int(), dim=1), (TIES,)),
    "logcumsumexp": (lambda x: torch.logcumsumexp(x, dim=1), (X,)),
    "logcumsumexp_large": (lambda x: torch.logcumsumexp(x * 300.0, dim=0), (X,)),
    "logcumsumexp_infinities": (lambda x: torch.logcumsumexp(x, dim=1),
                                (torch.tensor([[-float("inf"), 1.0, float("inf"), 2.0], [-float("inf")] * 4]),)),
    # -- histograms ------------------------------------------------------------------------
    "histc": (lambda x: torch.histc(x, bins=6), (X,)),
    "histc_range": (lambda x: torch.histc(x, bins=4, min=-1.0, max=1.0), (X,)),
    "histc_constant": (lambda x: torch.histc(x * 0 + 2.0, bins=3), (X,)),
    "histogram": (lambda x: torch.histogram(x, bins=5), (X,)),
    "histogram_range_weight_density": (lambda x, w: torch.histogram(x, bins=4, range=(-1.0, 2.0), weight=w, density=True),
                                       (X, torch.rand(4, 7, generator=_G))),
    "histogram_edges": (lambda x: torch.histogram(x, bins=torch.tensor([-2.0, -0.1, 0.0, 0.7, 3.0])), (X,)),
    "histogramdd": (lambda x: torch.histogramdd(x, bins=[3, 4]), (SAMPLES,)),
    "histogramdd_range_weight": (lambda x, w: torch.histogramdd(x, bins=[2, 3], range=[-1.0, 1.0, -2.0, 2.0], weight=w, density=True),
                                 (SAMPLES, torch.rand(30, generator=_G))),
    "histogramdd_edges": (lambda x: torch.histogramdd(x, bins=[torch.tensor([-3.0, 0.0, 3.0]), torch.tensor([-1.0, 0.0, 0.5, 1.0])]),
                          (SAMPLES,)),
    # -- segments --------------------------------------------------------------------------
    **{f"segment_reduce_{reduce}": (lambda d, n, r=reduce: torch.segment_reduce(d, r, lengths=n), (DATA, LENGTHS))
       for reduce in ("sum", "mean", "max", "min", "prod")},
    "segment_reduce_offsets_initial": (lambda d, o: torch.segment_reduce(d, "max", offsets=o, initial=0.5), (DATA, OFFSETS)),
    "segment_reduce_axis1": (lambda d, n: torch.segment_reduce(d, "sum", lengths=n, axis=1),
                             (DATA.t().contiguous(), LENGTHS.expand(3, 4).contiguous())),
    # -- dist ------------------------------------------------------------------------------
    "dist": (lambda a, b: torch.dist(a, b), (X, X.flip(0))),
    "dist_p1_broadcast": (lambda a, b: torch.dist(a, b, p=1), (X, X[0])),
    "dist_inf": (lambda a, b: torch.dist(a, b, p=float("inf")), (X, X.flip(1))),
    "dist_p0": (lambda a, b: torch.dist(a, b, p=0), (TIES, TIES.flip(0))),
}


@pytest.mark.parametrize("name", CASES)
def test_op_matches_eager(name: str) -> None:
    fn, inputs = CASES[name]
    check_inference(fn, *inputs)


# name -> (function of one tensor, input): one SGD step through the op's gradient.
TRAINING: dict[str, tuple[Callable, torch.Tensor]] = {
    "kthvalue": (lambda x: torch.kthvalue(x, 2, dim=1).values, X),
    "median_dim": (lambda x: torch.median(x, dim=0).values, X),
    "median_all": (lambda x: torch.median(x).reshape(1), X),
    "nanmedian": (lambda x: torch.nanmedian(x, dim=1).values, X),
    "mode": (lambda x: torch.mode(x.round(), dim=1).values, X * 2),
    "cummax": (lambda x: torch.cummax(x, dim=1).values, X),
    "cummin": (lambda x: torch.cummin(x, dim=0).values, X),
    "logcumsumexp": (lambda x: torch.logcumsumexp(x, dim=1), X),
    "dist": (lambda x: torch.dist(x, FAR, p=3).reshape(1), X),
    "segment_reduce_max": (lambda x: torch.segment_reduce(x, "max", lengths=LENGTHS, initial=-1.0), DATA),
    "segment_reduce_mean_offsets": (lambda x: torch.segment_reduce(x, "mean", offsets=torch.tensor([0, 2, 5, 8])), DATA),
    "segment_reduce_prod": (lambda x: torch.segment_reduce(x, "prod", lengths=LENGTHS), DATA),
}


@pytest.mark.parametrize("name", TRAINING)
def test_training_step_through_op_matches_eager(name: str) -> None:
    fn, x = TRAINING[name]
    check_training_step(fn, x)


@pytest.mark.parametrize("fn", [torch.median, torch.nanmedian], ids=["median", "nanmedian"])
def test_median_of_an_empty_tensor_is_nan_as_eager(fn: Callable[[torch.Tensor], torch.Tensor]) -> None:
    # The other wrong arguments (k out of range, integer histograms, mismatched
    # searchsorted batches) fail in eager and so at capture, before the lowering.
    got = check_inference(lambda x: fn(x[:, :0]), X)
    assert got.isnan()


def test_median_of_an_empty_integer_tensor_is_refused_with_the_reason() -> None:
    # Eager returns an unspecified integer (NaN converted); the IPU program refuses.
    with pytest.raises(PipelineError, match=r"torch.aten.median of an empty integer tensor \(eager returns an unspecified integer"):
        poptorch.inferenceModel(FunctionModel(lambda x: torch.median(x[:, :0])))(X.long())

"""Regressions for lowering bugs the OpInfo op sweep (``bench/ops.py``) found, end to end
through ``poptorch`` against eager PyTorch (FP32; NaN and inf where eager gives them):

- reductions of a 0-d tensor (dim 0 / -1, which torch accepts) and with ``dim=[]``
  (every dim): an internal IndexError before;
- max / min with a dim on a 0-d tensor: an invalid ``popops_reduce`` before;
- empty ``arange`` and ``eye`` with a 0 dim: an invalid constant attribute before;
- ``round(x, decimals=d)``: a KeyError before;
- means of no elements (``var_mean`` / ``std_mean`` of an empty tensor): 0 before, NaN
  in eager; variances whose correction leaves no degrees of freedom: inf or NaN;
- the training steps of glu on an empty batch (every concatenated piece empty: an
  IndexError), bicubic upsampling (an ``_unsafe_index_put`` with None indices the
  importer refused) and F.threshold with a non-zero threshold (refused); causal attention
  of unequal lengths (a non-splat boolean constant the IPU Model could not read);
- replicate padding with negative pads (crops; refused before), forward and backward;
- torch.Size outputs (``broadcast_shapes``, ``x.shape``): plain tuples before;
- embedding bags (padding_idx=-1, max_norm; training refuses max_norm and sparse=True),
  index_reduce, angle and complex scalars, instance norm updating running statistics.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
import torch
import torch.nn.functional as F
from helpers import FP32
from helpers.op_runs import FunctionModel, check_inference, check_training_step

import poptorch

_G = torch.Generator().manual_seed(0)
X = torch.randn(3, 4, generator=_G)
X0 = torch.tensor(-1.75)
B0 = torch.tensor(True)
# Ties at every scale the cases round to, so half-to-even is tested.
TIES = torch.tensor([1.2345, -2.5, 0.5, 1.5, 1234.5678, 0.0005, 2500.0, 3500.0, -1500.0, 7.0625])

CASES: dict[str, tuple[Callable, tuple]] = {
    # -- 0-d inputs and dim=[] -----------------------------------------------------------
    "sum_rank0_dim0": (lambda x: torch.sum(x, 0), (X0,)),
    "sum_rank0_keepdim": (lambda x: torch.sum(x, -1, keepdim=True), (X0,)),
    "mean_rank0": (lambda x: torch.mean(x, -1), (X0,)),
    "amax_rank0_empty_dims": (lambda x: torch.amax(x, []), (X0,)),
    "amin_rank0_dim0": (lambda x: torch.amin(x, 0), (X0,)),
    "any_rank0": (lambda b: torch.any(b, 0), (B0,)),
    "all_rank0": (lambda b: torch.all(b, -1), (B0,)),
    "logsumexp_rank0": (lambda x: torch.logsumexp(x, 0), (X0,)),
    "nansum_rank0": (lambda x: torch.nansum(x, []), (X0,)),
    "sum_empty_dims_is_all": (lambda x: torch.sum(x, []), (X,)),
    "mean_empty_dims_is_all": (lambda x: torch.mean(x, [], keepdim=True), (X,)),
    "amax_empty_dims_is_all": (lambda x: torch.amax(x, []), (X,)),
    "amin_empty_dims_keepdim": (lambda x: torch.amin(x, [], keepdim=True), (X,)),
    # -- max / min with a dim on a 0-d tensor --------------------------------------------
    "max_dim_rank0": (lambda x: torch.max(x, 0), (X0,)),
    "min_dim_rank0_keepdim": (lambda x: torch.min(x, -1, keepdim=True), (X0,)),
    # -- empty constant ranges -------------------------------------------------------------
    "arange_empty": (lambda x: torch.cat([x.flatten(), torch.arange(5, 5, dtype=x.dtype)]), (X,)),
    "arange_empty_step": (lambda x: torch.cat([x.flatten(), torch.arange(1.0, 1.0, 0.5)]), (X,)),
    "eye_no_rows": (lambda x: torch.cat([x, torch.eye(0, 4)]), (X,)),
    "eye_no_columns": (lambda x: x.sum() + torch.eye(3, 0), (X,)),
    # -- round with decimals --------------------------------------------------------------
    "round_decimals_0": (lambda x: torch.round(x, decimals=0), (TIES,)),
    "round_decimals_3": (lambda x: torch.round(x, decimals=3), (TIES,)),
    "round_decimals_1": (lambda x: torch.round(x * 10.0, decimals=1), (X,)),
    "round_decimals_neg_3": (lambda x: torch.round(x, decimals=-3), (TIES,)),
    # -- means of nothing, variances without degrees of freedom ----------------------------
    "var_mean_empty_is_nan": (lambda x: torch.var_mean(x, unbiased=False), (torch.empty(0),)),
    "std_mean_empty_unbiased_is_nan": (lambda x: torch.std_mean(x, unbiased=True), (torch.empty(0),)),
    "mean_empty_is_nan": (lambda x: torch.mean(x, 0), (torch.empty(0, 3),)),
    "var_mean_correction_past_n_is_inf": (lambda x: torch.var_mean(x, 1, correction=6), (X,)),
    "std_mean_correction_past_n_of_constant_is_nan": (lambda x: torch.std_mean(x * 0.0 + 2.0, 0, correction=5), (X,)),
    "var_mean_one_element_unbiased_is_nan": (lambda x: torch.var_mean(x[:1, 0], correction=1), (X,)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_op_matches_eager(name: str) -> None:
    fn, inputs = CASES[name]
    check_inference(fn, *inputs)


TRAINED: dict[str, tuple[Callable, torch.Tensor]] = {
    "sum_rank0": (lambda x: torch.sum(x, 0), X0),
    "amax_empty_dims": (lambda x: torch.amax(x, []), X),
    "max_dim_rank0": (lambda x: torch.max(x, -1).values, X0),
    "round_decimals_2_times_x": (lambda x: torch.round(x, decimals=2) * x, X),
}


@pytest.mark.parametrize("name", list(TRAINED))
def test_training_step_through_op_matches_eager(name: str) -> None:
    fn, x = TRAINED[name]
    check_training_step(fn, x)


def test_mean_of_nothing_is_nan_not_zero() -> None:
    """The sweep's var_mean.unbiased sample: eager's NaN mean of an empty tensor, not 0."""
    variance, mean = check_inference(lambda x: torch.var_mean(x, unbiased=False), torch.empty(0))
    assert torch.isnan(variance) and torch.isnan(mean)


# -- helper E: the sweep's known failing cases ------------------------------------------------
_Q = torch.randn(2, 3, 4, 8, generator=_G)
_KEY = torch.randn(2, 3, 5, 8, generator=_G)
_MASK = torch.rand(4, 5, generator=_G) > 0.4


@pytest.mark.parametrize(("name", "fn", "x"), [
    ("glu_empty_batch", lambda x: F.glu(x, 1), torch.randn(0, 2, generator=_G)),
    ("glu", lambda x: F.glu(x, -1), torch.randn(3, 4, generator=_G)),
    ("bicubic_align_corners", lambda x: F.interpolate(x, size=(3, 5), mode="bicubic", align_corners=True),
     torch.randn(2, 3, 4, 4, generator=_G)),
    ("bicubic_scale", lambda x: F.interpolate(x, scale_factor=1.5, mode="bicubic"), torch.randn(1, 2, 4, 4, generator=_G)),
    ("threshold_negative", lambda x: F.threshold(x, -0.4, 2.5), torch.randn(3, 4, generator=_G)),
    ("threshold_positive", lambda x: F.threshold(x, 0.3, -1.0), torch.randn(3, 4, generator=_G)),
    ("replicate_crop_all_then_pad", lambda x: F.pad(x, [-4, 5, 0, 0], mode="replicate"), torch.randn(1, 2, 3, 4, generator=_G)),
    ("replicate_crop_both_sides", lambda x: F.pad(x, [-1, -1, 2, -1], mode="replicate"), torch.randn(1, 2, 3, 5, generator=_G)),
    ("replicate_crop_and_pad_1d", lambda x: F.pad(x, [3, -2], mode="replicate"), torch.randn(2, 3, 5, generator=_G)),
])
def test_sweep_training_step_matches_eager(name: str, fn: Callable, x: torch.Tensor) -> None:
    check_training_step(fn, x)


def test_causal_attention_of_unequal_lengths_matches_eager() -> None:
    """Causal attention of 4 queries over 5 keys: its mask is a non-splat boolean constant."""
    check_inference(lambda q, k: F.scaled_dot_product_attention(q, k, k, is_causal=True), _Q, _KEY)


def test_attention_with_boolean_mask_matches_eager() -> None:
    mask = _MASK
    check_inference(lambda q, k: F.scaled_dot_product_attention(q, k, k, attn_mask=mask), _Q, _KEY)


def test_attention_dropout_is_the_identity_in_inference() -> None:
    """dropout_p > 0 in an inference program: dropout is the identity there, as for every
    dropout (was "unsupported: attention dropout"); eager without dropout is the reference."""
    got = poptorch.inferenceModel(FunctionModel(lambda q, k: F.scaled_dot_product_attention(q, k, k, dropout_p=0.5)))(_Q, _KEY)
    with torch.no_grad():
        want = F.scaled_dot_product_attention(_Q, _KEY, _KEY)
    torch.testing.assert_close(got, want, **FP32)


@pytest.mark.parametrize("pads", [[-4, 5, 0, 0], [-1, -1, 2, -1], [2, -3, -2, 1], [-5, 2, 0, 0]])
def test_negative_replicate_padding_matches_eager(pads: list[int]) -> None:
    check_inference(lambda x: F.pad(x, pads, mode="replicate"), torch.randn(1, 2, 3, 4, generator=_G))


def test_size_outputs_come_back_as_torch_size() -> None:
    """torch.broadcast_shapes and x.shape outputs are torch.Size, as in eager (torch's pytree
    rebuilds a Size as a plain tuple)."""
    got = poptorch.inferenceModel(FunctionModel(lambda x: (torch.broadcast_shapes((3, 1), (1, 4)), {"shape": x.shape, "y": x + 1})))(X)
    assert type(got[0]) is torch.Size and type(got[1]["shape"]) is torch.Size
    assert got[0] == torch.Size([3, 4]) and got[1]["shape"] == X.shape
    torch.testing.assert_close(got[1]["y"], X + 1, **FP32)


_INDEX = torch.tensor([0, 2, 0, 1])


@pytest.mark.parametrize("reduce", ["amax", "amin", "mean", "prod"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_trains_as_eager(reduce: str, include_self: bool) -> None:
    """index_reduce along dim 1 of a [3, 4, 2] tensor, both ways of include_self (an
    IndexError in the sweep once), forward and one training step."""
    source = torch.randn(3, 4, 2, generator=_G)
    x = torch.randn(3, 3, 2, generator=_G)
    check_inference(lambda t, s: t.index_reduce(1, _INDEX, s, reduce, include_self=include_self), x, source)
    check_training_step(lambda s: x.index_reduce(1, _INDEX, s, reduce, include_self=include_self), source)


_BAG_INDICES, _BAG_OFFSETS = torch.tensor([0, 4, 1, 4, 2, 3]), torch.tensor([0, 3])


def test_embedding_bag_negative_padding_idx_is_the_last_row() -> None:
    """padding_idx=-1 is the last row (4 of 5), as in eager; it was taken as 'no padding'."""
    weight = torch.randn(5, 3, generator=_G)
    check_inference(lambda i, w, o: F.embedding_bag(i, w, o, mode="sum", padding_idx=-1), _BAG_INDICES, weight, _BAG_OFFSETS)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0])
def test_embedding_bag_max_norm_renormalises_the_rows_it_looks_up(norm_type: float) -> None:
    """max_norm scales the looked-up rows whose norm exceeds it (embedding_renorm), in the
    output and in the caller's weight tensor, which eager updates in place."""
    weight = torch.randn(5, 3, generator=_G) * 2

    def bag(i: torch.Tensor, w: torch.Tensor, o: torch.Tensor) -> torch.Tensor:
        return F.embedding_bag(i, w, o, mode="sum", max_norm=1.0, norm_type=norm_type)

    eager_weight, ipu_weight = weight.clone(), weight.clone()
    with torch.no_grad():
        want = bag(_BAG_INDICES, eager_weight, _BAG_OFFSETS)
    got = poptorch.inferenceModel(FunctionModel(bag))(_BAG_INDICES, ipu_weight, _BAG_OFFSETS)
    torch.testing.assert_close(got, want, **FP32)
    torch.testing.assert_close(ipu_weight, eager_weight, **FP32)
    assert not torch.equal(eager_weight, weight)  # some row was renormalised


class _Bag(torch.nn.Module):
    def __init__(self, **kwargs: object) -> None:
        super().__init__()
        self.bag = torch.nn.EmbeddingBag(10, 4, mode="sum", **kwargs)

    def forward(self, i: torch.Tensor, o: torch.Tensor) -> torch.Tensor:
        return poptorch.identity_loss(self.bag(i, o).sum(), reduction="sum")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"max_norm": 1.0}, r"the model's forward changes parameter 'bag.weight' in place \(nn.Embedding / nn.EmbeddingBag "
                        r"with max_norm .*drop max_norm"),
    ({"sparse": True}, r"gives a gradient with the sparse_coo layout \(nn.Embedding / nn.EmbeddingBag with sparse=True\); "
                       r"the IPU holds dense tensors only: use sparse=False"),
], ids=["max_norm", "sparse"])
def test_embedding_bag_training_refuses_max_norm_and_sparse(kwargs: dict, message: str) -> None:
    from ipu_mlir.compiler.frontend.capture import CaptureError

    model = _Bag(**kwargs)
    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(model.parameters(), lr=0.1))
    with pytest.raises(CaptureError, match=message):
        training(_BAG_INDICES, _BAG_OFFSETS)


def test_angle_trains_as_eager() -> None:
    """angle of real inputs (gradient 0) and of complex ones, whose gradient multiplies by
    1j: a complex scalar Torch-MLIR cannot import, computed on the (real, imaginary) planes."""
    x = torch.tensor([[-1.5, 0.0, 2.0], [3.0, -0.5, 1.0]])
    check_training_step(lambda t: torch.angle(t) * t, x)
    check_training_step(lambda t: torch.angle(torch.complex(t, t * 0.5 - 1.0)), torch.randn(2, 3, generator=_G))


def test_times_complex_scalar_matches_eager() -> None:
    z = torch.complex(torch.randn(2, 3, generator=_G), torch.randn(2, 3, generator=_G))
    check_inference(lambda a, b: torch.view_as_real(torch.complex(a, b) * (0.5 - 2j)), z.real.clone(), z.imag.clone())


def test_instance_norm_updating_running_stats_in_inference_matches_eager() -> None:
    """F.instance_norm with running statistics and the input's statistics (InstanceNorm
    with track_running_stats=True in training mode) updates the running statistics, as
    BatchNorm in training mode does: here they are inputs, written back into the caller's
    tensors like eager's in-place update (refused before)."""
    x = torch.randn(2, 3, 4, 4, generator=_G)
    eager_stats, ipu_stats = [torch.zeros(3), torch.ones(3)], [torch.zeros(3), torch.ones(3)]

    def norm(t: torch.Tensor, mean: torch.Tensor, var: torch.Tensor) -> torch.Tensor:
        return F.instance_norm(t, mean, var, momentum=0.3)

    with torch.no_grad():
        want = norm(x, *eager_stats)
    got = poptorch.inferenceModel(FunctionModel(norm))(x, *ipu_stats)
    torch.testing.assert_close(got, want, **FP32)
    for ipu, eager in zip(ipu_stats, eager_stats, strict=True):
        torch.testing.assert_close(ipu, eager, **FP32)


def test_instance_norm_with_running_stats_trains_as_eager() -> None:
    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 3, 1)
            self.norm = torch.nn.InstanceNorm2d(3, affine=True, track_running_stats=True)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            y = self.norm(self.conv(x))
            return y, poptorch.identity_loss((y * y).mean(), reduction="mean")

    torch.manual_seed(0)
    model, x = Net(), torch.randn(2, 3, 4, 4, generator=_G)
    reference = copy.deepcopy(model)
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(model.parameters(), lr=0.1))
    for _ in range(2):
        got = training(x)[1]
        optimizer.zero_grad()
        want = reference(x)[1]
        want.backward()
        optimizer.step()
        torch.testing.assert_close(got, want.detach(), **FP32)
    training.copyWeightsToHost()
    for name, value in reference.state_dict().items():
        torch.testing.assert_close(model.state_dict()[name], value, **FP32, msg=lambda m, n=name: f"{n}: {m}")

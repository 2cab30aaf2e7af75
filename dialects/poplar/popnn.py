"""``popnn`` ops of the ``poplar`` dialect: pooling, normalisation, non-linearities and
the NLL loss, each with its gradient.
"""

from collections.abc import Sequence

from torch_mlir import ir
from torch_mlir.dialects import ext

from .._base import I64ArrayAttr, Rules
from .base import PoplarOp, Tensor, TensorResult, check_dim, check_same_type, element_of, shape_of


class _PoolWindowOp(PoplarOp):
    """A pooling op or its gradient: the window over the spatial dims of ``input``
    ``[N, C, *spatial]`` (Poplar's ``PoolParams``), declared once for all of them."""

    input: Tensor
    kernel: I64ArrayAttr
    stride: I64ArrayAttr
    padding: I64ArrayAttr
    ceil_mode: ir.IntegerAttr


class _KindPoolOp(_PoolWindowOp):
    """``popnn_pool`` and its gradient: the window, the pooling ``kind`` and ``count_include_pad``."""

    kind: ir.StringAttr
    count_include_pad: ir.IntegerAttr


class PoolOp(_KindPoolOp, name="popnn_pool", traits=[ext.Pure]):
    """Max or average pooling over the spatial dims (``popnn::pooling::pool``).

    Semantics: input ``[N, C, *spatial]``; ``kind`` ``"max"``, ``"avg"`` or
    ``"sum"``; ``kernel``, ``stride`` (>= 1) and ``padding`` (>= 0) per spatial dim;
    ``ceil_mode`` rounds the output size up; ``count_include_pad`` counts padding in
    averages.

    Example:
      %y = "poplar.popnn_pool"(%x) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>,
             padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true}
             : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
    """

    result: TensorResult

    def check(self, v: Rules) -> None:
        x = shape_of(self.input, "input")
        expected = _check_pool_window(v, x)
        v.require(shape_of(self.result, "result") == expected, f"result shape must be {expected}, got {shape_of(self.result, 'result')}")


def _check_pool_window(v: Rules, x: list[int], *, max_only: bool = False) -> list[int]:
    """Check a pool's window attributes against input shape ``x`` (and its ``kind`` and
    ``count_include_pad``, which the max-only ops do not have); returns the pooled shape
    ``[N, C, *out]`` (PyTorch's formula, ceil_mode included)."""
    if not max_only:
        v.string("kind", choices=("max", "avg", "sum"))
    v.require(len(x) >= 3, f"input must have rank >= 3 ([N, C, *spatial]), got rank {len(x)}")
    spatial = len(x) - 2
    kernel = v.i64_array("kernel", size=spatial, min=1)
    stride = v.i64_array("stride", size=spatial, min=1)
    padding = v.i64_array("padding", size=spatial, min=0)
    ceil = v.bool("ceil_mode")
    if not max_only:
        v.bool("count_include_pad")
    v.require(all(2 * p <= k for p, k in zip(padding, kernel, strict=True)), f"padding {padding} must be at most half the kernel {kernel}")
    out = []
    for i in range(spatial):
        span = x[2 + i] + 2 * padding[i] - kernel[i]
        size = (-(-span // stride[i]) if ceil else span // stride[i]) + 1
        if ceil and (size - 1) * stride[i] >= x[2 + i] + padding[i]:
            size -= 1
        out.append(size)
    return x[:2] + out


class PoolGradOp(_KindPoolOp, name="popnn_pool_grad", traits=[ext.Pure]):
    """Input gradient of ``popnn_pool`` (``popnn::pooling::poolInputGradient``).

    Semantics: from the forward ``input`` and the output gradient ``grad``, with the
    forward's attributes; the result has the input's type.

    Example:
      %gx = "poplar.popnn_pool_grad"(%x, %g) {kind = "max", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>,
             padding = array<i64: 0, 0>, ceil_mode = false, count_include_pad = true}
             : (tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
    """

    grad: Tensor
    result: TensorResult

    def check(self, v: Rules) -> None:
        x = shape_of(self.input, "input")
        _check_pool_window(v, x)
        check_same_type(v, self.result, self.input, "result", "input")
        v.require(shape_of(self.grad, "grad")[:2] == x[:2], f"grad must have the input's batch and channel dims {x[:2]}")


class MaxPoolWithIndicesOp(_PoolWindowOp, name="popnn_max_pool_with_indices", traits=[ext.Pure]):
    """Max pooling that also gives the position of each maximum, for its gradient.

    Semantics: as ``popnn_pool`` of kind ``"max"`` (no ``kind`` or
    ``count_include_pad``); ``indices`` (integer elements, the result's shape) holds, for
    each output element, the flat index within its input plane ``[*spatial]`` of the
    first maximum of its window, as PyTorch's ``max_pool2d_with_indices`` does. Poplar's
    ``poolInputGradient`` finds the maxima again from the input and the pooled output;
    keeping them makes the gradient pick the first of equal maxima, as eager PyTorch
    does. ``poplar-share-pool-indices`` forms it when the program also has the pool's
    gradient.

    Example:
      %y, %i = "poplar.popnn_max_pool_with_indices"(%x) {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>,
             padding = array<i64: 0, 0>, ceil_mode = false}
             : (tensor<1x3x8x8xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xi64>)
    """

    result: TensorResult
    indices: TensorResult

    def check(self, v: Rules) -> None:
        expected = _check_pool_window(v, shape_of(self.input, "input"), max_only=True)
        v.require(shape_of(self.result, "result") == expected, f"result shape must be {expected}, got {shape_of(self.result, 'result')}")
        v.require(element_of(self.result) == element_of(self.input), "result and input must share one element type")
        _check_indices(v, self.indices, expected)


class MaxPoolGradWithIndicesOp(_PoolWindowOp, name="popnn_max_pool_grad_with_indices", traits=[ext.Pure]):
    """Input gradient of ``popnn_max_pool_with_indices`` from its ``indices``.

    Semantics: each element of ``grad`` (the gradient of the pooled output) is added to
    the input element at its index in ``indices``; every other input element gets 0.
    ``input`` is the forward input, and the window attributes are the forward's. The
    result has the input's type.

    Example:
      %gx = "poplar.popnn_max_pool_grad_with_indices"(%x, %g, %i) {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>,
             padding = array<i64: 0, 0>, ceil_mode = false}
             : (tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>, tensor<1x3x4x4xi64>) -> tensor<1x3x8x8xf32>
    """

    grad: Tensor
    indices: Tensor
    result: TensorResult

    def check(self, v: Rules) -> None:
        expected = _check_pool_window(v, shape_of(self.input, "input"), max_only=True)
        v.require(shape_of(self.grad, "grad") == expected, f"grad shape must be the pooled shape {expected}, got {shape_of(self.grad, 'grad')}")
        _check_indices(v, self.indices, expected)
        check_same_type(v, self.result, self.input, "result", "input")


def _check_indices(v: Rules, indices: ir.Value, pooled: list[int]) -> None:
    v.require(shape_of(indices, "indices") == pooled, f"indices shape must be the pooled shape {pooled}, got {shape_of(indices, 'indices')}")
    element = element_of(indices)
    v.require(isinstance(element, ir.IntegerType), f"indices must have integer elements, got {element}")


NORM_STATS = {"batch": 2, "layer": 0, "group": 0, "instance": 0}


def _norm_parameter_shape(v: Rules, kind: str, x: list[int], groups: int, num_dims: int) -> list[int]:
    """The shape of a norm's scale and bias (and batch statistics) for input shape ``x``:
    the last ``num_dims`` dims for ``"layer"``, the channels ``[C]`` otherwise."""
    if kind == "layer":
        v.require(num_dims <= len(x), f"attribute 'num_dims' ({num_dims}) exceeds the input rank {len(x)}")
        return x[len(x) - num_dims :]
    v.require(len(x) >= 2, f"input must have rank >= 2 ([N, C, ...]), got rank {len(x)}")
    if kind in ("group", "instance"):
        v.require(x[1] % groups == 0, f"channels ({x[1]}) must be divisible by num_groups ({groups})")
    return [x[1]]


class NormOp(PoplarOp, name="popnn_norm", traits=[ext.Pure]):
    """Normalisation in inference form (``popnn::bn``, ``popnn::ln``, ``popnn::gn``).

    Semantics by ``kind``:
    - ``"batch"``: x ``[N, C, ...]`` normalised with the running ``stats`` (mean, var),
      both ``[C]``, then scaled and shifted by ``scale`` and ``bias`` ``[C]``.
    - ``"layer"``: over the last ``num_dims`` dims of x (scale/bias have those dims'
      shape); no stats.
    - ``"group"`` / ``"instance"``: ``num_groups`` groups of the channels (instance: one
      group per channel); scale/bias ``[C]``; no stats.
    ``epsilon`` is added to the variance (any number, as PyTorch allows; not NaN).

    Example:
      %y = "poplar.popnn_norm"(%x, %g, %b) {kind = "layer", epsilon = 1.0e-05 : f64,
             num_groups = 1 : i64, num_dims = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>}
             : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    """

    input: Tensor
    scale: Tensor
    bias: Tensor
    stats: Sequence[Tensor]
    kind: ir.StringAttr
    epsilon: ir.FloatAttr
    num_groups: ir.IntegerAttr
    num_dims: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        kind = v.string("kind", choices=tuple(NORM_STATS))
        v.float("epsilon")  # any number, as PyTorch takes it
        groups = v.int("num_groups", min=1)
        num_dims = v.int("num_dims", min=1)
        stats = list(self.stats)
        v.count(stats, NORM_STATS[kind], f"stats operands for kind \"{kind}\"")
        x = shape_of(self.input, "input")
        v.require(shape_of(self.result, "result") == x, "result shape must equal input shape")
        param_shape = _norm_parameter_shape(v, kind, x, groups, num_dims)
        for what, value in (("scale", self.scale), ("bias", self.bias), *((f"stats #{i}", t) for i, t in enumerate(stats))):
            v.require(shape_of(value, what) == param_shape, f"{what} must have shape {param_shape}, got {shape_of(value, what)}")


class NormTrainingOp(PoplarOp, name="popnn_norm_training", traits=[ext.Pure]):
    """Normalisation with the batch's own statistics (``popnn::bn::batchNormalise`` with
    ``bn::batchNormStatistics``; ``popnn::ln``/``gn`` likewise).

    Semantics: ``kind`` ``"batch"``: statistics over all dims but 1 of x ``[N, C, ...]``;
    results ``mean`` and ``invstd`` are ``[C]``; with ``running_stats`` (running mean,
    running var ``[C]``) the op also gives their updates ``new_running_stats`` =
    (1 - momentum) * old + momentum * batch statistic (unbiased variance).
    ``"layer"``: over the last ``num_dims`` dims, mean and invstd keep the leading dims
    with the normalised ones as size 1; no running statistics. ``"group"``: over
    ``num_groups`` groups, mean and invstd ``[N, num_groups]``.

    Example:
      %y, %m, %r = "poplar.popnn_norm_training"(%x, %g, %b) {kind = "layer", epsilon = 1.0e-05 : f64,
             momentum = 0.0 : f64, num_groups = 1 : i64, num_dims = 1 : i64,
             operandSegmentSizes = array<i32: 1, 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 1, 0>}
             : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
    """

    input: Tensor
    scale: Tensor
    bias: Tensor
    running_stats: Sequence[Tensor]
    kind: ir.StringAttr
    epsilon: ir.FloatAttr
    momentum: ir.FloatAttr
    num_groups: ir.IntegerAttr
    num_dims: ir.IntegerAttr
    result: TensorResult
    mean: TensorResult
    invstd: TensorResult
    new_running_stats: Sequence[TensorResult]

    def check(self, v: Rules) -> None:
        kind = v.string("kind", choices=("batch", "layer", "group"))
        v.float("epsilon")  # any number, as PyTorch takes it
        v.float("momentum")
        groups = v.int("num_groups", min=1)
        num_dims = v.int("num_dims", min=1)
        x = shape_of(self.input, "input")
        check_same_type(v, self.result, self.input, "result", "input")
        stats, updates = list(self.running_stats), list(self.new_running_stats)
        v.require(kind == "batch" or not stats, f"running statistics apply to kind \"batch\" only, got {len(stats)} for \"{kind}\"")
        v.count(stats, (0, 2), "running statistics operands (mean, var)")
        v.require(len(updates) == len(stats), f"expects {len(stats)} new running statistics results, got {len(updates)}")
        param_shape = _norm_parameter_shape(v, kind, x, groups, num_dims)
        if kind == "layer":
            stat_shape = x[: len(x) - num_dims] + [1] * num_dims
        else:
            stat_shape = [x[0], groups] if kind == "group" else param_shape
        for what, value in (("scale", self.scale), ("bias", self.bias), *((f"running stats #{i}", t) for i, t in enumerate(stats)),
                            *((f"new running stats #{i}", t) for i, t in enumerate(updates))):
            v.require(shape_of(value, what) == param_shape, f"{what} must have shape {param_shape}, got {shape_of(value, what)}")
        for what, value in (("mean", self.mean), ("invstd", self.invstd)):
            v.require(shape_of(value, what) == stat_shape, f"{what} must have shape {stat_shape}, got {shape_of(value, what)}")


class NormGradOp(PoplarOp, name="popnn_norm_grad", traits=[ext.Pure]):
    """Gradients of a normalisation from its saved statistics (``popnn::bn::batchNormGradients``,
    ``ln::layerNormGradients``, ``gn::groupNormGradients``).

    Semantics: from the output gradient ``grad``, the forward ``input``, its ``mean``
    and ``invstd`` (as ``popnn_norm_training`` gives them) and ``scale``: the input
    gradient ``grad_input`` and the parameter gradients ``grad_scale`` and ``grad_bias``
    (shapes of ``scale``). Attributes as in ``popnn_norm_training``.

    Example:
      %gx, %gs, %gb = "poplar.popnn_norm_grad"(%g, %x, %m, %r, %s) {kind = "batch", epsilon = 1.0e-05 : f64,
             num_groups = 1 : i64, num_dims = 1 : i64}
             : (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
             -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
    """

    grad: Tensor
    input: Tensor
    mean: Tensor
    invstd: Tensor
    scale: Tensor
    kind: ir.StringAttr
    epsilon: ir.FloatAttr
    num_groups: ir.IntegerAttr
    num_dims: ir.IntegerAttr
    grad_input: TensorResult
    grad_scale: TensorResult
    grad_bias: TensorResult

    def check(self, v: Rules) -> None:
        v.string("kind", choices=("batch", "layer", "group"))
        v.float("epsilon")  # any number, as PyTorch takes it
        v.int("num_groups", min=1)
        v.int("num_dims", min=1)
        check_same_type(v, self.grad, self.input, "grad", "input")
        check_same_type(v, self.grad_input, self.input, "grad_input", "input")
        check_same_type(v, self.mean, self.invstd, "mean", "invstd")
        check_same_type(v, self.grad_scale, self.scale, "grad_scale", "scale")
        check_same_type(v, self.grad_bias, self.scale, "grad_bias", "scale")


NONLINEARITIES = ("relu", "gelu_erf", "gelu_tanh", "sigmoid", "tanh", "silu", "hard_sigmoid", "hard_swish", "softmax", "log_softmax", "safe_softmax")


_SOFTMAX_KINDS = ("softmax", "log_softmax", "safe_softmax")


def _check_nonlinearity(v: Rules, value: ir.Value, what: str, *, ranked_for_every_kind: bool = True) -> None:
    """Check ``kind`` and ``dim``: a softmax kind normalises along a dim of ``value``, which
    is ranked (checked for every kind, unless ``ranked_for_every_kind`` is false)."""
    kind = v.string("kind", choices=NONLINEARITIES)
    dim = v.int("dim", min=0)
    if ranked_for_every_kind or kind in _SOFTMAX_KINDS:
        shape = shape_of(value, what)
    if kind in _SOFTMAX_KINDS:
        check_dim(v, dim, len(shape))


class NonLinearityOp(PoplarOp, name="popnn_nonlinearity", traits=[ext.Pure]):
    """A neural-network non-linearity (``popnn::nonLinearity`` / ``popnn::logSoftmax``).

    Semantics: ``kind`` is one of ``NONLINEARITIES``; softmax kinds normalise along
    ``dim`` (numerically stable form), element-wise kinds ignore it (set 0).

    Example:
      %y = "poplar.popnn_nonlinearity"(%x) {kind = "softmax", dim = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    """

    input: Tensor
    kind: ir.StringAttr
    dim: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        _check_nonlinearity(v, self.input, "input")
        v.require(self.input.type == self.result.type, f"result type {self.result.type} must equal input type {self.input.type}")


class NonLinearityGradOp(PoplarOp, name="popnn_nonlinearity_grad", traits=[ext.Pure]):
    """Input gradient of a non-linearity (``popnn::nonLinearityInputGradient``).

    Semantics: ``grad`` is the gradient of the output; ``saved`` is what the kind's
    gradient reads: the forward input for ``relu``, ``gelu_erf``, ``gelu_tanh``,
    ``silu``, ``hard_sigmoid`` and ``hard_swish``, the forward output for ``sigmoid``,
    ``tanh``, ``softmax``, ``log_softmax`` and ``safe_softmax`` (along ``dim``).

    Example:
      %gx = "poplar.popnn_nonlinearity_grad"(%g, %x) {kind = "relu", dim = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    """

    grad: Tensor
    saved: Tensor
    kind: ir.StringAttr
    dim: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        _check_nonlinearity(v, self.saved, "saved", ranked_for_every_kind=False)
        check_same_type(v, self.saved, self.grad, "saved", "grad")
        check_same_type(v, self.result, self.grad, "result", "grad")


def _check_nll_loss_operands(v: Rules, log_probs: ir.Value, target: ir.Value, weight: Sequence[ir.Value]) -> list[int]:
    """Check ``reduction``, ``ignore_index``, ``log_probs`` ``[N, C]`` or ``[C]``, the
    integer ``target`` ``[N]`` and the optional class ``weight`` ``[C]``; returns the loss's
    shape: one per sample (``log_probs`` without its class dim) for ``"none"``, else a scalar."""
    reduction = v.string("reduction", choices=("mean", "sum", "none"))
    v.int("ignore_index")
    x, t = shape_of(log_probs, "log_probs"), shape_of(target, "target")
    v.require(len(x) in (1, 2), f"log_probs must be [N, C] or [C], got rank {len(x)}")
    v.require(isinstance(element_of(target), ir.IntegerType), "target must have integer elements")
    v.require(t == x[:-1], f"target shape must be {x[:-1]}, got {t}")
    weights = list(weight)
    v.require(len(weights) <= 1, f"expects at most one weight, got {len(weights)}")
    if weights:
        v.require(shape_of(weights[0], "weight") == x[-1:], f"weight shape must be {x[-1:]}, got {shape_of(weights[0], 'weight')}")
        v.require(element_of(weights[0]) == element_of(log_probs), "weight must have the element type of log_probs")
    return x[:-1] if reduction == "none" else []


class NllLossOp(PoplarOp, name="popnn_nll_loss", traits=[ext.Pure]):
    """Negative log-likelihood of ``log_probs`` ``[N, C]`` (or ``[C]``) at integer ``target``
    ``[N]`` (``popnn::calcLoss`` with ``CROSS_ENTROPY`` on log-probabilities).

    Semantics: sample ``i`` loses ``-w[t_i] * log_probs[i, t_i]`` (0 where ``t_i`` is
    ``ignore_index``), with ``w`` the optional class ``weight`` ``[C]`` (zero or one
    operand; all ones without it). ``reduction`` ``"mean"`` divides the sum by the sum of
    the selected weights (the number of targets not equal to ``ignore_index`` without
    ``weight``), ``"sum"`` sums, ``"none"`` gives one loss per sample.

    Example:
      %l = "poplar.popnn_nll_loss"(%lp, %t) {reduction = "mean", ignore_index = -100 : i64,
             operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32>
      %lw = "poplar.popnn_nll_loss"(%lp, %t, %w) {reduction = "mean", ignore_index = -100 : i64,
             operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<4x3xf32>, tensor<4xi64>, tensor<3xf32>) -> tensor<f32>
    """

    log_probs: Tensor
    target: Tensor
    weight: Sequence[Tensor]
    reduction: ir.StringAttr
    ignore_index: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        expected = _check_nll_loss_operands(v, self.log_probs, self.target, self.weight)
        v.require(shape_of(self.result, "result") == expected, f"result shape must be {expected}, got {shape_of(self.result, 'result')}")


class NllLossGradOp(PoplarOp, name="popnn_nll_loss_grad", traits=[ext.Pure]):
    """Gradient of ``popnn_nll_loss`` with respect to ``log_probs`` (the result has its type).

    Semantics: ``-w[t_i] * grad`` (``grad_i`` for ``"none"``, divided by the sum of the
    selected weights for ``"mean"``) at ``[i, t_i]``, zeros elsewhere and in ignored rows;
    ``weight`` as for ``popnn_nll_loss``.

    Example:
      %g = "poplar.popnn_nll_loss_grad"(%gl, %lp, %t) {reduction = "mean", ignore_index = -100 : i64,
             operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<f32>, tensor<4x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
    """

    grad: Tensor
    log_probs: Tensor
    target: Tensor
    weight: Sequence[Tensor]
    reduction: ir.StringAttr
    ignore_index: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        expected = _check_nll_loss_operands(v, self.log_probs, self.target, self.weight)
        v.require(shape_of(self.grad, "grad") == expected, f"grad shape must be {expected}, got {shape_of(self.grad, 'grad')}")
        check_same_type(v, self.result, self.log_probs, "result", "log_probs")

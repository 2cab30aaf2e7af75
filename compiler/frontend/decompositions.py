"""Which ATen ops the frontend decomposes before import.

The rule (as torch-mlir's "backend legal ops"): an op that ``convert-torch-to-poplar`` lowers
stays as it is, because its lowering is at least as fast as torch's decomposition of it
(linear, layer norm, attention...); every other op that torch's Core ATen decomposition
table knows is decomposed into Core ATen ops, which the poplar dialect lowers. Ops in
neither set reach the lowering and are reported there by name and source line.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator

import torch

from ..transforms.convert_torch_to_poplar import lowering_patterns


def mlir_names(op: torch._ops.OpOverload) -> tuple[str, ...]:
    """The names the lowering registry may hold for ``op``: ``torch.aten.add.Tensor`` and
    ``torch.aten.add`` (a pattern registered under the packet covers every overload)."""
    namespace, packet = op.namespace, op._schema.name.split("::")[-1]
    base = f"torch.{namespace}.{packet}"
    overload = op._overloadname
    return (base, f"{base}.{overload}") if overload and overload != "default" else (base,)


def is_lowered(op: torch._ops.OpOverload) -> bool:
    """Whether ``convert-torch-to-poplar`` has a pattern for ``op``."""
    patterns = lowering_patterns()
    return any(name in patterns for name in mlir_names(op))


def _weight_norm_interface_backward(grad_w: torch.Tensor, saved_v: torch.Tensor, saved_g: torch.Tensor,
                                    saved_norms: torch.Tensor, dim: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The gradients of ``w = g * v / ||v||`` (norms over every dim but ``dim``), as ATen's
    ``weight_norm_backward`` computes them. Autograd records ``_weight_norm_interface`` with
    this backward (nn.utils.weight_norm, Wav2Vec2's positional convolution), which has no
    decomposition in torch's tables."""
    dim = dim % saved_v.dim()
    others = [d for d in range(saved_v.dim()) if d != dim]
    dot = (grad_w * saved_v).sum(others, keepdim=True)
    grad_v = (saved_g / saved_norms) * (grad_w - saved_v * (dot / (saved_norms * saved_norms)))
    grad_g = dot / saved_norms
    return grad_v, grad_g


# Decompositions of ops torch's tables leave out, written as ATen writes the op.
_OWN = {torch.ops.aten._weight_norm_interface_backward.default: _weight_norm_interface_backward}


# -- helper D (random distributions, copies, complex): ------------------------------------
# torch's own decompositions outside the Core ATen table, into ops the poplar dialect lowers:
# the *_copy ops into their views, and the distributions into a map over rand_like /
# randn_like (poprand_uniform / poprand_normal from the program's generator).
_TORCH_EXTRA = ("as_strided_copy", "permute_copy", "unbind_copy", "view_copy", "cauchy", "geometric", "log_normal",
                "rrelu_with_noise_backward")


def _rrelu_with_noise_functional(self: torch.Tensor, noise: torch.Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
                                 training: bool = False, generator: object = None) -> tuple[torch.Tensor, torch.Tensor]:
    """rrelu as ATen's CPU kernel computes it: in training every element ``<= 0`` is scaled
    by its own slope drawn uniformly from ``[lower, upper)`` (the noise records the slopes,
    1 elsewhere); in eval it is leaky_relu with the mean slope and the noise is unchanged."""
    if generator is not None:
        raise NotImplementedError("rrelu with an explicit generator: the IPU draws from the program's generator")
    if not training:
        return torch.nn.functional.leaky_relu(self, (lower + upper) / 2), noise
    slopes = torch.rand_like(self) * (upper - lower) + lower
    noise_out = torch.where(self <= 0, slopes, torch.ones_like(self))
    return self * noise_out, noise_out.to(noise.dtype)


def _complex(real: torch.Tensor, imag: torch.Tensor) -> torch.Tensor:
    """complex(real, imag): the pairs (real, imag) as one complex tensor (view_as_complex)."""
    return torch.view_as_complex(torch.stack(torch.broadcast_tensors(real, imag), -1).contiguous())


def _polar(abs: torch.Tensor, angle: torch.Tensor) -> torch.Tensor:  # noqa: A002 - ATen's argument name
    """polar(abs, angle) = abs * (cos(angle) + i sin(angle))."""
    return _complex(abs * torch.cos(angle), abs * torch.sin(angle))


_OWN.update({
    torch.ops.aten.rrelu_with_noise_functional.default: _rrelu_with_noise_functional,
    torch.ops.aten.complex.default: _complex,
    torch.ops.aten.polar.default: _polar,
})
# -- end helper D ----------------------------------------------------------------------------


# -- helper C (sorting, scans, dist): ---------------------------------------------------------
# torch's own decompositions outside the Core ATen table, into ops the poplar dialect lowers:
# dist(a, b, p) is norm(a - b, p), as ATen computes it.
_TORCH_EXTRA_C = ("dist",)
# -- end helper C ----------------------------------------------------------------------------


# -- helper E (losses): -------------------------------------------------------------------------
def _multilabel_margin_loss_forward(input: torch.Tensor, target: torch.Tensor,  # noqa: A002 - ATen's argument name
                                    reduction: int) -> tuple[torch.Tensor, torch.Tensor]:
    """multilabel_margin_loss as ATen computes it: for each sample, the sum over its target
    classes ``t_j`` (up to the first -1) and its non-target classes ``i`` of
    ``max(0, 1 - x[t_j] + x[i]) / C``. (torch's decomposition also counts the positions
    after the first -1, as class 0: wrong numbers.)"""
    shape = input.shape
    input, target = torch.atleast_2d(input), torch.atleast_2d(target)
    classes = input.shape[1]
    idx = torch.arange(classes, device=target.device)
    end = torch.amin(torch.where(target == -1, idx, classes), dim=-1, keepdim=True)
    valid = idx < end  # [N, C]: target position j is before the first -1
    is_target = torch.any(idx == torch.where(valid, target, -1).unsqueeze(-1), dim=1)  # [N, C]: class i is a target
    u = torch.gather(input, -1, torch.where(valid, target, 0))  # [N, C]: x[t_j]
    z = (1.0 - u.unsqueeze(-1) + input.unsqueeze(1)).clamp_min(0) / classes  # [N, j, i]
    z = torch.where(valid.unsqueeze(-1) & ~is_target.unsqueeze(1), z, 0.0)
    per_sample = z.sum(dim=(1, 2))
    loss = per_sample.mean() if reduction == 1 else per_sample.sum() if reduction == 2 else per_sample.reshape(shape[:-1])
    return loss, is_target.to(input.dtype).reshape(target.shape if len(shape) > 1 else shape)


_OWN[torch.ops.aten.multilabel_margin_loss_forward.default] = _multilabel_margin_loss_forward


def _mul_complex_scalar(x: torch.Tensor, other: object) -> object:
    """``x * c`` for a Python complex ``c`` (angle's gradient multiplies by 1j, ``z * 2j``), which
    Torch-MLIR cannot import as a scalar: the complex product on the (real, imaginary)
    planes. Any other scalar: NotImplemented, so the lowered ``mul.Scalar`` stays."""
    if not isinstance(other, complex):
        return NotImplemented
    a, b = other.real, other.imag
    if not x.is_complex():
        return torch.view_as_complex(torch.stack([x * a, x * b], -1))
    planes = torch.view_as_real(x)
    re, im = planes[..., 0], planes[..., 1]
    return torch.view_as_complex(torch.stack([re * a - im * b, re * b + im * a], -1))


def _instance_norm_updating_running_stats(input: torch.Tensor, weight: torch.Tensor | None,  # noqa: A002 - ATen's name
                                          bias: torch.Tensor | None, running_mean: torch.Tensor | None,
                                          running_var: torch.Tensor | None, use_input_stats: bool, momentum: float,
                                          eps: float, cudnn_enabled: bool) -> object:
    """instance_norm with the input's statistics that also updates running statistics
    (InstanceNorm with track_running_stats=True in training mode, F.instance_norm given
    running_mean / running_var): ATen's own composition (a batch norm over the
    instances, then the running statistics' mean over the batch copied in place), so the
    update reaches the program as a buffer (or input) update, as BatchNorm's does. Every
    other call: NotImplemented, so the lowered instance_norm stays."""
    if not use_input_stats or running_mean is None or running_var is None:
        return NotImplemented
    b, c = input.shape[0], input.shape[1]
    repeated = [t.repeat(b) if t is not None else None for t in (weight, bias, running_mean, running_var)]
    out = torch.batch_norm(input.contiguous().view(1, b * c, *input.shape[2:]), *repeated, True, momentum, eps, cudnn_enabled)
    running_mean.copy_(repeated[2].view(b, c).mean(0))
    running_var.copy_(repeated[3].view(b, c).mean(0))
    return out.view(input.shape)


# Ops that have a lowering, decomposed only in the calls the lowering cannot take (the
# decomposition returns NotImplemented for the others).
_ONLY_SOME_CALLS = {torch.ops.aten.mul.Scalar: _mul_complex_scalar, torch.ops.aten.mul.Tensor: _mul_complex_scalar,
                    torch.ops.aten.instance_norm.default: _instance_norm_updating_running_stats}


@contextlib.contextmanager
def own_autograd_decompositions() -> Iterator[None]:
    """While the joint graph is traced, ops whose torch decomposition is also their
    autograd kernel (``py_impl(Autograd)``, which runs before any decomposition table)
    take ours instead: multilabel_margin_loss."""
    from torch._C import DispatchKey

    op = torch.ops.aten.multilabel_margin_loss_forward.default
    saved = op.py_kernels.get(DispatchKey.Autograd)
    op.py_kernels[DispatchKey.Autograd] = _multilabel_margin_loss_forward
    op._dispatch_cache.clear()
    try:
        yield
    finally:
        if saved is None:
            op.py_kernels.pop(DispatchKey.Autograd, None)
        else:
            op.py_kernels[DispatchKey.Autograd] = saved
        op._dispatch_cache.clear()
# -- end helper E ----------------------------------------------------------------------------


@functools.cache
def _table() -> dict:
    from torch._decomp import core_aten_decompositions, get_decompositions

    table = core_aten_decompositions()
    # Not in the Core ATen table, but in captured programs: autograd's backward of an
    # indexed assignment (``h[:, 0] = v``) allocates with new_empty_strided.
    table.update(get_decompositions([torch.ops.aten.new_empty_strided.default]))
    table.update(get_decompositions([getattr(torch.ops.aten, name) for name in _TORCH_EXTRA]))
    table.update(get_decompositions([getattr(torch.ops.aten, name) for name in _TORCH_EXTRA_C]))
    table.update(_OWN)
    for op in list(table.keys()):
        if isinstance(op, torch._ops.OpOverload) and is_lowered(op):
            table.pop(op)
    return dict(table.items())


def decomposition_table(extra: tuple[torch._ops.OpOverload, ...] = ()) -> dict:
    """Torch's Core ATen decompositions of every op that has no lowering, plus the
    decompositions of ``extra`` ops even where they have one (training decomposes
    attention into matmul + softmax so that autograd differentiates lowered ops)."""
    from torch._decomp import get_decompositions

    table = dict(_table())
    table.update(get_decompositions(list(extra)))
    table.update(_ONLY_SOME_CALLS)
    return table


# Ops whose Python autograd kernels (torch._decomp's ``py_impl(Autograd)``) decompose them
# into indexing while the joint graph is traced, even when the poplar dialect lowers them
# and their gradients (``resampling.py``).
_WHOLE_IN_TRAINING = (
    "upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d", "_upsample_nearest_exact1d",
    "_upsample_nearest_exact2d", "_upsample_nearest_exact3d", "upsample_linear1d", "upsample_bilinear2d",
    "upsample_trilinear3d",
)


@contextlib.contextmanager
def lowered_ops_whole() -> Iterator[None]:
    """While the joint graph is traced, the lowered ops of ``_WHOLE_IN_TRAINING`` lose their
    Python autograd kernels, so autograd records them and their C++ gradient formulas
    (``upsample_nearest2d_backward``...), as the inference capture keeps them."""
    from torch._C import DispatchKey

    removed = []
    for packet in _WHOLE_IN_TRAINING:
        overloads = getattr(torch.ops.aten, packet)
        for name in overloads.overloads():
            op = getattr(overloads, name)
            if not is_lowered(op):
                continue
            for key in (DispatchKey.Autograd, DispatchKey.CompositeImplicitAutograd):
                if key in op.py_kernels:
                    removed.append((op, key, op.py_kernels.pop(key)))
            op._dispatch_cache.clear()
    try:
        yield
    finally:
        for op, key, kernel in removed:
            op.py_kernels[key] = kernel
            op._dispatch_cache.clear()


# -- linear_cross_entropy's chunked ops (helper E) -------------------------------------------
@contextlib.contextmanager
def reference_linear_cross_entropy() -> Iterator[None]:
    """While a model is traced, F.linear_cross_entropy's chunked path (``options`` given:
    the custom ops ``torch_nn::_linear_cross_entropy_batch_chunked[_no_reduction]``, which
    precompute gradients in the forward and have no decomposition) computes its reference
    form, ``cross_entropy(linear(input, weight, bias), target, ...)``: the same loss, and
    gradients autograd derives from ops the poplar dialect has. The chunking only bounds
    eager's memory; the compiled program's memory is planned as a whole."""
    import torch.nn.functional as F
    from torch.nn.modules import linear_cross_entropy as chunked_ops

    saved = chunked_ops._linear_cross_entropy_batch_chunked, chunked_ops._linear_cross_entropy_batch_chunked_no_reduction

    def reduced(input, linear_weight, target, linear_bias, weight, reduction, ignore_index, label_smoothing, *_):  # noqa: ANN001, ANN202
        logits = F.linear(input, linear_weight, linear_bias)
        return (F.cross_entropy(logits, target, weight, reduction=reduction, ignore_index=ignore_index,
                                label_smoothing=label_smoothing),)

    def unreduced(input, linear_weight, target, linear_bias, weight, ignore_index, *_):  # noqa: ANN001, ANN202
        logits = F.linear(input, linear_weight, linear_bias)
        return F.cross_entropy(logits, target, weight, reduction="none", ignore_index=ignore_index)

    chunked_ops._linear_cross_entropy_batch_chunked, chunked_ops._linear_cross_entropy_batch_chunked_no_reduction = reduced, unreduced
    try:
        yield
    finally:
        chunked_ops._linear_cross_entropy_batch_chunked, chunked_ops._linear_cross_entropy_batch_chunked_no_reduction = saved

"""The ``poptorch::*`` torch custom ops that carry PopTorch's model ops through capture.

Each is a tensor-level op with a fake (meta) implementation, so it survives
``torch.export`` and imports as ``torch.operator "torch.poptorch.<name>"``;
``ipu-raise-custom-ops`` turns those into ``ipu`` dialect ops. Eager implementations
are identities (PopTorch's ops do nothing visible off the IPU).
"""

from __future__ import annotations

import torch

NAMESPACE = "poptorch"


@torch.library.custom_op(f"{NAMESPACE}::ipu_print_tensor", mutates_args=())
def ipu_print_tensor(x: torch.Tensor, title: str) -> torch.Tensor:
    return x.clone()


@ipu_print_tensor.register_fake
def _(x: torch.Tensor, title: str) -> torch.Tensor:
    return torch.empty_like(x)


@torch.library.custom_op(f"{NAMESPACE}::nop", mutates_args=())
def nop(x: torch.Tensor) -> torch.Tensor:
    return x.clone()


@nop.register_fake
def _(x: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)


@torch.library.custom_op(f"{NAMESPACE}::identity_loss", mutates_args=())
def identity_loss(x: torch.Tensor, reduction: str) -> torch.Tensor:
    if reduction == "sum":
        return x.sum()
    if reduction == "mean":
        return x.mean()
    return x.clone()


@identity_loss.register_fake
def _(x: torch.Tensor, reduction: str) -> torch.Tensor:
    if reduction in ("sum", "mean"):
        return x.new_empty(())
    return torch.empty_like(x)


@torch.library.custom_op(f"{NAMESPACE}::set_available_memory", mutates_args=())
def set_available_memory(x: torch.Tensor, proportion: float) -> torch.Tensor:
    return x.clone()


@set_available_memory.register_fake
def _(x: torch.Tensor, proportion: float) -> torch.Tensor:
    return torch.empty_like(x)


@torch.library.custom_op(f"{NAMESPACE}::recomputation_checkpoint", mutates_args=())
def recomputation_checkpoint(x: torch.Tensor) -> torch.Tensor:
    return x.clone()


@recomputation_checkpoint.register_fake
def _(x: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)


def _identity_backward(ctx, grad: torch.Tensor):  # noqa: ANN001 - autograd signature
    return grad, None


def _setup_none(ctx, inputs, output) -> None:  # noqa: ANN001 - autograd signature
    return None


# Gradients flow through these ops unchanged (training captures a joint graph).
ipu_print_tensor.register_autograd(_identity_backward, setup_context=_setup_none)
set_available_memory.register_autograd(_identity_backward, setup_context=_setup_none)
nop.register_autograd(lambda ctx, grad: grad, setup_context=_setup_none)
recomputation_checkpoint.register_autograd(lambda ctx, grad: grad, setup_context=_setup_none)


def _identity_loss_setup(ctx, inputs, output) -> None:  # noqa: ANN001 - autograd signature
    x, reduction = inputs
    ctx.shape, ctx.numel, ctx.reduction = x.shape, x.numel(), reduction


def _identity_loss_backward(ctx, grad: torch.Tensor):  # noqa: ANN001 - autograd signature
    """d loss / d x: ones for "sum" and "none" (times the incoming gradient), 1/N for "mean"."""
    if ctx.reduction == "none":
        return grad, None
    grad = grad.expand(ctx.shape)
    return (grad / ctx.numel if ctx.reduction == "mean" else grad), None


identity_loss.register_autograd(_identity_loss_backward, setup_context=_identity_loss_setup)

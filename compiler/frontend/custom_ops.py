"""The ``poptorch::*`` torch custom ops that carry PopTorch's model ops through capture.

Each is a tensor-level op with a fake (meta) implementation, so it survives
``torch.export`` and imports as ``torch.operator "torch.poptorch.<name>"``;
``ipu-raise-custom-ops`` turns those into ``ipu`` dialect ops. Eager implementations
are identities (PopTorch's ops do nothing visible off the IPU).
"""

from __future__ import annotations

import torch

NAMESPACE = "poptorch"


def _identity_op(name: str, *attributes: str) -> torch.library.CustomOpDef:
    """``poptorch::<name>(Tensor x, <attributes>) -> Tensor``: returns a copy of ``x``, and
    gradients flow through it unchanged (training captures a joint graph)."""
    schema = "(" + ", ".join(("Tensor x", *attributes)) + ") -> Tensor"
    op = torch.library.custom_op(
        f"{NAMESPACE}::{name}", lambda x, *_: x.clone(), mutates_args=(), schema=schema
    )
    op.register_fake(lambda x, *_: torch.empty_like(x))
    no_gradients = (None,) * len(attributes)
    op.register_autograd(
        lambda ctx, grad: (grad, *no_gradients), setup_context=lambda ctx, inputs, output: None
    )
    return op


ipu_print_tensor = _identity_op("ipu_print_tensor", "str title")
nop = _identity_op("nop")
set_available_memory = _identity_op("set_available_memory", "float proportion")
recomputation_checkpoint = _identity_op("recomputation_checkpoint")


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

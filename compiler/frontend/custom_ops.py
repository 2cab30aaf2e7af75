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


# title, print_gradient, then the layout (dialects/print_format.py, in its key order).
PRINT_TENSOR_ARGUMENTS = ("str title", "bool print_gradient", "int summarise_threshold", "int edge_items",
                          "int max_line_width", "int digits", "str float_format", "str separator",
                          "str open_bracket", "str close_bracket")
ipu_print_tensor = torch.library.custom_op(
    f"{NAMESPACE}::ipu_print_tensor", lambda x, *_: x.clone(), mutates_args=(),
    schema="(" + ", ".join(("Tensor x", *PRINT_TENSOR_ARGUMENTS)) + ") -> Tensor",
)
ipu_print_tensor.register_fake(lambda x, *_: torch.empty_like(x))


def _print_gradient(ctx, grad: torch.Tensor) -> tuple:  # noqa: ANN001
    """The gradient flows through unchanged; with print_gradient it is printed as <title>_gradient."""
    title, print_gradient, *layout = ctx.print_arguments
    if print_gradient:
        grad = ipu_print_tensor(grad, f"{title}_gradient", False, *layout)
    return (grad, *(None,) * len(PRINT_TENSOR_ARGUMENTS))


def _keep_print_arguments(ctx, inputs: tuple, output: torch.Tensor) -> None:  # noqa: ANN001
    ctx.print_arguments = inputs[1:]


ipu_print_tensor.register_autograd(_print_gradient, setup_context=_keep_print_arguments)
nop = _identity_op("nop")
set_available_memory = _identity_op("set_available_memory", "float proportion")
recomputation_checkpoint = _identity_op("recomputation_checkpoint")
set_overlap_for_input = _identity_op("set_overlap_for_input", "str mode")
set_overlap_for_output = _identity_op("set_overlap_for_output", "str mode")
# A member of a poptorch.MultiConv; unset options are -1 (numbers, the dithering flag) or "" (partials type).
MULTI_CONV_ARGUMENTS = ("int group", "int index", "str plan_type", "float available_memory", "str partials_type",
                        "int enable_conv_dithering", "int per_conv_reserved_tiles", "float cycle_back_off")
multi_conv = _identity_op("multi_conv", *MULTI_CONV_ARGUMENTS)


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

"""The ``ipu_mlir::*`` torch custom ops of PopTorch's escape hatches and of the CTC decoder.

``poptorch.custom_op``, ``poptorch.CPU`` and ``poptorch.ctc_beam_search_decoder`` put these
ops in the traced model. Each survives ``torch.export`` as one op (a fake implementation
gives its result shapes), imports as ``torch.operator "torch.ipu_mlir.<name>"`` and is
lowered by ``convert-torch-to-poplar`` (``convert_torch_to_poplar/custom.py``) straight to
one poplar op: ``poplar.custom_op`` / ``poplar.custom_op_grad``,
``poplar.program_host_call`` and ``poplar.popnn_ctc_beam_search_decoder``. They are not
``poptorch::`` ops: nothing about them is an ``ipu`` model annotation to raise.

A custom op's implementation is a Python function registered for ``(domain, name)``
(``support/host_functions.py``) or the torch.library op ``torch.ops.<domain>.<name>``
(:func:`resolve_custom_op`); its gradient, in a training graph, is the op
``custom_op_grad``, which runs the registered backward (or autograd through the forward).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import torch

from ipu_mlir.support import ctc
from ipu_mlir.support.host_functions import custom_op_implementation, host_call_id, how_to_register

from .capture_errors import CaptureMistake

NAMESPACE = "ipu_mlir"


class CustomOpNotRegistered(CaptureMistake):
    """A custom op has neither a registered Python implementation nor a torch.library op
    (a RuntimeError; while a model is captured its message is the whole error)."""


def torch_library_op(domain: str, name: str) -> Any | None:
    """``torch.ops.<domain>.<name>`` if such an op is defined, else None."""
    if not domain.isidentifier() or not name.isidentifier():
        return None
    try:
        return getattr(getattr(torch.ops, domain), name)
    except (AttributeError, RuntimeError):
        return None


def resolve_custom_op(domain: str, name: str) -> tuple[Callable[..., Any], Callable[..., Any] | None]:
    """(forward, backward or None) of the custom op ``(domain, name)``: the registered
    Python functions first, then the torch.library op (no backward: its autograd)."""
    registered = custom_op_implementation(domain, name)
    if registered is not None:
        return registered.forward, registered.backward
    op = torch_library_op(domain, name)
    if op is not None:
        return op, None
    raise CustomOpNotRegistered(f"poptorch.custom_op \"{name}\" (domain \"{domain}\") has no implementation: "
                                f"{how_to_register(domain, name)}")


def as_tuple(value: Any, what: str) -> tuple[torch.Tensor, ...]:
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    for item in values:
        if not isinstance(item, torch.Tensor):
            raise TypeError(f"{what} must return tensors, got {type(item).__name__}")
    return values


def encode_outputs(outputs: Sequence[torch.Tensor]) -> str:
    """The shapes and dtypes the fake implementations give: JSON ``[[shape, dtype], ...]``."""
    return json.dumps([[list(t.shape), str(t.dtype).removeprefix("torch.")] for t in outputs])


def _fake_outputs(spec: str, device: torch.device) -> list[torch.Tensor]:
    return [torch.empty(shape, dtype=getattr(torch, dtype), device=device) for shape, dtype in json.loads(spec)]


def _device(tensors: Sequence[torch.Tensor]) -> torch.device:
    return tensors[0].device if tensors else torch.device("cpu")


# ---- custom_op / custom_op_grad ------------------------------------------------------------

def _compiled_only(what: str) -> RuntimeError:
    return RuntimeError(f"{NAMESPACE}::{what} runs only inside a compiled program (the IPU Model's kernel, "
                        "runtime/kernels/custom.py, runs it); off the IPU poptorch calls the implementation itself")


@torch.library.custom_op(f"{NAMESPACE}::custom_op", mutates_args=())
def custom_op(inputs: list[torch.Tensor], name: str, domain: str, domain_version: int, attributes: str,
              outputs: str) -> list[torch.Tensor]:
    raise _compiled_only("custom_op")


@custom_op.register_fake
def _(inputs, name, domain, domain_version, attributes, outputs):  # noqa: ANN001, ANN202
    return _fake_outputs(outputs, _device(inputs))


@torch.library.custom_op(f"{NAMESPACE}::custom_op_grad", mutates_args=())
def custom_op_grad(inputs: list[torch.Tensor], outputs: list[torch.Tensor], grad_outputs: list[torch.Tensor], name: str,
                   domain: str, domain_version: int, attributes: str, differentiable: list[int]) -> list[torch.Tensor]:
    raise _compiled_only("custom_op_grad")


@custom_op_grad.register_fake
def _(inputs, outputs, grad_outputs, name, domain, domain_version, attributes, differentiable):  # noqa: ANN001, ANN202
    return [torch.empty_like(inputs[i]) for i in differentiable]


def _custom_op_setup(ctx, inputs, output) -> None:  # noqa: ANN001
    ctx.save_for_backward(*inputs[0], *output)
    ctx.count = len(inputs[0])
    ctx.arguments = inputs[1:5]


def _custom_op_backward(ctx, grads):  # noqa: ANN001, ANN202
    saved = ctx.saved_tensors
    inputs, outputs = saved[:ctx.count], saved[ctx.count:]
    grads = [torch.zeros_like(o) if g is None else g for g, o in zip(grads, outputs, strict=True)]
    differentiable = [i for i, x in enumerate(inputs) if x.dtype.is_floating_point or x.dtype.is_complex]
    found = custom_op_grad(list(inputs), list(outputs), grads, *ctx.arguments, differentiable) if differentiable else []
    input_grads: list[torch.Tensor | None] = [None] * len(inputs)
    for i, grad in zip(differentiable, found, strict=True):
        input_grads[i] = grad
    return input_grads, None, None, None, None, None


custom_op.register_autograd(_custom_op_backward, setup_context=_custom_op_setup)


# ---- host_call (poptorch.CPU) ------------------------------------------------------------------

@torch.library.custom_op(f"{NAMESPACE}::host_call", mutates_args=())
def host_call_op(inputs: list[torch.Tensor], handle: str, outputs: str) -> list[torch.Tensor]:
    raise _compiled_only("host_call")


@host_call_op.register_fake
def _(inputs, handle, outputs):  # noqa: ANN001, ANN202
    return _fake_outputs(outputs, _device(inputs))


def _host_call_setup(ctx, inputs, output) -> None:  # noqa: ANN001
    ctx.handle = inputs[1]


def _host_call_backward(ctx, grads):  # noqa: ANN001, ANN202
    raise RuntimeError(f"poptorch.CPU op \"{host_call_id(ctx.handle)}\": CPU ops are only supported in inference "
                       "graphs (poptorch.inferenceModel); a training model cannot call back to the host")


host_call_op.register_autograd(_host_call_backward, setup_context=_host_call_setup)


# ---- ctc_beam_search_decoder ----------------------------------------------------------------

def ctc_decode(probs: torch.Tensor, lengths: torch.Tensor, blank: int, beam_width: int,
               top_paths: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The decoder on tensors (:mod:`ipu_mlir.support.ctc`): probabilities in ``probs``'
    dtype, lengths and paths int32."""
    scores, path_lengths, paths = ctc.decode_batch(probs.detach().double().tolist(), lengths.tolist(), blank,
                                                   beam_width, top_paths)
    shape = (probs.shape[1], top_paths)
    return (torch.tensor(scores, dtype=probs.dtype, device=probs.device).reshape(shape),
            torch.tensor(path_lengths, dtype=torch.int32, device=probs.device).reshape(shape),
            torch.tensor(paths, dtype=torch.int32, device=probs.device).reshape(*shape, probs.shape[0]))


@torch.library.custom_op(f"{NAMESPACE}::ctc_beam_search_decoder", mutates_args=())
def ctc_beam_search_decoder(probs: torch.Tensor, lengths: torch.Tensor, blank: int, beam_width: int,
                            top_paths: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return ctc_decode(probs, lengths, blank, beam_width, top_paths)


@ctc_beam_search_decoder.register_fake
def _(probs, lengths, blank, beam_width, top_paths):  # noqa: ANN001, ANN202
    steps, batch = probs.shape[0], probs.shape[1]
    return (probs.new_empty((batch, top_paths)), probs.new_empty((batch, top_paths), dtype=torch.int32),
            probs.new_empty((batch, top_paths, steps), dtype=torch.int32))

"""User code on the IPU Model: ``poplar.custom_op`` / ``custom_op_grad`` run the custom op's
registered implementation (a Python function registered for its domain and name, or the
torch.library op ``torch.ops.<domain>.<name>``), ``poplar.program_host_call`` calls the
``poptorch.CPU`` object registered under its handle (``support/host_functions.py``), and
``poplar.popnn_ctc_beam_search_decoder`` runs the prefix beam search of ``support/ctc.py``.

The implementation is looked up when the program is decoded: a custom op with none is a
:class:`KernelError` that says how to register one. Results are checked against the op's
result types, since the compiler only knows the shapes the user's example outputs gave.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch_mlir import ir

from ipu_mlir.support import ctc
from ipu_mlir.support.host_functions import custom_op_implementation, host_call, host_call_id, how_to_register

from .base import KERNELS, Kernel, KernelError, attr, segments, tensor_type


def _attribute_value(value: ir.Attribute) -> Any:
    if isinstance(value, ir.ArrayAttr):
        return [_attribute_value(item) for item in value]
    if isinstance(value, ir.StringAttr):
        return ir.StringAttr(value).value
    if isinstance(value, ir.FloatAttr):
        return ir.FloatAttr(value).value
    if isinstance(value, ir.IntegerAttr):
        return ir.IntegerAttr(value).value
    raise KernelError(f"custom op attribute value {value} is not a float, int, string or list")


def _custom_attributes(op: ir.Operation) -> dict[str, Any]:
    attributes = ir.DictAttr(op.attributes["op_attributes"])
    return {attributes[i].name: _attribute_value(attributes[i].attr) for i in range(len(attributes))}


def _resolve(op: ir.Operation) -> tuple[str, str, Callable[..., Any], Callable[..., Any] | None]:
    """(name, domain, forward, backward or None) of a custom op, or a KernelError."""
    name, domain = attr(op, "op_name"), attr(op, "domain")
    registered = custom_op_implementation(domain, name)
    if registered is not None:
        return name, domain, registered.forward, registered.backward
    if domain.isidentifier() and name.isidentifier():
        try:
            return name, domain, getattr(getattr(torch.ops, domain), name), None
        except (AttributeError, RuntimeError):
            pass
    raise KernelError(f"custom op \"{name}\" (domain \"{domain}\") has no implementation: {how_to_register(domain, name)}")


def _as_tuple(value: Any, what: str) -> tuple[torch.Tensor, ...]:
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if not all(isinstance(item, torch.Tensor) for item in values):
        raise KernelError(f"{what} must return tensors, got {[type(item).__name__ for item in values]}")
    return values


def _checked(results: Sequence[torch.Tensor], types: Sequence[tuple[list[int], torch.dtype]], what: str) -> Any:
    """The results as the op gives them (one tensor, or a tuple), after checking their types."""
    if len(results) != len(types):
        raise KernelError(f"{what} returned {len(results)} tensors, the program expects {len(types)}")
    for index, (result, (shape, dtype)) in enumerate(zip(results, types, strict=True)):
        if list(result.shape) != shape or result.dtype != dtype:
            raise KernelError(f"{what} output #{index} is {result.dtype} {list(result.shape)}, the program expects "
                              f"{dtype} {shape} (as the example outputs said)")
    results = tuple(r.detach() for r in results)
    return results[0] if len(results) == 1 else results


@KERNELS.register("poplar.custom_op")
def _custom_op(op: ir.Operation) -> Kernel:
    name, _, forward, _ = _resolve(op)
    attributes = _custom_attributes(op)
    types = [tensor_type(r) for r in op.results]
    what = f"custom op \"{name}\""

    def run(*inputs: torch.Tensor) -> Any:
        return _checked(_as_tuple(forward(*inputs, **attributes), what), types, what)

    return run


def _autograd(forward: Callable[..., Any], what: str) -> Callable[..., Any]:
    """A backward computing torch autograd's gradients through ``forward``."""

    def backward(inputs: tuple, outputs: tuple, grad_outputs: tuple, **attributes: Any) -> list[torch.Tensor | None]:
        with torch.inference_mode(False), torch.enable_grad():
            leaves = [x.detach().clone().requires_grad_(x.dtype.is_floating_point or x.dtype.is_complex) for x in inputs]
            results = _as_tuple(forward(*leaves, **attributes), what)
            pairs = [(r, g) for r, g in zip(results, grad_outputs, strict=True) if r.requires_grad]
            wanted = [leaf for leaf in leaves if leaf.requires_grad]
            if not pairs:
                raise KernelError(f"{what}: its forward is not differentiable (no output depends on a float input "
                                  "through torch autograd); register a backward with "
                                  "poptorch.register_custom_op(..., backward=...)")
            found = iter(torch.autograd.grad([r for r, _ in pairs], wanted, [g for _, g in pairs], allow_unused=True))
        return [next(found) if leaf.requires_grad else None for leaf in leaves]

    return backward


@KERNELS.register("poplar.custom_op_grad")
def _custom_op_grad(op: ir.Operation) -> Kernel:
    name, _, forward, backward = _resolve(op)
    what = f"custom op \"{name}\""
    backward = backward or _autograd(forward, what)
    attributes = _custom_attributes(op)
    slots = segments(op, "operandSegmentSizes")  # input<i>, output<i>, grad_output<i>: 0 or 1 value each
    third = len(slots) // 3
    counts = [sum(slots[:third]), sum(slots[third:2 * third])]
    differentiable = attr(op, "differentiable")
    types = [tensor_type(r) for r in op.results]

    def run(*operands: torch.Tensor) -> Any:
        inputs = operands[:counts[0]]
        outputs = operands[counts[0]:counts[0] + counts[1]]
        grad_outputs = operands[counts[0] + counts[1]:]
        grads = backward(tuple(inputs), tuple(outputs), tuple(grad_outputs), **attributes)
        grads = list(grads) if isinstance(grads, (tuple, list)) else [grads]
        if len(grads) != len(inputs):
            raise KernelError(f"the backward of {what} returned {len(grads)} gradients for {len(inputs)} inputs "
                              "(give None for an input without one)")
        wanted = [torch.zeros_like(inputs[i]) if grads[i] is None else grads[i].to(inputs[i].dtype) for i in differentiable]
        return _checked(wanted, types, f"the backward of {what}")

    return run


@KERNELS.register("poplar.program_host_call")
def _host_call(op: ir.Operation) -> Kernel:
    handle = attr(op, "handle")
    what = f"poptorch.CPU op \"{host_call_id(handle)}\""
    types = [tensor_type(r) for r in op.results]

    def run(*inputs: torch.Tensor) -> Any:
        callback = host_call(handle)  # looked up on every call: the object may be freed meanwhile
        if callback is None:
            raise KernelError(f"{what} is not in this process (its object was freed, or the program was loaded from "
                              "a file): create the model with its poptorch.CPU objects and compile it here")
        return _checked(_as_tuple(callback.host_call(inputs), what), types, what)

    if host_call(handle) is None:
        run()  # the same error, when the program is decoded
    return run


@KERNELS.register("poplar.popnn_ctc_beam_search_decoder")
def _ctc_beam_search_decoder(op: ir.Operation) -> Kernel:
    blank, width, top = attr(op, "blank"), attr(op, "beam_width"), attr(op, "top_paths")

    def run(log_probs: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        try:
            scores, path_lengths, paths = ctc.decode_batch(log_probs.double().tolist(), lengths.tolist(), blank, width, top)
        except ValueError as error:
            raise KernelError(str(error)) from None
        steps, batch = log_probs.shape[0], log_probs.shape[1]
        device = log_probs.device
        return (torch.tensor(scores, dtype=log_probs.dtype, device=device).reshape(batch, top),
                torch.tensor(path_lengths, dtype=torch.int32, device=device).reshape(batch, top),
                torch.tensor(paths, dtype=torch.int32, device=device).reshape(batch, top, steps))

    return run

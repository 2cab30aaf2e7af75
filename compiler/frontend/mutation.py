"""What a captured model mutates, and returns besides tensors, for the host to replay as eager does.

- :func:`tensor_attributes_as_buffers`: plain tensor attributes (neither parameters nor
  buffers) are registered as non-persistent buffers while the model is traced, so that
  torch.export functionalises their in-place updates instead of refusing them. The capture
  gives them the ``constant`` role and drops their updates: SEMANTICS "Mutation", a plain
  tensor attribute is a constant and mutating it does not persist between calls.
- :func:`recording_returned_inputs`: which flattened outputs *are* a flattened input in
  eager (``x.add_(1); return x``, ``torch.add(a, b, out=out); return out``), so that the
  wrapper returns the caller's own tensor where eager does.
- :class:`OutputLayout`: how the model's flattened outputs are rebuilt from the program's
  tensor outputs: non-tensor leaves (``None``, numbers) are compiled in, and the inputs the
  program updates (results with the ``input_update`` role) are written back by the host.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import Any

import torch
import torch.utils._pytree as pytree


@dataclasses.dataclass(frozen=True)
class OutputLayout:
    """The model's flattened outputs (``out_spec`` leaves) as the host rebuilds them.

    Arguments:
      leaves: the number of flattened outputs.
      constants: position -> value of each non-tensor output (``None``, a number...),
        which the program does not compute.
      returned_inputs: position -> index (among the call's tensor leaves) of the input
        that this output is in eager, for inputs the program updates.
      input_updates: names of the inputs the program updates, in the order of their
        ``input_update`` results (streamed after the outputs, every step).
    """

    leaves: int
    constants: dict[int, Any] = dataclasses.field(default_factory=dict)
    returned_inputs: dict[int, int] = dataclasses.field(default_factory=dict)
    input_updates: tuple[str, ...] = ()

    @property
    def tensor_positions(self) -> list[int]:
        """The positions of the outputs the program computes, in result order."""
        return [i for i in range(self.leaves) if i not in self.constants]

    def assemble(self, tensors: list[torch.Tensor], inputs: list[torch.Tensor]) -> list[Any]:
        """The flattened outputs: ``tensors`` (one per tensor position) with the constants
        in their places, and the caller's own input where eager returns that input (once
        written back it holds the same value; only if the whole tensor came back)."""
        values = iter(tensors)
        flat: list[Any] = []
        for position in range(self.leaves):
            if position in self.constants:
                flat.append(self.constants[position])
                continue
            value = next(values)
            source = self.returned_inputs.get(position)
            if source is not None and inputs[source].shape == value.shape:
                value = inputs[source]
            flat.append(value)
        return flat


def _plain_tensor_attributes(model: torch.nn.Module) -> list[tuple[str, torch.nn.Module, str, torch.Tensor]]:
    """(path, module, attribute, tensor) of each plain tensor attribute of the model's modules."""
    registered = {id(t) for t in (*model.parameters(), *model.buffers())}
    found = []
    for prefix, module in model.named_modules():
        for key, value in list(vars(module).items()):
            if isinstance(value, torch.Tensor) and not isinstance(value, torch.nn.Parameter) and id(value) not in registered:
                found.append((f"{prefix}.{key}" if prefix else key, module, key, value))
    return found


@contextlib.contextmanager
def tensor_attributes_as_buffers(model: torch.nn.Module) -> Iterator[dict[str, torch.Tensor]]:
    """While active, plain tensor attributes are non-persistent buffers; yields their values
    by path (the model's attributes are restored on exit, whatever the trace did)."""
    found = _plain_tensor_attributes(model)
    registered: list[tuple[torch.nn.Module, str, torch.Tensor]] = []
    try:
        for _, module, key, value in found:
            object.__delattr__(module, key)
            registered.append((module, key, value))
            module.register_buffer(key, value, persistent=False)
        yield {path: value for path, _, _, value in found}
    finally:
        for module, key, value in registered:
            module._buffers.pop(key, None)
            object.__setattr__(module, key, value)


@contextlib.contextmanager
def recording_returned_inputs(model: torch.nn.Module) -> Iterator[dict[int, int]]:
    """While active, the model's forward records which of its flattened outputs are (``is``)
    one of its tensor inputs: output position -> index among the call's tensor leaves (the
    last forward's, when it runs more than once)."""
    found: dict[int, int] = {}

    def hook(_module: torch.nn.Module, args: tuple, kwargs: dict, output: Any) -> None:
        tensors = [leaf for leaf in pytree.tree_leaves((args, kwargs)) if isinstance(leaf, torch.Tensor)]
        found.clear()
        for position, leaf in enumerate(pytree.tree_leaves(output)):
            index = next((i for i, t in enumerate(tensors) if t is leaf), None)
            if index is not None:
                found[position] = index

    handle = model.register_forward_hook(hook, with_kwargs=True)
    try:
        yield found
    finally:
        handle.remove()


def non_tensor_outputs(values: list[Any]) -> dict[int, Any]:
    """Position -> value of the flattened outputs that are not traced tensors (``None``,
    Python numbers, strings): they are compiled in, as ``torch.export`` records them."""
    out: dict[int, Any] = {}
    for position, value in enumerate(values):
        if isinstance(value, torch.fx.Node):
            if not isinstance(value.meta.get("val"), torch.Tensor):
                out[position] = value.meta.get("val")
        elif not isinstance(value, torch.Tensor):
            out[position] = value
    return out


def output_layout(user_values: list[Any], returned: dict[int, int], inputs: list[str], updated: tuple[str, ...]) -> OutputLayout:
    """The layout of the model's flattened outputs (the exported graph's user output values)
    given which outputs are inputs in eager (``recording_returned_inputs``), the names of the
    tensor inputs in call order and those the program updates, in result order."""
    return OutputLayout(
        leaves=len(user_values), constants=non_tensor_outputs(user_values), input_updates=updated,
        returned_inputs={p: i for p, i in returned.items() if i < len(inputs) and inputs[i] in updated})

"""Find a model's loss as PopTorch does: which of its outputs is the one final loss.

A loss is the result of any PyTorch loss function: a loss module (``nn.modules.loss._Loss``,
registered or called inline), its functional form (every ``torch.nn.functional`` loss, and
the same functions in the ``torch`` namespace), or ``poptorch.identity_loss``. While the
model runs inside the joint forward + backward trace (``recording_losses``), a
``TorchFunctionMode`` records the result of each loss function, whatever name the model
called it by (``from torch.nn.functional import mse_loss`` too), and forward hooks record the
outputs of loss modules. ``find_loss`` then walks each output's autograd graph
(``grad_fn.next_functions``) and picks the output that depends on every loss made
(``l1 + 0.1 * l2``, ``loss.mean() * 2``). Nothing enters the traced graph: the search only
reads the autograd graph the trace builds anyway.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from typing import Any

import torch
import torch.nn.functional as F
import torch.utils._pytree as pytree
from torch.overrides import TorchFunctionMode

from .capture import CaptureError


class LossError(CaptureError):
    """The model has no loss, or several independent ones."""


def _is_loss_name(name: str) -> bool:
    return not name.startswith("_") and (name.endswith("_loss") or "cross_entropy" in name or name == "kl_div")


@functools.cache
def loss_functions() -> frozenset[Any]:
    """Every PyTorch loss function: the ``torch.nn.functional`` functions named ``*_loss``,
    ``*cross_entropy*`` or ``kl_div`` (what each loss module's forward calls), and the
    functions of the same names in the ``torch`` namespace (``torch.binary_cross_entropy_with_logits``)."""
    found = {getattr(F, name) for name in dir(F) if _is_loss_name(name) and callable(getattr(F, name))}
    found |= {getattr(torch, name) for name in dir(torch) if _is_loss_name(name) and callable(getattr(torch, name))}
    return frozenset(found)


@functools.cache
def _loss_function_ids() -> frozenset[int]:
    return frozenset(id(fn) for fn in loss_functions())


@functools.cache
def _identity_loss_ids() -> frozenset[int]:
    """``poptorch::identity_loss``, the op and its overload (what ``poptorch.identity_loss`` calls), by id."""
    from . import custom_ops  # noqa: F401 - registers poptorch::identity_loss

    return frozenset((id(torch.ops.poptorch.identity_loss), id(torch.ops.poptorch.identity_loss.default)))


class LossRecord:
    """The losses one run of the model made: the autograd node of each (its ``grad_fn``), or
    the tensor itself for a loss that carries no gradient (computed from detached values)."""

    def __init__(self) -> None:
        self.nodes: set[Any] = set()
        self.tensors: list[torch.Tensor] = []  # kept alive: compared by identity

    def add(self, value: Any, *, any_dtype: bool = False) -> None:
        """Record ``value`` if it is a floating-point tensor (a loss function's integer
        results are not losses), or any tensor with ``any_dtype`` (``identity_loss`` marks
        what the user calls a loss, whatever its type)."""
        if not isinstance(value, torch.Tensor) or not (any_dtype or value.is_floating_point()):
            return
        if value.grad_fn is not None:
            self.nodes.add(value.grad_fn)
        elif not any(value is t for t in self.tensors):
            self.tensors.append(value)


class _RecordLossFunctions(TorchFunctionMode):
    """Records the result of every loss function the model calls (``loss_functions()``)."""

    def __init__(self, record: LossRecord) -> None:
        super().__init__()
        self.record = record

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        result = func(*args, **(kwargs or {}))
        if id(func) in _loss_function_ids():
            self.record.add(result)
        elif id(func) in _identity_loss_ids():
            self.record.add(result, any_dtype=True)
        return result


@contextlib.contextmanager
def recording_losses(model: torch.nn.Module) -> Iterator[LossRecord]:
    """While active, every loss the model computes is recorded: loss functions through the
    mode, and the outputs of loss modules (a ``_Loss`` subclass may compute its loss without
    calling a functional form) through forward hooks."""
    record = LossRecord()

    def hook(_module: torch.nn.Module, _inputs: Any, output: Any) -> None:
        for leaf in pytree.tree_leaves(output):
            record.add(leaf)

    hooks = [m.register_forward_hook(hook) for m in model.modules() if isinstance(m, torch.nn.modules.loss._Loss)]
    try:
        with _RecordLossFunctions(record):
            yield record
    finally:
        for hook in hooks:
            hook.remove()


def _losses_behind(outputs: list[Any], record: LossRecord) -> list[frozenset[int]]:
    """For each output, the recorded losses it depends on (ids of their autograd nodes or
    tensors): one walk over the autograd graph, each node visited once."""
    reached: dict[Any, frozenset[int]] = {}
    for output in outputs:
        root = output.grad_fn if isinstance(output, torch.Tensor) else None
        stack = [(root, False)] if root is not None else []
        while stack:
            node, expanded = stack.pop()
            if node in reached:
                continue
            children = [child for child, _ in node.next_functions if child is not None]
            if not expanded:
                stack.append((node, True))
                stack.extend((child, False) for child in children if child not in reached)
                continue
            found = frozenset((id(node),)) if node in record.nodes else frozenset()
            reached[node] = found.union(*(reached[child] for child in children))
    behind = []
    for output in outputs:
        found = reached.get(output.grad_fn, frozenset()) if isinstance(output, torch.Tensor) else frozenset()
        if any(output is t for t in record.tensors):
            found |= {id(output)}
        behind.append(found)
    return behind


def find_loss(outputs: list[Any], record: LossRecord) -> int:
    """Index of the loss among the model's flattened outputs (one run of the model under
    ``recording_losses``, with autograd on): the one output that depends on every loss the
    other outputs depend on. LossError if no output depends on a loss, or if no single one
    combines them."""
    losses = {i: marks for i, marks in enumerate(_losses_behind(outputs, record)) if marks}
    if not losses:
        raise LossError(
            "the model's forward returns no loss, so there is nothing to train. Return the result of a PyTorch "
            "loss function or module (for example F.cross_entropy(output, target) or nn.MSELoss()(output, target)), "
            "or mark your loss with poptorch.identity_loss(loss, reduction='mean'), as one of forward's outputs."
        )
    every = frozenset().union(*losses.values())
    final = {id(outputs[i]) for i, marks in losses.items() if marks == every}
    if len(final) == 1:
        return next(i for i, marks in losses.items() if marks == every)
    positions = ", ".join(str(i) for i in losses)
    raise LossError(
        f"the model returns several independent losses (outputs {positions}); PopTorch trains on one final loss. "
        "Combine them into one tensor and return it, e.g. loss_a + loss_b, or "
        "poptorch.identity_loss(loss_a + loss_b, reduction='none')."
    )

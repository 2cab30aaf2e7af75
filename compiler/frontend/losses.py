"""Find a model's loss as PopTorch does: which of its outputs is the one final loss.

A loss is the result of any PyTorch loss function: a loss module (``nn.modules.loss._Loss``,
registered or called inline), its functional form (every ``torch.nn.functional`` loss, and
the same functions in the ``torch`` namespace), or ``poptorch.identity_loss``. While the
model is exported for this search (``marking_losses``), a ``TorchFunctionMode`` passes the
result of each loss function through the identity op ``ipu_capture::loss``, so the exported
graph shows where losses are made, whatever name the model called them by
(``from torch.nn.functional import mse_loss`` too). ``find_loss`` then picks the output
that depends on every loss made (``l1 + 0.1 * l2``, ``loss.mean() * 2``). The marks exist only in
that export; the joint forward + backward trace runs the model without them.
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

_MARK_NAMESPACE = "ipu_capture"


class LossError(CaptureError):
    """The model has no loss, or several independent ones."""


@torch.library.custom_op(f"{_MARK_NAMESPACE}::loss", mutates_args=())
def _loss_mark(x: torch.Tensor) -> torch.Tensor:
    """Identity marking ``x`` as the output of a loss function (only in the loss search)."""
    return x.clone()


@_loss_mark.register_fake
def _(x: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)


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


def _mark(value: Any) -> Any:
    return _loss_mark(value) if isinstance(value, torch.Tensor) and value.is_floating_point() else value


class _MarkLossFunctions(TorchFunctionMode):
    """Marks the result of every loss function the model calls (``loss_functions()``)."""

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        result = func(*args, **(kwargs or {}))
        return _mark(result) if id(func) in _loss_function_ids() else result


@contextlib.contextmanager
def marking_losses(model: torch.nn.Module) -> Iterator[None]:
    """While active, every loss the model computes is marked in what torch.export traces:
    loss functions through the mode, and the outputs of loss modules (a ``_Loss`` subclass
    may compute its loss without calling a functional form) through forward hooks."""
    hooks = [m.register_forward_hook(lambda _m, _i, out: pytree.tree_map(_mark, out))
             for m in model.modules() if isinstance(m, torch.nn.modules.loss._Loss)]
    try:
        with _MarkLossFunctions():
            yield
    finally:
        for hook in hooks:
            hook.remove()


def _is_mark(node: torch.fx.Node) -> bool:
    return node.op == "call_function" and node.target in (
        torch.ops.ipu_capture.loss.default, torch.ops.poptorch.identity_loss.default)


def find_loss(program: torch.export.ExportedProgram) -> int:
    """Index of the loss among the model's flattened user outputs (``program`` exported
    under ``marking_losses``): the one output that depends on every loss the other outputs
    depend on. LossError if no output depends on a loss, or if no single one combines them."""
    depends: dict[torch.fx.Node, frozenset[torch.fx.Node]] = {}
    for node in program.graph.nodes:  # topological order: inputs first
        marks = frozenset().union(*(depends[parent] for parent in node.all_input_nodes))
        depends[node] = marks | {node} if _is_mark(node) else marks
    output_node = next(n for n in program.graph.nodes if n.op == "output")
    user = [value for spec, value in zip(program.graph_signature.output_specs, output_node.args[0], strict=True)
            if spec.kind.name == "USER_OUTPUT"]
    losses = {i: depends[v] for i, v in enumerate(user) if isinstance(v, torch.fx.Node) and depends[v]}
    if not losses:
        raise LossError(
            "the model's forward returns no loss, so there is nothing to train. Return the result of a PyTorch "
            "loss function or module (for example F.cross_entropy(output, target) or nn.MSELoss()(output, target)), "
            "or mark your loss with poptorch.identity_loss(loss, reduction='mean'), as one of forward's outputs."
        )
    every = frozenset().union(*losses.values())
    final = {user[i] for i, marks in losses.items() if marks == every}
    if len(final) == 1:
        node = final.pop()
        return next(i for i in losses if user[i] is node)
    positions = ", ".join(str(i) for i in losses)
    raise LossError(
        f"the model returns several independent losses (outputs {positions}); PopTorch trains on one final loss. "
        "Combine them into one tensor and return it, e.g. loss_a + loss_b, or "
        "poptorch.identity_loss(loss_a + loss_b, reduction='none')."
    )

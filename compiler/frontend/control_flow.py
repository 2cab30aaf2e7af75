"""The ``poptorch::`` marker ops that carry ``poptorch.for_loop`` and ``poptorch.cond``
through capture, the body traced once between them.

``for_loop(count, body, inputs)`` traces as::

    carried = for_loop_begin(inputs, id)          # the body's inputs
    outputs = body(*carried)                      # traced once, as ordinary ops
    results = for_loop_end(outputs, id, count)    # the loop's results

and ``cond(c, then_body, then_inputs, else_body, else_inputs)`` as a ``cond_begin`` per
branch (``branch`` 0: then, 1: else), each branch's ops, then ``cond_end(c,
then_outputs, else_outputs, id)``. They import as ``torch.operator
"torch.poptorch.*"`` on ``!torch.list<vtensor>`` values, and ``ipu-raise-custom-ops``
(``compiler/control_flow.py``) moves the ops between a begin and its end into the
region of an ``ipu.for_loop`` / ``ipu.if``.

Run eagerly (a kernel, not the API: ``poptorch.for_loop`` runs the Python loop off the
IPU) the begin ops copy their inputs and ``for_loop_end`` its outputs (one iteration);
``cond_end`` picks the branch. Training through them is refused: their backward is not
implemented.
"""

from __future__ import annotations

import itertools

import torch

from .custom_ops import NAMESPACE

_IDS = itertools.count()


def next_region_id() -> int:
    """A number no other for_loop / cond traced in this process has (their begin and end ops share it)."""
    return next(_IDS)


def _no_backward(name: str):  # noqa: ANN202
    def backward(ctx, *grads):  # noqa: ANN001, ANN202
        raise RuntimeError(
            f"poptorch.{name} cannot be trained through yet: the backward of a device {name} is not implemented "
            f"(use it in an inference model, or write the {name} out in Python in a training model)")
    return backward


def _register(op: torch.library.CustomOpDef, name: str) -> None:
    op.register_autograd(_no_backward(name), setup_context=lambda ctx, inputs, output: None)


@torch.library.custom_op(f"{NAMESPACE}::for_loop_begin", mutates_args=())
def for_loop_begin(inputs: list[torch.Tensor], region_id: int) -> list[torch.Tensor]:
    return [x.clone() for x in inputs]


@for_loop_begin.register_fake
def _(inputs: list[torch.Tensor], region_id: int) -> list[torch.Tensor]:
    return [torch.empty_like(x) for x in inputs]


@torch.library.custom_op(f"{NAMESPACE}::for_loop_end", mutates_args=())
def for_loop_end(outputs: list[torch.Tensor], region_id: int, count: int) -> list[torch.Tensor]:
    return [x.clone() for x in outputs]


@for_loop_end.register_fake
def _(outputs: list[torch.Tensor], region_id: int, count: int) -> list[torch.Tensor]:
    return [torch.empty_like(x) for x in outputs]


@torch.library.custom_op(f"{NAMESPACE}::cond_begin", mutates_args=())
def cond_begin(inputs: list[torch.Tensor], region_id: int, branch: int) -> list[torch.Tensor]:
    return [x.clone() for x in inputs]


@cond_begin.register_fake
def _(inputs: list[torch.Tensor], region_id: int, branch: int) -> list[torch.Tensor]:
    return [torch.empty_like(x) for x in inputs]


@torch.library.custom_op(f"{NAMESPACE}::cond_end", mutates_args=())
def cond_end(condition: torch.Tensor, then_outputs: list[torch.Tensor], else_outputs: list[torch.Tensor],
             region_id: int) -> list[torch.Tensor]:
    return [x.clone() for x in (then_outputs if bool(condition) else else_outputs)]


@cond_end.register_fake
def _(condition: torch.Tensor, then_outputs: list[torch.Tensor], else_outputs: list[torch.Tensor],
      region_id: int) -> list[torch.Tensor]:
    return [torch.empty_like(x) for x in then_outputs]


for _op, _name in ((for_loop_begin, "for_loop"), (for_loop_end, "for_loop"), (cond_begin, "cond"), (cond_end, "cond")):
    _register(_op, _name)

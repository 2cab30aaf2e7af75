"""``poptorch.for_loop`` and ``poptorch.cond``: control flow that runs on the device.

Off the IPU (plain eager PyTorch) they run in Python: the body ``count`` times, the
branch the condition picks. While a model is compiled, each body is traced once
between marker ops (``compiler/frontend/control_flow.py``) and becomes a device loop
(``poplar.program_repeat`` calling the body's ``poplar.function``) or a device
conditional (``poplar.program_if``), never an unrolled copy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch


def _tracing() -> bool:
    from ipu_mlir.compiler.frontend.tracing import is_tracing

    return is_tracing()


def _markers():
    from ipu_mlir.compiler.frontend import control_flow  # registers torch.ops.poptorch.*

    return control_flow


def _tensors(values: object, what: str) -> list[torch.Tensor]:
    """``values`` (a tensor, or a list / tuple of tensors) as a list, or a TypeError naming ``what``."""
    if isinstance(values, torch.Tensor):
        return [values]
    if isinstance(values, (list, tuple)) and all(isinstance(v, torch.Tensor) for v in values):
        return list(values)
    raise TypeError(f"{what} must be a tensor or a list of tensors, got {type(values).__name__}"
                    + (f" holding {[type(v).__name__ for v in values]}" if isinstance(values, (list, tuple)) else ""))


def _signature(tensors: Sequence[torch.Tensor]) -> list[tuple[tuple[int, ...], torch.dtype]]:
    return [(tuple(t.shape), t.dtype) for t in tensors]


def _check_same(what: str, expected: Sequence[torch.Tensor], got: Sequence[torch.Tensor], expected_name: str,
                got_name: str) -> None:
    if _signature(expected) != _signature(got):
        raise ValueError(f"{what}: {got_name} must match {expected_name} in number, shapes and dtypes: "
                         f"{expected_name} are {_describe(expected)}, {got_name} {_describe(got)}")


def _describe(tensors: Sequence[torch.Tensor]) -> str:
    return "[" + ", ".join(f"{t.dtype} {list(t.shape)}" for t in tensors) + "]"


def for_loop(count: int, body: Callable[..., object], inputs: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    """An on-device for loop: ``body`` runs ``count`` times on the device.

    ``body`` takes as many tensors as ``inputs`` holds and returns as many (a tensor, or
    a list / tuple), of the same shapes and dtypes: each iteration receives the previous
    iteration's outputs (the first ``inputs``). Returns the last iteration's outputs as a
    list (``inputs`` when ``count`` is 0). The body may read other tensors of the model
    (weights, other inputs). It is compiled once, as a loop of the IPU program.

    >>> poptorch.for_loop(10, lambda x: x * 2, [x])[0]   # x * 2**10
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ValueError(f"for_loop: count must be an int >= 0 (a number of iterations), got {count!r}")
    if not callable(body):
        raise TypeError(f"for_loop: body must be a function, got {type(body).__name__}")
    inputs = _tensors(inputs, "for_loop: inputs")
    if not inputs:
        raise ValueError("for_loop: inputs must hold at least one tensor (the values the iterations carry)")
    if count == 0:
        return list(inputs)
    if not _tracing():
        values = inputs
        for _ in range(count):
            outputs = _tensors(body(*values), "for_loop: the body's result")
            _check_same("for_loop", values, outputs, "the body's inputs", "its outputs")
            values = outputs
        return list(values)
    markers = _markers()
    region = markers.next_region_id()
    carried = list(markers.for_loop_begin(inputs, region))
    outputs = _tensors(body(*carried), "for_loop: the body's result")
    _check_same("for_loop", inputs, outputs, "the body's inputs", "its outputs")
    return list(markers.for_loop_end(outputs, region, count))


def cond(condition: torch.Tensor, then_body: Callable[..., object], then_inputs: Sequence[torch.Tensor],
         else_body: Callable[..., object], else_inputs: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    """An on-device conditional: ``then_body(*then_inputs)`` if ``condition`` holds, else
    ``else_body(*else_inputs)``; returns the branch's outputs as a list.

    ``condition`` is a one-element bool tensor, which may be computed on the device; only
    the branch it picks runs. Both branches must return the same number of tensors with
    the same shapes and dtypes. The branches may read other tensors of the model.

    >>> poptorch.cond(x.sum() > 0, lambda a: a * 2, [x], lambda a: -a, [x])[0]
    """
    if not isinstance(condition, torch.Tensor) or condition.dtype != torch.bool or condition.numel() != 1:
        raise TypeError("cond: condition must be a bool tensor of one element (e.g. x.sum() > 0), got "
                        + (f"{condition.dtype} {list(condition.shape)}" if isinstance(condition, torch.Tensor)
                           else type(condition).__name__))
    for label, body in (("then_body", then_body), ("else_body", else_body)):
        if not callable(body):
            raise TypeError(f"cond: {label} must be a function, got {type(body).__name__}")
    then_inputs = _tensors(then_inputs, "cond: then_inputs")
    else_inputs = _tensors(else_inputs, "cond: else_inputs")
    if not _tracing():
        if bool(condition):
            return _tensors(then_body(*then_inputs), "cond: then_body's result")
        return _tensors(else_body(*else_inputs), "cond: else_body's result")
    markers = _markers()
    region = markers.next_region_id()
    then_outputs = _tensors(then_body(*markers.cond_begin(then_inputs, region, 0)), "cond: then_body's result")
    else_outputs = _tensors(else_body(*markers.cond_begin(else_inputs, region, 1)), "cond: else_body's result")
    if not then_outputs:
        raise ValueError("cond: the branches must return at least one tensor")
    _check_same("cond", then_outputs, else_outputs, "then_body's outputs", "else_body's outputs")
    return list(markers.cond_end(condition, then_outputs, else_outputs, region))

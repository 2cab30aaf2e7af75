"""Floating-point exceptions in the IPU Model (``poplar.floating_point_exceptions`` on the graph,
``Options.Precision.enableFloatingPointExceptions`` / ``setFloatingPointBehaviour``).

When the graph asks for them, the decoder wraps each compute op's step in :func:`checked`: after
the op runs, a NaN (``invalid``) or an infinity (``divide_by_zero`` for a division,
``overflow`` otherwise) in its floating-point results that its inputs did not already hold is a
:class:`FloatingPointException` naming the op and where the model computed it. Without the
attribute nothing is wrapped, so programs that do not ask pay nothing.
"""

from __future__ import annotations

import torch
from torch_mlir import ir

from ipu_mlir.dialects.poplar.planning import FloatingPointException as Kind
from ipu_mlir.support.diagnostics import location_label

from .steps import Step


class FloatingPointException(RuntimeError):
    """A compute op produced a NaN or an infinity while floating-point exceptions are enabled."""


def _non_finite(value: object) -> bool:
    return isinstance(value, torch.Tensor) and value.is_floating_point() and not bool(torch.isfinite(value).all())


def _is_division(op: ir.Operation) -> bool:
    if "div" in op.name:
        return True
    for key in ("expr", "op", "kind"):
        if key in op.attributes and isinstance(op.attributes[key], ir.StringAttr):
            text = ir.StringAttr(op.attributes[key]).value
            if "/" in text or "div" in text:
                return True
    return False


def checked(step: Step, op: ir.Operation, ins: tuple[int, ...], outs: tuple[int, ...], traps: frozenset[Kind]) -> Step:
    """``step``, then raise if it made a NaN or an infinity of a kind in ``traps`` from
    finite inputs. ``outs`` are the slots it writes (its operands for an in-place op)."""
    label = f"'{op.name}' at {location_label(op.location)}"
    division = _is_division(op)

    def run(env: list) -> None:
        inputs_finite = not any(_non_finite(env[slot]) for slot in ins)
        step(env)
        if not inputs_finite:
            return  # the NaN or infinity came in: the op that made it raised (or was on the host)
        for slot in outs:
            value = env[slot]
            if not _non_finite(value):
                continue
            if bool(torch.isnan(value).any()):
                kind, what = Kind.INVALID, "NaN (an invalid operation)"
            elif division:
                kind, what = Kind.DIVIDE_BY_ZERO, "an infinity (a division by zero)"
            else:
                kind, what = Kind.OVERFLOW, "an infinity (an overflow)"
            if kind in traps:
                raise FloatingPointException(
                    f"floating-point exception on the IPU: {label} produced {what} from finite inputs. "
                    "Options.Precision.enableFloatingPointExceptions(True) makes this an error; find the op "
                    "that makes it, or turn the exceptions off to let the value through")

    return run

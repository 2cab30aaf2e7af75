"""The C++ of the random ops: ``poprand::uniform`` / ``normal`` draws, and dropout as a
``poprand::bernoulli`` keep mask applied with ``popops::map``. The draws pass no seed
tensor: they take the next numbers of the device's generator, which the main program seeds
once per run with ``poprand::setSeed`` from the host-written ``randomSeed`` (the emitter
declares it when the graph draws), so every execution of a draw gives new values and the
same seed the same ones. Registered in ``compute.EMITTERS``."""

from __future__ import annotations

import math
from typing import Any

from .compute import _dims, emits
from .errors import CodegenError

RANDOM_OPS = frozenset({"poplar.poprand_uniform", "poplar.poprand_normal", "poplar.poprand_dropout"})


def _reference(cx: Any, op: Any, value: Any) -> tuple[list[str], str]:
    """A tensor of the result's shape and mapping for poprand to draw like."""
    ref = cx.fresh("reference")
    g = cx.graph(op)
    return [f"poplar::Tensor {ref} = {g}.addVariable(poplar::{cx.ptype(value)}, {_dims(cx.shape(value))}, {cx.debug(op, 'reference')});",
            f"mapLinearly({g}, {ref}, 0, 1);"], ref


def _float(v: float) -> str:
    if not math.isfinite(v):
        raise CodegenError(f"a random draw with the non-finite bound {v} has no emission")
    return repr(float(v))


@emits("poplar.poprand_uniform")
def emit_uniform(cx: Any, op: Any) -> list[str]:
    result = op.results[0]
    low, high = cx.attr(op, "min_val"), cx.attr(op, "max_val")
    lines, ref = _reference(cx, op, result)
    ptype = cx.ptype(result)
    if ptype in ("FLOAT", "HALF"):
        bounds = f"{_float(low)}, {_float(high)}"
    else:  # poprand's integer range includes maxVal; torch.randint's excludes high
        lines.append(f"// integers in [{int(low)}, {int(high)}): poprand's integer range includes its maxVal")
        bounds = f"{_float(low)}, {_float(high - 1)}"
    return lines + [f"poplar::Tensor {cx.define(result)} = poprand::uniform({cx.graph(op)}, nullptr, 0, {ref}, poplar::{ptype}, "
                    f"{bounds}, {cx.prog}, {cx.debug(op)});"]


@emits("poplar.poprand_normal")
def emit_normal(cx: Any, op: Any) -> list[str]:
    result = op.results[0]
    lines, ref = _reference(cx, op, result)
    return lines + [f"poplar::Tensor {cx.define(result)} = poprand::normal({cx.graph(op)}, nullptr, 0, {ref}, poplar::{cx.ptype(result)}, "
                    f"{_float(cx.attr(op, 'mean'))}, {_float(cx.attr(op, 'std_dev'))}, {cx.prog}, {cx.debug(op)});"]


@emits("poplar.poprand_dropout")
def emit_dropout(cx: Any, op: Any) -> list[str]:
    """The keep mask (``poprand::bernoulli`` with probability 1 - p, kept for the gradient),
    then ``x * mask * (1 / (1 - p))``; ``poprand::dropout`` would not give the mask."""
    x = op.operands[0]
    result, mask = op.results
    p = cx.attr(op, "p")
    g, prog, ptype = cx.graph(op), cx.prog, cx.ptype(x)
    keep = cx.fresh("keep")
    scale = 1.0 / (1.0 - p)
    out, kept = cx.define(result), cx.define(mask)
    expr = (f"pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::_1, pe::Cast(pe::_2, poplar::{ptype})), "
            f"pe::Const({scale!r}f))")
    return [f"poplar::Tensor {keep} = poprand::bernoulli({g}, nullptr, 0, {cx.name(x)}, poplar::{ptype}, {_float(1.0 - p)}, {prog}, "
            f"{cx.debug(op, 'mask')});",
            f"poplar::Tensor {kept} = popops::cast({g}, {keep}, poplar::BOOL, {prog}, {cx.debug(op, 'mask')});",
            f"poplar::Tensor {out} = popops::map({g}, {expr}, {{{cx.name(x)}, {kept}}}, {prog}, {cx.debug(op)});"]

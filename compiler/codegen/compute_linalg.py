"""The C++ of the ``poplin`` products beyond ``compute.py``'s: ``poplin_matmul_acc``
(``torch.addmm`` / ``baddbmm`` / ``addmv``) as ``poplin::matMulAcc`` / ``matMulGroupedAcc``
into a copy of the (scaled, broadcast) accumulator. Registered in ``compute.EMITTERS``."""

from __future__ import annotations

from typing import Any

from .compute import _dims, emits
from .map_expr import _float_literal


def broadcast_view(text: str, src: list[int], dst: list[int]) -> str:
    """``text`` (of shape ``src``) viewed with ``dst``'s shape by NumPy broadcasting."""
    padded = [1] * (len(dst) - len(src)) + src
    if padded != src:
        text += f".reshape({_dims(padded)})"
    for d, (a, b) in enumerate(zip(padded, dst, strict=True)):
        if a != b:
            text += f".broadcast({b}, {d})"
    return text


@emits("poplar.poplin_matmul_acc")
def emit_matmul_acc(cx: Any, op: Any) -> list[str]:
    """``beta * acc + alpha * (lhs @ rhs)``: the accumulator broadcast into a new tensor
    (zeroed when ``beta`` is 0: it is not read, as BLAS), scaled by ``beta``, then the product
    added in with ``poplin::matMulAcc`` (a matrix-vector product as an [m, k] x [k, 1] one)."""
    acc, lhs, rhs = op.operands
    result = op.results[0]
    alpha, beta = cx.attr(op, "alpha"), cx.attr(op, "beta")
    shape, ptype = cx.shape(result), cx.ptype(result)
    g, prog, out = cx.graph(op), cx.prog, cx.define(result)
    lines = [f"poplar::Tensor {out} = {g}.addVariable(poplar::{ptype}, {_dims(shape)}, {cx.debug(op)});",
             f"mapLinearly({g}, {out}, 0, 1);"]
    if beta == 0.0:
        lines.append(f"popops::zero({g}, {out}, {prog}, {cx.debug(op, 'zero')});  // beta 0: the accumulator is not read")
    else:
        lines.append(f"{prog}.add(poplar::program::Copy({broadcast_view(cx.name(acc), cx.shape(acc), shape)}, {out}));")
        if beta != 1.0:
            lines.append(f"popops::mapInPlace({g}, pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::_1, pe::Const({_float_literal(beta)})), "
                         f"{{{out}}}, {prog}, {cx.debug(op, 'beta')});")
    a, b = cx.name(lhs), cx.name(rhs)
    k = _float_literal(alpha)
    if len(cx.shape(lhs)) == 3:
        lines.append(f"poplin::matMulGroupedAcc({g}, {out}, {k}, {a}, {b}, {prog}, {cx.debug(op)});")
    elif len(cx.shape(rhs)) == 1:
        lines.append(f"poplin::matMulAcc({g}, {out}.expand({{1}}), {k}, {a}, {b}.expand({{1}}), {prog}, {cx.debug(op)});")
    else:
        lines.append(f"poplin::matMulAcc({g}, {out}, {k}, {a}, {b}, {prog}, {cx.debug(op)});")
    return lines

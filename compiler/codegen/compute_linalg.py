"""The C++ of the ``poplin`` linear algebra beyond ``compute.py``'s: ``poplin_matmul_acc``
(``torch.addmm`` / ``baddbmm`` / ``addmv``) as ``poplin::matMulAcc`` / ``matMulGroupedAcc``
into a copy of the (scaled, broadcast) accumulator; ``poplin_cholesky`` as
``poplin::cholesky`` (its ``info`` from the factor's diagonal); ``poplin_triangular_solve``
as ``poplin::triangularSolve``; the Cholesky solve and inverse as two triangular solves.
Registered in ``compute.EMITTERS``."""

from __future__ import annotations

from typing import Any

from .compute import _dims, emits, planning_options
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
        lines.append(f"poplin::matMulGroupedAcc({g}, {out}, {k}, {a}, {b}, {prog}, {cx.debug(op)}{planning_options(cx, op)});")
    elif len(cx.shape(rhs)) == 1:
        lines.append(f"poplin::matMulAcc({g}, {out}.expand({{1}}), {k}, {a}, {b}.expand({{1}}), {prog}, {cx.debug(op)}{planning_options(cx, op)});")
    else:
        lines.append(f"poplin::matMulAcc({g}, {out}, {k}, {a}, {b}, {prog}, {cx.debug(op)}{planning_options(cx, op)});")
    return lines


# ---- factorisations and solves ---------------------------------------------------------

def _swap_last(rank: int) -> list[int]:
    return [*range(rank - 2), rank - 1, rank - 2]


def _batch(*shapes: list[int]) -> list[int]:
    """The broadcast batch shape (all dims but the last two) of ``shapes``."""
    batches = [shape[:-2] for shape in shapes]
    rank = max(len(b) for b in batches)
    out = [1] * rank
    for b in batches:
        for i, n in enumerate(b):
            j = rank - len(b) + i
            out[j] = n if n != 1 else out[j]
    return out


def _solve(cx: Any, op: Any, a: str, b: str, left: bool, lower: bool, unit: bool, suffix: str = "") -> str:
    return (f"poplin::triangularSolve({cx.graph(op)}, {a}, {b}, {'true' if left else 'false'}, {'true' if lower else 'false'}, "
            f"{'true' if unit else 'false'}, {cx.prog}, {cx.debug(op, suffix)})")


@emits("poplar.poplin_cholesky")
def emit_cholesky(cx: Any, op: Any) -> list[str]:
    """``poplin::cholesky``; ``info`` (torch's order of the first leading minor that is not
    positive definite, 0 if none) from the factor's diagonal, which is NaN (or not positive)
    from the failing column on."""
    a = op.operands[0]
    factor, info = op.results
    shape = cx.shape(a)
    n, rank = shape[-1], len(shape)
    g, prog = cx.graph(op), cx.prog
    out, diag, data, order, first = cx.define(factor), cx.fresh("diagonal"), cx.fresh("data"), cx.fresh("order"), cx.fresh("firstBad")
    bad = "pe::UnaryOp(pe::UnaryOpType::LOGICAL_NOT, pe::BinaryOp(pe::BinaryOpType::GREATER_THAN, pe::_1, pe::Const(0.0f)))"
    return [f"poplar::Tensor {out} = poplin::cholesky({g}, {cx.name(a)}, {'false' if cx.attr(op, 'upper') else 'true'}, {prog}, {cx.debug(op)});",
            "// info: the (1-based) order of the first column whose diagonal is not positive, 0 if none",
            f"poplar::Tensor {diag} = {out}.reshape({_dims(shape[:-2] + [n * n])}).subSample({n + 1}, {rank - 2});",
            f"static const int {data}[] = {{{', '.join(str(i + 1) for i in range(n))}}};",
            f"poplar::Tensor {order} = {g}.addConstant<int>(poplar::INT, {{{n}}}, {data}, {cx.debug(op, 'order')});",
            f"mapLinearly({g}, {order}, 0, 1);",
            f"poplar::Tensor {first} = popops::reduce({g}, popops::map({g}, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_2, pe::Const({n + 1}), {bad}), "
            f"{{{diag}, {order}}}, {prog}, {cx.debug(op, 'info')}), poplar::INT, {{{rank - 2}}}, popops::ReduceParams(popops::Operation::MIN), "
            f"{prog}, {cx.debug(op, 'info')});",
            f"poplar::Tensor {cx.define(info)} = popops::map({g}, pe::Cast(pe::TernaryOp(pe::TernaryOpType::SELECT, pe::Const(0), pe::_1, "
            f"pe::BinaryOp(pe::BinaryOpType::EQUAL, pe::_1, pe::Const({n + 1}))), poplar::{cx.ptype(info)}), {{{first}}}, {prog}, {cx.debug(op, 'info')});"]


@emits("poplar.poplin_triangular_solve")
def emit_triangular_solve(cx: Any, op: Any) -> list[str]:
    a, b = op.operands
    batch = _batch(cx.shape(a), cx.shape(b))
    av = broadcast_view(cx.name(a), cx.shape(a), batch + cx.shape(a)[-2:])
    bv = broadcast_view(cx.name(b), cx.shape(b), batch + cx.shape(b)[-2:])
    return [f"poplar::Tensor {cx.define(op.results[0])} = "
            f"{_solve(cx, op, av, bv, cx.attr(op, 'left'), not cx.attr(op, 'upper'), cx.attr(op, 'unitriangular'))};"]


def _cholesky_solve(cx: Any, op: Any, factor: Any, b_text: str, b_shape: list[int], result: Any) -> list[str]:
    """A x = b from A's factor: L y = b, then L^T x = y (with U: U^T y = b, then U x = y)."""
    shape = cx.shape(factor)
    batch = _batch(shape, b_shape)
    f = broadcast_view(cx.name(factor), shape, batch + shape[-2:])
    swap = f".dimShuffle({_dims(_swap_last(len(batch) + 2))})"
    lower, upper = (f + swap, f) if cx.attr(op, "upper") else (f, f + swap)
    y = cx.fresh("y")
    return [f"// A = L L^T (or U^T U, L = U^T): L y = b, then L^T x = y",
            f"poplar::Tensor {y} = {_solve(cx, op, lower, broadcast_view(b_text, b_shape, batch + b_shape[-2:]), True, True, False, 'lower')};",
            f"poplar::Tensor {cx.define(result)} = {_solve(cx, op, upper, y, True, False, False, 'upper')};"]


@emits("poplar.poplin_cholesky_solve")
def emit_cholesky_solve(cx: Any, op: Any) -> list[str]:
    b, factor = op.operands
    return _cholesky_solve(cx, op, factor, cx.name(b), cx.shape(b), op.results[0])


@emits("poplar.poplin_cholesky_inverse")
def emit_cholesky_inverse(cx: Any, op: Any) -> list[str]:
    """A^-1 as the Cholesky solve of the identity."""
    factor = op.operands[0]
    n = cx.shape(factor)[-1]
    g, data, eye = cx.graph(op), cx.fresh("data"), cx.fresh("identity")
    values = ", ".join("1.0f" if i == j else "0.0f" for i in range(n) for j in range(n))
    return [f"static const float {data}[] = {{{values}}};",
            f"poplar::Tensor {eye} = {g}.addConstant<float>(poplar::FLOAT, {{{n}, {n}}}, {data}, {cx.debug(op, 'identity')});",
            f"mapLinearly({g}, {eye}, 0, 1);",
            *_cholesky_solve(cx, op, factor, eye, [n, n], op.results[0])]

"""The C++ of the LU family (PopLibs has no LU factorisation): ``poplin_lu_factor`` as a
Poplar program of PopLibs calls, one step per column (``popops::argMax`` picks the first
largest ``|a[i, k]|``, ``multiSlice`` / ``multiUpdate`` swap the rows, ``popops::mapInPlace``
scales L's column and updates the trailing matrix, as LAPACK's ``getf2``), and the solve,
inverse, determinants and unpacking built on it (the pivots' row swaps applied to the right-hand side,
then ``poplin::triangularSolve`` with L and U). Square matrices only; a singular matrix's
factors follow the formulas (inf / NaN), where LAPACK stops scaling. Registered in
``compute.EMITTERS``."""

from __future__ import annotations

import math
from typing import Any

from .compute import _dims, emits
from .compute_linalg import broadcast_view
from .errors import CodegenError

_EQUAL_ZERO = "pe::BinaryOp(pe::BinaryOpType::EQUAL, pe::_1, pe::Const(0.0f))"


def _square(cx: Any, op: Any, value: Any) -> tuple[list[int], int, int]:
    shape = cx.shape(value)
    if shape[-1] != shape[-2]:
        raise CodegenError(f"{cx.where(op)} of a non-square {shape[-2]} x {shape[-1]} matrix has no emission yet")
    if cx.ptype(value) != "FLOAT":
        raise CodegenError(f"{cx.where(op)} of {cx.ptype(value)} elements has no emission (emitted: FLOAT)")
    return shape[:-2], math.prod(shape[:-2]), shape[-1]


def _row_base(cx: Any, op: Any, batches: int, n: int) -> tuple[list[str], str]:
    """A constant [B] INT tensor of each matrix's first row in the flattened [B * N, ...] rows."""
    data, base = cx.fresh("data"), cx.fresh("rowBase")
    g = cx.graph(op)
    return [f"static const int {data}[] = {{{', '.join(str(b * n) for b in range(batches))}}};",
            f"poplar::Tensor {base} = {g}.addConstant<int>(poplar::INT, {{{batches}}}, {data}, {cx.debug(op, 'rows')});",
            f"mapLinearly({g}, {base}, 0, 1);"], base


def _swap_rows(cx: Any, op: Any, rows: str, base: str, pivot: str, indent: str) -> list[str]:
    """Swap row k (``base + k``) and row ``base + pivot`` (``pivot`` a [B] INT tensor of row
    numbers within each matrix) of the flattened rows; emitted inside the loop over k."""
    g, prog = cx.graph(op), cx.prog
    plan = f"{prog}, popops::SlicePlan(), poplar::OptionFlags(), {cx.debug(op, 'swap')}"
    add = "pe::BinaryOp(pe::BinaryOpType::ADD, pe::_1, pe::_2)"
    return [f"{indent}poplar::Tensor here = popops::cast({g}, popops::map({g}, pe::BinaryOp(pe::BinaryOpType::ADD, pe::_1, pe::Const(static_cast<int>(k))), "
            f"{{{base}}}, {prog}, {cx.debug(op, 'swap')}), poplar::UNSIGNED_INT, {prog}, {cx.debug(op, 'swap')}).expand({{1}});",
            f"{indent}poplar::Tensor there = popops::cast({g}, popops::map({g}, {add}, {{{base}, {pivot}}}, {prog}, {cx.debug(op, 'swap')}), "
            f"poplar::UNSIGNED_INT, {prog}, {cx.debug(op, 'swap')}).expand({{1}});",
            f"{indent}poplar::Tensor rowHere = popops::multiSlice({g}, {rows}, here, {{0}}, {{1}}, {plan});",
            f"{indent}poplar::Tensor rowThere = popops::multiSlice({g}, {rows}, there, {{0}}, {{1}}, {plan});",
            f"{indent}popops::multiUpdate({g}, {rows}, rowThere, here, {{0}}, {{1}}, {plan});",
            f"{indent}popops::multiUpdate({g}, {rows}, rowHere, there, {{0}}, {{1}}, {plan});"]


def _factor(cx: Any, op: Any, a: Any) -> tuple[list[str], str, str, str, str]:
    """The lines factoring ``a`` into (lu [B, N, N], pivots [B, N] INT 1-based, info [B] INT,
    row base); returns them with the four tensor names."""
    _, batches, n = _square(cx, op, a)
    g, prog = cx.graph(op), cx.prog
    lu, piv, info = cx.fresh("lu"), cx.fresh("pivots"), cx.fresh("info")
    lines, base = _row_base(cx, op, batches, n)
    absolute = "pe::UnaryOp(pe::UnaryOpType::ABSOLUTE, pe::_1)"
    lines += [f"// LU with partial pivoting, column by column (LAPACK getf2): the pivot is the first largest |a[i, k]|, i >= k",
              f"poplar::Tensor {lu} = {g}.addVariable(poplar::FLOAT, {_dims([batches, n, n])}, {cx.debug(op, 'lu')});",
              f"mapLinearly({g}, {lu}, 0, 1);",
              f"{prog}.add(poplar::program::Copy({cx.name(a)}.reshape({_dims([batches, n, n])}), {lu}));",
              f"poplar::Tensor {piv} = {g}.addVariable(poplar::INT, {_dims([batches, n])}, {cx.debug(op, 'pivots')});",
              f"mapLinearly({g}, {piv}, 0, 1);",
              f"for (unsigned k = 0; k < {n}; ++k) {{",
              f"  poplar::Tensor column = {lu}.slice({{0, k, k}}, {{{batches}, {n}, k + 1}}).reshape({{{batches}, {n} - k}});",
              f"  poplar::Tensor pivot = popops::cast({g}, popops::argMax({g}, popops::map({g}, {absolute}, {{column}}, {prog}, {cx.debug(op, 'pivot')}), "
              f"{prog}, {cx.debug(op, 'pivot')}), poplar::INT, {prog}, {cx.debug(op, 'pivot')});",
              f"  popops::mapInPlace({g}, pe::BinaryOp(pe::BinaryOpType::ADD, pe::_1, pe::Const(static_cast<int>(k))), {{pivot}}, {prog}, "
              f"{cx.debug(op, 'pivot')});  // the pivot's row",
              f"  {prog}.add(poplar::program::Copy(popops::map({g}, pe::BinaryOp(pe::BinaryOpType::ADD, pe::_1, pe::Const(1)), {{pivot}}, {prog}, "
              f"{cx.debug(op, 'pivots')}).expand({{1}}), {piv}.slice(k, k + 1, 1)));  // 1-based, as LAPACK",
              *_swap_rows(cx, op, f"{lu}.reshape({{{batches * n}, {n}}})", base, "pivot", "  "),
              f"  if (k + 1 == {n}) break;",
              "  // L's column: a[i, k] / a[k, k] below the pivot; then a[i, j] -= l[i] * a[k, j] on the trailing matrix",
              f"  poplar::Tensor lower = {lu}.slice({{0, k + 1, k}}, {{{batches}, {n}, k + 1}});",
              f"  popops::mapInPlace({g}, pe::BinaryOp(pe::BinaryOpType::DIVIDE, pe::_1, pe::_2), "
              f"{{lower, {lu}.slice({{0, k, k}}, {{{batches}, k + 1, k + 1}}).broadcast({n} - k - 1, 1)}}, {prog}, {cx.debug(op, 'scale')});",
              f"  popops::mapInPlace({g}, pe::BinaryOp(pe::BinaryOpType::SUBTRACT, pe::_1, pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::_2, pe::_3)), "
              f"{{{lu}.slice({{0, k + 1, k + 1}}, {{{batches}, {n}, {n}}}), lower.broadcast({n} - k - 1, 2), "
              f"{lu}.slice({{0, k, k + 1}}, {{{batches}, k + 1, {n}}}).broadcast({n} - k - 1, 1)}}, {prog}, {cx.debug(op, 'update')});",
              "}"]
    diag, data, order, first = cx.fresh("diagonal"), cx.fresh("data"), cx.fresh("order"), cx.fresh("firstZero")
    lines += ["// info: the (1-based) order of the first zero on U's diagonal, 0 if none",
              f"poplar::Tensor {diag} = {lu}.reshape({{{batches}, {n * n}}}).subSample({n + 1}, 1);",
              f"static const int {data}[] = {{{', '.join(str(i + 1) for i in range(n))}}};",
              f"poplar::Tensor {order} = {g}.addConstant<int>(poplar::INT, {{{n}}}, {data}, {cx.debug(op, 'order')});",
              f"mapLinearly({g}, {order}, 0, 1);",
              f"poplar::Tensor {first} = popops::reduce({g}, popops::map({g}, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_2, pe::Const({n + 1}), "
              f"{_EQUAL_ZERO}), {{{diag}, {order}}}, {prog}, {cx.debug(op, 'info')}), poplar::INT, {{1}}, "
              f"popops::ReduceParams(popops::Operation::MIN), {prog}, {cx.debug(op, 'info')});",
              f"poplar::Tensor {info} = popops::map({g}, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::Const(0), pe::_1, "
              f"pe::BinaryOp(pe::BinaryOpType::EQUAL, pe::_1, pe::Const({n + 1}))), {{{first}}}, {prog}, {cx.debug(op, 'info')});"]
    return lines, lu, piv, info, base


def _solve_lu(cx: Any, op: Any, lu: str, piv: str, base: str, batches: int, n: int, rhs: str, cols: int) -> tuple[list[str], str]:
    """x with A x = rhs from A = P L U (``rhs`` [B, N, K] text): the pivots' row swaps in order
    on a copy of rhs, then L y = P^T rhs (unit diagonal) and U x = y."""
    g, prog = cx.graph(op), cx.prog
    x = cx.fresh("x")
    lines = [f"poplar::Tensor {x} = {g}.addVariable(poplar::FLOAT, {_dims([batches, n, cols])}, {cx.debug(op, 'rhs')});",
             f"mapLinearly({g}, {x}, 0, 1);",
             f"{prog}.add(poplar::program::Copy({rhs}, {x}));",
             "// the pivots' row swaps, in order",
             f"for (unsigned k = 0; k < {n}; ++k) {{",
             f"  poplar::Tensor pivot = popops::map({g}, pe::BinaryOp(pe::BinaryOpType::SUBTRACT, pe::Cast(pe::_1, poplar::INT), pe::Const(1)), "
             f"{{{piv}.slice(k, k + 1, 1).reshape({{{batches}}})}}, {prog}, {cx.debug(op, 'pivot')});",
             *_swap_rows(cx, op, f"{x}.reshape({{{batches * n}, {cols}}})", base, "pivot", "  "),
             "}"]
    y, out = cx.fresh("y"), cx.fresh("x")
    lines += [f"poplar::Tensor {y} = poplin::triangularSolve({g}, {lu}, {x}, true, true, true, {prog}, {cx.debug(op, 'lower')});",
              f"poplar::Tensor {out} = poplin::triangularSolve({g}, {lu}, {y}, true, false, false, {prog}, {cx.debug(op, 'upper')});"]
    return lines, out


@emits("poplar.poplin_lu_factor")
def emit_lu_factor(cx: Any, op: Any) -> list[str]:
    a = op.operands[0]
    lu, pivots, info = op.results
    batch, _, n = _square(cx, op, a)
    lines, lu_t, piv_t, info_t, _ = _factor(cx, op, a)
    return lines + [f"poplar::Tensor {cx.define(lu)} = {lu_t}.reshape({_dims(cx.shape(lu))});",
                    f"poplar::Tensor {cx.define(pivots)} = popops::cast({cx.graph(op)}, {piv_t}, poplar::{cx.ptype(pivots)}, {cx.prog}, "
                    f"{cx.debug(op, 'pivots')}).reshape({_dims(batch + [n])});",
                    f"poplar::Tensor {cx.define(info)} = popops::cast({cx.graph(op)}, {info_t}, poplar::{cx.ptype(info)}, {cx.prog}, "
                    f"{cx.debug(op, 'info')}).reshape({_dims(batch)});"]


def _identity(cx: Any, op: Any, n: int, batches: int) -> tuple[list[str], str]:
    data, eye = cx.fresh("data"), cx.fresh("identity")
    g = cx.graph(op)
    values = ", ".join("1.0f" if i == j else "0.0f" for i in range(n) for j in range(n))
    return [f"static const float {data}[] = {{{values}}};",
            f"poplar::Tensor {eye} = {g}.addConstant<float>(poplar::FLOAT, {{{n}, {n}}}, {data}, {cx.debug(op, 'identity')});",
            f"mapLinearly({g}, {eye}, 0, 1);"], f"{eye}.expand({{0}}).broadcast({batches}, 0)"


@emits("poplar.poplin_inverse")
def emit_inverse(cx: Any, op: Any) -> list[str]:
    a = op.operands[0]
    inverse, info = op.results
    batch, batches, n = _square(cx, op, a)
    lines, lu, piv, info_t, base = _factor(cx, op, a)
    eye_lines, eye = _identity(cx, op, n, batches)
    solve_lines, x = _solve_lu(cx, op, lu, piv, base, batches, n, eye, n)
    return lines + eye_lines + solve_lines + [
        f"poplar::Tensor {cx.define(inverse)} = {x}.reshape({_dims(cx.shape(inverse))});",
        f"poplar::Tensor {cx.define(info)} = popops::cast({cx.graph(op)}, {info_t}, poplar::{cx.ptype(info)}, {cx.prog}, "
        f"{cx.debug(op, 'info')}).reshape({_dims(batch)});"]


@emits("poplar.poplin_solve")
def emit_solve(cx: Any, op: Any) -> list[str]:
    a, b = op.operands
    result, lu, pivots, info = op.results
    if not cx.attr(op, "left"):
        raise CodegenError(f"{cx.where(op)}: a right-side solve (x a = b) has no emission yet; solve a^T x^T = b^T")
    batch, batches, n = _square(cx, op, a)
    b_shape, out_shape = cx.shape(b), cx.shape(result)
    vector = len(b_shape) == 1 or b_shape == cx.shape(a)[:-1]
    if (b_shape[:-1] if vector else b_shape[:-2]) != batch and len(b_shape) != 1:
        raise CodegenError(f"{cx.where(op)}: a right-hand side whose batch dims differ from the matrix's has no emission yet")
    k = 1 if vector else b_shape[-1]
    rhs = broadcast_view(cx.name(b) + (".expand({%d})" % len(b_shape) if vector else ""), b_shape + ([1] if vector else []),
                         batch + [n, k])
    lines, lu_t, piv_t, info_t, base = _factor(cx, op, a)
    solve_lines, x = _solve_lu(cx, op, lu_t, piv_t, base, batches, n, f"{rhs}.reshape({_dims([batches, n, k])})", k)
    g, prog = cx.graph(op), cx.prog
    return lines + solve_lines + [
        f"poplar::Tensor {cx.define(result)} = {x}.reshape({_dims(out_shape)});",
        f"poplar::Tensor {cx.define(lu)} = {lu_t}.reshape({_dims(cx.shape(lu))});",
        f"poplar::Tensor {cx.define(pivots)} = popops::cast({g}, {piv_t}, poplar::{cx.ptype(pivots)}, {prog}, {cx.debug(op, 'pivots')})"
        f".reshape({_dims(cx.shape(pivots))});",
        f"poplar::Tensor {cx.define(info)} = popops::cast({g}, {info_t}, poplar::{cx.ptype(info)}, {prog}, {cx.debug(op, 'info')})"
        f".reshape({_dims(cx.shape(info))});"]


def _permutation_sign(cx: Any, op: Any, piv: str, batches: int, n: int) -> tuple[list[str], str]:
    """A [B] FLOAT of +1 / -1: -1 when an odd number of pivots swapped a row."""
    data, order, swaps = cx.fresh("data"), cx.fresh("order"), cx.fresh("swaps")
    g, prog = cx.graph(op), cx.prog
    odd = "pe::BinaryOp(pe::BinaryOpType::EQUAL, pe::BinaryOp(pe::BinaryOpType::REMAINDER, pe::_1, pe::Const(2)), pe::Const(1))"
    return [f"static const int {data}[] = {{{', '.join(str(i + 1) for i in range(n))}}};",
            f"poplar::Tensor {order} = {g}.addConstant<int>(poplar::INT, {{{n}}}, {data}, {cx.debug(op, 'order')});",
            f"mapLinearly({g}, {order}, 0, 1);",
            f"poplar::Tensor {swaps} = popops::map({g}, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::Const(-1.0f), pe::Const(1.0f), {odd}), "
            f"{{popops::reduce({g}, popops::map({g}, pe::Cast(pe::BinaryOp(pe::BinaryOpType::NOT_EQUAL, pe::_1, pe::_2), poplar::INT), "
            f"{{{piv}, {order}.expand({{0}}).broadcast({batches}, 0)}}, {prog}, {cx.debug(op, 'sign')}), poplar::INT, {{1}}, "
            f"popops::ReduceParams(popops::Operation::ADD), {prog}, {cx.debug(op, 'sign')})}}, {prog}, {cx.debug(op, 'sign')});"], swaps


@emits("poplar.poplin_determinant")
def emit_determinant(cx: Any, op: Any) -> list[str]:
    """The product of U's diagonal, negated for an odd permutation."""
    a = op.operands[0]
    det, lu, pivots = op.results
    batch, batches, n = _square(cx, op, a)
    lines, lu_t, piv_t, _, _ = _factor(cx, op, a)
    sign_lines, sign = _permutation_sign(cx, op, piv_t, batches, n)
    g, prog = cx.graph(op), cx.prog
    return lines + sign_lines + [
        f"poplar::Tensor {cx.define(det)} = popops::mul({g}, popops::reduce({g}, {lu_t}.reshape({{{batches}, {n * n}}}).subSample({n + 1}, 1), "
        f"poplar::FLOAT, {{1}}, popops::ReduceParams(popops::Operation::MUL), {prog}, {cx.debug(op, 'det')}), {sign}, {prog}, "
        f"{cx.debug(op, 'det')}).reshape({_dims(batch)});",
        f"poplar::Tensor {cx.define(lu)} = {lu_t}.reshape({_dims(cx.shape(lu))});",
        f"poplar::Tensor {cx.define(pivots)} = popops::cast({g}, {piv_t}, poplar::{cx.ptype(pivots)}, {prog}, {cx.debug(op, 'pivots')})"
        f".reshape({_dims(cx.shape(pivots))});"]


@emits("poplar.poplin_lu_solve")
def emit_lu_solve(cx: Any, op: Any) -> list[str]:
    lu, pivots, b = op.operands
    if not cx.attr(op, "left") or cx.attr(op, "adjoint"):
        raise CodegenError(f"{cx.where(op)}: only a left, non-adjoint LU solve (A x = b) has an emission yet")
    batch, batches, n = _square(cx, op, lu)
    if cx.shape(b)[:-2] != batch:
        raise CodegenError(f"{cx.where(op)}: a right-hand side whose batch dims differ from the factor's has no emission yet")
    cols = cx.shape(b)[-1]
    g, prog = cx.graph(op), cx.prog
    lines, base = _row_base(cx, op, batches, n)
    piv, factor = cx.fresh("pivots"), cx.fresh("lu")
    lines += [f"poplar::Tensor {factor} = {cx.name(lu)}.reshape({_dims([batches, n, n])});",
              f"poplar::Tensor {piv} = popops::cast({g}, {cx.name(pivots)}.reshape({_dims([batches, n])}), poplar::INT, {prog}, {cx.debug(op, 'pivots')});"]
    solve_lines, x = _solve_lu(cx, op, factor, piv, base, batches, n, f"{cx.name(b)}.reshape({_dims([batches, n, cols])})", cols)
    return lines + solve_lines + [f"poplar::Tensor {cx.define(op.results[0])} = {x}.reshape({_dims(cx.shape(op.results[0]))});"]


@emits("poplar.poplin_sign_log_determinant")
def emit_sign_log_determinant(cx: Any, op: Any) -> list[str]:
    """As torch: the sign is the product of the signs of U's diagonal and the permutation's
    sign, ``logabsdet`` the sum of the logs of the diagonal's absolute values."""
    a = op.operands[0]
    sign, logabsdet, lu, pivots = op.results
    batch, batches, n = _square(cx, op, a)
    lines, lu_t, piv_t, _, _ = _factor(cx, op, a)
    perm_lines, perm = _permutation_sign(cx, op, piv_t, batches, n)
    g, prog = cx.graph(op), cx.prog
    diag = f"{lu_t}.reshape({{{batches}, {n * n}}}).subSample({n + 1}, 1)"
    signs = f"popops::map({g}, pe::UnaryOp(pe::UnaryOpType::SIGNUM, pe::_1), {{{diag}}}, {prog}, {cx.debug(op, 'sign')})"
    logs = f"popops::map({g}, pe::UnaryOp(pe::UnaryOpType::LOGARITHM, pe::UnaryOp(pe::UnaryOpType::ABSOLUTE, pe::_1)), {{{diag}}}, {prog}, {cx.debug(op, 'log')})"
    return lines + perm_lines + [
        f"poplar::Tensor {cx.define(sign)} = popops::mul({g}, popops::reduce({g}, {signs}, poplar::FLOAT, {{1}}, "
        f"popops::ReduceParams(popops::Operation::MUL), {prog}, {cx.debug(op, 'sign')}), {perm}, {prog}, {cx.debug(op, 'sign')})"
        f".reshape({_dims(batch)});",
        f"poplar::Tensor {cx.define(logabsdet)} = popops::reduce({g}, {logs}, poplar::FLOAT, {{1}}, popops::ReduceParams(popops::Operation::ADD), "
        f"{prog}, {cx.debug(op, 'log')}).reshape({_dims(batch)});",
        f"poplar::Tensor {cx.define(lu)} = {lu_t}.reshape({_dims(cx.shape(lu))});",
        f"poplar::Tensor {cx.define(pivots)} = popops::cast({g}, {piv_t}, poplar::{cx.ptype(pivots)}, {prog}, {cx.debug(op, 'pivots')})"
        f".reshape({_dims(cx.shape(pivots))});"]


def _mask(cx: Any, op: Any, n: int, keep: Any, stem: str) -> tuple[list[str], str]:
    data, mask = cx.fresh("data"), cx.fresh(stem)
    g = cx.graph(op)
    values = ", ".join("true" if keep(i, j) else "false" for i in range(n) for j in range(n))
    return [f"static const bool {data}[] = {{{values}}};",
            f"poplar::Tensor {mask} = {g}.addConstant<bool>(poplar::BOOL, {{{n}, {n}}}, {data}, {cx.debug(op, stem)});",
            f"mapLinearly({g}, {mask}, 0, 1);"], mask


@emits("poplar.poplin_lu_unpack")
def emit_lu_unpack(cx: Any, op: Any) -> list[str]:
    """``l`` and ``u`` select the packed factor's triangles (L's diagonal ones); ``p`` is the
    identity with the pivots' row swaps applied in order, transposed (a = p l u)."""
    lu, pivots = op.operands
    p, l_factor, u = op.results
    batch, batches, n = _square(cx, op, lu)
    g, prog = cx.graph(op), cx.prog
    lines: list[str] = []
    full = batch + [n, n]
    if cx.attr(op, "unpack_data"):
        lower_lines, lower = _mask(cx, op, n, lambda i, j: i > j, "strictlyLower")
        eye_lines, eye = _mask(cx, op, n, lambda i, j: i == j, "diagonal")
        upper_lines, upper = _mask(cx, op, n, lambda i, j: i <= j, "upper")
        view = lambda mask: broadcast_view(mask, [n, n], full)  # noqa: E731
        lines += lower_lines + eye_lines + upper_lines + [
            f"poplar::Tensor {cx.define(l_factor)} = popops::map({g}, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_1, "
            f"pe::TernaryOp(pe::TernaryOpType::SELECT, pe::Const(1.0f), pe::Const(0.0f), pe::_3), pe::_2), "
            f"{{{cx.name(lu)}, {view(lower)}, {view(eye)}}}, {prog}, {cx.debug(op, 'l')});",
            f"poplar::Tensor {cx.define(u)} = popops::map({g}, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_1, pe::Const(0.0f), pe::_2), "
            f"{{{cx.name(lu)}, {view(upper)}}}, {prog}, {cx.debug(op, 'u')});"]
    else:
        for value in (l_factor, u):
            lines.append(f"poplar::Tensor {cx.define(value)} = {g}.addVariable(poplar::{cx.ptype(value)}, {_dims(cx.shape(value))}, "
                         f"{cx.debug(op, 'empty')});  // not unpacked")
    if cx.attr(op, "unpack_pivots"):
        base_lines, base = _row_base(cx, op, batches, n)
        eye_lines, eye = _identity(cx, op, n, batches)
        rows, piv = cx.fresh("permuted"), cx.fresh("pivots")
        lines += base_lines + eye_lines + [
            f"poplar::Tensor {rows} = {g}.addVariable(poplar::FLOAT, {_dims([batches, n, n])}, {cx.debug(op, 'p')});",
            f"mapLinearly({g}, {rows}, 0, 1);",
            f"{prog}.add(poplar::program::Copy({eye}, {rows}));",
            f"poplar::Tensor {piv} = popops::cast({g}, {cx.name(pivots)}.reshape({_dims([batches, n])}), poplar::INT, {prog}, {cx.debug(op, 'pivots')});",
            "// the identity's rows swapped by the pivots in order is p^T",
            f"for (unsigned k = 0; k < {n}; ++k) {{",
            f"  poplar::Tensor pivot = popops::map({g}, pe::BinaryOp(pe::BinaryOpType::SUBTRACT, pe::Cast(pe::_1, poplar::INT), pe::Const(1)), "
            f"{{{piv}.slice(k, k + 1, 1).reshape({{{batches}}})}}, {prog}, {cx.debug(op, 'pivot')});",
            *_swap_rows(cx, op, f"{rows}.reshape({{{batches * n}, {n}}})", base, "pivot", "  "),
            "}",
            f"poplar::Tensor {cx.define(p)} = {rows}.dimShuffle({{0, 2, 1}}).reshape({_dims(cx.shape(p))});"]
    else:
        lines.append(f"poplar::Tensor {cx.define(p)} = {g}.addVariable(poplar::{cx.ptype(p)}, {_dims(cx.shape(p))}, {cx.debug(op, 'empty')});"
                     "  // not unpacked")
    return lines

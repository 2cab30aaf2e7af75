"""The C++ of ``popops_scatter`` (``torch.scatter`` / ``scatter_add`` / ``scatter_reduce``):
``popops::multiUpdate`` / ``multiUpdateAdd`` / ``multiUpdateMax`` of single elements of a
copy of the input, flattened, at computed flat offsets (as ``popops_gather`` reads them with
``multiSlice``). Registered in ``compute.EMITTERS``."""

from __future__ import annotations

import math
from typing import Any

from .compute import _dims, emits
from .errors import CodegenError

_NEGATE = "pe::UnaryOp(pe::UnaryOpType::NEGATE, pe::_1)"


def flat_offsets(cx: Any, op: Any, indices: Any, shape: list[int], dim: int) -> tuple[list[str], str]:
    """The lines computing ``[N][1]`` UNSIGNED_INT offsets into ``shape`` flattened: each
    index times the stride of ``dim`` plus the (constant) offset of its other coordinates."""
    ishape = cx.shape(indices)
    strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]
    base = []
    for flat in range(math.prod(ishape)):
        offset, rest = 0, flat
        for d in range(len(ishape) - 1, -1, -1):
            coord, rest = rest % ishape[d], rest // ishape[d]
            offset += 0 if d == dim else coord * strides[d]
        base.append(offset)
    g, data, const, offsets = cx.graph(op), cx.fresh("data"), cx.fresh("base"), cx.fresh("offsets")
    index = f"pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::Cast(pe::_1, poplar::INT), pe::Const({strides[dim]}))"
    return [f"static const int {data}[] = {{{', '.join(map(str, base))}}};",
            f"poplar::Tensor {const} = {g}.addConstant<int>(poplar::INT, {{{len(base)}}}, {data}, {cx.debug(op, 'base')});",
            f"mapLinearly({g}, {const}, 0, 1);",
            f"poplar::Tensor {offsets} = popops::cast({g}, popops::map({g}, pe::BinaryOp(pe::BinaryOpType::ADD, {index}, pe::_2), "
            f"{{{cx.name(indices)}.flatten(), {const}}}, {cx.prog}, {cx.debug(op, 'offsets')}), poplar::UNSIGNED_INT, {cx.prog}, "
            f"{cx.debug(op, 'offsets')}).expand({{1}});"], offsets


@emits("poplar.popops_scatter")
def emit_scatter(cx: Any, op: Any) -> list[str]:
    """copy: ``multiUpdate`` (of several updates to one element the last one stays); add:
    ``multiUpdateAdd`` with scale 1; max: ``multiUpdateMax``; min: ``multiUpdateMax`` of the
    negated copy and updates, negated back (PopLibs has no minimum update). Without the
    input's own elements (include_self false) the targets are first overwritten by the
    identity (0 for add) or by the updates themselves (max, min). mul is refused."""
    x, indices, updates = op.operands
    dim, kind, include_self = cx.attr(op, "dim"), cx.attr(op, "op"), cx.attr(op, "include_self")
    shape, ptype = cx.shape(x), cx.ptype(x)
    if kind == "mul":
        raise CodegenError(f"{cx.where(op)}: a multiplying scatter (scatter_reduce 'prod') has no emission: PopLibs has no "
                           "multiplying multiUpdate; use 'sum', 'amax' or 'amin', or compute it on the host")
    if kind == "min" and ptype not in ("FLOAT", "HALF", "INT", "LONGLONG"):
        raise CodegenError(f"{cx.where(op)}: a minimum scatter of {ptype} elements has no emission (it is emitted as a "
                           "maximum of negated values, which needs a signed type)")
    g, prog = cx.graph(op), cx.prog
    count = math.prod(cx.shape(indices))
    lines, offsets = flat_offsets(cx, op, indices, shape, dim)
    out, flat, rows = cx.define(op.results[0]), cx.fresh("flat"), cx.fresh("updates")
    lines += [f"poplar::Tensor {out} = {g}.addVariable(poplar::{ptype}, {_dims(shape)}, {cx.debug(op)});",
              f"mapLinearly({g}, {out}, 0, 1);",
              f"{prog}.add(poplar::program::Copy({cx.name(x)}, {out}));",
              f"poplar::Tensor {flat} = {out}.flatten();",
              f"poplar::Tensor {rows} = {cx.name(updates)}.flatten().reshape({{{count}, 1}});"]
    args = f"{{0}}, {{1}}, {prog}, popops::SlicePlan(), poplar::OptionFlags(), {cx.debug(op)}"
    if kind == "copy":
        return lines + [f"popops::multiUpdate({g}, {flat}, {rows}, {offsets}, {args});"]
    if kind == "add":
        scale = cx.fresh("scale")
        lines += [f"poplar::Tensor {scale} = {g}.addConstant<float>(poplar::FLOAT, {{}}, 1.0f, {cx.debug(op, 'scale')});",
                  f"mapLinearly({g}, {scale}, 0, 1);"]
        if not include_self:
            zeros = cx.fresh("zeros")
            ctype = {"FLOAT": "float", "INT": "int", "LONGLONG": "long long", "UNSIGNED_INT": "unsigned"}.get(ptype)
            if ctype is None:
                raise CodegenError(f"{cx.where(op)}: an add scatter without the input's elements of {ptype} elements has no emission")
            lines += ["// include_self = false: the targeted elements start from zero",
                      f"poplar::Tensor {zeros} = {g}.addConstant<{ctype}>(poplar::{ptype}, {{{count}, 1}}, static_cast<{ctype}>(0), {cx.debug(op, 'zeros')});",
                      f"mapLinearly({g}, {zeros}, 0, 1);",
                      f"popops::multiUpdate({g}, {flat}, {zeros}, {offsets}, {args});"]
        return lines + [f"popops::multiUpdateAdd({g}, {flat}, {rows}, {offsets}, {scale}, {args});"]
    if not include_self:
        lines += ["// include_self = false: the targeted elements start from one of their updates",
                  f"popops::multiUpdate({g}, {flat}, {rows}, {offsets}, {args});"]
    if kind == "max":
        return lines + [f"popops::multiUpdateMax({g}, {flat}, {rows}, {offsets}, {args});"]
    negated = cx.fresh("negated")
    return lines + ["// min(a, u) = -max(-a, -u): PopLibs has no minimum update",
                    f"popops::mapInPlace({g}, {_NEGATE}, {{{flat}}}, {prog}, {cx.debug(op, 'negate')});",
                    f"poplar::Tensor {negated} = popops::map({g}, {_NEGATE}, {{{rows}}}, {prog}, {cx.debug(op, 'negate')});",
                    f"popops::multiUpdateMax({g}, {flat}, {negated}, {offsets}, {args});",
                    f"popops::mapInPlace({g}, {_NEGATE}, {{{flat}}}, {prog}, {cx.debug(op, 'negate')});"]

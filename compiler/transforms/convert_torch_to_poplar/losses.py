"""Loss lowerings: NLL, cross-entropy and MSE losses (their gradients are in
``backward.py``)."""

from __future__ import annotations

import math
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import i64, string
from ipu_mlir.support.registry import Registry

from ...lowering import (
    LOSS_REDUCTIONS,
    Lowering,
    Pattern,
    Unsupported,
    element_of,
    is_float,
    result_type,
    shape_of,
)
from ...torch_ir import is_none


def _refuse_class_weights(op: ir.Operation, what: str) -> None:
    if not is_none(op.operands[2]):
        raise Unsupported(f"{what} with class weights")


def _nll_loss(lw: Lowering, op: ir.Operation, log_probs: ir.Value, target: ir.Value) -> ir.Value:
    """``popnn_nll_loss`` with the op's reduction and ignore_index (operands 3 and 4)."""
    reduction = LOSS_REDUCTIONS[lw.const(op.operands[3], "reduction")]
    ignore = lw.const(op.operands[4], "ignore_index")
    return lw.emit(pd.NllLossOp, log_probs, target, string(reduction), i64(ignore), result_type(op, 0))


def lower_nll_loss(lw: Lowering, op: ir.Operation) -> list[Any]:
    _refuse_class_weights(op, "nll_loss")
    loss = _nll_loss(lw, op, lw.v(op.operands[0]), lw.v(op.operands[1]))
    return [loss, None]  # total_weight: popnn_nll_loss_grad recomputes it


def lower_nll_loss_nd(lw: Lowering, op: ir.Operation) -> list[Any]:
    _refuse_class_weights(op, "nll_loss")
    x = lw.v(op.operands[0])
    if len(shape_of(x)) > 2:
        raise Unsupported("nll_loss over more than one batch dimension")
    return [_nll_loss(lw, op, x, lw.v(op.operands[1]))]


def lower_cross_entropy(lw: Lowering, op: ir.Operation) -> list[Any]:
    """cross_entropy = nll_loss(log_softmax(x, class dim)) (no class weights or label smoothing)."""
    _refuse_class_weights(op, "cross_entropy")
    if len(op.operands) > 5 and lw.const(op.operands[5], "label_smoothing"):
        raise Unsupported("cross_entropy with label smoothing")
    x = lw.v(op.operands[0])
    if len(shape_of(x)) > 2:
        raise Unsupported("cross_entropy over more than one batch dimension")
    target = lw.v(op.operands[1])
    if is_float(element_of(target)):
        raise Unsupported("cross_entropy with class probabilities as the target")
    log_probs = lw.emit(pd.NonLinearityOp, x, string("log_softmax"), i64(len(shape_of(x)) - 1), x.type)
    return [_nll_loss(lw, op, log_probs, target)]


def lower_mse_loss(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x, y = lw.v(op.operands[0]), lw.v(op.operands[1])
    reduction = LOSS_REDUCTIONS[lw.const(op.operands[2], "reduction")]
    squared = lw.map("square(sub(_1, _2))", [x, lw.cast(y, element_of(x))], x.type)
    if reduction == "none":
        return [squared]
    count = math.prod(shape_of(x)) or 1
    return [lw.reduce(squared, "add", list(range(len(shape_of(x)))), False, 1.0 / count if reduction == "mean" else 1.0, out)]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: nLL, cross-entropy and MSE losses."""
    patterns.register("torch.aten.nll_loss_forward")(lower_nll_loss)
    patterns.register("torch.aten.nll_loss_nd", "torch.aten.nll_loss", "torch.aten.nll_loss2d")(lower_nll_loss_nd)
    patterns.register("torch.aten.cross_entropy_loss")(lower_cross_entropy)
    patterns.register("torch.aten.mse_loss")(lower_mse_loss)

"""Loss lowerings: the NLL and MSE losses (their gradients are in ``backward.py``;
cross-entropy is torch's decomposition into log_softmax and the NLL loss)."""

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
    element_of,
    result_type,
    shape_of,
)
from ...torch_ir import is_none


def class_weights(lw: Lowering, operand: ir.Value, log_probs: ir.Value) -> list[ir.Value]:
    """The NLL ops' optional ``weight`` group: none, or the class weights in the
    log-probabilities' element type."""
    return [] if is_none(operand) else [lw.cast(lw.v(operand), element_of(log_probs))]


def lower_nll_loss(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``nll_loss_forward(log_probs, target, weight, reduction, ignore_index)``: one
    ``popnn_nll_loss``. nll_loss_nd and cross_entropy_loss have no lowering of their own:
    torch decomposes them into log_softmax, this op (or nll_loss2d_forward's gathers) and,
    for class probabilities or label smoothing, sums of products, as eager computes them."""
    log_probs = lw.v(op.operands[0])
    reduction = LOSS_REDUCTIONS[lw.const(op.operands[3], "reduction")]
    ignore = lw.const(op.operands[4], "ignore_index")
    weight = class_weights(lw, op.operands[2], log_probs)
    loss = lw.emit(pd.NllLossOp, log_probs, lw.v(op.operands[1]), weight, string(reduction), i64(ignore), result_type(op, 0))
    return [loss, None]  # total_weight: popnn_nll_loss_grad recomputes it


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
    """Register the lowerings of this family: the NLL and MSE losses."""
    patterns.register("torch.aten.nll_loss_forward")(lower_nll_loss)
    patterns.register("torch.aten.mse_loss")(lower_mse_loss)

"""Random-op lowerings: dropout draws a ``poplar.poprand_dropout`` mask in training
programs and is the identity in inference."""

from __future__ import annotations

from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import f64, tensor_type
from ipu_mlir.support.registry import Registry

from ...lowering import (
    Lowering,
    Pattern,
    result_type,
)


def lower_native_dropout(lw: Lowering, op: ir.Operation) -> list[Any]:
    """Dropout draws a mask in training programs; in inference it is the identity (mask all true)."""
    x = lw.v(op.operands[0])
    p = lw.const(op.operands[1], "p")
    train = lw.const(op.operands[2], "train")
    mask = result_type(op, 1)
    if lw.training and train and p > 0:
        dropout = lw.emit(pd.DropoutOp, x, f64(p), x.type, tensor_type(mask.shape, ir.IntegerType.get_signless(1)))
        y, keep = list(dropout.operation.results)
        return [y, keep]
    return [x, lw.zeros_or_ones(True, mask.shape, mask.element_type)]


def lower_dropout(lw: Lowering, op: ir.Operation) -> list[Any]:
    """Dropout is the identity in inference (SEMANTICS: "dropout (identity in
    inference)"); training programs replace it before this pass runs."""
    return [lw.v(op.operands[0])]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: dropout."""
    patterns.register("torch.aten.native_dropout")(lower_native_dropout)
    patterns.register("torch.aten.dropout", "torch.aten.feature_dropout")(lower_dropout)

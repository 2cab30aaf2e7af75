"""Linear-algebra lowerings: matmul, linear, addmm, convolution and scaled dot-product
attention (its math decomposition), on ``poplar.poplin_*`` ops."""

from __future__ import annotations

import math
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import i64, i64_array, string, tensor_type
from ipu_mlir.support.registry import Registry

from ...lowering import (
    Lowering,
    Pattern,
    Unsupported,
    base_name,
    element_of,
    literal,
    result_type,
    shape_of,
    spatial_list,
)


def lower_matmul(lw: Lowering, op: ir.Operation) -> list[Any]:
    return [lw.matmul(lw.v(op.operands[0]), lw.v(op.operands[1]), result_type(op))]


def lower_linear(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x, w = lw.v(op.operands[0]), lw.v(op.operands[1])
    bias = lw.maybe_tensor(op.operands[2]) if len(op.operands) > 2 else None
    y = lw.matmul(x, lw.transpose_last(w), out)
    if bias is not None:
        y = lw.binary(pd.AddOp, y, bias, out)
    return [y]


def lower_addmm(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    beta = lw.const(op.operands[3], "beta") if len(op.operands) > 3 else 1
    alpha = lw.const(op.operands[4], "alpha") if len(op.operands) > 4 else 1
    product = lw.matmul(lw.v(op.operands[1]), lw.v(op.operands[2]), out)
    bias = lw.v(op.operands[0])
    if beta == 1 and alpha == 1:
        return [lw.binary(pd.AddOp, product, bias, out)]
    return [lw.map(f"add(mul(_1, {literal(float(alpha))}), mul(_2, {literal(float(beta))}))", [product, lw.cast(bias, out.element_type)], out)]


def lower_conv(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x, w = lw.v(op.operands[0]), lw.v(op.operands[1])
    bias = lw.maybe_tensor(op.operands[2])
    spatial = len(shape_of(x)) - 2
    stride, padding, dilation = (spatial_list(lw.const(op.operands[i], what), spatial) for i, what in ((3, "stride"), (4, "padding"), (5, "dilation")))
    if base_name(op.name) in ("torch.aten.convolution", "torch.aten._convolution"):
        transposed = lw.const(op.operands[6], "transposed")
        if transposed:
            raise Unsupported("transposed convolution")
        groups = lw.const(op.operands[8], "groups")
    else:
        if isinstance(padding, str) or isinstance(lw.const(op.operands[4], "padding"), str):
            raise Unsupported("string padding ('same'/'valid'); give explicit padding")
        groups = lw.const(op.operands[6], "groups")
    bias_list = [bias] if bias is not None else []
    return [lw.emit(pd.ConvOp, x, w, bias_list, i64_array(stride), i64_array(padding), i64_array(dilation), i64(groups), out)]


def lower_sdpa(lw: Lowering, op: ir.Operation) -> list[Any]:
    """The math decomposition: softmax(q k^T * scale + mask) v."""
    out = result_type(op)
    q, k, v = (lw.v(op.operands[i]) for i in range(3))
    mask = lw.maybe_tensor(op.operands[3]) if len(op.operands) > 3 else None
    dropout = lw.const(op.operands[4], "dropout_p") if len(op.operands) > 4 else 0.0
    causal = lw.const(op.operands[5], "is_causal") if len(op.operands) > 5 else False
    scale = lw.const(op.operands[6], "scale") if len(op.operands) > 6 else None
    if dropout:
        raise Unsupported("attention dropout (dropout_p > 0) in inference")
    qs, ks = shape_of(q), shape_of(k)
    element = out.element_type
    scale = scale if scale is not None else 1.0 / math.sqrt(qs[-1])
    scores_shape = qs[:-1] + [ks[-2]]
    scores_type = tensor_type(scores_shape, element)
    scores = lw.matmul(q, lw.transpose_last(k), scores_type)
    scores = lw.map(f"mul(_1, {literal(float(scale))})", [scores], scores_type)
    if causal:
        import numpy as np  # local: numpy is a dependency, only needed here

        keep = np.tril(np.ones((qs[-2], ks[-2]), dtype=bool))
        mask_type = tensor_type([qs[-2], ks[-2]], ir.IntegerType.get_signless(1))
        causal_mask = lw.emit(pd.ConstantOp, ir.DenseElementsAttr.get(keep, type=mask_type), i64(0), mask_type)
        scores = lw.map("select(_2, _1, -inf)", [scores, causal_mask], scores_type)
    if mask is not None:
        if isinstance(element_of(mask), ir.IntegerType) and ir.IntegerType(element_of(mask)).width == 1:
            scores = lw.map("select(_2, _1, -inf)", [scores, mask], scores_type)
        else:
            scores = lw.map("add(_1, _2)", [scores, lw.cast(mask, element)], scores_type)
    probs = lw.emit(pd.NonLinearityOp, scores, string("softmax"), i64(len(scores_shape) - 1), scores_type)
    return [lw.matmul(probs, v, out)]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: matmuls, linear layers, convolutions and attention."""
    patterns.register("torch.aten.matmul", "torch.aten.mm", "torch.aten.bmm")(lower_matmul)
    patterns.register("torch.aten.linear")(lower_linear)
    patterns.register("torch.aten.addmm")(lower_addmm)
    patterns.register("torch.aten.conv1d", "torch.aten.conv2d", "torch.aten.conv3d", "torch.aten.convolution", "torch.aten._convolution")(lower_conv)
    patterns.register("torch.aten.scaled_dot_product_attention")(lower_sdpa)

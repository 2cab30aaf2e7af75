"""Linear-algebra lowerings: matmul, linear, addmm / addmv / addbmm / baddbmm, the
trilinear product of ``nn.Bilinear``, convolution (ordinary, transposed, "same" padding)
with its gradients, and scaled dot-product attention (its math decomposition), on
``poplar.poplin_*`` ops."""

from __future__ import annotations

import math
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import f64, i64, i64_array, string, tensor_type
from ipu_mlir.support.registry import Registry

from ... import torch_ir
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


def _beta_alpha(lw: Lowering, op: ir.Operation) -> tuple[Any, Any]:
    beta = lw.const(op.operands[3], "beta") if len(op.operands) > 3 else 1
    alpha = lw.const(op.operands[4], "alpha") if len(op.operands) > 4 else 1
    return beta, alpha


def lower_addmm(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``addmm`` / ``addmv`` / ``baddbmm``: beta * self + alpha * (a @ b), one
    ``poplin_matmul_acc`` (``poplin::matMulAcc``), as eager makes one BLAS call. A linear
    layer's addmm (a bias vector, unit scales, ``b`` a transposed weight) stays a matmul
    and an add, which ``poplar-fuse-linear`` makes one ``poplin_linear`` (eager's
    ``addmm(bias, x, w.t())``); an addmm by an untransposed matrix, as Hugging Face's
    ``Conv1D`` writes its layers, stays one ``poplin_matmul_acc``: eager's call, whose
    bias is in the accumulator before the product's partial sums."""
    out = result_type(op)
    element = out.element_type
    beta, alpha = _beta_alpha(lw, op)
    bias, a, b = (lw.cast(lw.v(op.operands[i]), element) for i in range(3))
    if (torch_ir.aten_name(op).startswith("torch.aten.addmm") and len(shape_of(bias)) == 1 and beta == 1 and alpha == 1
            and _is_transpose(b)):
        return [lw.binary(pd.AddOp, lw.matmul(a, b, out), bias, out)]
    return [lw.emit(pd.MatMulAccOp, bias, a, b, f64(float(alpha)), f64(float(beta)), out)]


def _is_transpose(value: Any) -> bool:
    """Whether a lowered value is ``dim_shuffle<1, 0>`` of a matrix (a linear layer's ``w.t()``)."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return False
    owner = owner.operation if hasattr(owner, "operation") else owner
    return owner.name == "poplar.dim_shuffle" and list(ir.DenseI64ArrayAttr(owner.attributes["permutation"])) == [1, 0]


def lower_addbmm(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``addbmm``: beta * self + alpha * sum_b(b1[b] @ b2[b]), as ATen computes it: one
    ``poplin_matmul_acc`` per batch entry, in order, the first with beta * self."""
    out = result_type(op)
    element = out.element_type
    beta, alpha = _beta_alpha(lw, op)
    bias, a, b = (lw.cast(lw.v(op.operands[i]), element) for i in range(3))
    (batch, n, k), m = shape_of(a), shape_of(b)[2]
    result = lw.broadcast(bias, [n, m])
    if batch == 0:  # no products: beta * self
        return [lw.map(f"mul(_1, {literal(float(beta))})", [result], out) if beta else lw.zeros_or_ones(0.0, [n, m], element)]
    for index in range(batch):
        a_b = lw.reshape(lw.emit(pd.SliceOp, a, i64_array([index, 0, 0]), i64_array([index + 1, n, k]), i64_array([1, 1, 1]),
                                 tensor_type([1, n, k], element)), [n, k])
        b_b = lw.reshape(lw.emit(pd.SliceOp, b, i64_array([index, 0, 0]), i64_array([index + 1, k, m]), i64_array([1, 1, 1]),
                                 tensor_type([1, k, m], element)), [k, m])
        result = lw.emit(pd.MatMulAccOp, result, a_b, b_b, f64(float(alpha)), f64(float(beta) if index == 0 else 1.0), out)
    return [result]


def _sum_product(lw: Lowering, a: ir.Value, b: ir.Value, sum_dims: set[int], element: ir.Type) -> ir.Value:
    """ATen's ``sumproduct_pair``: ``(a * b).sum(sum_dims, keepdim=True)`` for ``a`` and ``b``
    of one rank (size-1 dims broadcast), as one batched matmul ``[B, L, S] x [B, S, R]``."""
    sa, sb = shape_of(a), shape_of(b)
    rank = len(sa)
    for d in sorted(sum_dims):  # a summed dim only one side has is summed on that side first
        if sa[d] > 1 and sb[d] == 1:
            sa[d] = 1
            a = lw.reduce(a, "add", [d], True, 1.0, tensor_type(sa, element))
        elif sb[d] > 1 and sa[d] == 1:
            sb[d] = 1
            b = lw.reduce(b, "add", [d], True, 1.0, tensor_type(sb, element))
    batch = [d for d in range(rank) if d not in sum_dims and sa[d] > 1 and sb[d] > 1]
    left = [d for d in range(rank) if d not in sum_dims and sa[d] > 1 and sb[d] == 1]
    right = [d for d in range(rank) if d not in sum_dims and sb[d] > 1 and sa[d] == 1]
    summed = [d for d in range(rank) if d in sum_dims and sa[d] > 1]
    ones_a = [d for d in range(rank) if d not in batch + left + summed]
    ones_b = [d for d in range(rank) if d not in batch + summed + right]
    size = lambda shape, dims: math.prod(shape[d] for d in dims)  # noqa: E731
    nb, nl, ns, nr = size(sa, batch), size(sa, left), size(sa, summed), size(sb, right)
    a3 = lw.reshape(lw.dim_shuffle(a, batch + left + summed + ones_a), [nb, nl, ns])
    b3 = lw.reshape(lw.dim_shuffle(b, batch + summed + right + ones_b), [nb, ns, nr])
    product = lw.emit(pd.MatMulOp, a3, b3, tensor_type([nb, nl, nr], element))
    # Back to the operands' dim order, every summed or absent dim kept as size 1.
    order = batch + left + right
    out_shape = [sa[d] if d in batch + left else sb[d] if d in right else 1 for d in range(rank)]
    grouped = lw.reshape(product, [out_shape[d] for d in order] + [1] * (rank - len(order)))
    rest = [d for d in range(rank) if d not in order]
    placed = order + rest
    return lw.dim_shuffle(grouped, [placed.index(d) for d in range(rank)])


def lower_trilinear(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_trilinear`` (``nn.Bilinear`` and its gradients): the three operands unsqueezed at
    their ``expand`` dims, multiplied and summed over ``sumdim``, as two sum-products."""
    out = result_type(op)
    element = out.element_type
    inputs = [lw.cast(lw.v(op.operands[i]), element) for i in range(3)]
    expands = [set(lw.const(op.operands[3 + i], f"expand{i + 1}")) for i in range(3)]
    sum_dims = set(lw.const(op.operands[6], "sumdim"))
    if any(0 in shape_of(value) for value in inputs):  # a sum over nothing (or nothing to sum into)
        return [lw.zeros_or_ones(0.0, list(out.shape), element)]
    total = len(shape_of(inputs[0])) + len(expands[0])
    shaped = []
    for value, expand in zip(inputs, expands, strict=True):
        dims = iter(shape_of(value))
        shaped.append(lw.reshape(value, [1 if d in expand else next(dims) for d in range(total)]))
    first = _sum_product(lw, shaped[0], shaped[1], {d for d in sum_dims if d in expands[2]}, element)
    second = _sum_product(lw, first, shaped[2], {d for d in sum_dims if d not in expands[2]}, element)
    return [lw.reshape(second, list(out.shape))]


def _conv_windows(lw: Lowering, op: ir.Operation, first: int, spatial: int) -> tuple[list[int], Any, list[int]]:
    """(stride, padding, dilation) from operands ``first`` to ``first + 2``; padding may be
    the string "same" or "valid" (the ``.padding`` overloads)."""
    stride = spatial_list(lw.const(op.operands[first], "stride"), spatial)
    padding = lw.const(op.operands[first + 1], "padding")
    dilation = spatial_list(lw.const(op.operands[first + 2], "dilation"), spatial)
    return stride, padding if isinstance(padding, str) else spatial_list(padding, spatial), dilation


def _same_padding(lw: Lowering, x: ir.Value, weight_shape: list[int], dilation: list[int]) -> tuple[ir.Value, list[int]]:
    """ATen's ``padding="same"``: ``dilation * (kernel - 1)`` in total per dim, half on each
    side; an odd total puts the extra element at the end, by padding the input first."""
    shape = shape_of(x)
    spatial = len(shape) - 2
    totals = [dilation[i] * (weight_shape[2 + i] - 1) for i in range(spatial)]
    extra = [t - t // 2 - t // 2 for t in totals]
    if any(extra):
        padded = [s + (extra[i - 2] if i >= 2 else 0) for i, s in enumerate(shape)]
        x = lw.emit(pd.PadOp, x, i64_array([0] * len(shape)), i64_array([0, 0, *extra]), f64(0.0), tensor_type(padded, element_of(x)))
    return x, [t // 2 for t in totals]


def _batch_of_one(lw: Lowering, x: ir.Value, w: ir.Value, out: ir.RankedTensorType) -> tuple[ir.Value, ir.RankedTensorType, bool]:
    """conv1d/2d/3d and conv_transpose take [C, *spatial] as well as [N, C, *spatial]
    inputs: an unbatched one runs as a batch of one."""
    if len(shape_of(x)) != len(shape_of(w)) - 1:
        return x, out, False
    return lw.reshape(x, [1, *shape_of(x)]), tensor_type([1, *out.shape], out.element_type), True


def lower_conv(lw: Lowering, op: ir.Operation) -> list[Any]:
    out = result_type(op)
    x, w = lw.v(op.operands[0]), lw.v(op.operands[1])
    x, batched_out, unbatched = _batch_of_one(lw, x, w, out)
    if unbatched:
        return [lw.reshape(_conv(lw, op, x, w, batched_out), list(out.shape))]
    return [_conv(lw, op, x, w, out)]


def _conv(lw: Lowering, op: ir.Operation, x: ir.Value, w: ir.Value, out: ir.RankedTensorType) -> ir.Value:
    bias = lw.maybe_tensor(op.operands[2])
    spatial = len(shape_of(x)) - 2
    stride, padding, dilation = _conv_windows(lw, op, 3, spatial)
    bias_list = [bias] if bias is not None else []
    if base_name(op.name) in ("torch.aten.convolution", "torch.aten._convolution"):
        groups = lw.const(op.operands[8], "groups")
        if lw.const(op.operands[6], "transposed"):
            output_padding = spatial_list(lw.const(op.operands[7], "output_padding"), spatial)
            return lw.emit(pd.ConvTransposeOp, x, w, bias_list, i64_array(stride), i64_array(padding), i64_array(output_padding),
                           i64_array(dilation), i64(groups), out)
    else:
        groups = lw.const(op.operands[6], "groups")
    if padding == "valid":
        padding = [0] * spatial
    elif padding == "same":
        x, padding = _same_padding(lw, x, shape_of(w), dilation)
    elif isinstance(padding, str):
        raise Unsupported(f"padding '{padding}' (PyTorch accepts 'same', 'valid' or sizes)")
    return lw.emit(pd.ConvOp, x, w, bias_list, i64_array(stride), i64_array(padding), i64_array(dilation), i64(groups), out)


def lower_conv_transpose(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``conv_transpose{1,2,3}d.input``: (input, weight, bias, stride, padding, output_padding, groups, dilation)."""
    out = result_type(op)
    x, w = lw.v(op.operands[0]), lw.v(op.operands[1])
    x, batched_out, unbatched = _batch_of_one(lw, x, w, out)
    bias = lw.maybe_tensor(op.operands[2])
    spatial = len(shape_of(x)) - 2
    stride, padding, output_padding = (spatial_list(lw.const(op.operands[i], what), spatial)
                                       for i, what in ((3, "stride"), (4, "padding"), (5, "output_padding")))
    groups = lw.const(op.operands[6], "groups")
    dilation = spatial_list(lw.const(op.operands[7], "dilation"), spatial)
    y = lw.emit(pd.ConvTransposeOp, x, w, [bias] if bias is not None else [], i64_array(stride), i64_array(padding),
                i64_array(output_padding), i64_array(dilation), i64(groups), batched_out)
    return [lw.reshape(y, list(out.shape))]


def lower_conv_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``convolution_backward`` of an ordinary or a transposed convolution."""
    grad, x, w = lw.v(op.operands[0]), lw.v(op.operands[1]), lw.v(op.operands[2])
    spatial = len(shape_of(x)) - 2
    stride, padding, dilation = (spatial_list(lw.const(op.operands[i], what), spatial) for i, what in ((4, "stride"), (5, "padding"), (6, "dilation")))
    groups = lw.const(op.operands[9], "groups")
    mask = lw.const(op.operands[10], "output_mask")
    types = [[result_type(op, i)] if keep else [] for i, keep in enumerate(mask)]
    window = (i64_array(stride), i64_array(padding))
    if lw.const(op.operands[7], "transposed"):
        output_padding = spatial_list(lw.const(op.operands[8], "output_padding"), spatial)
        conv = lw.emit(pd.ConvTransposeGradOp, grad, x, w, *window, i64_array(output_padding), i64_array(dilation), i64(groups), *types)
    else:
        conv = lw.emit(pd.ConvGradOp, grad, x, w, *window, i64_array(dilation), i64(groups), *types)
    results = iter(conv.operation.results if hasattr(conv, "operation") else [conv])
    return [next(results) if keep else None for keep in mask]


def lower_sdpa(lw: Lowering, op: ir.Operation) -> list[Any]:
    """The math decomposition: softmax(q k^T * scale + mask) v. Attention dropout
    (``dropout_p > 0``) is the identity here, as every dropout is in an inference program
    (``random.lower_native_dropout``); training programs decompose attention with its
    dropout before this pass runs."""
    out = result_type(op)
    q, k, v = (lw.v(op.operands[i]) for i in range(3))
    mask = lw.maybe_tensor(op.operands[3]) if len(op.operands) > 3 else None
    causal = lw.const(op.operands[5], "is_causal") if len(op.operands) > 5 else False
    scale = lw.const(op.operands[6], "scale") if len(op.operands) > 6 else None
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
    patterns.register("torch.aten.addmm", "torch.aten.addmv", "torch.aten.baddbmm")(lower_addmm)
    patterns.register("torch.aten.addbmm")(lower_addbmm)
    patterns.register("torch.aten._trilinear")(lower_trilinear)
    patterns.register("torch.aten.conv1d", "torch.aten.conv2d", "torch.aten.conv3d", "torch.aten.convolution", "torch.aten._convolution")(lower_conv)
    patterns.register("torch.aten.conv_transpose1d", "torch.aten.conv_transpose2d", "torch.aten.conv_transpose3d")(lower_conv_transpose)
    patterns.register("torch.aten.convolution_backward")(lower_conv_grad)
    patterns.register("torch.aten.scaled_dot_product_attention")(lower_sdpa)

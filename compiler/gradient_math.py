"""Torch-dialect scalar arithmetic that ipu-insert-training builds into a training step:
constants and literals, casts between state dtypes, clipping by the global gradient norm
(as ``torch.nn.utils.clip_grad_norm_``) and PopART's automatic loss scaling. Each builder
creates its ops at the current insertion point; nothing here imports torch.
"""

from __future__ import annotations

import math

from torch_mlir import ir

from ipu_mlir.support.ir_build import boolean, f64, i64

from .torch_ir import vtensor_shape_dtype


def scalar_type() -> ir.Type:
    return ir.Type.parse("!torch.vtensor<[],f32>")


def literal(value: float, block: ir.Block) -> ir.Value:
    """A compiled-in scalar hyper-parameter (``torch.vtensor.literal``) at the top of ``block``."""
    first = block.operations[0] if len(block.operations) else None
    point = ir.InsertionPoint(first) if first is not None else ir.InsertionPoint(block)
    with point:
        attr = ir.DenseElementsAttr.get_splat(ir.RankedTensorType.get([], ir.F32Type.get()), ir.FloatAttr.get(ir.F32Type.get(), value))
        op = ir.Operation.create("torch.vtensor.literal", results=[scalar_type()], attributes={"value": attr})
    return op.result


def torch_op(name: str, result: ir.Type, *operands: ir.Value) -> ir.Value:
    return ir.Operation.create(name, results=[result], operands=list(operands)).result


def torch_float(value: float) -> ir.Value:
    return ir.Operation.create("torch.constant.float", results=[ir.Type.parse("!torch.float")],
                               attributes={"value": f64(value)}).result


def clip_by_global_norm(grads: dict[str, ir.Value], max_norm: float, loss_scale: ir.Value) -> dict[str, ir.Value]:
    """Clip by the global norm as torch.nn.utils.clip_grad_norm_ does: the gradients are
    scaled by min(1, max_norm / (||g|| + 1e-6)), with ||g|| the norm of all of them
    (unscaled from the loss scale)."""
    scalar = scalar_type()
    none = torch_none()
    total = None
    for grad in grads.values():
        squared = torch_op("torch.aten.mul.Tensor", grad.type, grad, grad)
        partial = torch_op("torch.aten.sum", scalar, squared, none)
        total = partial if total is None else torch_op("torch.aten.add.Tensor", scalar, total, partial, torch_int(1))
    norm = torch_op("torch.aten.div.Tensor", scalar, torch_op("torch.aten.sqrt", scalar, total), loss_scale)
    shifted = torch_op("torch.aten.add.Scalar", scalar, norm, torch_float(1e-6), torch_int(1))
    coefficient = torch_op("torch.aten.mul.Scalar", scalar, torch_op("torch.aten.reciprocal", scalar, shifted), torch_float(max_norm))
    coefficient = torch_op("torch.aten.clamp_max", scalar, coefficient, torch_float(1.0))
    return {name: torch_op("torch.aten.mul.Tensor", grad.type, grad, coefficient) for name, grad in grads.items()}


# Automatic loss scaling, after PopART's: a gradient element is "high" when its scaled
# magnitude reaches 1/8 of float16's largest value (65504 / 8 ~ 2^13); when more than
# 1e-7 of all gradient elements are high the scale halves, otherwise it doubles, within
# [1, 2^15]. Powers of two scale and unscale exactly, so only overflow/underflow change.
_ALS_HIGH = 8192.0
_ALS_PROPORTION = 1e-7
_ALS_RANGE = (1.0, 32768.0)


def auto_loss_scale(grads: dict[str, ir.Value], loss_scale: ir.Value) -> ir.Value:
    """The next loss scale from this step's (scaled) gradients."""
    scalar = scalar_type()
    none = torch_none()
    high_total, count = None, 0
    for grad in grads.values():
        shape, dtype = vtensor_shape_dtype(grad.type)
        count += max(1, math.prod(shape))
        bool_type = ir.Type.parse(f"!torch.vtensor<[{','.join(str(d) for d in shape)}],i1>")
        high = torch_op("torch.aten.ge.Scalar", bool_type, torch_op("torch.aten.abs", grad.type, grad), torch_float(_ALS_HIGH))
        as_float = torch_op("torch.aten.to.dtype", ir.Type.parse(f"!torch.vtensor<[{','.join(str(d) for d in shape)}],f32>"),
                             high, torch_int(TORCH_DTYPE_CODES["f32"]), torch_bool(False), torch_bool(False), none)
        partial = torch_op("torch.aten.sum", scalar, as_float, none)
        high_total = partial if high_total is None else torch_op("torch.aten.add.Tensor", scalar, high_total, partial, torch_int(1))
    proportion = torch_op("torch.aten.div.Scalar", scalar, high_total, torch_float(float(count)))
    too_high = torch_op("torch.aten.gt.Scalar", ir.Type.parse("!torch.vtensor<[],i1>"), proportion, torch_float(_ALS_PROPORTION))
    down = torch_op("torch.aten.mul.Scalar", scalar, loss_scale, torch_float(0.5))
    up = torch_op("torch.aten.mul.Scalar", scalar, loss_scale, torch_float(2.0))
    chosen = torch_op("torch.aten.where.self", scalar, too_high, down, up)
    return torch_op("torch.aten.clamp", scalar, chosen, torch_float(_ALS_RANGE[0]), torch_float(_ALS_RANGE[1]))


# The element types an optimizer state or accumulator may be stored in (accum_type & co.).
STATE_DTYPES = ("f16", "f32")
_WIDTH = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}


def widest(dtypes: list[str]) -> str:
    """The type every one of ``dtypes`` converts to without loss (f16 with bf16: f32)."""
    kinds = set(dtypes)
    if len(kinds) == 1:
        return dtypes[0]
    broadest = max(kinds, key=lambda d: _WIDTH.get(d, 0))
    return "f32" if _WIDTH.get(broadest, 0) == 16 else broadest


def with_dtype(type_: ir.Type, dtype: str) -> ir.Type:
    shape, _ = vtensor_shape_dtype(type_)
    return ir.Type.parse(f"!torch.vtensor<[{','.join(str(d) for d in shape)}],{dtype}>")


def cast(value: ir.Value, dtype: str | None) -> ir.Value:
    """``value`` as ``dtype`` (aten.to.dtype at the insertion point); itself when it already is."""
    if dtype is None or vtensor_shape_dtype(value.type)[1] == dtype:
        return value
    return torch_op("torch.aten.to.dtype", with_dtype(value.type, dtype), value, torch_int(TORCH_DTYPE_CODES[dtype]),
                     torch_bool(False), torch_bool(False), torch_none())


# torch's ScalarType codes, as aten.to.dtype takes them.
TORCH_DTYPE_CODES = {"f16": 5, "f32": 6, "f64": 7, "bf16": 15}


def torch_bool(value: bool) -> ir.Value:
    return ir.Operation.create("torch.constant.bool", results=[ir.Type.parse("!torch.bool")],
                               attributes={"value": boolean(value)}).result


def torch_none() -> ir.Value:
    return ir.Operation.create("torch.constant.none", results=[ir.Type.parse("!torch.none")]).result


def torch_int(value: int) -> ir.Value:
    op = ir.Operation.create(
        "torch.constant.int", results=[ir.Type.parse("!torch.int")],
        attributes={"value": i64(value)},
    )
    return op.result

"""Torch kernels for poplar ops: how the IPU Model computes each op on the host.

Each entry maps an op name to a factory ``make(op, ins, out) -> fn(*tensors) -> tensor``
that reads the op's attributes once (at decode time) and returns the function the
interpreter calls per execution. Kernels call the same ATen functions eager PyTorch
uses, so results match eager bit for bit where the op structure is the same.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch_mlir import ir

from ipu_mlir.support.ir_walk import attr_value
from ipu_mlir.dialects.poplar import parse_map_expression

Kernel = Callable[..., torch.Tensor]

_DTYPES = {
    "f32": torch.float32,
    "f16": torch.float16,
    "bf16": torch.bfloat16,
    "f64": torch.float64,
    "i64": torch.int64,
    "i32": torch.int32,
    "i16": torch.int16,
    "i8": torch.int8,
    "ui8": torch.uint8,
    "i1": torch.bool,
}


class KernelError(RuntimeError):
    """An op the runtime cannot execute (it names the op and its location)."""


def torch_dtype(element: ir.Type) -> torch.dtype:
    text = str(element)
    if text not in _DTYPES:
        raise KernelError(f"element type {text} has no IPU Model kernel")
    return _DTYPES[text]


def tensor_type(value: ir.Value) -> tuple[list[int], torch.dtype]:
    shaped = ir.RankedTensorType(value.type)
    return list(shaped.shape), torch_dtype(shaped.element_type)


def attr(op: ir.Operation, name: str) -> Any:
    """Python value of an attribute (int, float, bool, str or list of ints)."""
    value = op.attributes[name]
    try:
        return attr_value(value)
    except ValueError:
        raise KernelError(f"attribute '{name}' of {op.name} has an unexpected kind: {value}") from None


def constant_tensor(value: ir.Attribute, type_: ir.Type) -> torch.Tensor:
    """A torch tensor holding a ``DenseElementsAttr``."""
    import numpy as np

    shape, dtype = list(ir.RankedTensorType(type_).shape), torch_dtype(ir.RankedTensorType(type_).element_type)
    dense = ir.DenseElementsAttr(value)
    if dense.is_splat:
        splat = dense.get_splat_value()
        if isinstance(splat, ir.BoolAttr):
            scalar: Any = ir.BoolAttr(splat).value
        elif isinstance(splat, ir.IntegerAttr):
            scalar = ir.IntegerAttr(splat).value
        else:
            scalar = ir.FloatAttr(splat).value
        return torch.full(shape, scalar, dtype=dtype)
    if dtype == torch.bool:
        values = [bool(ir.IntegerAttr(dense[i]).value) for i in range(len(dense))]
        return torch.tensor(values, dtype=torch.bool).reshape(shape)
    array = np.array(dense)
    return torch.from_numpy(array.copy()).to(dtype).reshape(shape)


# ---------------------------------------------------------------------------------------
# popops.map expressions
# ---------------------------------------------------------------------------------------


def _max(a: Any, b: Any) -> torch.Tensor:
    if isinstance(b, torch.Tensor) and isinstance(a, torch.Tensor):
        return torch.maximum(a, b)
    if isinstance(a, torch.Tensor):
        return torch.clamp_min(a, b)
    return torch.clamp_min(b, a)


def _min(a: Any, b: Any) -> torch.Tensor:
    if isinstance(b, torch.Tensor) and isinstance(a, torch.Tensor):
        return torch.minimum(a, b)
    if isinstance(a, torch.Tensor):
        return torch.clamp_max(a, b)
    return torch.clamp_max(b, a)


def _as_tensor_first(fn: Callable[..., torch.Tensor]) -> Callable[..., torch.Tensor]:
    """Binary torch functions need a tensor first; swap-free wrapper for scalar lhs."""

    def call(a: Any, b: Any) -> torch.Tensor:
        if not isinstance(a, torch.Tensor):
            a = torch.scalar_tensor(a, dtype=b.dtype if isinstance(b, torch.Tensor) else torch.float32)
        return fn(a, b)

    return call


_MAP_FUNCTIONS: dict[str, Callable[..., torch.Tensor]] = {
    "neg": torch.neg, "abs": torch.abs, "exp": torch.exp, "expm1": torch.expm1, "log": torch.log,
    "log1p": torch.log1p, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "sin": torch.sin, "cos": torch.cos,
    "tan": torch.tan, "tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": torch.relu, "erf": torch.erf,
    "floor": torch.floor, "ceil": torch.ceil, "round": torch.round, "trunc": torch.trunc, "sign": torch.sign,
    "reciprocal": torch.reciprocal, "square": torch.square, "not": torch.logical_not,
    "bitwise_not": torch.bitwise_not, "isnan": torch.isnan, "isinf": torch.isinf, "atan": torch.atan,
    "asin": torch.asin, "acos": torch.acos,
    "add": _as_tensor_first(torch.add), "sub": _as_tensor_first(torch.sub), "mul": _as_tensor_first(torch.mul),
    "div": _as_tensor_first(torch.div),
    "floor_div": _as_tensor_first(lambda a, b: torch.div(a, b, rounding_mode="floor")),
    "trunc_div": _as_tensor_first(lambda a, b: torch.div(a, b, rounding_mode="trunc")),
    "pow": _as_tensor_first(torch.pow), "max": _max, "min": _min,
    "rem": _as_tensor_first(torch.remainder), "fmod": _as_tensor_first(torch.fmod),
    "atan2": _as_tensor_first(torch.atan2), "eq": _as_tensor_first(torch.eq), "ne": _as_tensor_first(torch.ne),
    "lt": _as_tensor_first(torch.lt), "le": _as_tensor_first(torch.le), "gt": _as_tensor_first(torch.gt),
    "ge": _as_tensor_first(torch.ge), "and": _as_tensor_first(torch.logical_and),
    "or": _as_tensor_first(torch.logical_or), "xor": _as_tensor_first(torch.logical_xor),
    "bitwise_and": _as_tensor_first(torch.bitwise_and), "bitwise_or": _as_tensor_first(torch.bitwise_or),
    "bitwise_xor": _as_tensor_first(torch.bitwise_xor),
    "select": lambda c, a, b: torch.where(c, a, b), "clamp": lambda x, lo, hi: torch.clamp(x, lo, hi),
}


def _scalar_of(value: Any) -> float | int | None:
    """A Python number for a Python scalar or a one-element (0-dim) tensor, else None."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    if isinstance(value, torch.Tensor) and value.dim() == 0 and value.dtype.is_floating_point:
        return value.item()
    return None


def _scaled_add(sign: float) -> Callable[[Any, Any, Any], Any]:
    """a + sign * b * c: one ``torch.add(a, b, alpha=sign * c)`` kernel when c is a scalar
    (as eager optimizers write their updates), nothing at all when c is 0."""

    def run(a: Any, b: Any, c: Any) -> Any:
        scale = _scalar_of(c)
        if scale is None or not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
            product = torch.mul(b, c)
            return torch.add(a, product) if sign > 0 else torch.sub(a, product)
        if scale == 0:
            return a
        if a.shape != torch.broadcast_shapes(a.shape, b.shape):
            return torch.add(a, b * scale) if sign > 0 else torch.sub(a, b * scale)
        return torch.add(a, b, alpha=sign * scale)

    return run


def compile_expression(expr: str, integer_operands: bool) -> Callable[..., Any]:
    """A function of the operands computing a ``popops.map`` expression with torch ops.

    Literals become Python scalars (ints when every operand is an integer tensor and the
    literal is integral), so torch's scalar type rules apply as in eager code. Like
    Poplar's map fusion, a few expression shapes run as one kernel: ``a + b * s`` and
    ``a - b * s`` with a scalar ``s`` become ``torch.add(a, b, alpha=±s)`` (the kernel
    eager optimizers use), multiplying or dividing by a scalar 1 and ``x * (1 - 0)`` are
    the identity, and ``select`` with a scalar condition returns the chosen operand.
    """
    tree = parse_map_expression(expr)

    def build(node: tuple) -> Callable[[tuple], Any]:
        kind = node[0]
        if kind == "arg":
            index = node[1] - 1
            return lambda args: args[index]
        if kind == "const":
            value: Any = node[1]
            if integer_operands and float(value).is_integer():
                value = int(value)
            return lambda args: value
        name, operands = node[1], node[2]
        if name in ("add", "sub") and len(operands) == 2 and operands[1][0] == "call" and operands[1][1] == "mul":
            a, (b, c) = build(operands[0]), (build(x) for x in operands[1][2])
            fused = _scaled_add(1.0 if name == "add" else -1.0)
            return lambda args: fused(a(args), b(args), c(args))
        if name in ("mul", "div") and len(operands) == 2:
            a, b = build(operands[0]), build(operands[1])
            fn = _MAP_FUNCTIONS[name]

            def scale(args: tuple) -> Any:
                x, y = a(args), b(args)
                if _scalar_of(y) == 1 and isinstance(x, torch.Tensor):
                    return x
                return fn(x, y)

            return scale
        if name == "select":
            cond, then, otherwise = (build(x) for x in operands)

            def select(args: tuple) -> Any:
                c = cond(args)
                if isinstance(c, torch.Tensor) and c.dim() == 0:
                    return then(args) if bool(c) else otherwise(args)
                return torch.where(c, then(args), otherwise(args))

            return select
        fn = _MAP_FUNCTIONS[name]
        children = [build(child) for child in operands]
        if len(children) == 1:
            (a,) = children
            return lambda args: fn(a(args))
        if len(children) == 2:
            a, b = children
            return lambda args: fn(a(args), b(args))
        a, b, c = children
        return lambda args: fn(a(args), b(args), c(args))

    compiled = build(tree)
    return lambda *args: compiled(args)


def _scalar_arg(value: Any) -> Any:
    number = _scalar_of(value)
    return value if number is None else number


# In-place forms of the update expressions (operand 1 is the variable being updated).
_IN_PLACE: dict[str, Callable[..., torch.Tensor]] = {
    # w - d * lr, w + d * s: eager's param.add_(d, alpha=-lr)
    "sub(_1, mul(_2, _3))": lambda v, d, s: v.sub_(d, alpha=_scalar_arg(s)) if _scalar_of(s) is not None else v.sub_(d * s),
    "add(_1, mul(_2, _3))": lambda v, d, s: v.add_(d, alpha=_scalar_arg(s)) if _scalar_of(s) is not None else v.add_(d * s),
    # v * m + g: eager's buf.mul_(momentum).add_(grad)
    "add(mul(_1, _2), _3)": lambda v, m, g: v.mul_(_scalar_arg(m)).add_(g),
    "mul(_1, _2)": lambda v, m: v.mul_(_scalar_arg(m)),
    "add(_1, _2)": lambda v, g: v.add_(g),
}


def in_place_expression(expr: str) -> Callable[..., torch.Tensor] | None:
    """The in-place kernel of an update expression whose first operand is overwritten, if any."""
    return _IN_PLACE.get(expr)


# ---------------------------------------------------------------------------------------
# Kernel factories
# ---------------------------------------------------------------------------------------

Factory = Callable[[ir.Operation], Kernel]
FACTORIES: dict[str, Factory] = {}


def kernel(*names: str) -> Callable[[Factory], Factory]:
    def register(fn: Factory) -> Factory:
        for name in names:
            FACTORIES[name] = fn
        return fn

    return register


def _result_dtype(op: ir.Operation) -> torch.dtype:
    return tensor_type(op.results[0])[1]


def _cast_to(fn: Kernel, dtype: torch.dtype) -> Kernel:
    def call(*args: torch.Tensor) -> torch.Tensor:
        out = fn(*args)
        return out if out.dtype == dtype else out.to(dtype)

    return call


@kernel("poplar.popops_add")
def _add(op: ir.Operation) -> Kernel:
    return torch.add


@kernel("poplar.popops_sub")
def _sub(op: ir.Operation) -> Kernel:
    return torch.sub


@kernel("poplar.popops_mul")
def _mul(op: ir.Operation) -> Kernel:
    return torch.mul


@kernel("poplar.popops_div")
def _div(op: ir.Operation) -> Kernel:
    dtype = _result_dtype(op)
    if dtype.is_floating_point:
        return torch.div
    return lambda a, b: torch.div(a, b, rounding_mode="trunc")


@kernel("poplar.popops_map")
def _map(op: ir.Operation) -> Kernel:
    operands = [tensor_type(v)[1] for v in op.operands]
    integer = all(not (d.is_floating_point or d == torch.bool) for d in operands)
    fn = compile_expression(attr(op, "expr"), integer)
    shape, dtype = tensor_type(op.results[0])

    def call(*args: torch.Tensor) -> torch.Tensor:
        out = fn(*args)
        if not isinstance(out, torch.Tensor):  # a literal chosen by a scalar select
            return torch.full(shape, out, dtype=dtype, device=args[0].device if args else None)
        return out if out.dtype == dtype else out.to(dtype)

    return call


@kernel("poplar.popops_cast")
def _cast(op: ir.Operation) -> Kernel:
    dtype = _result_dtype(op)
    return lambda x: x.to(dtype)


@kernel("poplar.popops_reduce")
def _reduce(op: ir.Operation) -> Kernel:
    kind, dims, keep, scale = attr(op, "op"), attr(op, "dims"), attr(op, "keep_dims"), attr(op, "scale")
    shape, _ = tensor_type(op.operands[0])
    dtype = _result_dtype(op)
    if not dims:
        return lambda x: (x * scale if scale != 1.0 else x).to(dtype)
    count = math.prod(shape[d] for d in dims)
    if kind == "add":
        if scale != 1.0 and abs(scale * count - 1.0) < 1e-12:
            return lambda x: torch.mean(x, dim=dims, keepdim=keep)
        if scale == 1.0:
            return lambda x: torch.sum(x, dim=dims, keepdim=keep, dtype=dtype)
        return lambda x: torch.sum(x, dim=dims, keepdim=keep, dtype=dtype) * scale
    if kind == "square_add":
        return lambda x: torch.sum(x * x, dim=dims, keepdim=keep) * scale
    if kind in ("max", "min"):
        fn = torch.amax if kind == "max" else torch.amin
        return lambda x: fn(x, dim=dims, keepdim=keep)
    if kind in ("mul", "logical_and", "logical_or"):
        reducer = {"mul": torch.prod, "logical_and": torch.all, "logical_or": torch.any}[kind]
        ordered = sorted(dims, reverse=True)

        def reduce_each(x: torch.Tensor) -> torch.Tensor:
            for d in ordered:
                x = reducer(x, dim=d, keepdim=keep)
            return x

        return _cast_to(reduce_each, dtype)
    raise KernelError(f"reduce op '{kind}' has no kernel")


@kernel("poplar.popops_arg_max", "poplar.popops_arg_min")
def _arg(op: ir.Operation) -> Kernel:
    fn = torch.argmax if op.name.endswith("max") else torch.argmin
    dim, keep, dtype = attr(op, "dim"), attr(op, "keep_dims"), _result_dtype(op)
    return _cast_to(lambda x: fn(x, dim=dim, keepdim=keep) if x.dim() else fn(x), dtype)


@kernel("poplar.popops_multi_slice")
def _multi_slice(op: ir.Operation) -> Kernel:
    dim = attr(op, "dim")
    out_shape, _ = tensor_type(op.results[0])
    if dim == 0:
        return lambda table, idx: F.embedding(idx, table) if table.dim() == 2 else table.index_select(0, idx.reshape(-1)).reshape(out_shape)
    return lambda table, idx: table.index_select(dim, idx.reshape(-1)).reshape(out_shape)


@kernel("poplar.popops_gather")
def _gather(op: ir.Operation) -> Kernel:
    dim = attr(op, "dim")
    return lambda x, idx: torch.gather(x, dim, idx)


@kernel("poplar.popops_pad")
def _pad(op: ir.Operation) -> Kernel:
    low, high, value = attr(op, "low"), attr(op, "high"), attr(op, "value")
    pads: list[int] = []
    for lo, hi in reversed(list(zip(low, high, strict=True))):
        pads += [lo, hi]
    return lambda x: F.pad(x, pads, value=value)


@kernel("poplar.poplin_matmul")
def _matmul(op: ir.Operation) -> Kernel:
    return torch.matmul


@kernel("poplar.poplin_conv")
def _conv(op: ir.Operation) -> Kernel:
    stride, padding, dilation, groups = attr(op, "stride"), attr(op, "padding"), attr(op, "dilation"), attr(op, "groups")
    zeros = [0] * len(stride)
    conv = torch.ops.aten.convolution.default
    if len(op.operands) == 3:
        return lambda x, w, b: conv(x, w, b, stride, padding, dilation, False, zeros, groups)
    return lambda x, w: conv(x, w, None, stride, padding, dilation, False, zeros, groups)


@kernel("poplar.popnn_pool")
def _pool(op: ir.Operation) -> Kernel:
    kind, kernel_size, stride, padding = attr(op, "kind"), attr(op, "kernel"), attr(op, "stride"), attr(op, "padding")
    ceil, include_pad = attr(op, "ceil_mode"), attr(op, "count_include_pad")
    spatial = len(kernel_size)
    if kind == "max":
        fn = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[spatial]
        return lambda x: fn(x, kernel_size, stride, padding, 1, ceil)
    fn = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}[spatial]
    if kind == "avg":
        return lambda x: fn(x, kernel_size, stride, padding, ceil, include_pad)
    area = math.prod(kernel_size)
    return lambda x: fn(x, kernel_size, stride, padding, ceil, True) * area


@kernel("poplar.popnn_norm")
def _norm(op: ir.Operation) -> Kernel:
    kind, eps = attr(op, "kind"), attr(op, "epsilon")
    if kind == "batch":
        return lambda x, w, b, mean, var: F.batch_norm(x, mean, var, w, b, False, 0.0, eps)
    if kind == "layer":
        num_dims = attr(op, "num_dims")
        shape = tensor_type(op.operands[0])[0][-num_dims:]
        return lambda x, w, b: F.layer_norm(x, shape, w, b, eps)
    groups = attr(op, "num_groups") if kind == "group" else tensor_type(op.operands[0])[0][1]
    return lambda x, w, b: F.group_norm(x, groups, w, b, eps)


@kernel("poplar.popnn_nonlinearity")
def _nonlinearity(op: ir.Operation) -> Kernel:
    kind, dim = attr(op, "kind"), attr(op, "dim")
    table: dict[str, Kernel] = {
        "relu": torch.relu,
        "gelu_erf": F.gelu,
        "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
        "sigmoid": torch.sigmoid,
        "tanh": torch.tanh,
        "silu": F.silu,
        "hard_sigmoid": F.hardsigmoid,
        "hard_swish": F.hardswish,
        "softmax": lambda x: torch.softmax(x, dim),
        "log_softmax": lambda x: torch.log_softmax(x, dim),
        "safe_softmax": lambda x: torch.ops.aten._safe_softmax(x, dim),
    }
    return table[kind]


@kernel("poplar.reshape")
def _reshape(op: ir.Operation) -> Kernel:
    shape = tensor_type(op.results[0])[0]
    return lambda x: x.reshape(shape)


@kernel("poplar.dim_shuffle")
def _dim_shuffle(op: ir.Operation) -> Kernel:
    perm = attr(op, "permutation")
    return lambda x: x.permute(perm)


@kernel("poplar.slice")
def _slice(op: ir.Operation) -> Kernel:
    index = tuple(slice(b, e, s) for b, e, s in zip(attr(op, "begin"), attr(op, "end"), attr(op, "stride"), strict=True))
    return lambda x: x[index]


@kernel("poplar.concat")
def _concat(op: ir.Operation) -> Kernel:
    dim = attr(op, "dim")
    return lambda a, b: torch.cat((a, b), dim)


@kernel("poplar.broadcast")
def _broadcast(op: ir.Operation) -> Kernel:
    shape = tensor_type(op.results[0])[0]
    return lambda x: x.expand(shape)


@kernel("poplar.gcl_all_reduce")
def _all_reduce(op: ir.Operation) -> Kernel:
    # One replica per interpreter: the reduction over replicas is done by the replica
    # runner; within a single replica the op is the identity (add/mean/min/max of one).
    return lambda x: x


# ---------------------------------------------------------------------------------------
# Training kernels: the ATen backward functions eager autograd calls
# ---------------------------------------------------------------------------------------

aten = torch.ops.aten


def _segments(op: ir.Operation, attribute: str) -> list[int]:
    return list(ir.DenseI32ArrayAttr(op.attributes[attribute]))


@kernel("poplar.popnn_nonlinearity_grad")
def _nonlinearity_grad(op: ir.Operation) -> Kernel:
    kind, dim = attr(op, "kind"), attr(op, "dim")
    dtype = tensor_type(op.results[0])[1]
    table: dict[str, Kernel] = {
        "relu": lambda g, x: aten.threshold_backward(g, x, 0),
        "gelu_erf": lambda g, x: aten.gelu_backward(g, x, approximate="none"),
        "gelu_tanh": lambda g, x: aten.gelu_backward(g, x, approximate="tanh"),
        "silu": lambda g, x: aten.silu_backward(g, x),
        "hard_sigmoid": lambda g, x: aten.hardsigmoid_backward(g, x),
        "hard_swish": lambda g, x: aten.hardswish_backward(g, x),
        "sigmoid": lambda g, y: aten.sigmoid_backward(g, y),
        "tanh": lambda g, y: aten.tanh_backward(g, y),
        "softmax": lambda g, y: aten._softmax_backward_data(g, y, dim, dtype),
        "safe_softmax": lambda g, y: aten._softmax_backward_data(g, y, dim, dtype),
        "log_softmax": lambda g, y: aten._log_softmax_backward_data(g, y, dim, dtype),
    }
    return table[kind]


@kernel("poplar.popnn_norm_training")
def _norm_training(op: ir.Operation) -> Kernel:
    kind, eps, momentum = attr(op, "kind"), attr(op, "epsilon"), attr(op, "momentum")
    shape = tensor_type(op.operands[0])[0]
    if kind == "batch":
        if _segments(op, "operandSegmentSizes")[3] == 2:
            return lambda x, w, b, rm, rv: aten._native_batch_norm_legit_functional(x, w, b, rm, rv, True, momentum, eps)
        return lambda x, w, b: aten._native_batch_norm_legit.no_stats(x, w, b, True, momentum, eps)
    if kind == "layer":
        normalized = shape[len(shape) - attr(op, "num_dims") :]
        return lambda x, w, b: aten.native_layer_norm(x, normalized, w, b, eps)
    groups = attr(op, "num_groups")
    n, c, hw = shape[0], shape[1], math.prod(shape[2:])
    return lambda x, w, b: aten.native_group_norm(x, w, b, n, c, hw, groups, eps)


@kernel("poplar.popnn_norm_grad")
def _norm_grad(op: ir.Operation) -> Kernel:
    kind, eps = attr(op, "kind"), attr(op, "epsilon")
    shape = tensor_type(op.operands[1])[0]
    mask = [True, True, True]
    if kind == "batch":
        return lambda g, x, mean, invstd, w: aten.native_batch_norm_backward(g, x, w, None, None, mean, invstd, True, eps, mask)
    if kind == "layer":
        normalized = shape[len(shape) - attr(op, "num_dims") :]
        return lambda g, x, mean, rstd, w: aten.native_layer_norm_backward(g, x, normalized, mean, rstd, w, w, mask)
    groups = attr(op, "num_groups")
    n, c, hw = shape[0], shape[1], math.prod(shape[2:])
    return lambda g, x, mean, rstd, w: aten.native_group_norm_backward(g, x, mean, rstd, w, n, c, hw, groups, mask)


@kernel("poplar.poplin_conv_grad")
def _conv_grad(op: ir.Operation) -> Kernel:
    stride, padding, dilation, groups = attr(op, "stride"), attr(op, "padding"), attr(op, "dilation"), attr(op, "groups")
    wanted = [size == 1 for size in _segments(op, "resultSegmentSizes")]
    weight_shape = tensor_type(op.operands[2])[0]
    bias_sizes = [weight_shape[0]] if wanted[2] else None
    zeros = [0] * len(stride)

    def grads(g: torch.Tensor, x: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, ...]:
        out = aten.convolution_backward(g, x, w, bias_sizes, stride, padding, dilation, False, zeros, groups, wanted)
        return tuple(t for t, keep in zip(out, wanted, strict=True) if keep)

    return grads


@kernel("poplar.popnn_pool_grad")
def _pool_grad(op: ir.Operation) -> Kernel:
    kind, kernel_size, stride, padding = attr(op, "kind"), attr(op, "kernel"), attr(op, "stride"), attr(op, "padding")
    ceil, include_pad = attr(op, "ceil_mode"), attr(op, "count_include_pad")
    spatial = len(kernel_size)
    if kind == "max":
        forward = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[spatial]
        backward = {2: aten.max_pool2d_with_indices_backward, 3: aten.max_pool3d_with_indices_backward}.get(spatial)
        if backward is None:
            raise KernelError("max pooling gradient in 1-D has no IPU Model kernel")

        def max_grad(x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
            # Poplar recomputes the argmax from the input, as poolInputGradient does.
            _, indices = forward(x, kernel_size, stride, padding, 1, ceil, return_indices=True)
            return backward(g, x, kernel_size, stride, padding, [1] * spatial, ceil, indices)

        return max_grad
    backward = {2: aten.avg_pool2d_backward, 3: aten.avg_pool3d_backward}.get(spatial)
    if backward is None:
        raise KernelError("average pooling gradient in 1-D has no IPU Model kernel")
    area = math.prod(kernel_size) if kind == "sum" else 1
    return lambda x, g: backward(g * area if area != 1 else g, x, kernel_size, stride, padding, ceil, include_pad or kind == "sum", None)


_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


@kernel("poplar.popnn_nll_loss")
def _nll_loss(op: ir.Operation) -> Kernel:
    reduction, ignore = _REDUCTIONS[attr(op, "reduction")], attr(op, "ignore_index")
    return lambda logp, target: aten.nll_loss_forward(logp, target, None, reduction, ignore)[0]


@kernel("poplar.popnn_nll_loss_grad")
def _nll_loss_grad(op: ir.Operation) -> Kernel:
    reduction, ignore = _REDUCTIONS[attr(op, "reduction")], attr(op, "ignore_index")

    def grad(g: torch.Tensor, logp: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        total = (target != ignore).sum().to(logp.dtype)
        return aten.nll_loss_backward(g, logp, target, None, reduction, ignore, total)

    return grad


@kernel("poplar.popops_multi_update_add")
def _multi_update_add(op: ir.Operation) -> Kernel:
    rows = tensor_type(op.results[0])[0][0]
    padding = attr(op, "padding_index")
    return lambda updates, indices: aten.embedding_dense_backward(updates, indices, rows, padding, False)

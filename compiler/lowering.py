"""The builder (:class:`Lowering`) that the patterns of ``convert-torch-to-poplar`` and
``convert-ipu-to-poplar`` emit poplar ops with, and the helpers they share. A pattern takes
``(lowering, op)`` and returns the values that replace the op's results."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import ipu as ipu_d
from ipu_mlir.dialects import ipu_training
from ipu_mlir.dialects import poplar as pd
from ipu_mlir.dialects._base import build
from ipu_mlir.support.ir_build import boolean, f64, i64, i64_array, string, tensor_type

from . import torch_ir
from .torch_ir import NotConstant, constant_value, is_none


class Unsupported(Exception):
    """This op (or this use of it) has no lowering; the message says why."""


def shape_of(value: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(value.type).shape)


def element_of(value: ir.Value) -> ir.Type:
    return ir.RankedTensorType(value.type).element_type


def is_float(element: ir.Type) -> bool:
    return isinstance(element, ir.F32Type | ir.F16Type | ir.BF16Type | ir.F64Type)


def literal(value: float | int | bool) -> str:
    """``value`` as a term of a ``popops_map`` expression (``1.0``, ``-inf``, ``3``)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if math.isnan(value):
            return "nan"
        return repr(value)
    return str(int(value))


def scalar_attr(value: float | int | bool, element: ir.Type) -> ir.Attribute:
    if isinstance(element, ir.ComplexType):  # MLIR has no scalar attribute of a complex type (and loops on one)
        raise Unsupported(f"a scalar attribute of {element} elements (complex constants are built by zeros_or_ones)")
    if is_float(element):
        return ir.FloatAttr.get(element, float(value))
    return ir.IntegerAttr.get(element, int(value))


class Lowering:
    """Emits poplar ops for one source op at a time.

    New ops go at the end of ``block``, or before ``before`` when given (an in-place
    conversion). ``values`` maps source values to the values that replace them;
    ``emitted`` lists the ops built since the pass last cleared it (for placement).
    """

    def __init__(self, block: ir.Block, training: bool = False, *, before: ir.Operation | None = None) -> None:
        self.block = block
        self.training = training
        self.before = before
        self.values: dict[ir.Value, Any] = {}
        self.location: ir.Location = ir.Location.unknown()
        self.emitted: list[ir.Operation] = []

    # -- value access ---------------------------------------------------------------
    def v(self, value: ir.Value) -> ir.Value:
        """The converted tensor that replaces ``value``."""
        if value not in self.values:
            raise Unsupported(f"operand {value.get_name()} is not a tensor this lowering knows")
        mapped = self.values[value]
        if not isinstance(mapped, ir.Value):
            raise Unsupported("a list-valued operand was used where a tensor was expected")
        return mapped

    def const(self, value: ir.Value, what: str) -> Any:
        try:
            return constant_value(value)
        except NotConstant as reason:
            raise Unsupported(f"{what} must be a compile-time constant, but it is {reason}") from None

    def maybe_tensor(self, value: ir.Value) -> ir.Value | None:
        return None if is_none(value) else self.v(value)

    # -- emission -------------------------------------------------------------------
    def _insertion_point(self) -> ir.InsertionPoint:
        return ir.InsertionPoint(self.before) if self.before is not None else ir.InsertionPoint(self.block)

    def emit(self, cls: type, *args: Any) -> Any:
        """Build op ``cls`` from its fields; its single result, or the op."""
        with self.location, self._insertion_point():
            op = build(cls, *args)
        self.emitted.append(op.operation)
        return op.result if len(op.operation.results) == 1 else op

    def rebuild(self, op: ir.Operation, operands: Sequence[ir.Value], result_types: Sequence[ir.Type]) -> ir.Operation:
        """A copy of ``op`` (same name and attributes) over new operands and result types."""
        attributes = {op.attributes[i].name: op.attributes[i].attr for i in range(len(op.attributes))}
        with self.location, self._insertion_point():
            copy = ir.Operation.create(op.name, results=list(result_types), operands=list(operands), attributes=attributes)
        self.emitted.append(copy)
        return copy

    def map(self, expr: str, operands: Sequence[ir.Value], result_type: ir.Type) -> ir.Value:
        if not 1 <= len(operands) <= 3:
            raise Unsupported(f"an element-wise expression over {len(operands)} tensors (popops_map takes 1 to 3)")
        return self.emit(pd.MapOp, operands[0], list(operands[1:2]), list(operands[2:3]), string(expr), result_type)

    def scalar(self, expr: str, operands: Sequence[ir.Value]) -> ir.Value:
        """A rank-0 f32 computed from scalars (hyper-parameters, a bias correction)."""
        return self.map(expr, operands, tensor_type([], ir.F32Type.get()))

    def reduce(self, x: ir.Value, op: str, dims: Sequence[int], keep: bool, scale: float, out: ir.RankedTensorType) -> ir.Value:
        return self.emit(pd.ReduceOp, x, string(op), i64_array(sorted(dims)), boolean(keep), f64(scale), out)

    def concat(self, tensors: Sequence[ir.Value], dim: int) -> ir.Value:
        """Concatenate by chaining binary ``poplar.concat`` views."""
        result = tensors[0]
        for tensor in tensors[1:]:
            shape = shape_of(result)
            shape[dim] += shape_of(tensor)[dim]
            result = self.emit(pd.ConcatOp, result, tensor, i64(dim), tensor_type(shape, element_of(result)))
        return result

    def cast(self, value: ir.Value, element: ir.Type) -> ir.Value:
        if element_of(value) == element:
            return value
        return self.emit(pd.CastOp, value, tensor_type(shape_of(value), element))

    def reshape(self, value: ir.Value, shape: Sequence[int]) -> ir.Value:
        if shape_of(value) == list(shape):
            return value
        return self.emit(pd.ReshapeOp, value, tensor_type(shape, element_of(value)))

    def dim_shuffle(self, value: ir.Value, permutation: Sequence[int]) -> ir.Value:
        if list(permutation) == list(range(len(permutation))):
            return value
        shape = shape_of(value)
        return self.emit(pd.DimShuffleOp, value, i64_array(permutation), tensor_type([shape[p] for p in permutation], element_of(value)))

    def transpose_last(self, value: ir.Value) -> ir.Value:
        rank = len(shape_of(value))
        perm = list(range(rank))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        return self.dim_shuffle(value, perm)

    def broadcast(self, value: ir.Value, shape: Sequence[int]) -> ir.Value:
        if shape_of(value) == list(shape):
            return value
        return self.emit(pd.BroadcastOp, value, tensor_type(shape, element_of(value)))

    def binary(self, cls: type, a: ir.Value, b: ir.Value, result_type: ir.RankedTensorType) -> ir.Value:
        element = result_type.element_type
        return self.emit(cls, self.cast(a, element), self.cast(b, element), result_type)

    def matmul(self, a: ir.Value, b: ir.Value, result_type: ir.RankedTensorType) -> ir.Value:
        """torch.matmul semantics on top of rank-2 / rank-3 ``poplin.matmul``."""
        element = result_type.element_type
        a, b = self.cast(a, element), self.cast(b, element)
        sa, sb = shape_of(a), shape_of(b)
        out_shape = list(result_type.shape)
        if len(sa) == 1 and len(sb) == 1:
            a2, b2 = self.reshape(a, [1, sa[0]]), self.reshape(b, [sb[0], 1])
            return self.reshape(self.emit(pd.MatMulOp, a2, b2, tensor_type([1, 1], element)), out_shape)
        if len(sa) == 1:
            a = self.reshape(a, [1, sa[0]])
            sa = [1, sa[0]]
        if len(sb) == 1:
            b = self.reshape(b, [sb[0], 1])
            sb = [sb[0], 1]
        if len(sa) == 2 and len(sb) == 2:
            out = self.emit(pd.MatMulOp, a, b, tensor_type([sa[0], sb[1]], element))
            return self.reshape(out, out_shape)
        if len(sb) == 2:
            # [.., m, k] x [k, n]: fold the batch dims into m (one large matmul).
            m = math.prod(sa[:-1])
            out = self.emit(pd.MatMulOp, self.reshape(a, [m, sa[-1]]), b, tensor_type([m, sb[1]], element))
            return self.reshape(out, out_shape)
        batch = list(pd.broadcast_shapes([sa[:-2], sb[:-2]]) or [])
        groups = math.prod(batch) if batch else 1
        a3 = self.reshape(self.broadcast(a, batch + sa[-2:]), [groups, *sa[-2:]])
        b3 = self.reshape(self.broadcast(b, batch + sb[-2:]), [groups, *sb[-2:]])
        out = self.emit(pd.MatMulOp, a3, b3, tensor_type([groups, sa[-2], sb[-1]], element))
        return self.reshape(out, out_shape)

    def zeros_or_ones(self, value: float, shape: Sequence[int], element: ir.Type) -> ir.Value:
        """A splat constant of ``value`` (any fill, despite the name)."""
        type_ = tensor_type(shape, element)
        if isinstance(element, ir.ComplexType):
            # The Python bindings cannot read a complex dense attribute back: the constant
            # is its (real, imaginary) pairs, viewed as complex.
            value = complex(value)
            real = ir.ComplexType(element).element_type
            pair = [value.real, value.imag]
            if pair[0] == pair[1]:
                planes = self.zeros_or_ones(pair[0], [*shape, 2], real)
            else:
                import numpy as np

                pair_type = tensor_type([2], real)
                values = np.array(pair, dtype=np.float32 if isinstance(real, ir.F32Type) else np.float64)
                planes = self.broadcast(self.emit(pd.ConstantOp, ir.DenseElementsAttr.get(values, type=pair_type), i64(0), pair_type), [*shape, 2])
            return self.emit(pd.ViewAsComplexOp, planes, type_)
        attr = ir.DenseElementsAttr.get_splat(type_, scalar_attr(value, element))
        return self.emit(pd.ConstantOp, attr, i64(0), type_)

    def ones_if_none(self, value: ir.Value | None, shape: Sequence[int], element: ir.Type, fill: float) -> ir.Value:
        """The optional tensor operand ``value`` cast to ``element``, or a ``fill`` splat when it is None."""
        if value is None or is_none(value):
            return self.zeros_or_ones(fill, shape, element)
        return self.cast(self.v(value), element)

    def list_operand(self, value: ir.Value) -> list[ir.Value]:
        """The converted tensors of a ``prim.ListConstruct`` operand."""
        owner = value.owner
        if isinstance(owner, ir.Block) or owner.operation.name != "torch.prim.ListConstruct":
            raise Unsupported("a tensor list that is not built with prim.ListConstruct")
        return [self.v(v) for v in owner.operation.operands]


# A lowering pattern: (builder, source op) -> one value (or None, or a list of values
# for a list result) per result of the op.
Pattern = Callable[[Lowering, ir.Operation], list[Any]]


def result_type(op: ir.Operation, index: int = 0) -> ir.RankedTensorType:
    """The builtin tensor type of the Torch op's result ``index``."""
    try:
        return torch_ir.to_builtin_tensor(op.results[index].type)
    except ValueError as error:
        raise Unsupported(str(error)) from None


def dim_arg(value: int, rank: int) -> int:
    """A dim argument with negative values counted from the end."""
    return value + max(rank, 1) if value < 0 else value


def base_name(name: str) -> str:
    """``torch.aten.add.Tensor`` -> ``torch.aten.add`` (most patterns carry no overload)."""
    return ".".join(name.split(".")[:3])


def spatial_list(value: Any, n: int) -> list[int]:
    """A kernel / stride / padding argument for ``n`` spatial dims (one value repeats)."""
    if isinstance(value, str):
        raise Unsupported(f"padding '{value}'; give explicit padding")
    values = value if isinstance(value, list) else [value]
    return values * n if len(values) == 1 else values


def pool_window(lw: Lowering, op: ir.Operation, first: int, spatial: int) -> tuple[list[int], list[int], list[int]]:
    """(kernel, stride, padding) of a pooling op or its gradient, read from operands
    ``first`` to ``first + 2``; an empty stride is the kernel (torch's default)."""
    kernel = spatial_list(lw.const(op.operands[first], "kernel_size"), spatial)
    stride_arg = lw.const(op.operands[first + 1], "stride")
    stride = spatial_list(stride_arg, spatial) if stride_arg else kernel
    padding = spatial_list(lw.const(op.operands[first + 2], "padding"), spatial)
    return kernel, stride, padding


# torch's loss ``reduction`` enum (at::Reduction) -> the poplar ops' reduction names.
LOSS_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}

# The ipu ops of the training program that convert-torch-to-poplar keeps (over converted
# tensors) and convert-ipu-to-poplar lowers: optimizer updates, gradient accumulation and
# the reduction of gradients across replicas (or their sharding, replicated tensor sharding).
IPU_TRAINING_OPS = (*(op.OPERATION_NAME for op in ipu_d.UPDATE_OPS.values()), ipu_d.AccumulateGradOp.OPERATION_NAME,
                    ipu_d.ReplicaReduceOp.OPERATION_NAME, ipu_training.ReplicaBroadcastOp.OPERATION_NAME,
                    ipu_d.ReplicaShardOp.OPERATION_NAME, ipu_d.ReplicaUnshardOp.OPERATION_NAME)

# Discardable attributes of a source op that the ops replacing it inherit (placement).
CARRIED_ATTRIBUTES = ("ipu.block", "pipeline.stage", "pipeline.ipu")


def carry_placement(source: ir.Operation, emitted: Sequence[ir.Operation]) -> None:
    """Copy ``ipu.block`` (and the other carried attributes) of ``source`` onto ``emitted``."""
    carried = [(name, source.attributes[name]) for name in CARRIED_ATTRIBUTES if name in source.attributes]
    for op in emitted:
        for name, attr in carried:
            op.attributes[name] = attr

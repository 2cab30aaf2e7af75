"""What every kernel family shares: the kernel registry (op name -> factory), the
error a kernel raises, and the readers of op attributes, types and constants.

A factory ``make(op) -> fn`` reads the op's attributes once, when the program is
decoded, and returns the function the decoder calls on every execution with the op's
operands as tensors, in order. ``fn`` returns the op's result, or a tuple of its
results when it has several, or nothing when it has none (it writes in place).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch_mlir import ir

from ipu_mlir.support.element_types import TORCH_DTYPE_NAME_OF_BUILTIN
from ipu_mlir.support.ir_walk import attr_value
from ipu_mlir.support.registry import Registry

Kernel = Callable[..., Any]
Factory = Callable[[ir.Operation], Kernel]

# Every kernel of the IPU Model, by op name; the family modules fill it.
KERNELS: Registry[Factory] = Registry("kernel")

_DTYPES = {builtin: getattr(torch, name) for builtin, name in TORCH_DTYPE_NAME_OF_BUILTIN.items()}


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


def result_dtype(op: ir.Operation) -> torch.dtype:
    return tensor_type(op.results[0])[1]


def attr(op: ir.Operation, name: str) -> Any:
    """Python value of an attribute (int, float, bool, str or list of ints)."""
    value = op.attributes[name]
    try:
        return attr_value(value)
    except ValueError:
        raise KernelError(f"attribute '{name}' of {op.name} has an unexpected kind: {value}") from None


def segments(op: ir.Operation, attribute: str) -> list[int]:
    """``operandSegmentSizes`` or ``resultSegmentSizes`` of ``op``."""
    return list(ir.DenseI32ArrayAttr(op.attributes[attribute]))


def cast_to(fn: Kernel, dtype: torch.dtype) -> Kernel:
    """``fn`` with its result converted to ``dtype`` when it differs."""

    def call(*args: torch.Tensor) -> torch.Tensor:
        out = fn(*args)
        return out if out.dtype == dtype else out.to(dtype)

    return call


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
        bits = ir.DenseIntElementsAttr(value)  # a plain DenseElementsAttr is not indexable
        values = [bool(bits[i]) for i in range(len(bits))]
        return torch.tensor(values, dtype=torch.bool).reshape(shape)
    array = np.array(dense)
    return torch.from_numpy(array.copy()).to(dtype).reshape(shape)

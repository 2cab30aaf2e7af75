"""poplar-fuse-linear: a matmul by a transposed weight plus a bias becomes one
``poplar.poplin_linear``.

Input: a ``poplar.graph`` (after ``poplar-build-program``). Output: the same graph where
each ``popops_add(reshape?(poplin_matmul(x, dim_shuffle<1, 0>(w))), b)`` whose
intermediates nothing else reads is ``poplin_linear(x, w, b)`` (then the reshape). The
IPU Model runs it as one ``F.linear`` (an addmm, as eager PyTorch does): the same
numbers, one pass over the output less.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.dialects._base import build
from ipu_mlir.dialects.poplar.planning import AVAILABLE_MEMORY_ATTR, PARTIALS_TYPE_ATTR
from ipu_mlir.dialects.poplar.program_order import graphs_of, run_blocks

from ..pass_base import Diagnostics, ModulePass
from ..poplar_execution import carry_attributes, producer

# Ops that write into an existing tensor: none may run between the matmul and the add,
# since the fused op reads x and w where the add was.
_WRITES = ("poplar.program_copy", "poplar.program_stream_copy", "poplar.popops_scaled_add_to",
           "poplar.popops_map_in_place")


@dataclasses.dataclass(frozen=True)
class _Linear:
    """The ops of one match. Operands are read when it is fused: fusing an earlier layer
    replaces (and erases) the value a later layer reads."""

    add: ir.Operation
    reshape: ir.Operation | None  # the view between the matmul and the add, if any
    matmul: ir.Operation
    shuffle: ir.Operation


@dataclasses.dataclass(frozen=True)
class FuseLinear(ModulePass):
    """Fuse add(reshape?(matmul(x, transpose(w))), b) into one poplar.poplin_linear.

    Preconditions: a poplar.graph. A pattern is fused when x is 2-D, the transpose is
    dim_shuffle<1, 0>, b is 1-D with the add's last dim and element type, the matmul's
    result (and the reshape's) is read by nothing else, the three ops sit in one block
    and no op between the matmul and the add writes a tensor. The transpose goes when
    nothing else reads it; a reshape of the result stays, after the linear op.

    Arguments: none.
    """

    name: ClassVar[str] = "poplar-fuse-linear"

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        for graph in graphs_of(module):
            for ops in list(run_blocks(graph)):
                position = {op: index for index, op in enumerate(ops)}
                for found in [match for op in ops if (match := _match(op, ops, position)) is not None]:
                    _fuse(found)


def _single_use(value: ir.Value) -> bool:
    return len(list(value.uses)) == 1


def _match(add: ir.Operation, ops: list[ir.Operation], position: dict[ir.Operation, int]) -> _Linear | None:
    if add.name != "poplar.popops_add":
        return None
    lhs, bias = add.operands[0], add.operands[1]
    bias_type, out_type = ir.RankedTensorType(bias.type), ir.RankedTensorType(add.results[0].type)
    if bias_type.rank != 1 or out_type.rank == 0 or bias_type.shape[0] != out_type.shape[-1] or not _single_use(lhs):
        return None
    if bias_type.element_type != out_type.element_type:
        return None
    matmul = producer(lhs)
    reshape = None
    if matmul is not None and matmul.name == "poplar.reshape":
        reshape = matmul
        if not _single_use(reshape.operands[0]):
            return None
        matmul = producer(reshape.operands[0])
    if matmul is None or matmul.name != "poplar.poplin_matmul" or ir.RankedTensorType(matmul.operands[0].type).rank != 2:
        return None
    shuffle = producer(matmul.operands[1])
    if shuffle is None or shuffle.name != "poplar.dim_shuffle" or \
            list(ir.DenseI64ArrayAttr(shuffle.attributes["permutation"])) != [1, 0]:
        return None
    chain = [matmul] + ([reshape] if reshape is not None else [])
    if any(op.block != add.block for op in chain):
        return None
    if any(op.name in _WRITES for op in ops[position[matmul] + 1 : position[add]]):
        return None
    return _Linear(add, reshape, matmul, shuffle)


def _fuse(found: _Linear) -> None:
    add = found.add
    # x is the matmul's 2-D operand even when the layer's input was folded into it by a
    # reshape: a linear layer on 2-D is one addmm; the result is reshaped back (a view).
    x, w, b = found.matmul.operands[0], found.shuffle.operands[0], add.operands[1]
    with add.location, ir.InsertionPoint(add):
        linear = build(pd.LinearOp, x, w, b, found.matmul.results[0].type).operation
        carry_attributes(add, linear)
        for name in (AVAILABLE_MEMORY_ATTR, PARTIALS_TYPE_ATTR):  # the matmul's planning attributes
            if name in found.matmul.attributes:
                linear.attributes[name] = found.matmul.attributes[name]
        result = linear.results[0]
        if found.reshape is not None:
            reshape = build(pd.ReshapeOp, result, add.results[0].type).operation
            carry_attributes(add, reshape)
            result = reshape.results[0]
    add.results[0].replace_all_uses_with(result)
    add.erase()
    if found.reshape is not None:
        found.reshape.erase()
    found.matmul.erase()
    if not list(found.shuffle.results[0].uses):
        found.shuffle.erase()

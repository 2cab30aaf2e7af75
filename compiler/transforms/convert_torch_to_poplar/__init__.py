"""convert-torch-to-poplar: Torch-dialect compute ops -> poplar dialect compute ops. The
pass only assembles and applies the patterns; each op family's module registers its own
in ``populate`` (as torch-mlir's ``TorchToLinalg`` does)."""

from __future__ import annotations

import dataclasses
import functools
from typing import ClassVar

from torch_mlir import ir
from torch_mlir.dialects import func as func_d

from ipu_mlir.support.registry import Registry

from ... import torch_ir
from ipu_mlir.dialects.ipu_control import REGION_OPS

from ...lowering import Lowering, Pattern, Unsupported, base_name, carry_placement
from ...pass_base import Diagnostics, ModulePass
from . import (
    backward,
    control_flow,
    custom,
    data_movement,
    distances,
    elementwise,
    embedding_bag,
    fft,
    fractional_pool,
    grid_sample,
    histograms,
    im2col,
    indexing,
    ipu_ops,
    linalg,
    linear,
    losses,
    normalization,
    padding,
    pooling,
    random,
    reductions,
    resampling,
    sorting,
    special,
)

FAMILIES = (elementwise, reductions, data_movement, indexing, linear, linalg, distances, embedding_bag, fft, normalization,
            pooling, fractional_pool, losses, random, backward, sorting, padding, resampling, im2col, grid_sample, ipu_ops,
            special, histograms, control_flow, custom)

# Torch scalars: users read them as constants (``Lowering.const``); they produce no tensor.
_SCALAR_OPS = ("torch.constant.int", "torch.constant.float", "torch.constant.bool", "torch.constant.none",
               "torch.constant.str", "torch.constant.device", "torch.aten.size.int")
# Ops with no result that only assert what capture already guarantees (static shapes and dtypes).
_DROPPED_OPS = ("torch.aten._assert_tensor_metadata", "torch.aten._assert_scalar", "torch.aten.sym_constrain_range_for_size",
                "torch.aten._assert_async")


@functools.cache
def lowering_patterns() -> Registry[Pattern]:
    """Every family's patterns by op name (built once; a name registered twice raises)."""
    patterns: Registry[Pattern] = Registry("lowering")
    for family in FAMILIES:
        family.populate(patterns)
    return patterns


def _lower_function(func: ir.Operation, patterns: Registry[Pattern], diag: Diagnostics, training: bool) -> None:
    """Rebuild ``func`` over builtin tensors with poplar ops in its body."""
    body = func.regions[0].blocks[0]
    arg_types = []
    for arg in body.arguments:
        try:
            arg_types.append(torch_ir.to_builtin_tensor(arg.type))
        except ValueError as error:
            diag.error(func, f"argument #{arg.arg_number}: {error}")
            return
    old_ops = list(body.operations)
    terminator = old_ops[-1]
    try:
        result_types = [torch_ir.to_builtin_tensor(v.type) for v in terminator.operands]
    except ValueError as error:
        diag.error(terminator, f"function result: {error}")
        return

    # Build the lowered function beside the old one, then replace it.
    with func.location, ir.InsertionPoint(func):
        new_func = func_d.FuncOp(ir.StringAttr(func.attributes["sym_name"]).value, (arg_types, result_types))
    for index in range(len(func.attributes)):
        named = func.attributes[index]
        if named.name not in ("function_type", "sym_name"):
            new_func.attributes[named.name] = named.attr
    new_block = new_func.add_entry_block()
    lw = Lowering(new_block, training)
    for old, new in zip(body.arguments, new_block.arguments, strict=True):
        lw.values[old] = new

    unsupported: dict[str, list[ir.Operation]] = {}
    poisoned: set[ir.Value] = set()  # results of ops that failed: their users are not reported again
    _lower_ops([op.operation for op in old_ops[:-1]], lw, patterns, diag, unsupported, poisoned)
    for name, ops in sorted(unsupported.items()):
        for op in ops:
            diag.error(op, f"'{name}' has no lowering to the poplar dialect (unsupported op)")
    if diag.failed:
        new_func.operation.erase()
        return
    try:
        returned = [lw.v(v) for v in terminator.operands]
    except Unsupported as reason:
        diag.error(terminator, f"cannot return: {reason}")
        new_func.operation.erase()
        return
    with terminator.location, ir.InsertionPoint(new_block):
        func_d.ReturnOp(returned)
    func.erase()


def _lower_ops(ops: list[ir.Operation], lw: Lowering, patterns: Registry[Pattern], diag: Diagnostics,
               unsupported: dict[str, list[ir.Operation]], poisoned: set[ir.Value]) -> None:
    """Lower ``ops`` in order at ``lw``'s insertion point; a device loop or conditional
    (``ipu.for_loop`` / ``ipu.if``) is rebuilt with its regions lowered the same way."""
    for op in ops:
        lookup = torch_ir.aten_name(op)
        if op.name in _SCALAR_OPS or op.name in _DROPPED_OPS or lookup in _DROPPED_OPS:
            continue
        if op.name in REGION_OPS:
            _lower_region_op(op, lw, patterns, diag, unsupported, poisoned)
            continue
        pattern = patterns.get(lookup) or patterns.get(base_name(lookup))
        if pattern is None:  # reported even when fed by another offender: list them all
            unsupported.setdefault(lookup, []).append(op)
            poisoned.update(op.results)
            continue
        if any(operand in poisoned for operand in op.operands):
            poisoned.update(op.results)  # it has a lowering; its input is the problem
            continue
        lw.location = op.location
        lw.emitted = []
        try:
            produced = pattern(lw, op)
        except Unsupported as reason:
            diag.error(op, f"'{lookup}' cannot be lowered to the poplar dialect: {reason}")
            poisoned.update(op.results)
            continue
        except (ValueError, ir.MLIRError) as error:  # a builder refused what the op's constant arguments give
            reason = error.error_diagnostics[0].message if isinstance(error, ir.MLIRError) and error.error_diagnostics \
                else str(error)
            diag.error(op, f"'{lookup}' cannot be lowered to the poplar dialect: its arguments give an invalid type "
                           f"or attribute ({reason})")
            poisoned.update(op.results)
            continue
        carry_placement(op, lw.emitted)
        for old_result, value in zip(op.results, produced, strict=False):
            if value is not None:
                lw.values[old_result] = value


def _lower_region_op(op: ir.Operation, lw: Lowering, patterns: Registry[Pattern], diag: Diagnostics,
                     unsupported: dict[str, list[ir.Operation]], poisoned: set[ir.Value]) -> None:
    """The same region op over converted operands, its bodies lowered into fresh blocks
    (which read the values of the enclosing block through the shared value map)."""
    lw.location = op.location
    lw.emitted = []
    try:
        operands = [lw.v(v) for v in op.operands]
    except Unsupported as reason:
        diag.error(op, f"'{op.name}' cannot be lowered: {reason}")
        return
    new = lw.rebuild(op, operands, [])
    carry_placement(op, [new])
    # rebuild() makes no regions: a new op with them replaces it.
    attributes = {new.attributes[i].name: new.attributes[i].attr for i in range(len(new.attributes))}
    with op.location, ir.InsertionPoint(new):
        region_op = ir.Operation.create(op.name, results=[], operands=operands, attributes=attributes,
                                        regions=len(op.regions))
    new.erase()
    for old_region, new_region in zip(op.regions, region_op.regions, strict=True):
        inner = Lowering(new_region.blocks.append(), lw.training)
        inner.values = lw.values
        _lower_ops([inner_op.operation for inner_op in old_region.blocks[0].operations], inner, patterns, diag,
                   unsupported, poisoned)


@dataclasses.dataclass(frozen=True)
class ConvertTorchToPoplar(ModulePass):
    """Lower Torch-dialect compute ops to poplar dialect ops (popops / poplin / popnn).

    Preconditions: value-semantic Torch IR with static shapes (as imported by the
    frontend). Output: the same functions over builtin tensors, with poplar ops and
    tensor views in their bodies. ipu model ops lower with them; the ipu optimizer ops
    (``ipu.sgd_update`` ..., ``ipu.accumulate_grad``) stay, over the converted tensors,
    for ``convert-ipu-to-poplar``. Every op without a lowering is reported with its
    location, and the pass fails; nothing falls back silently.

    Arguments:
      training: lower for a training program (dropout draws masks; default false:
        dropout is the identity, as in inference).
    """

    name: ClassVar[str] = "convert-torch-to-poplar"
    training: bool = False

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        patterns = lowering_patterns()
        for op in list(module.regions[0].blocks[0].operations):
            if op.operation.name == "func.func":
                _lower_function(op.operation, patterns, diag, self.training)

"""poplar-share-pool-indices: a max pool and its gradient share the argmax.

Input: a ``poplar.graph`` of a training step (after ``poplar-build-program``). Output:
the same graph where a 2-D max ``popnn_pool`` whose gradient (``popnn_pool_grad`` of the
same input and window) runs in the same run block is ``popnn_max_pool_with_indices``,
and the gradient is ``popnn_max_pool_grad_with_indices`` reading those indices instead
of pooling the input a second time to find the maxima.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.dialects._base import build
from ipu_mlir.dialects.poplar.program_order import graphs_of, run_blocks

from ..pass_base import Diagnostics, ModulePass
from ..poplar_execution import carry_attributes

# The attributes a pool and its gradient must agree on (count_include_pad does not
# matter to a max pool).
_WINDOW = ("kind", "kernel", "stride", "padding", "ceil_mode")


@dataclasses.dataclass(frozen=True)
class SharePoolIndices(ModulePass):
    """Keep a 2-D max pool's argmax for its gradient instead of pooling the input again.

    Preconditions: a poplar.graph. A popnn_pool_grad of kind "max" with a 2-D window is
    paired with the last max popnn_pool of its run block that reads the same input with
    the same kind, kernel, stride, padding and ceil_mode, when the pool comes first in
    the same block. Each paired pool gives its indices to all of its gradients.

    Arguments: none.
    """

    name: ClassVar[str] = "poplar-share-pool-indices"

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        for graph in graphs_of(module):
            for ops in list(run_blocks(graph)):
                _share(ops)


def _window(op: ir.Operation) -> tuple:
    return (op.operands[0], *(str(op.attributes[name]) for name in _WINDOW))


def _is_max(op: ir.Operation, name: str) -> bool:
    return op.name == name and ir.StringAttr(op.attributes["kind"]).value == "max"


def _share(ops: list[ir.Operation]) -> None:
    pools = {_window(op): op for op in ops if _is_max(op, "poplar.popnn_pool")}
    pairs: dict[ir.Operation, list[ir.Operation]] = {}
    for grad in ops:
        if not _is_max(grad, "poplar.popnn_pool_grad") or len(ir.DenseI64ArrayAttr(grad.attributes["kernel"])) != 2:
            continue
        pool = pools.get(_window(grad))
        if pool is not None and pool.block == grad.block and pool.is_before_in_block(grad):
            pairs.setdefault(pool, []).append(grad)
    for pool, grads in pairs.items():
        window = [pool.attributes[name] for name in ("kernel", "stride", "padding", "ceil_mode")]
        result_type = ir.RankedTensorType(pool.results[0].type)
        indices_type = ir.RankedTensorType.get(result_type.shape, ir.IntegerType.get_signless(64))
        with pool.location, ir.InsertionPoint(pool):
            forward = build(pd.MaxPoolWithIndicesOp, pool.operands[0], *window, result_type, indices_type).operation
        carry_attributes(pool, forward)
        pool.results[0].replace_all_uses_with(forward.results[0])
        pool.erase()
        for grad in grads:
            with grad.location, ir.InsertionPoint(grad):
                backward = build(pd.MaxPoolGradWithIndicesOp, grad.operands[0], *window, grad.operands[1], forward.results[1],
                                 grad.results[0].type).operation
            carry_attributes(grad, backward)
            grad.results[0].replace_all_uses_with(backward.results[0])
            grad.erase()

"""Which ATen ops the frontend decomposes before import.

The rule (as torch-mlir's "backend legal ops"): an op that ``convert-torch-to-poplar`` lowers
stays as it is, because its lowering is at least as fast as torch's decomposition of it
(linear, layer norm, attention...); every other op that torch's Core ATen decomposition
table knows is decomposed into Core ATen ops, which the poplar dialect lowers. Ops in
neither set reach the lowering and are reported there by name and source line.
"""

from __future__ import annotations

import functools

import torch

from ..transforms.convert_torch_to_poplar import lowering_patterns


def mlir_names(op: torch._ops.OpOverload) -> tuple[str, ...]:
    """The names the lowering registry may hold for ``op``: ``torch.aten.add.Tensor`` and
    ``torch.aten.add`` (a pattern registered under the packet covers every overload)."""
    namespace, packet = op.namespace, op._schema.name.split("::")[-1]
    base = f"torch.{namespace}.{packet}"
    overload = op._overloadname
    return (base, f"{base}.{overload}") if overload and overload != "default" else (base,)


def is_lowered(op: torch._ops.OpOverload) -> bool:
    """Whether ``convert-torch-to-poplar`` has a pattern for ``op``."""
    patterns = lowering_patterns()
    return any(name in patterns for name in mlir_names(op))


@functools.cache
def _table() -> dict:
    from torch._decomp import core_aten_decompositions, get_decompositions

    table = core_aten_decompositions()
    # Not in the Core ATen table, but in captured programs: autograd's backward of an
    # indexed assignment (``h[:, 0] = v``) allocates with new_empty_strided.
    table.update(get_decompositions([torch.ops.aten.new_empty_strided.default]))
    for op in list(table.keys()):
        if isinstance(op, torch._ops.OpOverload) and is_lowered(op):
            table.pop(op)
    return dict(table.items())


def decomposition_table(extra: tuple[torch._ops.OpOverload, ...] = ()) -> dict:
    """Torch's Core ATen decompositions of every op that has no lowering, plus the
    decompositions of ``extra`` ops even where they have one (training decomposes
    attention into matmul + softmax so that autograd differentiates lowered ops)."""
    from torch._decomp import get_decompositions

    table = dict(_table())
    table.update(get_decompositions(list(extra)))
    return table

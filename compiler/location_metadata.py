"""The metadata the frontend stores in each op's location, and how passes read it back.

The frontend gives every imported op the location
``loc(fused<{ipu_block = "b", ipu_id = 0 : i64, bwd = false, seq_nr = 3 : i64}>["module.path"("file.py":12:3)])``.
Keys are optional: an op outside any ``poptorch.Block`` has no ``ipu_block``.
"""

from __future__ import annotations

from torch_mlir import ir

BLOCK = "ipu_block"  # str: the user_id of the poptorch.Block the op was traced in
IPU = "ipu_id"  # int: the ipu_id given to that Block (absent when the user gave none)
BACKWARD = "bwd"  # bool: the op belongs to the backward pass
SEQ_NR = "seq_nr"  # int: autograd sequence number; a backward op shares its forward op's


def metadata(op: ir.Operation | ir.OpView) -> dict[str, ir.Attribute]:
    """The op's location metadata as a dict (empty if the location carries none)."""
    location = op.location
    if not isinstance(location, ir.FusedLoc):
        return {}
    try:
        meta = ir.DictAttr(location.metadata)
    except ValueError:  # fused location without a dictionary: not ours
        return {}
    return {named.name: named.attr for named in meta}


def module_path(op: ir.Operation | ir.OpView) -> str | None:
    """The ``nn.Module`` path the frontend put in the op's NameLoc, if any."""
    location = op.location
    inner = location.locations if isinstance(location, ir.FusedLoc) else [location]
    for loc in inner:
        if isinstance(loc, ir.NameLoc):
            return loc.name_str
    return None


def _entry(op: ir.Operation | ir.OpView, key: str) -> ir.Attribute | None:
    """One entry of the op's location metadata (None if absent): a passes' hot path, which
    reads one key without building the dict of every entry (``metadata``)."""
    location = op.location
    if not isinstance(location, ir.FusedLoc):
        return None
    try:
        meta = ir.DictAttr(location.metadata)
    except ValueError:  # fused location without a dictionary: not ours
        return None
    return meta[key] if key in meta else None


def is_backward(op: ir.Operation | ir.OpView) -> bool:
    """Whether the frontend marked the op as part of the backward pass (``bwd = true``)."""
    value = _entry(op, BACKWARD)
    return isinstance(value, ir.BoolAttr) and ir.BoolAttr(value).value


def seq_nr(op: ir.Operation | ir.OpView) -> int | None:
    """The op's autograd sequence number (``seq_nr``), or None when the frontend gave none."""
    value = _entry(op, SEQ_NR)
    return ir.IntegerAttr(value).value if isinstance(value, ir.IntegerAttr) else None

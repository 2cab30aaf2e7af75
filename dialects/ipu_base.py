"""The ``ipu`` dialect class, the base class of its ops and the operand checks that its op
modules (``ipu.py``: attributes and model ops; ``ipu_training.py``: training ops) share."""

from torch_mlir import ir
from torch_mlir.dialects import ext

from ipu_mlir.support.torch_types import vtensor_shape_dtype

from ._base import Rules, verify_with_rules


class Ipu(ext.Dialect, name="ipu"):
    pass


class IpuOp(Ipu.Operation):
    """Base of every ``ipu`` op: runs the op's ``check`` rules as its verifier."""

    def verify_invariants(self) -> bool:
        return verify_with_rules(self, self.check)

    def check(self, v: Rules) -> None:  # pragma: no cover - overridden
        pass


def static_rank(type_: ir.Type) -> int | None:
    """Rank of a builtin ranked tensor or a ``!torch.vtensor<[...],dt>``; None if unknown."""
    if isinstance(type_, ir.RankedTensorType):
        return ir.RankedTensorType(type_).rank
    parsed = vtensor_shape_dtype(type_)
    return None if parsed is None else len(parsed[0])


def check_arity(v: Rules, op: ir.OpView, operands: int, results: int) -> None:
    """Operand and result counts, checked before the rules read ``op.input`` and friends.

    Our verifier runs before the IRDL one, so a wrong count would otherwise surface as
    an IndexError from the generated accessors instead of a diagnostic.
    """
    v.count(list(op.operation.operands), operands, "operands")
    v.count(list(op.operation.results), results, "results")


def check_same_type(v: Rules, a: ir.Value, b: ir.Value, what: str) -> None:
    v.require(a.type == b.type, f"{what}: result type {b.type} must equal input type {a.type}")

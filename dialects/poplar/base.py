"""The ``poplar`` dialect class, the base class of its ops, and the shape checks that
the op verifiers of every ``poplar`` module (graph, popops, poplin, popnn, views) share.
"""

from collections.abc import Sequence

from torch_mlir import ir
from torch_mlir.dialects import ext

from .._base import Rules, verify_with_rules
from .planning import check_planning


class Poplar(ext.Dialect, name="poplar"):
    pass


class PoplarOp(Poplar.Operation):
    """Base of every ``poplar`` op: runs the op's ``check`` rules as its verifier."""

    def verify_invariants(self) -> bool:
        return verify_with_rules(self, self._check_structure_then_rules)

    def _check_structure_then_rules(self, v: Rules) -> None:
        # This verifier runs before IRDL's, and ``check`` reads operands, results and
        # regions through ``ext`` accessors, which crash (IndexError, KeyError) on an op of
        # the wrong shape. So the shape is checked first.
        _check_structure(v, self)
        self.check(v)
        check_planning(v, self.operation)

    def check(self, v: Rules) -> None:  # pragma: no cover - overridden
        pass


def _check_structure(v: Rules, op: ext.Operation) -> None:
    """Region, result and operand counts as declared (and ``resultSegmentSizes`` /
    ``operandSegmentSizes``)."""
    cls, operation = type(op), op.operation

    def expect(what: str, declared: int, actual: int) -> None:
        v.require(declared == actual, f"expects {declared} {what}{'' if declared == 1 else 's'}, got {actual}")

    expect("region", cls._ODS_REGIONS[0], len(operation.regions))
    if cls._ODS_RESULT_SEGMENTS is None:
        expect("result", sum(isinstance(f, ext.ResultDef) for f in cls._fields), len(operation.results))
    else:
        _check_segments(v, "result", len(operation.results), cls._ODS_RESULT_SEGMENTS)
    if cls._ODS_OPERAND_SEGMENTS is None:
        expect("operand", sum(isinstance(f, ext.OperandDef) for f in cls._fields), len(operation.operands))
    else:
        _check_segments(v, "operand", len(operation.operands), cls._ODS_OPERAND_SEGMENTS)


def _check_segments(v: Rules, what: str, count: int, declared: Sequence[int]) -> None:
    """``operandSegmentSizes`` (``what`` = "operand") or ``resultSegmentSizes`` ("result")
    has one entry per group, 1 for a single value, and the entries add up to the number
    of operands or results."""
    # The ``ext`` accessors of variadic operands and results read the attribute without
    # checking it, and IRDL ignores it when an op has a single variadic group: a missing
    # or wrong attribute would crash ``check`` or silently misread the values.
    name = f"{what}SegmentSizes"
    attr = v._attr(name)
    v.require(
        isinstance(attr, ir.DenseI32ArrayAttr) and len(ir.DenseI32ArrayAttr(attr)) == len(declared),
        f"attribute '{name}' must be an array<i32: ...> with {len(declared)} elements, got {attr}",
    )
    sizes = list(ir.DenseI32ArrayAttr(attr))
    for group, (size, kind) in enumerate(zip(sizes, declared, strict=True)):
        v.require(size >= 0, f"attribute '{name}' has a negative entry: {sizes}")
        v.require(kind != 1 or size == 1, f"attribute '{name}' entry #{group} must be 1 (a single {what}), got {size}")
    v.require(sum(sizes) == count, f"attribute '{name}' {sizes} adds up to {sum(sizes)}, but the op has {count} {what}s")


Tensor = ext.Operand[ir.RankedTensorType]


TensorResult = ext.Result[ir.RankedTensorType]


def shape_of(value: ir.Value, what: str) -> list[int]:
    return list(Rules.ranked(value, what).shape)


def element_of(value: ir.Value) -> ir.Type:
    return ir.RankedTensorType(value.type).element_type


def check_dim(v: Rules, dim: int, rank: int, what: str = "dim") -> None:
    v.require(0 <= dim < max(rank, 1), f"attribute '{what}' must be in [0, {max(rank, 1)}), got {dim}")


def broadcast_shapes(shapes: Sequence[Sequence[int]]) -> list[int] | None:
    """NumPy broadcasting of static shapes; None if they do not broadcast."""
    rank = max((len(s) for s in shapes), default=0)
    out: list[int] = []
    for axis in range(rank):
        sizes = {s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0}
        sizes.discard(1)
        if len(sizes) > 1:
            return None
        out.append(sizes.pop() if sizes else 1)
    return out


def check_broadcast(v: Rules, operands: Sequence[ir.Value], result: ir.Value) -> None:
    shapes = [shape_of(o, f"operand #{i}") for i, o in enumerate(operands)]
    out = broadcast_shapes(shapes)
    v.require(out is not None, f"operand shapes {shapes} do not broadcast")
    v.require(out == shape_of(result, "result"), f"result shape {shape_of(result, 'result')} must be the broadcast shape {out}")


def check_same_type(v: Rules, value: ir.Value, reference: ir.Value, what: str, reference_what: str) -> None:
    v.require(value.type == reference.type, f"{what} type {value.type} must equal {reference_what} type {reference.type}")

"""Shared pieces of the Python-defined dialects: attribute constraint markers and the
verifier helper that turns rule violations into located MLIR diagnostics.

Every op of ``ipu``, ``pipeline`` and ``poplar`` derives from a dialect base class that
uses :func:`verify_with_rules`; an op states its rules in ``check(self, v: Rules)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from torch_mlir import ir

from .enums import DialectEnum

E = TypeVar("E", bound=DialectEnum)


class I64ArrayAttr(ir.DenseI64ArrayAttr):
    """Constraint marker for ``array<i64: ...>`` attributes (lowers to IRDL base #builtin.dense_array)."""

    attr_name = "builtin.dense_array"


class RuleViolation(Exception):
    """Raised by :class:`Rules` checks; turned into an error diagnostic on the op."""


class Rules:
    """Typed accessors for an op's attributes, operands and results that fail with our message.

    Each accessor returns the Python value when the rule holds and raises
    :class:`RuleViolation` otherwise. Messages follow MLIR's style:
    ``'dialect.op' op attribute 'x' must be ..., got ...``.
    """

    def __init__(self, op: ir.OpView) -> None:
        self.op = op

    # -- attributes -----------------------------------------------------------------
    def _attr(self, name: str) -> ir.Attribute:
        attrs = self.op.operation.attributes
        if name not in attrs:
            raise RuleViolation(f"requires attribute '{name}'")
        return attrs[name]

    def has(self, name: str) -> bool:
        return name in self.op.operation.attributes

    def int(self, name: str, *, min: int | None = None, max: int | None = None) -> int:
        attr = self._attr(name)
        if not isinstance(attr, ir.IntegerAttr) or isinstance(attr, ir.BoolAttr):
            raise RuleViolation(f"attribute '{name}' must be an integer, got {attr}")
        value = ir.IntegerAttr(attr).value
        if min is not None and value < min:
            raise RuleViolation(f"attribute '{name}' must be >= {min}, got {value}")
        if max is not None and value > max:
            raise RuleViolation(f"attribute '{name}' must be <= {max}, got {value}")
        return value

    def bool(self, name: str) -> bool:
        attr = self._attr(name)
        if not isinstance(attr, ir.BoolAttr):
            raise RuleViolation(f"attribute '{name}' must be a bool (true/false), got {attr}")
        return ir.BoolAttr(attr).value

    def float(
        self,
        name: str,
        *,
        min: float | None = None,
        max: float | None = None,
        min_exclusive: bool = False,
    ) -> float:
        attr = self._attr(name)
        if not isinstance(attr, ir.FloatAttr):
            raise RuleViolation(f"attribute '{name}' must be a float, got {attr}")
        value = ir.FloatAttr(attr).value
        if math.isnan(value):
            raise RuleViolation(f"attribute '{name}' must not be NaN")
        if min is not None and (value < min or (min_exclusive and value == min)):
            op = ">" if min_exclusive else ">="
            raise RuleViolation(f"attribute '{name}' must be {op} {min}, got {value}")
        if max is not None and value > max:
            raise RuleViolation(f"attribute '{name}' must be <= {max}, got {value}")
        return value

    def string(self, name: str, *, choices: Iterable[str] | None = None, nonempty: bool = False) -> str:
        attr = self._attr(name)
        if not isinstance(attr, ir.StringAttr):
            raise RuleViolation(f"attribute '{name}' must be a string, got {attr}")
        value = ir.StringAttr(attr).value
        if choices is not None:
            options = list(choices)
            if value not in options:
                valid = ", ".join(f'"{c}"' for c in options)
                raise RuleViolation(f"attribute '{name}' must be one of {valid}, got \"{value}\"")
        if nonempty and not value:
            raise RuleViolation(f"attribute '{name}' must not be empty")
        return value

    def enum(self, name: str, cls: type[E]) -> E:
        """A string attribute spelling a member of ``cls``; the violation lists the valid values."""
        text = self.string(name)
        try:
            return cls.parse(text, f"attribute '{name}'")
        except ValueError as error:
            raise RuleViolation(str(error)) from None

    def strings(self, name: str) -> list[str]:
        attr = self._attr(name)
        if not isinstance(attr, ir.ArrayAttr) or not all(isinstance(a, ir.StringAttr) for a in attr):
            raise RuleViolation(f"attribute '{name}' must be an array of strings, got {attr}")
        return [ir.StringAttr(a).value for a in attr]

    def i64_array(
        self, name: str, *, size: int | None = None, min: int | None = None
    ) -> list[int]:
        attr = self._attr(name)
        if not isinstance(attr, ir.DenseI64ArrayAttr):
            raise RuleViolation(f"attribute '{name}' must be an array<i64: ...>, got {attr}")
        values = list(ir.DenseI64ArrayAttr(attr))
        if size is not None and len(values) != size:
            raise RuleViolation(f"attribute '{name}' must have {size} elements, got {len(values)}")
        if min is not None and any(v < min for v in values):
            raise RuleViolation(f"attribute '{name}' elements must be >= {min}, got {values}")
        return values

    def type_attr(self, name: str) -> ir.Type:
        attr = self._attr(name)
        if not isinstance(attr, ir.TypeAttr):
            raise RuleViolation(f"attribute '{name}' must be a type, got {attr}")
        return ir.TypeAttr(attr).value

    # -- values ---------------------------------------------------------------------
    @staticmethod
    def ranked(value: ir.Value, what: str) -> ir.RankedTensorType:
        if not isinstance(value.type, ir.RankedTensorType):
            raise RuleViolation(f"{what} must be a ranked tensor, got {value.type}")
        return ir.RankedTensorType(value.type)

    def same_types(self, values: Sequence[ir.Value], what: str) -> None:
        types = {str(v.type) for v in values}
        if len(types) > 1:
            raise RuleViolation(f"{what} must all have the same type, got {', '.join(sorted(types))}")

    def require(self, condition: bool, message: str) -> None:
        if not condition:
            raise RuleViolation(message)

    def count(self, values: Sequence[ir.Value], expected: int | Sequence[int], what: str) -> None:
        allowed = [expected] if isinstance(expected, int) else list(expected)
        if len(values) not in allowed:
            want = " or ".join(str(a) for a in allowed)
            raise RuleViolation(f"expects {want} {what}, got {len(values)}")


def verify_with_rules(op: ir.OpView, check: Callable[[Rules], None]) -> bool:
    """Run ``check`` and report a violated rule as an error located at ``op``."""
    try:
        check(Rules(op))
    except RuleViolation as violation:
        op.location.emit_error(f"'{op.operation.name}' op {violation}")
        return False
    except Exception as error:  # a malformed op the rules did not foresee: never a traceback
        op.location.emit_error(f"'{op.operation.name}' op is malformed ({type(error).__name__}: {error})")
        return False
    return True


def build(cls: type, *args: object, loc: ir.Location | None = None, ip: ir.InsertionPoint | None = None) -> ir.OpView:
    """Create an ``ext``-defined op from its fields in declaration order.

    Unlike the generated ``__init__``, this keeps falsy attributes (``false``, ``0``):
    the generated builder treats them as missing. Variadic operand / result groups take
    lists; segment sizes are added when the op has variadic groups.
    """
    from torch_mlir.dialects.ext import AttributeDef, OperandDef, RegionDef, ResultDef
    from torch_mlir.dialects.irdl import Variadicity

    fields = [f for f in cls._fields if not isinstance(f, RegionDef)]
    if len(args) != len(fields):
        names = ", ".join(f.name for f in fields)
        raise TypeError(f"{cls.__name__} takes {len(fields)} fields ({names}), got {len(args)}")
    operands: list[ir.Value] = []
    operand_segments: list[int] = []
    results: list[ir.Type] = []
    result_segments: list[int] = []
    attributes: dict[str, ir.Attribute] = {}
    for field, value in zip(fields, args, strict=True):
        if isinstance(field, OperandDef):
            group = list(value) if field.variadicity != Variadicity.single else [value]
            operands.extend(group)
            operand_segments.append(len(group))
        elif isinstance(field, ResultDef):
            group = list(value) if field.variadicity != Variadicity.single else [value]
            results.extend(group)
            result_segments.append(len(group))
        elif isinstance(field, AttributeDef):
            attributes[field.name] = value
    if cls._ODS_OPERAND_SEGMENTS is not None:
        attributes["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get(operand_segments)
    if cls._ODS_RESULT_SEGMENTS is not None:
        attributes["resultSegmentSizes"] = ir.DenseI32ArrayAttr.get(result_segments)
    op = ir.Operation.create(
        cls.OPERATION_NAME,
        results=results,
        operands=operands,
        attributes=attributes,
        regions=cls._ODS_REGIONS[0],
        loc=loc,
        ip=ip,
    )
    return op.opview

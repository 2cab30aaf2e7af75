"""Device control flow of the ``ipu`` dialect: ``poptorch.for_loop`` and ``poptorch.cond``.

A loop or conditional is a region op (``ipu.for_loop``, ``ipu.if``) with no operands
or results of its own: IRDL binds every value of a variadic group to one type, and a
loop carries tensors of several types. So, as pipeline stages do with send / recv,
each value crosses the region boundary through an op of its own, matched by ``index``:

- ``ipu.carried`` (in a loop body): carried value ``index``: its operand (defined
  before the loop) on the first iteration, the previous iteration's
  ``ipu.region_yield`` of the same index after that;
- ``ipu.region_yield`` (in a loop body or a branch): the region's value ``index``;
- ``ipu.region_result`` (after the op, in the same block): value ``index`` of the
  region op named ``region`` once it has run (the last iteration's yield; the yield of
  the branch taken).

Ops of the body may also read values defined before the region op (captured).
``poplar-build-program`` turns these into variables, copies, a ``poplar.program_repeat``
/ ``poplar.program_if`` and a ``poplar.function`` per body.
"""

from typing import Any

from torch_mlir import ir
from torch_mlir.dialects import ext

from ._base import Rules
from .ipu_base import IpuOp, check_arity

REGION_OPS = ("ipu.for_loop", "ipu.if")


def _int(op: ir.Operation, name: str) -> int | None:
    attr = op.attributes[name] if name in op.attributes else None
    return ir.IntegerAttr(attr).value if isinstance(attr, ir.IntegerAttr) else None


def _str(op: ir.Operation, name: str) -> str | None:
    attr = op.attributes[name] if name in op.attributes else None
    return ir.StringAttr(attr).value if isinstance(attr, ir.StringAttr) else None


def region_values(region: ir.Region, op_name: str) -> dict[int, list[ir.Operation]]:
    """The ``op_name`` ops (``ipu.carried`` / ``ipu.region_yield``) directly in ``region``, by index."""
    found: dict[int, list[ir.Operation]] = {}
    for block in region.blocks:
        for op in block.operations:
            op = op.operation
            if op.name == op_name and _int(op, "index") is not None:
                found.setdefault(_int(op, "index"), []).append(op)
    return found


def _check_yields(v: Rules, region: ir.Region, count: int, where: str) -> dict[int, ir.Type]:
    """Each index below ``count`` is yielded exactly once in ``region``; the yielded types."""
    yields = region_values(region, "ipu.region_yield")
    v.require(len(region.blocks) == 1, f"{where} must have one block")
    for index in sorted(yields):
        v.require(index < count, f"{where} yields value {index}, but the op has num_values = {count}")
        v.require(len(yields[index]) == 1, f"{where} yields value {index} {len(yields[index])} times")
    missing = [i for i in range(count) if i not in yields]
    v.require(not missing, f"{where} does not yield value(s) {missing}")
    return {index: ops[0].operands[0].type for index, ops in yields.items()}


class ForLoopOp(IpuOp, name="for_loop"):
    """A loop on the device: its body runs ``count`` (>= 1) times (``poptorch.for_loop``).

    Semantics: ``name`` (unique in the function) is how ``ipu.region_result`` refers to
    the loop. The body holds one ``ipu.carried`` and one ``ipu.region_yield`` per carried
    value (``num_values``), with equal types: iteration k + 1 reads what iteration k
    yielded. The body is captured once, never unrolled.

    Example:
      "ipu.for_loop"() ({
        %x = "ipu.carried"(%x0) {index = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
        %y = "poplar.popops_mul"(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
        "ipu.region_yield"(%y) {index = 0 : i64} : (tensor<4xf32>) -> ()
      }) {name = "loop0", count = 5 : i64, num_values = 1 : i64} : () -> ()
      %r = "ipu.region_result"() {region = "loop0", index = 0 : i64} : () -> tensor<4xf32>
    """

    name: ir.StringAttr
    count: ir.IntegerAttr
    num_values: ir.IntegerAttr
    body: ext.Region

    def check(self, v: Rules) -> None:
        check_arity(v, self, 0, 0)
        v.string("name", nonempty=True)
        v.int("count", min=1)
        count = v.int("num_values", min=1)
        region = self.operation.regions[0]
        yielded = _check_yields(v, region, count, "the loop body")
        carried = region_values(region, "ipu.carried")
        for index in range(count):
            ops = carried.get(index, [])
            v.require(len(ops) == 1, f"the loop body must read carried value {index} once with 'ipu.carried', "
                                     f"got {len(ops)}")
            v.require(ops[0].results[0].type == yielded[index],
                      f"carried value {index} is {ops[0].results[0].type} but the body yields {yielded[index]}")
        v.require(not [i for i in carried if i >= count],
                  f"the loop body reads carried values {sorted(carried)}, but the op has num_values = {count}")


class IfOp(IpuOp, name="if"):
    """A conditional on the device (``poptorch.cond``): ``then`` runs when ``condition``
    (a one-element bool tensor computed on the device) is true, ``else`` otherwise.

    Semantics: ``name`` (unique in the function) is how ``ipu.region_result`` refers to
    the op. Each branch yields ``num_values`` values with ``ipu.region_yield``; both
    branches yield the same types. Only the branch taken runs.

    Example:
      "ipu.if"(%c) ({
        %a = "poplar.popops_add"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
        "ipu.region_yield"(%a) {index = 0 : i64} : (tensor<4xf32>) -> ()
      }, {
        "ipu.region_yield"(%x) {index = 0 : i64} : (tensor<4xf32>) -> ()
      }) {name = "if0", num_values = 1 : i64} : (tensor<i1>) -> ()
      %r = "ipu.region_result"() {region = "if0", index = 0 : i64} : () -> tensor<4xf32>
    """

    condition: ext.Operand[Any]
    name: ir.StringAttr
    num_values: ir.IntegerAttr
    then_body: ext.Region
    else_body: ext.Region

    def check(self, v: Rules) -> None:
        check_arity(v, self, 1, 0)
        v.string("name", nonempty=True)
        count = v.int("num_values", min=1)
        condition = self.operation.operands[0].type
        v.require(_one_bool(condition), f"condition must be a one-element bool tensor, got {condition}")
        then_types = _check_yields(v, self.operation.regions[0], count, "the then branch")
        else_types = _check_yields(v, self.operation.regions[1], count, "the else branch")
        for index in range(count):
            v.require(then_types[index] == else_types[index],
                      f"value {index}: the then branch yields {then_types[index]} but the else branch "
                      f"{else_types[index]}; both branches must return the same types")
        for region, where in ((self.operation.regions[0], "then"), (self.operation.regions[1], "else")):
            v.require(not region_values(region, "ipu.carried"), f"the {where} branch reads 'ipu.carried' values: "
                                                                "only a loop body carries values")


def _one_bool(type_: ir.Type) -> bool:
    text = str(type_)
    if isinstance(type_, ir.RankedTensorType):
        shape = ir.RankedTensorType(type_).shape
        return str(ir.RankedTensorType(type_).element_type) == "i1" and all(d == 1 for d in shape)
    return text.startswith("!torch.vtensor<[") and text.endswith("],i1>") and \
        all(d.strip() == "1" for d in text[len("!torch.vtensor<["):-len("],i1>")].split(",") if d.strip())


def _enclosing_region_op(op: ir.Operation) -> ir.Operation | None:
    parent = op.parent
    return parent if parent is not None and parent.name in REGION_OPS else None


class CarriedOp(IpuOp, name="carried"):
    """Carried value ``index`` of the enclosing ``ipu.for_loop``: ``initial`` (defined
    before the loop) on the first iteration, then what the previous iteration yielded.

    Example:
      %x = "ipu.carried"(%x0) {index = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    """

    initial: ext.Operand[Any]
    index: ir.IntegerAttr
    value: ext.Result[Any]

    def check(self, v: Rules) -> None:
        check_arity(v, self, 1, 1)
        v.int("index", min=0)
        v.require(self.operation.operands[0].type == self.operation.results[0].type,
                  f"result type {self.operation.results[0].type} must equal the initial value's type "
                  f"{self.operation.operands[0].type}")
        parent = self.operation.parent
        v.require(parent is not None and parent.name == "ipu.for_loop", "must be directly in an 'ipu.for_loop' body")


class RegionYieldOp(IpuOp, name="region_yield"):
    """Value ``index`` of the enclosing loop body (the next iteration's carried value) or
    branch (the conditional's result).

    Example:
      "ipu.region_yield"(%y) {index = 0 : i64} : (tensor<4xf32>) -> ()
    """

    value: ext.Operand[Any]
    index: ir.IntegerAttr

    def check(self, v: Rules) -> None:
        check_arity(v, self, 1, 0)
        v.int("index", min=0)
        v.require(_enclosing_region_op(self.operation) is not None,
                  "must be directly in an 'ipu.for_loop' body or an 'ipu.if' branch")


class RegionResultOp(IpuOp, name="region_result"):
    """Value ``index`` of the ``ipu.for_loop`` / ``ipu.if`` named ``region``, which comes
    before it in the same block: the last iteration's yield, or the branch taken's.

    Example:
      %r = "ipu.region_result"() {region = "loop0", index = 0 : i64} : () -> tensor<4xf32>
    """

    region: ir.StringAttr
    index: ir.IntegerAttr
    value: ext.Result[Any]

    def check(self, v: Rules) -> None:
        check_arity(v, self, 0, 1)
        name = v.string("region", nonempty=True)
        index = v.int("index", min=0)
        owner = region_op_before(self.operation, name)
        v.require(owner is not None, f"refers to region op \"{name}\", which is not an 'ipu.for_loop' or 'ipu.if' "
                                     "before it in the same block")
        count = _int(owner, "num_values")
        v.require(count is None or index < count, f"reads value {index} of \"{name}\", which has {count}")
        yields = region_values(owner.regions[0], "ipu.region_yield").get(index, [])
        if yields:
            yielded = yields[0].operands[0].type
            v.require(yielded == self.operation.results[0].type,
                      f"result type {self.operation.results[0].type} must equal the type \"{name}\" yields, {yielded}")


def region_op_before(op: ir.Operation, name: str) -> ir.Operation | None:
    """The ``ipu.for_loop`` / ``ipu.if`` named ``name`` before ``op`` in its block."""
    block = op.block
    for candidate in block.operations:
        candidate = candidate.operation
        if candidate == op:
            return None
        if candidate.name in REGION_OPS and _str(candidate, "name") == name:
            return candidate
    return None


def register_traits() -> None:
    """Region bodies end without a terminator: values leave through ``ipu.region_yield``."""
    for name in REGION_OPS:
        ir.NoTerminatorTrait.attach(name)


__all__ = ["REGION_OPS", "CarriedOp", "ForLoopOp", "IfOp", "RegionResultOp", "RegionYieldOp", "region_op_before",
           "region_values", "register_traits"]

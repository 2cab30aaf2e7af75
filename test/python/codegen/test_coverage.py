"""Which poplar-dialect ops have a C++ emission (issue 18: "every poplar-dialect op has an
emission"). The ops without one are listed here explicitly, so the gap stays visible: a new
op without an emission, or an op that gains one, fails this test until the list is updated."""

from __future__ import annotations

from ipu_mlir.compiler.codegen import emitted_op_names
from ipu_mlir.dialects.poplar.base import PoplarOp

WITHOUT_EMISSION: set[str] = set()  # every op has one


def _dialect_ops() -> set[str]:
    names, todo = set(), [PoplarOp]
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        name = cls.__dict__.get("OPERATION_NAME")
        if isinstance(name, str):
            names.add(name.removeprefix("poplar."))
    return names


def test_the_ops_without_a_cpp_emission_are_the_listed_ones() -> None:
    ops = _dialect_ops()
    assert len(ops) > 90  # the enumeration found the dialect
    emitted = {name.removeprefix("poplar.") for name in emitted_op_names()}
    assert emitted <= ops, f"emissions for ops the dialect does not have: {sorted(emitted - ops)}"
    missing = ops - emitted
    assert missing == WITHOUT_EMISSION, (f"newly without an emission: {sorted(missing - WITHOUT_EMISSION)}; "
                                         f"now emitted (remove from the list): {sorted(WITHOUT_EMISSION - missing)}")

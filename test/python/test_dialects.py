"""The Python-defined dialects as their users meet them: generated IRDL files in step with
the Python definitions, documented ops, loading, and the verifier's messages when an op
is built from Python or parsed.
"""

from __future__ import annotations

import re

import pytest
from helpers import REPEAT_COUNT_ERROR
from torch_mlir import ir

from ipu_mlir import dialects
from ipu_mlir.dialects import poplar


@pytest.fixture
def context() -> ir.Context:
    return dialects.make_context()


@pytest.mark.parametrize("name", sorted(dialects.DIALECTS))
def test_irdl_file_is_fresh(name: str) -> None:
    path = dialects.irdl_path(name)
    assert path.exists(), f"{path} is missing: run `python -m ipu_mlir.dialects`"
    assert path.read_text() == dialects.irdl_text(name), (
        f"{path.name} is stale: dialects/{name}.py changed since it was generated; "
        "run `python -m ipu_mlir.dialects`"
    )


@pytest.mark.parametrize("name", sorted(dialects.DIALECTS))
def test_every_op_has_a_summary_and_an_example(name: str) -> None:
    problems = []
    for op in dialects.DIALECTS[name].operations:
        doc = (op.__doc__ or "").strip()
        if not doc or not doc.splitlines()[0].strip():
            problems.append(f"{op.__name__} ({op.OPERATION_NAME}): no summary line")
        elif not re.search(r"^\s*Example:", doc, re.M):
            problems.append(f"{op.__name__} ({op.OPERATION_NAME}): no 'Example:' section")
    assert not problems, f"dialects/{name}.py: " + "; ".join(problems)


def test_load_all_is_idempotent(context: ir.Context) -> None:
    dialects.load_all(context)  # make_context loaded them already
    dialects.load_all(context)
    for name in dialects.DIALECTS:
        assert context.is_dialect_loaded(name)
    module = ir.Module.parse('"poplar.program_sync"() {kind = "global"} : () -> ()', context)
    assert isinstance(module.body.operations[0], poplar.SyncOp)


def test_parsed_ops_come_back_as_their_python_classes(context: ir.Context) -> None:
    module = ir.Module.parse(
        '%0 = "poplar.constant"() {value = dense<1.0> : tensor<2xf32>, ipu = 0 : i64} : () -> tensor<2xf32>\n'
        '%1 = "poplar.popops_add"(%0, %0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>',
        context,
    )
    constant, add = module.body.operations
    assert isinstance(constant, poplar.ConstantOp) and isinstance(add, poplar.AddOp)
    assert add.lhs == constant.result and add.rhs == constant.result


def test_op_built_from_python_with_a_bad_attribute_reports_our_message(context: ir.Context) -> None:
    with context, ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            poplar.RepeatOp(count=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0))
        with pytest.raises(ir.MLIRError) as caught:
            module.operation.verify()
    assert [d.message for d in caught.value.error_diagnostics] == [REPEAT_COUNT_ERROR]


def test_parsed_op_with_a_bad_attribute_reports_our_message(context: ir.Context) -> None:
    with pytest.raises(ir.MLIRError) as caught:
        ir.Module.parse('"poplar.program_repeat"() ({\n}) {count = 0 : i64} : () -> ()', context)
    [diagnostic] = caught.value.error_diagnostics
    assert diagnostic.message == REPEAT_COUNT_ERROR
    assert str(diagnostic.location) == 'loc("-":1:1)'


def test_map_expression_nested_too_deeply_is_an_error_not_a_crash(context: ir.Context) -> None:
    expr = "neg(" * 2000 + "_1" + ")" * 2000  # deeper than Python's recursion limit
    source = (
        "func.func @f(%a: tensor<3xf32>) {\n"
        f'  %0 = "poplar.popops_map"(%a) {{expr = "{expr}", operandSegmentSizes = array<i32: 1, 0, 0>}}'
        " : (tensor<3xf32>) -> tensor<3xf32>\n"
        "  return\n}"
    )
    with pytest.raises(ir.MLIRError) as caught:
        ir.Module.parse(source, context)
    [diagnostic] = caught.value.error_diagnostics
    assert diagnostic.message.startswith("'poplar.popops_map' op has an expression nested too deeply")

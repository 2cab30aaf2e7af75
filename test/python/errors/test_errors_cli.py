"""Error catalogue, command line: ``ipu-opt`` and ``ipu-translate`` on input a user (or a
fuzzer) might give them. Each runs as a subprocess with a timeout, so a crash is a
negative exit code and a hang a ``TimeoutExpired``, both failures here.

Issue 20: deep nesting segfaulted in MLIR's parser; an op in custom syntax exited 1 with
no message; an unknown ipu-translate flag was never named; an ipu_id of 2**32 in IR made
ipu-assign-stages count up to the next power of 2 forever; a buffer without a name
raised a KeyError in poplar-build-program.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from helpers import IPU_OPT, IPU_TRANSLATE, run_tool

from ipu_mlir.tools.input_checks import MAX_NESTING


def _run(tool: str, *args: str, input: str | bytes | None = None) -> subprocess.CompletedProcess:
    result = run_tool(tool, *args, input=input)
    assert result.returncode >= 0, f"killed by signal {-result.returncode}"
    stderr = result.stderr if isinstance(result.stderr, str) else result.stderr.decode()
    assert "Traceback" not in stderr, stderr
    return result


def _nested_modules(depth: int) -> str:
    return "module {" * depth + "}" * depth


def test_deep_nesting_is_refused_before_parsing() -> None:
    result = _run(IPU_OPT, "-", input=_nested_modules(5000))
    assert result.returncode == 1
    assert result.stderr.startswith(f"<stdin>:1:{8 * MAX_NESTING + 8}: error: input nests brackets and regions more "
                                    f"than {MAX_NESTING} levels deep; MLIR's parser recurses once per level")


def test_nesting_at_the_limit_is_parsed() -> None:
    result = _run(IPU_OPT, "-", input=_nested_modules(MAX_NESTING))
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("builtin.module") == MAX_NESTING


def test_nesting_one_past_the_limit_is_refused() -> None:
    result = _run(IPU_OPT, "-", input=_nested_modules(MAX_NESTING + 1))
    assert result.returncode == 1 and f"more than {MAX_NESTING} levels deep" in result.stderr


def test_translate_refuses_deep_nesting_too() -> None:
    result = _run(IPU_TRANSLATE, "--mlir-to-bytecode", "-", input=_nested_modules(5000))
    assert result.returncode == 1 and f"more than {MAX_NESTING} levels deep" in result.stderr


CUSTOM_SYNTAX = """\
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = poplar.popops_add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


@pytest.mark.parametrize("tool", ["ipu-opt", "ipu-translate"])
def test_op_in_custom_syntax_names_the_op(tool: str) -> None:
    args = (IPU_OPT, "-") if tool == "ipu-opt" else (IPU_TRANSLATE, "--mlir-to-bytecode", "-")
    result = _run(*args, input=CUSTOM_SYNTAX)
    assert result.returncode == 1
    assert result.stderr.startswith(
        "<stdin>:2:8: error: 'poplar.popops_add' is written in a custom assembly format, which the poplar dialect "
        "does not have (ipu-mlir's dialects are defined in Python): write it in MLIR's generic form")


@pytest.mark.parametrize("args", [["--foo"], ["--mlir-to-bytecode", "--foo"], ["--foo=1", "--bytecode-to-mlir"]])
def test_translate_names_an_unknown_flag(args: list[str]) -> None:
    result = _run(IPU_TRANSLATE, *args, "-", input="")
    assert result.returncode == 2
    assert result.stderr.startswith(f"ipu-translate: error: unknown option '{args[0] if args[0] != '--mlir-to-bytecode' else '--foo'}'")
    assert "--schedule-to-text" in result.stderr  # the options there are


def test_truncated_input_prints_the_parsers_diagnostic() -> None:
    result = _run(IPU_OPT, "-", input='"poplar.program_repeat"() ({\n')
    assert result.returncode == 1 and re.match(r"<stdin>:\d+:\d+: error: ", result.stderr), result.stderr


def test_binary_input_is_named() -> None:
    result = _run(IPU_OPT, "-", input=b"\x80\x81\x82")
    assert result.returncode == 2
    assert result.stderr.decode().startswith("ipu-opt: error: '<stdin>' is not UTF-8 text")


def test_missing_input_file(tmp_path: Path) -> None:
    result = _run(IPU_OPT, str(tmp_path / "missing.mlir"))
    assert result.returncode == 2
    assert result.stderr == f"ipu-opt: error: cannot read '{tmp_path / 'missing.mlir'}': No such file or directory\n"


def test_unknown_pass_option() -> None:
    result = _run(IPU_OPT, "-", "-p", "poplar-build-program{device-iteration=2}", input="")
    assert result.returncode == 2
    assert "pass 'poplar-build-program' has no option 'device-iteration'" in result.stderr


STAGES_HEADER = ('func.func @f(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> attributes {ipu.strategy = '
                 '#ipu.strategy<"pipelined", "same_as_ipu", [], false, 2 : i64, 1 : i64, 1 : i64, true, array<i64>, "always_live", false>} {\n')


def _stages_input(ipu_id: int) -> str:
    return (STAGES_HEADER
            + '  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> '
              'loc(fused<{ipu_block = "b0", ipu_id = 0 : i64}>["l0"("model.py":1:1)])\n'
            + '  %1 = torch.aten.tanh %0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> '
              f'loc(fused<{{ipu_block = "b1", ipu_id = {ipu_id} : i64}}>["l1"("model.py":2:1)])\n'
            + '  return %1 : !torch.vtensor<[2],f32>\n}\n')


def test_huge_ipu_id_in_ir_does_not_hang() -> None:
    result = _run(IPU_OPT, "-", "-p", "ipu-annotate-blocks,ipu-assign-stages", input=_stages_input(4294967296))
    assert result.returncode == 1
    assert ("error: block 'b1' is placed on IPU 4294967296, but one process drives at most 64 IPUs (ids 0 to 63)"
            in result.stderr)


def test_ipu_id_63_in_ir_is_rounded_up_to_64_ipus() -> None:
    result = _run(IPU_OPT, "-", "-p", "ipu-annotate-blocks,ipu-assign-stages", input=_stages_input(63))
    assert result.returncode == 0, result.stderr
    assert '#pipeline.plan<"pipelined", 2 : i64, 2 : i64, 64 : i64' in result.stdout


def test_build_program_on_a_buffer_without_a_name() -> None:
    source = ('func.func @main(%arg0: tensor<3xf32> {ipu.role = #ipu.role<"buffer", "">}, '
              '%arg1: tensor<3xf32> {ipu.role = #ipu.role<"input", "x">}) -> tensor<3xf32> {\n'
              '  return %arg1 : tensor<3xf32>\n}\n')
    result = _run(IPU_OPT, "-", "-p", "poplar-build-program", input=source)
    assert result.returncode == 1
    assert result.stderr == ("<stdin>:1:1: error: argument #0 (buffer) has an empty name in its 'ipu.role'; its device "
                             "variable and host stream are named after it: give every argument a unique name\n")


def test_a_pass_given_ir_it_cannot_take_reports_a_diagnostic() -> None:
    # Torch ops where poplar-build-program expects poplar ops (convert-torch-to-poplar not run).
    source = ('func.func @main(%arg0: !torch.vtensor<[2],f32> {ipu.role = #ipu.role<"input", "x">}) -> '
              '!torch.vtensor<[2],f32> {\n'
              '  %0 = torch.aten.relu %arg0 : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32>\n'
              '  return %0 : !torch.vtensor<[2],f32>\n}\n')
    result = _run(IPU_OPT, "-", "-p", "poplar-build-program", input=source)
    assert result.returncode == 1
    assert "<stdin>:2:8: error: 'torch.aten.relu' is not a poplar op; run convert-torch-to-poplar first" in result.stderr


def test_invalid_ir_made_by_a_pass_never_reaches_the_next_pass() -> None:
    # The pass manager verifies after every pass (ipu-opt verifies the input as it parses,
    # run_pipeline before the first pass), so no pass receives invalid IR: a pass that
    # makes some is reported by the verifier, located at the op.
    import dataclasses

    from torch_mlir import ir

    from ipu_mlir.compiler.pass_base import ModulePass
    from ipu_mlir.compiler.pass_pipeline import PipelineElement, build_pass_manager
    from ipu_mlir.dialects import make_context
    from ipu_mlir.support.ir_build import i64

    seen: list[str] = []

    @dataclasses.dataclass(frozen=True)
    class ZeroTheLoop(ModulePass):
        name = "zero-the-loop"

        def run(self, module: ir.Operation, diag: object) -> None:
            def visit(op: ir.Operation) -> ir.WalkResult:
                seen.append(op.name)
                if op.name == "poplar.program_repeat":
                    op.attributes["count"] = i64(0)
                return ir.WalkResult.ADVANCE

            module.walk(visit)

    context = make_context()
    module = ir.Module.parse('"poplar.program_repeat"() ({\n}) {count = 2 : i64} : () -> ()\n', context)
    elements = [PipelineElement("zero-the-loop", ZeroTheLoop()), PipelineElement("zero-the-loop", ZeroTheLoop())]
    with pytest.raises(ir.MLIRError) as caught:
        build_pass_manager(elements, context).run(module.operation)
    assert [d.message for d in caught.value.error_diagnostics] == [
        "'poplar.program_repeat' op attribute 'count' must be >= 1, got 0"]
    assert seen.count("poplar.program_repeat") == 1  # the second pass never ran on the invalid module


def test_a_lowering_given_out_of_range_constants_reports_the_op() -> None:
    # Found by the fuzzer: a negative size in select_backward's input_sizes made the
    # lowering build tensor<-2x1x4xf32>, an internal MLIRError; now a located error.
    source = (
        'func.func @f(%g: !torch.vtensor<[2,4],f32>) -> !torch.vtensor<[2,3,4],f32> {\n'
        '  %int1 = torch.constant.int 1\n  %int2 = torch.constant.int 2\n  %int4 = torch.constant.int 4\n'
        '  %neg = torch.constant.int -2\n'
        '  %sizes = torch.prim.ListConstruct %neg, %int2, %int4 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>\n'
        '  %0 = torch.operator "torch.aten.select_backward"(%g, %sizes, %int1, %int1) : (!torch.vtensor<[2,4],f32>, '
        '!torch.list<int>, !torch.int, !torch.int) -> !torch.vtensor<[2,3,4],f32>\n'
        '  return %0 : !torch.vtensor<[2,3,4],f32>\n}\n')
    result = _run(IPU_OPT, "-", "-p", "convert-torch-to-poplar{training=true}", input=source)
    assert result.returncode == 1
    assert ("<stdin>:7:8: error: 'torch.aten.select_backward' cannot be lowered to the poplar dialect: its arguments "
            "give an invalid type or attribute (invalid tensor dimension size)") in result.stderr
    assert "internal error" not in result.stderr

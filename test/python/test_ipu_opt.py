"""What a user of ``ipu-opt`` and ``ipu-translate`` sees: exit codes, the one-line located
errors, the files written, and the reproducer of a failed ``run_pipeline``.

The tools run as subprocesses (the console scripts next to ``sys.executable``), as a user
runs them; each call costs about 0.2 s, so cases are few and pointed.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import IPU_OPT, IPU_TRANSLATE, REPEAT_COUNT_ERROR, REPO, run_tool

from ipu_mlir.compiler import registry

# A valid poplar program (the smallest graph the verifier accepts).
GRAPH = """\
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {name = "h2d.x", direction = "host_to_device", type = tensor<4xf32>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_stream_copy"(%x) {stream = "h2d.x"} : (tensor<4xf32>) -> ()
    }) {count = 2 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
"""

# Torch IR whose locations carry block metadata, for ipu-annotate-blocks.
TORCH_FUNC = """\
func.func @forward(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %0 = torch.aten.relu %x : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32> loc(fused<{ipu_block = "enc", ipu_id = 1 : i64}>["enc"("model.py":10:1)])
  return %0 : !torch.vtensor<[2],f32>
}
"""

# Line 3 holds a verifier error: the device loop must run at least once.
BAD_REPEAT = """\
// A device loop of zero iterations.
"poplar.program_repeat"() ({
}) {count = 0 : i64} : () -> ()
"""


def error_lines(result: subprocess.CompletedProcess) -> list[str]:
    assert "Traceback" not in result.stderr, result.stderr
    return result.stderr.splitlines()


@pytest.fixture
def graph_file(tmp_path: Path) -> Path:
    path = tmp_path / "graph.mlir"
    path.write_text(GRAPH)
    return path


# -- errors ---------------------------------------------------------------------------


def test_garbage_on_stdin_is_one_located_error() -> None:
    result = run_tool(IPU_OPT, input="this is not MLIR\n")
    assert result.returncode == 1
    [line] = error_lines(result)
    assert re.fullmatch(r"<stdin>:1:1: error: .+", line), line
    assert result.stdout == ""


def test_garbage_in_a_file_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.mlir"
    path.write_text(GRAPH + "%0 = oops\n")
    result = run_tool(IPU_OPT, str(path))
    assert result.returncode == 1
    [line] = error_lines(result)
    assert line.startswith(f"{path}:10:"), line
    assert ": error: " in line


def test_verifier_failure_is_one_located_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text(BAD_REPEAT)
    result = run_tool(IPU_OPT, str(path))
    assert result.returncode == 1
    assert error_lines(result) == [f"{path}:2:1: error: {REPEAT_COUNT_ERROR}"]


@pytest.mark.parametrize("args", [["-p", "no-such-pass"], ["--no-such-pass"]], ids=["pipeline", "flag"])
def test_unknown_pass_is_named(graph_file: Path, args: list[str]) -> None:
    result = run_tool(IPU_OPT, str(graph_file), *args)
    assert result.returncode != 0
    [line] = error_lines(result)
    assert "'no-such-pass'" in line
    assert "ipu-annotate-blocks" in line  # the message lists our passes


@pytest.mark.parametrize(
    ("pipeline", "named"),
    [
        ("ipu-annotate-blocks{nope=1}", ["ipu-annotate-blocks", "nope", "inherit-from-producers"]),
        ("canonicalize{nope=1}", ["canonicalize", "nope"]),
    ],
    ids=["ipu-mlir-pass", "mlir-pass"],
)
def test_bad_pass_option_is_one_line(graph_file: Path, pipeline: str, named: list[str]) -> None:
    result = run_tool(IPU_OPT, str(graph_file), "-p", pipeline)
    assert result.returncode != 0
    [line] = error_lines(result)
    for word in named:
        assert word in line, line


def test_unreadable_inputs_are_clean_errors(tmp_path: Path) -> None:
    missing = tmp_path / "missing.mlir"
    result = run_tool(IPU_OPT, str(missing))
    assert result.returncode != 0
    assert error_lines(result) == [f"ipu-opt: error: cannot read '{missing}': No such file or directory"]

    bytecode = tmp_path / "graph.mlirbc"
    bytecode.write_bytes(run_tool(IPU_TRANSLATE, "--mlir-to-bytecode", input=GRAPH.encode()).stdout)
    result = run_tool(IPU_OPT, str(bytecode))
    assert result.returncode != 0
    [line] = error_lines(result)
    assert "is not UTF-8 text" in line and "ipu-translate --bytecode-to-mlir" in line


def test_a_verifier_bug_is_one_located_line_not_a_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # In process: break a verifier the way a bug would, and look at what the user gets.
    import io

    from ipu_mlir.dialects import poplar
    from ipu_mlir.tools import ipu_opt

    def crash(self, v) -> None:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(poplar.RepeatOp, "check", crash)
    path = tmp_path / "graph.mlir"
    path.write_text(GRAPH + "// -----\n" + TORCH_FUNC)
    out, err = io.StringIO(), io.StringIO()
    assert ipu_opt.run([str(path), "--split-input-file"], stdout=out, stderr=err) == 1
    [line] = err.getvalue().splitlines()
    assert line.startswith(f"{path}:5:5: error: 'poplar.program_repeat' op "), line
    assert "ZeroDivisionError: division by zero" in line
    assert '"func.func"' in out.getvalue()  # the other chunk is still processed


# -- options --------------------------------------------------------------------------


def test_list_passes_shows_every_registered_pass_with_its_summary() -> None:
    result = run_tool(IPU_OPT, "--list-passes")
    assert result.returncode == 0
    for name in registry.pass_names():
        summary = registry.load_pass(name).summary()
        assert summary, f"pass '{name}' has no docstring summary"
        assert re.search(rf"^  {re.escape(name)} +{re.escape(summary)}", result.stdout, re.M), name


def test_output_file(graph_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.mlir"
    result = run_tool(IPU_OPT, str(graph_file), "-o", str(out))
    assert result.returncode == 0 and result.stdout == ""
    text = out.read_text()
    assert text.startswith('"builtin.module"() ({')
    assert '"poplar.program_repeat"() ({' in text and "{count = 2 : i64}" in text


def test_split_input_file_joins_outputs_and_keeps_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "chunks.mlir"
    path.write_text(GRAPH + "// -----\n" + TORCH_FUNC + "// -----\n" + BAD_REPEAT)
    result = run_tool(IPU_OPT, str(path), "--split-input-file")
    assert result.returncode == 1
    chunks = result.stdout.split("\n// -----\n")
    assert len(chunks) == 2  # the failing chunk prints nothing
    assert '"poplar.graph"' in chunks[0] and '"func.func"' in chunks[1]
    bad_line = GRAPH.count("\n") + TORCH_FUNC.count("\n") + 2 + 2
    assert error_lines(result) == [f"{path}:{bad_line}:1: error: {REPEAT_COUNT_ERROR}"]


@pytest.mark.parametrize(("expected", "status"), [(REPEAT_COUNT_ERROR, 0), ("must be >= 2", 1)], ids=["right", "wrong"])
def test_verify_diagnostics(tmp_path: Path, expected: str, status: int) -> None:
    path = tmp_path / "expect.mlir"
    path.write_text(BAD_REPEAT.replace("\n\"poplar", f"\n// expected-error@+1 {{{{{expected}}}}}\n\"poplar", 1))
    result = run_tool(IPU_OPT, str(path), "--verify-diagnostics")
    assert result.returncode == status
    if status:
        lines = error_lines(result)
        assert f"{path}:3: error: unexpected error: {REPEAT_COUNT_ERROR}" in lines
        assert f'{path}:2: error: expected error "{expected}" on line 3 was not produced' in lines
    else:
        assert result.stderr == ""


def test_passes_as_flags_and_print_ir_after_all(tmp_path: Path) -> None:
    path = tmp_path / "forward.mlir"
    path.write_text(TORCH_FUNC)
    result = run_tool(IPU_OPT, str(path), "--ipu-annotate-blocks", "--mlir-print-ir-after-all")
    assert result.returncode == 0
    annotated = '"torch.aten.relu"(%arg0) {ipu.block = #ipu.block<"enc", 1 : i64>}'
    assert annotated in result.stdout
    # The IR dump goes to stderr, so stdout stays the pass output.
    assert "IR Dump After ipu-annotate-blocks" in result.stderr
    assert annotated in result.stderr
    assert "IR Dump" not in result.stdout


def test_ipu_opt_does_not_import_torch() -> None:
    code = (
        "import sys; from ipu_mlir.tools import ipu_opt; ipu_opt.run(['--list-passes']); "
        "assert 'torch' not in sys.modules, sorted(m for m in sys.modules if m.split('.')[0] == 'torch')"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


# -- ipu-translate --------------------------------------------------------------------


def test_translate_poplar_to_cpp(graph_file: Path) -> None:
    result = run_tool(IPU_TRANSLATE, "--poplar-to-cpp", str(graph_file))
    assert result.returncode == 0, result.stderr
    assert 'graph.addHostToDeviceFIFO("h2d.x", poplar::FLOAT, 4);' in result.stdout
    assert "poplar::program::Repeat(2, " in result.stdout


def test_translate_poplar_to_cpp_names_an_op_without_emission(tmp_path: Path) -> None:
    path = tmp_path / "graph.mlir"
    path.write_text(GRAPH.replace('"poplar.program_stream_copy"(%x) {stream = "h2d.x"} : (tensor<4xf32>) -> ()',
                                  '%e = "arith.addf"(%x, %x) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>')  # (every poplar op has an emission)
                    .replace("tensor<4xf32>", "tensor<2x2xf32>"))
    result = run_tool(IPU_TRANSLATE, "--poplar-to-cpp", str(path))
    assert result.returncode == 1 and result.stdout == "", result.stdout
    [line] = error_lines(result)
    assert line.startswith("ipu-translate: error: 'arith.addf' at ") and line.endswith(")") and " has no C++ emission yet (emitted compute ops: " in line


def test_translate_poplar_to_cpp_does_not_import_torch(graph_file: Path) -> None:
    code = (
        "import sys; from ipu_mlir.tools import ipu_translate; "
        f"assert ipu_translate.run(['--poplar-to-cpp', {str(graph_file)!r}, '-o', {str(graph_file) + '.cpp'!r}]) == 0; "
        "assert 'torch' not in sys.modules, sorted(m for m in sys.modules if m.split('.')[0] == 'torch')"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_translate_bytecode_round_trip(graph_file: Path) -> None:
    bytecode = run_tool(IPU_TRANSLATE, "--mlir-to-bytecode", str(graph_file), binary=True)
    assert bytecode.returncode == 0 and bytecode.stdout.startswith(b"ML\xefR")
    text = run_tool(IPU_TRANSLATE, "--bytecode-to-mlir", input=bytecode.stdout)
    assert text.returncode == 0
    assert text.stdout.decode() == run_tool(IPU_OPT, str(graph_file)).stdout


def test_translate_errors_are_located_on_stdin() -> None:
    result = run_tool(IPU_TRANSLATE, "--mlir-to-bytecode", input="garbage\n")
    assert result.returncode == 1
    [line] = error_lines(result)
    assert line.startswith("<stdin>:1:1: error: ")


# -- run_pipeline ---------------------------------------------------------------------


def test_failed_pipeline_writes_a_reproducer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from torch_mlir import ir

    from ipu_mlir.compiler.pass_pipeline import PipelineError, run_pipeline
    from ipu_mlir.dialects import make_context

    monkeypatch.setenv("IPU_MLIR_REPRO_DIR", str(tmp_path))
    source = (REPO / "test/Transforms/ipu-annotate-blocks-invalid.mlir").read_text()
    module = ir.Module.parse(source, make_context())
    with pytest.raises(PipelineError) as caught:
        run_pipeline(module, "canonicalize,ipu-annotate-blocks{inherit-from-producers=false}", name="blocks")
    error = caught.value
    assert error.reproducer.parent == tmp_path and error.reproducer.exists()
    assert "model.py:1:5: error: block 'b': ipu_id must be >= 0, got -2" in error.diagnostics
    assert error.command in str(error)
    argv = shlex.split(error.command)
    assert argv[0] == "ipu-opt" and "-p" in argv
    assert argv[argv.index("-p") + 1] == "canonicalize,ipu-annotate-blocks{inherit-from-producers=false}"
    rerun = run_tool(IPU_OPT, *argv[1:])
    assert rerun.returncode == 1
    assert error_lines(rerun) == error.diagnostics


# -- every pass has a lit test --------------------------------------------------------


def test_every_registered_pass_has_a_lit_test() -> None:
    missing = [name for name in registry.pass_names() if not (REPO / "test/Transforms" / f"{name}.mlir").exists()]
    assert not missing, f"passes without test/Transforms/<name>.mlir: {', '.join(missing)}"


_SYNC_WITHOUT_KIND = '"poplar.program_sync"() : () -> ()'


@pytest.mark.parametrize("marker", ["expected-error@+1", "expected-error @+1"])
def test_verify_diagnostics_reads_both_spellings(tmp_path: Path, marker: str) -> None:
    """MLIR writes the offset with or without a space; both are expectations."""
    path = tmp_path / "x.mlir"
    path.write_text(f"func.func @f() {{\n  // {marker} {{{{requires attribute 'kind'}}}}\n  {_SYNC_WITHOUT_KIND}\n  return\n}}\n")
    result = run_tool(IPU_OPT, str(path), "--verify-diagnostics")
    assert result.returncode == 0, result.stderr


def test_verify_diagnostics_rejects_an_unreadable_expectation(tmp_path: Path) -> None:
    path = tmp_path / "x.mlir"
    path.write_text(f"func.func @f() {{\n  // expected-error +1 requires attribute\n  {_SYNC_WITHOUT_KIND}\n  return\n}}\n")
    result = run_tool(IPU_OPT, str(path), "--verify-diagnostics")
    assert result.returncode == 1
    assert f"{path}:2: error: cannot read the expectation in '// expected-error +1 requires attribute'" in result.stderr


def test_verify_diagnostics_unknown_location(tmp_path: Path) -> None:
    """``@unknown`` matches a diagnostic with no location in the file, and only such one."""
    path = tmp_path / "x.mlir"
    path.write_text("// expected-error @unknown {{requires attribute 'kind'}}\n"
                    f"func.func @f() {{\n  {_SYNC_WITHOUT_KIND} loc(unknown)\n  return\n}}\n")
    result = run_tool(IPU_OPT, str(path), "--verify-diagnostics")
    assert result.returncode == 0, result.stderr
    path.write_text(path.read_text().replace(" loc(unknown)", ""))
    result = run_tool(IPU_OPT, str(path), "--verify-diagnostics")
    assert result.returncode == 1
    assert "on line None was not produced" not in result.stderr and "at an unknown location was not produced" in result.stderr

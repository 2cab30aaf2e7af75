"""Inputs that once crashed the process (SIGSEGV with an empty stderr) now compile, or fail
with our message; never a signal. Each case runs in a subprocess, so a crash fails the test
instead of killing pytest.

The three models died in ``run_pipeline``, which printed an invalid imported module with
``assume_verified=True``: its ``res_attrs`` had one entry for two results (an ``out=``
argument or an input updated in place returns the same value twice) or an empty array for
a ``!torch.none`` result, which MLIR's verifier lets through and its printer reads past.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import REPO

_PRELUDE = f"""
import sys
sys.path.insert(0, {str(REPO / "python")!r})
import torch, poptorch
torch.manual_seed(0)
"""


def _run(body: str, tmp_path: Path) -> subprocess.CompletedProcess:
    script = tmp_path / "case.py"
    script.write_text(_PRELUDE + textwrap.dedent(body))
    env = {**os.environ, "IPU_MLIR_REPRO_DIR": str(tmp_path / "repro")}
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env,
                          cwd=tmp_path)


def _assert_clean_exit(result: subprocess.CompletedProcess) -> None:
    assert result.returncode >= 0, f"killed by signal {-result.returncode}; stderr:\n{result.stderr[-2000:]}"
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().endswith("OK"), result.stdout


@pytest.mark.parametrize("body", [
    pytest.param("""
        class M(torch.nn.Module):
            def forward(self, x, y, out):
                torch.matmul(x, y, out=out)
                return out
        x, y, out = torch.randn(3, 4), torch.randn(4, 2), torch.zeros(3, 2)
        result = poptorch.inferenceModel(M())(x, y, out)
        assert result is out
        torch.testing.assert_close(out, x @ y, rtol=1e-5, atol=1e-6)
        print("OK")
    """, id="matmul-out-input"),
    pytest.param("""
        class M(torch.nn.Module):
            def forward(self, x):
                x.add_(1)
                return x * 2
        x = torch.randn(2, 3)
        before = x.clone()
        result = poptorch.inferenceModel(M())(x)
        torch.testing.assert_close(x, before + 1, rtol=0, atol=0)
        torch.testing.assert_close(result, (before + 1) * 2, rtol=0, atol=0)
        print("OK")
    """, id="add_-on-input"),
    pytest.param("""
        class M(torch.nn.Module):
            def forward(self, x):
                return None
        assert poptorch.inferenceModel(M())(torch.randn(2, 3)) is None
        print("OK")
    """, id="forward-returns-none"),
])
def test_former_crash_now_runs_as_eager(body: str, tmp_path: Path) -> None:
    _assert_clean_exit(_run(body, tmp_path))


def test_invalid_module_is_refused_before_printing(tmp_path: Path) -> None:
    """run_pipeline never prints or runs passes on a module that does not verify: an empty
    ``res_attrs`` for one result (which MLIR's own verifier accepts, and its printer crashes
    on) and one entry for two results both give InvalidModuleError with our message."""
    result = _run("""
        from torch_mlir import ir
        from ipu_mlir.compiler.pass_pipeline import InvalidModuleError, run_pipeline
        from ipu_mlir.dialects import make_context

        SOURCE = '''
        func.func @main(%a: !torch.vtensor<[2],f32>) -> (!torch.vtensor<[2],f32>, !torch.none) {
          %0 = torch.constant.none
          return %a, %0 : !torch.vtensor<[2],f32>, !torch.none
        }'''
        for entries in ([], [{}]):
            context = make_context()
            with context, ir.Location.unknown():
                module = ir.Module.parse(SOURCE)
                func = module.body.operations[0]
                func.attributes["res_attrs"] = ir.ArrayAttr.get([ir.DictAttr.get(e) for e in entries])
            try:
                run_pipeline(module, "canonicalize", name="bad")
            except InvalidModuleError as error:
                text = str(error)
                assert "pipeline 'bad' was given an invalid module, so no pass ran" in text, text
                assert f"has {len(entries)} entries in 'res_attrs' for 2 results" in text, text
                assert f"res_attrs = [{'{}' if entries else ''}]" in error.reproducer.read_text()
            else:
                raise AssertionError("no error")
        print("OK")
    """, tmp_path)
    _assert_clean_exit(result)


def test_module_failing_mlir_verifier_gives_its_diagnostic(tmp_path: Path) -> None:
    result = _run("""
        from torch_mlir import ir
        from ipu_mlir.compiler.pass_pipeline import InvalidModuleError, run_pipeline
        from ipu_mlir.dialects import make_context

        context = make_context()
        with context, ir.Location.unknown():
            module = ir.Module.parse('func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> { return %a : tensor<2xf32> }')
            func = module.body.operations[0]
            ret = func.regions[0].blocks[0].operations[0]
            ret.erase()  # a block without its terminator
        try:
            run_pipeline(module, "canonicalize", name="noterm")
        except InvalidModuleError as error:
            assert error.diagnostics and "error:" in error.diagnostics[0], error.diagnostics
            assert error.reproducer.exists()
        else:
            raise AssertionError("no error")
        print("OK")
    """, tmp_path)
    _assert_clean_exit(result)


def test_reproducer_exists_while_the_pass_manager_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hard crash inside the pass manager still leaves the reproducer: it is written
    before the run (and removed after a successful one)."""
    from torch_mlir import ir

    from ipu_mlir.compiler import pass_pipeline
    from ipu_mlir.dialects import make_context

    monkeypatch.setenv("IPU_MLIR_REPRO_DIR", str(tmp_path))
    seen: list[dict[str, str]] = []
    real = pass_pipeline.build_pass_manager

    class Watching:
        def __init__(self, pm: object) -> None:
            self.pm = pm

        def run(self, operation: ir.Operation) -> None:
            seen.append({path.name: path.read_text() for path in tmp_path.glob("*.mlir")})
            self.pm.run(operation)

    monkeypatch.setattr(pass_pipeline, "build_pass_manager", lambda *a: Watching(real(*a)))
    module = ir.Module.parse("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> { return %a : tensor<2xf32> }",
                             make_context())
    pass_pipeline.run_pipeline(module, "canonicalize", name="watched")
    [files] = seen
    [(name, text)] = files.items()
    assert name.startswith("watched-")
    assert "func.func @main" in text and "// reproduce with: ipu-opt" in text
    assert not list(tmp_path.glob("*.mlir"))  # removed after success

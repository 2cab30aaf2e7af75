#!/usr/bin/env python3
"""Set up ipu-mlir from nothing and run the demo or every test.

    python3 dev.py demo   # venv + pinned deps + project, then the README demo
    python3 dev.py test   # venv + pinned deps + project, then lit + pytest (not the slow tests)
    python3 dev.py slow   # the slow tests only (pytest -m slow: the longer C++ round trips)
    python3 dev.py ops [--limit N] [--ops a,b] [--json out]   # the OpInfo op sweep (bench/ops.py)
    python3 dev.py fuzz N [--seed S] [--save DIR]   # ipu-opt on N mutated lit inputs, 2 workers

Needs only Python 3.11 (gcc and cmake are not used by the default path). The virtual
environment lives in .venv (override with IPU_MLIR_VENV) and is reused while
pyproject.toml is unchanged.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("IPU_MLIR_VENV", ROOT / ".venv"))
STAMP = VENV / ".ipu-mlir-installed"
# torch first and pinned exactly: an unpinned torch pulls the CUDA build (several GB).
TORCH = "torch==2.13.0"

# glibc returns big buffers to the OS and page-faults them back in on the next step;
# these keep them (STACK_NOTES: 1.2-1.6x faster CNN/BERT steps). Must be set before
# the process starts, hence here.
MALLOC_ENV = {
    "MALLOC_MMAP_THRESHOLD_": str(1 << 30),
    "MALLOC_TRIM_THRESHOLD_": str(1 << 31),
    "MALLOC_TOP_PAD_": str(1 << 28),
}


def log(message: str) -> None:
    print(f"[dev.py] {message}", flush=True)


def python_in_venv() -> Path:
    return VENV / "bin" / "python"


def run(cmd: list[str], **kwargs) -> int:
    log("$ " + " ".join(str(c) for c in cmd))
    return subprocess.call([str(c) for c in cmd], **kwargs)


def setup() -> None:
    if sys.version_info[:2] != (3, 11):
        sys.exit(f"ipu-mlir needs Python 3.11 (torch 2.13.0 CPU wheel); this is {sys.version.split()[0]}")
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == digest and python_in_venv().exists():
        return
    start = time.perf_counter()
    if not python_in_venv().exists():
        log(f"creating virtual environment {VENV}")
        venv.EnvBuilder(with_pip=True).create(VENV)
    pip = [python_in_venv(), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    if run([*pip, TORCH]) != 0:
        sys.exit("installing torch failed")
    if run([*pip, "-e", f"{ROOT}[test]"]) != 0:
        sys.exit("installing ipu-mlir failed")
    STAMP.write_text(digest)
    log(f"environment ready in {time.perf_counter() - start:.1f} s")


def env() -> dict[str, str]:
    out = dict(os.environ)
    for key, value in MALLOC_ENV.items():
        out.setdefault(key, value)
    out["PATH"] = f"{VENV / 'bin'}{os.pathsep}{out.get('PATH', '')}"
    return out


def demo() -> int:
    return run([python_in_venv(), ROOT / "examples" / "demo.py"], env=env(), cwd=ROOT)


def _status(code: int) -> str:
    """ok, FAILED, or the signal that killed the process (a crash, not a failing test)."""
    if code == 0:
        return "ok"
    if code < 0:
        try:
            return f"CRASHED ({signal.Signals(-code).name})"
        except ValueError:
            return f"CRASHED (signal {-code})"
    return "FAILED"


def test() -> int:
    start = time.perf_counter()
    lit_status = run([VENV / "bin" / "lit", "-sv", ROOT / "test"], env=env(), cwd=ROOT)
    # -X faulthandler from the start: a crash in native code prints every thread's Python stack
    # (the test that crashed) even after a library installed its own signal handlers.
    # --durations: the slowest tests in every log, to keep the suite inside its time budget.
    pytest_status = run([python_in_venv(), "-X", "faulthandler", "-m", "pytest", "--durations=40", "-m", "not slow",
                         ROOT / "test" / "python"], env=env(), cwd=ROOT)
    log(f"lit: {_status(lit_status)}; pytest: {_status(pytest_status)}; {time.perf_counter() - start:.1f} s")
    return 1 if lit_status or pytest_status else 0


def slow() -> int:
    """The tests marked slow (pytest.ini's ``slow`` marker), which ``test`` leaves out to keep
    the suite inside its time budget; each has a fast relative in the suite."""
    return run([python_in_venv(), "-X", "faulthandler", "-m", "pytest", "--durations=20", "-m", "slow",
                ROOT / "test" / "python"], env=env(), cwd=ROOT)


def ops() -> int:
    return run([python_in_venv(), ROOT / "bench" / "ops.py", *sys.argv[2:]], env=env(), cwd=ROOT)


def fuzz() -> int:
    return run([python_in_venv(), "-m", "ipu_mlir.tools.fuzz_ipu_opt", *sys.argv[2:], "--jobs", "2"], env=env(), cwd=ROOT)


def main() -> int:
    commands = {"demo": demo, "test": test, "slow": slow, "ops": ops, "fuzz": fuzz, "setup": lambda: 0}
    if len(sys.argv) < 2 or sys.argv[1] not in commands or (len(sys.argv) > 2 and sys.argv[1] not in ("ops", "fuzz")):
        print(__doc__)
        return 2
    setup()
    return commands[sys.argv[1]]()


if __name__ == "__main__":
    sys.exit(main())

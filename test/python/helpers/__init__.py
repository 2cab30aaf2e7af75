"""Plain helpers shared by the pytest files: tolerances, the repository path, the
ipu-opt / ipu-translate runner and the poptorch warnings a test captured. Fixtures live
in ``conftest.py``; torch models in ``helpers.models``, eager reference runs and the
comparisons against them in ``helpers.checks``.

Why a package next to the tests rather than conftest.py: pytest advises never to import
from a conftest.py (it is not a module with a stable name), while its default "prepend"
import mode puts this folder on ``sys.path``, so ``from helpers import FP32`` works from
any test file. This package root imports neither torch nor poptorch, so the tool tests
(test_ipu_opt.py, test_dialects.py) stay as torch-free as ipu-opt itself.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]

# -- tolerances for torch.testing.assert_close(actual, expected, **TOLERANCE) -------------
# fp32, the house rule: the IPU Model runs the same torch kernels as eager PyTorch, so a
# result may differ only by the order of floating-point additions (a few ulps of
# 2**-23 ~ 1.2e-7); rtol 1e-5 allows that and nothing more, and atol 1e-6 stands in for
# it on values near 0, where a relative bound means nothing.
FP32 = {"rtol": 1e-5, "atol": 1e-6}
# fp16 after one forward pass: fp16 carries an 11-bit significand (eps = 2**-10 ~ 9.8e-4)
# and the device may accumulate matmuls in a different order than eager, so allow about
# one fp16 ulp.
FP16_FORWARD = {"rtol": 1e-3, "atol": 1e-3}
# fp16 after training: the device may round or order accumulations differently from
# eager, and after a few SGD steps differences of a few ulps (of values ~1) build up, so
# compare within 1e-2 relative / 2e-3 absolute.
FP16_TRAINED = {"rtol": 1e-2, "atol": 2e-3}
# Bit for bit: values copied rather than computed (inputs passed through, integer
# outputs), or two runs that must make the same choices (dropout masks from one seed).
EXACT = {"rtol": 0, "atol": 0}

# -- the command-line tools, run as a user runs them ------------------------------------
_BIN = Path(sys.executable).parent
IPU_OPT = str(_BIN / "ipu-opt")  # the console scripts installed next to this Python
IPU_TRANSLATE = str(_BIN / "ipu-translate")

# The verifier's message for a device loop of zero iterations ("poplar.program_repeat"
# with count = 0), the error case both the Python API and ipu-opt tests use.
REPEAT_COUNT_ERROR = "'poplar.program_repeat' op attribute 'count' must be >= 1, got 0"


# glibc settings under which a read of freed memory crashes at once rather than by luck:
# no per-thread cache of freed blocks (which skips the poisoning), and every freed block
# overwritten with 0x33 bytes. A stale MLIR Python handle of an erased op then segfaults
# on its first use, in every run.
POISONED_FREE_ENV = {"GLIBC_TUNABLES": "glibc.malloc.tcache_count=0", "MALLOC_PERTURB_": "204"}


def run_poisoned(script: str, timeout: int = 300) -> subprocess.CompletedProcess:
    """Run the Python ``script`` in a child process with freed memory poisoned
    (``POISONED_FREE_ENV``); the caller asserts it exits with 0."""
    import os

    env = {**os.environ, **POISONED_FREE_ENV}
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=str(REPO))


def run_tool(tool: str, *args: str, input: str | bytes | None = None, binary: bool = False) -> subprocess.CompletedProcess:
    """Run ``ipu-opt`` or ``ipu-translate``; text in and out unless the input is bytes or
    ``binary`` is set."""
    text = not (binary or isinstance(input, bytes))
    return subprocess.run([tool, *args], input=input, capture_output=True, text=text, timeout=60)


def poptorch_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The messages of the WARNING records of the "poptorch" logger that ``caplog`` holds."""
    return [r.getMessage() for r in caplog.records if r.name == "poptorch" and r.levelno == logging.WARNING]


@contextlib.contextmanager
def time_bound(label: str, seconds: int) -> Iterator[None]:
    """Raise TimeoutError in the test if it is still running after ``seconds``
    (``signal.alarm``: no plugin needed; a hang inside native code needs a child process)."""

    def expire(signum: int, frame: object) -> None:  # noqa: ARG001
        raise TimeoutError(f"{label} did not finish within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


REPLICA_CASE_SECONDS = 240


@pytest.fixture
def bounded_replicas(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test whose replicas meet at collectives never waits forever: import this fixture
    into the test module and use it (``pytestmark = pytest.mark.usefixtures("bounded_replicas")``)."""
    with time_bound(request.node.nodeid, REPLICA_CASE_SECONDS):
        yield

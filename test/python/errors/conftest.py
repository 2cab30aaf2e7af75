"""Fixtures of the error catalogue: every case finishes in a bounded time, and the risky
ones run in a child process, so a crash or a hang is a failed test, not a dead run.

The bound is ``signal.alarm`` (no pytest plugin needed): a case still running after
``CASE_SECONDS`` raises in the test. A hang inside native code does not return to Python
to see the alarm, so cases that could hang or crash there use :func:`run_python` or the
tools' subprocess runner, whose ``timeout`` kills the child.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator

import pytest

from helpers import time_bound

CASE_SECONDS = 240  # a generous bound: the slowest case compiles and trains a small model
CHILD_SECONDS = 180


@pytest.fixture(autouse=True)
def bounded_time(request: pytest.FixtureRequest) -> Iterator[None]:
    with time_bound(request.node.nodeid, CASE_SECONDS):
        yield


@pytest.fixture
def run_python() -> Callable[[str], subprocess.CompletedProcess]:
    """Run a Python snippet in a child process (killed after ``CHILD_SECONDS``, which
    raises ``subprocess.TimeoutExpired``) and check that it ended by itself, not by a
    signal; returns the finished process (exit code, stdout, stderr)."""

    def run(code: str) -> subprocess.CompletedProcess:
        result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                                timeout=CHILD_SECONDS)
        assert result.returncode >= 0, f"killed by signal {-result.returncode}:\n{result.stderr[-3000:]}"
        return result

    return run

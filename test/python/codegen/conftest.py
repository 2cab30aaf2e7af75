"""Prints the C++ compile time of each round-trip model at the end of the run (the
issue asks for it; captured prints would only show on failure)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from roundtrip_timing import COMPILE_SECONDS  # noqa: E402


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if COMPILE_SECONDS:
        times = ", ".join(f"{name} {seconds:.2f} s" for name, seconds in COMPILE_SECONDS.items())
        terminalreporter.write_line(f"Poplar C++ compile time per model (g++ -O1 against tools/poplar-host): {times}")

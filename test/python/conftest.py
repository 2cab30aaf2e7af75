"""pytest setup shared by every test file here: the source-tree fallback for poptorch and
the fixtures. Plain helpers (tolerances, models, eager reference runs) are in the
``helpers`` package next to this file, because pytest advises against importing from a
conftest.py; fixtures stay here, where pytest finds them without an import."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# Running the tests before `pip install -e .`: take poptorch from the source tree. (Looked
# up without importing it, so a test file that needs no torch does not load it.)
if importlib.util.find_spec("poptorch") is None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))


@pytest.fixture
def fresh_poptorch_logging() -> Iterator[None]:
    """The test starts with no warn-once key seen, and ends with the poptorch logger at the
    level it found and the warn-once keys cleared again. Use it in files that assert on
    warnings: ``pytestmark = pytest.mark.usefixtures("fresh_poptorch_logging")``."""
    from poptorch import _logging  # here, not at the top: loading poptorch loads torch

    level = _logging.logger.level
    _logging.reset_warn_once()
    yield
    _logging.logger.setLevel(level)
    _logging.reset_warn_once()

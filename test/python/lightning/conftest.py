"""The Lightning tests need lightning (pinned in pyproject's test extra, installed by
`python3 dev.py test`); the folder is skipped only where it is not importable."""

import sys
from pathlib import Path

import pytest

pytest.importorskip("lightning", reason="lightning is not installed (pip install -e '.[test]')")
sys.path.insert(0, str(Path(__file__).resolve().parent))

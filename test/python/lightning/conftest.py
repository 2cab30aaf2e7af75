"""The Lightning tests need lightning (pinned in pyproject's test extra, which
`python3 dev.py test` installs); each test file skips itself where it is not importable."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _models

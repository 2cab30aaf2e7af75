"""Error catalogue, files: options files that cannot be read or applied. Each message
names the file (and the line, when there is one).

Issue 20: loadFromFile on a binary file raised a UTF-8 decode error without the file name.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import poptorch


def _write(tmp_path: Path, content: str | bytes) -> Path:
    path = tmp_path / "ipu.conf"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def test_binary_file(tmp_path: Path) -> None:
    path = _write(tmp_path, b"deviceIterations(2)\n\x80\x81 not text")
    with pytest.raises(ValueError, match=re.escape(
            f"loadFromFile: {path}:2: the file is not UTF-8 text (byte 20 is 0x80); an options file holds one option "
            "call per line, such as deviceIterations(4). Check the path: it may name a binary file")):
        poptorch.Options().loadFromFile(path)


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "missing.conf"
    with pytest.raises(FileNotFoundError, match=re.escape(
            f"loadFromFile: cannot read the options file (No such file or directory): '{path}'")):
        poptorch.Options().loadFromFile(path)


def test_a_directory(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError, match=re.escape(
            f"loadFromFile: cannot read the options file (Is a directory): '{tmp_path}'")):
        poptorch.Options().loadFromFile(tmp_path)


def test_unclosed_call(tmp_path: Path) -> None:
    path = _write(tmp_path, "# comment\ndeviceIterations(2\n")
    with pytest.raises(ValueError, match=re.escape(f"{path}:2: deviceIterations(2: cannot be parsed ('(' was never closed)")):
        poptorch.Options().loadFromFile(path)


def test_unknown_option(tmp_path: Path) -> None:
    path = _write(tmp_path, "deviceIteration(2)\n")
    with pytest.raises(ValueError, match=re.escape(
            f"{path}:1: deviceIteration(2): 'deviceIteration' is not an option setter of Options.")):
        poptorch.Options().loadFromFile(path)


def test_python_code_is_not_run(tmp_path: Path) -> None:
    path = _write(tmp_path, "import os\n")
    with pytest.raises(ValueError, match=re.escape(f"{path}:1: import os: cannot be parsed (invalid syntax)")):
        poptorch.Options().loadFromFile(path)


def test_a_bad_value_names_its_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "deviceIterations(2)\nTraining.gradientAccumulation(0)\n")
    with pytest.raises(ValueError, match=re.escape(
            f"{path}:2: Training.gradientAccumulation(0): Options.Training.gradientAccumulation(0): the value must be "
            "at least 1")):
        poptorch.Options().loadFromFile(path)

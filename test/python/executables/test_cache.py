"""The executable cache (driver/cache.py): enableExecutableCaching / POPTORCH_CACHE_DIR
store every compiled executable, a later compile of the same program (in any process)
skips the passes and says so in one INFO line, concurrent writers both succeed, a corrupt
entry recompiles with a warning, an unusable directory compiles uncached with a warning,
and the size bound evicts the least recently used entries."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
from exe_models import DropoutClassifier
from helpers import EXACT

import poptorch
from ipu_mlir.artifact.executable import Executable
from ipu_mlir.driver.cache import MAX_BYTES_ENV_VAR, ExecutableCache

HERE = Path(__file__).resolve().parent
HIT = "the executable came from the cache"

_CHILD = """
import sys
sys.path[:0] = [{here!r}, {tests!r}]
import torch, poptorch
from exe_models import DropoutClassifier
torch.manual_seed(0)
model = DropoutClassifier().eval()
x = torch.linspace(-1, 1, 24).reshape(4, 6)
out = poptorch.inferenceModel(model, poptorch.Options())(x)  # the cache directory comes from POPTORCH_CACHE_DIR
assert torch.equal(out, model(x)), (out, model(x))
"""


def _entries(directory: Path) -> list[str]:
    return sorted(os.listdir(directory))


def _run(model: torch.nn.Module, options: poptorch.Options, x: torch.Tensor) -> torch.Tensor:
    return poptorch.inferenceModel(model, options)(x)


def test_two_processes_fill_one_cache_then_a_third_compile_hits(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    cache = tmp_path / "cache"
    script = textwrap.dedent(_CHILD.format(here=str(HERE), tests=str(HERE.parent)))
    env = dict(os.environ, POPTORCH_CACHE_DIR=str(cache))
    children = [subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for child in children:
        _, err = child.communicate(timeout=180)
        assert child.returncode == 0, err[-3000:]
    entries = _entries(cache)
    assert len(entries) == 1 and entries[0].endswith(".ipuexe"), entries  # one whole entry, no temporary left
    # Same model and options in this process: the passes are skipped, one INFO line says so.
    torch.manual_seed(0)
    model = DropoutClassifier().eval()
    x = torch.linspace(-1, 1, 24).reshape(4, 6)
    with caplog.at_level(logging.INFO, logger="poptorch"):
        wrapper = poptorch.inferenceModel(model, poptorch.Options().enableExecutableCaching(str(cache)))
        torch.testing.assert_close(wrapper(x), model(x), **EXACT)
    hits = [r for r in caplog.records if HIT in r.getMessage()]
    assert len(hits) == 1 and hits[0].levelno == logging.INFO
    assert wrapper._compiled.timings.get("cached") == 1.0
    # Another compile-affecting option is another entry.
    _run(model, poptorch.Options().enableExecutableCaching(str(cache)).deviceIterations(2), torch.cat([x, x]))
    assert len(_entries(cache)) == 2


def test_corrupt_entry_recompiles_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    cache = tmp_path / "cache"
    model = DropoutClassifier().eval()
    x = torch.randn(4, 6)
    options = poptorch.Options().enableExecutableCaching(str(cache))
    _run(model, options, x)
    (entry,) = cache.iterdir()
    data = bytearray(entry.read_bytes())
    data[len(data) // 2] ^= 0xFF
    entry.write_bytes(bytes(data))
    with caplog.at_level(logging.INFO):
        wrapper = poptorch.inferenceModel(model, options)
        torch.testing.assert_close(wrapper(x), model(x), **EXACT)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("corrupt executable cache entry removed, recompiling" in w and "checksum does not match" in w
               for w in warnings), warnings
    assert not wrapper._compiled.timings.get("cached")
    # The recompiled executable replaced the entry: the next compile hits.
    caplog.clear()
    with caplog.at_level(logging.INFO):
        _run(model, options, x)
    assert any(HIT in r.getMessage() for r in caplog.records)


def test_unusable_directory_compiles_uncached_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    model = DropoutClassifier().eval()
    x = torch.randn(4, 6)
    with caplog.at_level(logging.WARNING):
        out = _run(model, poptorch.Options().enableExecutableCaching(str(blocker / "cache")), x)
    torch.testing.assert_close(out, model(x), **EXACT)
    assert any("cannot be created" in r.getMessage() and "compiling without the cache" in r.getMessage()
               for r in caplog.records)


def test_missing_directory_is_created(tmp_path: Path) -> None:
    cache = tmp_path / "new" / "cache"
    _run(DropoutClassifier().eval(), poptorch.Options().enableExecutableCaching(str(cache)), torch.randn(4, 6))
    assert len(_entries(cache)) == 1


def test_size_bound_evicts_least_recently_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = ExecutableCache(str(tmp_path))
    executable = Executable(b"\0" * 4000, {"kind": "inference"})
    for index, key in enumerate(["a", "b", "c"]):
        cache.put(key, executable)
        os.utime(cache.path(key), (1000 + index, 1000 + index))
    size = os.path.getsize(cache.path("a"))
    assert cache.get("a") is not None  # a hit makes "a" the most recently used
    monkeypatch.setenv(MAX_BYTES_ENV_VAR, str(2 * size))
    cache.evict()
    assert _entries(tmp_path) == ["a.ipuexe", "c.ipuexe"]
    monkeypatch.setenv(MAX_BYTES_ENV_VAR, "lots")
    with pytest.raises(ValueError, match=f"{MAX_BYTES_ENV_VAR}='lots': expected a number of bytes"):
        cache.evict()


def test_training_from_the_cache_matches_a_fresh_compile(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    import copy

    torch.manual_seed(0)
    first = DropoutClassifier()
    second = copy.deepcopy(first)
    x, y = torch.randn(4, 6), torch.randint(0, 3, (4,))
    options = poptorch.Options().enableExecutableCaching(str(tmp_path)).randomSeed(3)
    runs = []
    with caplog.at_level(logging.INFO, logger="poptorch"):
        for model in (first, second):
            wrapper = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
            runs.append([wrapper(x, y)[1].as_subclass(torch.Tensor) for _ in range(2)])
    assert sum(HIT in r.getMessage() for r in caplog.records) == 1  # the second compile
    torch.testing.assert_close(runs[1], runs[0], **EXACT)
    torch.testing.assert_close(second.state_dict(), first.state_dict(), **EXACT)

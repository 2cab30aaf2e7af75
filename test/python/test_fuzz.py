"""ipu-opt under fuzzing, small enough for every run: 200 mutated lit inputs (fixed seed)
must give no signal, no traceback, no internal error, no hang and no silent failure.
``python3 dev.py fuzz N`` runs more (README, "Reliability"). The detector itself is
checked on fake workers that crash, hang and fail silently.
"""

from __future__ import annotations

import random
import stat
from pathlib import Path

import pytest
from helpers import REPO

from ipu_mlir.tools import fuzz_ipu_opt as fuzz

CASES = 200
SEED = 20


def test_mutated_lit_inputs_never_crash_hang_or_fail_silently() -> None:
    seeds = fuzz.load_seeds(REPO / "test")
    assert len(seeds) > 40  # every lit input of the tree, not a sample
    cases = list(fuzz.make_cases(seeds, CASES, seed=SEED))
    outcomes = fuzz.run_cases(cases, jobs=2, timeout=60)
    counts = fuzz.summarize(outcomes)
    findings = [o for o in outcomes if o.kind in fuzz.FINDINGS]
    report = "\n".join(f"{o.kind} in case {o.case.index} ({o.case.seed.path.name}, {', '.join(o.case.mutations)}; "
                       f"ipu-opt {' '.join(o.case.flags)}):\n{o.detail[-1500:]}" for o in findings[:5])
    assert not findings, f"{counts}\n{report}"
    assert counts["ok"] + counts["error"] == CASES
    assert counts["error"] > CASES // 4  # the mutations do break inputs (each error printed a message)


def test_cases_are_the_same_for_the_same_seed() -> None:
    seeds = fuzz.load_seeds(REPO / "test")
    first = [(c.seed.path, c.text, c.flags) for c in fuzz.make_cases(seeds, 20, seed=3)]
    again = [(c.seed.path, c.text, c.flags) for c in fuzz.make_cases(seeds, 20, seed=3)]
    assert first == again
    assert sum(text != path.read_text() for path, text, _ in first) >= 15  # mutated, not copied


@pytest.mark.parametrize("name", sorted(fuzz.MUTATIONS))
def test_each_mutation_changes_the_text(name: str) -> None:
    text = 'func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {\n  "x.y"() {n = 7 : i64} : () -> ()\n  return %a : tensor<2x3xf32>\n}\n'
    rng = random.Random(1)
    assert any(fuzz.MUTATIONS[name](rng, text) != text for _ in range(10))


def _fake_python(tmp_path: Path, body: str) -> str:
    """An executable standing in for the worker's Python (it ignores its arguments)."""
    path = tmp_path / "fake-python"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


@pytest.mark.parametrize(("body", "kind"), [
    ("read line\nkill -SEGV $$\n", "signal"),
    ("read line\nsleep 30\n", "hang"),
    ('read line\necho \'{"code": 1, "stderr": "", "traceback": ""}\'\nsleep 30\n', "silent_failure"),
    ('read line\necho \'{"code": 1, "stderr": "Traceback (most recent call last):", "traceback": ""}\'\nsleep 30\n',
     "traceback"),
    ('read line\necho \'{"code": 1, "stderr": "x: error: internal error in pass p", "traceback": ""}\'\nsleep 30\n',
     "internal_error"),
])
def test_the_detector_reports_each_kind_of_finding(tmp_path: Path, body: str, kind: str) -> None:
    seeds = fuzz.load_seeds(REPO / "test" / "Dialect" / "ipu")
    case = next(fuzz.make_cases(seeds, 1, seed=0))
    [outcome] = fuzz.run_cases([case], jobs=1, timeout=2, python=_fake_python(tmp_path, body))
    assert outcome.kind == kind, outcome

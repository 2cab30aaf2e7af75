"""Fuzz ``ipu-opt`` with mutated lit inputs: no signal, no traceback, no hang, no silent failure.

Each case takes a lit file under ``test/`` and its ``ipu-opt`` flags (from a RUN line),
applies one to three mutations (delete, duplicate or swap lines; flip characters;
integers made huge or negative; element types or shapes changed; truncation) drawn from
a seeded generator, and runs ``ipu-opt`` on it. Cases run in worker subprocesses that
import ``ipu-opt`` once and run its ``run`` entry on each case (a fresh process per
case costs a second of start-up); a worker that dies by a signal or does not answer in
time is reported and replaced. ``python -m ipu_mlir.tools.fuzz_ipu_opt N`` prints the
figures; ``dev.py fuzz N`` calls it, ``test/python/test_fuzz.py`` runs a few hundred.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import io
import json
import os
import random
import re
import select
import shlex
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

# Outcomes that are findings (each must stay at 0) and the benign ones.
FINDINGS = ("signal", "traceback", "internal_error", "hang", "silent_failure")
OUTCOMES = ("ok", "error", *FINDINGS)
DEFAULT_TIMEOUT_S = 30.0
CASES_PER_WORKER = 300  # a worker is replaced after this many cases (bounds any leak)

_INTEGER = re.compile(r"(?<![\w.%#@^])-?\d+(?![\w.])")
_ELEMENT_TYPE = re.compile(r"\b(?:f16|bf16|f32|f64|i1|i8|i16|i32|i64|si64|si32|ui8)\b")
_SHAPE = re.compile(r"(?<=[<\[])(\d+)(?=[x,\]])")
_HUGE = ("0", "-1", "-2", "2147483648", "4294967296", "1099511627776", "9223372036854775807",
         "-9223372036854775808", "18446744073709551616", "99999999999999999999999999")
_TYPES = ("f16", "bf16", "f32", "f64", "i1", "i8", "i32", "i64", "si64", "ui8", "index", "none", "!torch.int")
_CHARS = '{}()[]<>"%:,=#!@^-+.x0123456789abcdefz \n\\'


@dataclasses.dataclass(frozen=True)
class Seed:
    """A lit input and the ipu-opt flags one of its RUN lines uses."""

    path: Path
    text: str
    flags: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Case:
    index: int
    seed: Seed
    text: str
    flags: tuple[str, ...]
    mutations: tuple[str, ...]


@dataclasses.dataclass
class Outcome:
    case: Case
    kind: str
    detail: str = ""
    seconds: float = 0.0


def _run_flags(line: str) -> tuple[str, ...] | None:
    """The ipu-opt flags of a RUN line (None if it does not run ipu-opt on the file)."""
    match = re.search(r"\bipu-opt\s+%s(.*)", line) or re.search(r"\bipu-opt\s+(.*?)%s", line)
    if match is None:
        return None
    text = re.split(r"\||2>&1|>", match.group(1))[0]
    try:
        return tuple(shlex.split(text))
    except ValueError:
        return None


def load_seeds(root: Path) -> list[Seed]:
    """Every ``.mlir`` file under ``root`` with each distinct ipu-opt flag set of its RUN
    lines; files that no RUN line feeds to ipu-opt are parsed (split if they are split)."""
    seeds = []
    for path in sorted(root.rglob("*.mlir")):
        if "Output" in path.parts:
            continue
        text = path.read_text()
        runs = [line for line in text.splitlines() if "RUN:" in line]
        flag_sets = {flags for line in runs if (flags := _run_flags(line)) is not None}
        if not flag_sets:
            split = any("--split-input-file" in line for line in runs)
            flag_sets = {("--split-input-file",) if split else ()}
        seeds.extend(Seed(path, text, flags) for flags in sorted(flag_sets))
    return seeds


# --- mutations -----------------------------------------------------------------------------


def _lines_op(rng: random.Random, text: str, what: str) -> str:
    lines = text.splitlines(keepends=True)
    if len(lines) < 2:
        return text
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    if what == "delete":
        del lines[i]
    elif what == "duplicate":
        lines.insert(j, lines[i])
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return "".join(lines)


def _flip(rng: random.Random, text: str) -> str:
    if not text:
        return text
    chars = list(text)
    for _ in range(rng.randint(1, 3)):
        chars[rng.randrange(len(chars))] = rng.choice(_CHARS)
    return "".join(chars)


def _replace_match(rng: random.Random, text: str, pattern: re.Pattern[str], make: Callable[[str], str]) -> str:
    matches = list(pattern.finditer(text))
    if not matches:
        return text
    m = rng.choice(matches)
    return text[: m.start()] + make(m.group()) + text[m.end() :]


MUTATIONS: dict[str, Callable[[random.Random, str], str]] = {
    "delete_line": lambda rng, t: _lines_op(rng, t, "delete"),
    "duplicate_line": lambda rng, t: _lines_op(rng, t, "duplicate"),
    "swap_lines": lambda rng, t: _lines_op(rng, t, "swap"),
    "flip_chars": _flip,
    "huge_integer": lambda rng, t: _replace_match(rng, t, _INTEGER, lambda _: rng.choice(_HUGE)),
    "negative_integer": lambda rng, t: _replace_match(rng, t, _INTEGER, lambda s: s[1:] if s.startswith("-") else "-" + s),
    "change_type": lambda rng, t: _replace_match(rng, t, _ELEMENT_TYPE, lambda _: rng.choice(_TYPES)),
    "change_shape": lambda rng, t: _replace_match(rng, t, _SHAPE, lambda _: rng.choice(("0", "1", "3", "7", "65536"))),
    "truncate": lambda rng, t: t[: rng.randrange(len(t) + 1)],
}


def make_cases(seeds: Sequence[Seed], count: int, seed: int = 0) -> Iterator[Case]:
    """``count`` mutated cases, the same for the same ``seed``."""
    rng = random.Random(seed)
    names = sorted(MUTATIONS)
    for index in range(count):
        source = rng.choice(seeds)
        text, applied = source.text, []
        for _ in range(rng.randint(1, 3)):
            name = rng.choice(names)
            text = MUTATIONS[name](rng, text)
            applied.append(name)
        flags = source.flags
        # Mostly run without --verify-diagnostics, so the diagnostics themselves are printed.
        if "--verify-diagnostics" in flags and rng.random() < 0.8:
            flags = tuple(f for f in flags if f != "--verify-diagnostics")
        yield Case(index, source, text, flags, tuple(applied))


# --- the worker (one per subprocess) ------------------------------------------------------


def worker_main() -> int:
    """Answer one JSON line per request line: run ipu-opt in this process on the case."""
    from ipu_mlir.tools import ipu_opt

    protocol = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # anything written to fd 1 by native code stays out of the protocol
    with tempfile.TemporaryDirectory(prefix="ipu-opt-fuzz-") as scratch:
        path = Path(scratch) / "case.mlir"
        for line in sys.stdin:
            request = json.loads(line)
            path.write_text(request["text"])
            out, err = io.StringIO(), io.StringIO()
            escaped = ""
            try:
                code = ipu_opt.run([str(path), *request["flags"]], stdout=out, stderr=err)
            except SystemExit as exit_:  # argparse
                code = exit_.code if isinstance(exit_.code, int) else 1
            except BaseException:  # noqa: BLE001 - the finding itself
                code, escaped = 1, traceback.format_exc()
            protocol.write(json.dumps({"code": code, "stderr": err.getvalue(), "traceback": escaped}) + "\n")
            protocol.flush()
    return 0


class _Worker:
    """One worker subprocess; ``ask`` returns (kind, detail)."""

    def __init__(self, python: str, timeout: float) -> None:
        self.timeout = timeout
        self.cases = 0
        env = dict(os.environ, PYTHONFAULTHANDLER="")
        self.proc = subprocess.Popen(
            [python, "-m", "ipu_mlir.tools.fuzz_ipu_opt", "--worker"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)

    def ask(self, case: Case) -> tuple[str, str]:
        self.cases += 1
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write(json.dumps({"text": case.text, "flags": list(case.flags)}) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            return self._died()
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        if not ready:
            self.stop()
            return "hang", f"no answer within {self.timeout:g} s"
        line = self.proc.stdout.readline()
        if not line:
            return self._died()
        reply = json.loads(line)
        stderr = reply["stderr"]
        if reply["traceback"]:
            return "traceback", reply["traceback"]
        if "Traceback (most recent call last)" in stderr:
            return "traceback", stderr
        if "internal error in pass" in stderr:
            return "internal_error", stderr
        if reply["code"] != 0 and not stderr.strip():
            return "silent_failure", f"exit code {reply['code']} and nothing on stderr"
        return ("ok" if reply["code"] == 0 else "error"), stderr[:400]

    def _died(self) -> tuple[str, str]:
        try:
            code = self.proc.wait(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            return "hang", "the worker closed its output but did not exit"
        if code < 0:
            return "signal", f"killed by signal {-code}"
        return "traceback", f"the worker exited with code {code} mid-case"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()  # our own worker, by its handle
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass


def run_cases(cases: Sequence[Case], jobs: int = 2, timeout: float = DEFAULT_TIMEOUT_S,
              python: str = sys.executable, progress: Callable[[int], None] | None = None) -> list[Outcome]:
    """Run ``cases`` over ``jobs`` worker subprocesses; one Outcome per case, in order."""
    outcomes: list[Outcome | None] = [None] * len(cases)
    pending = collections.deque(range(len(cases)))
    lock = threading.Lock()
    done = [0]

    def drive() -> None:
        worker = _Worker(python, timeout)
        try:
            while True:
                with lock:
                    if not pending:
                        return
                    index = pending.popleft()
                case = cases[index]
                start = time.perf_counter()
                kind, detail = worker.ask(case)
                outcomes[index] = Outcome(case, kind, detail, time.perf_counter() - start)
                if worker.proc.poll() is not None or kind == "hang" or worker.cases >= CASES_PER_WORKER:
                    worker.stop()
                    worker = _Worker(python, timeout)
                with lock:
                    done[0] += 1
                    if progress is not None:
                        progress(done[0])
        finally:
            worker.stop()

    threads = [threading.Thread(target=drive, daemon=True) for _ in range(max(1, jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()  # each case is bounded by the timeout, so every driver ends
    return [o for o in outcomes if o is not None]


def summarize(outcomes: Sequence[Outcome]) -> dict[str, int]:
    counts = {kind: 0 for kind in OUTCOMES}
    for outcome in outcomes:
        counts[outcome.kind] += 1
    return counts


def save_findings(outcomes: Sequence[Outcome], directory: Path) -> list[Path]:
    """Write each finding's input as ``<kind>-<index>.mlir`` with the command in a header."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for outcome in outcomes:
        if outcome.kind not in FINDINGS:
            continue
        path = directory / f"{outcome.kind}-{outcome.case.index}.mlir"
        header = (f"// fuzz finding: {outcome.kind} ({outcome.detail.strip().splitlines()[-1] if outcome.detail.strip() else ''})\n"
                  f"// from {outcome.case.seed.path.name}, mutations {', '.join(outcome.case.mutations)}\n"
                  f"// reproduce: ipu-opt {path.name} {' '.join(outcome.case.flags)}\n")
        path.write_text(header + outcome.case.text)
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fuzz_ipu_opt", description=__doc__.splitlines()[0])
    parser.add_argument("count", nargs="?", type=int, default=300, help="number of mutated cases")
    parser.add_argument("--seed", type=int, default=0, help="random seed (same seed, same cases)")
    parser.add_argument("--jobs", type=int, default=2, help="worker subprocesses")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds per case before it is a hang")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1] / "test", help="lit test tree")
    parser.add_argument("--save", type=Path, default=None, help="write each finding's input to this directory")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker_main()
    seeds = load_seeds(args.root)
    if not seeds:
        sys.stderr.write(f"fuzz_ipu_opt: error: no .mlir files under {args.root}\n")
        return 2
    cases = list(make_cases(seeds, args.count, args.seed))
    start = time.perf_counter()
    step = max(1, args.count // 20)

    def progress(done: int) -> None:
        if done % step == 0:
            sys.stderr.write(f"  {done}/{args.count} cases, {time.perf_counter() - start:.0f} s\n")

    outcomes = run_cases(cases, jobs=args.jobs, timeout=args.timeout, progress=progress)
    seconds = time.perf_counter() - start
    counts = summarize(outcomes)
    print(f"ipu-opt fuzz: {len(outcomes)} cases from {len(seeds)} lit inputs (seed {args.seed}, {args.jobs} workers) "
          f"in {seconds:.0f} s")
    print("  " + ", ".join(f"{counts[k]} {k.replace('_', ' ')}" for k in OUTCOMES))
    findings = [o for o in outcomes if o.kind in FINDINGS]
    for outcome in findings[:20]:
        last = outcome.detail.strip().splitlines()[-1] if outcome.detail.strip() else ""
        print(f"  {outcome.kind}: case {outcome.case.index} ({outcome.case.seed.path.name}; "
              f"{', '.join(outcome.case.mutations)}): {last[:200]}")
    if args.save is not None and findings:
        print(f"  findings written to {args.save} ({len(save_findings(findings, args.save))} files)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())

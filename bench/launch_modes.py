"""Run a benchmark's models in both launch modes and print the two ratios side by side.

- ``dev.py``: the environment ``python3 dev.py ...`` gives its children (``dev.env()``:
  the ``MALLOC_*_`` variables of ``dev.MALLOC_ENV`` exported before the process starts);
- ``plain python``: a user's ``python script.py``: the same environment with every
  ``MALLOC_*`` variable removed, so the only allocator settings are the ones the runtime
  applies itself when it loads (``ipu_mlir.runtime.host_allocator``).

Each model runs in one child process per mode (alternating, so that load on the machine
hits both alike); the child measures eager and the IPU Model in the same process and
prints one result line that this module reads back. Used by ``inference.py`` and
``training.py`` (``--launch both``, their default).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = "@@bench-result "
MODES = ("dev.py", "plain python")


def _dev_module():  # noqa: ANN202
    spec = importlib.util.spec_from_file_location("ipu_mlir_dev", ROOT / "dev.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def environment(mode: str) -> dict[str, str]:
    """The environment of a child in ``mode`` (one of :data:`MODES`)."""
    if mode == "dev.py":
        return _dev_module().env()
    if mode == "plain python":
        return {key: value for key, value in os.environ.items() if not key.startswith("MALLOC_")}
    raise ValueError(f"unknown launch mode {mode!r}; the modes are {', '.join(MODES)}")


def emit(result: dict) -> None:
    """In a child: hand one model's result to the parent (one line on stdout)."""
    from ipu_mlir.runtime.host_allocator import HOST_ALLOCATOR

    result = dict(result, allocator=sorted(HOST_ALLOCATOR.applied),
                  malloc_env=sorted(k for k in os.environ if k.startswith("MALLOC_")))
    print(MARKER + json.dumps(result), flush=True)


def run_child(script: Path, args: list[str], mode: str) -> dict:
    """Run ``script --launch here --emit-results *args`` in ``mode``; echo its output
    (prefixed with the mode) and return its one result."""
    command = [sys.executable, str(script), *args, "--launch", "here", "--emit-results"]
    results = []
    with subprocess.Popen(command, env=environment(mode), cwd=ROOT, stdout=subprocess.PIPE, text=True) as child:
        for line in child.stdout:
            if line.startswith(MARKER):
                results.append(json.loads(line[len(MARKER):]))
            elif not line.startswith("torch "):
                print(f"  [{mode}] {line.rstrip()}", flush=True)
    if child.returncode != 0 or len(results) != 1:
        raise SystemExit(f"{script.name} {' '.join(args)} in the {mode} launch mode failed "
                         f"(exit status {child.returncode}, {len(results)} results)")
    return results[0]


def run_both(script: Path, models: list[str], common_args: list[str], first_label: str,
             only: str | None = None) -> list[dict[str, dict]]:
    """Each of ``models`` in both modes (or ``only`` one), then one table: per mode the
    first call, eager, IPU Model and their ratio. Returns the rows (mode -> result)."""
    modes = MODES if only is None else (only,)
    rows = [{mode: run_child(script, [*common_args, "--models", model], mode) for mode in modes} for model in models]
    print()
    width = max([len(row[modes[0]]["name"]) for row in rows] + [5])
    header = f"{'model':<{width}}"
    for mode in modes:
        header += f" | {mode + ':':<13} {'first':>9} {'eager':>10} {'IPU Model':>10} {'ratio':>6} {'faults':>7}"
    print(header)
    for row in rows:
        line = f"{row[modes[0]]['name']:<{width}}"
        for mode in modes:
            r = row[mode]
            line += f" | {'':<13} {r['first']:7.2f} s {r['eager'] * 1e3:7.2f} ms {r['ipu'] * 1e3:7.2f} ms {r['ratio']:6.3f} {r['faults']:7.0f}"
        print(line)
    print(f"first: {first_label}; faults: minor page faults per IPU Model call (median)")
    for mode in modes:
        r = rows[0][mode] if rows else None
        if r is not None:
            print(f"{mode}: MALLOC_* in the environment: {', '.join(r['malloc_env']) or 'none'}; "
                  f"set by the runtime (mallopt): {', '.join(r['allocator']) or 'nothing'}")
    return rows

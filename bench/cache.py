"""Executable cache benchmark: the first call of an inference model without the cache, with
a cold (empty) cache and with a warm cache, each in a new process.

The first call ``wrapper(x)`` is timed in three parts, inside the process after ``import
torch`` and ``import poptorch`` (interpreter start and those imports excluded):

- ready: ``wrapper.compile(x)``: the cache key, capture and passes or the cache look-up,
  decoding the executable, and the ipu-mlir modules that imports on the way;
- upload: ``wrapper.attachToDevice()``: the weight upload (copy on write: no copy);
- first run: the first ``wrapper(x)``, the run itself.

The children write and read compiled bytecode (``.pyc``) under the benchmark's temporary
directory, as an installed package has it: a checkout run with ``PYTHONDONTWRITEBYTECODE``
and stale ``.pyc`` files compiles ipu-mlir's modules from source in every process. A first,
unmeasured child per model fills that cache.

A warm cache skips capture and the passes (the pre-capture key, ``driver/model_key.py``):
its "ready" is what the cache leaves of the compile. The second run and the eager forward
are printed too, to show what of the first run is the model's own compute (which no cache
removes). Models: the MLP and the BERT-base encoder of ``bench/inference.py``.
Usage: ``python bench/cache.py [--quick] [--repeats N]`` (--quick: a 2-layer encoder;
--repeats: warm-cache processes per model, their range is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def child(model_name: str, layers: int, cache: str | None) -> None:
    import torch

    import poptorch

    sys.path.insert(0, HERE)
    from inference import bert, mlp

    torch.manual_seed(0)
    model, x = mlp() if model_name == "MLP" else bert(layers)
    options = poptorch.Options().enableExecutableCaching(cache)
    wrapper = poptorch.inferenceModel(model, options)
    times = {}
    with torch.no_grad():  # (grad mode is part of the cache key: every call in the same mode)
        for label, call in (("ready", wrapper.compile), ("upload", lambda _: wrapper.attachToDevice()),
                            ("first_run", wrapper), ("second_run", wrapper), ("eager", model)):
            start = time.perf_counter()
            call(x)
            times[label] = time.perf_counter() - start
    timings = wrapper._compiled.timings
    print(json.dumps(times | {"capture": timings["capture"], "passes": timings["passes"], "key": timings.get("key", 0.0),
                              "decode": timings.get("decode", 0.0), "cached": bool(timings.get("cached")),
                              "precaptured": bool(timings.get("precaptured"))}))


def measure(model_name: str, layers: int, cache: str | None, pycache: str) -> dict[str, float]:
    command = [sys.executable, os.path.abspath(__file__), "--child", model_name, "--layers", str(layers)]
    if cache is not None:
        command += ["--cache", cache]
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = pycache
    result = subprocess.run(command, capture_output=True, text=True, check=True, timeout=1800, env=env)
    return json.loads(result.stdout.strip().splitlines()[-1]) | {"load": os.getloadavg()[0]}


def _range(rows: list[dict[str, float]], key: str, width: int = 4) -> str:
    low, high = min(r[key] for r in rows), max(r[key] for r in rows)
    return f"{low:{width}.2f}" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}-{high:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a 2-layer encoder instead of 12")
    parser.add_argument("--repeats", type=int, default=3, help="warm-cache processes per model")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--layers", type=int, default=12, help=argparse.SUPPRESS)
    parser.add_argument("--cache", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.layers, args.cache)
        return
    layers = 2 if args.quick else 12
    print("first call in a new process (after imports) = ready (key, capture + passes or cache, decode) + upload "
          f"(weights) + first run; load average {os.getloadavg()[0]:.1f} (2 cores)")
    for name in ("MLP", "BERT-base"):
        with tempfile.TemporaryDirectory() as directory:
            cache, pycache = os.path.join(directory, "cache"), os.path.join(directory, "pycache")
            measure(name, layers, None, pycache)  # fills the .pyc cache: no row compiles Python source
            rows = [("no cache", [measure(name, layers, None, pycache)]),
                    ("cold cache", [measure(name, layers, cache, pycache)]),
                    ("warm cache", [measure(name, layers, cache, pycache) for _ in range(args.repeats)])]
        shown = name if name == "MLP" or layers == 12 else f"BERT {layers}L"
        for label, runs in rows:
            for row in runs:
                assert row["cached"] == row["precaptured"] == (label == "warm cache"), (label, row)
                row["first_call"] = row["ready"] + row["upload"] + row["first_run"]
            print(f"{shown:<10} {label:<11} first call {_range(runs, 'first_call')} s = ready {_range(runs, 'ready')} s "
                  f"(key {_range(runs, 'key')}, capture {_range(runs, 'capture')}, passes {_range(runs, 'passes')}, "
                  f"decode {_range(runs, 'decode')}) + upload {_range(runs, 'upload')} s + first run "
                  f"{_range(runs, 'first_run')} s; second run {_range(runs, 'second_run')} s, eager "
                  f"{_range(runs, 'eager')} s; load {_range(runs, 'load', 3)}")


if __name__ == "__main__":
    main()

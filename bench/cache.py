"""Executable cache benchmark: the first call of an inference model without the cache, with
a cold (empty) cache and with a warm cache, each in a new process.

The first call ``wrapper(x)`` is timed in two parts, inside the process after ``import
torch`` and ``import poptorch`` (interpreter start and those imports excluded):

- ready: ``wrapper.compile(x)``: the cache key, capture and passes or the cache look-up,
  decoding the executable, and the ipu-mlir modules that imports on the way;
- first run: the first ``wrapper(x)``: the weight upload and the run itself.

A warm cache skips capture and the passes (the pre-capture key, ``driver/model_key.py``):
its "ready" is what the cache leaves of the compile. The second run and the eager forward
are printed too, to show what of the first run is the model's own compute (which no cache
removes). Models: the MLP and the BERT-base encoder of ``bench/inference.py``.
Usage: ``python bench/cache.py [--quick]`` (--quick: a 2-layer encoder).
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
        for label, call in (("ready", wrapper.compile), ("first_run", wrapper), ("second_run", wrapper),
                            ("eager", model)):
            start = time.perf_counter()
            call(x)
            times[label] = time.perf_counter() - start
    timings = wrapper._compiled.timings
    print(json.dumps(times | {"capture": timings["capture"], "passes": timings["passes"],
                              "cached": bool(timings.get("cached")), "precaptured": bool(timings.get("precaptured"))}))


def measure(model_name: str, layers: int, cache: str | None) -> dict[str, float]:
    command = [sys.executable, os.path.abspath(__file__), "--child", model_name, "--layers", str(layers)]
    if cache is not None:
        command += ["--cache", cache]
    result = subprocess.run(command, capture_output=True, text=True, check=True, timeout=1800)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a 2-layer encoder instead of 12")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--layers", type=int, default=12, help=argparse.SUPPRESS)
    parser.add_argument("--cache", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.layers, args.cache)
        return
    layers = 2 if args.quick else 12
    print("first call in a new process (after imports) = ready (key, capture + passes or cache, decode) + first run "
          f"(weight upload + run); load average {os.getloadavg()[0]:.1f}")
    for name in ("MLP", "BERT-base"):
        with tempfile.TemporaryDirectory() as directory:
            cache = os.path.join(directory, "cache")
            rows = [("no cache", measure(name, layers, None)), ("cold cache", measure(name, layers, cache)),
                    ("warm cache", measure(name, layers, cache))]
        shown = name if name == "MLP" or layers == 12 else f"BERT {layers}L"
        for label, row in rows:
            assert row["cached"] == row["precaptured"] == (label == "warm cache"), (label, row)
            print(f"{shown:<10} {label:<11} first call {row['ready'] + row['first_run']:6.2f} s = ready "
                  f"{row['ready']:5.2f} s (capture {row['capture']:5.2f} s, passes {row['passes']:5.2f} s) + first "
                  f"run {row['first_run']:5.2f} s; second run {row['second_run']:5.2f} s, eager {row['eager']:5.2f} s")


if __name__ == "__main__":
    main()

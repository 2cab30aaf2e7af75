"""Executable cache benchmark: the first call of an inference model without the cache, with
a cold (empty) cache and with a warm cache, each in a new process.

The time is that of the first ``wrapper(x)`` (capture, passes or cache look-up, decode,
weight upload and the run), measured inside the process after ``import torch`` and
``import poptorch``, so interpreter start and imports are excluded. The capture share of it
is printed too: a warm cache skips the passes, not the capture (the cache key is the
captured program). Models: the MLP and the BERT-base encoder of ``bench/inference.py``.
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
    start = time.perf_counter()
    with torch.no_grad():
        wrapper(x)
    first = time.perf_counter() - start
    timings = wrapper._compiled.timings
    print(json.dumps({"first": first, "capture": timings["capture"], "passes": timings["passes"],
                      "cached": bool(timings.get("cached"))}))


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
    print("first call in a new process (after imports): capture + passes/cache + decode + upload + run")
    for name in ("MLP", "BERT-base"):
        with tempfile.TemporaryDirectory() as directory:
            cache = os.path.join(directory, "cache")
            rows = [("no cache", measure(name, layers, None)), ("cold cache", measure(name, layers, cache)),
                    ("warm cache", measure(name, layers, cache))]
        for label, row in rows:
            assert row["cached"] == (label == "warm cache"), (label, row)
            print(f"{name:<10} {label:<11} {row['first']:6.2f} s  (capture {row['capture']:5.2f} s, "
                  f"passes {row['passes']:5.2f} s)")


if __name__ == "__main__":
    main()

"""Inference benchmark: the IPU Model against eager PyTorch, measured in the same run.

For an MLP, a small CNN and a BERT-base-sized TransformerEncoder it prints the first-call
compile time and the steady-state latency of one host call (median of repeated runs),
and the ratio IPU Model / eager. Usage: ``python bench/inference.py [--quick]
[--models mlp,cnn,bert] [--launch both|dev.py|plain|here]``.

By default (``--launch both``) each model runs twice, each time in its own process: in the
environment ``dev.py`` gives (``MALLOC_*_`` exported) and as a plain ``python`` run with no
``MALLOC_*`` variable (only the settings the runtime applies itself); eager is measured in
the same process as its IPU Model. ``--launch here`` runs the models in this process only.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch
import torch.nn as nn

import poptorch


def mlp() -> tuple[nn.Module, torch.Tensor]:
    layers: list[nn.Module] = []
    for _ in range(4):
        layers += [nn.Linear(1024, 1024), nn.ReLU()]
    return nn.Sequential(*layers, nn.Linear(1024, 10)).eval(), torch.randn(64, 1024)


def cnn() -> tuple[nn.Module, torch.Tensor]:
    model = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        nn.Flatten(), nn.Linear(128, 10),
    ).eval()
    return model, torch.randn(16, 3, 32, 32)


def bert(layers: int = 12) -> tuple[nn.Module, torch.Tensor]:
    layer = nn.TransformerEncoderLayer(768, 12, 3072, batch_first=True)
    return nn.TransformerEncoder(layer, layers, enable_nested_tensor=False).eval(), torch.randn(4, 128, 768)


def median_time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run(name: str, model: nn.Module, x: torch.Tensor, repeats: int) -> dict[str, float]:
    torch.manual_seed(0)
    ipu = poptorch.inferenceModel(model)
    start = time.perf_counter()
    with torch.no_grad():
        out = ipu(x)
    first = time.perf_counter() - start
    with torch.no_grad():
        ref = model(x)
        assert torch.allclose(out, ref, rtol=1e-5, atol=1e-5), f"{name}: IPU Model result differs from eager"
        for _ in range(2):  # warm both
            model(x)
            ipu(x)
        # Interleave the two so that machine noise hits both alike.
        eager_times, ipu_times, faults = [], [], []
        for _ in range(repeats):
            eager_times.append(median_time(lambda: model(x), 1))
            before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            ipu_times.append(median_time(lambda: ipu(x), 1))
            faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    eager, emulated = statistics.median(eager_times), statistics.median(ipu_times)
    print(f"{name:<10} compile+first call {first:6.2f} s | eager {eager * 1e3:8.2f} ms | IPU Model {emulated * 1e3:8.2f} ms | ratio {emulated / eager:5.3f}"
          f" | page faults per call {statistics.median(faults):.0f}")
    return {"name": name, "first": first, "eager": eager, "ipu": emulated, "ratio": emulated / eager,
            "faults": statistics.median(faults)}


MODELS = ("mlp", "cnn", "bert")
LAUNCH = {"both": None, "dev.py": "dev.py", "plain": "plain python"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repeats and a 2-layer encoder")
    parser.add_argument("--models", default=",".join(MODELS), help=f"comma-separated, of {', '.join(MODELS)}")
    parser.add_argument("--launch", choices=[*LAUNCH, "here"], default="both",
                        help="both: each model through dev.py's environment and as a plain python run (default); "
                             "dev.py / plain: one of them; here: in this process")
    parser.add_argument("--emit-results", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    if unknown := [m for m in models if m not in MODELS]:
        parser.error(f"unknown model(s) {', '.join(unknown)}; the models are {', '.join(MODELS)}")
    if args.launch != "here":
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from launch_modes import run_both

        common = ["--quick"] if args.quick else []
        run_both(Path(__file__).resolve(), models, common, "compile+first call", LAUNCH[args.launch])
        return
    repeats = 5 if args.quick else 21
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; steady-state latency per host call (median of {repeats})")
    cases = {"mlp": lambda: run("MLP", *mlp(), repeats),
             "cnn": lambda: run("CNN", *cnn(), repeats),
             "bert": lambda: run("BERT-base", *bert(2 if args.quick else 12), max(3, repeats // 3))}
    for model in models:
        result = cases[model]()
        if args.emit_results:
            from launch_modes import emit

            emit(result)


if __name__ == "__main__":
    main()

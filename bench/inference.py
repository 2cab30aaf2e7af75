"""Inference benchmark: the IPU Model against eager PyTorch, measured in the same run.

For an MLP, a small CNN and a BERT-base-sized TransformerEncoder it prints the first-call
compile time and the steady-state latency of one host call (median of repeated runs),
and the ratio IPU Model / eager. Usage: ``python bench/inference.py [--quick]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

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
        eager_times, ipu_times = [], []
        for _ in range(repeats):
            eager_times.append(median_time(lambda: model(x), 1))
            ipu_times.append(median_time(lambda: ipu(x), 1))
    eager, emulated = statistics.median(eager_times), statistics.median(ipu_times)
    print(f"{name:<10} compile+first call {first:6.2f} s | eager {eager * 1e3:8.2f} ms | IPU Model {emulated * 1e3:8.2f} ms | ratio {emulated / eager:5.3f}")
    return {"first": first, "eager": eager, "ipu": emulated, "ratio": emulated / eager}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats and a 2-layer encoder")
    args = parser.parse_args()
    repeats = 5 if args.quick else 21
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; steady-state latency per host call (median of {repeats})")
    run("MLP", *mlp(), repeats)
    run("CNN", *cnn(), repeats)
    run("BERT-base", *bert(2 if args.quick else 12), max(3, repeats // 3))


if __name__ == "__main__":
    main()

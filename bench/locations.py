"""Tensor locations benchmark: BERT-base (12 TransformerEncoder layers of bench/training.py)
training on ONE emulated IPU. On chip it does not fit (the compiler's error names the
TensorLocations settings that would make it fit); with the optimizer state and the weights
off chip (``Options.TensorLocations.setOptimizerLocation`` / ``setWeightLocation``) it does. Prints the memory report
before / after, the step time against eager PyTorch and the largest difference of the
loss and the updated weights.
With ``--activations`` the forward activations the backward pass reads go off chip too
(``setActivationLocation``): more streaming memory, and a lower on-chip peak where that peak is
at the turn from forward to backward (BERT-base's is at the update, where every gradient is live).
Usage: ``python bench/locations.py [--layers N] [--repeats N] [--optimizer sgd|adam] [--activations]``.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time

import torch

import poptorch
from training import bert  # bench/training.py: the TransformerEncoder of BERT-base layers


def _optimizer(kind: str, params, ipu: bool):  # noqa: ANN001, ANN202
    if kind == "adam":
        return (poptorch.optim.Adam if ipu else torch.optim.Adam)(params, lr=1e-4)
    return (poptorch.optim.SGD if ipu else torch.optim.SGD)(params, lr=1e-3, momentum=0.9)


def _report(memory: dict[int, dict[str, int]]) -> str:
    entry = memory[0]
    return (f"on chip {entry['total'] / 1e6:,.0f} MB (variables {entry['variables'] / 1e6:,.0f} MB, "
            f"temporaries {entry['temporaries'] / 1e6:,.0f} MB), streaming {entry['streaming'] / 1e6:,.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--optimizer", choices=("sgd", "adam"), default="sgd")
    parser.add_argument("--activations", action="store_true", help="activations off chip as well")
    args = parser.parse_args()
    torch.manual_seed(0)
    model, inputs = bert(args.layers)
    eager_model = copy.deepcopy(model)

    on_chip_model = copy.deepcopy(model)
    on_chip = poptorch.trainingModel(on_chip_model, poptorch.Options(),
                                     _optimizer(args.optimizer, on_chip_model.parameters(), True))
    try:
        on_chip.compile(*inputs)
        print(f"on chip: fits: {_report(on_chip._compiled.memory_per_ipu())}")
    except Exception as error:  # noqa: BLE001 - the compile error is what we show
        lines = str(error).splitlines()
        print(f"on chip: {type(error).__name__}: {(lines[1] if len(lines) > 1 else lines[0]).strip()}")

    options = poptorch.Options()
    options.TensorLocations.setOptimizerLocation(poptorch.TensorLocationSettings().useOnChipStorage(False))
    options.TensorLocations.setWeightLocation(poptorch.TensorLocationSettings().useOnChipStorage(False))
    placed = "optimizer state and weights"
    if args.activations:
        options.TensorLocations.setActivationLocation(poptorch.TensorLocationSettings().useOnChipStorage(False))
        placed = "optimizer state, weights and activations"
    ipu = poptorch.trainingModel(model, options, _optimizer(args.optimizer, model.parameters(), True))
    start = time.perf_counter()
    got = ipu(*inputs)
    first = time.perf_counter() - start
    print(f"{placed} off chip: {_report(ipu._compiled.memory_per_ipu())}; first call {first:.1f} s")
    print(ipu._compiled.schedule().text().splitlines()[-1])

    eager_optimizer = _optimizer(args.optimizer, eager_model.parameters(), False)

    def eager_step():  # noqa: ANN202
        eager_optimizer.zero_grad()
        out, loss = eager_model(*inputs)
        loss.backward()
        eager_optimizer.step()
        return out, loss

    want = eager_step()
    ipu.copyWeightsToHost()
    loss_diff = (got[1].detach() - want[1].detach()).abs().max().item()
    weight_diff = max((a - b).abs().max().item() for a, b in zip(model.parameters(), eager_model.parameters(), strict=True))
    print(f"first step vs eager: loss diff {loss_diff:.2e}, updated weights max diff {weight_diff:.2e}")
    times_eager, times_ipu = [], []
    for _ in range(args.repeats):
        start = time.perf_counter()
        eager_step()
        times_eager.append(time.perf_counter() - start)
        start = time.perf_counter()
        ipu(*inputs)
        times_ipu.append(time.perf_counter() - start)
    e, i = statistics.median(times_eager), statistics.median(times_ipu)
    print(f"step: eager {e:.2f} s, IPU Model {i:.2f} s, ratio {i / e:.2f}")


if __name__ == "__main__":
    main()

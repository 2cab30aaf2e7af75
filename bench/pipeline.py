"""Pipeline benchmark: a balanced 2-stage model on 2 emulated IPUs, pipelined against sharded.

The model is two equal halves of Linear+ReLU layers, one ``poptorch.Block`` per IPU.
For inference (``deviceIterations`` = m micro-batches per call) and training
(``gradientAccumulation`` = m) it prints the median time of one call with
``PipelinedExecution`` (stages of different micro-batches overlap in worker threads) and
with ``ShardedExecution`` (one IPU busy at a time), their speed ratio, eager PyTorch on
the same micro-batches, and the measured stage utilisation (busy time of each IPU over
the loop's wall time) against the ideal m / (m + p - 1) of a p-stage pipeline. Last, pipelined
training with recomputation (``_Popart.set("autoRecomputation", 3)``) against stashing:
time and IPU 0's stash.
Usage: ``python bench/pipeline.py [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import torch
import torch.nn as nn

import poptorch
from ipu_mlir.artifact.schedule import ideal_utilisation

WIDTH = 1024
LAYERS_PER_STAGE = 3
BATCH = 32


class TwoStage(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.first = nn.Sequential(*[m for _ in range(LAYERS_PER_STAGE) for m in (nn.Linear(WIDTH, WIDTH), nn.ReLU())])
        self.second = nn.Sequential(*[m for _ in range(LAYERS_PER_STAGE) for m in (nn.Linear(WIDTH, WIDTH), nn.ReLU())])
        self.loss = nn.MSELoss()

    def forward(self, x: torch.Tensor, target: torch.Tensor):  # noqa: ANN201
        with poptorch.Block("first", ipu_id=0):
            x = self.first(x)
        with poptorch.Block("second", ipu_id=1):
            out = self.second(x)
            return out, self.loss(out, target)


def _median(fn, repeats: int) -> float:  # noqa: ANN001
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _utilisation(trace: list[tuple[int, int, int, int, float, float]], ipus: int) -> float:
    """Busy time of all IPUs over ipus x the wall time from the first task to the last."""
    span = max(end for *_, end in trace) - min(start for *_, start, _ in trace)
    busy = sum(end - start for *_, start, end in trace)
    return busy / (ipus * span)


def _wrapper(training: bool, kind: str, m: int, model: nn.Module, recompute: bool = False):  # noqa: ANN202
    options = poptorch.Options()
    if recompute:
        options._Popart.set("autoRecomputation", 3)
    if training:
        options.Training.gradientAccumulation(m)
    else:
        options.deviceIterations(m)
    strategy = poptorch.PipelinedExecution("first", "second") if kind == "pipelined" else \
        poptorch.ShardedExecution("first", "second")
    options.setExecutionStrategy(strategy)
    if training:
        return poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=1e-3))
    return poptorch.inferenceModel(model.eval(), options)


def run(training: bool, m: int, repeats: int) -> None:
    torch.manual_seed(0)
    x, y = torch.randn(m * BATCH, WIDTH), torch.randn(m * BATCH, WIDTH)
    mode = "training" if training else "inference"
    times, utilisation = {}, 0.0
    for kind in ("sharded", "pipelined"):
        model = TwoStage()
        wrapper = _wrapper(training, kind, m, model)
        times[kind] = _median(lambda wrapper=wrapper: wrapper(x, y), repeats)
        if kind == "pipelined":
            utilisation = _utilisation(wrapper._compiled.program.last_trace, 2)
        wrapper.destroy()
    eager_model = TwoStage()
    eager_model = eager_model.train() if training else eager_model.eval()
    optimizer = torch.optim.SGD(eager_model.parameters(), lr=1e-3)

    def eager() -> None:
        if training:
            optimizer.zero_grad()
            for i in range(m):
                _, loss = eager_model(x[i * BATCH:(i + 1) * BATCH], y[i * BATCH:(i + 1) * BATCH])
                (loss / m).backward()
            optimizer.step()
        else:
            with torch.no_grad():
                for i in range(m):
                    eager_model(x[i * BATCH:(i + 1) * BATCH], y[i * BATCH:(i + 1) * BATCH])

    eager_time = _median(eager, repeats)
    print(f"{torch.get_num_threads()} thread(s)  {mode:9s} m={m:2d}  eager {eager_time * 1e3:7.1f} ms  sharded {times['sharded'] * 1e3:7.1f} ms  "
          f"pipelined {times['pipelined'] * 1e3:7.1f} ms  speed-up pipelined/sharded {times['sharded'] / times['pipelined']:.2f}x  "
          f"pipelined/eager {times['pipelined'] / eager_time:.2f}  utilisation {utilisation:.2f} "
          f"(ideal m/(m+p-1) = {ideal_utilisation(2, m):.2f})")


def run_recompute(m: int, repeats: int) -> None:
    """Pipelined training stashing every activation stage 2 needs, then recomputing them."""
    torch.manual_seed(0)
    x, y = torch.randn(m * BATCH, WIDTH), torch.randn(m * BATCH, WIDTH)
    results = {}
    for recompute in (False, True):
        wrapper = _wrapper(True, "pipelined", m, TwoStage(), recompute=recompute)
        time_ = _median(lambda wrapper=wrapper: wrapper(x, y), repeats)
        results[recompute] = (time_, wrapper._compiled.memory_per_ipu()[0]["stash"])
        wrapper.destroy()
    (stash_time, stash_bytes), (re_time, re_bytes) = results[False], results[True]
    print(f"{torch.get_num_threads()} thread(s)  training  m={m:2d}  pipelined, stashing {stash_time * 1e3:7.1f} ms "
          f"(IPU 0 stash {stash_bytes / 2**20:.2f} MiB)  recomputing {re_time * 1e3:7.1f} ms (stash {re_bytes / 2**20:.2f} MiB)  "
          f"recompute/stash time {re_time / stash_time:.2f}x, stash {re_bytes / stash_bytes:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats and micro-batches (a smoke run)")
    args = parser.parse_args()
    print(f"host: {os.cpu_count()} cores, torch {torch.__version__}; "
          f"2 stages of {LAYERS_PER_STAGE} x Linear({WIDTH}, {WIDTH}), micro-batch {BATCH}")
    repeats = 3 if args.quick else 10
    default_threads = torch.get_num_threads()
    # One intra-op thread: each emulated IPU gets one host core, as IPUs do not share
    # tiles. With the default threads sharded execution already uses every core.
    for threads in sorted({1, default_threads}, reverse=True):
        torch.set_num_threads(threads)
        for m in ((4,) if args.quick else (4, 16)):
            run(False, m, repeats)
            run(True, m, repeats)
        if threads == 1:
            run_recompute(4 if args.quick else 16, repeats)


if __name__ == "__main__":
    main()

"""Pipeline benchmark: a balanced 2-stage model on 2 emulated IPUs, pipelined against sharded.

The model is two equal halves of Linear+ReLU layers, one ``poptorch.Block`` per IPU (for
training also a work-balanced variant: IPU 0 does one matmul less per micro-batch, its first
layer computing no input gradient, so that layer is made wider).
For inference (``deviceIterations`` = m micro-batches per call) and training
(``gradientAccumulation`` = m) it prints the median time of one call with
``PipelinedExecution`` (stages of different micro-batches overlap in worker threads) and
with ``ShardedExecution`` (one IPU busy at a time), their speed ratio, eager PyTorch on
the same micro-batches, and the measured stage utilisation (busy time of each IPU over
the loop's wall time) against the ideal m / (m + p - 1) of a p-stage pipeline. Each
configuration runs ``--runs`` rounds (sharded, pipelined and eager calls in turn) and
prints the median and range of the speed-up and utilisation over the rounds; ``--timeline``
adds where the pipelined loop's time goes (waiting, hand-off, Python between tasks, the
time per kind of step: :mod:`ipu_mlir.runtime.pipeline_timeline`). Last, pipelined
training with recomputation (``_Popart.set("autoRecomputation", 3)``) against stashing:
time and IPU 0's stash.
Usage: ``python bench/pipeline.py [--quick] [--runs N] [--timeline]``.
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
from ipu_mlir.runtime.pipeline_timeline import PipelineTrace, breakdown

WIDTH = 1024
LAYERS_PER_STAGE = 3
BATCH = 32


class TwoStage(nn.Module):
    """``input_width`` is the first layer's input width (``WIDTH``: every layer the same)."""

    def __init__(self, input_width: int = WIDTH) -> None:
        super().__init__()
        self.first = nn.Sequential(*[m for i in range(LAYERS_PER_STAGE)
                                     for m in (nn.Linear(input_width if i == 0 else WIDTH, WIDTH), nn.ReLU())])
        self.second = nn.Sequential(*[m for _ in range(LAYERS_PER_STAGE) for m in (nn.Linear(WIDTH, WIDTH), nn.ReLU())])
        self.loss = nn.MSELoss()

    def forward(self, x: torch.Tensor, target: torch.Tensor):  # noqa: ANN201
        with poptorch.Block("first", ipu_id=0):
            x = self.first(x)
        with poptorch.Block("second", ipu_id=1):
            out = self.second(x)
            return out, self.loss(out, target)


def _median_call(fn, repeats: int, after=None) -> float:  # noqa: ANN001
    """The median time of ``repeats`` calls of ``fn`` (``after()`` runs after each, untimed)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
        if after is not None:
            after()
    return statistics.median(times)


def _range(values: list[float], fmt: str) -> str:
    """``median [min-max]`` of ``values``."""
    return f"{statistics.median(values):{fmt}} [{min(values):{fmt}}-{max(values):{fmt}}]"


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


def run(training: bool, m: int, repeats: int, runs: int, timeline: bool, balanced: bool = False) -> None:
    """``runs`` rounds, each timing sharded, pipelined and eager calls in turn (``repeats``
    calls each, median), so that the machine's load hits all three alike; the speed-up and
    utilisation of each round, as median [min-max] over the rounds. ``balanced`` (training):
    the first layer takes a 1.5 x WIDTH input. It computes no input gradient, so with equal
    layers IPU 0 does 8 matmuls per micro-batch (3 forward, 3 weight and 2 input gradients)
    and IPU 1 does 9; the wider first layer makes both 9."""
    torch.manual_seed(0)
    input_width = WIDTH * 3 // 2 if balanced else WIDTH
    x, y = torch.randn(m * BATCH, input_width), torch.randn(m * BATCH, WIDTH)
    mode = ("training" if training else "inference") + (" (work-balanced)" if balanced else "")
    wrappers = {kind: _wrapper(training, kind, m, TwoStage(input_width)) for kind in ("sharded", "pipelined")}
    eager_model = TwoStage(input_width)
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

    calls = {kind: (lambda wrapper=wrapper: wrapper(x, y)) for kind, wrapper in wrappers.items()} | {"eager": eager}
    for call in calls.values():  # compile, warm up
        call()
    program = wrappers["pipelined"]._compiled.program
    times: dict[str, list[float]] = {kind: [] for kind in calls}
    utilisation: list[float] = []
    traces: list[PipelineTrace] = []
    for _ in range(runs):
        for kind, call in calls.items():
            if kind == "pipelined":
                round_traces: list[PipelineTrace] = []
                times[kind].append(_median_call(call, repeats, lambda: round_traces.append(program.last_trace)))
                utilisation.append(statistics.median(breakdown(t).utilisation for t in round_traces))
                traces += round_traces
            else:
                times[kind].append(_median_call(call, repeats))
    speed_up = [s / p for s, p in zip(times["sharded"], times["pipelined"], strict=True)]
    ideal = ideal_utilisation(2, m)
    print(f"{torch.get_num_threads()} thread(s)  {mode} m={m:2d}  eager {statistics.median(times['eager']) * 1e3:7.1f} ms  "
          f"sharded {statistics.median(times['sharded']) * 1e3:7.1f} ms  pipelined {statistics.median(times['pipelined']) * 1e3:7.1f} ms  "
          f"pipelined/eager {statistics.median(times['pipelined']) / statistics.median(times['eager']):.2f}")
    print(f"    over {runs} runs: speed-up pipelined/sharded {_range(speed_up, '.2f')}x  "
          f"utilisation {_range(utilisation, '.3f')} (ideal m/(m+p-1) = {ideal:.3f}, "
          f"gap {100 * (ideal - statistics.median(utilisation)):.1f} points)")
    if timeline:
        # The call of median utilisation, then one profiled call (timing each step costs a little).
        traces.sort(key=lambda t: breakdown(t).utilisation)
        parts = breakdown(traces[len(traces) // 2])
        busy_per_call = sum(parts.busy.values())
        print("    timeline of the median call: " + parts.text(ideal).replace("\n", "\n    "))
        print(f"      a stage runs {busy_per_call / statistics.median(times['sharded']):.3f}x its sharded time "
              "(both IPUs busy vs one; the sharded call's overhead included)")
        os.environ["IPU_MLIR_PIPELINE_PROFILE"] = "1"
        try:
            calls["pipelined"]()
        finally:
            del os.environ["IPU_MLIR_PIPELINE_PROFILE"]
        profiled = breakdown(program.last_trace)
        print("      profiled call: " + profiled.text(ideal).splitlines()[-1].strip())
    for wrapper in wrappers.values():
        wrapper.destroy()


def run_recompute(m: int, repeats: int) -> None:
    """Pipelined training stashing every activation stage 2 needs, then recomputing them."""
    torch.manual_seed(0)
    x, y = torch.randn(m * BATCH, WIDTH), torch.randn(m * BATCH, WIDTH)
    results = {}
    for recompute in (False, True):
        wrapper = _wrapper(True, "pipelined", m, TwoStage(), recompute=recompute)
        wrapper(x, y)  # compile, warm up
        time_ = _median_call(lambda wrapper=wrapper: wrapper(x, y), repeats)
        results[recompute] = (time_, wrapper._compiled.memory_per_ipu()[0]["stash"])
        wrapper.destroy()
    (stash_time, stash_bytes), (re_time, re_bytes) = results[False], results[True]
    print(f"{torch.get_num_threads()} thread(s)  training  m={m:2d}  pipelined, stashing {stash_time * 1e3:7.1f} ms "
          f"(IPU 0 stash {stash_bytes / 2**20:.2f} MiB)  recomputing {re_time * 1e3:7.1f} ms (stash {re_bytes / 2**20:.2f} MiB)  "
          f"recompute/stash time {re_time / stash_time:.2f}x, stash {re_bytes / stash_bytes:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, runs and micro-batches (a smoke run)")
    parser.add_argument("--runs", type=int, default=None, help="rounds of sharded / pipelined / eager calls (default 5, 2 with --quick)")
    parser.add_argument("--timeline", action="store_true",
                        help="print where each pipelined loop's time goes (runtime/pipeline_timeline.py)")
    args = parser.parse_args()
    runs = args.runs if args.runs is not None else 2 if args.quick else 5
    if runs < 1:
        parser.error("--runs must be at least 1")
    print(f"host: {os.cpu_count()} cores, torch {torch.__version__}, load average {os.getloadavg()[0]:.2f}; "
          f"2 stages of {LAYERS_PER_STAGE} x Linear({WIDTH}, {WIDTH}), micro-batch {BATCH}")
    repeats = 3 if args.quick else 10
    default_threads = torch.get_num_threads()
    # One intra-op thread: each emulated IPU gets one host core, as IPUs do not share
    # tiles. With the default threads sharded execution already uses every core.
    for threads in sorted({1, default_threads}, reverse=True):
        torch.set_num_threads(threads)
        for m in ((4,) if args.quick else (4, 16)):
            run(False, m, repeats, runs, args.timeline)
            run(True, m, repeats, runs, args.timeline)
            if not args.quick:
                run(True, m, repeats, runs, args.timeline, balanced=True)
        if threads == 1:
            run_recompute(4 if args.quick else 16, repeats)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

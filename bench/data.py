"""Data-loading benchmark: does ``DataLoaderMode.Async`` hide the loading time?

A map-style dataset spends ``--work-ms`` (2 ms) of CPU work on every sample (a busy loop,
like decoding or augmenting an image); a ``poptorch.trainingModel`` of an MLP takes a step
of comparable time on the IPU Model. For one epoch it prints:

- load: reading the epoch with a Sync loader alone (no model), and with the Async one
  alone (its ring buffer's overhead);
- compute: the epoch's model calls on batches already in memory;
- Sync: the epoch with a Sync loader, loading and computing in turn (about load + compute);
- Async: the epoch with an Async loader, a worker process filling the ring buffer while
  the model runs (the worker is started before the epoch; its start is not counted);
- ideal: max(load, compute), and how far Async is from it.

Each figure is the median of ``--repeats`` epochs. The loading worker needs a core of its
own to overlap: on a machine whose cores are busy the overlap shrinks.
Usage: ``python bench/data.py [--steps 20] [--work-ms 2] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import torch
import torch.nn as nn

import poptorch


class SlowDataset(torch.utils.data.Dataset):
    """``length`` samples of 256 features and a class label, each costing ``work_ms`` of CPU."""

    def __init__(self, length: int, work_ms: float) -> None:
        self.length, self.work = length, work_ms / 1000.0

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        end = time.perf_counter() + self.work
        while time.perf_counter() < end:  # CPU work, not a sleep: it needs a core
            pass
        x = torch.randn(256, generator=torch.Generator().manual_seed(index))
        return x, torch.tensor(index % 10)


class Model(nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(256, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                  nn.Linear(hidden, 10))
        self.loss = nn.CrossEntropyLoss()

    def forward(self, x: torch.Tensor, y: torch.Tensor):  # noqa: ANN201
        out = self.body(x)
        return out, self.loss(out, y)


def epoch(loader: poptorch.DataLoader, model: poptorch.PoplarExecutor | None) -> float:
    start = time.perf_counter()
    for x, y in loader:
        if model is not None:
            model(x, y)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20, help="host calls per epoch")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--device-iterations", type=int, default=4)
    parser.add_argument("--work-ms", type=float, default=2.0, help="CPU work per sample")
    parser.add_argument("--hidden", type=int, default=2560, help="MLP width (sets the compute time)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads of the model's process (1 leaves a core to the loading worker)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    opts = poptorch.Options().deviceIterations(args.device_iterations)
    combined = args.batch_size * args.device_iterations
    dataset = SlowDataset(args.steps * combined, args.work_ms)
    torch.manual_seed(0)
    net = Model(args.hidden)
    model = poptorch.trainingModel(net, opts, torch.optim.SGD(net.parameters(), lr=0.01))
    sync = poptorch.DataLoader(opts, dataset, batch_size=args.batch_size)
    batches = [(x.clone(), y.clone()) for x, y in sync]
    model(*batches[0])  # compile
    async_loader = poptorch.DataLoader(opts, dataset, batch_size=args.batch_size, mode=poptorch.DataLoaderMode.Async,
                                       async_options={"buffer_size": 3})
    epoch(async_loader, None)  # the worker is up and has read the dataset once

    loads, async_loads, computes, syncs, asyncs = [], [], [], [], []
    for _ in range(args.repeats):
        loads.append(epoch(sync, None))
        async_loads.append(epoch(async_loader, None))
        start = time.perf_counter()
        for x, y in batches:
            model(x, y)
        computes.append(time.perf_counter() - start)
        syncs.append(epoch(sync, model))
        asyncs.append(epoch(async_loader, model))
    async_loader.terminate()
    load, compute = statistics.median(loads), statistics.median(computes)
    sync_time, async_time = statistics.median(syncs), statistics.median(asyncs)
    async_load = statistics.median(async_loads)
    ideal = max(load, compute)
    print(f"{args.steps} steps of combinedBatchSize {combined}, {args.work_ms} ms of CPU work per sample, "
          f"MLP width {args.hidden}; median of {args.repeats} epochs")
    print(f"load alone      {load:7.3f} s  ({load / args.steps * 1e3:6.1f} ms per step)")
    print(f"Async load alone{async_load:7.3f} s  (the ring buffer read with no model: its overhead)")
    print(f"compute alone   {compute:7.3f} s  ({compute / args.steps * 1e3:6.1f} ms per step)")
    print(f"Sync            {sync_time:7.3f} s")
    print(f"Async           {async_time:7.3f} s")
    print(f"ideal max(load, compute) {ideal:7.3f} s: Async is {100 * (async_time / ideal - 1):+.1f}% from it, "
          f"Sync {100 * (sync_time / ideal - 1):+.1f}%")
    print(f"load average during the run: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()

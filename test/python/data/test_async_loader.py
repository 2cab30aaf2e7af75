"""DataLoaderMode.Async / AsyncRebatched and poptorch.AsynchronousDataAccessor (SEMANTICS
"Data"): the same samples in the same order as Sync, rebatching, every SharingStrategy,
errors in the worker, a killed worker, terminate() and clean exit. Each blocking test runs
under a time bound, so a hang fails instead of stalling the suite."""

from __future__ import annotations

import gc
import itertools
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import expected
import pytest
import torch
from loader_datasets import DictSamples, Failing, SelfKilling, Slow, Squares, Stream
from proc_checks import alive, bounded, children_of, copies

import poptorch
from poptorch import DataLoaderMode, SharingStrategy

FORK = {"sharing_strategy": SharingStrategy.Fork}  # the quickest start, for the matrix


def make_options(d: int = 1, g: int = 1) -> poptorch.Options:
    opts = poptorch.Options().deviceIterations(d)
    opts.Training.gradientAccumulation(g)
    return opts


def read(loader) -> list:
    with bounded(60):
        return copies(loader)


@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("drop_last", [True, False])
@pytest.mark.parametrize("iterable", [False, True])
@pytest.mark.parametrize("mode", [DataLoaderMode.Async, DataLoaderMode.AsyncRebatched])
@pytest.mark.parametrize("d,g,batch_size", [(1, 1, 1), (3, 1, 1), (1, 2, 2), (3, 2, 2)])
def test_async_modes_combined_batch(d, g, batch_size, mode, iterable, drop_last, workers):
    """Map-style: the same batches as Sync. Iterable: Async is Sync's per-worker batching;
    AsyncRebatched joins the workers' batches, so only the very last one can be short."""
    combined = batch_size * d * g
    size = 29
    dataset = Stream(size) if iterable else Squares(size)
    kwargs = dict(batch_size=batch_size, num_workers=workers, drop_last=drop_last, mode=mode, async_options=FORK)
    if iterable and mode == DataLoaderMode.Async and not drop_last and workers > 1:
        with pytest.raises(ValueError, match="use mode=poptorch.DataLoaderMode.AsyncRebatched"):
            poptorch.DataLoader(make_options(d, g), dataset, **kwargs)
        return
    with warnings.catch_warnings(record=True):
        loader = poptorch.DataLoader(make_options(d, g), dataset, **kwargs)
    assert loader.combinedBatchSize == combined
    if not iterable:
        want = expected.map_style(size, combined, drop_last)
    elif mode == DataLoaderMode.Async:
        want = expected.iterable(size, combined, drop_last, workers)
    else:
        want = expected.rebatched(size, combined, drop_last, workers)
    try:
        expected.same_batches(read(loader), want)
        if not (iterable and mode == DataLoaderMode.Async and workers > 1):
            # (torch's length of an iterable dataset split between workers is an estimate)
            assert len(loader) == len(want)
    finally:
        loader.terminate()


def test_rebatched_keeps_what_per_worker_batching_drops():
    kwargs = dict(batch_size=4, num_workers=2)
    sync = poptorch.DataLoader(make_options(), Stream(30), **kwargs)
    rebatched = poptorch.DataLoader(make_options(), Stream(30), mode=DataLoaderMode.AsyncRebatched,
                                    rebatched_worker_size=3, async_options=FORK, **kwargs)
    try:
        sync_samples = sum(len(b[0]) for b in sync)  # two workers of 15: 3 full batches each
        got = read(rebatched)
        assert sync_samples == 24 and sum(len(b[0]) for b in got) == 28 and len(rebatched) == 7
        expected.same_batches(got, expected.rebatched(30, 4, True, 2, worker_batch=3))
    finally:
        rebatched.terminate()
    with pytest.raises(ValueError, match=r"rebatched_worker_size \(5\) must be at most combinedBatchSize \(4\)"):
        poptorch.DataLoader(make_options(), Stream(30), batch_size=4, mode=DataLoaderMode.AsyncRebatched,
                            rebatched_worker_size=5)


@pytest.mark.parametrize("mode,dataset", [(DataLoaderMode.Sync, Stream(8)), (DataLoaderMode.Async, Stream(8)),
                                          (DataLoaderMode.AsyncRebatched, Squares(8))])
def test_rebatched_worker_size_without_effect_warns(mode, dataset):
    with pytest.warns(UserWarning, match=rf"rebatched_worker_size=2 has no effect here.*mode is {mode.name}"):
        loader = poptorch.DataLoader(make_options(), dataset, batch_size=4, mode=mode, rebatched_worker_size=2,
                                     async_options=None if mode == DataLoaderMode.Sync else FORK)
    loader.terminate()


class Classifier(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(1)
        self.linear = torch.nn.Linear(4, 3)
        self.loss = torch.nn.CrossEntropyLoss()

    def forward(self, x, y):
        out = self.linear(x / 100.0)
        return out, self.loss(out, y)


def test_an_epoch_trains_to_the_same_weights_in_every_mode():
    """Map-style and iterable, 2 workers: each mode yields Sync's samples in Sync's order
    and training on them gives Sync's weights (one compiled model, reset between runs)."""
    from helpers import FP32

    opts = make_options(d=2)
    model = Classifier()
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    training = poptorch.trainingModel(model, opts, torch.optim.SGD(model.parameters(), lr=0.5))
    results = {}
    for iterable, mode in itertools.product([False, True], list(DataLoaderMode)):
        dataset = Stream(24) if iterable else Squares(24)
        loader = poptorch.DataLoader(opts, dataset, batch_size=3, num_workers=2, mode=mode,
                                     async_options=None if mode == DataLoaderMode.Sync else FORK)
        model.load_state_dict(initial)
        if training.isCompiled():
            training.copyWeightsToDevice()
        seen = []
        with bounded(120):
            for x, y in loader:
                seen.append(expected.indices_of((x, y)))
                training(x, y)
        loader.terminate()
        training.copyWeightsToHost()
        results[(iterable, mode)] = (seen, model.linear.weight.detach().clone(), model.linear.bias.detach().clone())
    for (iterable, mode), (seen, weight, bias) in results.items():
        sync_seen, sync_weight, sync_bias = results[(iterable, DataLoaderMode.Sync)]
        assert seen == sync_seen and len(seen) == 4, (iterable, mode)
        torch.testing.assert_close(weight, sync_weight, **FP32)
        torch.testing.assert_close(bias, sync_bias, **FP32)
    assert results[(False, DataLoaderMode.Sync)][1].ne(initial["linear.weight"]).any()
    assert results[(False, DataLoaderMode.Sync)][1].ne(results[(True, DataLoaderMode.Sync)][1]).any()


def test_a_short_last_batch_names_combined_batch_size():
    opts = make_options(d=2)
    with pytest.warns(UserWarning, match="only 2 samples"):
        loader = poptorch.DataLoader(opts, Squares(10), batch_size=2, drop_last=False)
    model = poptorch.inferenceModel(torch.nn.Linear(4, 3), opts)
    batches = list(loader)
    model(batches[0][0])
    with pytest.raises(ValueError, match="compiled for a tensor of shape .4, 4.*got a tensor of shape .2, 4.*"
                                         "combinedBatchSize.*use drop_last=True"):
        model(batches[-1][0])


@pytest.mark.parametrize("strategy", list(SharingStrategy))
def test_accessor_every_sharing_strategy(strategy):
    """Dicts from a DataLoader, read in place from the ring buffer; two passes; len()."""
    loader = poptorch.DataLoader(make_options(2), DictSamples(12), batch_size=2)
    accessor = poptorch.AsynchronousDataAccessor(loader, buffer_size=2, sharing_strategy=strategy)
    try:
        assert len(accessor) == 3
        for _ in range(2):
            expected.same_batches(read(accessor), expected.map_style(12, 4, True))
    finally:
        accessor.terminate()
    assert not accessor._process.is_alive()


def test_accessor_any_iterable_and_in_place_reading():
    items = [(torch.full((2, 3), float(i)), {"k": torch.tensor([i, i])}) for i in range(5)]
    accessor = poptorch.AsynchronousDataAccessor(items, buffer_size=2, load_indefinitely=False, early_preload=True)
    try:
        with bounded(60):
            passing = iter(accessor)
            held = next(passing)
            ring = held[0].untyped_storage().data_ptr()
            assert held[0].is_shared()  # read in place, from the shared ring buffer
            first = copies([held])[0]
            rest = copies(passing)
        got = [first] + rest
        assert len(got) == 5 and len(accessor) == 5
        for i, (a, b) in enumerate(got):
            assert a.eq(i).all() and b["k"].tolist() == [i, i]
        assert ring in {t.untyped_storage().data_ptr() for t in accessor._slots[0] + accessor._slots[1]}
        again = read(accessor)  # load_indefinitely=False: the next pass is loaded on request
        assert [int(a[0, 0]) for a, _ in again] == list(range(5))
    finally:
        accessor.terminate()


def test_accessor_rebatches_single_samples():
    accessor = poptorch.AsynchronousDataAccessor(Squares(17), rebatched_size=5, sharing_strategy="Fork")
    try:
        assert len(accessor) == 3
        expected.same_batches(read(accessor), expected.map_style(17, 5, True))
    finally:
        accessor.terminate()


def test_a_pass_left_early_restarts_cleanly():
    loader = poptorch.DataLoader(make_options(), Squares(12), batch_size=2, mode=DataLoaderMode.Async,
                                 async_options=dict(buffer_size=1, **FORK))
    try:
        with bounded(60):
            next(iter(loader))
        expected.same_batches(read(loader), expected.map_style(12, 2, True))
    finally:
        loader.terminate()


@pytest.mark.parametrize("workers", [0, 2])
def test_dataset_error_reaches_the_reader(workers):
    loader = poptorch.DataLoader(make_options(), Failing(12, bad=5), batch_size=2, num_workers=workers,
                                 mode=DataLoaderMode.Async)
    with bounded(60), pytest.raises(RuntimeError, match=r"(?s)failed in the worker process with KeyError: .*sample 5 "
                                                        r"is missing.*raised at .*loader_datasets.py:\d+ in "
                                                        r"__getitem__"):
        list(loader)
    assert not loader._accessor._process.is_alive()
    with pytest.raises(RuntimeError, match="terminate"):
        list(loader)


def test_worker_killing_itself_is_an_error_not_a_hang():
    loader = poptorch.DataLoader(make_options(), SelfKilling(12, bad=6), batch_size=2, mode=DataLoaderMode.Async,
                                 async_options=FORK)
    start = time.monotonic()
    with bounded(30), pytest.raises(RuntimeError, match=r"worker process \(pid \d+\) was killed by signal SIGKILL"):
        list(loader)
    assert time.monotonic() - start < 10


def test_worker_killed_from_outside_is_an_error_not_a_hang():
    loader = poptorch.DataLoader(make_options(), Slow(40, delay=0.05), batch_size=2, mode=DataLoaderMode.Async,
                                 async_options=FORK)
    with bounded(30), pytest.raises(RuntimeError, match="was killed by signal SIGKILL"):
        for step, _ in enumerate(loader):
            if step == 1:
                os.kill(loader._accessor._process.pid, signal.SIGKILL)


def test_terminate_and_gc_leave_no_process():
    loader = poptorch.DataLoader(make_options(), Slow(200, delay=0.01), batch_size=2, num_workers=2,
                                 mode=DataLoaderMode.Async, async_options=FORK)
    with bounded(60):
        next(iter(loader))
        worker = loader._accessor._process
        deadline = time.monotonic() + 10
        while len(children_of(worker.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        grandchildren = children_of(worker.pid)
        assert len(grandchildren) >= 2  # torch's own loader workers, inside the accessor's worker
        loader.terminate()
    assert not worker.is_alive() and worker.exitcode == 0
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in grandchildren) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in grandchildren)
    accessor = poptorch.AsynchronousDataAccessor(Squares(8), sharing_strategy=SharingStrategy.Fork)
    pid = accessor._process.pid
    del accessor
    gc.collect()
    assert not alive(pid)
    assert multiprocessing.active_children() == []


def test_interpreter_exit_stops_the_worker():
    """A script that leaves its loader running exits promptly and leaves no process: not the
    accessor's worker, nor torch's loader workers inside it, nor the fork server."""
    script = textwrap.dedent(f"""
        import os
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        import poptorch
        from loader_datasets import Squares
        from proc_checks import children_of

        def descendants(pid):
            return [p for child in children_of(pid) for p in [child, *descendants(child)]]

        if __name__ == "__main__":
            loader = poptorch.DataLoader(poptorch.Options(), Squares(100), batch_size=2, num_workers=2,
                                         mode=poptorch.DataLoaderMode.Async)
            next(iter(loader))
            print(loader._accessor._process.pid, *descendants(os.getpid()), flush=True)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    worker, *every = [int(pid) for pid in done.stdout.split()]
    assert worker in every and len(every) >= 4  # the fork server, the worker and torch's two workers at least
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in every) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in every if alive(pid)] == []


def test_shuffle_is_the_same_in_every_mode():
    """The shuffle is drawn when the loader is built, so a worker process shuffles as the
    calling thread does: the same orders, epoch after epoch."""
    orders = {}
    for mode in DataLoaderMode:
        torch.manual_seed(5)
        loader = poptorch.DataLoader(make_options(2), Squares(20), batch_size=2, shuffle=True, mode=mode,
                                     async_options=None if mode == DataLoaderMode.Sync else FORK)
        try:
            orders[mode] = [[expected.indices_of(b) for b in read(loader)] for _ in range(2)]
        finally:
            loader.terminate()
    sync = orders[DataLoaderMode.Sync]
    assert sync[0] != sync[1] and sorted(i for b in sync[0] for i in b) == list(range(20))
    assert orders[DataLoaderMode.Async] == sync and orders[DataLoaderMode.AsyncRebatched] == sync


@pytest.mark.parametrize("strategy", [SharingStrategy.ForkServer, SharingStrategy.SharedMemory,
                                      SharingStrategy.FileSystem])
def test_a_dataset_that_cannot_be_pickled_says_so(strategy):
    generator = (torch.ones(2) for _ in range(3))
    with pytest.raises(TypeError, match=rf"cannot be pickled for the worker process with sharing_strategy="
                                        rf"{strategy.name}.*pass sharing_strategy=poptorch.SharingStrategy.Fork"):
        poptorch.AsynchronousDataAccessor(generator, sharing_strategy=strategy)
    accessor = poptorch.AsynchronousDataAccessor(generator, sharing_strategy=SharingStrategy.Fork)
    try:
        assert [b.tolist() for b in read(accessor)] == [[1.0, 1.0]] * 3
    finally:
        accessor.terminate()
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize("early_preload", [False, True])
def test_early_preload_loads_before_iteration(early_preload):
    accessor = poptorch.AsynchronousDataAccessor(Squares(8), buffer_size=2, early_preload=early_preload,
                                                 sharing_strategy=SharingStrategy.Fork)
    try:
        deadline = time.monotonic() + (10 if early_preload else 1.5)
        while accessor._ready.qsize() < 3 and time.monotonic() < deadline:  # layout and two batches
            time.sleep(0.05)
        assert accessor._ready.qsize() == (3 if early_preload else 0)
        assert [expected.indices_of([b[0][None], b[1]]) for b in read(accessor)] == [[i] for i in range(8)]
    finally:
        accessor.terminate()

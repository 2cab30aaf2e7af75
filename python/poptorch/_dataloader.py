"""``poptorch.DataLoader``: a ``torch.utils.data.DataLoader`` whose every item is one host
call of the wrapped model (SEMANTICS "Data").

Each item holds ``combinedBatchSize`` = batch_size x deviceIterations x replicationFactor /
input group size x gradientAccumulation samples. With several processes
(``Options.Distributed``) each process reads its own disjoint part of the dataset. The modes:
``Sync`` reads in the calling thread; ``Async`` and ``AsyncRebatched`` read through an
``AsynchronousDataAccessor`` (a worker process filling a shared-memory ring buffer).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from typing import Any

import torch
import torch.utils.data

from .enums import DataLoaderMode
from .options import Options


def _positive_int(label: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"poptorch.DataLoader: {label} must be an integer of 1 or more, got {value!r}")
    return value


class _ProcessSampler(torch.utils.data.Sampler[int]):
    """The indices this process reads: a contiguous part of ``range(len(dataset))``, or of
    one permutation of it, shared by every process (seeded by ``Options.randomSeed`` and the
    epoch), when shuffling. With drop_last every process gets the same number of indices, so
    that they run the same number of steps; without it the parts are ceil(size / processes)
    long and the last process's may be shorter (fewer steps)."""

    def __init__(self, size: int, process_id: int, num_processes: int, per_process: int,
                 shuffle: bool, seed: int) -> None:
        self._size = size
        self._process_id = process_id
        self._num_processes = num_processes
        self._per_process = per_process
        self._shuffle = shuffle
        self._seed = seed
        self._epoch = 0

    def __len__(self) -> int:
        start = self._process_id * self._per_process
        return max(0, min(self._size, start + self._per_process) - start)

    def __iter__(self) -> Iterator[int]:
        if self._shuffle:
            generator = torch.Generator()
            generator.manual_seed(self._seed + self._epoch)
            order = torch.randperm(self._size, generator=generator).tolist()
        else:
            order = list(range(self._size))
        self._epoch += 1
        start = self._process_id * self._per_process
        return iter(order[start:start + self._per_process])


class _ProcessShare(torch.utils.data.IterableDataset):
    """An iterable dataset's share for one process: every ``num_processes``-th sample,
    starting at ``process_id`` (the dataset cannot be indexed, so contiguous parts are not
    known in advance)."""

    def __init__(self, dataset: torch.utils.data.IterableDataset, process_id: int, num_processes: int) -> None:
        self.dataset = dataset
        self._process_id = process_id
        self._num_processes = num_processes

    def __iter__(self) -> Iterator[Any]:
        for index, sample in enumerate(self.dataset):
            if index % self._num_processes == self._process_id:
                yield sample

    def __len__(self) -> int:
        total = len(self.dataset)  # type: ignore[arg-type]
        return len(range(self._process_id, total, self._num_processes))


class DataLoader(torch.utils.data.DataLoader):
    """Thin wrapper around ``torch.utils.data.DataLoader`` yielding ``combinedBatchSize``
    samples per item: one call of a model wrapped with the same ``options``.

    ``drop_last`` (default True) drops the incomplete last batch; with ``drop_last=False``
    it is yielded (smaller than ``combinedBatchSize``, a warning says so) and a wrapped model
    compiled for the full size refuses it. ``batch_sampler`` replaces ``batch_size`` and
    ``shuffle`` (then ``combinedBatchSize`` is None). ``mode`` selects Sync, Async or
    AsyncRebatched reading; ``async_options`` go to the ``AsynchronousDataAccessor``. In
    the Async modes each batch is read in place from the accessor's shared ring buffer and
    stays valid until the next one is asked for: clone it to keep it longer.

    Example::

        opts = poptorch.Options().deviceIterations(4)
        loader = poptorch.DataLoader(opts, dataset, batch_size=8, shuffle=True, num_workers=2)
        model = poptorch.trainingModel(net, opts, torch.optim.AdamW(net.parameters()))
        for x, y in loader:  # x holds 32 samples: one call
            _, loss = model(x, y)
    """

    def __init__(  # noqa: PLR0913 - PopTorch's constructor
        self,
        options: Options,
        dataset: torch.utils.data.Dataset,
        batch_size: int = 1,
        shuffle: bool | None = None,
        num_workers: int = 0,
        drop_last: bool = True,
        persistent_workers: bool | None = None,
        auto_distributed_partitioning: bool = True,
        mode: DataLoaderMode = DataLoaderMode.Sync,
        async_options: dict[str, Any] | None = None,
        rebatched_worker_size: int | None = None,
        batch_sampler: Any = None,
        **kwargs: Any,
    ) -> None:
        if not isinstance(options, Options):
            raise TypeError(
                f"poptorch.DataLoader: the first argument must be the poptorch.Options the model is wrapped with, "
                f"got {type(options).__name__}; call poptorch.DataLoader(options, dataset, batch_size=...)")
        mode = DataLoaderMode.parse(mode, "poptorch.DataLoader mode")
        if async_options is not None and not isinstance(async_options, dict):
            raise TypeError(f"poptorch.DataLoader: async_options must be a dict of AsynchronousDataAccessor "
                            f"arguments, got {type(async_options).__name__}")
        if async_options and mode == DataLoaderMode.Sync:
            raise ValueError("poptorch.DataLoader: async_options are given but mode is DataLoaderMode.Sync, which "
                             "uses no AsynchronousDataAccessor; pass mode=poptorch.DataLoaderMode.Async")
        if async_options and "rebatched_size" in async_options:
            raise ValueError("poptorch.DataLoader: async_options must not set rebatched_size, the loader sets it; "
                             "use mode=poptorch.DataLoaderMode.AsyncRebatched and rebatched_worker_size")
        if num_workers is None or isinstance(num_workers, bool) or not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError(f"poptorch.DataLoader: num_workers must be an integer of 0 or more, got {num_workers!r}")
        iterable = isinstance(dataset, torch.utils.data.IterableDataset)
        if rebatched_worker_size is not None and not (mode == DataLoaderMode.AsyncRebatched and iterable
                                                      and batch_sampler is None):
            warnings.warn(
                f"poptorch.DataLoader: rebatched_worker_size={rebatched_worker_size!r} has no effect here: only "
                f"mode=poptorch.DataLoaderMode.AsyncRebatched with an IterableDataset rebatches the workers' batches "
                f"(mode is {mode.name}, the dataset is {'iterable' if iterable else 'map-style'})", stacklevel=2)
        self._options = options
        self._mode = mode
        self._accessor: Any = None
        self._drop_last_requested = bool(drop_last)
        process_id = options.Distributed.processId
        num_processes = options.Distributed.numProcesses
        distributed = auto_distributed_partitioning and num_processes > 1

        if batch_sampler is not None:
            if batch_size != 1 or shuffle:
                raise ValueError(
                    f"poptorch.DataLoader: batch_sampler gives the batches, so it cannot be combined with batch_size "
                    f"({batch_size}) or shuffle ({shuffle}); leave those at their defaults, or drop batch_sampler")
            if distributed:
                raise ValueError(
                    "poptorch.DataLoader: batch_sampler with several processes (Options.Distributed) and "
                    "auto_distributed_partitioning=True: the loader cannot split a custom batch_sampler between "
                    "processes; give each process its own batch_sampler and pass auto_distributed_partitioning=False")
            if mode == DataLoaderMode.AsyncRebatched:
                raise ValueError("poptorch.DataLoader: mode AsyncRebatched rebuilds batches of combinedBatchSize, "
                                 "which a batch_sampler does not have; use mode=poptorch.DataLoaderMode.Async")
            self._combined_batch_size = None
            super().__init__(dataset, batch_sampler=batch_sampler, num_workers=num_workers,
                             persistent_workers=bool(persistent_workers), **kwargs)
            self._len_override: int | None = None
            self._start_accessor(async_options, None)
            return

        batch_size = _positive_int("batch_size", batch_size)
        group = options.input_group_size or 1
        self._combined_batch_size = (batch_size * options.device_iterations * (options.replication_factor // group)
                                     * options.Training.gradient_accumulation)
        combined = self._combined_batch_size
        if persistent_workers is None:
            persistent_workers = num_workers > 0
        self._len_override = None
        torch_batch, torch_drop_last = combined, drop_last
        rebatched_size = None

        if iterable:
            if shuffle:
                raise ValueError("poptorch.DataLoader: shuffle=True with an IterableDataset: an iterable dataset "
                                 "decides its own order; shuffle inside the dataset and pass shuffle=False")
            if distributed:
                dataset = _ProcessShare(dataset, process_id, num_processes)
            if mode == DataLoaderMode.AsyncRebatched:
                # The torch workers yield their own batches, incomplete ones included; the
                # accessor joins them into batches of exactly combinedBatchSize.
                torch_batch = combined if rebatched_worker_size is None else _positive_int(
                    "rebatched_worker_size", rebatched_worker_size)
                if torch_batch > combined:
                    raise ValueError(
                        f"poptorch.DataLoader: rebatched_worker_size ({torch_batch}) must be at most "
                        f"combinedBatchSize ({combined})")
                torch_drop_last = False
                rebatched_size = combined
                if hasattr(dataset, "__len__"):
                    total = len(dataset)  # type: ignore[arg-type]
                    self._len_override = total // combined if drop_last else math.ceil(total / combined)
            elif mode == DataLoaderMode.Async and not drop_last and num_workers > 1:
                raise ValueError(
                    "poptorch.DataLoader: an IterableDataset with drop_last=False and several workers in mode Async: "
                    "each worker's incomplete last batch would reach the model; use "
                    "mode=poptorch.DataLoaderMode.AsyncRebatched, which joins them into full batches")
            super().__init__(dataset, batch_size=torch_batch, num_workers=num_workers, drop_last=torch_drop_last,
                             persistent_workers=persistent_workers, **kwargs)
        else:
            size = len(dataset)  # type: ignore[arg-type]
            sampler = kwargs.pop("sampler", None)
            if distributed:
                if sampler is not None:
                    raise ValueError(
                        "poptorch.DataLoader: a sampler with several processes (Options.Distributed) and "
                        "auto_distributed_partitioning=True: pass auto_distributed_partitioning=False and give each "
                        "process a sampler of its own part")
                if shuffle and options.random_seed is None:
                    raise ValueError(
                        "poptorch.DataLoader: shuffle=True with several processes (Options.Distributed) needs the same "
                        "shuffle in every process, so that their parts stay disjoint: call options.randomSeed(N) with "
                        "the same N in every process")
                per_process = (size // (combined * num_processes)) * combined if drop_last else math.ceil(
                    size / num_processes)
                sampler = _ProcessSampler(size, process_id, num_processes, per_process, bool(shuffle),
                                          options.random_seed or 0)
                shuffle = None
                dropped = size - per_process * num_processes if drop_last else 0
                mine = len(sampler)
            else:
                mine = size
                dropped = size % combined if drop_last else 0
                if shuffle and sampler is None and kwargs.get("generator") is None:
                    # The order is drawn here, from Options.randomSeed or the caller's RNG,
                    # so that a worker process (Async modes) shuffles exactly as Sync does.
                    seed = options.random_seed
                    if seed is None:
                        seed = int(torch.empty((), dtype=torch.int64).random_().item())
                    kwargs["generator"] = torch.Generator().manual_seed(seed)
            leftover = mine % combined
            if drop_last and dropped:
                from ._logging import logger

                logger.info("poptorch.DataLoader: %d samples are not a multiple of combinedBatchSize (%d) per "
                            "process; drop_last=True drops the last %d", size, combined, dropped)
            if not drop_last and leftover:
                warnings.warn(
                    f"poptorch.DataLoader: this process reads {mine} samples, not a multiple of combinedBatchSize "
                    f"({combined}); with drop_last=False the last batch holds only {leftover} samples, and a model "
                    f"compiled for {combined} refuses it. Pass drop_last=True to drop it.", stacklevel=2)
            super().__init__(dataset, batch_size=combined, shuffle=shuffle, sampler=sampler, num_workers=num_workers,
                             drop_last=drop_last, persistent_workers=persistent_workers, **kwargs)
        self._start_accessor(async_options, rebatched_size)

    def _start_accessor(self, async_options: dict[str, Any] | None, rebatched_size: int | None) -> None:
        if self._mode == DataLoaderMode.Sync:
            return
        from ._async_accessor import AsynchronousDataAccessor

        self._accessor = AsynchronousDataAccessor(self, **(async_options or {}), rebatched_size=rebatched_size)

    @property
    def combinedBatchSize(self) -> int | None:  # noqa: N802 - PopTorch's name
        """Samples in each item: one call of the wrapped model (None with a batch_sampler)."""
        return self._combined_batch_size

    @property
    def options(self) -> Options:
        """The options given to the constructor."""
        return self._options

    def terminate(self) -> None:
        """Stop the AsynchronousDataAccessor's worker process (Async modes); no effect in Sync."""
        if self._accessor is not None:
            self._accessor.terminate()

    def __len__(self) -> int:
        if self._len_override is not None:
            return self._len_override
        return super().__len__()

    def _sync_iter(self) -> Iterator[Any]:
        """The plain torch iteration (run by the accessor's worker in the Async modes)."""
        return super().__iter__()

    def __iter__(self) -> Iterator[Any]:  # type: ignore[override]
        if self._accessor is None:
            return super().__iter__()
        return iter(self._accessor)

    def __getstate__(self) -> dict[str, Any]:
        # The accessor's worker gets the loader without the accessor (it iterates the
        # loader synchronously); a live torch iterator (persistent workers) stays here.
        state = self.__dict__.copy()
        state["_accessor"] = None
        state["_iterator"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

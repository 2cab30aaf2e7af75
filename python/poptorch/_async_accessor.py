"""``poptorch.AsynchronousDataAccessor``: a worker process loads batches into a ring buffer
of ``buffer_size`` slots in shared memory while the model runs; the host reads each batch
in place (SEMANTICS "Data").

The pieces are torch.multiprocessing's: slots are tensors in shared memory (``share_memory_``)
handed to the reader once through a queue, which then carries only small messages:

- worker -> reader: ``("layout", slots)`` once, ``("batch", slot, structure)``,
  ``("inline", batch)`` (a batch whose shapes differ from the slots', such as a short last
  batch), ``("end",)`` after each pass over the dataset, ``("error", ...)``;
- reader -> worker: ``("free", slot)`` when the next batch is asked for (a batch stays
  valid until then), ``("start",)`` for a pass the worker may not begin by itself, ``("stop",)``.

The reader checks the worker is alive while it waits, so a dead worker is an error within
about a second. The worker checks its parent the same way, and stops when the accessor is
terminated, garbage collected or the interpreter exits (multiprocessing's Finalize runs
before the interpreter joins its child processes).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.util
import os
import pickle
import queue
import re
import signal
import sys
import tempfile
import traceback
from collections.abc import Iterator
from typing import Any, NoReturn

import torch
import torch.multiprocessing
import torch.utils.data

from ._batch_tree import flatten as _flatten
from ._batch_tree import rebatched as _rebatched
from ._batch_tree import rebuild as _rebuild
from .enums import SharingStrategy

_POLL_SECONDS = 0.05  # the reader's check of the worker's liveness while waiting
_DEAD_GRACE_SECONDS = 1.0  # messages a dead worker sent before it died still arrive
_STOP_SECONDS = 5.0  # a worker asked to stop gets this long before SIGTERM


class _Stop(Exception):
    """The reader asked the worker to stop, or the reader's process is gone."""


def _load_dataset(strategy: SharingStrategy, payload: Any) -> Any:
    if strategy == SharingStrategy.SharedMemory:
        from multiprocessing import shared_memory

        name, size = payload
        block = shared_memory.SharedMemory(name=name)
        try:
            return pickle.loads(bytes(block.buf[:size]))
        finally:
            block.close()
    if strategy == SharingStrategy.FileSystem:
        with open(payload, "rb") as file:
            return pickle.load(file)
    return payload


def _passes(dataset: Any, rebatched_size: int | None) -> Any:
    """A fresh iterator over one pass of the dataset, as the worker reads it."""
    from ._dataloader import DataLoader

    if isinstance(dataset, DataLoader):
        items = dataset._sync_iter()
        return _rebatched(items, rebatched_size, dataset._drop_last_requested) if rebatched_size else items
    if rebatched_size:
        if isinstance(dataset, torch.utils.data.Dataset):
            dataset = torch.utils.data.DataLoader(dataset, batch_size=1)
        return _rebatched(iter(dataset), rebatched_size, True)
    if isinstance(dataset, torch.utils.data.Dataset) and not isinstance(dataset, torch.utils.data.IterableDataset):
        return (dataset[index] for index in range(len(dataset)))  # type: ignore[arg-type]
    return iter(dataset)


class _Worker:
    """The loading loop, in the worker process."""

    def __init__(self, commands: Any, ready: Any, settings: dict[str, Any]) -> None:
        self.commands, self.ready = commands, ready
        self.buffer_size = settings["buffer_size"]
        self.miss_sleep = settings["miss_sleep_time_in_ms"] / 1000.0
        self.load_indefinitely = settings["load_indefinitely"]
        self.starts = 0  # passes the reader has asked for
        self.early_preload = settings["early_preload"]
        self.free = set(range(self.buffer_size))
        self.slots: list[list[torch.Tensor]] | None = None
        self.layout: list[tuple[torch.Size, torch.dtype]] = []
        self.parent = multiprocessing.parent_process()

    def _handle(self, timeout: float) -> None:
        """Take the reader's commands (waiting up to ``timeout`` for the first one)."""
        try:
            command = self.commands.get(timeout=timeout)
        except queue.Empty:
            if self.parent is not None and not self.parent.is_alive():
                raise _Stop() from None
            return
        while True:
            if command[0] == "free":
                self.free.add(command[1])
            elif command[0] == "start":
                self.starts += 1
            else:
                raise _Stop()
            try:
                command = self.commands.get_nowait()
            except queue.Empty:
                return

    def _publish(self, batch: Any) -> None:
        tensors: list[torch.Tensor] = []
        structure = _flatten(batch, tensors)
        if self.slots is None:
            self.slots = [[torch.empty(t.shape, dtype=t.dtype).share_memory_() for t in tensors]
                          for _ in range(self.buffer_size)]
            self.layout = [(t.shape, t.dtype) for t in tensors]
            self.ready.put(("layout", self.slots))
        if [(t.shape, t.dtype) for t in tensors] != self.layout:
            self.ready.put(("inline", batch))
            return
        while not self.free:  # the ring is full: the reader has not asked for more yet
            self._handle(self.miss_sleep)
        slot = self.free.pop()
        with torch.no_grad():
            for target, source in zip(self.slots[slot], tensors, strict=True):
                target.copy_(source)
        self.ready.put(("batch", slot, structure))

    def run(self, dataset: Any, rebatched_size: int | None) -> None:
        # Pass p (from 1) may begin once the reader has asked for p passes, or for p - 1
        # with load_indefinitely (one pass ahead); the first without asking with early_preload.
        ahead = 1 if self.load_indefinitely else 0
        number = 1
        while True:
            while not (number <= self.starts + ahead if number > 1 else self.starts > 0 or self.early_preload):
                self._handle(0.1)
            for batch in _passes(dataset, rebatched_size):
                self._handle(0.0)
                self._publish(batch)
            self.ready.put(("end",))
            self._handle(0.0)
            number += 1


_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def _where(error: BaseException) -> str:
    """The innermost frame of the error: for an error torch's DataLoader re-raised from
    one of its own workers, the innermost frame of the original traceback in its message."""
    if "Original Traceback" in str(error):
        found = _FRAME.findall(str(error))
        if found:
            return "{}:{} in {}".format(*found[-1])
    frames = traceback.extract_tb(error.__traceback__)
    return f"{frames[-1].filename}:{frames[-1].lineno} in {frames[-1].name}" if frames else "an unknown place"


def _worker_main(strategy: SharingStrategy, payload: Any, commands: Any, ready: Any, settings: dict[str, Any]) -> None:
    """The worker process's entry point."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # clean up torch's own workers on terminate
    # A DataLoader's own workers start as they would in the reader's process (a worker
    # started by spawn or the fork server would otherwise default to that method).
    multiprocessing.set_start_method(settings["start_method"], force=True)
    worker = _Worker(commands, ready, settings)
    try:
        dataset = _load_dataset(strategy, payload)
        worker.run(dataset, settings["rebatched_size"])
    except _Stop:
        pass
    except BaseException as error:  # noqa: BLE001 - every failure goes to the reader
        ready.put(("error", type(error).__name__, str(error), _where(error), traceback.format_exc()))
        # Stay until the reader has it: the tensors already sent are fetched from this
        # process (torch shares them by file descriptor) when the reader unpickles them.
        try:
            while True:
                worker._handle(0.1)
        except _Stop:
            pass
    ready.close()
    ready.join_thread()


def _shutdown(process: Any, commands: Any, ready: Any, cleanup: list[Any]) -> None:
    """Stop the worker: ask, then SIGTERM, then SIGKILL; then drop what shared the dataset."""
    if process.is_alive():
        try:
            commands.put(("stop",))
        except (OSError, ValueError):
            pass
        process.join(_STOP_SECONDS)
    if process.is_alive():
        process.terminate()
        process.join(_STOP_SECONDS)
    if process.is_alive():
        process.kill()
        process.join()
    for queue_ in (commands, ready):
        queue_.cancel_join_thread()
        queue_.close()
    for item in cleanup:
        if isinstance(item, str):
            try:
                os.unlink(item)
            except FileNotFoundError:
                pass
        else:
            item.close()
            item.unlink()


_START_METHODS = {
    SharingStrategy.SharedMemory: "spawn",
    SharingStrategy.FileSystem: "spawn",
    SharingStrategy.Fork: "fork",
    SharingStrategy.ForkServer: "forkserver",
}


class AsynchronousDataAccessor:
    """Loads ``dataset`` (any iterable, a torch Dataset or a ``poptorch.DataLoader``) in a
    separate process into a ring buffer of ``buffer_size`` batches in shared memory.

    Each batch is read in place and stays valid until the next one is asked for (copy it
    to keep it). ``load_indefinitely`` lets the worker start the next pass before this one
    is read; ``early_preload`` starts loading at construction rather than at ``iter()``.
    ``sharing_strategy`` says how the dataset reaches the worker. ``rebatched_size`` joins
    the items (batches of any size, e.g. 1) into batches of that size.

    Example::

        accessor = poptorch.AsynchronousDataAccessor(loader, buffer_size=4)
        for x, y in accessor:
            model(x, y)
        accessor.terminate()
    """

    def __init__(  # noqa: PLR0913 - PopTorch's constructor
        self,
        dataset: Any,
        buffer_size: int = 3,
        miss_sleep_time_in_ms: float = 0.1,
        load_indefinitely: bool = True,
        early_preload: bool = False,
        sharing_strategy: SharingStrategy = SharingStrategy.ForkServer,
        rebatched_size: int | None = None,
    ) -> None:
        self._process = None
        label = "poptorch.AsynchronousDataAccessor"
        if isinstance(buffer_size, bool) or not isinstance(buffer_size, int) or buffer_size < 1:
            raise ValueError(f"{label}: buffer_size must be an integer of 1 or more, got {buffer_size!r}")
        if isinstance(miss_sleep_time_in_ms, bool) or not isinstance(miss_sleep_time_in_ms, (int, float)) \
                or miss_sleep_time_in_ms < 0:
            raise ValueError(f"{label}: miss_sleep_time_in_ms must be a number of 0 or more, got "
                             f"{miss_sleep_time_in_ms!r}")
        if rebatched_size is not None and (isinstance(rebatched_size, bool) or not isinstance(rebatched_size, int)
                                           or rebatched_size < 1):
            raise ValueError(f"{label}: rebatched_size must be None or an integer of 1 or more, got {rebatched_size!r}")
        if not hasattr(dataset, "__iter__") and not isinstance(dataset, torch.utils.data.Dataset):
            raise TypeError(f"{label}: the dataset must be iterable (a torch Dataset, a DataLoader or any Python "
                            f"iterable), got {type(dataset).__name__}")
        strategy = SharingStrategy.parse(sharing_strategy, f"{label} sharing_strategy")
        self._check_loader(dataset, rebatched_size)
        self._length = self._length_of(dataset, rebatched_size)
        self._load_indefinitely = bool(load_indefinitely)
        self._early_preload = bool(early_preload)
        self._slots: list[list[torch.Tensor]] | None = None
        self._held: int | None = None
        self._passes = 0  # passes asked for through iter()
        self._open = False  # a pass is being read
        self._terminated = False

        context = torch.multiprocessing.get_context(_START_METHODS[strategy])
        if strategy == SharingStrategy.ForkServer:
            # The fork server imports torch once; each worker it forks starts with it loaded.
            context.set_forkserver_preload(["torch", "poptorch._async_accessor"])
        cleanup: list[Any] = []
        payload: Any = dataset
        if strategy == SharingStrategy.SharedMemory:
            from multiprocessing import shared_memory

            try:
                data = pickle.dumps(dataset)
            except (TypeError, AttributeError, pickle.PicklingError) as error:
                raise TypeError(
                    f"{label}: the dataset ({type(dataset).__name__}) cannot be pickled for the worker process with "
                    f"sharing_strategy=SharedMemory ({error}); define its class at module level, or pass "
                    "sharing_strategy=poptorch.SharingStrategy.Fork, which needs no pickling") from error
            block = shared_memory.SharedMemory(create=True, size=max(1, len(data)))
            block.buf[:len(data)] = data
            cleanup.append(block)
            payload = (block.name, len(data))
        elif strategy == SharingStrategy.FileSystem:
            handle, path = tempfile.mkstemp(prefix="poptorch_dataset_", suffix=".pkl")
            try:
                with os.fdopen(handle, "wb") as file:
                    pickle.dump(dataset, file)
            except (TypeError, AttributeError, pickle.PicklingError) as error:
                os.unlink(path)
                raise TypeError(
                    f"{label}: the dataset ({type(dataset).__name__}) cannot be pickled for the worker process with "
                    f"sharing_strategy=FileSystem ({error}); define its class at module level, or pass "
                    "sharing_strategy=poptorch.SharingStrategy.Fork, which needs no pickling") from error
            cleanup.append(path)
            payload = path
        self._commands = context.Queue()
        self._ready = context.Queue()
        settings = {"buffer_size": buffer_size, "miss_sleep_time_in_ms": miss_sleep_time_in_ms,
                    "load_indefinitely": self._load_indefinitely, "early_preload": self._early_preload,
                    "rebatched_size": rebatched_size, "start_method": multiprocessing.get_start_method()}
        # Not a daemon: the dataset may be a DataLoader with worker processes of its own.
        process = context.Process(target=_worker_main, name="poptorch-data-worker",
                                  args=(strategy, payload, self._commands, self._ready, settings), daemon=False)
        try:
            process.start()
        except (TypeError, AttributeError, pickle.PicklingError) as error:
            _shutdown_unstarted(self._commands, self._ready, cleanup)
            raise TypeError(
                f"{label}: the dataset ({type(dataset).__name__}) cannot be pickled for the worker process with "
                f"sharing_strategy={strategy.name} ({error}); define its class at module level, or pass "
                "sharing_strategy=poptorch.SharingStrategy.Fork, which needs no pickling") from error
        except Exception:
            _shutdown_unstarted(self._commands, self._ready, cleanup)
            raise
        self._process = process
        self._finalizer = multiprocessing.util.Finalize(
            self, _shutdown, args=(process, self._commands, self._ready, cleanup), exitpriority=100)

    @staticmethod
    def _check_loader(dataset: Any, rebatched_size: int | None) -> None:
        from ._dataloader import DataLoader

        if isinstance(dataset, DataLoader) and rebatched_size is None and not dataset.drop_last \
                and isinstance(dataset.dataset, torch.utils.data.IterableDataset) and dataset.num_workers > 1:
            raise ValueError(
                "poptorch.AsynchronousDataAccessor: an iterable-type poptorch.DataLoader with drop_last=False and "
                "several workers yields each worker's incomplete batch; pass rebatched_size (or use "
                "mode=poptorch.DataLoaderMode.AsyncRebatched) to join them into full batches")

    @staticmethod
    def _length_of(dataset: Any, rebatched_size: int | None) -> int | None:
        from ._dataloader import DataLoader

        try:
            if rebatched_size and not isinstance(dataset, DataLoader):
                return len(dataset) // rebatched_size
            return len(dataset)
        except TypeError:
            return None

    def __len__(self) -> int:
        if self._length is None:
            raise TypeError("poptorch.AsynchronousDataAccessor: the dataset has no length (no __len__), so neither "
                            "does the accessor")
        return self._length

    def terminate(self) -> None:
        """Stop the worker process (the accessor cannot be read afterwards)."""
        self._terminated = True
        self._release()
        if self._process is not None:
            self._finalizer()

    def __iter__(self) -> Iterator[Any]:
        """Start a pass over the dataset (the rest of an unfinished pass is skipped)."""
        self._check_usable()
        while self._open:  # the last pass was not read to its end: skip the rest of it
            try:
                self._next_message()
            except StopIteration:
                pass
        self._commands.put(("start",))  # the worker may then load this pass (and the next)
        self._passes += 1
        self._open = True
        return _Pass(self, self._passes)

    def _next(self, number: int) -> Any:
        self._check_usable()
        if not self._open or number != self._passes:
            raise StopIteration
        return self._next_message()

    def _check_usable(self) -> None:
        if self._terminated:
            raise RuntimeError("poptorch.AsynchronousDataAccessor: terminate() was called, so its worker is gone; "
                               "create a new accessor (or DataLoader) to read the data again")

    def _release(self) -> None:
        if self._held is not None:
            self._commands.put(("free", self._held))
            self._held = None

    def _next_message(self) -> Any:
        self._release()
        while True:
            message = self._receive()
            kind = message[0]
            if kind == "layout":
                self._slots = message[1]
            elif kind == "batch":
                self._held = message[1]
                return _rebuild(message[2], self._slots[message[1]])  # type: ignore[index]
            elif kind == "inline":
                return message[1]
            elif kind == "end":
                self._open = False
                raise StopIteration
            else:
                _, name, text, where, worker_traceback = message
                self.terminate()
                raise RuntimeError(
                    f"poptorch.AsynchronousDataAccessor: loading the data failed in the worker process with {name}: "
                    f"{text} (raised at {where}). The worker's traceback:\n{worker_traceback}")

    def _receive(self) -> Any:
        process = self._process
        while True:
            try:
                return self._ready.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                if process.is_alive():
                    continue
            except (EOFError, OSError):
                # The message's tensors are fetched from the worker: it died meanwhile.
                process.join(_DEAD_GRACE_SECONDS)
                if process.is_alive():
                    raise
                self._dead()
            try:  # what it sent before it exited may still be in the pipe
                return self._ready.get(timeout=_DEAD_GRACE_SECONDS)
            except (queue.Empty, EOFError, OSError):
                self._dead()

    def _dead(self) -> NoReturn:
        process = self._process
        code = process.exitcode
        how = f"was killed by signal {signal.Signals(-code).name}" if code and code < 0 else f"exited with code {code}"
        self.terminate()
        raise RuntimeError(
            f"poptorch.AsynchronousDataAccessor: the data loading worker process (pid {process.pid}) {how} "
            "before delivering the next batch (out of memory, or killed from outside?); create a new "
            "accessor to read the data again")


class _Pass:
    """The iterator of one pass: iter() on the accessor starts a new one."""

    def __init__(self, accessor: AsynchronousDataAccessor, number: int) -> None:
        self._accessor, self._number = accessor, number

    def __iter__(self) -> _Pass:
        return self

    def __next__(self) -> Any:
        return self._accessor._next(self._number)


def _shutdown_unstarted(commands: Any, ready: Any, cleanup: list[Any]) -> None:
    for queue_ in (commands, ready):
        queue_.close()
    for item in cleanup:
        if isinstance(item, str):
            os.unlink(item)
        else:
            item.close()
            item.unlink()

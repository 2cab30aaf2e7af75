"""Crash-safe worker processes for the op sweep (``bench/ops.py``).

``run_pool`` hands tasks (``{"op", "mode", "samples"}``: one OpInfo entry in one mode) to
worker processes and yields their results (``op_sweep.run_task``). A worker that dies
(a signal) gives its task a ``crash`` result, one that hangs past the timeout a
``timeout`` result; the pool starts a new worker and goes on. Workers are also replaced
after ``max_tasks`` tasks, which bounds what a long sweep accumulates in one process.

Run as a script with ``--worker`` this file is such a worker: one JSON task per stdin
line, one JSON result per line on its original stdout (what the op prints goes to stderr).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import select
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import op_sweep  # noqa: E402


def worker_main() -> None:
    """Serve tasks: one JSON ``{"op", "mode", "samples"}`` per stdin line, one result line
    on the original stdout; fd 1 is pointed at stderr so that nothing else reaches it."""
    results = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    import warnings

    import torch

    import poptorch

    warnings.simplefilter("ignore")
    torch.set_num_threads(1)
    poptorch.setLogLevel("WARN")
    for line in sys.stdin:
        task = json.loads(line)
        results.write(json.dumps(op_sweep.run_task(task["op"], task["mode"], task["samples"])) + "\n")


def _crash_result(task: dict, reason: str, detail: str) -> dict:
    return {"op": task["op"], "mode": task["mode"], "random": False, "aten": [],
            "samples": [{"status": reason, "detail": detail, "seconds": 0.0}]}


class _Worker:
    """One worker process (started on demand, replaced after ``max_tasks`` tasks, a crash
    or a timeout); its stderr goes to a temporary log whose tail explains a crash."""

    def __init__(self, command: list[str], max_tasks: int) -> None:
        self.command, self.max_tasks = command, max_tasks
        self.process: subprocess.Popen | None = None
        self.log = tempfile.TemporaryFile()
        self.done = 0

    def _start(self) -> subprocess.Popen:
        self.log.seek(0)
        self.log.truncate()
        self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                        text=True, bufsize=1)
        self.done = 0
        return self.process

    def stop(self) -> None:
        if self.process is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None

    def _tail(self) -> str:
        self.log.seek(0)
        lines = [line for line in self.log.read().decode(errors="replace").splitlines() if line.strip()]
        return " | ".join(lines[-3:])[-400:]

    def run(self, task: dict, timeout: float) -> dict:
        if self.process is not None and self.done >= self.max_tasks:
            self.stop()
        process = self.process or self._start()
        try:
            process.stdin.write(json.dumps(task) + "\n")
            process.stdin.flush()
        except OSError:
            pass  # it died; reading sees the end of its output
        ready, _, _ = select.select([process.stdout], [], [], timeout)
        if not ready:
            process.kill()
            process.wait()
            self.process = None
            return _crash_result(task, "timeout", f"no result within {timeout:.0f} s")
        line = process.stdout.readline()
        if not line:
            code = process.wait()
            self.process = None
            if code < 0:  # a signal: the process crashed
                return _crash_result(task, "crash", f"worker killed by {signal.Signals(-code).name}: {self._tail()}")
            return _crash_result(task, "error", f"worker exited with code {code}: {self._tail()}")
        self.done += 1
        return json.loads(line)


def worker_command() -> list[str]:
    return [sys.executable, os.path.abspath(__file__), "--worker"]


def run_pool(tasks: Iterable[dict], *, workers: int = 1, timeout: float = 300.0, max_tasks: int = 25,
             command: list[str] | None = None) -> Iterator[dict]:
    """Run ``tasks`` on ``workers`` worker processes; yield each result as it arrives. A
    task whose worker dies gets a ``crash`` result, one that takes longer than ``timeout``
    seconds a ``timeout`` result; the pool replaces the worker and goes on."""
    pending: queue.Queue = queue.Queue()
    for task in tasks:
        pending.put(task)
    total = pending.qsize()
    done: queue.Queue = queue.Queue()

    def serve() -> None:
        worker = _Worker(command or worker_command(), max_tasks)
        try:
            while True:
                try:
                    task = pending.get_nowait()
                except queue.Empty:
                    return
                try:
                    done.put(worker.run(task, timeout))
                except Exception as error:  # noqa: BLE001 - a broken protocol line is this task's failure
                    worker.stop()
                    done.put(_crash_result(task, "error", f"worker protocol: {op_sweep.headline(error)}"))
        finally:
            worker.stop()

    threads = [threading.Thread(target=serve, daemon=True) for _ in range(max(1, min(workers, total)))]
    for thread in threads:
        thread.start()
    for _ in range(total):
        yield done.get()
    for thread in threads:
        thread.join()


if __name__ == "__main__" and sys.argv[1:] == ["--worker"]:
    worker_main()

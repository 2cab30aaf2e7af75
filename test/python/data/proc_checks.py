"""Process checks for the async loader tests: a time bound on blocking reads (SIGALRM),
children of a pid from /proc, and copies of batches (an accessor's batch is only valid
until the next one is asked for)."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator

import torch
import torch.utils._pytree as pytree


@contextlib.contextmanager
def bounded(seconds: int) -> Iterator[None]:
    """Fail (instead of hanging) if the block takes more than ``seconds``."""

    def expire(*_):
        raise TimeoutError(f"the block did not finish within {seconds} s (a hang)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def children_of(pid: int) -> list[int]:
    """The pids whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    """True if ``pid`` runs (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def copies(items) -> list:
    return [pytree.tree_map(lambda t: t.clone() if isinstance(t, torch.Tensor) else t, item) for item in items]

"""Every replication test is bounded in time: replicas meet at collectives, and a bug
there would wait forever. ``signal.alarm`` raises in the test after ``CASE_SECONDS`` (the
replica threads also give up at their own timeout); the multi-process tests bound their
child processes with the launcher's timeout."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

CASE_SECONDS = 240


@pytest.fixture(autouse=True)
def bounded_time(request: pytest.FixtureRequest) -> Iterator[None]:
    def expire(signum: int, frame: object) -> None:  # noqa: ARG001
        raise TimeoutError(f"{request.node.nodeid} did not finish within {CASE_SECONDS} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(CASE_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)

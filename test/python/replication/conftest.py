"""Every replication test is bounded in time: replicas meet at collectives, and a bug
there would wait forever. ``signal.alarm`` raises in the test after ``CASE_SECONDS`` (the
replica threads also give up at their own timeout); the multi-process tests bound their
child processes with the launcher's timeout."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from helpers import time_bound

CASE_SECONDS = 240


@pytest.fixture(autouse=True)
def bounded_time(request: pytest.FixtureRequest) -> Iterator[None]:
    with time_bound(request.node.nodeid, CASE_SECONDS):
        yield

"""``poptorch.profiling``: host-side tracepoints that go into the profiling report.

A :class:`Channel` records spans of host time (``time.perf_counter``) under its name; the
report that ``Options.enableProfiling`` (or ``POPLAR_ENGINE_OPTIONS``' autoReport) writes
after each call lists them (``profile.json`` "host_spans", and the HTML page's host track).
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time
from collections.abc import Iterator
from typing import Any

_LOCK = threading.Lock()
_SPANS: list[dict[str, Any]] = []
_MAX_SPANS = 10_000  # the oldest go first beyond this
_ORIGIN = time.perf_counter()


def recorded_spans() -> list[dict[str, Any]]:
    """Every recorded span so far: {"channel", "name", "start", "end"} in seconds since import."""
    with _LOCK:
        return [dict(span) for span in _SPANS]


def clear() -> None:
    """Forget the recorded spans."""
    with _LOCK:
        _SPANS.clear()


class Channel:
    """A named group of host-side tracepoints.

    >>> channel = poptorch.profiling.Channel("MyApp")
    >>> with channel.tracepoint("TimeThis"):
    ...     functionToTime()
    >>> channel.instrument(myobj, "methodName", "otherMethod")
    """

    def __init__(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise TypeError(f"Channel(name): name must be a non-empty str, got {name!r}")
        self.name = name

    @contextlib.contextmanager
    def tracepoint(self, name: str) -> Iterator[None]:
        """Record the time the ``with`` block takes as a span called ``name``."""
        if not isinstance(name, str) or not name:
            raise TypeError(f"tracepoint(name): name must be a non-empty str, got {name!r}")
        start = time.perf_counter() - _ORIGIN
        try:
            yield
        finally:
            end = time.perf_counter() - _ORIGIN
            with _LOCK:
                _SPANS.append({"channel": self.name, "name": name, "start": start, "end": end})
                del _SPANS[:-_MAX_SPANS]

    def instrument(self, obj: Any, *methods: str) -> None:
        """Wrap each of ``obj``'s ``methods`` (names) in a tracepoint named after the method."""
        if not methods:
            raise TypeError("instrument(obj, *methods): name at least one method")
        for method in methods:
            original = getattr(obj, method, None)
            if not callable(original):
                raise AttributeError(f"instrument: {type(obj).__name__} has no method '{method}'")

            setattr(obj, method, self._traced(original, method))

    def _traced(self, function: Any, label: str) -> Any:
        @functools.wraps(function)
        def traced(*args: Any, **kwargs: Any) -> Any:
            with self.tracepoint(label):
                return function(*args, **kwargs)

        return traced

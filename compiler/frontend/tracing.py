"""Whether the compiler is tracing a model right now (cheap to import: no torch).

``poptorch.isRunningOnIpu()`` reads this: it is True while the model's forward runs
under capture, so code guarded by it is compiled into the IPU program.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

_STATE = threading.local()


def is_tracing() -> bool:
    return getattr(_STATE, "active", False)


@contextlib.contextmanager
def tracing() -> Iterator[None]:
    previous = is_tracing()
    _STATE.active = True
    try:
        yield
    finally:
        _STATE.active = previous

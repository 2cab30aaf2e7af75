"""Whether the compiler is tracing a model right now (cheap to import: no torch).

``poptorch.isRunningOnIpu()`` reads this: it is True while the model's forward runs
under capture, so code guarded by it is compiled into the IPU program.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

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


_RUN_HOOKS: list[Callable[[], None]] = []


def on_each_model_run(hook: Callable[[], None]) -> None:
    """Call ``hook()`` each time the traced model's forward starts (see
    :func:`fresh_blocks_per_run`). The API layer registers its per-run state reset here
    (``poptorch.annotations`` restarts its block state), so the frontend need not know it."""
    if hook not in _RUN_HOOKS:
        _RUN_HOOKS.append(hook)


def _new_model_run(_module: object, _args: object) -> None:
    for hook in _RUN_HOOKS:
        hook()


@contextlib.contextmanager
def fresh_blocks_per_run(model: object) -> Iterator[None]:
    """While active, every forward of ``model`` runs the hooks of :func:`on_each_model_run`."""
    handle = model.register_forward_pre_hook(_new_model_run)
    try:
        yield
    finally:
        handle.remove()

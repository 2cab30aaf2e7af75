"""What the host runs for a program: custom op implementations and CPU callbacks.

The poptorch API registers them here (``poptorch.register_custom_op``, ``poptorch.CPU``)
and the IPU Model's kernels (``runtime/kernels/custom.py``) look them up when they decode
a ``poplar.custom_op`` / ``poplar.custom_op_grad`` / ``poplar.program_host_call``. Entries
are plain Python callables: this module never imports torch.
"""

from __future__ import annotations

import dataclasses
import itertools
import threading
import weakref
from collections.abc import Callable
from typing import Any


@dataclasses.dataclass(frozen=True)
class CustomOpImplementation:
    """A custom op's host implementation.

    ``forward(*inputs, **attributes)`` returns one tensor or a tuple of tensors (one per
    output). ``backward(inputs, outputs, grad_outputs, **attributes)`` (optional) returns
    one gradient (or None) per input; without it, the gradient is torch autograd's through
    ``forward``.
    """

    domain: str
    name: str
    forward: Callable[..., Any]
    backward: Callable[..., Any] | None = None


_CUSTOM_OPS: dict[tuple[str, str], CustomOpImplementation] = {}
_LOCK = threading.Lock()


def register_custom_op(implementation: CustomOpImplementation) -> None:
    """Register (or replace) the implementation of ``(domain, name)``."""
    with _LOCK:
        _CUSTOM_OPS[(implementation.domain, implementation.name)] = implementation


def unregister_custom_op(domain: str, name: str) -> None:
    with _LOCK:
        _CUSTOM_OPS.pop((domain, name), None)


def custom_op_implementation(domain: str, name: str) -> CustomOpImplementation | None:
    """The Python implementation registered for ``(domain, name)``, or None."""
    return _CUSTOM_OPS.get((domain, name))


def how_to_register(domain: str, name: str) -> str:
    """The sentence every 'not registered' error ends with."""
    return (f"register its implementation with poptorch.register_custom_op(\"{name}\", \"{domain}\", forward, "
            f"backward=None) before compiling, or define the torch.library op \"{domain}::{name}\" "
            "(its autograd gives the gradient)")


# poptorch.CPU objects by handle ("<ID>#<n>"): weakly, a dropped model frees its callback.
_HOST_CALLS: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()
_SERIAL = itertools.count(1)


def register_host_call(op_id: str, callback: Any) -> str:
    """Register ``callback`` (an object with ``host_call(inputs) -> outputs``) and return its
    unique handle, which the ``poplar.program_host_call`` op carries."""
    handle = f"{op_id}#{next(_SERIAL)}"
    with _LOCK:
        _HOST_CALLS[handle] = callback
    return handle


def host_call(handle: str) -> Any | None:
    """The callback registered under ``handle``, or None (never registered, or freed)."""
    return _HOST_CALLS.get(handle)


def host_call_id(handle: str) -> str:
    """The user's ID of a host-call handle (``"MyCPUOp#3"`` -> ``"MyCPUOp"``)."""
    return handle.rsplit("#", 1)[0]

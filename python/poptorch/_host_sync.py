"""Lazy weight sync between the emulated device and the host model.

Training updates weights on the device. The user's modules get a subclass of their own
class (same name, isinstance still holds) whose parameter and buffer reads, and
``parameters()`` / ``state_dict()``-style calls, first bring the device's newer weights
back (``copyWeightsToHostIfNeeded``). ``destroy()`` restores the original classes.

A per-model version counter lets an inference wrapper notice that a training wrapper
of the same model changed the weights, and upload them again before it runs.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import torch

_SYNC = "_poptorch_host_sync"
_ORIGINAL = "_poptorch_original_class"
_subclasses: dict[type, type] = {}
_versions: dict[int, int] = {}  # id(user model) -> weights version on the device


def _sync(module: torch.nn.Module) -> None:
    ref = module.__dict__.get(_SYNC)
    executor = ref() if ref is not None else None
    if executor is not None:
        executor.copyWeightsToHostIfNeeded()


def _synced(method: str) -> Callable[..., Any]:
    def call(self: torch.nn.Module, *args: Any, **kwargs: Any) -> Any:
        _sync(self)
        return getattr(super(type(self), self), method)(*args, **kwargs)

    call.__name__ = method
    return call


def _loading(self: torch.nn.Module, *args: Any, **kwargs: Any) -> Any:
    """load_state_dict on a trained model: the host becomes the newer copy; the training
    model uploads it before its next run."""
    ref = self.__dict__.get(_SYNC)
    executor = ref() if ref is not None else None
    result = super(type(self), self).load_state_dict(*args, **kwargs)
    if executor is not None:
        executor._host_changed()
    return result


def sync_host(model: torch.nn.Module) -> None:
    """Bring the newer device weights of ``model``'s training wrapper (if any) to the host."""
    _sync(model)


def _subclass(cls: type) -> type:
    if cls not in _subclasses:

        def __getattr__(self: torch.nn.Module, name: str) -> Any:  # noqa: N807 - the hook itself
            params = self.__dict__.get("_parameters", {})
            buffers = self.__dict__.get("_buffers", {})
            if name in params or name in buffers:
                _sync(self)
            return cls.__getattr__(self, name)

        namespace: dict[str, Any] = {"__getattr__": __getattr__, "__module__": cls.__module__, "__qualname__": cls.__qualname__}
        for method in ("state_dict", "named_parameters", "parameters", "named_buffers", "buffers"):
            namespace[method] = _synced(method)
        namespace["load_state_dict"] = _loading
        _subclasses[cls] = type(cls.__name__, (cls,), namespace)
    return _subclasses[cls]


def install(model: torch.nn.Module, executor: Any) -> None:
    """Make reads of ``model``'s weights sync from ``executor``'s device first."""
    ref = weakref.ref(executor)
    for module in model.modules():
        if _ORIGINAL not in module.__dict__:
            module.__dict__[_ORIGINAL] = type(module)
            module.__class__ = _subclass(type(module))
        module.__dict__[_SYNC] = ref


def uninstall(model: torch.nn.Module) -> None:
    for module in model.modules():
        original = module.__dict__.pop(_ORIGINAL, None)
        module.__dict__.pop(_SYNC, None)
        if original is not None:
            module.__class__ = original


def bump_version(model: torch.nn.Module) -> int:
    _versions[id(model)] = _versions.get(id(model), 0) + 1
    return _versions[id(model)]


def version(model: torch.nn.Module) -> int:
    return _versions.get(id(model), 0)

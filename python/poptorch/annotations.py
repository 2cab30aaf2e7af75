"""Multi-IPU annotations: ``Block``, ``BeginBlock``, ``BlockFunction``, ``removeBlocks``.

They say which block (``user_id``) and which IPU (``ipu_id``) each op of the model belongs
to. Stages and execution strategies group blocks by their ``user_id``.

How the annotation reaches the compiler
---------------------------------------
The frontend captures a model by running its ``forward`` under ``torch.export``
(non-strict) inside ``fx_traceback.preserve_node_meta()`` and ``tracing()``. Every FX
node copies ``fx_traceback.current_meta["custom"]`` when it is created, and the importer
puts ``custom["ipu_block"]`` / ``custom["ipu_id"]`` into the op's location
(``compiler/location_metadata.py``), which ``ipu-annotate-blocks`` turns into
``ipu.block = #ipu.block<"user_id", ipu_id>``. So an annotation is "the block written in
``current_meta["custom"]`` while the ops run":

- ``Block`` enters ``torch.fx.traceback.annotate({"ipu_block": user_id, "ipu_id": ipu_id})``
  for the duration of its ``with`` statement (``ipu_id`` left out when None).
- ``BeginBlock`` registers a forward pre-hook on the module. When the module is called
  during a trace, the hook *switches the current block*: it writes the block into
  ``current_meta["custom"]`` and leaves it there, so the module, its sub-modules and
  every op after it (in execution order, inside or outside the module) are in that block
  until another ``BeginBlock`` module is called. The trace's top-level
  ``preserve_node_meta()`` context owns ``current_meta`` and discards it when the trace
  ends, so a switch never leaks out of the trace that made it.
- ``BlockFunction`` wraps each call of the function in a ``Block``.

Outside tracing (plain eager PyTorch) none of them does anything.

Which block wins
----------------
The annotation that started most recently and is still in effect wins:

- nested ``Block`` contexts: the inner one wins, completely (an inner ``Block`` without
  ``ipu_id`` does not inherit the outer one's ``ipu_id``); on exit the outer one is back;
- a ``Block`` entered after a ``BeginBlock`` switch covers its ``with`` body; on exit the
  switched block is back;
- a ``BeginBlock`` module called inside a ``Block`` switches the block at once, and the
  switch stays in effect after the ``Block`` ends ("everything after it").

Automatic ids
-------------
A ``Block``/``BeginBlock``/``BlockFunction`` without ``user_id`` gets the next automatic
id, "0", "1", ..., in the order the blocks are met during the trace.
``Block.useAutoId()`` (called at the start of ``forward``) restarts the numbering at "0".
A ``BeginBlock`` module or a ``Block`` object keeps the automatic id it got for the rest
of the run, even when it is called or entered again.

Runs of the model
-----------------
Per-run state (the BeginBlock switch in effect, the automatic id counter) must start
clean every time the model's forward starts: the frontend calls ``_reset_trace_state()``
then (a forward pre-hook on the top-level model does it; torch may run forward more than
once in one trace, as the joint forward/backward trace of training does). Without that
call, a new trace is still recognised by the new ``current_meta`` dictionary that each
``preserve_node_meta()`` leaves behind, but a second run inside the same trace would
start in the last block of the first run and continue its automatic numbering.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import threading
from collections.abc import Callable
from numbers import Integral
from typing import Any, TypeVar

import torch
import torch.fx.traceback as fxtb

from ipu_mlir.compiler.frontend import tracing
from ipu_mlir.support.target import MAX_IPUS_PER_PROCESS

__all__ = ["BeginBlock", "Block", "BlockFunction", "removeBlocks"]

# Keys of fx_traceback.current_meta["custom"]; the same as compiler/location_metadata.py's
# BLOCK and IPU (not imported: that module loads MLIR, and `import poptorch` stays cheap).
_BLOCK_KEY = "ipu_block"
_IPU_KEY = "ipu_id"

# Where BeginBlock keeps a module's block: (user_id or None, ipu_id or None).
_MODULE_ATTR = "_poptorch_begin_block"

_F = TypeVar("_F", bound=Callable[..., Any])


# ---------------------------------------------------------------------------------------
# Argument checks
# ---------------------------------------------------------------------------------------
def _check_user_id(where: str, user_id: Any) -> str | None:
    if user_id is None:
        return None
    if not isinstance(user_id, str):
        hint = " Did you write @BlockFunction without parentheses? Use @BlockFunction(...)." if callable(user_id) else ""
        raise TypeError(
            f"{where}: user_id must be a str (or None for an automatic id), got {user_id!r} of type "
            f"{type(user_id).__name__}. Use str(...) or an f-string such as f\"encoder{{i}}\".{hint}"
        )
    if not user_id:
        raise ValueError(
            f"{where}: user_id must not be empty. Give the block a name, or pass None for an automatic id."
        )
    return user_id


def _check_ipu_id(where: str, ipu_id: Any) -> int | None:
    if ipu_id is None:
        return None
    if isinstance(ipu_id, bool) or not isinstance(ipu_id, Integral):
        raise TypeError(
            f"{where}: ipu_id must be an int (or None to let the execution strategy choose), got {ipu_id!r} "
            f"of type {type(ipu_id).__name__}."
        )
    if ipu_id < 0:
        raise ValueError(f"{where}: ipu_id must be >= 0 (IPUs are numbered from 0), got {ipu_id}.")
    if ipu_id >= MAX_IPUS_PER_PROCESS:
        raise ValueError(
            f"{where}: ipu_id must be below {MAX_IPUS_PER_PROCESS} (one process drives at most "
            f"{MAX_IPUS_PER_PROCESS} IPUs, numbered from 0), got {ipu_id}. Use a smaller ipu_id, or "
            f"distributed execution (several processes) for more IPUs."
        )
    return int(ipu_id)


def _describe(user_id: str | None, ipu_id: int | None) -> str:
    name = repr(user_id) if user_id is not None else "<automatic id>"
    return f"{name} (ipu_id {ipu_id})" if ipu_id is not None else name


def _describe_module(module: torch.nn.Module) -> str:
    extra = module.extra_repr()
    if extra and "\n" not in extra and len(extra) <= 80:
        return f"{type(module).__name__}({extra})"
    return type(module).__name__


# ---------------------------------------------------------------------------------------
# Per-trace state
# ---------------------------------------------------------------------------------------
def _tracing() -> bool:
    return tracing.is_tracing()


@dataclasses.dataclass
class _TraceState:
    token: object  # the fx_traceback.current_meta dict of the trace (a strong reference)
    next_auto_id: int = 0
    # id(annotation object) -> (object, its automatic id): kept for the whole trace
    auto_ids: dict[int, tuple[object, str]] = dataclasses.field(default_factory=dict)
    current: tuple[str, int | None] | None = None  # the block of the last BeginBlock switch
    switches: int = 0  # how many BeginBlock switches happened in this trace


_LOCAL = threading.local()


def _reset_trace_state() -> None:
    """Start a new run of the model: automatic ids restart at "0", no BeginBlock is in effect.

    For the frontend: call it each time the model's forward starts while tracing (inside
    ``preserve_node_meta()``), e.g. from a forward pre-hook on the top-level model that is
    registered for the duration of the capture. It also removes a block left in the
    current node metadata by an earlier run. Calling it more often is harmless.
    """
    _LOCAL.state = _TraceState(token=fxtb.current_meta)
    custom = fxtb.current_meta.get("custom")
    if custom and (_BLOCK_KEY in custom or _IPU_KEY in custom):
        fxtb.current_meta["custom"] = {k: v for k, v in custom.items() if k not in (_BLOCK_KEY, _IPU_KEY)}


tracing.on_each_model_run(_reset_trace_state)


def _trace_state() -> _TraceState:
    """The state of the running trace; a new one when the trace changed since last use."""
    state = getattr(_LOCAL, "state", None)
    if state is None or state.token is not fxtb.current_meta:
        state = _LOCAL.state = _TraceState(token=fxtb.current_meta)
    return state


def _auto_id(state: _TraceState, owner: object) -> str:
    known = state.auto_ids.get(id(owner))
    if known is not None and known[0] is owner:
        return known[1]
    user_id = str(state.next_auto_id)
    state.next_auto_id += 1
    state.auto_ids[id(owner)] = (owner, user_id)
    return user_id


def _write_block(user_id: str, ipu_id: int | None) -> None:
    """Make (user_id, ipu_id) the block of the ops traced from now on.

    Replaces ``current_meta["custom"]`` with a new dict rather than mutating it: a dict
    there before the trace started is shared with the copy ``preserve_node_meta`` restores.
    """
    custom = dict(fxtb.current_meta.get("custom") or {})
    custom[_BLOCK_KEY] = user_id
    if ipu_id is None:
        custom.pop(_IPU_KEY, None)
    else:
        custom[_IPU_KEY] = ipu_id
    fxtb.current_meta["custom"] = custom


# ---------------------------------------------------------------------------------------
# Block
# ---------------------------------------------------------------------------------------
class Block(contextlib.AbstractContextManager):
    """A context manager that puts the ops run inside it in block ``user_id`` on IPU ``ipu_id``.

    >>> with poptorch.Block("Encoder", ipu_id=1):
    ...     x = self.encoder(x)

    ``user_id``: the block's name (a str, f-strings welcome); blocks with the same id are
    one block. None gives an automatic id ("0", "1", ...; see ``useAutoId``).
    ``ipu_id``: the IPU (an int >= 0), or None to let the execution strategy decide.

    Nested blocks: the inner one wins (its ``ipu_id`` too, even when None). It does
    nothing outside tracing.
    """

    def __init__(self, user_id: str | None = None, ipu_id: int | None = None) -> None:
        self._user_id = _check_user_id("Block", user_id)
        self._ipu_id = _check_ipu_id("Block", ipu_id)
        # One entry per active `with`: (annotate context, BeginBlock switch count) or None
        # when entered outside tracing.
        self._entries: list[tuple[contextlib.AbstractContextManager, _TraceState, int] | None] = []

    @property
    def user_id(self) -> str | None:
        """The ``user_id`` given (None: automatic)."""
        return self._user_id

    @property
    def ipu_id(self) -> int | None:
        """The ``ipu_id`` given (None: chosen by the execution strategy)."""
        return self._ipu_id

    @staticmethod
    def useAutoId() -> None:  # noqa: N802 - PopTorch's name
        """Restart automatic block ids at "0"; call it at the start of ``forward``.

        Blocks without ``user_id`` are numbered "0", "1", ... in the order they are met.

        >>> poptorch.Block.useAutoId()
        >>> with poptorch.Block(): # user_id = "0"
        ...     layer()
        >>> with poptorch.Block("special_block"): # user_id = "special_block"
        ...     layer()
        >>> with poptorch.Block(): # user_id = "1"
        ...     layer()
        """
        if _tracing():
            _trace_state().next_auto_id = 0

    def __enter__(self) -> Block:
        if not _tracing():
            self._entries.append(None)
            return self
        state = _trace_state()
        user_id = self._user_id if self._user_id is not None else _auto_id(state, self)
        annotation: dict[str, Any] = {_BLOCK_KEY: user_id}
        if self._ipu_id is not None:
            annotation[_IPU_KEY] = self._ipu_id
        context = fxtb.annotate(annotation)
        context.__enter__()
        if self._ipu_id is None:  # the inner block wins: no ipu_id inherited from outside
            custom = fxtb.current_meta.get("custom") or {}
            if _IPU_KEY in custom:
                fxtb.current_meta["custom"] = {k: v for k, v in custom.items() if k != _IPU_KEY}
        self._entries.append((context, state, state.switches))
        return self

    def __exit__(self, *exc: object) -> None:
        entry = self._entries.pop() if self._entries else None
        if entry is None:
            return
        context, state, switches = entry
        context.__exit__(*exc)
        # A BeginBlock module called inside this block switched the block: the switch
        # covers everything after it, so it outlives this `with`.
        if state.switches != switches and state.current is not None and state is _trace_state():
            _write_block(*state.current)

    def __repr__(self) -> str:
        return f"Block(user_id={self._user_id!r}, ipu_id={self._ipu_id!r})"


# ---------------------------------------------------------------------------------------
# BeginBlock / removeBlocks
# ---------------------------------------------------------------------------------------
def _begin_block_hook(module: torch.nn.Module, args: Any) -> None:
    """Forward pre-hook of a BeginBlock module: switch the current block (tracing only)."""
    if not _tracing():
        return None
    info = module.__dict__.get(_MODULE_ATTR)
    if info is None:
        return None
    user_id, ipu_id = info
    state = _trace_state()
    if user_id is None:
        user_id = _auto_id(state, module)
    state.current = (user_id, ipu_id)
    state.switches += 1
    _write_block(user_id, ipu_id)
    return None


def BeginBlock(  # noqa: N802 - PopTorch's name
    layer_to_call: torch.nn.Module, user_id: str | None = None, ipu_id: int | None = None
) -> torch.nn.Module:
    """Start block ``user_id`` (on IPU ``ipu_id``) at ``layer_to_call``; returns the layer.

    >>> poptorch.BeginBlock(model.encoder.layer[4], "encoder4", ipu_id=1)

    When the layer is called, it, its sub-modules and everything run after it belong to
    this block, until another BeginBlock layer is called. Ops before the first one run on
    IPU 0. A module can be in one block only: calling BeginBlock again on it with another
    block is an error (``removeBlocks`` first); the same block again is accepted.

    Implemented with a forward pre-hook that switches the current block while tracing;
    the module's class and forward are untouched, and eager calls are unaffected.
    """
    if not isinstance(layer_to_call, torch.nn.Module):
        hint = " To put a function in a block, decorate it with @poptorch.BlockFunction(...)." if callable(layer_to_call) else ""
        raise TypeError(
            f"BeginBlock: layer_to_call must be a torch.nn.Module, got {type(layer_to_call).__name__}.{hint}"
        )
    user_id = _check_user_id("BeginBlock", user_id)
    ipu_id = _check_ipu_id("BeginBlock", ipu_id)
    existing = layer_to_call.__dict__.get(_MODULE_ATTR)
    if existing is not None:
        if existing == (user_id, ipu_id):
            return layer_to_call
        raise ValueError(
            f"BeginBlock: module {_describe_module(layer_to_call)} is already assigned to block "
            f"{_describe(*existing)} and cannot also begin block {_describe(user_id, ipu_id)}: a module can "
            f"be assigned to one block only. Call poptorch.removeBlocks(module) first to move it."
        )
    layer_to_call.__dict__[_MODULE_ATTR] = (user_id, ipu_id)
    if not any(hook is _begin_block_hook for hook in layer_to_call._forward_pre_hooks.values()):
        layer_to_call.register_forward_pre_hook(_begin_block_hook)
    return layer_to_call


def removeBlocks(module: torch.nn.Module) -> None:  # noqa: N802 - PopTorch's name
    """Remove the BeginBlock annotations of ``module`` and of all its sub-modules."""
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"removeBlocks: module must be a torch.nn.Module, got {type(module).__name__}.")
    for sub in module.modules():
        sub.__dict__.pop(_MODULE_ATTR, None)
        hooks = sub._forward_pre_hooks
        for key in [k for k, hook in hooks.items() if hook is _begin_block_hook]:
            del hooks[key]
            for extra in ("_forward_pre_hooks_with_kwargs", "_forward_pre_hooks_always_called"):
                getattr(sub, extra, {}).pop(key, None)  # bookkeeping of some torch versions


def _block_of(module: torch.nn.Module) -> tuple[str | None, int | None] | None:
    """The (user_id, ipu_id) BeginBlock gave ``module``, or None."""
    return module.__dict__.get(_MODULE_ATTR)


# ---------------------------------------------------------------------------------------
# BlockFunction
# ---------------------------------------------------------------------------------------
def BlockFunction(user_id: str | None = None, ipu_id: int | None = None) -> Callable[[_F], _F]:  # noqa: N802
    """A decorator that runs each call of the function in ``Block(user_id, ipu_id)``.

    >>> @poptorch.BlockFunction("Decoder", ipu_id=1)
    ... def decoder(self, encoder_output):
    ...     return self.decoder_b1(encoder_output)

    Without ``user_id`` each call is a new block with the next automatic id.
    """
    user_id = _check_user_id("BlockFunction", user_id)
    ipu_id = _check_ipu_id("BlockFunction", ipu_id)

    def decorator(func: _F) -> _F:
        if not callable(func):
            raise TypeError(f"BlockFunction: can only decorate a callable, got {type(func).__name__}.")

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with Block(user_id, ipu_id):
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorator

"""``Options.anchorTensor`` / ``PoplarExecutor.getAnchoredTensor``: keep a tensor of the compiled
program by the name ``getTensorNames()`` lists and read it back after a call.

Only state can be anchored for now (weights, buffers, optimizer state, accumulators, hyper-parameters:
the variables that outlive a run); its value is the one at the end of the last call
(``OutputMode.Final``). A micro-batch's data (an input, an output) and values per iteration (``All``,
``EveryN``, ``Sum`` over several iterations) need the program to stream them out, and are refused by
name.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

import torch

from .enums import OutputMode, format_value

if TYPE_CHECKING:
    from ._executor import PoplarExecutor


def _close(name: str, names: list[str]) -> str:
    matches = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
    return f" Did you mean {', '.join(repr(m) for m in matches)}?" if matches else ""


def check_anchors(executor: PoplarExecutor, iterations: int, training: bool) -> None:
    """Each anchored long name exists in the compiled program and its mode can be honoured; if not,
    the compiled program is dropped (the next call compiles again) and the error raised."""
    try:
        _check(executor, iterations, training)
    except ValueError:
        executor._compiled.program.close()
        executor._compiled = None
        raise


def _check(executor: PoplarExecutor, iterations: int, training: bool) -> None:
    names = executor.getTensorNames()
    for anchor in executor.options.anchored_tensors:
        label = f"anchorTensor({anchor.short_name!r}, {anchor.long_name!r})"
        if anchor.long_name not in names:
            raise ValueError(f"{label}: the compiled program has no tensor {anchor.long_name!r}."
                             f"{_close(anchor.long_name, names)} getTensorNames() lists the names: {', '.join(names)}")
        kind = executor._compiled.program.variables[anchor.long_name].kind
        if not kind.outlives_a_run:
            raise ValueError(
                f"{label}: {anchor.long_name!r} holds one micro-batch's data (a {kind.value} variable), which is not "
                "kept after the call yet; anchor state (weights, buffers, optimizer state, hyper-parameters) and read "
                "inputs and outputs from the call itself.")
        mode = anchor.output_mode or executor.options.resolved_output_mode(training)
        if mode is not OutputMode.Final and iterations > 1:
            raise ValueError(
                f"{label}: {format_value(mode)} over the {iterations} iterations of each call is not available for "
                "anchored tensors yet: only the value at the end of the call is kept. Pass "
                "output_mode=OutputMode.Final, or run one iteration per call.")


def anchored_value(executor: PoplarExecutor, short_name: str) -> torch.Tensor:
    """The anchored tensor ``short_name`` as it was at the end of the last call (a copy)."""
    anchors = {a.short_name: a for a in executor.options.anchored_tensors}
    if short_name not in anchors:
        known = sorted(anchors)
        listed = f" Anchored: {', '.join(repr(k) for k in known)}." if known else " Nothing is anchored."
        raise ValueError(f"getAnchoredTensor({short_name!r}): no tensor is anchored under that name."
                         f"{_close(short_name, known)}{listed} Anchor one with Options.anchorTensor(short_name, "
                         "long_name) before compiling.")
    long_name = anchors[short_name].long_name
    store = None
    if executor._compiled is not None and executor._stores is not None:
        store = executor._stores[executor._compiled.program.variables[long_name].ipu].tensors
    if store is None or long_name not in store:
        raise RuntimeError(f"getAnchoredTensor({short_name!r}): the model has not run yet; call it first")
    return store[long_name].detach().clone().cpu()

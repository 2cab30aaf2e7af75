"""``Options.anchorTensor`` / ``PoplarExecutor.getAnchoredTensor`` / ``getTensorNames``: keep a
tensor of the compiled program by its name and read it back after a call.

``getTensorNames()`` lists (sorted):

- the model's tensors, named by the frontend (``compiler/frontend/anchors.py``): an
  activation is ``<module path>/<op node name>`` (``fc1/linear``; an op of the top-level
  ``forward`` is its node name alone, ``relu``; a training model, traced with its backward,
  names its forward ops by node name only, ``addmm``, ``relu``), an input its argument name
  (``x``), a model output ``output.<i>`` (the i-th tensor returned);
- the program's state: weights and buffers by their path (``fc1.weight``), optimizer state
  (``fc1.weight/momentum``), accumulators and hyper-parameters (``0.lr``).

An anchored model tensor is a result of the compiled function that the program streams to the
host under the anchor's output mode (``#ipu.output_mode`` -> ``poplar.anchors``), like a model
output: ``All`` gives every iteration's value concatenated on dim 0 (as outputs are),
``EveryN(n)`` those of iterations n-1, 2n-1, ..., ``Final`` the last one's, ``Sum`` their sum;
``None`` (the default) follows the outputs' mode and period. Each call replaces the values.

State follows every mode too: its value is taken at the end of each step (micro-batch), the
last step of an iteration ending with that iteration's optimizer update, so with
gradientAccumulation(G) a weight under ``All`` gives G values per iteration, the last G-1 of
them equal (each is the weight the next micro-batch reads, except the last: the updated one),
and an accumulator's last value of an iteration is the one the update left (zero). With several
steps per call, the driver lists it in the module's ``ipu.anchored_state`` once
``ipu-insert-training`` has made the optimizer state variables, and ``poplar-build-program``
streams the variable under its mode (``host.anchor.<k>``, in the graph's ``poplar.anchors``,
like a model tensor); ``Final``, or any mode over a single step, is the variable's value read
from the device after the call. A name that is neither is refused after compiling, with the
close matches among every name.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any

import torch

from .enums import OutputMode, format_value

if TYPE_CHECKING:
    from ._executor import PoplarExecutor
    from .options import AnchoredTensor, Options

_COMPILED_MODES = {OutputMode.All: "all", OutputMode.Final: "final", OutputMode.Sum: "sum", OutputMode.EveryN: "every_n"}


def _close(name: str, names: list[str]) -> str:
    matches = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
    return f" Did you mean {', '.join(repr(m) for m in matches)}?" if matches else ""


def resolved_mode(anchor: AnchoredTensor, options: Options, training: bool) -> tuple[OutputMode, int]:
    """The anchor's output mode and period; None follows the model outputs' mode (and period)."""
    if anchor.output_mode is None or anchor.output_mode is OutputMode.Default:
        mode = options.resolved_output_mode(training)
        return mode, (options.output_return_period or 1) if mode is OutputMode.EveryN else 1
    return anchor.output_mode, anchor.output_return_period if anchor.output_mode is OutputMode.EveryN else 1


def compile_anchors(options: Options, training: bool) -> tuple[tuple[str, str, int], ...]:
    """``CompileOptions.anchors``: (long name, compiled mode, period) of each anchor, once each.
    The frontend keeps those naming a model tensor; state is checked after compiling. An EveryN
    period must divide the steps of a call and be the one of every EveryN value of the model."""
    found: list[tuple[str, str, int]] = []
    steps = options.device_iterations * (options.Training.gradient_accumulation if training else 1)
    every_n: tuple[int, str] | None = None  # the one EveryN period of the program, and whose it is
    if options.resolved_output_mode(training) is OutputMode.EveryN:
        every_n = (options.output_return_period, "the outputs' (Options.outputMode)")
    for anchor in options.anchored_tensors:
        mode, period = resolved_mode(anchor, options, training)
        if mode is not OutputMode.EveryN:
            pass
        elif steps % period:
            raise ValueError(f"{_label(anchor, mode, period)}: each call runs deviceIterations x gradientAccumulation = "
                             f"{steps} steps, which is not a multiple of {period}. Pick a period that divides {steps}.")
        elif every_n is None:
            every_n = (period, f"{_label(anchor, mode, period)}'s")
        elif period != every_n[0]:
            raise ValueError(f"{_label(anchor, mode, period)}: the program sends its EveryN values to the host every n "
                             f"steps for one n, and {every_n[1]} period is {every_n[0]}. Give every EveryN anchor (and "
                             "the outputs) the same period, or anchor this tensor with another output mode.")
        entry = (anchor.long_name, _COMPILED_MODES[mode], period)
        if entry not in found:
            found.append(entry)
    return tuple(found)


def _label(anchor: AnchoredTensor, mode: OutputMode, period: int) -> str:
    return f"anchorTensor({anchor.short_name!r}, {anchor.long_name!r}, {format_value(mode)}, {period})"


def tensor_names(executor: PoplarExecutor) -> list[str]:
    """The model's tensors (from the executable's metadata) and the program's state variables."""
    compiled = executor._compiled
    state = [name for name, info in compiled.program.variables.items() if info.kind.outlives_a_run]
    return sorted(set(state) | set(compiled.executable.metadata.get("tensor_names", ())))


def _anchored_streams(executor: PoplarExecutor) -> dict[tuple[str, str, int], str]:
    """(name, compiled mode, period) -> the stream carrying it, from the graph's ``poplar.anchors``."""
    anchors = executor._compiled.executable.interface.anchors
    return {(a.name, a.mode, a.period): a.stream for a in anchors}


def check_anchors(executor: PoplarExecutor, training: bool) -> None:
    """Each anchored long name exists in the compiled program; if not, the compiled program is
    dropped (the next call compiles again) and the error raised."""
    try:
        _check(executor, training)
    except ValueError:
        executor._compiled.program.close()
        executor._compiled = None
        raise


def _check(executor: PoplarExecutor, training: bool) -> None:
    names = tensor_names(executor)
    streamed = _anchored_streams(executor)
    for anchor in executor.options.anchored_tensors:
        label = f"anchorTensor({anchor.short_name!r}, {anchor.long_name!r})"
        mode, period = resolved_mode(anchor, executor.options, training)
        if (anchor.long_name, _COMPILED_MODES[mode], period) in streamed:
            continue  # a model tensor, streamed by the program under its mode
        if anchor.long_name not in names:
            raise ValueError(f"{label}: the compiled program has no tensor {anchor.long_name!r}."
                             f"{_close(anchor.long_name, names)} getTensorNames() lists the names: {', '.join(names)}")
        # Otherwise state the program does not stream (Final, or a single step): read after the call.


def collect(executor: PoplarExecutor, streams: dict[str, list[torch.Tensor]], assemble: Any) -> None:
    """Keep the anchored model tensors of the call that filled ``streams`` (``assemble`` joins
    each stream's chunks as outputs are joined)."""
    executor._anchor_values = {key: assemble(streams[stream]) for key, stream in _anchored_streams(executor).items()}


def anchored_value(executor: PoplarExecutor, short_name: str) -> torch.Tensor:
    """The anchored tensor ``short_name`` after the last call (a copy)."""
    anchors = {a.short_name: a for a in executor.options.anchored_tensors}
    if short_name not in anchors:
        known = sorted(anchors)
        listed = f" Anchored: {', '.join(repr(k) for k in known)}." if known else " Nothing is anchored."
        raise ValueError(f"getAnchoredTensor({short_name!r}): no tensor is anchored under that name."
                         f"{_close(short_name, known)}{listed} Anchor one with Options.anchorTensor(short_name, "
                         "long_name) before compiling.")
    anchor = anchors[short_name]
    not_run = RuntimeError(f"getAnchoredTensor({short_name!r}): the model has not run yet; call it first")
    if executor._compiled is None:
        raise not_run
    mode, period = resolved_mode(anchor, executor.options, executor._training)
    key = (anchor.long_name, _COMPILED_MODES[mode], period)
    if key in _anchored_streams(executor):
        values = getattr(executor, "_anchor_values", None) or {}
        if key not in values:
            raise not_run
        return values[key].detach().clone().cpu()
    long_name = anchor.long_name
    store = None
    if executor._stores is not None:
        store = executor._stores[executor._compiled.program.variables[long_name].ipu].tensors
    if store is None or long_name not in store:
        raise not_run
    if long_name in executor._compiled.program.shards:  # sharded across replicas: every replica's part, joined
        return executor._get(long_name).detach().clone().cpu()
    return store[long_name].detach().clone().cpu()

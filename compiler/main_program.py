"""The ``main`` program ``poplar-build-program`` builds: the device loop and each output's host copies.

Each value for the host (a model output, an updated input, an anchored tensor) has its own
mode (SEMANTICS "Outputs"): ``all`` streams every step's value, ``every_n`` those of steps
n-1, 2n-1, ... (its period n), ``final`` the last step's, ``sum`` the sum of every step's
(kept in a ``sum`` variable, streamed once), and None (an updated input) every step's,
whatever the others do. The loop nest is ``repeat(D) { repeat(G) { step }; update }``;
with an ``every_n`` value it is grouped so that each group of n steps ends with its copy,
so all ``every_n`` values of one program share one period.

A state variable's value (``after_update``: an anchored weight, optimizer state, ...) is
taken at the same points, at the end of each step, where the last step of an iteration ends
with the iteration's ``update``: its copies follow the update there, so each iteration's last
step is built apart from the others, ``repeat(D) { repeat(G-1) { step }; step; update }``.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Sequence

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.dialects._base import build
from ipu_mlir.dialects.ipu_anchor import AnchorMode, StateAnchor
from ipu_mlir.dialects.poplar import OutputMode
from ipu_mlir.support.ir_build import f64, i64, string


@dataclasses.dataclass(frozen=True)
class HostValue:
    """One value the host reads: the variable each step leaves it in, its stream and mode."""

    variable: ir.Value
    stream: str
    mode: OutputMode | None  # None: after every step (an input the model updated)
    period: int = 1
    sum: ir.Value | None = None  # the running sum (mode sum)
    after_update: bool = False  # state: the last step of an iteration is sampled after the update


def every_n_period(values: Sequence[HostValue]) -> int | None:
    """The one period of the ``every_n`` values (None: there are none); ValueError if they differ."""
    periods = sorted({value.period for value in values if value.mode == OutputMode.EVERY_N})
    if len(periods) > 1:
        raise ValueError(f"every_n values with different return periods ({', '.join(map(str, periods))}): one program "
                         "groups its steps by one period")
    return periods[0] if periods else None


def state_anchor_problems(state: Sequence[StateAnchor], names: Sequence[str]) -> list[str]:
    """What is wrong with anchored state (``ipu.anchored_state``): each entry names a state variable of ``names``."""
    problems = []
    for anchor in state:
        if anchor.name not in names:
            close = difflib.get_close_matches(anchor.name, names, n=3, cutoff=0.5)
            hint = f"did you mean {', '.join(repr(n) for n in close)}? " if close else ""
            problems.append(f"anchored state '{anchor.name}' is no variable of the program (a model tensor is anchored "
                            f"as an 'anchor' result of @main instead); {hint}the variables are: {', '.join(names) or 'none'}")
    return problems


def anchor_period_problem(anchored: Sequence[tuple[str, AnchorMode]], modes: Sequence[tuple[OutputMode | None, int]],
                          device_iterations: int, accumulation: int, outputs_period: int | None) -> str | None:
    """An anchor's every_n period divides the steps of a call and groups whole accumulation
    periods (or divides G), and all every_n values (``modes``: every value's) share it.
    ``outputs_period``: the outputs' every_n period (None: they are not every_n)."""
    steps = device_iterations * accumulation
    for name, mode in anchored:
        if mode.mode == OutputMode.EVERY_N and (steps % mode.period or (accumulation % mode.period and mode.period % accumulation)):
            return (f"anchored tensor '{name}': return period {mode.period} must divide device-iterations x "
                    f"gradient-accumulation = {steps}, and divide gradient-accumulation {accumulation} or be a multiple of it")
    try:
        every_n_period([HostValue(None, "", mode, period) for mode, period in modes])
    except ValueError:
        listed = ", ".join(f"'{name}' ({mode.period})" for name, mode in anchored if mode.mode == OutputMode.EVERY_N)
        outputs = f"; the outputs' every_n period is {outputs_period}" if outputs_period is not None else ""
        return (f"anchored tensors with every_n periods {listed}{outputs}: the values of one program stream every n "
                "steps for one n only; anchor them with the same period, or another output mode")
    return None


def build_main(block: ir.Block, loc: ir.Location, step_function: str, update_function: str | None,
               values: Sequence[HostValue], device_iterations: int, accumulation: int) -> None:
    """Fill ``block`` (the main sequence): D iterations of (G steps [then the update]) with
    each value's copies (see the module docstring). ``accumulation`` is 1 without an update."""
    period = every_n_period(values)
    has_update = update_function is not None
    state = any(value.after_update for value in values)

    def stream(value: ir.Value, name: str) -> None:
        build(pd.StreamCopyOp, value, string(name))

    def copies(every_n: bool, after_update: bool) -> None:
        """The values' copies at the end of a step (the every_n ones too if ``every_n``)."""
        chosen = [value for value in values if value.after_update == after_update]
        for value in chosen:
            if value.mode is None:
                stream(value.variable, value.stream)
        for value in chosen:
            if value.mode == OutputMode.ALL:
                stream(value.variable, value.stream)
        for value in chosen:
            if value.mode == OutputMode.SUM:
                build(pd.ScaledAddToOp, value.sum, value.variable, f64(1.0))
        for value in chosen if every_n else ():
            if value.mode == OutputMode.EVERY_N:
                stream(value.variable, value.stream)

    def update() -> None:
        if has_update:
            build(pd.CallOp, string(update_function))

    def step(every_n: bool = False, ends_iteration: bool = False) -> None:
        build(pd.CallOp, string(step_function))
        copies(every_n, after_update=False)
        if ends_iteration:
            update()
        copies(every_n, after_update=True)

    def repeat(count: int, body: Callable[[], None], always: bool = False) -> None:
        if count == 1 and not always:  # inner loops of one trip are just their body
            body()
            return
        loop = build(pd.RepeatOp, i64(count))
        with ir.InsertionPoint(loop.operation.regions[0].blocks.append()):
            body()

    def steps(count: int, every_n_at_end: bool = False, ends_iteration: bool = False) -> None:
        """``count`` steps; the last one streams the every_n values and ends the iteration as asked."""
        if count == 0:
            return
        if every_n_at_end or (ends_iteration and state):  # the last step has copies of its own
            repeat(count - 1, step) if count > 1 else None
            step(every_n_at_end, ends_iteration)
        else:
            repeat(count, step)
            if ends_iteration:
                update()

    with loc, ir.InsertionPoint(block):
        for value in values:
            if value.mode == OutputMode.SUM:
                zero = ir.DenseElementsAttr.get_splat(value.sum.type, _zero(ir.RankedTensorType(value.sum.type).element_type))
                build(pd.CopyOp, build(pd.ConstantOp, zero, i64(0), value.sum.type).result, value.sum)
        if period is not None and accumulation % period == 0:
            groups = accumulation // period  # of ``period`` steps whose last one's values go to the host

            def iteration() -> None:
                if state:  # the last group ends with the update, before the state's copies
                    repeat(groups - 1, lambda: steps(period, every_n_at_end=True)) if groups > 1 else None
                    steps(period, every_n_at_end=True, ends_iteration=True)
                else:
                    repeat(groups, lambda: steps(period, every_n_at_end=True))
                    update()

            repeat(device_iterations, iteration, always=True)
        elif period is not None:  # the period spans k = period / G whole iterations
            k = period // accumulation

            def block_of_k() -> None:
                repeat(k - 1, lambda: steps(accumulation, ends_iteration=True)) if k > 1 else None
                steps(accumulation, every_n_at_end=True, ends_iteration=True)

            repeat(device_iterations // k, block_of_k, always=True)
        else:
            repeat(device_iterations, lambda: steps(accumulation, ends_iteration=True), always=True)
        for value in values:
            if value.mode == OutputMode.FINAL:
                stream(value.variable, value.stream)
            elif value.mode == OutputMode.SUM:
                stream(value.sum, value.stream)


def _zero(element: ir.Type) -> ir.Attribute:
    if isinstance(element, ir.IntegerType):
        return ir.IntegerAttr.get(element, 0)
    return ir.FloatAttr.get(element, 0.0)

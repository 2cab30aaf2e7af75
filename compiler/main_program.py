"""The ``main`` program ``poplar-build-program`` builds: the device loop and each output's host copies.

Each value for the host (a model output, an updated input, an anchored tensor) has its own
mode (SEMANTICS "Outputs"): ``all`` streams every step's value, ``every_n`` those of steps
n-1, 2n-1, ... (its period n), ``final`` the last step's, ``sum`` the sum of every step's
(kept in a ``sum`` variable, streamed once), and None (an updated input) every step's,
whatever the others do. The loop nest is ``repeat(D) { repeat(G) { step }; update }``;
with an ``every_n`` value it is grouped so that each group of n steps ends with its copy,
so all ``every_n`` values of one program share one period.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.dialects._base import build
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


def every_n_period(values: Sequence[HostValue]) -> int | None:
    """The one period of the ``every_n`` values (None: there are none); ValueError if they differ."""
    periods = sorted({value.period for value in values if value.mode == OutputMode.EVERY_N})
    if len(periods) > 1:
        raise ValueError(f"every_n values with different return periods ({', '.join(map(str, periods))}): one program "
                         "groups its steps by one period")
    return periods[0] if periods else None


def build_main(block: ir.Block, loc: ir.Location, step_function: str, update_function: str | None,
               values: Sequence[HostValue], device_iterations: int, accumulation: int) -> None:
    """Fill ``block`` (the main sequence): D iterations of (G steps [then the update]) with
    each value's copies (see the module docstring). ``accumulation`` is 1 without an update."""
    period = every_n_period(values)
    has_update = update_function is not None

    def stream(value: ir.Value, name: str) -> None:
        build(pd.StreamCopyOp, value, string(name))

    def step() -> None:
        build(pd.CallOp, string(step_function))
        for value in values:
            if value.mode is None:
                stream(value.variable, value.stream)
        for value in values:
            if value.mode == OutputMode.ALL:
                stream(value.variable, value.stream)
        for value in values:
            if value.mode == OutputMode.SUM:
                build(pd.ScaledAddToOp, value.sum, value.variable, f64(1.0))

    def update() -> None:
        if has_update:
            build(pd.CallOp, string(update_function))

    def every_n_copies() -> None:
        for value in values:
            if value.mode == OutputMode.EVERY_N:
                stream(value.variable, value.stream)

    def repeat(count: int, body: Callable[[], None], always: bool = False) -> None:
        if count == 1 and not always:  # inner loops of one trip are just their body
            body()
            return
        loop = build(pd.RepeatOp, i64(count))
        with ir.InsertionPoint(loop.operation.regions[0].blocks.append()):
            body()

    def steps(count: int) -> None:
        repeat(count, step) if count > 0 else None

    with loc, ir.InsertionPoint(block):
        for value in values:
            if value.mode == OutputMode.SUM:
                zero = ir.DenseElementsAttr.get_splat(value.sum.type, _zero(ir.RankedTensorType(value.sum.type).element_type))
                build(pd.CopyOp, build(pd.ConstantOp, zero, i64(0), value.sum.type).result, value.sum)
        if period is not None and accumulation % period == 0:
            def group() -> None:  # ``period`` steps whose last one's values go to the host
                steps(period - 1)
                step()
                every_n_copies()

            def iteration() -> None:
                repeat(accumulation // period, group)
                update()

            repeat(device_iterations, iteration, always=True)
        elif period is not None:  # the period spans k = period / G whole iterations
            k = period // accumulation

            def plain_iteration() -> None:
                repeat(accumulation, step)
                update()

            def block_of_k() -> None:
                repeat(k - 1, plain_iteration) if k > 1 else None
                steps(accumulation - 1)
                step()
                every_n_copies()
                update()

            repeat(device_iterations // k, block_of_k, always=True)
        else:
            def iteration() -> None:
                repeat(accumulation, step)
                update()

            repeat(device_iterations, iteration, always=True)
        for value in values:
            if value.mode == OutputMode.FINAL:
                stream(value.variable, value.stream)
            elif value.mode == OutputMode.SUM:
                stream(value.sum, value.stream)


def _zero(element: ir.Type) -> ir.Attribute:
    if isinstance(element, ir.IntegerType):
        return ir.IntegerAttr.get(element, 0)
    return ir.FloatAttr.get(element, 0.0)

"""The typed attributes a ``poplar.graph`` carries: its interface (``#poplar.interface``,
written once by ``poplar-build-program``: each input's and output's host stream, the
variables the host provides, the step, update and main programs) and its memory plan (``#poplar.memory_plan``, written by
``poplar-plan-memory``). Each has a builder and a checked reader returning a frozen dataclass.
"""

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Self

from torch_mlir import ir

from ipu_mlir.support.ir_build import i64, string

from .base import Poplar

INTERFACE_ATTR = "poplar.interface"  # on a poplar.graph: its #poplar.interface
MEMORY_ATTR = "poplar.memory"  # on a poplar.graph: its #poplar.memory_plan
ANCHORS_ATTR = "poplar.anchors"  # on a poplar.graph: its anchored tensors' streams, [#poplar.anchor, ...]
MAIN_PROGRAM = "main"  # the program_sequence the engine runs (GraphOp requires exactly one)
# Estimated cycles (an i64 IntegerAttr, written by poplar-estimate-cycles) on every compute op
# and program step; on a region op (function, sequence, repeat, pipeline stage / schedule)
# the cycles of one run of it; on the main program_sequence the cycles of one host call.
CYCLES_ATTR = "poplar.cycles"
# On a poplar.graph: the name of the IPU target (support.target.TARGETS) its cycles assume.
CYCLES_TARGET_ATTR = "poplar.cycles_target"


class InterfaceAttr(Poplar.Attribute, name="interface"):
    """How the host drives a graph: ``#poplar.interface<{x = "host.input.x"}, ["host.output.0"],
    [["parameter", "fc.weight"]], "step", "", "main">``.

    Parameters: the host-to-device stream of each input, by input name; the
    device-to-host stream of each output, by index; the variables the host provides
    (weights, buffers, constants, hyper-parameters, optimizer state, accumulators), each a
    ``[kind, name]`` pair in the step function's argument order: the ``#ipu.role`` kind the
    argument had and the name of its ``poplar.variable``; the function running one step
    (micro-batch); the function applying the optimizer once per gradient-accumulation
    period (``""``: none); the main program. Set by ``poplar-build-program``, which names
    the streams and functions; the driver copies it into the executable's metadata, and
    the host side (poptorch, the IPU Model) reads stream, variable and function names from it.
    """

    inputs: ir.DictAttr
    outputs: ir.ArrayAttr
    variables: ir.ArrayAttr
    step: ir.StringAttr
    update: ir.StringAttr
    main: ir.StringAttr


@dataclasses.dataclass(frozen=True)
class Interface:
    """What ``#poplar.interface`` says, checked (see :class:`InterfaceAttr`)."""

    inputs: Mapping[str, str]  # input name -> host-to-device stream
    outputs: tuple[str, ...]  # output index -> device-to-host stream
    variables: tuple[tuple[str, str], ...]  # (role kind, variable name) the host provides, in argument order
    step: str
    update: str | None  # None without gradient accumulation's separate update
    main: str = MAIN_PROGRAM
    anchors: tuple["Anchor", ...] = ()  # the graph's poplar.anchors (Options.anchorTensor), in result order

    def input_stream(self, name: str) -> str:
        """The stream feeding input ``name``."""
        if name not in self.inputs:
            raise KeyError(f"the program has no input '{name}'; its inputs: {', '.join(self.inputs) or 'none'}")
        return self.inputs[name]

    def output_stream(self, index: int) -> str:
        """The stream carrying output ``index``."""
        if not 0 <= index < len(self.outputs):
            raise IndexError(f"the program has {len(self.outputs)} outputs, not output #{index}")
        return self.outputs[index]

    def attr(self) -> InterfaceAttr:
        return InterfaceAttr.get(
            ir.DictAttr.get({name: string(stream) for name, stream in self.inputs.items()}),
            ir.ArrayAttr.get([string(stream) for stream in self.outputs]),
            ir.ArrayAttr.get([ir.ArrayAttr.get([string(kind), string(name)]) for kind, name in self.variables]),
            string(self.step), string(self.update or ""), string(self.main),
        )

    @classmethod
    def from_attr(cls, attr: ir.Attribute) -> Self:
        where = f"'{INTERFACE_ATTR}'"
        if not isinstance(attr, InterfaceAttr):
            raise ValueError(f"{where} must be a #poplar.interface<inputs, outputs, variables, step, update, main>, got {attr}")
        inputs = {}
        for named in ir.DictAttr(attr.inputs):
            if not isinstance(named.attr, ir.StringAttr) or not ir.StringAttr(named.attr).value:
                raise ValueError(f"{where} input '{named.name}' must name its stream (a non-empty string), got {named.attr}")
            inputs[named.name] = ir.StringAttr(named.attr).value
        outputs = []
        for index, stream in enumerate(ir.ArrayAttr(attr.outputs)):
            if not isinstance(stream, ir.StringAttr) or not ir.StringAttr(stream).value:
                raise ValueError(f"{where} output #{index} must name its stream (a non-empty string), got {stream}")
            outputs.append(ir.StringAttr(stream).value)
        variables = []
        for index, pair in enumerate(ir.ArrayAttr(attr.variables)):
            strings = list(ir.ArrayAttr(pair)) if isinstance(pair, ir.ArrayAttr) else []
            if len(strings) != 2 or not all(isinstance(item, ir.StringAttr) and ir.StringAttr(item).value for item in strings):
                raise ValueError(f"{where} variable #{index} must be a [kind, name] pair of non-empty strings, got {pair}")
            variables.append((ir.StringAttr(strings[0]).value, ir.StringAttr(strings[1]).value))
        step, update, main = (ir.StringAttr(getattr(attr, name)).value for name in ("step", "update", "main"))
        if not step or not main:
            raise ValueError(f"{where} must name its step function and main program, got \"{step}\" and \"{main}\"")
        return cls(inputs, tuple(outputs), tuple(variables), step, update or None, main)

    def to_dict(self) -> dict[str, Any]:
        """A JSON form, for the executable's metadata."""
        return {"inputs": dict(self.inputs), "outputs": list(self.outputs),
                "variables": [list(pair) for pair in self.variables], "step": self.step,
                "update": self.update, "main": self.main,
                "anchors": [dataclasses.asdict(anchor) for anchor in self.anchors]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        variables = tuple((kind, name) for kind, name in data["variables"])
        anchors = tuple(Anchor(**entry) for entry in data.get("anchors", ()))
        return cls(dict(data["inputs"]), tuple(data["outputs"]), variables, data["step"], data["update"], data["main"],
                   anchors)


class AnchorAttr(Poplar.Attribute, name="anchor"):
    """An anchored tensor's host stream: ``#poplar.anchor<"fc1/linear", "host.anchor.0", "all", 1 : i64>``.

    Parameters: the tensor's name (as ``getTensorNames()`` lists it), the device-to-host
    stream carrying it, the output mode (``all``, ``final``, ``sum``, ``every_n``) and its
    return period (>= 1, the n of ``every_n``). ``poplar-build-program`` writes one per
    ``anchor`` result in the graph's ``poplar.anchors`` list; the host reads the stream as
    it reads an output's under that mode (``Options.anchorTensor`` / ``getAnchoredTensor``).
    """

    name: ir.StringAttr
    stream: ir.StringAttr
    mode: ir.StringAttr
    period: ir.IntegerAttr


@dataclasses.dataclass(frozen=True)
class Anchor:
    """What ``#poplar.anchor`` says, checked (see :class:`AnchorAttr`)."""

    name: str
    stream: str
    mode: str
    period: int = 1

    def attr(self) -> AnchorAttr:
        return AnchorAttr.get(string(self.name), string(self.stream), string(self.mode), i64(self.period))

    @classmethod
    def from_attr(cls, attr: ir.Attribute, index: int) -> Self:
        from .enums import OutputMode

        where = f"'{ANCHORS_ATTR}' entry #{index}"
        if not isinstance(attr, AnchorAttr):
            raise ValueError(f"{where} must be a #poplar.anchor<name, stream, mode, period>, got {attr}")
        name, stream, mode = (ir.StringAttr(getattr(attr, key)).value for key in ("name", "stream", "mode"))
        period = ir.IntegerAttr(attr.period).value
        if not name or not stream:
            raise ValueError(f"{where} must name its tensor and its stream (non-empty strings), got \"{name}\" and \"{stream}\"")
        OutputMode.parse(mode, f"{where} mode")
        if period < 1 or (period != 1 and mode != OutputMode.EVERY_N):
            raise ValueError(f"{where} period must be >= 1, and 1 unless the mode is every_n; got {period} with {mode}")
        return cls(name, stream, mode, period)


def anchors_of(graph: ir.Operation) -> tuple[Anchor, ...]:
    """The graph's anchored tensors (``poplar.anchors``), () when it has none; ValueError if malformed."""
    if ANCHORS_ATTR not in graph.attributes:
        return ()
    attr = graph.attributes[ANCHORS_ATTR]
    if not isinstance(attr, ir.ArrayAttr):
        raise ValueError(f"'{ANCHORS_ATTR}' must be an array of #poplar.anchor, got {attr}")
    return tuple(Anchor.from_attr(item, index) for index, item in enumerate(ir.ArrayAttr(attr)))


def interface_of(graph: ir.Operation) -> Interface | None:
    """The graph's interface (with its anchors), or None before poplar-build-program; ValueError if malformed."""
    if INTERFACE_ATTR not in graph.attributes:
        return None
    return dataclasses.replace(Interface.from_attr(graph.attributes[INTERFACE_ATTR]), anchors=anchors_of(graph))


class IpuMemoryAttr(Poplar.Attribute, name="ipu_memory"):
    """The memory one IPU needs, in bytes: ``#poplar.ipu_memory<0 : i64, 4096 : i64, 512 : i64, 0 : i64, 4608 : i64>``.

    Parameters: the IPU, its variables, the peak of its live temporaries, what it stashes
    for pipelined micro-batches in flight, and their total.
    """

    ipu: ir.IntegerAttr
    variables: ir.IntegerAttr
    temporaries: ir.IntegerAttr
    stash: ir.IntegerAttr
    total: ir.IntegerAttr


class MemoryPlanAttr(Poplar.Attribute, name="memory_plan"):
    """The memory plan of a graph: ``#poplar.memory_plan<[#poplar.ipu_memory<...>, ...]>``,
    one ``#poplar.ipu_memory`` per IPU with data, in IPU order (``poplar-plan-memory``)."""

    ipus: ir.ArrayAttr


@dataclasses.dataclass(frozen=True)
class IpuMemory:
    """What ``#poplar.ipu_memory`` says, checked (bytes)."""

    ipu: int
    variables: int
    temporaries: int
    stash: int = 0

    @property
    def total(self) -> int:
        return self.variables + self.temporaries + self.stash

    def attr(self) -> IpuMemoryAttr:
        return IpuMemoryAttr.get(i64(self.ipu), i64(self.variables), i64(self.temporaries), i64(self.stash), i64(self.total))

    def to_dict(self) -> dict[str, int]:
        return {"variables": self.variables, "temporaries": self.temporaries, "stash": self.stash, "total": self.total}


@dataclasses.dataclass(frozen=True)
class MemoryPlan:
    """What ``#poplar.memory_plan`` says, checked: each IPU's memory, in IPU order."""

    ipus: tuple[IpuMemory, ...]

    def by_ipu(self) -> dict[int, IpuMemory]:
        return {entry.ipu: entry for entry in self.ipus}

    def attr(self) -> MemoryPlanAttr:
        return MemoryPlanAttr.get(ir.ArrayAttr.get([entry.attr() for entry in self.ipus]))

    @classmethod
    def build(cls, entries: Sequence[IpuMemory]) -> Self:
        return cls(tuple(sorted(entries, key=lambda entry: entry.ipu)))

    @classmethod
    def from_attr(cls, attr: ir.Attribute) -> Self:
        where = f"'{MEMORY_ATTR}'"
        if not isinstance(attr, MemoryPlanAttr):
            raise ValueError(f"{where} must be a #poplar.memory_plan<[#poplar.ipu_memory<...>, ...]>, got {attr}")
        entries: list[IpuMemory] = []
        for index, item in enumerate(ir.ArrayAttr(attr.ipus)):
            if not isinstance(item, IpuMemoryAttr):
                raise ValueError(f"{where} entry #{index} must be a #poplar.ipu_memory<ipu, variables, temporaries, "
                                 f"stash, total>, got {item}")
            values = {name: ir.IntegerAttr(getattr(item, name)).value
                      for name in ("ipu", "variables", "temporaries", "stash", "total")}
            negative = [name for name, value in values.items() if value < 0]
            if negative:
                raise ValueError(f"{where} entry #{index}: {', '.join(negative)} must be >= 0, got {values}")
            total = values.pop("total")
            entry = IpuMemory(**values)
            if total != entry.total:
                raise ValueError(f"{where} IPU {entry.ipu}: total {total} must be variables + temporaries + stash = {entry.total}")
            if entries and entry.ipu <= entries[-1].ipu:
                raise ValueError(f"{where} lists IPU {entry.ipu} after IPU {entries[-1].ipu}: one entry per IPU, in IPU order")
            entries.append(entry)
        return cls(tuple(entries))


def memory_plan_of(graph: ir.Operation) -> MemoryPlan | None:
    """The graph's memory plan, or None before poplar-plan-memory; ValueError if malformed."""
    return MemoryPlan.from_attr(graph.attributes[MEMORY_ATTR]) if MEMORY_ATTR in graph.attributes else None


def cycles_of(op: ir.Operation) -> int | None:
    """The estimated cycles on ``op`` (``poplar.cycles``), or None before poplar-estimate-cycles ran."""
    if CYCLES_ATTR not in op.attributes:
        return None
    attr = op.attributes[CYCLES_ATTR]
    if not isinstance(attr, ir.IntegerAttr):
        raise ValueError(f"'{CYCLES_ATTR}' on '{op.name}' must be an integer attribute (cycles), got {attr}")
    return ir.IntegerAttr(attr).value

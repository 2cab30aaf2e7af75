"""Streaming memory: where each class of tensor lives (``#poplar.tensor_location``, one per
class in ``#poplar.tensor_locations``, written by the driver on the module for
``poplar-place-tensors``), the copies between a remote buffer and a variable
(``program_remote_load`` / ``program_remote_store``, ``poplar::program::Copy`` of a
``RemoteBuffer``) and the streaming bytes of each IPU (``#poplar.streaming_memory``, from
``poplar-plan-memory``).

A ``poplar.variable`` placed off chip carries ``poplar.remote_buffer`` (the name of the
``poplar.remote_buffer`` that holds it between programs): its value lives in the IPU's
streaming memory, and it is on chip only from a ``program_remote_load`` to its last use
(a ``program_remote_store`` where the program updates it). The host reads and writes such a
variable's value in its remote buffer.
"""

import dataclasses
from collections.abc import Mapping
from typing import Self

from torch_mlir import ir

from ipu_mlir.support.ir_build import i64

from .._base import Rules
from .base import Poplar, PoplarOp, Tensor
from .enums import VariableKind

REMOTE_BUFFER_ATTR = "poplar.remote_buffer"  # on an off-chip poplar.variable: its buffer's name
IO_TILES_ATTR = "poplar.io_tiles"  # unit attribute on a remote load / store through the I/O tiles
TENSOR_LOCATIONS_ATTR = "poplar.tensor_locations"  # on the module: #poplar.tensor_locations
STREAMING_ATTR = "poplar.streaming_memory"  # on a poplar.graph: #poplar.streaming_memory

# The classes of TensorLocations, by the variable kind each places.
LOCATED_KINDS: Mapping[str, VariableKind] = {
    "weight": VariableKind.WEIGHT,
    "optimizer": VariableKind.OPTIMIZER_STATE,
    "accumulator": VariableKind.ACCUMULATOR,
}


def _int(attr: ir.Attribute, what: str) -> int:
    attr = attr.maybe_downcast()  # parameters come back as plain ir.Attribute
    if not isinstance(attr, ir.IntegerAttr) or isinstance(attr, ir.BoolAttr):
        raise ValueError(f"{what} must be an integer, got {attr}")
    return ir.IntegerAttr(attr).value


class TensorLocationAttr(Poplar.Attribute, name="tensor_location"):
    """Where one class of tensor lives: ``#poplar.tensor_location<0 : i64, 2 : i64, 0 : i64,
    8192 : i64, 0 : i64, 0 : i64>``.

    Parameters (PopTorch's ``TensorLocationSettings``): on chip (1 on chip, 0 off chip in
    streaming memory, -1 the compiler's choice: on chip), the minimum elements for off chip
    (smaller tensors stay on chip), replicated tensor sharding (0 / 1) and its minimum
    elements, loads and stores through I/O tiles (0 / 1 each).
    """

    on_chip: ir.IntegerAttr
    min_elements_for_off_chip: ir.IntegerAttr
    sharded: ir.IntegerAttr
    min_elements_for_sharding: ir.IntegerAttr
    io_tiles_to_load: ir.IntegerAttr
    io_tiles_to_store: ir.IntegerAttr


@dataclasses.dataclass(frozen=True)
class TensorLocation:
    """What ``#poplar.tensor_location`` says, checked (see :class:`TensorLocationAttr`)."""

    on_chip: int = -1
    min_elements_for_off_chip: int = 2
    sharded: bool = False
    min_elements_for_sharding: int = 8192
    io_tiles_to_load: bool = False
    io_tiles_to_store: bool = False

    def off_chip(self, elements: int) -> bool:
        """Whether a tensor of ``elements`` of this class lives in streaming memory."""
        return self.on_chip == 0 and elements >= self.min_elements_for_off_chip

    def attr(self) -> ir.Attribute:
        return TensorLocationAttr.get(*(i64(int(value)) for value in dataclasses.astuple(self)))

    @classmethod
    def from_attr(cls, attr: ir.Attribute) -> Self:
        if not isinstance(attr, TensorLocationAttr):
            raise ValueError(f"must be a #poplar.tensor_location<on_chip, min_elements_for_off_chip, sharded, "
                             f"min_elements_for_sharding, io_tiles_to_load, io_tiles_to_store>, got {attr}")
        values = {field.name: _int(getattr(attr, field.name), field.name) for field in dataclasses.fields(cls)}
        if values["on_chip"] not in (-1, 0, 1):
            raise ValueError(f"on_chip must be 1 (on chip), 0 (off chip) or -1 (the compiler's choice), got {values['on_chip']}")
        for name in ("sharded", "io_tiles_to_load", "io_tiles_to_store"):
            if values[name] not in (0, 1):
                raise ValueError(f"{name} must be 0 or 1, got {values[name]}")
        for name in ("min_elements_for_off_chip", "min_elements_for_sharding"):
            if values[name] < 0:
                raise ValueError(f"{name} must be >= 0, got {values[name]}")
        return cls(values["on_chip"], values["min_elements_for_off_chip"], bool(values["sharded"]),
                   values["min_elements_for_sharding"], bool(values["io_tiles_to_load"]), bool(values["io_tiles_to_store"]))


class TensorLocationsAttr(Poplar.Attribute, name="tensor_locations"):
    """Where each class of tensor lives (PopTorch's ``Options.TensorLocations``):
    ``#poplar.tensor_locations<#poplar.tensor_location<...>, ...>`` for weights, optimizer
    state, accumulators and activations, in that order. The driver writes it on the module;
    ``poplar-place-tensors`` reads it."""

    weight: TensorLocationAttr
    optimizer: TensorLocationAttr
    accumulator: TensorLocationAttr
    activation: TensorLocationAttr


@dataclasses.dataclass(frozen=True)
class TensorLocations:
    """What ``#poplar.tensor_locations`` says, checked."""

    weight: TensorLocation = TensorLocation()
    optimizer: TensorLocation = TensorLocation()
    accumulator: TensorLocation = TensorLocation()
    activation: TensorLocation = TensorLocation()

    def attr(self) -> ir.Attribute:
        return TensorLocationsAttr.get(*(getattr(self, f.name).attr() for f in dataclasses.fields(self)))

    def of_kind(self, kind: VariableKind) -> TensorLocation | None:
        """The location of a variable of ``kind`` (None: a kind TensorLocations does not place)."""
        for name, located in LOCATED_KINDS.items():
            if located == kind:
                return getattr(self, name)
        return None

    @classmethod
    def from_attr(cls, attr: ir.Attribute) -> Self:
        where = f"'{TENSOR_LOCATIONS_ATTR}'"
        if not isinstance(attr, TensorLocationsAttr):
            raise ValueError(f"{where} must be a #poplar.tensor_locations<weight, optimizer, accumulator, activation>, "
                             f"got {attr}")
        values = {}
        for field in dataclasses.fields(cls):
            try:
                values[field.name] = TensorLocation.from_attr(getattr(attr, field.name).maybe_downcast())
            except ValueError as error:
                raise ValueError(f"{where} {field.name}: {error}") from None
        return cls(**values)


def tensor_locations_of(module: ir.Operation) -> TensorLocations:
    """The module's tensor locations (every class on chip when it has none); ValueError if malformed."""
    if TENSOR_LOCATIONS_ATTR not in module.attributes:
        return TensorLocations()
    return TensorLocations.from_attr(module.attributes[TENSOR_LOCATIONS_ATTR])


def remote_buffer_of(variable: ir.Operation) -> str | None:
    """The remote buffer holding an off-chip ``poplar.variable`` between programs, or None (on chip)."""
    if REMOTE_BUFFER_ATTR not in variable.attributes:
        return None
    return ir.StringAttr(variable.attributes[REMOTE_BUFFER_ATTR]).value


class IpuStreamingAttr(Poplar.Attribute, name="ipu_streaming"):
    """The streaming (off-chip) memory one IPU's remote buffers take: ``#poplar.ipu_streaming<0 : i64, 4096 : i64>``
    (the IPU, bytes)."""

    ipu: ir.IntegerAttr
    bytes: ir.IntegerAttr


class StreamingMemoryAttr(Poplar.Attribute, name="streaming_memory"):
    """The streaming memory of a graph, one ``#poplar.ipu_streaming`` per IPU with remote
    buffers, in IPU order (``poplar-plan-memory``; on-chip bytes are its ``#poplar.memory_plan``)."""

    ipus: ir.ArrayAttr


def streaming_attr(by_ipu: Mapping[int, int]) -> ir.Attribute:
    return StreamingMemoryAttr.get(ir.ArrayAttr.get([IpuStreamingAttr.get(i64(ipu), i64(size))
                                                     for ipu, size in sorted(by_ipu.items())]))


def streaming_of(graph: ir.Operation) -> dict[int, int]:
    """Streaming bytes by IPU (empty before poplar-plan-memory or without remote buffers)."""
    if STREAMING_ATTR not in graph.attributes:
        return {}
    attr = graph.attributes[STREAMING_ATTR]
    if not isinstance(attr, StreamingMemoryAttr):
        raise ValueError(f"'{STREAMING_ATTR}' must be a #poplar.streaming_memory<[#poplar.ipu_streaming<ipu, bytes>, ...]>, "
                         f"got {attr}")
    result = {}
    for item in ir.ArrayAttr(attr.ipus):
        if not isinstance(item, IpuStreamingAttr):
            raise ValueError(f"'{STREAMING_ATTR}' entries must be #poplar.ipu_streaming<ipu, bytes>, got {item}")
        result[_int(item.ipu, "ipu")] = _int(item.bytes, "bytes")
    return result


IO_TILE_MEMORY_ATTR = "poplar.io_tile_memory"  # on a poplar.graph: #poplar.io_tile_memory


class IoTileMemoryAttr(Poplar.Attribute, name="io_tile_memory"):
    """The I/O tiles each IPU of a graph sets aside (``Options.TensorLocations.numIOTiles``):
    ``#poplar.io_tile_memory<32 : i64, 20447232 : i64>`` (tiles, and their bytes, which the
    compute tiles cannot use). Written by ``poplar-plan-memory`` when there are some."""

    tiles: ir.IntegerAttr
    bytes: ir.IntegerAttr


def io_tile_memory_attr(tiles: int, size: int) -> ir.Attribute:
    return IoTileMemoryAttr.get(i64(tiles), i64(size))


def io_tile_memory_of(graph: ir.Operation) -> tuple[int, int]:
    """(I/O tiles, their bytes) of each IPU of the graph; (0, 0) without any."""
    if IO_TILE_MEMORY_ATTR not in graph.attributes:
        return 0, 0
    attr = graph.attributes[IO_TILE_MEMORY_ATTR]
    if not isinstance(attr, IoTileMemoryAttr):
        raise ValueError(f"'{IO_TILE_MEMORY_ATTR}' must be a #poplar.io_tile_memory<tiles, bytes>, got {attr}")
    tiles, size = _int(attr.tiles, "tiles"), _int(attr.bytes, "bytes")
    if tiles < 0 or size < 0:
        raise ValueError(f"'{IO_TILE_MEMORY_ATTR}' tiles and bytes must be >= 0, got {tiles} and {size}")
    return tiles, size


def _buffer_of(v: Rules, op: PoplarOp) -> None:
    from .graph import _find_in_graph

    name = v.string("buffer", nonempty=True)
    decl = _find_in_graph(op, "poplar.remote_buffer", name)
    v.require(decl is not None, f"refers to remote buffer \"{name}\", which the enclosing 'poplar.graph' does not declare")
    declared = ir.TypeAttr(decl.attributes["type"]).value
    v.require(declared == op.tensor.type, f"tensor type {op.tensor.type} must equal the type of remote buffer \"{name}\" "
                                           f"({declared})")


class RemoteLoadOp(PoplarOp, name="program_remote_load"):
    """Copies remote buffer ``buffer`` (streaming memory) into ``tensor`` on chip
    (``poplar::program::Copy(remoteBuffer, tensor)``).

    Semantics: ``tensor`` takes the buffer's value; the buffer keeps it. The buffer must be
    declared in the enclosing graph with ``tensor``'s type. ``poplar.io_tiles`` (unit) says
    the copy goes through the I/O tiles.

    Example:
      "poplar.program_remote_load"(%w) {buffer = "remote.fc.weight"} : (tensor<4x3xf32>) -> ()
    """

    tensor: Tensor
    buffer: ir.StringAttr

    def check(self, v: Rules) -> None:
        _buffer_of(v, self)


class RemoteStoreOp(PoplarOp, name="program_remote_store"):
    """Copies ``tensor`` into remote buffer ``buffer`` (streaming memory)
    (``poplar::program::Copy(tensor, remoteBuffer)``).

    Semantics: the buffer takes ``tensor``'s value. The buffer must be declared in the
    enclosing graph with ``tensor``'s type.

    Example:
      "poplar.program_remote_store"(%w) {buffer = "remote.fc.weight"} : (tensor<4x3xf32>) -> ()
    """

    tensor: Tensor
    buffer: ir.StringAttr

    def check(self, v: Rules) -> None:
        _buffer_of(v, self)

"""Where the IPU Model keeps data between and during runs: the tensors each emulated IPU
holds (:class:`DeviceStore`), the host side of the streams of one run (:class:`HostIO`),
and what each variable and stream of the graph is (:class:`VariableInfo`: its
:class:`~ipu_mlir.dialects.poplar.VariableKind`, read from the IR; :class:`StreamInfo`).
"""

from __future__ import annotations

import dataclasses

import torch

from ipu_mlir.dialects.poplar import StreamDirection, VariableKind


@dataclasses.dataclass(frozen=True)
class VariableInfo:
    name: str
    kind: VariableKind  # what it holds: the only source of its role
    ipu: int
    shape: tuple[int, ...]
    dtype: torch.dtype

    @property
    def nbytes(self) -> int:
        count = 1
        for d in self.shape:
            count *= d
        return count * torch.empty((), dtype=self.dtype).element_size()


@dataclasses.dataclass(frozen=True)
class StreamInfo:
    name: str
    direction: StreamDirection
    shape: tuple[int, ...]
    dtype: torch.dtype


class DeviceStore:
    """The tensors held by one emulated IPU, by variable name, and its streaming memory.

    ``tensors`` is the IPU's on-chip memory between runs; ``remote`` its streaming memory
    (the IPU-Machine's DDR): one tensor per ``poplar.remote_buffer``, by buffer name.
    A variable placed off chip (``homes``: variable -> buffer, bound by the program with
    :meth:`bind_remote`) lives in its buffer: the host's :meth:`put` and :meth:`get`
    read and write it there, and a run copies it on chip and back with the program's
    remote loads and stores.
    """

    def __init__(self, ipu: int, device: torch.device | str | None = None) -> None:
        self.ipu = ipu
        # A device chosen by the user (even the CPU) makes the runtime move tensors at
        # the IPU's boundaries (host streams, inter-IPU copies, constants).
        self.placed = device is not None
        self.device = torch.device("cpu" if device is None else device)
        self.tensors: dict[str, torch.Tensor] = {}
        self.remote: dict[str, torch.Tensor] = {}
        self.homes: dict[str, str] = {}

    def allocate(self, info: VariableInfo) -> torch.Tensor:
        tensor = torch.zeros(info.shape, dtype=info.dtype, device=self.device)
        self.tensors[info.name] = tensor
        return tensor

    def put(self, name: str, tensor: torch.Tensor) -> None:
        """Hold ``tensor`` as variable ``name``, moved to this IPU's device (in its remote
        buffer when the variable lives off chip)."""
        if name in self.homes:
            self.remote[self.homes[name]] = tensor.to(self.device)
        else:
            self.tensors[name] = tensor.to(self.device)

    def get(self, name: str) -> torch.Tensor:
        """The value of variable ``name`` as the host sees it (from its remote buffer when off chip)."""
        if name in self.homes:
            return self.remote[self.homes[name]]
        return self.tensors[name]

    def bind_remote(self, info: VariableInfo, buffer: str) -> None:
        """Place variable ``info`` in remote buffer ``buffer``: a value the host put on chip
        moves there; a new buffer starts at zero like a new variable."""
        if self.homes.get(info.name) == buffer:
            return
        value = self.tensors.pop(info.name, None)
        if value is None:
            value = torch.zeros(info.shape, dtype=info.dtype, device=self.device)
        self.remote[buffer] = value
        self.homes[info.name] = buffer

    def streaming_bytes(self) -> int:
        """Bytes held in streaming memory."""
        return sum(t.numel() * t.element_size() for t in self.remote.values())


class HostIO:
    """Per-run host side of the streams: input queues and output lists."""

    __slots__ = ("inputs", "positions", "outputs")

    def __init__(self, inputs: dict[str, list[torch.Tensor]], output_names: list[str]) -> None:
        self.inputs = inputs
        self.positions = dict.fromkeys(inputs, 0)
        self.outputs: dict[str, list[torch.Tensor]] = {name: [] for name in output_names}

    def pop(self, stream: str) -> torch.Tensor:
        position = self.positions[stream]
        queue = self.inputs[stream]
        if position >= len(queue):
            raise RuntimeError(f"host stream '{stream}' ran out of data after {position} elements")
        self.positions[stream] = position + 1
        return queue[position]

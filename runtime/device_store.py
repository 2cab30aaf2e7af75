"""Where the IPU Model keeps data between and during runs: the tensors each emulated IPU
holds (:class:`DeviceStore`), the host side of the streams of one run (:class:`HostIO`),
and what each variable and stream of the graph is (:class:`VariableInfo`: its
:class:`~ipu_mlir.dialects.poplar.VariableKind`, read from the IR; :class:`StreamInfo`).
"""

from __future__ import annotations

import dataclasses

import torch

from ipu_mlir.dialects.poplar import StreamDirection, VariableKind


def device_copy(tensor: torch.Tensor) -> torch.Tensor:
    """The device's own copy of a host tensor (a weight the host uploads), copy on write.

    ``torch._lazy_clone`` gives a tensor that shares ``tensor``'s memory until either side
    is written: the first write to either (an in-place op, ``.data``, ``copy_``, numpy, a
    raw ``data_ptr()``) first copies the memory for the side that writes (torch's
    copy-on-write storage), so the two never see each other's changes, as with ``clone``.
    Uploading BERT-base's 440 MB of weights then costs no copy (``clone`` page-faulted
    every page: 0.4 s under load) and a weight the program only reads is never copied.

    Only a resizable storage (one with an allocator) is shared: torch copies a shared
    storage with its allocator, and one without (a tensor from ``torch.load``, which
    ``_lazy_clone`` accepts) crashes the process on the first write (torch 2.13,
    docs/ARCHITECTURE.md). numpy, ``frombuffer``, mmap'd (safetensors) and shared-memory
    storages, which ``_lazy_clone`` refuses, are copied now (``clone``) like those."""
    tensor = tensor.detach()
    if tensor.untyped_storage().resizable():
        try:
            return torch._lazy_clone(tensor)
        except RuntimeError:  # "Expected storage != nullptr": torch cannot share this storage
            pass
    return tensor.clone()


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

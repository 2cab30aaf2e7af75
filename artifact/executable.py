"""The compiled artifact: the poplar module as MLIR bytecode plus a small metadata record.

It holds no Python closures, so it can be written to a file and loaded in another
process (``Executable.to_bytes`` / ``from_bytes``); the runtime decodes the bytecode.
The metadata carries the graph's ``#poplar.interface`` (``Executable.interface``): the host
reads each input's and output's stream, and the variables it provides, from it, never
rebuilding a name.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import json
from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects.poplar import Interface

INTERFACE_KEY = "interface"  # the metadata entry holding Interface.to_dict()

MAGIC = b"IPUMLIR1"


@dataclasses.dataclass
class Executable:
    """MLIR bytecode of a module holding one ``poplar.graph`` and its metadata."""

    bytecode: bytes
    metadata: dict[str, Any]

    @classmethod
    def from_module(cls, module: ir.Module, metadata: dict[str, Any]) -> Executable:
        buffer = io.BytesIO()
        module.operation.write_bytecode(buffer)
        return cls(buffer.getvalue(), metadata)

    def module(self, context: ir.Context) -> ir.Module:
        return ir.Module.parse(self.bytecode, context)

    @functools.cached_property
    def interface(self) -> Interface:
        """How the host drives the program: its streams and entry functions, by role."""
        if INTERFACE_KEY not in self.metadata:
            raise KeyError("the executable's metadata has no interface (the compiled graph had no 'poplar.interface')")
        return Interface.from_dict(self.metadata[INTERFACE_KEY])

    def input_stream(self, name: str) -> str:
        """The host-to-device stream of input ``name``."""
        return self.interface.input_stream(name)

    def output_stream(self, index: int) -> str:
        """The device-to-host stream of output ``index``."""
        return self.interface.output_stream(index)

    @property
    def arguments(self) -> list[tuple[str, str]]:
        """The (role kind, name) of each variable the host provides (weights, buffers,
        constants, hyper-parameters, optimizer state, accumulators), in argument order."""
        return list(self.interface.variables)

    def to_bytes(self) -> bytes:
        header = json.dumps(self.metadata, sort_keys=True).encode()
        return MAGIC + len(header).to_bytes(8, "little") + header + self.bytecode

    @classmethod
    def from_bytes(cls, data: bytes) -> Executable:
        if not data.startswith(MAGIC):
            raise ValueError("not an ipu-mlir executable (bad magic)")
        size = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
        start = len(MAGIC) + 8
        metadata = json.loads(data[start : start + size])
        return cls(data[start + size :], metadata)

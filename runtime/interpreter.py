"""The IPU Model's public entry: decode a ``poplar.graph`` into a :class:`Program` and run
it against per-IPU :class:`DeviceStore` s. The work is in ``decoder.py`` (decoding and
running), ``pipeline_executor.py`` (pipelined stages), ``device_store.py`` (data) and
``kernels/`` (one torch kernel per op)."""

from .decoder import Program
from .device_store import DeviceStore, HostIO, StreamInfo, VariableInfo
from .kernels import KernelError

__all__ = ["DeviceStore", "HostIO", "KernelError", "Program", "StreamInfo", "VariableInfo"]

"""The IPU Model runtime: decodes a ``poplar.graph`` into steps calling torch kernels
(``decoder``, ``kernels/``) and runs them on emulated IPUs (``device_store``,
``pipeline_executor``); ``interpreter`` is the public entry.

Loading the package applies the host allocator settings the runtime needs
(``host_allocator``: glibc ``mallopt``, once per process, a user's ``MALLOC_*_`` wins)."""

from ipu_mlir.runtime.host_allocator import configure_host_allocator

configure_host_allocator()

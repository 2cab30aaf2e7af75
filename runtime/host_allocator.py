"""The host allocator settings the IPU Model needs, applied when the runtime loads.

glibc's malloc serves a big block (above a dynamic threshold of 128 KiB .. 32 MiB) with its
own ``mmap`` and unmaps it on ``free``; it also trims the heap's free top back to the OS.
A step of the IPU Model (and of eager PyTorch) allocates and frees the same big
activations every time, so each step page-faults them in again: CNN and BERT steps ran
1.2-1.6x slower (STACK_NOTES). The settings below keep those pages:

==================  ==========================  ============  ===========================
mallopt parameter   environment variable        value         effect
==================  ==========================  ============  ===========================
``M_MMAP_THRESHOLD``  ``MALLOC_MMAP_THRESHOLD_``  1 GiB         blocks below it come from
                                                                the heap, not one mmap each
``M_TRIM_THRESHOLD``  ``MALLOC_TRIM_THRESHOLD_``  2 GiB - 1     the heap's free top is kept
                                                                up to this size
``M_TOP_PAD``         ``MALLOC_TOP_PAD_``         256 MiB       the heap grows in steps of
                                                                at least this much
==================  ==========================  ============  ===========================

:func:`configure_host_allocator` runs once, from ``ipu_mlir.runtime``'s ``__init__``
(the driver loads the runtime, so poptorch's first compile or executable load applies
them), through ``mallopt`` by ctypes, so that a plain ``python train.py`` gets what
``dev.py`` exports. They are process-wide: eager PyTorch in
the same process runs with them too. Rules:

- a setting the user chose wins: its ``MALLOC_*_`` variable or its ``glibc.malloc.*``
  tunable in ``GLIBC_TUNABLES`` leaves that parameter alone;
- ``IPU_MLIR_HOST_ALLOCATOR=default`` leaves every parameter alone (glibc's defaults);
- on a C library other than glibc nothing is called;
- what was done is logged at debug level on ``ipu_mlir.runtime`` and kept in
  :data:`HOST_ALLOCATOR` (``applied``: parameter -> value; ``skipped``: parameter -> why).

No thread setting is made: torch's default intra-op thread count (the physical cores) is
what both launchers give, and ``torch.set_num_threads`` stays the user's.
"""

from __future__ import annotations

import ctypes
import logging
import os
from dataclasses import dataclass, field

logger = logging.getLogger("ipu_mlir.runtime")

OPT_OUT_VARIABLE = "IPU_MLIR_HOST_ALLOCATOR"
_INT_MAX = (1 << 31) - 1


@dataclass(frozen=True)
class MallocSetting:
    """One ``mallopt`` parameter: its number in glibc's ``malloc.h``, the environment
    variable and ``GLIBC_TUNABLES`` name that set it at process start, and our value."""

    name: str
    param: int
    variable: str
    tunable: str
    value: int


# mallopt takes an int; 2 GiB - 1 stands for dev.py's MALLOC_TRIM_THRESHOLD_=2 GiB.
SETTINGS = (
    MallocSetting("M_MMAP_THRESHOLD", -3, "MALLOC_MMAP_THRESHOLD_", "glibc.malloc.mmap_threshold", 1 << 30),
    MallocSetting("M_TRIM_THRESHOLD", -1, "MALLOC_TRIM_THRESHOLD_", "glibc.malloc.trim_threshold", _INT_MAX),
    MallocSetting("M_TOP_PAD", -2, "MALLOC_TOP_PAD_", "glibc.malloc.top_pad", 1 << 28),
)


@dataclass
class HostAllocatorState:
    """What :func:`configure_host_allocator` did in this process."""

    configured: bool = False
    libc: str = ""
    applied: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)


HOST_ALLOCATOR = HostAllocatorState()


def _glibc_version() -> str | None:
    try:
        version = os.confstr("CS_GNU_LIBC_VERSION")
    except (AttributeError, ValueError, OSError):
        return None
    return version or None


def _user_tunables(environ: dict[str, str]) -> set[str]:
    """The ``glibc.malloc.*`` names set in ``GLIBC_TUNABLES`` (``a=1:b=2``)."""
    text = environ.get("GLIBC_TUNABLES", "")
    return {item.split("=", 1)[0].strip() for item in text.split(":") if "=" in item}


def configure_host_allocator(environ: dict[str, str] | None = None) -> HostAllocatorState:
    """Apply :data:`SETTINGS` through ``mallopt`` once per process (see the module
    docstring for what wins over them); later calls return the first call's state."""
    state = HOST_ALLOCATOR
    if state.configured:
        return state
    state.configured = True
    environ = dict(os.environ if environ is None else environ)
    version = _glibc_version()
    if version is None:
        state.libc = "not glibc"
        state.skipped = {s.name: "not glibc" for s in SETTINGS}
        logger.debug("host allocator: the C library is not glibc; no malloc settings applied")
        return state
    state.libc = version
    if environ.get(OPT_OUT_VARIABLE, "").strip().lower() == "default":
        state.skipped = {s.name: f"{OPT_OUT_VARIABLE}=default" for s in SETTINGS}
        logger.debug("host allocator: %s=default, glibc's malloc defaults kept", OPT_OUT_VARIABLE)
        return state
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError) as error:
        state.skipped = {s.name: f"mallopt not found: {error}" for s in SETTINGS}
        logger.debug("host allocator: mallopt not found (%s); no malloc settings applied", error)
        return state
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    tunables = _user_tunables(environ)
    for setting in SETTINGS:
        if setting.variable in environ:
            state.skipped[setting.name] = f"{setting.variable}={environ[setting.variable]} set by the user"
        elif setting.tunable in tunables:
            state.skipped[setting.name] = f"{setting.tunable} set by the user in GLIBC_TUNABLES"
        elif mallopt(setting.param, setting.value) == 1:
            state.applied[setting.name] = setting.value
        else:
            state.skipped[setting.name] = f"mallopt({setting.name}, {setting.value}) refused by {version}"
    logger.debug("host allocator (%s): applied %s; left alone %s", version, state.applied or "nothing",
                 state.skipped or "nothing")
    return state

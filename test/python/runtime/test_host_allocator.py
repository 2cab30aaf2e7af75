"""The runtime's host allocator settings (``runtime/host_allocator.py``) in plain processes.

Each case runs a child ``python`` with no ``MALLOC_*`` variable unless the case sets one,
loads ``ipu_mlir.runtime`` and asks glibc (``mallinfo2``) where a 64 MiB block came from:
glibc's default serves it with its own mmap (its dynamic threshold stops at 32 MiB); with
the runtime's ``M_MMAP_THRESHOLD`` it comes from the heap, and with its trim threshold the
heap keeps the pages after the free.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from helpers import REPO

def _is_glibc() -> bool:
    try:
        return bool(os.confstr("CS_GNU_LIBC_VERSION"))
    except (AttributeError, ValueError, OSError):
        return False


pytestmark = pytest.mark.skipif(not _is_glibc(), reason="mallopt / mallinfo2 are glibc's")

CHILD = r"""
import ctypes, json, sys
import ipu_mlir.runtime
from ipu_mlir.runtime.host_allocator import HOST_ALLOCATOR

class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MallInfo2
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
size = 64 << 20
before = libc.mallinfo2()
block = libc.malloc(size)
during = libc.mallinfo2()
libc.free(block)
after = libc.mallinfo2()
print(json.dumps({
    "applied": HOST_ALLOCATOR.applied, "skipped": HOST_ALLOCATOR.skipped,
    "mmapped": during.hblks - before.hblks,
    "heap_kept_after_free": after.arena - before.arena >= size,
}))
"""

ALL = {"M_MMAP_THRESHOLD": 1 << 30, "M_TRIM_THRESHOLD": (1 << 31) - 1, "M_TOP_PAD": 1 << 28}


def _child(script: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("MALLOC_") and k not in ("GLIBC_TUNABLES", "IPU_MLIR_HOST_ALLOCATOR")}
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**base, **env}, cwd=str(REPO))


def _allocate(**env: str) -> dict:
    result = _child(CHILD, **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_plain_process_gets_the_settings():
    got = _allocate()
    assert got["applied"] == ALL and got["skipped"] == {}
    assert got["mmapped"] == 0, "a 64 MiB block should come from the heap, not its own mmap"
    assert got["heap_kept_after_free"], "the heap should keep the freed 64 MiB (trim threshold)"


def test_glibc_defaults_without_the_settings():
    # The control: what a plain process got before; the settings above are what changes it.
    got = _allocate(IPU_MLIR_HOST_ALLOCATOR="default")
    assert got["applied"] == {}
    assert set(got["skipped"]) == set(ALL)
    assert got["mmapped"] == 1 and not got["heap_kept_after_free"]


def test_users_environment_variable_wins():
    # The user asks for mmap above 1 MiB: the runtime leaves that one alone, glibc honours it.
    got = _allocate(MALLOC_MMAP_THRESHOLD_=str(1 << 20))
    assert got["applied"] == {"M_TRIM_THRESHOLD": ALL["M_TRIM_THRESHOLD"], "M_TOP_PAD": ALL["M_TOP_PAD"]}
    assert got["skipped"] == {"M_MMAP_THRESHOLD": "MALLOC_MMAP_THRESHOLD_=1048576 set by the user"}
    assert got["mmapped"] == 1


def test_users_glibc_tunable_wins():
    got = _allocate(GLIBC_TUNABLES="glibc.malloc.tcache_count=0:glibc.malloc.mmap_threshold=1048576")
    assert "M_MMAP_THRESHOLD" not in got["applied"]
    assert got["skipped"] == {"M_MMAP_THRESHOLD": "glibc.malloc.mmap_threshold set by the user in GLIBC_TUNABLES"}
    assert got["mmapped"] == 1


def test_first_compile_applies_the_settings():
    # What `python train.py` does: import poptorch (light: the driver and the runtime load
    # on the first compile), then call the model. The debug log says what was applied.
    script = ("import logging, sys; logging.basicConfig(level=logging.DEBUG, stream=sys.stdout)\n"
              "import torch, poptorch\n"
              "assert 'ipu_mlir.runtime' not in sys.modules\n"
              "model = poptorch.inferenceModel(torch.nn.Linear(2, 2))\n"
              "model(torch.ones(1, 2))\n"
              "from ipu_mlir.runtime.host_allocator import HOST_ALLOCATOR\n"
              "print(sorted(HOST_ALLOCATOR.applied))\n")
    result = _child(script)
    assert result.returncode == 0, result.stderr
    assert "DEBUG:ipu_mlir.runtime:host allocator (glibc" in result.stdout
    assert result.stdout.strip().splitlines()[-1] == str(sorted(ALL))

"""Generated C kernels of the IPU Model: compiled with the system's C compiler in the
background, kept in a disk cache, loaded with ctypes.

A kernel is C source with one function; its key is the sha256 of the source, the
compiler's version, the flags and the CPU's identity. :func:`request` returns a
:class:`NativeKernel` at once: loaded from the cache when the key is there, otherwise
compiled by one background worker thread (at low priority, so the first call it races
with keeps the cores), which batches every kernel requested meanwhile into one
library. Until then ``NativeKernel.function`` is None and the caller computes the
value its own way. Kernels are compiled with ``-ffp-contract=off`` (no multiply-add the
source does not write) and ``-fopenmp`` linked against torch's own ``libgomp``, which
the process has loaded already: there is one OpenMP runtime, torch's.

``IPU_MLIR_NATIVE_KERNELS=0`` turns generated kernels off; ``IPU_MLIR_KERNEL_CACHE`` is
the cache directory (default ``$XDG_CACHE_HOME/ipu-mlir/kernels``, else
``~/.cache/ipu-mlir/kernels``); ``IPU_MLIR_CC`` (else ``CC``, else ``gcc``) the compiler.
"""

from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import platform
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import torch

logger = logging.getLogger("ipu_mlir.runtime")

FLAGS = ("-O3", "-march=native", "-ffp-contract=off", "-fno-math-errno", "-fopenmp", "-fPIC", "-shared")
# Torch's own OpenMP runtime: the generated libraries link it by path, and the loader
# finds it loaded already (same soname), so no second OpenMP runtime starts.
TORCH_LIB = Path(torch.__file__).parent / "lib"
# Requests arriving within this time of each other are compiled in one run.
_BATCH_WINDOW = 0.05


class NativeKernel:
    """One generated function; ``function`` is None until it is compiled and loaded."""

    def __init__(self, symbol: str, key: str) -> None:
        self.symbol = symbol
        self.key = key
        self.function: ctypes._CFuncPtr | None = None  # type: ignore[name-defined]
        self.error: str | None = None
        self.ready = threading.Event()

    def _load(self, path: Path) -> None:
        library = ctypes.CDLL(str(path))
        function = getattr(library, self.symbol)
        function.restype = None
        function.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
                             ctypes.c_int]
        self.function = function
        self.ready.set()

    def _fail(self, error: str) -> None:
        self.error = error
        self.ready.set()


def enabled() -> bool:
    """Generated kernels are on unless ``IPU_MLIR_NATIVE_KERNELS=0``, and need a compiler
    and torch's libgomp."""
    return os.environ.get("IPU_MLIR_NATIVE_KERNELS", "1") != "0" and _compiler() is not None and \
        (TORCH_LIB / "libgomp.so.1").exists()


def cache_dir() -> Path:
    given = os.environ.get("IPU_MLIR_KERNEL_CACHE")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ipu-mlir" / "kernels"


_COMPILER: list[str | None] = []


def _compiler() -> str | None:
    if not _COMPILER:
        name = os.environ.get("IPU_MLIR_CC") or os.environ.get("CC") or "gcc"
        _COMPILER.append(shutil.which(name))
    return _COMPILER[0]


_IDENTITY: list[str] = []


def _identity() -> str:
    """What a compiled kernel depends on besides its source: the compiler's version,
    the flags, the CPU (``-march=native``) and torch's version."""
    if not _IDENTITY:
        compiler = _compiler() or ""
        try:
            version = subprocess.run([compiler, "--version"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            version = compiler
        cpu = ""
        try:
            info = Path("/proc/cpuinfo").read_text().splitlines()
            cpu = "\n".join(sorted({line for line in info if line.startswith(("model name", "flags"))}))
        except OSError:
            cpu = platform.processor()
        _IDENTITY.append("\n".join([version, " ".join(FLAGS), cpu, torch.__version__]))
    return _IDENTITY[0]


def kernel_key(source: str) -> str:
    return hashlib.sha256((_identity() + "\n" + source).encode()).hexdigest()


_LOCK = threading.Lock()
_KERNELS: dict[str, NativeKernel] = {}  # by key: one load per process
_PENDING: queue.Queue[tuple[NativeKernel, str, Path]] = queue.Queue()
_WORKER: list[threading.Thread] = []
BUILDS: list[int] = []  # the kernels of each compiler run of this process (tests, benchmarks)


def request(symbol: str, body: str) -> NativeKernel | None:
    """The kernel whose C source is ``body`` (defining ``symbol``, which the key
    suffixes to be unique); None when generated kernels are off."""
    if not enabled():
        return None
    key = kernel_key(body)
    with _LOCK:
        kernel = _KERNELS.get(key)
        if kernel is not None:
            return kernel
        kernel = _KERNELS[key] = NativeKernel(f"{symbol}_{key[:16]}", key)
    source = body.replace(symbol, kernel.symbol)
    directory = cache_dir()  # as it is now: the build may run after the environment changed
    cached = directory / f"{key}.so"
    if cached.exists():
        try:
            kernel._load(cached)
            return kernel
        except (OSError, AttributeError) as error:  # a stale or broken entry: build it again
            logger.info("native kernel cache entry %s unusable (%s): compiling again", cached, error)
    _PENDING.put((kernel, source, directory))
    with _LOCK:
        if not _WORKER or not _WORKER[0].is_alive():
            _WORKER[:] = [threading.Thread(target=_work, name="ipu-mlir-kernel-compiler", daemon=True)]
            _WORKER[0].start()
    return kernel


def wait_all(timeout: float = 120.0) -> bool:
    """Wait until every requested kernel is loaded or failed (tests and benchmarks)."""
    deadline = time.monotonic() + timeout
    for kernel in list(_KERNELS.values()):
        if not kernel.ready.wait(max(0.0, deadline - time.monotonic())):
            return False
    return True


def _work() -> None:
    # It waits for requests as long as the process lives (a daemon thread): a worker that
    # left when idle could miss a request queued as it left.
    while True:
        batch = [_PENDING.get()]
        time.sleep(_BATCH_WINDOW)  # the decoder requests a program's kernels one after another
        while True:
            try:
                batch.append(_PENDING.get_nowait())
            except queue.Empty:
                break
        for directory in dict.fromkeys(d for _, _, d in batch):
            part = [(kernel, source) for kernel, source, d in batch if d == directory]
            try:
                _build(part, directory)
            except Exception as error:  # noqa: BLE001 - a failed build leaves the torch path in use
                if not sys.is_finalizing():  # at exit the temporary directory may go first
                    logger.warning("generated kernels could not be built (%s); the IPU Model keeps computing fused "
                                   "maps with torch calls", error)
                for kernel, _ in part:
                    kernel._fail(str(error))


def _build(batch: list[tuple[NativeKernel, str]], directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    source = "#include <stdint.h>\n#include <math.h>\n#include <omp.h>\n\n" + "\n".join(text for _, text in batch)
    batch_key = hashlib.sha256("".join(k.key for k, _ in batch).encode()).hexdigest()
    library = directory / f"batch-{batch_key}.so"
    with tempfile.TemporaryDirectory(dir=directory, prefix=".build-") as scratch:
        c_file = Path(scratch) / "kernels.c"
        c_file.write_text(source)
        output = Path(scratch) / "kernels.so"
        command = [_compiler() or "gcc", *FLAGS, str(c_file), "-o", str(output), f"-L{TORCH_LIB}",
                   f"-Wl,-rpath,{TORCH_LIB}", "-l:libgomp.so.1", "-lm"]
        if shutil.which("nice"):
            command = ["nice", "-n", "15", *command]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} failed: {done.stderr.strip()[:2000]}")
        os.replace(output, library)
    logger.debug("compiled %d generated kernels in %.2f s", len(batch), time.perf_counter() - started)
    BUILDS.append(len(batch))
    for kernel, _ in batch:
        entry = directory / f"{kernel.key}.so"
        temporary = directory / f".{kernel.key}.{os.getpid()}.{threading.get_ident()}.tmp"
        try:
            os.symlink(library.name, temporary)
            os.replace(temporary, entry)
        except OSError as error:
            logger.debug("native kernel cache entry %s not written: %s", entry, error)
        kernel._load(library)

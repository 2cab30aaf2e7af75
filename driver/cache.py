"""The executable cache (``Options.enableExecutableCaching(dir)`` / ``POPTORCH_CACHE_DIR``).

``compile_program`` captures the model, then looks the executable up under a key before
running the passes. The key is the sha256 of:

- the captured Torch-dialect module, printed with its locations (which carry the blocks
  and IPUs the passes read; autograd sequence numbers by rank, as only their order counts) and the execution strategy and optimizer attributes the
  driver attached: the program, not Python object identities;
- every compile option (``CompileOptions``: device iterations, output mode, target,
  gradient accumulation, reductions, recomputation, execution strategy);
- the input signature (names, shapes, dtypes);
- the ipu-mlir, torch and torch-mlir versions and the executable file format version.

A hit skips the passes (capture still runs: the key needs the captured program). An entry
is an executable file (``artifact/executable_file.py``) named ``<key>.ipuexe``, written
atomically (temporary file + ``os.replace``), so concurrent writers of one key both
succeed and leave one whole entry. A corrupt or truncated entry is removed with a
warning and the model recompiles; a missing directory is created, and one that cannot be
created or written gives a warning and the model compiles without caching.

Size: at most ``IPU_MLIR_CACHE_MAX_BYTES`` bytes (default 2 GiB); after each store the
least recently used entries (by modification time, which a hit refreshes) are removed
until the cache fits.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import re
from typing import Any

from torch_mlir import ir

from ipu_mlir.artifact.executable import Executable
from ipu_mlir.artifact.executable_file import FORMAT_VERSION, ExecutableFile, ExecutableFileError, versions

logger = logging.getLogger("ipu_mlir.cache")

MAX_BYTES_ENV_VAR = "IPU_MLIR_CACHE_MAX_BYTES"
DEFAULT_MAX_BYTES = 2 * 1024**3
SUFFIX = ".ipuexe"


def max_bytes() -> int:
    """The cache's size bound: ``IPU_MLIR_CACHE_MAX_BYTES``, else 2 GiB."""
    text = os.environ.get(MAX_BYTES_ENV_VAR)
    if not text:
        return DEFAULT_MAX_BYTES
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{MAX_BYTES_ENV_VAR}={text!r}: expected a number of bytes (an integer)") from None
    if value < 0:
        raise ValueError(f"{MAX_BYTES_ENV_VAR}={text!r}: the size bound cannot be negative")
    return value


_SEQ_NR = re.compile(r"seq_nr = (\d+)")


def _ranks(text: str) -> Any:
    """Autograd sequence numbers come from a process-wide counter: only their order means
    anything, so the key sees each one's rank among the module's numbers."""
    rank = {value: index for index, value in enumerate(sorted({int(v) for v in _SEQ_NR.findall(text)}))}
    return lambda match: f"seq_nr = {rank[int(match.group(1))]}"


def cache_key(module: ir.Module, options: Any, inputs: list[Any], training: bool) -> str | None:
    """The key of a captured module (with the driver's attributes attached); None when the
    module does not verify (the pipeline reports that, uncached)."""
    if not module.operation.verify():
        return None
    # The functions' and their arguments' locations carry no block or IPU, but the frontend
    # may give them a stale sequence number from an earlier capture in the process: the key
    # leaves them out.
    funcs = [op.operation for op in module.body.operations]
    arguments = [arg for func in funcs for region in func.regions for block in region.blocks for arg in block.arguments]
    saved = [arg.location for arg in arguments], [func.location for func in funcs]
    with module.context:
        unknown = ir.Location.unknown()
        for arg in arguments:
            arg.set_location(unknown)
        for func in funcs:
            func.location = unknown
    try:
        text = module.operation.get_asm(enable_debug_info=True, print_generic_op_form=True, assume_verified=True)
    finally:
        for arg, location in zip(arguments, saved[0], strict=True):
            arg.set_location(location)
        for func, location in zip(funcs, saved[1], strict=True):
            func.location = location
    text = _SEQ_NR.sub(_ranks(text), text)
    described = {
        "options": dataclasses.asdict(options) | {"target": options.target.to_dict()},
        "inputs": [[spec.name, list(spec.shape), str(spec.dtype)] for spec in inputs],
        "training": training,
        "versions": versions(),
        "format": FORMAT_VERSION,
    }
    digest = hashlib.sha256(text.encode())
    digest.update(json.dumps(described, sort_keys=True, default=str).encode())
    return digest.hexdigest()


class ExecutableCache:
    """One cache directory. Every failure is a warning: the cache never stops a compile."""

    def __init__(self, directory: str) -> None:
        self.directory = os.path.abspath(os.path.expanduser(directory))
        self.usable = self._prepare()

    def _prepare(self) -> bool:
        try:
            os.makedirs(self.directory, exist_ok=True)
        except OSError as error:
            logger.warning("executable cache '%s' cannot be created (%s): compiling without the cache",
                           self.directory, error.strerror or error)
            return False
        if not os.access(self.directory, os.W_OK | os.X_OK):
            logger.warning("executable cache '%s' is not writable: compiling without the cache", self.directory)
            return False
        return True

    def path(self, key: str) -> str:
        return os.path.join(self.directory, key + SUFFIX)

    def get(self, key: str) -> Executable | None:
        """The cached executable of ``key``, or None (missing, or corrupt: removed, warned)."""
        path = self.path(key)
        if not self.usable or not os.path.exists(path):
            return None
        try:
            entry = ExecutableFile.read(path)
        except ExecutableFileError as error:
            logger.warning("corrupt executable cache entry removed, recompiling: %s", error)
            self._remove(path)
            return None
        try:
            os.utime(path)  # most recently used
        except OSError:
            pass
        return entry.executable

    def put(self, key: str, executable: Executable) -> None:
        if not self.usable:
            return
        try:
            ExecutableFile(executable).write(self.path(key))
        except OSError as error:
            logger.warning("executable cache '%s': cannot store an entry (%s); the model runs uncached",
                           self.directory, error.strerror or error)
            return
        self.evict()

    def evict(self) -> None:
        """Remove the least recently used entries until the cache holds at most max_bytes()."""
        bound = max_bytes()
        entries = []
        for name in os.listdir(self.directory):
            if name.endswith(SUFFIX):
                try:
                    stat = os.stat(os.path.join(self.directory, name))
                except OSError:
                    continue  # removed by another process meanwhile
                entries.append((stat.st_mtime, stat.st_size, name))
        total = sum(size for _, size, _ in entries)
        for _, size, name in sorted(entries):
            if total <= bound:
                break
            self._remove(os.path.join(self.directory, name))
            total -= size

    @staticmethod
    def _remove(path: str) -> None:
        try:
            os.unlink(path)
        except OSError:
            pass


__all__ = ["DEFAULT_MAX_BYTES", "MAX_BYTES_ENV_VAR", "ExecutableCache", "cache_key", "max_bytes"]

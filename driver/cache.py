"""The executable cache (``Options.enableExecutableCaching(dir)`` / ``POPTORCH_CACHE_DIR``).

``compile_program`` first looks the executable up under the pre-capture key
(``precapture_key``): the sha256 of the model as ``model_key.py`` describes it without
capturing (classes and the bytecode of user code, module state, weight names, shapes,
dtypes and requires_grad, the input signature, the torch state a capture reads), the
compile options, the optimizer description and the versions. Such an entry also holds the
host's view of the capture (``executable_io.export_compiled``: input, output and weight
specs, output structure, lifted constants), so a hit skips capture and the passes
(``load_precaptured``); plain tensor attributes are read from the model then.

When the model holds something that key cannot describe soundly (a function that assigns a
global, a value of an unknown type), or the host's view cannot be stored (an output
structure or value JSON cannot hold), one INFO line says why and the post-capture key
(``cache_key``) is used, the sha256 of:

- the captured Torch-dialect module, printed with its locations (which carry the blocks
  and IPUs the passes read; autograd sequence numbers by rank, as only their order counts) and the execution strategy and optimizer attributes the
  driver attached: the program, not Python object identities;
- every compile option (``CompileOptions``: device iterations, output mode, target,
  gradient accumulation, reductions, recomputation, execution strategy);
- the input signature (names, shapes, dtypes);
- the ipu-mlir, torch and torch-mlir versions and the executable file format version.

A hit of that key skips the passes (capture runs: the key needs the captured program). An entry
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


def precapture_key(model: Any, args: tuple, kwargs: dict[str, Any], options: Any, optimizer: Any,
                   training: bool, name: str) -> str | None:
    """The key known before capture: the model, its weights and inputs as
    ``model_key.model_key`` describes them, the compile options, the optimizer description
    and the versions. None, logged at INFO with the reason, when the model holds something
    that key cannot describe soundly (the post-capture key is used then)."""
    from .model_key import model_key

    described_model, reason = model_key(model, args, kwargs)
    if described_model is None:
        logger.info("%s: the executable cache keys the captured program (capture runs on a hit): %s", name, reason)
        return None
    described = {
        "schema": "pre-capture 1",
        "model": described_model,
        "options": dataclasses.asdict(options) | {"target": options.target.to_dict()},
        "optimizer": dataclasses.asdict(optimizer) if optimizer is not None else None,
        "training": training,
        "versions": versions(),
        "format": FORMAT_VERSION,
    }
    return hashlib.sha256(json.dumps(described, sort_keys=True, default=str).encode()).hexdigest()


def load_precaptured(cache: ExecutableCache, key: str, model: Any, replica_ranks: list[int] | None) -> Any:
    """The ``CompiledProgram`` of the entry under the pre-capture ``key``, decoded without
    capture (``timings``: capture and passes 0, ``cached`` and ``precaptured`` 1), or None
    (a miss; an entry that does not load is removed with a warning)."""
    import time

    from .executable_io import load_cached

    start = time.perf_counter()
    entry = cache.get_file(key)
    if entry is None:
        return None
    try:
        compiled = load_cached(entry, model, replica_ranks)
    except ExecutableFileError as error:
        logger.warning("executable cache entry removed, recompiling: %s", error)
        cache._remove(cache.path(key))
        return None
    compiled.timings.update(decode=time.perf_counter() - start, cached=1.0, precaptured=1.0)
    return compiled


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
        entry = self.get_file(key)
        return entry.executable if entry is not None else None

    def get_file(self, key: str) -> ExecutableFile | None:
        """The cache entry (an executable file) of ``key``, or None (missing, or corrupt:
        removed, warned)."""
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
        return entry

    def put(self, key: str, executable: Executable) -> None:
        self.put_file(key, ExecutableFile(executable))

    def put_file(self, key: str, entry: ExecutableFile) -> None:
        if not self.usable:
            return
        try:
            entry.write(self.path(key))
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


__all__ = ["DEFAULT_MAX_BYTES", "MAX_BYTES_ENV_VAR", "ExecutableCache", "cache_key", "load_precaptured", "max_bytes", "precapture_key"]

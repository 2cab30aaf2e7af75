"""The executable file: one compiled model, written by ``compileAndExport`` / ``save`` and
read by ``poptorch.load`` / ``loadExecutable`` and the executable cache.

Layout (all integers little-endian)::

    b"IPUMLIRF"                     magic (8 bytes)
    u32 format version              FORMAT_VERSION
    u64 header size, header         JSON: versions, and each section's name, size and sha256
    section bytes ...               in header order
    sha256 of everything above      (32 bytes): a truncated or corrupted file fails here

Sections:

- ``executable``: ``Executable.to_bytes()`` (the ``poplar.graph`` as MLIR bytecode and its
  metadata: streams, input/output structure, options, output mode, memory plan);
- ``host`` (JSON): what the host side needs to drive the program without capturing the
  model again (input and output specs, output structure, compile-affecting options);
- ``tensors``: named tensors (lifted constants) written with ``torch.save`` and read
  with ``torch.load(weights_only=True)``, which refuses anything but tensors and plain
  containers;
- ``rng`` (JSON, optional): the random generator state ``[seed, calls]``;
- ``model`` (optional): the pickled Torch model, optimizer and options (``torch.save``).
  It is unpickled only by :meth:`ExecutableFile.load_model`, which ``poptorch.load``
  calls because the user asked for the model back; unpickling runs code from the file,
  so only load model files you trust. Nothing else in this module unpickles.

Reading checks the magic, the format version, the checksum and the ipu-mlir / torch
versions, and raises :class:`ExecutableFileError` naming the file and the problem: a
file is never half-read or run.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import tempfile
from importlib import metadata as _metadata
from typing import Any

from .executable import Executable

MAGIC = b"IPUMLIRF"
FORMAT_VERSION = 1
_DIGEST = 32  # sha256
_SECTIONS = ("executable", "host", "tensors", "rng", "model")


class ExecutableFileError(ValueError):
    """An executable file that cannot be used: what is wrong with which file."""


def versions() -> dict[str, str]:
    """The versions an executable depends on: ipu-mlir, torch and torch-mlir."""
    import torch  # noqa: PLC0415 - the artifact layer loads torch only when it is used

    def version(name: str) -> str:
        try:
            return _metadata.version(name)
        except _metadata.PackageNotFoundError:
            return "unknown"

    return {"ipu_mlir": version("ipu-mlir"), "torch": torch.__version__, "torch_mlir": version("torch-mlir")}


@dataclasses.dataclass
class ExecutableFile:
    """The contents of an executable file (see the module docstring)."""

    executable: Executable
    host: dict[str, Any] = dataclasses.field(default_factory=dict)
    tensors: dict[str, Any] = dataclasses.field(default_factory=dict)
    rng_state: list[int] | None = None
    model_bytes: bytes | None = None  # pickled; read only through load_model()
    path: str = "<memory>"

    # -- writing ----------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        import torch  # noqa: PLC0415

        tensors = io.BytesIO()
        torch.save(dict(self.tensors), tensors)
        sections = {
            "executable": self.executable.to_bytes(),
            "host": json.dumps(self.host, sort_keys=True).encode(),
            "tensors": tensors.getvalue(),
        }
        if self.rng_state is not None:
            sections["rng"] = json.dumps([int(v) for v in self.rng_state]).encode()
        if self.model_bytes is not None:
            sections["model"] = self.model_bytes
        header = {
            "format_version": FORMAT_VERSION,
            "versions": versions(),
            "sections": [{"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
                         for name, data in sections.items()],
        }
        head = json.dumps(header, sort_keys=True).encode()
        body = MAGIC + FORMAT_VERSION.to_bytes(4, "little") + len(head).to_bytes(8, "little") + head
        body += b"".join(sections.values())
        return body + hashlib.sha256(body).digest()

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write atomically: a temporary file in the same directory, then a rename, so a
        reader sees either the old file or the whole new one."""
        write_atomically(os.fspath(path), self.to_bytes())

    # -- reading ----------------------------------------------------------------------
    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> ExecutableFile:
        path = os.fspath(path)
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as error:
            raise ExecutableFileError(f"cannot read executable file '{path}': {error.strerror or error}") from error
        return cls.from_bytes(data, path)

    @classmethod
    def from_bytes(cls, data: bytes, path: str = "<memory>") -> ExecutableFile:
        def fail(problem: str) -> ExecutableFileError:
            return ExecutableFileError(f"executable file '{path}': {problem}")

        if not data.startswith(MAGIC):
            raise fail("not an ipu-mlir executable file (it does not start with the magic bytes "
                       f"{MAGIC!r}); write one with compileAndExport() or save()")
        fixed = len(MAGIC) + 12
        if len(data) < fixed + _DIGEST:
            raise fail(f"the file is truncated ({len(data)} bytes, shorter than the smallest executable file)")
        version = int.from_bytes(data[len(MAGIC):len(MAGIC) + 4], "little")
        if version != FORMAT_VERSION:
            raise fail(f"written in executable file format version {version}, but this ipu-mlir reads version "
                       f"{FORMAT_VERSION} only; compile and export the model again with this version")
        body, digest = data[:-_DIGEST], data[-_DIGEST:]
        size = int.from_bytes(data[len(MAGIC) + 4:fixed], "little")
        try:
            header = json.loads(data[fixed:fixed + size])
            sections = header["sections"]
            expected = fixed + size + sum(int(s["size"]) for s in sections)
        except (ValueError, KeyError, TypeError):
            header, expected = None, -1
        if header is not None and expected != len(body):
            raise fail(f"the file is truncated or has extra bytes ({len(data)} bytes, the header describes "
                       f"{expected + _DIGEST})")
        if hashlib.sha256(body).digest() != digest:
            raise fail("the checksum does not match: the file is corrupted (or truncated); export it again")
        if header is None:
            raise fail("the header is unreadable although the checksum matches; export it again")
        theirs, ours = header.get("versions", {}), versions()
        for name in ("ipu_mlir", "torch", "torch_mlir"):
            if theirs.get(name) != ours[name]:
                raise fail(f"compiled with {name.replace('_', '-')} {theirs.get(name)}, but this process runs "
                           f"{ours[name]}; compile and export the model again with these versions")
        parts: dict[str, bytes] = {}
        offset = fixed + size
        for section in sections:
            chunk = body[offset:offset + int(section["size"])]
            offset += int(section["size"])
            if hashlib.sha256(chunk).hexdigest() != section["sha256"]:  # pragma: no cover - the file checksum caught it
                raise fail(f"section '{section['name']}' is corrupted")
            parts[section["name"]] = chunk
        missing = [name for name in ("executable", "host", "tensors") if name not in parts]
        if missing:
            raise fail(f"the file has no '{missing[0]}' section")
        return cls._decode(parts, fail, path)

    @classmethod
    def _decode(cls, parts: dict[str, bytes], fail: Any, path: str) -> ExecutableFile:
        import torch  # noqa: PLC0415

        try:
            executable = Executable.from_bytes(parts["executable"])
            host = json.loads(parts["host"])
            tensors = torch.load(io.BytesIO(parts["tensors"]), weights_only=True)
            rng = json.loads(parts["rng"]) if "rng" in parts else None
        except Exception as error:  # noqa: BLE001 - any decoding problem is the file's
            raise fail(f"a section cannot be decoded ({type(error).__name__}: {error})") from error
        return cls(executable, host, tensors, rng, parts.get("model"), path)

    def load_model(self) -> Any:
        """Unpickle the exported model section (``torch.load(weights_only=False)``): this
        runs code from the file, so call it only on files you trust."""
        import torch  # noqa: PLC0415

        if self.model_bytes is None:
            raise ExecutableFileError(
                f"executable file '{self.path}' holds no model: it was written with export_model=False. Wrap the "
                "model again with poptorch.inferenceModel / trainingModel and call loadExecutable() on the wrapper")
        return torch.load(io.BytesIO(self.model_bytes), weights_only=False)


def write_atomically(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and
    ``os.replace``: concurrent writers each rename a whole file, readers never see a part."""
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o644)  # mkstemp makes it private; an executable is no secret
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


__all__ = ["FORMAT_VERSION", "MAGIC", "ExecutableFile", "ExecutableFileError", "versions", "write_atomically"]

"""A compiled program as Poplar/PopLibs C++ (``compiler/codegen``) with the files its
``main`` reads: ``weights.bin`` (the host-provided variables of ``#poplar.interface`` in
order, raw elements), ``randomSeed.bin`` when the program draws random numbers (the
program's seed as a little-endian 64-bit integer) and ``<stream>.bin`` for each input stream."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import torch

from ipu_mlir.compiler.codegen import emit_cpp

_HOST_KINDS = ("parameter", "buffer", "hyper")


def poplar_cpp(compiled: Any) -> str:
    """The C++ translation unit of ``compiled`` (a CompiledProgram)."""
    with compiled.context:
        return emit_cpp(compiled.module)


def weights_bytes(compiled: Any, named: dict[str, torch.Tensor]) -> bytes:
    """``weights.bin`` for ``compiled``: each host-provided variable's elements from ``named``
    (name -> tensor), in the interface's order. Parameters, buffers and optimizer
    hyper-parameters are written; a program needing other host values (optimizer state,
    accumulators) is an error."""
    chunks = []
    for kind, name in compiled.executable.interface.variables:
        if kind not in _HOST_KINDS:
            raise ValueError(f"the program needs the host to provide the {kind} '{name}'; weights.bin holds only "
                             "parameters, buffers and hyper-parameters (an optimizer without state, such as SGD without momentum)")
        if name not in named:
            raise ValueError(f"the program needs '{name}', which the model does not have")
        chunks.append(named[name].detach().cpu().contiguous().numpy().tobytes())
    return b"".join(chunks)


def stream_bytes(tensor: torch.Tensor) -> bytes:
    """A stream's host buffer: the tensor's elements in order (all micro-batches of a run)."""
    return tensor.detach().cpu().contiguous().numpy().tobytes()


def write_poplar_cpp(compiled: Any, path: str | Path,
                     named: dict[str, torch.Tensor] | list[dict[str, torch.Tensor]] | None) -> None:
    """Write the C++ to ``path`` and, with ``named``, ``weights.bin`` next to it (and
    ``randomSeed.bin``, the seed the program's random draws start from). ``weights.bin``
    holds the variables once (every replica starts from them), or, given one dict per
    replica (weights grouped across replicas), once per replica, replica after replica."""
    path = Path(path)
    text = poplar_cpp(compiled)
    path.write_text(text)
    if named is not None and "poprand::setSeed(" in text:
        seed = compiled.program.rng_state[0]  # Options.randomSeed, or the seed of the last run
        (path.parent / "randomSeed.bin").write_bytes(struct.pack("<Q", seed % 2**64))
    if named is not None:
        per_replica = named if isinstance(named, list) else [named]
        (path.parent / "weights.bin").write_bytes(b"".join(weights_bytes(compiled, values) for values in per_replica))

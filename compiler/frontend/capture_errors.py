"""Our words for what goes wrong while ``torch.export`` traces a user's model.

``capture.export_model`` traces under :func:`refusing_backward`, checks the program with
:func:`check_static_shapes` and turns any exception into a message with
:func:`capture_error_message`: data-dependent shapes and value-dependent control flow
name the op and the user's source line and say what to write instead; a
``.backward()`` inside forward says that the compiler builds the backward pass.
"""

from __future__ import annotations

import contextlib
import linecache
import re
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch

# Frames of these are not the user's: the innermost other frame is the line to show.
_LIBRARY = re.compile(r"(/torch/|/torch_mlir/|/ipu_mlir/|/poptorch/|/site-packages/|<frozen|/lib/python3)")
_OUR_TREE = str(Path(__file__).resolve().parents[1])  # compiler/ (the package's source tree)

_STATIC_SHAPES = (
    "IPU programs have static shapes: every tensor's size is fixed when the model is compiled"
)
_MASK_ADVICE = (
    "keep the full tensor and a mask (for example torch.where(mask, x, torch.zeros_like(x)), or a sum "
    "weighted by mask.float()), or pad the result to a fixed maximum size"
)
_FIXED_ADVICE = (
    "use an op whose result size does not depend on the values (keep the full tensor and a mask, or pad to a "
    "fixed maximum size), or do this step outside the model"
)
# Ops whose result size depends on the data: how to ask for the same thing at a fixed size.
_OP_ADVICE = {
    "nonzero": "use the mask itself (x != 0) with torch.where, or torch.topk over the mask for a fixed number of indices",
    "argwhere": "use the mask itself (x != 0) with torch.where, or torch.topk over the mask for a fixed number of indices",
    "masked_select": "use torch.where(mask, x, torch.zeros_like(x)), which keeps the input's shape",
    "index": _MASK_ADVICE,
    "unique": "compare against a fixed set of candidate values instead (x.unsqueeze(-1) == values)",
    "unique_consecutive": "compare against a fixed set of candidate values instead (x.unsqueeze(-1) == values)",
    "repeat_interleave": "pass repeats as a Python int, or as a tensor together with output_size=",
}
_OP_NAMES = {"index": "boolean-mask indexing (x[mask])"}
# torch's kernels of x[mask] that call nonzero on a boolean mask (the fake-tensor trace of
# training reports the nonzero, where torch.export reports the index op).
_MASK_INDEXING = frozenset({"meta_index_Tensor", "index_tensor"})


class CaptureMistake(RuntimeError):
    """A mistake in the user's model found while capturing it; the message is final."""


def _user_line(frames: list[traceback.FrameSummary]) -> tuple[str, int, str] | None:
    """(file, line, source text) of the innermost frame in user code."""
    for frame in reversed(frames):
        path = frame.filename
        if _LIBRARY.search(path) or path.startswith(_OUR_TREE) or frame.lineno is None:
            continue
        text = (frame.line or linecache.getline(path, frame.lineno)).strip()
        return path, frame.lineno, text
    return None


def _where(line: tuple[str, int, str] | None) -> str:
    if line is None:
        return ""
    path, number, text = line
    return f" at {path}:{number}" + (f" (`{text}`)" if text else "")


@contextlib.contextmanager
def refusing_backward() -> Iterator[None]:
    """While the model is traced, ``Tensor.backward`` / ``torch.autograd.backward`` raise
    :class:`CaptureMistake` naming the user's line (torch's own error is "Cannot backprop
    through mirrored meta", or silence for an inference model)."""
    tensor_backward, autograd_backward = torch.Tensor.backward, torch.autograd.backward

    def refuse(*_args: Any, **_kwargs: Any) -> None:
        line = _user_line(traceback.extract_stack()[:-1])
        raise CaptureMistake(
            f"the model's forward calls .backward(){_where(line)}, but PopTorch builds the backward pass itself. "
            "For training, return the loss from forward and let poptorch.trainingModel run the backward pass and "
            "the optimizer step on the device; for inference, remove the call"
        )

    torch.Tensor.backward, torch.autograd.backward = refuse, refuse
    try:
        yield
    finally:
        torch.Tensor.backward, torch.autograd.backward = tensor_backward, autograd_backward


def _data_dependent(value: Any) -> bool:
    values = value if isinstance(value, list | tuple) else [value]
    return any(isinstance(v, torch.Tensor) and any(isinstance(d, torch.SymInt) for d in v.shape) for v in values)


def _node_where(node: torch.fx.Node) -> str:
    """`` at file:line (`source`)`` of the user's line that made ``node``, or ''."""
    frames = traceback.StackSummary.from_list(
        [(f, int(n), "", None) for f, n in re.findall(r'File "([^"]+)", line (\d+)', node.meta.get("stack_trace") or "")]
    )
    return _where(_user_line(list(frames)))


def check_supported_tensors(graph: torch.fx.Graph) -> None:
    """:class:`CaptureMistake` naming the first op that makes a tensor the IPU cannot hold:
    a sparse layout, or an element type outside ``support/element_types.py`` (uint64,
    complex32...), or that takes a dtype argument Torch-MLIR cannot import (complex128)."""
    from torch_mlir.extras.fx_importer import TORCH_DTYPE_TO_INT

    from ipu_mlir.support.element_types import ELEMENT_TYPES

    supported = {getattr(torch, name) for _, _, name in ELEMENT_TYPES}
    names = ", ".join(name for _, _, name in ELEMENT_TYPES)
    for node in graph.nodes:
        what = f"{'input ' + node.name if node.op == 'placeholder' else str(node.target)}{_node_where(node)}"
        value = node.meta.get("val")
        for tensor in (v for v in (value if isinstance(value, list | tuple) else [value]) if isinstance(v, torch.Tensor)):
            if tensor.layout != torch.strided:
                raise CaptureMistake(
                    f"{what} gives a tensor with the {str(tensor.layout).removeprefix('torch.')} layout: sparse layouts "
                    "are not supported on the IPU. Use dense tensors (x.to_dense(); keep a dense tensor and a mask "
                    "instead of x.to_sparse())")
            if tensor.dtype not in supported:
                raise CaptureMistake(
                    f"{what} gives a {tensor.dtype} tensor, an element type the IPU does not support (it supports "
                    f"{names}). Convert to a supported type first (x.to(torch.int64), x.to(torch.complex64)...)")
        if node.op != "call_function":
            continue
        for arg in [*node.args, *node.kwargs.values()]:
            if isinstance(arg, torch.dtype) and arg not in TORCH_DTYPE_TO_INT:
                raise CaptureMistake(
                    f"{what} takes dtype={arg} as an argument, which the compiler cannot import (Torch-MLIR has no "
                    f"number for it). Use {'torch.complex64' if arg.is_complex else 'one of ' + names} instead")


def check_static_shapes(program: torch.export.ExportedProgram | torch.fx.Graph) -> torch.export.ExportedProgram | torch.fx.Graph:
    """``program`` (an exported program, or a traced graph) itself, or :class:`CaptureMistake`
    naming the first op whose result's shape depends on the input's values (``torch.nonzero``,
    ``x[mask]``, ...), or whose tensors the IPU cannot hold (:func:`check_supported_tensors`)."""
    graph = program if isinstance(program, torch.fx.Graph) else program.graph
    check_supported_tensors(graph)
    for node in graph.nodes:
        if node.op != "call_function" or not _data_dependent(node.meta.get("val")):
            continue
        packet = getattr(node.target, "_overloadpacket", None)
        name = getattr(packet, "__name__", str(node.target))
        shown = _OP_NAMES.get(name, f"torch.{name}")
        raise CaptureMistake(
            f"{shown}{_node_where(node)} gives a tensor whose size depends on the input's values "
            f"(a data-dependent shape). {_STATIC_SHAPES}, so this cannot be compiled. "
            f"Instead: {_OP_ADVICE.get(name, _FIXED_ADVICE)}"
        )
    return program


def capture_error_message(error: BaseException) -> str:
    """What to tell the user about ``error``, raised while ``torch.export`` (or training's joint
    trace) ran the model."""
    if isinstance(error, CaptureMistake):
        return str(error)
    text = str(error)
    line = _user_line(traceback.extract_tb(error.__traceback__))
    kind = type(error).__name__
    # A value read (.item(), bool(), an `if` on a tensor): torch.export guards on it, a trace
    # without symbolic shapes (training's joint trace) refuses the read itself.
    value_read = kind == "DataDependentOutputException" and "_local_scalar_dense" in text
    if value_read or (kind in ("GuardOnDataDependentSymNode", "UserError") and "data-dependent" in text):
        return (
            f"the model's forward uses a tensor's value as a Python value{_where(line)}: in an `if`, a loop, "
            f"a size or .item(). {_STATIC_SHAPES} and one program serves every input, so forward may not "
            "branch on the data. Compute both results and choose with torch.where(condition, a, b), or pass the "
            "value as a Python number argument (it is then compiled in)"
        )
    if kind in ("DynamicOutputShapeException", "DataDependentOutputException"):
        op = text.split(":")[-1].strip() or "an op"
        name = op.split(".")[1] if op.count(".") >= 2 else op
        if name == "nonzero" and any(frame.name in _MASK_INDEXING for frame in traceback.extract_tb(error.__traceback__)):
            op, name = "aten.index.Tensor", "index"  # x[mask]: torch's index kernel calls nonzero on the mask
        if op.startswith("aten.") and not name.startswith("_"):  # a public op: named as check_static_shapes names it
            op = _OP_NAMES.get(name, f"torch.{name}")
        return (
            f"{op}{_where(line)} gives a tensor whose size depends on the input's values (a data-dependent "
            f"shape). {_STATIC_SHAPES}, so this cannot be compiled. Instead: {_OP_ADVICE.get(name, _FIXED_ADVICE)}"
        )
    if "Cannot backprop through mirrored meta" in text:
        return (
            f"the model's forward runs a backward pass{_where(line)}, but PopTorch builds the backward pass itself: "
            "return the loss from forward and remove .backward() / torch.autograd calls"
        )
    return (
        f"could not capture the model with torch.export: {kind}: {error}\n"
        "IPU programs need static shapes and no data-dependent Python control flow; "
        "see the traceback above for the line that failed."
    )

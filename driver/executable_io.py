"""A compiled program to and from an executable file (``artifact/executable_file.py``).

``export_compiled`` writes what the host needs to drive the program without capturing the
model again (the capture's input, output and weight specs, its output structure and the
lifted constants) next to the executable; ``load_compiled`` decodes the executable and
rebuilds a :class:`CompiledProgram` whose ``captured`` is a :class:`LoadedCapture` with the
attributes the host reads of a capture. Nothing here unpickles.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import torch
import torch.utils._pytree as pytree

from ipu_mlir.artifact.executable_file import ExecutableFile, ExecutableFileError
from ipu_mlir.compiler.frontend.specs import TensorSpec
from ipu_mlir.compiler.frontend.mutation import OutputLayout
from ipu_mlir.dialects import make_context
from ipu_mlir.dialects.ipu_enums import RoleKind
from ipu_mlir.runtime.interpreter import load_program

from .compile import CompiledProgram, _graph_of

_PLAIN = (type(None), bool, int, float, str)
_WEIGHTS = (RoleKind.PARAMETER, RoleKind.BUFFER)


class ExportError(ValueError):
    """The compiled model holds something the executable file cannot store."""


@dataclasses.dataclass
class LoadedCapture:
    """What the host reads of a capture (``CapturedProgram`` / ``TrainingCapture``),
    restored from an executable file: there is no Torch-dialect module."""

    inputs: list[TensorSpec]
    outputs: list[TensorSpec]
    weights: list[TensorSpec]
    weight_kinds: list[RoleKind]
    constants: dict[str, torch.Tensor]
    out_spec: Any
    layout: OutputLayout
    loss_index: int = -1
    num_outputs: int = 0
    arguments: list[tuple[RoleKind, str, TensorSpec]] = dataclasses.field(default_factory=list)


def plain_value(value: Any, what: str) -> Any:
    """``value`` if JSON keeps it exactly (None, bool, int, float, str), else ExportError."""
    if type(value) in _PLAIN:
        return value
    raise ExportError(f"{what} is a {type(value).__name__} ({value!r}), which an executable file cannot store "
                      "(only tensors, None, bool, int, float and str); pass it as a tensor or make it a constant")


def _spec(spec: TensorSpec) -> dict[str, Any]:
    return {"name": spec.name, "shape": list(spec.shape), "dtype": str(spec.dtype).removeprefix("torch.")}


def _unspec(data: dict[str, Any]) -> TensorSpec:
    dtype = getattr(torch, data["dtype"], None)
    if not isinstance(dtype, torch.dtype):
        raise ExecutableFileError(f"unknown dtype '{data['dtype']}' in the file")
    return TensorSpec(data["name"], tuple(int(d) for d in data["shape"]), dtype)


def host_record(captured: Any, training: bool) -> dict[str, Any]:
    try:
        out_spec = pytree.treespec_dumps(captured.out_spec)
    except Exception as error:  # noqa: BLE001 - torch says which type it cannot serialise
        raise ExportError(f"the model's output structure cannot be stored in an executable file: {error}. Return "
                          "tensors in tuples, lists or dicts") from error
    layout = captured.layout
    record: dict[str, Any] = {
        "inputs": [_spec(s) for s in captured.inputs],
        "weights": [_spec(s) for s in captured.weights],
        "weight_kinds": [str(k.value) for k in captured.weight_kinds],
        "out_spec": out_spec,
        "layout": {"leaves": layout.leaves,
                   "constants": [[int(p), plain_value(v, f"output {p}")] for p, v in layout.constants.items()],
                   "returned_inputs": [[int(p), int(i)] for p, i in layout.returned_inputs.items()],
                   "input_updates": list(layout.input_updates)},
    }
    if training:
        record.update(loss_index=captured.loss_index, num_outputs=captured.num_outputs,
                      arguments=[[str(k.value), n, _spec(s)] for k, n, s in captured.arguments])
    else:
        record["outputs"] = [_spec(s) for s in captured.outputs]
    return record


def _capture_from_record(record: dict[str, Any], constants: dict[str, torch.Tensor], training: bool) -> LoadedCapture:
    layout = record["layout"]
    arguments = [(RoleKind(kind), name, _unspec(spec)) for kind, name, spec in record.get("arguments", [])]
    inputs = ([spec for kind, _, spec in arguments if kind == RoleKind.INPUT] if training
              else [_unspec(s) for s in record["inputs"]])
    return LoadedCapture(
        inputs=inputs,
        outputs=[_unspec(s) for s in record.get("outputs", [])],
        weights=[_unspec(s) for s in record["weights"]],
        weight_kinds=[RoleKind(k) for k in record["weight_kinds"]],
        constants=dict(constants),
        out_spec=pytree.treespec_loads(record["out_spec"]),
        layout=OutputLayout(int(layout["leaves"]), {int(p): v for p, v in layout["constants"]},
                            {int(p): int(i) for p, i in layout["returned_inputs"]}, tuple(layout["input_updates"])),
        loss_index=int(record.get("loss_index", -1)),
        num_outputs=int(record.get("num_outputs", 0)),
        arguments=arguments,
    )


def export_compiled(compiled: CompiledProgram) -> ExecutableFile:
    """The executable file of ``compiled`` (no model, no random state: the caller adds them)."""
    host = {"capture": host_record(compiled.captured, compiled.training)}
    constants = {name: value.detach().cpu().clone() for name, value in compiled.captured.constants.items()}
    return ExecutableFile(compiled.executable, host, constants)


def load_compiled(file: ExecutableFile, replica_ranks: list[int] | None = None) -> CompiledProgram:
    """Decode ``file``'s executable into a runnable program, without capture or passes
    (``replica_ranks``: the replicas this process runs; None: all of them)."""
    start = time.perf_counter()
    executable = file.executable
    training = executable.metadata.get("kind") == "training"
    try:
        captured = _capture_from_record(file.host["capture"], file.tensors, training)
    except (KeyError, ValueError, TypeError) as error:
        raise ExecutableFileError(f"executable file '{file.path}': the host record is incomplete ({error})") from error
    context = make_context()
    module = executable.module(context)
    graph = _graph_of(module)
    program = load_program(graph, replica_ranks)
    timings = {"capture": 0.0, "passes": 0.0, "decode": time.perf_counter() - start}
    return CompiledProgram(captured, executable, program, context, module, timings, executable.arguments, training)


def _attribute_tensor(model: torch.nn.Module, path: str) -> torch.Tensor | None:
    """The plain tensor attribute ``path`` (``a.b.name``) of ``model``, if it has one."""
    owner, _, key = path.rpartition(".")
    try:
        module = model.get_submodule(owner)
    except AttributeError:
        return None
    value = module.__dict__.get(key)
    return value if isinstance(value, torch.Tensor) else None


def load_cached(file: ExecutableFile, model: torch.nn.Module, replica_ranks: list[int] | None = None) -> CompiledProgram:
    """A cache entry of ``model``'s program, ready to run without capture: as load_compiled,
    and the constants that are plain tensor attributes of the model read from the model (the
    pre-capture key describes them by shape and dtype only); lifted constants come from the
    entry."""
    compiled = load_compiled(file, replica_ranks)
    constants = compiled.captured.constants
    for name, stored in list(constants.items()):
        value = _attribute_tensor(model, name)
        if value is not None:
            if tuple(value.shape) != tuple(stored.shape) or value.dtype != stored.dtype:
                raise ExecutableFileError(f"executable file '{file.path}': the constant '{name}' has shape "
                                          f"{tuple(stored.shape)} and dtype {stored.dtype}, the model's "
                                          f"{tuple(value.shape)} and {value.dtype}")
            constants[name] = value
    return compiled


__all__ = ["ExecutableFile", "ExecutableFileError", "ExportError", "LoadedCapture", "export_compiled", "host_record", "load_cached", "load_compiled",
           "plain_value"]

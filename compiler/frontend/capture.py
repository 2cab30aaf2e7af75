"""Capture a torch.nn.Module into the Torch dialect.

``capture_inference(model, args, kwargs)`` runs ``torch.export(strict=False)`` under
``preserve_node_meta``, functionalises the graph and imports it with
``FxImporter.import_stateless_graph``: parameters, buffers and lifted constants become
function arguments named by their path, then the flattened user inputs. Every op gets a
location carrying its module path, user source line and block metadata (see
``compiler/location_metadata.py``).
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from typing import Any

import torch
import torch.fx.traceback as fxtb
import torch.utils._pytree as pytree
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, OutputKind
from torch_mlir import ir
from torch_mlir.extras.fx_importer import ContextCache, FxImporter

from ipu_mlir.dialects.ipu import ARGUMENTS, MAIN_FUNC, RESULTS, RoleKind, write_roles
from ipu_mlir.support.ir_build import boolean, i64, string

from .. import location_metadata as meta
from . import custom_ops  # noqa: F401 - registers the poptorch:: ops before export
from .decompositions import decomposition_table
from .integrations import prepare_for_export
from .tracing import fresh_blocks_per_run, tracing


@dataclasses.dataclass(frozen=True)
class TensorSpec:
    """A function argument or result: its name, shape and dtype."""

    name: str
    shape: tuple[int, ...]
    dtype: torch.dtype


@dataclasses.dataclass
class CapturedProgram:
    """The Torch-dialect module of one model plus what the executor needs to call it."""

    module: ir.Module
    weights: list[TensorSpec]  # function arguments before the user inputs
    weight_kinds: list[RoleKind]  # PARAMETER | BUFFER | CONSTANT, one per weight
    constants: dict[str, torch.Tensor]  # values of lifted constants, by name
    inputs: list[TensorSpec]  # the flattened user inputs (tensors only)
    outputs: list[TensorSpec]
    in_spec: Any  # pytree spec of (args, kwargs) with tensors as leaves
    out_spec: Any  # pytree spec of the model's output
    mutated_buffers: list[str]


class CaptureError(RuntimeError):
    """The model cannot be captured; the message says why and what to change."""


# Frames of these packages are not user code: skip them when locating an op.
_LIBRARY_PATH = re.compile(r"(/torch/|/torch_mlir/|/ipu_mlir/|/poptorch/|/site-packages/|<frozen|/lib/python3)")
_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def user_frame(stack_trace: str | None) -> tuple[str, int] | None:
    """The innermost frame of a node's stack trace that is in user code."""
    if not stack_trace:
        return None
    frames = _FRAME.findall(stack_trace)
    for file, line in reversed(frames):
        if not _LIBRARY_PATH.search(file):
            return file, int(line)
    return (frames[-1][0], int(frames[-1][1])) if frames else None


def module_path_of(node: torch.fx.Node) -> str:
    """The op's module path (``encoder.layers.0.linear1``), prefixed by any
    ``poptorch.NameScope`` it was traced in."""
    stack = node.meta.get("nn_module_stack") or node.meta.get("fwd_nn_module_stack") or {}
    path = (list(stack.values())[-1][0] if stack else "") or "<model>"
    scope = (node.meta.get("custom") or {}).get("name_scope")
    return f"{scope}/{path}" if scope else path


class _LocatingContextCache(ContextCache):
    """Gives every imported op a fused location: metadata + module path + user line."""

    def get_node_location(self, node: torch.fx.Node) -> ir.Location | None:
        frame = user_frame(node.meta.get("stack_trace"))
        base = ir.Location.file(frame[0], frame[1], 0, context=self._c) if frame else ir.Location.unknown(context=self._c)
        named = ir.Location.name(module_path_of(node), childLoc=base, context=self._c)
        entries: dict[str, ir.Attribute] = {}
        with self._c:
            custom = node.meta.get("custom") or {}
            if meta.BLOCK in custom:
                entries[meta.BLOCK] = string(str(custom[meta.BLOCK]))
                if custom.get(meta.IPU) is not None:
                    entries[meta.IPU] = i64(custom[meta.IPU])
            seq_nr = node.meta.get("seq_nr")
            if isinstance(seq_nr, int) and seq_nr >= 0:
                entries[meta.SEQ_NR] = i64(seq_nr)
            if node.meta.get("autograd_backward"):
                entries[meta.BACKWARD] = boolean(True)
            return ir.Location.fused([named], metadata=ir.DictAttr.get(entries), context=self._c)


def _inline_constant_input(graph: torch.fx.Graph, node: torch.fx.Node) -> None:
    """A non-tensor argument (int, float, bool, str, None) is compiled in: its uses get the
    value and the placeholder goes, so the program's inputs are tensors only."""
    value = node.meta.get("val")
    for user in list(node.users):
        user.args = torch.fx.node.map_arg(user.args, lambda n: value if n is node else n)
        user.kwargs = torch.fx.node.map_arg(user.kwargs, lambda n: value if n is node else n)
    graph.erase_node(node)


def _spec(name: str, value: Any) -> TensorSpec:
    val = value if isinstance(value, torch.Tensor) else getattr(value, "meta", {}).get("val")
    return TensorSpec(name, tuple(int(d) for d in val.shape), val.dtype)


def export_model(model: torch.nn.Module, args: tuple, kwargs: dict, *, functionalize: bool = True) -> ExportedProgram:
    """Non-strict export with node metadata kept, then (by default) functionalised, with
    every op that has no lowering decomposed into Core ATen ops (``decompositions.py``).

    Training passes the raw export to aot_export_joint_with_descriptors, which
    functionalises it together with the backward pass."""
    prepare_for_export(model)
    try:
        with fxtb.preserve_node_meta(), tracing(), fresh_blocks_per_run(model), warnings.catch_warnings():
            # torch.export's own deprecation chatter is not the user's concern.
            warnings.filterwarnings("ignore", category=FutureWarning)
            warnings.filterwarnings("ignore", category=UserWarning, module=r"torch\.")
            program = torch.export.export(model, args, kwargs, strict=False)
            return program.run_decompositions(decomposition_table()) if functionalize else program
    except Exception as error:  # torch raises many types; the user needs the reason
        raise CaptureError(
            f"could not capture the model with torch.export: {type(error).__name__}: {error}\n"
            "IPU programs need static shapes and no data-dependent Python control flow; "
            "see the traceback above for the line that failed."
        ) from error


def import_program(program: ExportedProgram | torch.fx.GraphModule, context: ir.Context, func_name: str = MAIN_FUNC) -> ir.Module:
    """Import an exported program's (or a joint graph module's) graph as ``func @main``."""
    graph = program.graph if isinstance(program, torch.fx.GraphModule) else program.graph_module.graph
    importer = FxImporter(context=context)
    importer._cc = _LocatingContextCache(context, py_attr_tracker=importer._py_attr_tracker)
    importer.import_stateless_graph(graph, func_name=func_name)
    return importer.module


def set_roles(module: ir.Module, which: str, roles: list[tuple[RoleKind, str]]) -> None:
    """Give the function's arguments (``which = ARGUMENTS``) or results (``RESULTS``) their
    ``#ipu.role``, one per ``(kind, name)``, which the ipu passes read."""
    with module.context:
        write_roles(module.body.operations[0], which, roles)


def capture_inference(model: torch.nn.Module, args: tuple, kwargs: dict, context: ir.Context) -> CapturedProgram:
    """Export ``model(*args, **kwargs)`` and import it into ``context`` (Torch dialect)."""
    program = export_model(model, args, kwargs)
    signature = program.graph_signature
    placeholders = [n for n in program.graph_module.graph.nodes if n.op == "placeholder"]
    weights, kinds, inputs = [], [], []
    constants: dict[str, torch.Tensor] = {}
    kind_names = {InputKind.PARAMETER: RoleKind.PARAMETER, InputKind.BUFFER: RoleKind.BUFFER,
                  InputKind.CONSTANT_TENSOR: RoleKind.CONSTANT}
    for spec, node in zip(signature.input_specs, placeholders, strict=True):
        if spec.kind == InputKind.USER_INPUT and not isinstance(node.meta.get("val"), torch.Tensor):
            _inline_constant_input(program.graph_module.graph, node)
        elif spec.kind == InputKind.USER_INPUT:
            inputs.append(_spec(node.name, node))
        elif spec.kind in kind_names:
            weights.append(_spec(spec.target, node))
            kinds.append(kind_names[spec.kind])
            if spec.kind == InputKind.CONSTANT_TENSOR:
                constants[spec.target] = program.constants[spec.target]
        else:
            raise CaptureError(f"unsupported model input kind {spec.kind.name} for '{spec.target}'")
    placeholders = [n for n in program.graph_module.graph.nodes if n.op == "placeholder"]
    if len(weights) + len(inputs) != len(placeholders):  # pragma: no cover - export invariant
        raise CaptureError("weights and inputs do not match the exported graph's placeholders")
    mutated = [spec.target for spec in signature.output_specs if spec.kind == OutputKind.BUFFER_MUTATION]
    output_node = next(n for n in program.graph_module.graph.nodes if n.op == "output")
    outputs = [_spec(f"output.{i}", n) for i, n in enumerate(output_node.args[0]) if isinstance(n, torch.fx.Node)]
    user_outputs = [s for s in signature.output_specs if s.kind == OutputKind.USER_OUTPUT]
    outputs = outputs[len(outputs) - len(user_outputs) :]
    module = import_program(program, context)
    # Arguments: parameter paths / input names; results: buffers the model updates in
    # place (written back to the buffer's device variable), then the host outputs.
    set_roles(module, ARGUMENTS,
              [(k, w.name) for w, k in zip(weights, kinds, strict=True)] + [(RoleKind.INPUT, i.name) for i in inputs])
    set_roles(module, RESULTS,
              [(RoleKind.BUFFER_UPDATE, target) for target in mutated] + [(RoleKind.OUTPUT, s.name) for s in outputs])
    _, in_spec = pytree.tree_flatten((args, kwargs))
    return CapturedProgram(
        module=module,
        weights=weights,
        weight_kinds=kinds,
        constants=constants,
        inputs=inputs,
        outputs=outputs,
        in_spec=in_spec,
        out_spec=program.call_spec.out_spec,
        mutated_buffers=mutated,
    )

"""Capture a torch.nn.Module into the Torch dialect.

``capture_inference(model, args, kwargs)`` runs ``torch.export(strict=False)`` under
``preserve_node_meta``, functionalises the graph and imports it with
``FxImporter.import_stateless_graph``: parameters, buffers and lifted constants become
function arguments named by their path, then the flattened user inputs. Every op gets a
location carrying its module path, user source line and block metadata (see
``compiler/location_metadata.py``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import time
from collections.abc import Iterator, Sequence
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
from .anchors import anchor_roles, inference_names
from . import control_flow, custom_ops  # noqa: F401 - registers the poptorch:: ops before export
from .capture_errors import capture_error_message, check_static_shapes, refusing_backward
from .decompositions import decomposition_table, reference_linear_cross_entropy
from .integrations import prepare_for_export
from .literals import DenseLiterals
from .mutation import OutputLayout, output_layout, recording_returned_inputs, tensor_attributes_as_buffers
from .specs import TensorSpec
from .tracing import fresh_blocks_per_run, tracing


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
    layout: OutputLayout  # the flattened outputs: tensors, constants, inputs written back
    tensor_names: list[str] = dataclasses.field(default_factory=list)  # what anchorTensor can name (anchors.py)


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


@contextlib.contextmanager
def unchecked_linalg_errors() -> Iterator[None]:
    """While a model is captured, ``aten._linalg_check_errors`` is an ordinary op without
    effects, so functionalisation drops it like any op whose result nobody reads.

    Eager ``torch.linalg`` functions (inv, solve, cholesky, lu_factor, ...) compute an
    ``info`` code and call that op, which raises on a singular or non positive-definite
    matrix. torch registers it as effectful, and the export threads an effect token
    through it (a TOKEN input and output) to keep it. An IPU program cannot raise on
    data, so the compiled program does not check: a singular input gives whatever the
    factorisation computes (inf / nan), as the ``*_ex`` functions do in eager. Every
    other effectful op keeps its effect and is refused with a CaptureError
    (``effectful_ops_error``)."""
    from torch._library.simple_registry import singleton

    effects = singleton.find("aten::_linalg_check_errors").effect
    prior = effects.effect
    effects.register(None)
    try:
        yield
    finally:
        effects.register(prior)


def effectful_ops_error(graph: torch.fx.Graph) -> CaptureError:
    """The error for a graph that threads effect tokens: it names the effectful ops."""
    called = sorted({str(node.args[1]) for node in graph.nodes
                     if node.op == "call_function" and node.target is torch.ops.higher_order.with_effects})
    names = ", ".join(called) or "an op with side effects"
    return CaptureError(
        f"the model calls {names}, which has side effects (torch threads an effect token through it); an IPU "
        "program runs without the host and cannot perform them: remove the call from the model's forward")


def export_model(model: torch.nn.Module, args: tuple, kwargs: dict, *, functionalize: bool = True) -> ExportedProgram:
    """Non-strict export with node metadata kept, then (by default) functionalised, with
    every op that has no lowering decomposed into Core ATen ops (``decompositions.py``).

    Training passes the raw export to aot_export_joint_with_descriptors, which
    functionalises it together with the backward pass."""
    prepare_for_export(model)
    try:
        with (fxtb.preserve_node_meta(), tracing(), fresh_blocks_per_run(model), warnings.catch_warnings(), refusing_backward(),
              unchecked_linalg_errors(), reference_linear_cross_entropy()):
            # torch.export's own deprecation chatter is not the user's concern.
            warnings.filterwarnings("ignore", category=FutureWarning)
            warnings.filterwarnings("ignore", category=UserWarning, module=r"torch\.")
            program = check_static_shapes(torch.export.export(model, args, kwargs, strict=False))
            return program.run_decompositions(decomposition_table()) if functionalize else program
    except Exception as error:  # torch raises many types; the user needs the reason, in our words
        raise CaptureError(capture_error_message(error)) from error


def _unsafe_index_puts_with_gaps(graph: torch.fx.Graph) -> None:
    """``_unsafe_index_put(x, [None, None, i, j], v)`` (the gradient of bicubic upsampling)
    becomes ``index_put``, the same op with bounds checks: torch-mlir's importer turns
    ``_unsafe_index_put`` into its ``hacked_twin``, whose ``Tensor[]`` indices cannot hold None."""
    for node in graph.nodes:
        if node.target is torch.ops.aten._unsafe_index_put.default and any(i is None for i in node.args[1]):
            node.target = torch.ops.aten.index_put.default


def _wrapped_bag_padding(graph: torch.fx.Graph) -> None:
    """``embedding_bag.padding_idx`` with a negative padding_idx counts from the last row
    (-1 is the last row), while torch-mlir imports ``_embedding_bag_forward_only`` as the
    same op with -1 meaning no padding row: the negative index becomes its row before import."""
    for node in graph.nodes:
        if node.target is not torch.ops.aten.embedding_bag.padding_idx:
            continue
        if len(node.args) > 8 and isinstance(node.args[8], int) and node.args[8] < 0:
            rows = node.args[0].meta["val"].shape[0]
            node.args = (*node.args[:8], node.args[8] + rows, *node.args[9:])
        elif isinstance(node.kwargs.get("padding_idx"), int) and node.kwargs["padding_idx"] < 0:
            rows = node.args[0].meta["val"].shape[0]
            node.kwargs = {**node.kwargs, "padding_idx": node.kwargs["padding_idx"] + rows}


def import_program(program: ExportedProgram | torch.fx.GraphModule, context: ir.Context, func_name: str = MAIN_FUNC) -> ir.Module:
    """Import an exported program's (or a joint graph module's) graph as ``func @main``."""
    graph = program.graph if isinstance(program, torch.fx.GraphModule) else program.graph_module.graph
    _unsafe_index_puts_with_gaps(graph)
    _wrapped_bag_padding(graph)
    importer = FxImporter(context=context, hooks=DenseLiterals())
    importer._cc = _LocatingContextCache(context, py_attr_tracker=importer._py_attr_tracker)
    importer.import_stateless_graph(graph, func_name=func_name)
    return importer.module


def set_roles(module: ir.Module, which: str, roles: list[tuple[RoleKind, str]]) -> None:
    """Give the function's arguments (``which = ARGUMENTS``) or results (``RESULTS``) their
    ``#ipu.role``, one per ``(kind, name)``, which the ipu passes read."""
    with module.context:
        write_roles(module.body.operations[0], which, roles)


def check_imported(module: ir.Module) -> None:
    """CaptureError unless the imported module verifies (checked before anything prints it:
    printing an invalid module as verified crashes the process)."""
    from ..pass_pipeline import verification_errors

    problems = verification_errors(module)
    if problems:
        raise CaptureError("the imported program does not verify (a compiler bug; please report it):\n"
                           + "\n".join(f"  {p}" for p in problems))


def capture_inference(model: torch.nn.Module, args: tuple, kwargs: dict, context: ir.Context,
                      anchors: Sequence[str] = (), timings: dict[str, float] | None = None) -> CapturedProgram:
    """Export ``model(*args, **kwargs)`` and import it into ``context`` (Torch dialect). Each
    name of ``anchors`` that names a tensor of the graph (``anchors.py``) is one more result,
    last, with role ``anchor``; other names (state variables) are left to the caller.
    ``timings`` gets the seconds of ``capture.export`` (with the decompositions) and ``capture.import``."""
    timings = {} if timings is None else timings
    start = time.perf_counter()
    with tensor_attributes_as_buffers(model) as attributes, recording_returned_inputs(model) as returned:
        program = export_model(model, args, kwargs)
    timings["capture.export"] = time.perf_counter() - start
    signature = program.graph_signature
    graph = program.graph_module.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    weights, kinds, inputs = [], [], []
    constants: dict[str, torch.Tensor] = {}
    kind_names = {InputKind.PARAMETER: RoleKind.PARAMETER, InputKind.BUFFER: RoleKind.BUFFER,
                  InputKind.CONSTANT_TENSOR: RoleKind.CONSTANT}
    for spec, node in zip(signature.input_specs, placeholders, strict=True):
        if spec.kind == InputKind.USER_INPUT and not isinstance(node.meta.get("val"), torch.Tensor):
            _inline_constant_input(graph, node)
        elif spec.kind == InputKind.USER_INPUT:
            inputs.append(_spec(node.name, node))
        elif spec.kind == InputKind.BUFFER and spec.target in attributes:  # a plain tensor attribute: a constant
            if not node.users:  # not read: nothing to upload (export lifts every buffer)
                graph.erase_node(node)
                continue
            weights.append(_spec(spec.target, node))
            kinds.append(RoleKind.CONSTANT)
            constants[spec.target] = attributes[spec.target]
        elif spec.kind in kind_names:
            weights.append(_spec(spec.target, node))
            kinds.append(kind_names[spec.kind])
            if spec.kind == InputKind.CONSTANT_TENSOR:
                constants[spec.target] = program.constants[spec.target]
        elif spec.kind == InputKind.TOKEN:
            raise effectful_ops_error(graph)
        else:
            raise CaptureError(f"unsupported model input kind {spec.kind.name} for '{spec.target}'")

    # Results: buffers the model updates in place (written back to the buffer's device
    # variable), the tensor outputs (to the host), then the user inputs the model updates
    # in place (to the host every step, written back into the caller's tensors).
    output_node = next(n for n in graph.nodes if n.op == "output")
    buffer_updates, user_values, input_updates = [], [], []
    for spec, value in zip(signature.output_specs, output_node.args[0], strict=True):
        if spec.kind == OutputKind.BUFFER_MUTATION:
            if spec.target not in attributes:  # a plain tensor attribute's update does not persist
                buffer_updates.append((spec.target, value))
        elif spec.kind == OutputKind.USER_INPUT_MUTATION:
            input_updates.append((spec.target, value))
        elif spec.kind == OutputKind.USER_OUTPUT:
            user_values.append(value)
        elif spec.kind == OutputKind.PARAMETER_MUTATION:
            raise CaptureError(
                f"the model's forward updates parameter '{spec.target}' in place, which an inference program cannot "
                "write back: register the tensor as a buffer (module.register_buffer) if it is state, or update it "
                "outside the model")
        else:
            raise CaptureError(f"unsupported model output kind {spec.kind.name} for '{spec.target}'")
    updated = tuple(name for name, _ in input_updates)
    if any(name not in {i.name for i in inputs} for name in updated):  # pragma: no cover - export invariant
        raise CaptureError(f"the model updates inputs {updated}, but its tensor inputs are {[i.name for i in inputs]}")
    layout = output_layout(user_values, returned, [i.name for i in inputs], updated)
    tensor_values = [v for i, v in enumerate(user_values) if i not in layout.constants]
    outputs = [_spec(f"output.{i}", v) for i, v in enumerate(tensor_values)]
    names = inference_names(graph, [i.name for i in inputs], tensor_values)
    anchored = names.anchored(anchors)
    output_node.args = (tuple([v for _, v in buffer_updates] + tensor_values + [v for _, v in input_updates]
                              + [node for _, node in anchored]),)

    start = time.perf_counter()
    module = import_program(program, context)
    set_roles(module, ARGUMENTS,
              [(k, w.name) for w, k in zip(weights, kinds, strict=True)] + [(RoleKind.INPUT, i.name) for i in inputs])
    set_roles(module, RESULTS,
              [(RoleKind.BUFFER_UPDATE, target) for target, _ in buffer_updates]
              + [(RoleKind.OUTPUT, s.name) for s in outputs]
              + [(RoleKind.INPUT_UPDATE, name) for name in updated] + anchor_roles(anchored))
    check_imported(module)
    timings["capture.import"] = time.perf_counter() - start
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
        mutated_buffers=[target for target, _ in buffer_updates],
        layout=layout,
        tensor_names=names.names,
    )

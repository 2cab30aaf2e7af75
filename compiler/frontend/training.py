"""Capture a model for training: one joint forward + backward function in the Torch dialect.

``capture_training`` traces the model once, with ``aot_export_joint_with_descriptors``,
through a wrapper (``_LossFirst``) that finds the loss while the model runs (``losses.py``:
any PyTorch loss function or module, ``poptorch.identity_loss``, or one tensor combining
them, found in the autograd graph the trace builds) and returns it first, so that the
gradient of the loss with respect to every parameter is a result of the function. The same
run records the outputs' pytree spec and layout; the inputs are named as torch.export names
them. The trace runs the model under torch's exporting flag (``torch.compiler.is_exporting()``),
so libraries take their traceable path. A parameter reachable under several names (tied weights) is one
argument, whose gradient sums the gradients of every use. Arguments and results carry their
``#ipu.role`` (kind and name), read by ``ipu-insert-training``:

- arguments: ``parameter``, ``buffer``, ``input``, then one ``loss_grad`` (the seed of
  the backward pass, d loss / d loss);
- results: ``buffer_update`` (new BatchNorm running statistics...), ``loss``,
  ``output`` (other model outputs, detached), ``grad`` (one per trainable parameter).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
import warnings
from collections.abc import Sequence
from typing import Any

import torch
import torch.fx.traceback as fxtb
import torch.utils._pytree as pytree
from torch_mlir import ir

from ipu_mlir.dialects.ipu import ARGUMENTS, RESULTS, RoleKind

from . import custom_ops  # noqa: F401 - registers poptorch:: ops
from .capture import (
    CaptureError,
    TensorSpec,
    check_imported,
    effectful_ops_error,
    import_program,
    set_roles,
    unchecked_linalg_errors,
)
from .capture_errors import capture_error_message, check_static_shapes, refusing_backward
from .decompositions import (
    decomposition_table,
    lowered_ops_whole,
    own_autograd_decompositions,
    reference_linear_cross_entropy,
)
from .anchors import anchor_roles, training_names
from .integrations import prepare_for_export
from .losses import find_loss, recording_losses
from .mutation import OutputLayout, output_layout, recording_returned_inputs, tensor_attributes_as_buffers
from .tracing import fresh_blocks_per_run, tracing

_WRAPPER_PREFIX = "inner."
_WEIGHTS = (RoleKind.PARAMETER, RoleKind.BUFFER)


@dataclasses.dataclass
class TrainingCapture:
    """The joint function and the roles of its arguments and results."""

    module: ir.Module
    arguments: list[tuple[RoleKind, str, TensorSpec]]  # (kind, name, spec) per function argument
    results: list[tuple[RoleKind, str]]  # (kind, name) per function result
    constants: dict[str, torch.Tensor]
    out_spec: Any  # pytree spec of the model's user outputs (loss in its place)
    loss_index: int  # position of the loss among the flattened user outputs
    num_outputs: int  # flattened user outputs the program computes (tensors)
    layout: OutputLayout  # the flattened outputs: tensors, constants, inputs written back
    tensor_names: list[str] = dataclasses.field(default_factory=list)  # what anchorTensor can name (anchors.py)

    @property
    def inputs(self) -> list[TensorSpec]:
        return [spec for kind, _, spec in self.arguments if kind == RoleKind.INPUT]

    @property
    def weights(self) -> list[TensorSpec]:
        return [spec for kind, _, spec in self.arguments if kind in _WEIGHTS]

    @property
    def weight_kinds(self) -> list[RoleKind]:
        return [kind for kind, _, _ in self.arguments if kind in _WEIGHTS]


@contextlib.contextmanager
def _math_attention() -> Any:
    """While tracing for training, F.scaled_dot_product_attention runs as its math form
    (matmul, softmax, matmul), so autograd differentiates ops the poplar dialect has, as
    torch-mlir's decomposition does; the fused CPU kernel's backward has no Poplar
    counterpart. (nn.MultiheadAttention calls it through the same module attribute.)"""
    import torch.nn.functional as F

    fused = F.scaled_dot_product_attention

    def math(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):  # noqa: ANN001, ANN202
        if enable_gqa:  # grouped-query attention: each key/value head serves a group of query heads, as eager repeats them
            groups = query.shape[-3] // key.shape[-3]
            key, value = key.repeat_interleave(groups, -3), value.repeat_interleave(groups, -3)
        if attn_mask is not None and attn_mask.dtype == torch.bool:
            # True = attend. F.scaled_dot_product_attention turns a boolean mask into 0 / -inf before
            # its math form, which adds the mask to the scores (a boolean would add 1 / 0).
            attn_mask = torch.zeros(attn_mask.shape, dtype=query.dtype, device=query.device).masked_fill(
                attn_mask.logical_not(), float("-inf"))
        return torch.ops.aten._scaled_dot_product_attention_math(
            query, key, value, attn_mask, dropout_p, is_causal, scale=scale
        )[0]

    F.scaled_dot_product_attention = math
    try:
        yield
    finally:
        F.scaled_dot_product_attention = fused


class _LossFirst(torch.nn.Module):
    """Runs the model, finds its loss (``losses.find_loss``) and returns it first with the
    other tensor outputs detached, so only the loss seeds the backward pass.

    The joint trace runs this forward twice (aot_autograd's metadata pass, then the joint
    graph); each run records what the host needs of the model's outputs: their pytree spec,
    the flattened outputs and the loss's position among them. An exception the model's own
    forward raised is kept in ``error``, for the error text (``capture_error_message``)."""

    def __init__(self, inner: torch.nn.Module) -> None:
        super().__init__()
        self.inner = inner
        self.out_spec: Any = None
        self.outputs: list[Any] = []  # the model's flattened outputs (the last run's)
        self.loss_index = -1
        self.error: BaseException | None = None

    def forward(self, *args: Any, **kwargs: Any) -> tuple[torch.Tensor, ...]:
        try:
            with recording_losses(self.inner) as losses, refusing_backward():
                output = self.inner(*args, **kwargs)
        except BaseException as error:
            self.error = error
            raise
        flat, self.out_spec = pytree.tree_flatten(output)
        self.loss_index = find_loss(flat, losses)
        self.outputs = flat
        others = tuple(o.detach() for i, o in enumerate(flat) if i != self.loss_index and isinstance(o, torch.Tensor))
        return (flat[self.loss_index], *others)


def _decompositions() -> dict:
    """Ops decomposed before autograd: every op without a lowering (``decompositions.py``),
    and attention, which becomes matmul + softmax so its backward is made of ops the poplar
    dialect has (as torch-mlir decomposes it)."""
    aten = torch.ops.aten
    return decomposition_table((aten.scaled_dot_product_attention.default,
                                aten._scaled_dot_product_flash_attention_for_cpu.default))


def _refuse_what_training_cannot_hold(graph: torch.fx.Graph) -> None:
    """CaptureError for a forward that changes a parameter in place (nn.Embedding /
    nn.EmbeddingBag ``max_norm`` renormalises the rows it looks up: a training program
    changes parameters only in the optimizer step) and for sparse gradients (``sparse=True``
    embeddings: the IPU holds dense tensors only)."""
    output = next(n for n in graph.nodes if n.op == "output")
    for desc in output.meta.get("desc", []):
        mutated = getattr(desc, "mutated_input", None)
        if type(desc).__name__ == "InputMutationAOTOutput" and type(mutated).__name__ == "ParamAOTInput":
            raise CaptureError(
                f"the model's forward changes parameter '{_strip(mutated.target)}' in place (nn.Embedding / "
                "nn.EmbeddingBag with max_norm renormalise the rows they look up); a training program changes "
                "parameters only in the optimizer step: drop max_norm, or renormalise the weight outside the "
                "model (with torch.no_grad(), between steps, then copyWeightsToDevice())")
    for node in graph.nodes:
        value = node.meta.get("val")
        if isinstance(value, torch.Tensor) and value.layout != torch.strided:
            raise CaptureError(
                f"{node.target} gives a gradient with the {str(value.layout).removeprefix('torch.')} layout "
                "(nn.Embedding / nn.EmbeddingBag with sparse=True); the IPU holds dense tensors only: use "
                "sparse=False (a dense gradient of the same values)")


@contextlib.contextmanager
def _exporting() -> Any:
    """``torch.compiler.is_exporting()`` and ``is_compiling()`` are True, as under torch.export,
    while the joint trace runs the model again: Hugging Face models check them to take the
    path that reads no tensor values (``padding_mask.all()`` on a fake tensor fails)."""
    from torch._export.utils import _compiling_state_context

    with _compiling_state_context():
        yield


@contextlib.contextmanager
def _no_mkldnn() -> Any:
    """Recurrent layers take their generic ATen path (``aten.lstm`` and its decomposition
    into matmuls and gates), not the oneDNN kernel CPU autograd picks when training
    (``mkldnn_rnn_layer``, an x86 library call with no IPU counterpart)."""
    with torch.backends.mkldnn.flags(enabled=False):
        yield


@contextlib.contextmanager
def _tensor_constants() -> Any:
    """A tensor the model reads that is neither a parameter, a buffer nor an input (a
    module-level constant, a plain attribute) is a constant of the program, as torch.export
    lifts it for inference: the joint trace's fake-tensor mode takes it as it is instead of
    refusing a real tensor."""
    from torch._subclasses.fake_tensor import fake_tensor_tls

    previous = fake_tensor_tls.allow_non_fake_inputs_override
    fake_tensor_tls.allow_non_fake_inputs_override = True
    try:
        yield
    finally:
        fake_tensor_tls.allow_non_fake_inputs_override = previous


def _merge_shared_weights(graph: torch.fx.Graph, model: torch.nn.Module) -> None:
    """One placeholder per parameter or buffer tensor, named by its first path in
    ``model.named_parameters()`` / ``named_buffers()`` (what poptorch and optimizers call it).

    The joint trace gives a tensor reachable under several paths (an ``Embedding`` and an
    output ``Linear`` sharing ``weight``) one placeholder and one gradient per path; the
    other paths' uses are rewired to the first placeholder, and its gradient becomes the sum
    of the gradients of every path, as eager's autograd accumulates them into the one ``.grad``."""
    first: dict[str, str] = {}
    for named in (model.named_parameters(remove_duplicate=False), model.named_buffers(remove_duplicate=False)):
        seen: dict[int, str] = {}
        for name, tensor in named:
            first[name] = seen.setdefault(id(tensor), name)
    if all(name == path for name, path in first.items()):
        return
    kept: dict[str, torch.fx.Node] = {}
    for node in [n for n in graph.nodes if n.op == "placeholder"]:
        desc = node.meta.get("desc")
        if type(desc).__name__ not in ("ParamAOTInput", "BufferAOTInput"):
            continue
        path = first.get(desc.target, desc.target)
        if path not in kept:
            kept[path] = node
            node.meta["desc"] = dataclasses.replace(desc, target=path)
        else:
            node.replace_all_uses_with(kept[path])
            graph.erase_node(node)

    output_node = next(n for n in graph.nodes if n.op == "output")
    values, descs, grads = [], [], {}
    for value, desc in zip(output_node.args[0], output_node.meta["desc"], strict=True):
        kind = type(desc).__name__
        target = desc.grad_of if kind == "GradAOTOutput" else desc.mutated_input if kind == "InputMutationAOTOutput" else None
        if target is not None and type(target).__name__ in ("ParamAOTInput", "BufferAOTInput"):
            path = first.get(target.target, target.target)
            target = dataclasses.replace(target, target=path)
            desc = dataclasses.replace(desc, grad_of=target) if kind == "GradAOTOutput" else dataclasses.replace(desc, mutated_input=target)
            key = (kind, path)
            if key in grads:
                if kind != "GradAOTOutput":
                    raise CaptureError(f"the model updates buffer '{path}' under several names; give each use its own buffer")
                index = grads[key]
                values[index] = _sum_gradients(graph, output_node, values[index], value)
                continue
            grads[key] = len(values)
        values.append(value)
        descs.append(desc)
    output_node.args = (tuple(values),)
    output_node.meta["desc"] = descs


def _sum_gradients(graph: torch.fx.Graph, output_node: torch.fx.Node, total: Any, more: Any) -> Any:
    """``total + more`` before the output (either may be None: a use with no gradient)."""
    if total is None or more is None:
        return more if total is None else total
    with graph.inserting_before(output_node):
        node = graph.call_function(torch.ops.aten.add.Tensor, (total, more))
    node.meta = dict(more.meta)  # same shape and dtype; a backward op of the same forward op
    return node


def _strip(name: str) -> str:
    return name[len(_WRAPPER_PREFIX) :] if name.startswith(_WRAPPER_PREFIX) else name


def capture_training(model: torch.nn.Module, args: tuple, kwargs: dict, context: ir.Context,
                     anchors: Sequence[str] = (), timings: dict[str, float] | None = None) -> TrainingCapture:
    """Trace ``model(*args, **kwargs)`` (micro-batch inputs) as one forward + backward function,
    finding the loss during that one trace (``_LossFirst``). Each name of ``anchors`` that
    names a forward tensor (``anchors.py``) is one more result, last, with role ``anchor``.
    ``timings`` gets the seconds of ``capture.joint`` (the joint trace and its checks) and
    ``capture.import``."""
    from torch._functorch.aot_autograd import aot_export_joint_with_descriptors

    timings = {} if timings is None else timings
    start = time.perf_counter()
    prepare_for_export(model)
    wrapper = _LossFirst(model)  # the model itself: its Block annotations run in the trace
    stack = contextlib.ExitStack()
    try:
        # While traced, plain tensor attributes are buffers and returned inputs are recorded (mutation.py).
        attributes = stack.enter_context(tensor_attributes_as_buffers(model))
        returned = stack.enter_context(recording_returned_inputs(model))
        with (fxtb.preserve_node_meta(), tracing(), _exporting(), fresh_blocks_per_run(model), _math_attention(),
              lowered_ops_whole(), _tensor_constants(), _no_mkldnn(), unchecked_linalg_errors(), reference_linear_cross_entropy(),
              own_autograd_decompositions(), warnings.catch_warnings()):
            warnings.filterwarnings("ignore", category=FutureWarning)
            warnings.filterwarnings("ignore", category=UserWarning, module=r"torch\.")
            joint = aot_export_joint_with_descriptors(stack, wrapper, args, kwargs, decompositions=_decompositions())
        graph_module = joint.graph_module
        _merge_shared_weights(graph_module.graph, wrapper)
    except CaptureError:
        raise  # ours, raised while the model ran (no loss, a .backward() in forward...)
    except Exception as error:  # torch raises many kinds; the user needs the reason
        raised = _model_error(error, wrapper.error)
        if raised is not None:  # the model's forward failed: what export-time capture says of it
            raise CaptureError(capture_error_message(raised)) from error
        raise CaptureError(f"could not trace the backward pass of the model: {type(error).__name__}: {error}") from error
    finally:
        stack.close()  # FakeTensorMode ends here, before anything runs on real tensors

    graph = graph_module.graph
    _refuse_what_training_cannot_hold(graph)
    try:
        check_static_shapes(graph)
    except Exception as error:
        raise CaptureError(capture_error_message(error)) from error
    arguments: list[tuple[RoleKind, str, TensorSpec]] = []
    constants: dict[str, torch.Tensor] = {}
    user_inputs: dict[str, int] = {}  # input placeholder -> its index among the flattened (args, kwargs)
    for node in [n for n in graph.nodes if n.op == "placeholder"]:
        desc = type(node.meta.get("desc")).__name__
        value = node.meta.get("val")
        if not isinstance(value, torch.Tensor):
            from .capture import _inline_constant_input

            _inline_constant_input(graph, node)
            continue
        spec = TensorSpec(node.name, tuple(int(d) for d in value.shape), value.dtype)
        if desc == "ParamAOTInput":
            name = _strip(node.meta["desc"].target)
            arguments.append((RoleKind.PARAMETER, name, dataclasses.replace(spec, name=name)))
        elif desc == "BufferAOTInput":
            name = _strip(node.meta["desc"].target)
            kind = RoleKind.CONSTANT if name in attributes else RoleKind.BUFFER  # a plain tensor attribute
            if name in attributes:
                if not node.users:  # not read: nothing to upload
                    graph.erase_node(node)
                    continue
                constants[name] = attributes[name]
            arguments.append((kind, name, dataclasses.replace(spec, name=name)))
        elif desc == "TangentAOTInput":
            arguments.append((RoleKind.LOSS_GRAD, "loss_grad", spec))
        elif desc == "PlainAOTInput":
            arguments.append((RoleKind.INPUT, node.name, spec))
            user_inputs[node.name] = node.meta["desc"].idx
        elif desc in ("ForwardTokenAOTInput", "BackwardTokenAOTInput"):
            raise effectful_ops_error(graph)
        else:
            raise CaptureError(f"unsupported input of the joint graph: {node.meta.get('desc')}")

    output_node = next(n for n in graph.nodes if n.op == "output")
    kept: list[Any] = []
    results: list[tuple[RoleKind, str]] = []
    input_names = {repr(n.meta.get("desc")): n.name for n in graph.nodes if n.op == "placeholder"}
    input_updates: list[tuple[str, Any]] = []  # user inputs updated in place: results after the outputs
    user_index = outputs_end = 0
    user_nodes: list[Any] = []  # the user outputs in the wrapper's order (the loss first)
    for value, desc in zip(output_node.args[0], output_node.meta["desc"], strict=True):
        kind = type(desc).__name__
        if value is None:
            continue
        if kind == "InputMutationAOTOutput" and type(desc.mutated_input).__name__ == "PlainAOTInput":
            input_updates.append((input_names[repr(desc.mutated_input)], value))
            continue
        if kind == "InputMutationAOTOutput":
            if _strip(desc.mutated_input.target) in attributes:
                continue  # a plain tensor attribute's update does not persist
            results.append((RoleKind.BUFFER_UPDATE, _strip(desc.mutated_input.target)))
        elif kind == "PlainAOTOutput":
            results.append((RoleKind.LOSS if user_index == 0 else RoleKind.OUTPUT, str(user_index)))
            user_nodes.append(value)
            user_index += 1
            outputs_end = len(results)
        elif kind == "GradAOTOutput":
            target = desc.grad_of
            if type(target).__name__ != "ParamAOTInput":
                continue  # gradients of inputs are not wanted
            results.append((RoleKind.GRAD, _strip(target.target)))
        else:
            raise CaptureError(f"unsupported output of the joint graph: {desc}")
        kept.append(value)
    kept[outputs_end:outputs_end] = [value for _, value in input_updates]
    results[outputs_end:outputs_end] = [(RoleKind.INPUT_UPDATE, name) for name, _ in input_updates]
    # The user's order of the tensor outputs: the wrapper returned the loss first.
    loss_at = sum(isinstance(o, torch.Tensor) for o in wrapper.outputs[:wrapper.loss_index])
    in_user_order = user_nodes[1:loss_at + 1] + user_nodes[:1] + user_nodes[loss_at + 1:]
    names = training_names(graph, _user_input_names(model, args, kwargs, user_inputs), in_user_order)
    anchored = names.anchored(anchors)
    kept += [node for _, node in anchored]
    results += anchor_roles(anchored)
    output_node.args = (tuple(kept),)
    graph.lint()  # the import reads the graph, not the module's Python code: no recompile
    layout = output_layout(wrapper.outputs, returned, [name for kind, name, _ in arguments if kind == RoleKind.INPUT],
                           tuple(name for name, _ in input_updates))
    out_spec, loss_index = wrapper.out_spec, wrapper.loss_index
    wrapper.outputs = []  # the trace's fake tensors
    timings["capture.joint"] = time.perf_counter() - start

    start = time.perf_counter()
    module = import_program(graph_module, context)
    _annotate(module, arguments, results)
    check_imported(module)
    timings["capture.import"] = time.perf_counter() - start
    return TrainingCapture(module, arguments, results, constants, out_spec, loss_index, user_index, layout,
                           names.names)


def _model_error(error: BaseException, raised: BaseException | None) -> BaseException | None:
    """``raised`` (what the model's forward raised during the trace) if ``error`` is it or
    was caused by it, else None (the error came from tracing the backward pass)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while raised is not None and current is not None and id(current) not in seen:
        if current is raised:
            return raised
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _user_input_names(model: torch.nn.Module, args: tuple, kwargs: dict, inputs: dict[str, int]) -> dict[str, str]:
    """The joint graph's input placeholders (``primals_<n>``) -> the user's argument names,
    as torch.export names its placeholders (``x``, ``labels``; ``batch_0`` for the first
    tensor of a list argument ``batch``), for getTensorNames. ``inputs``: placeholder ->
    index among the flattened ``(args, kwargs)``."""
    from collections import defaultdict

    from torch._export.utils import _bind_signature_to_inputs, _rename_without_collisions

    try:
        flat, _ = pytree.tree_flatten_with_path(_bind_signature_to_inputs(model, args, kwargs))
    except (TypeError, ValueError):  # a forward whose signature does not bind its arguments
        return {placeholder: placeholder for placeholder in inputs}
    name_map: dict[str, str] = {}
    counts: dict[str, int] = defaultdict(int)
    used: set[str] = set()
    for index, (path, _) in enumerate(flat):
        keys = [_path_key(key) for key in path]
        if None not in keys:
            _rename_without_collisions(name_map, counts, used, str(index), "_".join(key.lower() for key in keys),
                                       is_placeholder=True)
    return {placeholder: name_map.get(str(index), placeholder) for placeholder, index in inputs.items()}


def _path_key(key: Any) -> str | None:
    """One step of a pytree path as torch.export's placeholder names spell it (its
    ``placeholder_naming_pass``): a dict key with non-alphanumerics as ``_``, a sequence
    index, an attribute; None for another kind (the input keeps its placeholder name)."""
    import re

    if isinstance(key, pytree.MappingKey):
        return re.sub(r"[^a-zA-Z0-9]", "_", str(key.key))
    if isinstance(key, pytree.SequenceKey):
        return str(key.idx)
    if isinstance(key, pytree.GetAttrKey):
        return key.name
    return None


def _annotate(module: ir.Module, arguments: list[tuple[RoleKind, str, TensorSpec]], results: list[tuple[RoleKind, str]]) -> None:
    set_roles(module, ARGUMENTS, [(kind, name) for kind, name, _ in arguments])
    set_roles(module, RESULTS, results)

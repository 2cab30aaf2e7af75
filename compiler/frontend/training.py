"""Capture a model for training: one joint forward + backward function in the Torch dialect.

``capture_training`` exports the model (non-strict), finds its loss (a loss module's
output or ``poptorch.identity_loss``), and traces the joint graph with
``aot_export_joint_with_descriptors`` so that the gradient of the loss with respect to
every parameter is a result of the function. Arguments and results carry their
``#ipu.role`` (kind and name), read by ``ipu-insert-training``:

- arguments: ``parameter``, ``buffer``, ``input``, then one ``loss_grad`` (the seed of
  the backward pass, d loss / d loss);
- results: ``buffer_update`` (new BatchNorm running statistics...), ``loss``,
  ``output`` (other model outputs, detached), ``grad`` (one per trainable parameter).
"""

from __future__ import annotations

import contextlib
import dataclasses
import warnings
from typing import Any

import torch
import torch.fx.traceback as fxtb
import torch.utils._pytree as pytree
from torch_mlir import ir

from ipu_mlir.dialects.ipu import ARGUMENTS, RESULTS, RoleKind

from . import custom_ops  # noqa: F401 - registers poptorch:: ops
from .capture import CaptureError, TensorSpec, export_model, import_program, set_roles
from .decompositions import decomposition_table
from .tracing import fresh_blocks_per_run, tracing

_WRAPPER_PREFIX = "inner."
_WEIGHTS = (RoleKind.PARAMETER, RoleKind.BUFFER)


class LossError(CaptureError):
    """The model has no loss, or several independent ones."""


@dataclasses.dataclass
class TrainingCapture:
    """The joint function and the roles of its arguments and results."""

    module: ir.Module
    arguments: list[tuple[RoleKind, str, TensorSpec]]  # (kind, name, spec) per function argument
    results: list[tuple[RoleKind, str]]  # (kind, name) per function result
    constants: dict[str, torch.Tensor]
    out_spec: Any  # pytree spec of the model's user outputs (loss in its place)
    loss_index: int  # position of the loss among the flattened user outputs
    num_outputs: int  # flattened user outputs

    @property
    def inputs(self) -> list[TensorSpec]:
        return [spec for kind, _, spec in self.arguments if kind == RoleKind.INPUT]

    @property
    def weights(self) -> list[TensorSpec]:
        return [spec for kind, _, spec in self.arguments if kind in _WEIGHTS]

    @property
    def weight_kinds(self) -> list[RoleKind]:
        return [kind for kind, _, _ in self.arguments if kind in _WEIGHTS]


def _ancestors(node: torch.fx.Node) -> set[torch.fx.Node]:
    seen: set[torch.fx.Node] = set()
    pending = [node]
    while pending:
        current = pending.pop()
        for parent in current.all_input_nodes:
            if parent not in seen:
                seen.add(parent)
                pending.append(parent)
    return seen


def find_loss(program: torch.export.ExportedProgram, loss_outputs: list[int]) -> int:
    """Index of the loss among the model's flattened user outputs; LossError if none or ambiguous.

    ``loss_outputs`` are the outputs that tracing saw come straight from a loss module
    or ``poptorch.identity_loss``.
    """
    if not loss_outputs:
        raise LossError(
            "the model's forward returns no loss, so there is nothing to train. Return the output of a loss module "
            "(for example nn.CrossEntropyLoss()(output, target)) or mark your loss with "
            "poptorch.identity_loss(loss, reduction='mean'), as one of forward's outputs."
        )
    if len(loss_outputs) == 1:
        return loss_outputs[0]
    # Several losses are fine when one final identity_loss depends on all the others.
    output_node = next(n for n in program.graph.nodes if n.op == "output")
    user = [v for spec, v in zip(program.graph_signature.output_specs, output_node.args[0], strict=True)
            if spec.kind.name == "USER_OUTPUT"]
    for index in loss_outputs:
        node = user[index]
        if isinstance(node, torch.fx.Node) and node.target is torch.ops.poptorch.identity_loss.default:
            before = _ancestors(node)
            if all(user[j] in before for j in loss_outputs if j != index):
                return index
    positions = ", ".join(str(i) for i in loss_outputs)
    raise LossError(
        f"the model returns several independent losses (outputs {positions}); PopTorch trains on one final loss. "
        "Combine them into one tensor, e.g. return poptorch.identity_loss(loss_a + loss_b, reduction='none')."
    )


@contextlib.contextmanager
def _math_attention() -> Any:
    """While tracing for training, F.scaled_dot_product_attention runs as its math form
    (matmul, softmax, matmul), so autograd differentiates ops the poplar dialect has, as
    torch-mlir's decomposition does; the fused CPU kernel's backward has no Poplar
    counterpart. (nn.MultiheadAttention calls it through the same module attribute.)"""
    import torch.nn.functional as F

    fused = F.scaled_dot_product_attention

    def math(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):  # noqa: ANN001, ANN202
        if enable_gqa:
            raise CaptureError("scaled_dot_product_attention with enable_gqa=True is not supported in training")
        return torch.ops.aten._scaled_dot_product_attention_math(
            query, key, value, attn_mask, dropout_p, is_causal, scale=scale
        )[0]

    F.scaled_dot_product_attention = math
    try:
        yield
    finally:
        F.scaled_dot_product_attention = fused


def export_with_losses(model: torch.nn.Module, args: tuple, kwargs: dict) -> tuple[torch.export.ExportedProgram, list[int]]:
    """Export (raw, for the joint trace) and note which flattened outputs are losses."""
    from .tracing import mark_loss, recording_losses

    returned: list[list[int]] = []
    hooks = [m.register_forward_hook(lambda _m, _i, out: mark_loss(out))
             for m in model.modules() if isinstance(m, torch.nn.modules.loss._Loss)]
    hooks.append(model.register_forward_hook(lambda _m, _i, out: returned.append([id(t) for t in pytree.tree_leaves(out)])))
    try:
        with recording_losses() as losses, _math_attention():
            program = export_model(model, args, kwargs, functionalize=False)
    finally:
        for hook in hooks:
            hook.remove()
    outputs = returned[-1] if returned else []
    return program, [i for i, ident in enumerate(outputs) if ident in losses]


class _LossFirst(torch.nn.Module):
    """Puts the loss first and detaches the other outputs, so only the loss seeds the backward pass."""

    def __init__(self, inner: torch.nn.Module, loss_index: int) -> None:
        super().__init__()
        self.inner = inner
        self.loss_index = loss_index

    def forward(self, *args: Any, **kwargs: Any) -> tuple[torch.Tensor, ...]:
        flat, _ = pytree.tree_flatten(self.inner(*args, **kwargs))
        others = tuple(o.detach() for i, o in enumerate(flat) if i != self.loss_index)
        return (flat[self.loss_index], *others)


def _decompositions() -> dict:
    """Ops decomposed before autograd: every op without a lowering (``decompositions.py``),
    and attention, which becomes matmul + softmax so its backward is made of ops the poplar
    dialect has (as torch-mlir decomposes it)."""
    aten = torch.ops.aten
    return decomposition_table((aten.scaled_dot_product_attention.default,
                                aten._scaled_dot_product_flash_attention_for_cpu.default))


def _strip(name: str) -> str:
    return name[len(_WRAPPER_PREFIX) :] if name.startswith(_WRAPPER_PREFIX) else name


def capture_training(model: torch.nn.Module, args: tuple, kwargs: dict, context: ir.Context) -> TrainingCapture:
    """Export ``model(*args, **kwargs)`` (micro-batch inputs) as one forward + backward function."""
    from torch._functorch.aot_autograd import aot_export_joint_with_descriptors

    program, loss_outputs = export_with_losses(model, args, kwargs)
    loss_index = find_loss(program, loss_outputs)
    wrapper = _LossFirst(model, loss_index)  # the model itself: its Block annotations run again
    stack = contextlib.ExitStack()
    try:
        with fxtb.preserve_node_meta(), tracing(), fresh_blocks_per_run(model), _math_attention(), warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=FutureWarning)
            warnings.filterwarnings("ignore", category=UserWarning, module=r"torch\.")
            joint = aot_export_joint_with_descriptors(stack, wrapper, args, kwargs, decompositions=_decompositions())
        graph_module = joint.graph_module
    except Exception as error:  # torch raises many kinds; the user needs the reason
        raise CaptureError(f"could not trace the backward pass of the model: {type(error).__name__}: {error}") from error
    finally:
        stack.close()  # FakeTensorMode ends here, before anything runs on real tensors

    graph = graph_module.graph
    arguments: list[tuple[RoleKind, str, TensorSpec]] = []
    constants: dict[str, torch.Tensor] = {}
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
            arguments.append((RoleKind.BUFFER, name, dataclasses.replace(spec, name=name)))
        elif desc == "TangentAOTInput":
            arguments.append((RoleKind.LOSS_GRAD, "loss_grad", spec))
        elif desc == "PlainAOTInput":
            arguments.append((RoleKind.INPUT, node.name, spec))
        else:
            raise CaptureError(f"unsupported input of the joint graph: {node.meta.get('desc')}")

    output_node = next(n for n in graph.nodes if n.op == "output")
    kept: list[Any] = []
    results: list[tuple[RoleKind, str]] = []
    user_index = 0
    for value, desc in zip(output_node.args[0], output_node.meta["desc"], strict=True):
        kind = type(desc).__name__
        if value is None:
            continue
        if kind == "InputMutationAOTOutput":
            results.append((RoleKind.BUFFER_UPDATE, _strip(desc.mutated_input.target)))
        elif kind == "PlainAOTOutput":
            results.append((RoleKind.LOSS if user_index == 0 else RoleKind.OUTPUT, str(user_index)))
            user_index += 1
        elif kind == "GradAOTOutput":
            target = desc.grad_of
            if type(target).__name__ != "ParamAOTInput":
                continue  # gradients of inputs are not wanted
            results.append((RoleKind.GRAD, _strip(target.target)))
        else:
            raise CaptureError(f"unsupported output of the joint graph: {desc}")
        kept.append(value)
    output_node.args = (tuple(kept),)
    graph.lint()
    graph_module.recompile()

    module = import_program(graph_module, context)
    _annotate(module, arguments, results)
    user_outputs = program.call_spec.out_spec
    return TrainingCapture(module, arguments, results, constants, user_outputs, loss_index, user_index)


def _annotate(module: ir.Module, arguments: list[tuple[RoleKind, str, TensorSpec]], results: list[tuple[RoleKind, str]]) -> None:
    set_roles(module, ARGUMENTS, [(kind, name) for kind, name, _ in arguments])
    set_roles(module, RESULTS, results)

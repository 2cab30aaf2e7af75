"""The names of a captured model's tensors, and anchoring them (``Options.anchorTensor``).

Every tensor a user may anchor gets a stable name from the captured FX graph:

- an activation (a forward op's result): ``<module path>/<node name>``, e.g. ``fc1/linear``
  for the ``linear`` op traced in submodule ``fc1``; an op of the top-level ``forward`` is
  its node name alone (``relu``, ``linear_1``). Node names are torch.fx's: the ATen op's name,
  numbered from the second use on (``linear``, ``linear_1``). The training capture (the
  joint forward and backward trace) keeps no module paths: its activations are the node
  names of the forward part (``addmm``, ``relu``); gradients are not named;
- an input: its argument name (``x``; in training too, though the joint trace calls it
  ``primals_<n>``);
- a model output: ``output.<i>``, the i-th tensor the model returns (in the user's order),
  beside the name of the op that computes it.

An anchored tensor becomes one more result of the captured function, after the others,
with ``#ipu.role<"anchor", name>``; the driver adds its ``#ipu.output_mode``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch

from ipu_mlir.dialects.ipu import RoleKind


def _module_path(node: torch.fx.Node) -> str:
    from .capture import module_path_of

    return module_path_of(node)


def activation_name(node: torch.fx.Node) -> str:
    """The name of a forward op's result: ``<module path>/<node name>``, or the node name at top level."""
    path = _module_path(node)
    return node.name if path == "<model>" else f"{path}/{node.name}"


def is_tensor(node: torch.fx.Node) -> bool:
    return isinstance(node.meta.get("val"), torch.Tensor)


class TensorNames:
    """The nameable tensors of one captured graph: ``names`` (listed) and the node of each."""

    def __init__(self) -> None:
        self.nodes: dict[str, torch.fx.Node] = {}

    def add(self, name: str, node: torch.fx.Node) -> None:
        self.nodes.setdefault(name, node)

    @property
    def names(self) -> list[str]:
        return list(self.nodes)

    def anchored(self, wanted: Sequence[str]) -> list[tuple[str, torch.fx.Node]]:
        """``(name, node)`` of each wanted name this graph has, in the order given (a name
        wanted twice, under two output modes, twice). Other names (weights, optimizer
        state: variables of the compiled program) are left to the caller."""
        return [(name, self.nodes[name]) for name in wanted if name in self.nodes]


def inference_names(graph: torch.fx.Graph, inputs: Sequence[str], outputs: Sequence[torch.fx.Node]) -> TensorNames:
    """The names of an exported (inference) graph: inputs, activations, then the outputs' aliases."""
    names = TensorNames()
    for node in graph.nodes:
        if node.op == "placeholder" and node.name in inputs:
            names.add(node.name, node)
        elif node.op == "call_function" and is_tensor(node):
            names.add(activation_name(node), node)
    for index, node in enumerate(outputs):
        if isinstance(node, torch.fx.Node):
            names.add(f"output.{index}", node)
    return names


def training_names(graph: torch.fx.Graph, inputs: Mapping[str, str], outputs: Sequence[torch.fx.Node]) -> TensorNames:
    """The names of a joint training graph: inputs (``inputs``: placeholder name -> the user's
    argument name), the forward part's activations, the outputs' aliases."""
    names = TensorNames()
    for node in graph.nodes:
        if node.op == "placeholder" and node.name in inputs:
            names.add(inputs[node.name], node)
        elif (node.op == "call_function" and is_tensor(node) and not node.meta.get("autograd_backward")
              and node.meta.get("partitioner_tag") != "is_backward"):
            names.add(activation_name(node), node)
    for index, node in enumerate(outputs):
        if isinstance(node, torch.fx.Node):
            names.add(f"output.{index}", node)
    return names


def anchor_roles(anchored: Sequence[tuple[str, torch.fx.Node]]) -> list[tuple[RoleKind, str]]:
    """The ``#ipu.role`` of each anchored result."""
    return [(RoleKind.ANCHOR, name) for name, _ in anchored]


__all__ = ["TensorNames", "activation_name", "anchor_roles", "inference_names", "training_names"]

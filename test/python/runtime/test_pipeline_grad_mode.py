"""The pipeline executor's worker threads (one per emulated IPU) run kernels with autograd
off. Grad mode is per thread, so the host's ``torch.no_grad()`` does not reach them: with a
training input that requires grad, every stage result used to carry an autograd graph, and
the in-place gradient accumulator a graph that grew by one step's ops every step (a leak)."""

from __future__ import annotations

import torch

import poptorch
from helpers import FP32
from helpers.models import LayersOverIpus


def _graph_size(tensor: torch.Tensor) -> int:
    seen, todo = set(), [tensor.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        todo += [next_node for next_node, _ in node.next_functions]
    return len(seen)


def test_pipelined_training_with_an_input_that_requires_grad_records_no_graph() -> None:
    torch.manual_seed(0)
    model = LayersOverIpus("block", 2)
    reference = LayersOverIpus("block", 2)
    reference.load_state_dict(model.state_dict())
    options = poptorch.Options()
    options.Training.gradientAccumulation(8)
    options.setExecutionStrategy(LayersOverIpus.strategy("pipelined", 2))
    training = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1))
    eager = torch.optim.SGD(reference.parameters(), lr=0.1)
    x, target = torch.randn(32, 8).requires_grad_(), torch.randint(0, 3, (32,))
    for _ in range(3):
        out, loss = training(x, target)
        eager.zero_grad()
        reference_loss = sum(reference(xs.detach(), ts)[1] for xs, ts in zip(x.chunk(8), target.chunk(8))) / 8
        reference_loss.backward()
        eager.step()
    assert training._compiled.program.sequential_reason is None  # it ran as a pipeline
    assert out.grad_fn is None and loss.grad_fn is None
    for store in training._stores.values():
        for name, value in store.tensors.items():
            assert _graph_size(value) == 0, f"{name} holds an autograd graph of {_graph_size(value)} nodes"
    training.copyWeightsToHost()
    for (name, got), want in zip(model.named_parameters(), reference.parameters(), strict=True):
        torch.testing.assert_close(got, want, **FP32, msg=lambda m, n=name: f"{n}: {m}")

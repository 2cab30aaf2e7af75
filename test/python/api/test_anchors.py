"""Options.anchorTensor / PoplarExecutor.getAnchoredTensor: a tensor of the compiled program, by the
name getTensorNames() lists, read back after a call; unknown names list the close matches. State
here and in test_anchor_state.py (every output mode); model tensors (activations, inputs, outputs) under
every output mode: test_anchor_activations.py."""

from __future__ import annotations

import pytest
import torch
from helpers import FP32

import poptorch
from poptorch.enums import OutputMode


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(3, 2)

    def forward(self, x, y):
        out = self.linear(x)
        return out, torch.nn.functional.mse_loss(out, y)


def test_anchored_weight_and_hyper_parameter_after_a_call():
    torch.manual_seed(0)
    model = Model()
    eager = Model()
    eager.load_state_dict(model.state_dict())
    opts = poptorch.Options().anchorTensor("w", "linear.weight").anchorTensor("lr", "0.lr")
    x, y = torch.randn(2, 3), torch.randn(2, 2)
    step = poptorch.trainingModel(model, opts, torch.optim.SGD(model.parameters(), lr=0.1))
    step(x, y)
    assert {"linear.weight", "0.lr"} <= set(step.getTensorNames())
    optimizer = torch.optim.SGD(eager.parameters(), lr=0.1)
    eager(x, y)[1].backward()
    optimizer.step()
    torch.testing.assert_close(step.getAnchoredTensor("w"), eager.linear.weight.detach(), **FP32)  # after the update
    assert step.getAnchoredTensor("lr").item() == pytest.approx(0.1)


def test_anchored_weight_changes_with_every_call():
    torch.manual_seed(0)
    model = Model()
    opts = poptorch.Options().anchorTensor("w", "linear.weight", OutputMode.Final)
    step = poptorch.trainingModel(model, opts, torch.optim.SGD(model.parameters(), lr=0.1))
    x, y = torch.randn(2, 3), torch.randn(2, 2)
    step(x, y)
    first = step.getAnchoredTensor("w")
    step(x, y)
    assert not torch.equal(first, step.getAnchoredTensor("w"))


def test_unknown_long_name_lists_close_matches():
    opts = poptorch.Options().anchorTensor("w", "linear.wieght")
    model = poptorch.inferenceModel(torch.nn.Sequential(torch.nn.Linear(3, 2)), opts)
    with pytest.raises(ValueError, match=r"anchorTensor\('w', 'linear.wieght'\): the compiled program has no tensor "
                                         r"'linear.wieght'\. Did you mean '0/linear', '0.weight'\?"):
        model(torch.randn(2, 3))
    with pytest.raises(ValueError, match="no tensor 'linear.wieght'"):  # still refused on the next call
        model(torch.randn(2, 3))


def test_unknown_short_name_lists_close_matches():
    opts = poptorch.Options().anchorTensor("weight", "0.weight")
    model = poptorch.inferenceModel(torch.nn.Sequential(torch.nn.Linear(3, 2)), opts)
    model(torch.randn(2, 3))
    with pytest.raises(ValueError, match=r"getAnchoredTensor\('wieght'\): no tensor is anchored under that name\. "
                                         r"Did you mean 'weight'\?"):
        model.getAnchoredTensor("wieght")


def test_anchor_before_running_is_an_error():
    opts = poptorch.Options().anchorTensor("w", "0.weight")
    model = poptorch.inferenceModel(torch.nn.Sequential(torch.nn.Linear(3, 2)), opts)
    with pytest.raises(RuntimeError, match="has not run yet"):
        model.getAnchoredTensor("w")


def test_internal_variables_are_not_tensor_names():
    # The program's own buffers (an input's device copy, an output's anchor variable) are not
    # listed: the input is listed by its name, and anchoring it follows the output mode.
    layer = torch.nn.Sequential(torch.nn.Linear(3, 2))
    opts = poptorch.Options().deviceIterations(2).anchorTensor("t", "input.input")
    with pytest.raises(ValueError, match=r"no tensor 'input.input'\. Did you mean 'input'"):
        poptorch.inferenceModel(layer, opts)(torch.randn(4, 3))
    opts = poptorch.Options().deviceIterations(2).anchorTensor("t", "input", OutputMode.All)
    model = poptorch.inferenceModel(layer, opts)
    x = torch.randn(4, 3)
    model(x)
    assert "anchor.0" not in model.getTensorNames() and "input.input" not in model.getTensorNames()
    torch.testing.assert_close(model.getAnchoredTensor("t"), x, **FP32)


def test_state_under_all_over_several_iterations():
    # State follows every output mode (test_anchor_state.py); an inference weight is the same at
    # every step, so All gives it once per iteration and Final once.
    layer = torch.nn.Sequential(torch.nn.Linear(3, 2))
    opts = (poptorch.Options().deviceIterations(2).anchorTensor("all", "0.weight", OutputMode.All)
            .anchorTensor("final", "0.weight", OutputMode.Final))
    model = poptorch.inferenceModel(layer, opts)
    model(torch.randn(4, 3))
    weight = layer[0].weight.detach()
    torch.testing.assert_close(model.getAnchoredTensor("all"), torch.cat([weight, weight]), **FP32)
    torch.testing.assert_close(model.getAnchoredTensor("final"), weight, **FP32)

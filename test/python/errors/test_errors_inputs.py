"""Error catalogue, inputs: what a user passes to a wrapped model, and how they call it.

One user mistake per case, one expected message (our words: what was asked, why not,
what to do). Batch rules are tested at the boundary of the multiple they share.
"""

from __future__ import annotations

import re
import textwrap

import pytest
import torch
from helpers import FP32
from torch import nn

import poptorch


class Linear(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)


class Scale(nn.Module):
    def forward(self, x: torch.Tensor, k: float) -> torch.Tensor:
        return x * k


def _options(iterations: int) -> poptorch.Options:
    return poptorch.Options().deviceIterations(iterations)


@pytest.mark.parametrize("batch", [3, 5])
def test_batch_not_a_multiple_of_device_iterations(batch: int) -> None:
    with pytest.raises(ValueError, match=re.escape(
            f"input 'x' has {batch} as its first dimension (batch), which is not a multiple of deviceIterations (2)")):
        poptorch.inferenceModel(Linear(), _options(2))(torch.ones(batch, 4))


def test_batch_at_the_multiple_is_accepted() -> None:
    model = Linear()
    x = torch.randn(4, 4)
    torch.testing.assert_close(poptorch.inferenceModel(model, _options(2))(x), model(x), **FP32)


def test_scalar_input_with_several_device_iterations() -> None:
    # Issue 20: it said the 0-d tensor "has 1 as its first dimension".
    with pytest.raises(ValueError, match=re.escape(
            "input 'x' is a 0-d tensor (a scalar), which counts as a batch of 1, but each call takes deviceIterations "
            "(2) x replicationFactor (1) / input group size (1) x gradientAccumulation (1) = 2 micro-batches of every "
            "input. Give it a dim 0 of 2 (one value per micro-batch, e.g. x.expand(2))")):
        poptorch.inferenceModel(Scale(), _options(2))(torch.tensor(3.0), 2.0)


def test_scalar_input_with_one_device_iteration_is_accepted() -> None:
    assert poptorch.inferenceModel(Scale())(torch.tensor(3.0), 2.0).item() == 6.0


def test_batch_not_a_multiple_of_gradient_accumulation() -> None:
    class Train(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return nn.functional.mse_loss(self.fc(x), y)

    options = poptorch.Options()
    options.Training.gradientAccumulation(4)
    with pytest.raises(ValueError, match=re.escape("gradientAccumulation (4) = 4. Every input's dim 0 must be the "
                                                   "micro-batch size times 4")):
        poptorch.trainingModel(Train(), options)(torch.ones(2, 4), torch.ones(2, 3))


def test_later_call_with_another_shape() -> None:
    model = poptorch.inferenceModel(Linear())
    model(torch.ones(2, 4))
    with pytest.raises(ValueError, match=re.escape(
            "input 'x': the model was compiled for a tensor of shape [2, 4] and dtype torch.float32, got a tensor of "
            "shape [3, 4]")):
        model(torch.ones(3, 4))


def test_later_call_with_more_arguments() -> None:
    model = poptorch.inferenceModel(Linear())
    model(torch.ones(2, 4))
    with pytest.raises(ValueError, match=re.escape("the model was compiled with 1 inputs (x) but this call passes 2")):
        model(torch.ones(2, 4), torch.ones(2, 4))


def test_later_call_changes_a_python_argument() -> None:
    model = poptorch.inferenceModel(Scale())
    model(torch.ones(2), 2)
    with pytest.raises(ValueError, match=re.escape(
            "input 'k' was 2 when the model was compiled, got 3: non-tensor arguments are compiled into the program")):
        model(torch.ones(2), 3)


def test_wrapping_a_function_instead_of_a_module() -> None:
    with pytest.raises(TypeError, match=re.escape("inferenceModel expects a torch.nn.Module, got function")):
        poptorch.inferenceModel(lambda x: x * 2)


def test_calling_a_destroyed_model() -> None:
    model = poptorch.inferenceModel(Linear())
    model(torch.ones(2, 4))
    model.destroy()
    with pytest.raises(RuntimeError, match=re.escape("this model was destroyed with destroy(); wrap the model again")):
        model(torch.ones(2, 4))


def test_wrapping_a_model_for_training_twice() -> None:
    model = Linear()
    poptorch.trainingModel(model)
    with pytest.raises(RuntimeError, match=re.escape(
            "this model is already wrapped by poptorch.trainingModel; call destroy() on that wrapper")):
        poptorch.trainingModel(model)


def test_a_batch_the_replicas_cannot_share_names_each_factor() -> None:
    # Replication runs (test/python/replication); a batch that does not split over the
    # replicas is our error naming every factor of N.
    options = poptorch.Options().replicationFactor(2).deviceIterations(2)
    with pytest.raises(ValueError, match=re.escape(
            "input 'x' has 6 as its first dimension (batch), which is not a multiple of deviceIterations (2) x "
            "replicationFactor (2) / input group size (1) x gradientAccumulation (1) = 4")):
        poptorch.inferenceModel(Linear(), options)(torch.ones(6, 4))


@pytest.mark.parametrize("wrap", ["inference", "training"])
def test_backward_inside_forward(wrap: str) -> None:
    # Issue 20: training said "Cannot backprop through mirrored meta, file a bug in PyTorch";
    # inference ignored the call.
    class SelfTraining(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            loss = poptorch.identity_loss(self.fc(x).sum(), reduction="sum")
            loss.backward()
            return loss

    wrapper = poptorch.inferenceModel if wrap == "inference" else poptorch.trainingModel
    with pytest.raises(RuntimeError, match=re.escape(
            "the model's forward calls .backward() at ")) as caught:
        wrapper(SelfTraining())(torch.ones(2, 4))
    message = str(caught.value)
    assert "test_errors_inputs.py" in message and "(`loss.backward()`)" in message
    assert "PopTorch builds the backward pass itself" in message


# The three capture crashes of issue 20 (SIGSEGV in the printer of an invalid module). Each
# runs in a child process: it must work as in eager, or give our clear error; never a signal.
CAPTURE_CASES = {
    "forward_returns_none": """
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 3)
            def forward(self, x):
                return self.fc(x), None
        model = M()
        x = torch.randn(2, 4)
        out = poptorch.inferenceModel(model)(x)
        assert out[1] is None, out
        torch.testing.assert_close(out[0], model(x)[0], rtol=1e-5, atol=1e-6)
        print("works")
    """,
    "add_on_an_input": """
        class M(nn.Module):
            def forward(self, x):
                x.add_(1)
                return x * 2
        x, eager = torch.randn(2, 4), None
        reference = x.clone()
        eager = M()(reference)
        out = poptorch.inferenceModel(M())(x)
        torch.testing.assert_close(out, eager, rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(x, reference, rtol=1e-5, atol=1e-6)
        print("works")
    """,
    "matmul_out_an_input": """
        class M(nn.Module):
            def forward(self, x, y, out):
                torch.matmul(x, y, out=out)
                return out + 1
        x, y = torch.randn(2, 3), torch.randn(3, 4)
        out, reference = torch.zeros(2, 4), torch.zeros(2, 4)
        eager = M()(x, y, reference)
        result = poptorch.inferenceModel(M())(x, y, out)
        torch.testing.assert_close(result, eager, rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(out, reference, rtol=1e-5, atol=1e-6)
        print("works")
    """,
}


@pytest.mark.parametrize("case", sorted(CAPTURE_CASES))
def test_former_capture_crashes_work_or_give_our_error(case: str, run_python) -> None:
    result = run_python("import torch, poptorch\nfrom torch import nn\n" + textwrap.dedent(CAPTURE_CASES[case]))
    if result.returncode == 0:
        assert "works" in result.stdout
    else:  # our clear error, not a raw internal one
        last = result.stderr.strip().splitlines()[-1]
        assert last.startswith(("ipu_mlir.compiler.frontend.capture.CaptureError", "ValueError")), result.stderr[-3000:]

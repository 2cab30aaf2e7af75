"""In-place ops, views, ``out=`` and mutated inputs behave as in eager (SEMANTICS "Mutation").

A model input updated in place gets its new value written back into the caller's tensor,
each micro-batch's slice by that micro-batch; ``out=`` results are the caller's tensor;
forward may return ``None``; idioms on locals (indexed assignment, slices and views) and
buffers compile; a plain tensor attribute is a constant whose updates do not persist.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from helpers import EXACT, FP32
from helpers.checks import assert_parameters_close, eager_accumulated_step, eager_per_micro_batch

import poptorch


class Mutates(nn.Module):
    """Updates its first input in place in the way ``case`` names; returns something of it."""

    def __init__(self, case: str) -> None:
        super().__init__()
        self.case = case

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        if self.case == "add_":
            x.add_(1)
            return x * 2
        if self.case == "mul_":
            x.mul_(2)
            return x + y
        if self.case == "setitem":
            x[0] = 5
            return x + 1
        if self.case == "copy_":
            x.copy_(y * 3)
            return y
        if self.case == "batch_dependent":  # each micro-batch's update depends on its own rows
            x.sub_(x.mean(0, keepdim=True))
            return x.sum(1)
        raise AssertionError(self.case)


@pytest.mark.parametrize("case", ["add_", "mul_", "setitem", "copy_"])
def test_mutated_input_is_written_back_as_eager(case: str) -> None:
    torch.manual_seed(0)
    x, y = torch.randn(4, 3), torch.randn(4, 3)
    x_eager, y_eager = x.clone(), y.clone()
    out = poptorch.inferenceModel(Mutates(case))(x, y)
    expected = Mutates(case)(x_eager, y_eager)
    torch.testing.assert_close(out, expected, **FP32)
    torch.testing.assert_close(x, x_eager, **FP32)
    torch.testing.assert_close(y, y_eager, **EXACT)


def test_mutated_input_with_device_iterations_updates_each_micro_batch_slice() -> None:
    torch.manual_seed(0)
    model = Mutates("batch_dependent")
    wrapper = poptorch.inferenceModel(model, poptorch.Options().deviceIterations(3))
    # eager_per_micro_batch runs the model on views of each micro-batch's rows, so eager's
    # in-place updates land in the caller's tensor slice by slice, as on the device.
    for _ in range(2):  # every call writes back, into the tensors of that call
        x, y = torch.randn(6, 4), torch.randn(6, 4)
        x_eager = x.clone()
        out = wrapper(x, y)
        expected = torch.cat(eager_per_micro_batch(model, 2, x_eager, y))
        torch.testing.assert_close(out, expected, **FP32)
        torch.testing.assert_close(x, x_eager, **FP32)
        assert not torch.allclose(x, x_eager.mean(0, keepdim=True).expand_as(x))


def test_mutated_input_is_written_back_whatever_the_output_mode() -> None:
    """OutputMode.Final returns the last iteration's output, but every slice of the input is updated."""
    torch.manual_seed(0)
    model = Mutates("batch_dependent")
    options = poptorch.Options().deviceIterations(2).outputMode(poptorch.OutputMode.Final)
    x, y = torch.randn(4, 3), torch.randn(4, 3)
    x_eager = x.clone()
    out = poptorch.inferenceModel(model, options)(x, y)
    expected = eager_per_micro_batch(model, 2, x_eager, y)
    torch.testing.assert_close(out, expected[-1], **FP32)
    torch.testing.assert_close(x, x_eager, **FP32)


class MatmulOut(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
        return torch.matmul(x, y, out=out)


class AddOut(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        torch.add(a, b, alpha=2, out=out)
        return out, out * 2


def test_matmul_out_argument_returns_the_callers_tensor_with_eagers_value() -> None:
    torch.manual_seed(0)
    x, y, out = torch.randn(3, 4), torch.randn(4, 5), torch.zeros(3, 5)
    result = poptorch.inferenceModel(MatmulOut())(x, y, out)
    out_eager = torch.zeros(3, 5)
    expected = MatmulOut()(x, y, out_eager)
    assert expected is out_eager and result is out  # eager returns the out= tensor itself
    torch.testing.assert_close(out, out_eager, **FP32)


def test_add_out_argument_as_keyword_with_device_iterations() -> None:
    torch.manual_seed(0)
    a, b, out = torch.randn(4, 3), torch.randn(4, 3), torch.zeros(4, 3)
    first, doubled = poptorch.inferenceModel(AddOut(), poptorch.Options().deviceIterations(2))(a, b, out=out)
    out_eager = torch.zeros(4, 3)
    _, doubled_eager = AddOut()(a, b, out=out_eager)
    assert first is out
    torch.testing.assert_close(out, out_eager, **FP32)
    torch.testing.assert_close(doubled, doubled_eager, **FP32)


class ReturnsNone(nn.Module):
    def __init__(self, shape: str) -> None:
        super().__init__()
        self.shape = shape
        self.fc = nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> Any:
        h = self.fc(x)
        if self.shape == "none":
            return None
        if self.shape == "tuple":
            return h, None, 3
        return {"out": h, "aux": None, "extra": (None, h.sum())}


@pytest.mark.parametrize("shape", ["none", "tuple", "dict"])
def test_forward_returning_none_keeps_eagers_structure(shape: str) -> None:
    torch.manual_seed(0)
    model = ReturnsNone(shape)
    x = torch.randn(4, 3)
    result = poptorch.inferenceModel(model)(x)
    with torch.no_grad():
        expected = model(x)
    if shape == "none":
        assert result is None
        return
    flat, spec = torch.utils._pytree.tree_flatten(result)
    flat_expected, spec_expected = torch.utils._pytree.tree_flatten(expected)
    assert spec == spec_expected
    for value, value_expected in zip(flat, flat_expected, strict=True):
        if isinstance(value_expected, torch.Tensor):
            torch.testing.assert_close(value, value_expected, **FP32)
        else:
            assert value == value_expected


# -- training ---------------------------------------------------------------------------


class TrainMutatesInput(nn.Module):
    """Scales its input in place, returns (output, None, loss)."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, None, torch.Tensor]:
        x.sub_(x.mean(0, keepdim=True))
        out = self.fc(x)
        return out, None, F.mse_loss(out, y)


class _OutputAndLoss(nn.Module):
    """(output, loss) of a TrainMutatesInput, the shape eager_accumulated_step takes."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out, _, loss = self.inner(x, y)
        return out, loss


def test_training_writes_back_a_mutated_input_and_returns_none_where_eager_does() -> None:
    torch.manual_seed(0)
    model = TrainMutatesInput()
    reference = copy.deepcopy(model)
    options = poptorch.Options().deviceIterations(2)
    wrapper = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1))
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    x, y = torch.randn(4, 4), torch.randn(4, 4)
    x_eager = x.clone()
    out, nothing, loss = wrapper(x, y)
    losses = []
    for rows in (slice(0, 2), slice(2, 4)):  # one optimizer step per device iteration
        optimizer.zero_grad()
        _, _, micro_loss = reference(x_eager[rows], y[rows])
        micro_loss.backward()
        optimizer.step()
        losses.append(micro_loss.detach())
    assert nothing is None
    torch.testing.assert_close(x, x_eager, **FP32)
    torch.testing.assert_close(loss, losses[-1], **FP32)  # training returns the last iteration's (Final)
    assert out.shape == (2, 4)
    assert_parameters_close(model, reference)


def test_training_with_gradient_accumulation_updates_every_micro_batch_slice() -> None:
    torch.manual_seed(0)
    model = TrainMutatesInput()
    reference = copy.deepcopy(model)
    options = poptorch.Options()
    options.Training.gradientAccumulation(2)
    wrapper = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1))
    x, y = torch.randn(4, 4), torch.randn(4, 4)
    x_eager = x.clone()
    wrapper(x, y)
    eager_accumulated_step(_OutputAndLoss(reference), torch.optim.SGD(reference.parameters(), lr=0.1), 2, x_eager, y)
    torch.testing.assert_close(x, x_eager, **FP32)
    assert_parameters_close(model, reference)


class CountsCalls(nn.Module):
    """A registered buffer updated in forward (kept on the device) and a plain tensor
    attribute updated in forward (a constant: the update does not persist)."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.register_buffer("total", torch.zeros(3))
        self.offset = torch.ones(3)
        self.unread = torch.zeros(64)  # never read: not uploaded

    def forward(self, x: torch.Tensor, y: torch.Tensor | None = None) -> Any:
        self.total.add_(x.sum(0))
        self.offset.mul_(2)
        out = self.fc(x) + self.total + self.offset
        return out if y is None else (out, F.mse_loss(out, y))


def _eager_with_constant_offset(reference: CountsCalls, *inputs: torch.Tensor) -> Any:
    """Eager with ``offset`` reset first: PopTorch compiles the plain attribute as a constant."""
    reference.offset = torch.ones(3)
    return reference(*inputs)


def test_inference_buffer_persists_and_plain_attribute_is_a_constant() -> None:
    torch.manual_seed(0)
    model = CountsCalls()
    reference = copy.deepcopy(model)
    wrapper = poptorch.inferenceModel(model, poptorch.Options().deviceIterations(2))
    for _ in range(2):
        x = torch.randn(4, 3)
        out = wrapper(x)
        with torch.no_grad():
            expected = torch.cat([_eager_with_constant_offset(reference, x[:2]), _eager_with_constant_offset(reference, x[2:])])
        torch.testing.assert_close(out, expected, **FP32)
    wrapper.copyWeightsToHost()
    torch.testing.assert_close(model.total, reference.total, **FP32)
    torch.testing.assert_close(model.offset, torch.ones(3), **EXACT)  # the host attribute is untouched
    assert "offset" in wrapper.getTensorNames() and "unread" not in wrapper.getTensorNames()


def test_training_buffer_persists_and_plain_attribute_is_a_constant() -> None:
    torch.manual_seed(0)
    model = CountsCalls()
    reference = copy.deepcopy(model)
    wrapper = poptorch.trainingModel(model, None, torch.optim.SGD(model.parameters(), lr=0.05))
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.05)
    for _ in range(2):
        x, y = torch.randn(2, 3), torch.randn(2, 3)
        out, loss = wrapper(x, y)
        optimizer.zero_grad()
        out_eager, loss_eager = _eager_with_constant_offset(reference, x, y)
        loss_eager.backward()
        optimizer.step()
        torch.testing.assert_close(loss, loss_eager.detach(), **FP32)
    assert_parameters_close(model, reference)
    torch.testing.assert_close(model.total, reference.total, **FP32)  # read back from the device
    torch.testing.assert_close(model.offset, torch.ones(3), **EXACT)
    assert "offset" in wrapper.getTensorNames() and "unread" not in wrapper.getTensorNames()


# -- idioms on locals -------------------------------------------------------------------


class LocalIdioms(nn.Module):
    def __init__(self, case: str) -> None:
        super().__init__()
        self.case = case

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:  # noqa: C901, PLR0911 - one case each
        z = x * 2
        if self.case == "setitem_row":
            z[1] = y[0]
        elif self.case == "setitem_column":
            z[:, 2] = y[:, 0]
        elif self.case == "setitem_tensor_index":
            z[torch.tensor([0, 2])] = y[1]
        elif self.case == "index_put_":
            z.index_put_((torch.tensor([0, 2]),), y[0])
        elif self.case == "index_put_accumulate":
            z.index_put_((torch.tensor([0, 0, 3]),), y[:3], accumulate=True)
        elif self.case == "copy_slice":
            z[1:3].copy_(y[:2])
        elif self.case == "masked_fill_slice":
            z[1:].masked_fill_(y[1:] > 0, 0.5)
        elif self.case == "add_slice":
            z[:, 1:].add_(1)
        elif self.case == "add_view":
            z.view(-1)[3:7].add_(y.view(-1)[:4])
        elif self.case == "new_empty_strided":
            z = x.new_empty_strided((4, 4), (4, 1))
            z.copy_(y)
        else:
            raise AssertionError(self.case)
        return z + 1


@pytest.mark.parametrize("case", [
    "setitem_row", "setitem_column", "setitem_tensor_index", "index_put_", "index_put_accumulate", "copy_slice",
    "masked_fill_slice", "add_slice", "add_view", "new_empty_strided",
])
def test_in_place_idioms_on_locals_match_eager(case: str) -> None:
    torch.manual_seed(0)
    x, y = torch.randn(4, 4), torch.randn(4, 4)
    out = poptorch.inferenceModel(LocalIdioms(case))(x, y)
    torch.testing.assert_close(out, LocalIdioms(case)(x, y), **FP32)


def test_indexed_assignment_trains_as_eager() -> None:
    class Scatter(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            h = self.fc(x)
            h[:, 0] = h[:, 1] * 3
            h[1:2, 2:].add_(x[:1, :2])
            return h, F.mse_loss(h, y)

    torch.manual_seed(0)
    model = Scatter()
    reference = copy.deepcopy(model)
    wrapper = poptorch.trainingModel(model, None, torch.optim.SGD(model.parameters(), lr=0.1))
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    for _ in range(2):
        x, y = torch.randn(3, 4), torch.randn(3, 4)
        _, loss = wrapper(x, y)
        optimizer.zero_grad()
        _, loss_eager = reference(x, y)
        loss_eager.backward()
        optimizer.step()
        torch.testing.assert_close(loss, loss_eager.detach(), **FP32)
    assert_parameters_close(model, reference)

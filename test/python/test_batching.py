"""SEMANTICS.md "Batching": host batch = B x N on the way in, the output-mode factor on
the way out, and the errors for bad inputs (first call) and for later calls that do not
match the compiled signature."""

from __future__ import annotations

import re

import pytest
import torch
import torch.nn as nn
from helpers import EXACT, FP32
from helpers.checks import eager_per_micro_batch

import poptorch
from poptorch import OutputMode


# ---------------------------------------------------------------------------------------
# The SEMANTICS example: Linear(6, 20), input [10, 1, 5, 6], D = 10
# ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def example() -> tuple[nn.Linear, torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    model = nn.Linear(6, 20)
    x = torch.randn(10, 1, 5, 6)
    # One micro-batch of shape [1, 5, 6] per iteration: eager output of micro-batch i.
    micro = torch.stack(eager_per_micro_batch(model, 1, x))  # [10, 1, 1, 5, 20]
    return model, x, micro


def _run_example(
    model: nn.Module, x: torch.Tensor, mode: OutputMode, period: int | None = None
) -> torch.Tensor:
    options = poptorch.Options().deviceIterations(10).outputMode(mode, period)
    return poptorch.inferenceModel(model, options)(x)


def test_example_all(example) -> None:
    model, x, micro = example
    out = _run_example(model, x, OutputMode.All)
    assert out.shape == (10, 1, 5, 20)
    torch.testing.assert_close(out, torch.cat(list(micro)), **FP32)


def test_example_default_is_all_for_inference(example) -> None:
    model, x, micro = example
    out = _run_example(model, x, OutputMode.Default)
    assert out.shape == (10, 1, 5, 20)
    torch.testing.assert_close(out, torch.cat(list(micro)), **FP32)


def test_example_every_n_takes_iterations_4_and_9(example) -> None:
    model, x, micro = example
    out = _run_example(model, x, OutputMode.EveryN, 5)
    assert out.shape == (2, 1, 5, 20)
    torch.testing.assert_close(out[0:1], micro[4], **FP32)
    torch.testing.assert_close(out[1:2], micro[9], **FP32)


def test_example_final_is_the_last_iteration(example) -> None:
    model, x, micro = example
    out = _run_example(model, x, OutputMode.Final)
    assert out.shape == (1, 1, 5, 20)
    torch.testing.assert_close(out, micro[9], **FP32)


def test_example_sum_adds_over_iterations_not_over_the_micro_batch(example) -> None:
    model, x, micro = example
    out = _run_example(model, x, OutputMode.Sum)
    assert out.shape == (1, 1, 5, 20)
    torch.testing.assert_close(out, micro.sum(0), **FP32)


# ---------------------------------------------------------------------------------------
# Scalar outputs become a vector of the factor's length when the factor is above 1
# ---------------------------------------------------------------------------------------
class ScalarOut(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(3, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x).sum()


@pytest.mark.parametrize(
    ("d", "mode", "period", "iterations"),
    [
        (1, OutputMode.All, None, None),  # factor 1: stays a scalar
        (4, OutputMode.All, None, [0, 1, 2, 3]),
        (4, OutputMode.EveryN, 2, [1, 3]),
        (4, OutputMode.Final, None, 3),
        (4, OutputMode.Sum, None, "sum"),
    ],
    ids=["D1-All", "D4-All", "D4-EveryN2", "D4-Final", "D4-Sum"],
)
def test_scalar_output(d: int, mode: OutputMode, period: int | None, iterations) -> None:
    torch.manual_seed(1)
    model = ScalarOut()
    x = torch.randn(2 * d, 3)
    out = poptorch.inferenceModel(
        model, poptorch.Options().deviceIterations(d).outputMode(mode, period)
    )(x)
    per_iteration = torch.stack(eager_per_micro_batch(model, 2, x))
    if iterations is None:
        assert out.shape == ()
        torch.testing.assert_close(out, per_iteration[0], **FP32)
    elif iterations == "sum":
        assert out.shape == ()
        torch.testing.assert_close(out, per_iteration.sum(), **FP32)
    elif isinstance(iterations, int):
        assert out.shape == ()
        torch.testing.assert_close(out, per_iteration[iterations], **FP32)
    else:
        assert out.shape == (len(iterations),)
        torch.testing.assert_close(out, per_iteration[iterations], **FP32)


class PassThroughAndArgmax(nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x, x.argmax(-1)


def test_input_passed_through_and_integer_output() -> None:
    torch.manual_seed(2)
    x = torch.randn(8, 3)
    out, index = poptorch.inferenceModel(
        PassThroughAndArgmax(), poptorch.Options().deviceIterations(4)
    )(x)
    torch.testing.assert_close(out, x, **EXACT)
    assert index.dtype == torch.int64
    torch.testing.assert_close(index, x.argmax(-1), **EXACT)


class Argmax(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.argmax(-1)


def test_sum_of_an_integer_output() -> None:
    torch.manual_seed(3)
    x = torch.randn(8, 3)
    out = poptorch.inferenceModel(
        Argmax(), poptorch.Options().deviceIterations(4).outputMode(OutputMode.Sum)
    )(x)
    assert out.dtype == torch.int64 and out.shape == (2,)
    torch.testing.assert_close(
        out, torch.stack([c.argmax(-1) for c in x.chunk(4)]).sum(0), **EXACT
    )


class ConstantOutput(nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x * 2.0, torch.ones(3)


def test_output_that_does_not_depend_on_the_inputs() -> None:
    x = torch.randn(8, 3)
    doubled, ones = poptorch.inferenceModel(
        ConstantOutput(), poptorch.Options().deviceIterations(4)
    )(x)
    torch.testing.assert_close(doubled, x * 2.0, **FP32)
    assert ones.shape == (12,)  # [3] gains the factor D = 4 on dim 0
    torch.testing.assert_close(ones, torch.ones(12), **FP32)


# ---------------------------------------------------------------------------------------
# First call: dim 0 must be a multiple of N = D x (R / I) x G
# ---------------------------------------------------------------------------------------
class TwoInputs(nn.Module):
    def forward(self, x: torch.Tensor, inputs: dict[str, torch.Tensor]) -> torch.Tensor:
        return x + inputs["a"] * inputs["b"]


def _factor_pattern(name: str, value: int) -> str:
    return rf"{name}\W*{value}\b"


@pytest.mark.parametrize(
    ("d", "r", "i", "batch", "n"),
    [(4, 1, 1, 10, 4), (3, 2, 1, 8, 6), (3, 4, 2, 7, 6)],
    ids=["D4", "D3-R2", "D3-R4-I2"],
)
def test_dim0_not_a_multiple_of_n(d: int, r: int, i: int, batch: int, n: int) -> None:
    options = poptorch.Options().deviceIterations(d).replicationFactor(r)
    if i > 1:
        options.inputReplicaGrouping(i)
    good = torch.randn(n * 2, 3)
    wrapper = poptorch.inferenceModel(TwoInputs(), options)
    with pytest.raises(ValueError) as info:
        wrapper(torch.randn(batch, 3), {"a": good, "b": good})
    message = str(info.value)
    assert "'x'" in message
    assert re.search(rf"\b{batch}\b", message)
    assert re.search(_factor_pattern("deviceIterations", d), message), message
    assert re.search(_factor_pattern("replicationFactor", r), message), message
    assert re.search(_factor_pattern("input group size", i), message), message
    assert re.search(_factor_pattern("gradientAccumulation", 1), message), message
    assert re.search(rf"=\s*{n}\b", message), message
    assert not wrapper.isCompiled()


def test_dim0_error_names_a_nested_input() -> None:
    wrapper = poptorch.inferenceModel(TwoInputs(), poptorch.Options().deviceIterations(4))
    good = torch.randn(8, 3)
    with pytest.raises(ValueError) as info:
        wrapper(good, {"a": good, "b": torch.randn(6, 3)})
    message = str(info.value)
    assert re.search(r"inputs\W+b\b", message), message
    assert re.search(r"\b6\b", message) and re.search(r"=\s*4\b", message), message


def test_zero_dim_input_counts_as_batch_1() -> None:
    class Scale(nn.Module):
        def forward(self, x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
            return x * s

    x = torch.randn(4, 3)
    s = torch.tensor(2.5)
    # D = 1: fine, and s is passed as it is.
    out = poptorch.inferenceModel(Scale())(x, s)
    torch.testing.assert_close(out, x * s, **FP32)
    # D = 2: batch 1 is not a multiple of 2.
    with pytest.raises(ValueError) as info:
        poptorch.inferenceModel(Scale(), poptorch.Options().deviceIterations(2))(x, s)
    message = str(info.value)
    assert "'s'" in message and re.search(r"\b1\b", message) and re.search(r"=\s*2\b", message), (
        message
    )


def test_replication_runs_the_whole_batch() -> None:
    """R = 2 replicas each run their share of the batch: no sample is lost
    (N = D x R micro-batches; test/python/replication has the rest)."""
    model = nn.Linear(3, 3)
    x = torch.randn(8, 3)
    out = poptorch.inferenceModel(model, poptorch.Options().deviceIterations(2).replicationFactor(2))(x)
    torch.testing.assert_close(out, model(x).detach(), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------------------
# Later calls must match the compiled inputs in number, shape and dtype
# ---------------------------------------------------------------------------------------
class Signature(nn.Module):
    def forward(self, x, inputs, scale, bias=None):  # noqa: ANN001, ANN201
        y = (x + inputs["a"] * inputs["b"]) * scale
        return y if bias is None else y + bias


@pytest.fixture(scope="module")
def compiled_signature():
    torch.manual_seed(5)
    args = (torch.randn(4, 3), {"a": torch.randn(4, 3), "b": torch.randn(4, 3)}, torch.tensor(1.5))
    kwargs = {"bias": torch.randn(4, 3)}
    wrapper = poptorch.inferenceModel(Signature())
    wrapper(*args, **kwargs)
    return wrapper, args, kwargs


def _error(wrapper, *args, **kwargs) -> str:  # noqa: ANN001
    with pytest.raises(ValueError) as info:
        wrapper(*args, **kwargs)
    return str(info.value)


def test_same_signature_runs(compiled_signature) -> None:
    wrapper, args, kwargs = compiled_signature
    out = wrapper(*args, **kwargs)
    torch.testing.assert_close(out, Signature()(*args, **kwargs), **FP32)


def test_fewer_inputs(compiled_signature) -> None:
    wrapper, args, _ = compiled_signature
    message = _error(wrapper, *args)  # bias left out
    assert "bias" in message
    assert re.search(r"\b5\b", message) and re.search(r"\b4\b", message), message


def test_more_inputs(compiled_signature) -> None:
    wrapper, args, kwargs = compiled_signature
    message = _error(wrapper, args[0], {**args[1], "c": torch.randn(4, 3)}, args[2], **kwargs)
    assert re.search(r"\b5\b", message) and re.search(r"\b6\b", message), message


def test_shape_change(compiled_signature) -> None:
    wrapper, args, kwargs = compiled_signature
    message = _error(wrapper, torch.randn(8, 3), *args[1:], **kwargs)
    assert "'x'" in message
    assert "[4, 3]" in message and "[8, 3]" in message, message


def test_shape_change_of_a_nested_input(compiled_signature) -> None:
    wrapper, args, kwargs = compiled_signature
    message = _error(
        wrapper, args[0], {"a": args[1]["a"], "b": torch.randn(4, 1)}, args[2], **kwargs
    )
    assert re.search(r"inputs\W+b\b", message), message
    assert "[4, 3]" in message and "[4, 1]" in message, message


def test_zero_dim_input_shape_change(compiled_signature) -> None:
    wrapper, args, kwargs = compiled_signature
    message = _error(wrapper, *args[:2], torch.tensor([1.5]), **kwargs)
    assert "'scale'" in message
    assert "[]" in message and "[1]" in message, message


def test_dtype_change(compiled_signature) -> None:
    wrapper, args, kwargs = compiled_signature
    message = _error(wrapper, *args, bias=kwargs["bias"].double())
    assert "'bias'" in message
    assert "float32" in message and "float64" in message, message


def test_tensor_replaced_by_a_non_tensor(compiled_signature) -> None:
    wrapper, args, _ = compiled_signature
    message = _error(wrapper, *args, bias=1.0)
    assert "'bias'" in message
    assert "tensor" in message and "1.0" in message, message


def test_signature_errors_leave_the_model_usable(compiled_signature) -> None:
    wrapper, args, kwargs = compiled_signature
    _error(wrapper, torch.randn(8, 3), *args[1:], **kwargs)
    torch.testing.assert_close(wrapper(*args, **kwargs), Signature()(*args, **kwargs), **FP32)


class KeywordPair(nn.Module):
    def forward(self, x, a=None, b=None):  # noqa: ANN001, ANN201
        y = x
        if a is not None:
            y = y + a
        if b is not None:
            y = y * b
        return y


def test_keyword_renamed_is_an_error() -> None:
    x, t = torch.randn(4, 3), torch.randn(4, 3)
    wrapper = poptorch.inferenceModel(KeywordPair())
    wrapper(x, a=t)
    message = _error(wrapper, x, b=t)
    assert "'b'" in message or "'a'" in message, message


class DictDiff(nn.Module):
    def forward(self, d):  # noqa: ANN001, ANN201
        return d["u"] - d["v"]


def test_dict_input_with_keys_in_another_order() -> None:
    torch.manual_seed(6)
    a, b = torch.randn(4, 3), torch.randn(4, 3)
    wrapper = poptorch.inferenceModel(DictDiff())
    torch.testing.assert_close(wrapper({"u": a, "v": b}), a - b, **FP32)
    # Either the values are matched by key, or the call is rejected naming the input.
    try:
        out = wrapper({"v": b, "u": a})
    except ValueError as error:
        assert "d" in str(error)
    else:
        torch.testing.assert_close(out, a - b, **FP32)


# ---------------------------------------------------------------------------------------
# Non-tensor arguments are compiled in: they cannot change between calls
# ---------------------------------------------------------------------------------------
class NonTensorArgs(nn.Module):
    def forward(self, x, factor, reduce="none"):  # noqa: ANN001, ANN201
        y = x * factor
        return y.sum(-1) if reduce == "sum" else y


def test_non_tensor_positional_argument_changed() -> None:
    x = torch.randn(4, 3)
    wrapper = poptorch.inferenceModel(NonTensorArgs())
    torch.testing.assert_close(wrapper(x, 2.0), x * 2.0, **FP32)
    torch.testing.assert_close(wrapper(x, 2.0), x * 2.0, **FP32)  # same value: fine
    message = _error(wrapper, x, 3.0)
    assert "'factor'" in message and "2.0" in message and "3.0" in message, message


def test_non_tensor_keyword_argument_changed() -> None:
    x = torch.randn(4, 3)
    wrapper = poptorch.inferenceModel(NonTensorArgs(), poptorch.Options().deviceIterations(2))
    torch.testing.assert_close(wrapper(x, 2, reduce="sum"), (x * 2).sum(-1), **FP32)
    message = _error(wrapper, x, 2, reduce="none")
    assert "'reduce'" in message and "'sum'" in message and "'none'" in message, message

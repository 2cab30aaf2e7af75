"""Precision options (issue 15, item 5): floating-point exceptions raise on the device and name the
op, setFloatingPointBehaviour chooses which, and halfFloatCasting gives PopTorch's documented
result dtype for ops mixing float16 and float32 inputs."""

from __future__ import annotations

import pytest
import torch
from helpers import FP32, poptorch_warnings
from torch import nn

import poptorch
from poptorch import HalfFloatCastingBehavior

pytestmark = pytest.mark.usefixtures("fresh_poptorch_logging")


class LogOfDifference(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.log(x * 2 - y)  # NaN where 2x < y: an invalid operation


class Ratio(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return x / y  # inf where y == 0: a division by zero


class Square(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * x  # inf for float16 beyond 256: an overflow


def _options(**behaviour: bool) -> poptorch.Options:
    options = poptorch.Options()
    if behaviour:
        options.Precision.setFloatingPointBehaviour(**behaviour)
    else:
        options.Precision.enableFloatingPointExceptions(True)
    return options


def test_without_exceptions_a_nan_goes_through_as_in_eager() -> None:
    x, y = torch.tensor([1.0, 2.0]), torch.tensor([1.0, 5.0])
    out = poptorch.inferenceModel(LogOfDifference())(x, y)
    torch.testing.assert_close(out, LogOfDifference()(x, y), equal_nan=True, **FP32)
    assert torch.isnan(out[1])


def test_a_nan_made_on_the_device_is_an_error_naming_the_op() -> None:
    x, y = torch.tensor([1.0, 2.0]), torch.tensor([1.0, 5.0])
    wrapper = poptorch.inferenceModel(LogOfDifference(), _options())
    with pytest.raises(RuntimeError, match=r"floating-point exception on the IPU: 'poplar\.popops_\w+' at "
                                           r".*test_precision\.py:\d+.* produced NaN \(an invalid operation\)"):
        wrapper(x, y)
    # Finite results pass, and equal eager's.
    good = torch.tensor([4.0, 6.0])
    torch.testing.assert_close(wrapper(good, y), LogOfDifference()(good, y), **FP32)


def test_division_by_zero_and_overflow_raise_only_when_asked() -> None:
    x, zero = torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0])
    with pytest.raises(RuntimeError, match=r"produced an infinity \(a division by zero\)"):
        poptorch.inferenceModel(Ratio(), _options(div0=True))(x, zero)
    out = poptorch.inferenceModel(Ratio(), _options(inv=True, oflo=True))(x, zero)  # div0 off: the inf goes through
    torch.testing.assert_close(out, Ratio()(x, zero), **FP32)
    big = torch.tensor([300.0, 2.0], dtype=torch.float16)
    with pytest.raises(RuntimeError, match=r"produced an infinity \(an overflow\)"):
        poptorch.inferenceModel(Square(), _options(oflo=True))(big)
    out = poptorch.inferenceModel(Square(), _options(inv=True, div0=True))(big)
    torch.testing.assert_close(out, Square()(big))


def test_a_nan_from_the_host_is_not_an_exception_of_the_device() -> None:
    x = torch.tensor([float("nan"), 2.0])
    out = poptorch.inferenceModel(Square(), _options())(x)
    torch.testing.assert_close(out, Square()(x), equal_nan=True, **FP32)


def test_exceptions_in_training_name_the_op() -> None:
    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.l = nn.Linear(2, 2)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return poptorch.identity_loss(torch.sqrt(self.l(x) - 100.0).sum(), "none")

    model = Model()
    wrapper = poptorch.trainingModel(model, _options(), optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    with pytest.raises(RuntimeError, match="floating-point exception on the IPU"):
        wrapper(torch.ones(4, 2))


def test_behaviour_flags_without_an_emulation_warn(caplog: pytest.LogCaptureFixture) -> None:
    options = poptorch.Options()
    options.Precision.setFloatingPointBehaviour(inv=True, esr=True, nanoo=True)
    warnings = poptorch_warnings(caplog)
    assert any("enableStochasticRounding" in w for w in warnings), warnings
    assert any("setFloatingPointBehaviour" in w and "nanoo" in w for w in warnings), warnings
    assert options.Precision.floating_point_traps == ("invalid",)
    assert options.Precision.stochastic_rounding
    options.Precision.enableFloatingPointExceptions(False)
    assert not options.Precision.floating_point_exceptions
    with pytest.raises(TypeError, match="div0"):
        options.Precision.setFloatingPointBehaviour(div0=1)


class MixedLinear(nn.Module):
    """float32 weights and buffer, used with whatever input comes."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.l = nn.Linear(4, 3)
        self.register_buffer("shift", torch.randn(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.l(x) + self.shift


def test_float32_weights_with_float16_inputs_run_in_float16_by_default() -> None:
    """The user guide: the parameters are converted to float 16 when an op has a float 16 input."""
    model = MixedLinear()
    x = torch.randn(2, 4).half()
    out = poptorch.inferenceModel(model)(x)
    assert out.dtype == torch.float16
    expected = nn.functional.linear(x, model.l.weight.half(), model.l.bias.half()) + model.shift.half()
    torch.testing.assert_close(out, expected, rtol=0, atol=0)
    assert model.l.weight.dtype == torch.float32  # the weights stay float32 on the host


@pytest.mark.parametrize("where", ["Precision", "GraphProcessing"])
@pytest.mark.parametrize("behaviour", [HalfFloatCastingBehavior.Default, HalfFloatCastingBehavior.FloatDowncastToHalf,
                                       HalfFloatCastingBehavior.HalfUpcastToFloat])
def test_half_float_casting_gives_the_documented_result_dtype(where: str, behaviour: HalfFloatCastingBehavior) -> None:
    class Add(nn.Module):
        def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return a * 3 + b

    torch.manual_seed(1)
    a, b = torch.randn(5).half(), torch.randn(5)
    options = poptorch.Options()
    getattr(options, where).halfFloatCasting(behaviour)
    assert options.Precision.half_float_casting is behaviour is options.GraphProcessing.half_float_casting
    out = poptorch.inferenceModel(Add(), options)(a, b)
    if behaviour is HalfFloatCastingBehavior.HalfUpcastToFloat:  # PyTorch's promotion
        assert out.dtype == torch.float32
        torch.testing.assert_close(out, a * 3 + b, **FP32)
    else:  # PopTorch's: every input cast to float16
        assert out.dtype == torch.float16
        torch.testing.assert_close(out, a * 3 + b.half(), rtol=0, atol=0)


def test_upcasting_runs_a_float16_input_through_float32_weights() -> None:
    model = MixedLinear()
    x = torch.randn(2, 4).half()
    options = poptorch.Options()
    options.GraphProcessing.halfFloatCasting(HalfFloatCastingBehavior.HalfUpcastToFloat)
    out = poptorch.inferenceModel(model, options)(x)
    assert out.dtype == torch.float32
    torch.testing.assert_close(out, model(x.float()), **FP32)


def test_eager_runs_of_the_model_are_not_cast() -> None:
    model = MixedLinear()
    poptorch.inferenceModel(model)(torch.randn(2, 4).half())
    with pytest.raises(RuntimeError):  # eager PyTorch refuses the mix, as before
        model(torch.randn(2, 4).half())


def test_training_float32_weights_on_float16_inputs_updates_the_float32_weights() -> None:
    """The user guide's second way: the weights stay float32 and are updated in float32; each op
    that meets a float16 input uses them as float16."""

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.l = nn.Linear(4, 3)

        def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
            return poptorch.identity_loss(((self.l(x) - t) ** 2).mean(), "none")

    torch.manual_seed(2)
    model, reference = Model(), Model()
    reference.load_state_dict(model.state_dict())
    x, t = torch.randn(8, 4).half(), torch.randn(8, 3).half()
    wrapper = poptorch.trainingModel(model, optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    loss = wrapper(x, t)
    wrapper.copyWeightsToHost()
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    eager_loss = ((nn.functional.linear(x, reference.l.weight.half(), reference.l.bias.half()) - t) ** 2).mean()
    eager_loss.backward()
    optimizer.step()
    assert loss.dtype == torch.float16
    torch.testing.assert_close(loss, eager_loss.detach(), rtol=0, atol=0)
    assert model.l.weight.dtype == torch.float32
    torch.testing.assert_close(model.l.weight, reference.l.weight, rtol=0, atol=0)
    torch.testing.assert_close(model.l.bias, reference.l.bias, rtol=0, atol=0)

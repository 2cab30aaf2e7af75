"""poptorch.inferenceModel end to end: model families x device iterations x output modes
match eager PyTorch, the PoplarExecutor API surface, and the host-side ops
(SEMANTICS.md "Batching", "Wrapping and weights", "Host-side utilities").

Compiling costs ~0.3-1.5 s per model, so every (family, deviceIterations, output mode)
combination is compiled once (``_compiled``) and shared by the value and shape tests.
The MLP runs the full grid (D in {1, 4} x every output mode); every other family runs one
mode at D = 1 and one at D = 4, rotated so that each mode is exercised by several
families at D > 1.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils._pytree as pytree
from helpers import FP16_FORWARD, FP32
from helpers.checks import eager_per_micro_batch

import poptorch
from poptorch import OutputMode, _logging

MICRO_BATCH = 2  # B: the batch one replica sees in one step


# ---------------------------------------------------------------------------------------
# Model families
# ---------------------------------------------------------------------------------------
class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l1 = nn.Linear(8, 16)
        self.l2 = nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.l2(F.relu(self.l1(x)))


def _randomise_batchnorm(model: nn.Module) -> None:
    """Non-trivial running statistics and affine parameters, so eval-mode BN does something."""
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.5, 0.5)


class CNNWithBatchNorm(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 3)
        _randomise_batchnorm(self)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.bn(self.conv(x)))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


class ResNetBasicBlock(nn.Module):
    def __init__(self, channels: int = 4) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        _randomise_batchnorm(self)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + x)


class DepthwiseSeparable(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.depthwise = nn.Conv2d(4, 4, 3, padding=1, groups=4)
        self.pointwise = nn.Conv2d(4, 6, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pointwise(F.relu(self.depthwise(x)))


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        layer = nn.TransformerEncoderLayer(
            d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.encoder(x)


class EmbeddingClassifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embedding = nn.Embedding(20, 8)
        self.classifier = nn.Linear(8, 3)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.embedding(ids).mean(1))


class DictTupleModel(nn.Module):
    """Dict and tuple inputs; a dict output holding a tuple."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(4, 3)
        self.b = nn.Linear(5, 3)

    def forward(
        self, inputs: dict[str, torch.Tensor], pair: tuple[torch.Tensor, torch.Tensor]
    ) -> dict[str, Any]:
        ya = self.a(inputs["a"])
        yb = self.b(inputs["b"])
        return {"sum": ya + yb + pair[0], "prod": (ya * pair[1], yb)}


class HalfMLP(MLP):
    pass


class PrintModel(nn.Module):
    """Uses ipu_print_tensor and branches on isRunningOnIpu (the IPU branch doubles)."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 4)
        self.trace_flags: list[bool] = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.trace_flags.append(poptorch.isRunningOnIpu())
        hidden = poptorch.ipu_print_tensor(self.linear(x), "hidden")
        if poptorch.isRunningOnIpu():
            return hidden * 2.0
        return hidden

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        """What the IPU branch computes, in eager PyTorch."""
        return self.linear(x) * 2.0


class KwargsModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(
        self, x: torch.Tensor, bias: torch.Tensor | None = None, gate: torch.Tensor | None = None
    ) -> torch.Tensor:
        y = self.linear(x)
        if bias is not None:
            y = y + bias
        if gate is not None:
            y = y * torch.sigmoid(gate)
        return y


@dataclasses.dataclass
class Family:
    name: str
    build: Callable[[], nn.Module]
    # host batch size -> (args, kwargs)
    inputs: Callable[[int], tuple[tuple, dict]]
    tolerance: dict = dataclasses.field(default_factory=lambda: dict(FP32))

    def reference(self, model: nn.Module, args: tuple, kwargs: dict) -> Any:
        with torch.no_grad():
            if hasattr(model, "reference"):
                return model.reference(*args, **kwargs)
            return model(*args, **kwargs)


def _half_mlp() -> nn.Module:
    return HalfMLP().half()


FAMILIES = {
    f.name: f
    for f in [
        Family("mlp", MLP, lambda n: ((torch.randn(n, 8),), {})),
        Family("cnn_batchnorm", CNNWithBatchNorm, lambda n: ((torch.randn(n, 3, 6, 6),), {})),
        Family("resnet_basic_block", ResNetBasicBlock, lambda n: ((torch.randn(n, 4, 5, 5),), {})),
        Family("depthwise_conv", DepthwiseSeparable, lambda n: ((torch.randn(n, 4, 5, 5),), {})),
        Family("transformer_encoder", Encoder, lambda n: ((torch.randn(n, 3, 8),), {})),
        Family(
            "embedding_classifier",
            EmbeddingClassifier,
            lambda n: ((torch.randint(0, 20, (n, 5)),), {}),
        ),
        Family(
            "dict_tuple_io",
            DictTupleModel,
            lambda n: (
                (
                    {"a": torch.randn(n, 4), "b": torch.randn(n, 5)},
                    (torch.randn(n, 3), torch.randn(n, 3)),
                ),
                {},
            ),
        ),
        Family(
            "half_precision", _half_mlp, lambda n: ((torch.randn(n, 8).half(),), {}), dict(FP16_FORWARD)
        ),
        Family("print_and_is_running_on_ipu", PrintModel, lambda n: ((torch.randn(n, 4),), {})),
        Family(
            "kwargs",
            KwargsModel,
            lambda n: (
                (torch.randn(n, 4),),
                {"gate": torch.randn(n, 4), "bias": torch.randn(n, 4)},
            ),
        ),
    ]
}

MODES = [
    (OutputMode.All, None),
    (OutputMode.EveryN, 2),
    (OutputMode.Final, None),
    (OutputMode.Sum, None),
    (OutputMode.Default, None),
]
D_MANY = 4


def _configs() -> list[tuple[str, int, OutputMode, int | None]]:
    configs = []
    for index, name in enumerate(FAMILIES):
        if name == "mlp":  # the reference family: the full grid
            for d in (1, D_MANY):
                for mode, period in MODES:
                    configs.append((name, d, mode, (1 if d == 1 else period) if period else None))
            continue
        mode, period = MODES[index % len(MODES)]
        configs.append((name, 1, mode, 1 if period else None))
        mode, period = MODES[(index + 2) % len(MODES)]
        configs.append((name, D_MANY, mode, period))
    return configs


CONFIGS = _configs()


def _config_id(config: tuple) -> str:
    name, d, mode, period = config
    return f"{name}-D{d}-{mode.name}{period or ''}"


@dataclasses.dataclass
class Compiled:
    family: Family
    model: nn.Module
    wrapper: poptorch.PoplarExecutor
    args: tuple
    kwargs: dict
    device_iterations: int
    mode: OutputMode
    period: int | None
    first_output: Any


_CACHE: dict[tuple, Compiled] = {}


def _compiled(config: tuple) -> Compiled:
    """One compiled wrapper per (family, D, mode), built on first use and shared."""
    if config not in _CACHE:
        name, d, mode, period = config
        family = FAMILIES[name]
        torch.manual_seed(sum(map(ord, name)))
        model = family.build().eval()
        args, kwargs = family.inputs(MICRO_BATCH * d)
        options = poptorch.Options().deviceIterations(d).outputMode(mode, period)
        wrapper = poptorch.inferenceModel(model, options)
        first = wrapper(*args, **kwargs)
        _CACHE[config] = Compiled(family, model, wrapper, args, kwargs, d, mode, period, first)
    return _CACHE[config]


def _micro_batches(entry: Compiled) -> list[tuple[tuple, dict]]:
    d = entry.device_iterations
    return [
        pytree.tree_map(lambda t, i=i: t.chunk(d)[i], (entry.args, entry.kwargs)) for i in range(d)
    ]


def _expected(entry: Compiled) -> Any:
    """The eager outputs of every micro-batch, combined as the output mode says."""
    eager = [entry.family.reference(entry.model, a, k) for a, k in _micro_batches(entry)]
    flat = [pytree.tree_flatten(e)[0] for e in eager]
    spec = pytree.tree_flatten(eager[0])[1]
    mode = entry.mode
    d = entry.device_iterations

    def combine(per_iteration: list[torch.Tensor]) -> torch.Tensor:
        if mode in (OutputMode.All, OutputMode.Default):
            return torch.cat(per_iteration)
        if mode is OutputMode.EveryN:
            return torch.cat([per_iteration[i] for i in range(entry.period - 1, d, entry.period)])
        if mode is OutputMode.Final:
            return per_iteration[-1]
        assert mode is OutputMode.Sum
        return torch.stack(per_iteration).sum(0)

    return pytree.tree_unflatten([combine([f[j] for f in flat]) for j in range(len(flat[0]))], spec)


def _factor(entry: Compiled) -> int:
    """SEMANTICS "Outputs" table, R = G = 1."""
    mode, d = entry.mode, entry.device_iterations
    if mode in (OutputMode.All, OutputMode.Default):  # Default is All for inference
        return d
    if mode is OutputMode.EveryN:
        return d // entry.period
    return 1  # Final, Sum


def test_config_grid_covers_every_mode_at_both_device_iteration_counts() -> None:
    covered = {(d, mode) for _, d, mode, _ in CONFIGS}
    assert covered == {(d, mode) for d in (1, D_MANY) for mode, _ in MODES}
    assert {name for name, *_ in CONFIGS} == set(FAMILIES)
    assert len(FAMILIES) >= 10


@pytest.mark.parametrize("config", CONFIGS, ids=_config_id)
def test_matches_eager(config: tuple) -> None:
    entry = _compiled(config)
    expected = _expected(entry)
    torch.testing.assert_close(entry.first_output, expected, **entry.family.tolerance)
    # A second call runs the compiled program again with the same result.
    again = entry.wrapper(*entry.args, **entry.kwargs)
    torch.testing.assert_close(again, expected, **entry.family.tolerance)


@pytest.mark.parametrize("config", CONFIGS, ids=_config_id)
def test_output_shapes_follow_the_output_mode_table(config: tuple) -> None:
    entry = _compiled(config)
    micro_args, micro_kwargs = _micro_batches(entry)[0]
    micro_out = entry.family.reference(entry.model, micro_args, micro_kwargs)
    factor = _factor(entry)
    actual_leaves, actual_spec = pytree.tree_flatten(entry.first_output)
    micro_leaves, micro_spec = pytree.tree_flatten(micro_out)
    assert actual_spec == micro_spec  # same dict / tuple structure as eager
    for actual, micro in zip(actual_leaves, micro_leaves, strict=True):
        assert micro.shape[0] == MICRO_BATCH
        assert tuple(actual.shape) == (micro.shape[0] * factor, *micro.shape[1:])
        assert actual.dtype == micro.dtype


# ---------------------------------------------------------------------------------------
# isRunningOnIpu, ipuHardwareIsAvailable, ipu_print_tensor
# ---------------------------------------------------------------------------------------
def _print_config(d: int) -> tuple:
    return next(c for c in CONFIGS if c[0] == "print_and_is_running_on_ipu" and c[1] == d)


def test_is_running_on_ipu_true_inside_the_compiled_model_and_false_in_eager() -> None:
    assert poptorch.isRunningOnIpu() is False
    entry = _compiled(_print_config(D_MANY))
    assert entry.model.trace_flags[0] is True  # the forward seen by the compiler
    x = entry.args[0]
    with torch.no_grad():
        eager = entry.model(x)
    assert entry.model.trace_flags[-1] is False
    # The compiled program took the IPU branch (doubling); eager did not.
    torch.testing.assert_close(eager, entry.model.linear(x).detach(), **FP32)
    assert not torch.allclose(eager, entry.model.reference(x).detach())


def test_ipu_hardware_is_not_available() -> None:
    assert poptorch.ipuHardwareIsAvailable() is False
    assert poptorch.ipuHardwareIsAvailable(4) is False


_FLOAT = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def test_ipu_print_tensor_prints_title_and_values_when_executed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    entry = _compiled(_print_config(1))
    capsys.readouterr()
    entry.wrapper(*entry.args)
    out = capsys.readouterr().out
    assert out.startswith("hidden: ")
    assert out.count("hidden:") == 1
    with torch.no_grad():
        hidden = entry.model.linear(entry.args[0])
    printed = torch.tensor([float(v) for v in _FLOAT.findall(out.split("hidden:", 1)[1])])
    torch.testing.assert_close(printed, hidden.flatten(), **FP32)


def test_ipu_print_tensor_prints_once_per_device_iteration(
    capsys: pytest.CaptureFixture[str],
) -> None:
    entry = _compiled(_print_config(D_MANY))
    capsys.readouterr()
    entry.wrapper(*entry.args)
    assert capsys.readouterr().out.count("hidden: ") == D_MANY


def test_ipu_print_tensor_is_silent_in_eager(capsys: pytest.CaptureFixture[str]) -> None:
    x = torch.randn(2, 3)
    capsys.readouterr()
    assert poptorch.ipu_print_tensor(x, "eager") is x
    assert "eager" not in capsys.readouterr().out
    with pytest.raises(TypeError, match="title"):
        poptorch.ipu_print_tensor(x, 3)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------
# nop, identity_loss, set_available_memory
# ---------------------------------------------------------------------------------------
class LossesAndNop(nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return (
            poptorch.identity_loss(x, "sum"),
            poptorch.identity_loss(x, "mean"),
            poptorch.identity_loss(x, "none"),
            poptorch.nop(x * 2.0),
        )


def test_identity_loss_reductions_in_eager() -> None:
    x = torch.randn(3, 4)
    torch.testing.assert_close(poptorch.identity_loss(x, "sum"), x.sum(), **FP32)
    torch.testing.assert_close(poptorch.identity_loss(x, "mean"), x.mean(), **FP32)
    torch.testing.assert_close(poptorch.identity_loss(x, "none"), x, **FP32)
    with pytest.raises(ValueError, match="reduction"):
        poptorch.identity_loss(x, "max")
    assert poptorch.nop(x) is x


@pytest.mark.parametrize("d", [1, D_MANY])
def test_identity_loss_and_nop_compiled(d: int) -> None:
    torch.manual_seed(1)
    x = torch.randn(MICRO_BATCH * d, 3)
    out = poptorch.inferenceModel(LossesAndNop(), poptorch.Options().deviceIterations(d))(x)
    chunks = x.chunk(d)
    # A scalar loss per iteration: [] for D = 1, a vector of D values for D > 1.
    expected_sum = torch.stack([c.sum() for c in chunks]) if d > 1 else x.sum()
    expected_mean = torch.stack([c.mean() for c in chunks]) if d > 1 else x.mean()
    torch.testing.assert_close(out[0], expected_sum, **FP32)
    torch.testing.assert_close(out[1], expected_mean, **FP32)
    torch.testing.assert_close(out[2], x, **FP32)
    torch.testing.assert_close(out[3], x * 2.0, **FP32)


class AvailableMemory(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l1 = nn.Linear(3, 3)
        self.l2 = nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = poptorch.set_available_memory(self.l1(x), 0.5)
        return poptorch.set_available_memory(self.l2(h), 0.3)


def test_set_available_memory_is_recorded_on_the_matmuls(caplog: pytest.LogCaptureFixture) -> None:
    """No warning: the proportion goes on the matmul it limits (api/test_planning_hints.py shows its effect)."""
    torch.manual_seed(2)
    model = AvailableMemory()
    x = torch.randn(4, 3)
    _logging.reset_warn_once()
    with caplog.at_level(logging.WARNING, logger="poptorch"):
        with torch.no_grad():
            eager = model(x)  # eager: an identity
        wrapper = poptorch.inferenceModel(model)
        out = wrapper(x)
        out_again = wrapper(x)
    assert not [r.getMessage() for r in caplog.records if r.name == "poptorch" and r.levelno >= logging.WARNING]
    torch.testing.assert_close(out, eager, **FP32)
    torch.testing.assert_close(out_again, eager, **FP32)
    linears = [line for line in wrapper._compiled.ir_text().splitlines() if '"poplar.poplin_linear"' in line]
    assert ["poplar.available_memory = 5.000000e-01" in line for line in linears] == [True, False]
    assert ["poplar.available_memory = 3.000000e-01" in line for line in linears] == [False, True]
    with pytest.raises(ValueError, match="proportion"):
        poptorch.set_available_memory(x, 1.5)


# ---------------------------------------------------------------------------------------
# The PoplarExecutor API surface
# ---------------------------------------------------------------------------------------
def _mlp_and_input(d: int = 1) -> tuple[MLP, torch.Tensor]:
    torch.manual_seed(3)
    return MLP().eval(), torch.randn(MICRO_BATCH * d, 8)


def _eager(model: nn.Module, *args: Any) -> Any:
    with torch.no_grad():
        return model(*args)


def test_compile_is_compiled_and_tensor_names() -> None:
    model, x = _mlp_and_input()
    wrapper = poptorch.inferenceModel(model)
    assert not wrapper.isCompiled()
    with pytest.raises(RuntimeError, match="compile"):
        wrapper.getTensorNames()
    wrapper.compile(x)
    assert wrapper.isCompiled()
    names = wrapper.getTensorNames()
    assert {"l1.weight", "l1.bias", "l2.weight", "l2.bias"} <= set(names)
    torch.testing.assert_close(wrapper(x), _eager(model, x), **FP32)


def test_model_and_options_properties() -> None:
    model, _ = _mlp_and_input()
    options = poptorch.Options().deviceIterations(4).outputMode(OutputMode.Sum)
    wrapper = poptorch.inferenceModel(model, options)
    # A shallow copy: parameters shared with the user's model.
    assert wrapper.model is not model
    assert wrapper.model.l1.weight is model.l1.weight
    assert isinstance(wrapper.options, poptorch.Options)
    assert wrapper.options.device_iterations == 4
    assert wrapper.options.output_mode is OutputMode.Sum
    assert wrapper.l1 is model.l1  # unknown attributes come from the model


def test_wrapping_a_wrapper_is_an_error_that_mentions_destroy() -> None:
    model, _ = _mlp_and_input()
    wrapper = poptorch.inferenceModel(model)
    with pytest.raises(TypeError, match=r"destroy\(\)"):
        poptorch.inferenceModel(wrapper)


def test_destroy_then_call_raises() -> None:
    model, x = _mlp_and_input()
    wrapper = poptorch.inferenceModel(model)
    wrapper(x)
    wrapper.destroy()
    assert not wrapper.isCompiled()
    assert not wrapper.isAttachedToDevice()
    with pytest.raises(RuntimeError, match="destroy"):
        wrapper(x)
    with pytest.raises(RuntimeError, match="destroy"):
        wrapper.compile(x)


def test_copy_weights_to_device_and_attach_detach() -> None:
    model, x = _mlp_and_input()
    wrapper = poptorch.inferenceModel(model)
    before = wrapper(x)
    torch.testing.assert_close(before, _eager(model, x), **FP32)

    # Changing the host weights does not change the device copy...
    with torch.no_grad():
        model.l2.weight.mul_(-2.0)
        model.l2.bias.add_(1.0)
    new_eager = _eager(model, x)
    assert not torch.allclose(new_eager, before)
    torch.testing.assert_close(wrapper(x), before, **FP32)
    # ... until copyWeightsToDevice.
    wrapper.copyWeightsToDevice()
    torch.testing.assert_close(wrapper(x), new_eager, **FP32)

    # Attach / detach.
    assert wrapper.isAttachedToDevice()
    with pytest.raises(RuntimeError, match="already attached"):
        wrapper.attachToDevice()
    wrapper.detachFromDevice()
    assert not wrapper.isAttachedToDevice()
    with pytest.raises(RuntimeError, match="not attached"):
        wrapper.detachFromDevice()
    wrapper.attachToDevice()
    assert wrapper.isAttachedToDevice()
    torch.testing.assert_close(wrapper(x), new_eager, **FP32)
    # A call after detaching attaches again by itself.
    wrapper.detachFromDevice()
    torch.testing.assert_close(wrapper(x), new_eager, **FP32)
    assert wrapper.isAttachedToDevice()


def test_attach_before_compile_is_an_error() -> None:
    model, _ = _mlp_and_input()
    wrapper = poptorch.inferenceModel(model)
    with pytest.raises(RuntimeError, match="compile"):
        wrapper.attachToDevice()


# ---------------------------------------------------------------------------------------
# Unsupported ops: every offender, with the user's file:line
# ---------------------------------------------------------------------------------------
@torch.library.custom_op("ipu_test::unlowered_scan", mutates_args=())
def unlowered_scan(x: torch.Tensor, dim: int) -> torch.Tensor:
    """A user's own op that nothing lowers (every ATen op may gain a lowering one day)."""
    return torch.cumsum(x, dim)


@unlowered_scan.register_fake
def _(x: torch.Tensor, dim: int) -> torch.Tensor:
    return torch.empty_like(x)


class TwoIndependentScans(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = unlowered_scan(x, 0)  # independent-unsupported-op-1
        b = unlowered_scan(x, 1)  # independent-unsupported-op-2
        return a + b


class ChainedScans(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = unlowered_scan(x, 0)  # chained-unsupported-op-1
        b = unlowered_scan(a, 1)  # chained-unsupported-op-2
        return a + b


def _line_of(marker: str) -> int:
    lines = Path(__file__).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.rstrip().endswith(f"# {marker}"))


def _assert_every_offender_listed(model: nn.Module, markers: tuple[str, ...]) -> None:
    wrapper = poptorch.inferenceModel(model)
    with pytest.raises(RuntimeError) as info:
        wrapper(torch.randn(4, 3))
    message = str(info.value)
    this_file = str(Path(__file__).resolve())
    for marker in markers:
        assert f"{this_file}:{_line_of(marker)}:" in message, message
    assert message.count("'torch.ipu_test.unlowered_scan' has no lowering") >= len(markers), message
    assert not wrapper.isCompiled()


def test_unsupported_op_lists_every_offender_with_user_location() -> None:
    _assert_every_offender_listed(
        TwoIndependentScans(), ("independent-unsupported-op-1", "independent-unsupported-op-2")
    )


def test_unsupported_op_fed_by_another_unsupported_op_is_listed_too() -> None:
    _assert_every_offender_listed(
        ChainedScans(), ("chained-unsupported-op-1", "chained-unsupported-op-2")
    )


def test_buffer_updated_in_forward_stays_on_the_device_and_matches_eager() -> None:
    class Running(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = torch.nn.Linear(8, 8)
            self.register_buffer("acc", torch.zeros(8))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = self.a(x)
            self.acc += h.sum(0)
            return h + self.acc

    torch.manual_seed(0)
    model = Running().eval()
    reference = copy.deepcopy(model)
    wrapper = poptorch.inferenceModel(model, poptorch.Options().deviceIterations(4))
    x = torch.randn(16, 8)
    for _ in range(2):  # the buffer carries over between micro-batches and calls
        out = wrapper(x)
        expected = torch.cat(eager_per_micro_batch(reference, 4, x))
        torch.testing.assert_close(out, expected, **FP32)
    wrapper.copyWeightsToHost()
    torch.testing.assert_close(model.acc, reference.acc, **FP32)

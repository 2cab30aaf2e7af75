"""Planning hints with an effect in the IR (issue 15, items 2 and 5): set_available_memory,
Options.setAvailableMemoryProportion, Precision.setPartialsType, set_overlap_for_input /
set_overlap_for_output and TensorLocations.numIOTiles become attributes that the memory plan and
the cost model read; results are those of eager PyTorch."""

from __future__ import annotations

import re

import pytest
import torch
from helpers import FP32
from torch import nn

import poptorch

SMALL = "ipu-model-small"  # 4 tiles of 624 KiB: small enough for a matmul's partials to matter


def _lines(wrapper: poptorch.PoplarExecutor, op: str) -> list[str]:
    return [line for line in wrapper._compiled.ir_text().splitlines() if f'"{op}"' in line]


def _cycles(line: str) -> int:
    return int(re.search(r"poplar\.cycles = (\d+)", line).group(1))


class BasicNetwork(nn.Module):
    """The set_available_memory docstring example of the reference."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, stride=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.conv(x)
        out = poptorch.set_available_memory(out, 0.2)
        return out


def test_set_available_memory_reference_example() -> None:
    torch.manual_seed(0)
    model = BasicNetwork()
    x = torch.randn(2, 4, 9, 9)
    wrapper = poptorch.inferenceModel(model)
    torch.testing.assert_close(wrapper(x), model(x), **FP32)
    (conv,) = _lines(wrapper, "poplar.poplin_conv")
    assert "poplar.available_memory = 2.000000e-01 : f64" in conv


class Wide(nn.Module):
    def __init__(self, proportion: float | None = None) -> None:
        super().__init__()
        self.proportion = proportion
        self.l1 = nn.Linear(256, 256)
        self.l2 = nn.Linear(256, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.l1(x)
        if self.proportion is not None:
            h = poptorch.set_available_memory(h, self.proportion)
        return self.l2(torch.relu(h))


def _compile(model: nn.Module, x: torch.Tensor, options: poptorch.Options | None = None) -> poptorch.PoplarExecutor:
    options = options or poptorch.Options()
    options.setIpuTarget(SMALL)
    wrapper = poptorch.inferenceModel(model, options)
    with torch.no_grad():
        torch.testing.assert_close(wrapper(x), model(x), **FP32)
    return wrapper


def _planned(wrapper: poptorch.PoplarExecutor) -> list[str]:
    """The matmuls of the program (a linear layer's is a poplin_linear after poplar-fuse-linear)."""
    return _lines(wrapper, "poplar.poplin_linear") + _lines(wrapper, "poplar.poplin_matmul")


def test_a_small_available_memory_splits_the_matmul_into_more_compute_sets() -> None:
    """The [64, 256] result's float partials (64 KiB) fit in 0.6 of the small IPU's memory in one
    pass, but need several with 1% (25 KiB): the cost model adds a compute set per extra pass."""
    torch.manual_seed(1)
    x = torch.randn(64, 256)
    model = Wide()
    hinted = Wide(0.01)
    hinted.load_state_dict(model.state_dict())
    default, limited = _compile(model, x), _compile(hinted, x)
    first_default, first_limited = _planned(default)[0], _planned(limited)[0]
    assert "poplar.available_memory" not in first_default
    assert "poplar.available_memory = 1.000000e-02 : f64" in first_limited
    assert _cycles(first_limited) > _cycles(first_default)
    assert _cycles(_planned(limited)[1]) == _cycles(_planned(default)[1])  # the other matmul is unchanged


def test_available_memory_proportion_option_applies_to_every_matmul_of_the_ipu() -> None:
    torch.manual_seed(2)
    x = torch.randn(64, 256)
    model = Wide()
    default = _compile(model, x)
    limited = _compile(model, x, poptorch.Options().setAvailableMemoryProportion({"IPU0": 0.01}))
    ops = _planned(limited)
    assert len(ops) == 2 and all("poplar.available_memory = 1.000000e-02 : f64" in op for op in ops)
    assert _cycles(ops[0]) > _cycles(_planned(default)[0])


def test_partials_type_is_recorded_and_half_partials_need_less_memory() -> None:
    """float16 operands: float partials (PopLibs' default) are twice as wide as the result and
    need memory beside it; half partials accumulate in the result."""
    torch.manual_seed(3)
    model = nn.Linear(256, 256, bias=False).half()  # the matmul is the peak of the temporaries
    x = torch.randn(64, 256).half()
    usage = {}
    for dtype in (torch.float, torch.half):
        options = poptorch.Options()
        options.Precision.setPartialsType(dtype)
        wrapper = poptorch.inferenceModel(model, options)
        torch.testing.assert_close(wrapper(x), model(x), rtol=1e-3, atol=1e-3)
        ops = _lines(wrapper, "poplar.poplin_linear") + _lines(wrapper, "poplar.poplin_matmul")
        spelled = "float" if dtype == torch.float else "half"
        assert ops and all(f'poplar.partials_type = "{spelled}"' in op for op in ops)
        usage[spelled] = wrapper._compiled.memory_per_ipu()[0]["temporaries"]
    assert usage["half"] < usage["float"]
    assert usage["float"] - usage["half"] >= 64 * 256 * 2  # the float partials beside the f16 result


def test_partials_type_is_recorded_on_convolutions() -> None:
    torch.manual_seed(3)
    model = BasicNetwork()
    x = torch.randn(2, 4, 9, 9)
    options = poptorch.Options()
    options.Precision.setPartialsType(torch.half)
    wrapper = poptorch.inferenceModel(model, options)
    torch.testing.assert_close(wrapper(x), model(x), **FP32)
    (conv,) = _lines(wrapper, "poplar.poplin_conv")
    assert 'poplar.partials_type = "half"' in conv
    assert "poplar.available_memory = 2.000000e-01 : f64" in conv  # the op's own hint stays


class Overlapped(nn.Module):
    def __init__(self, mode: poptorch.OverlapMode) -> None:
        super().__init__()
        self.mode = mode
        self.l = nn.Linear(16, 16)

    def forward(self, x: torch.Tensor, extra: dict[str, torch.Tensor]) -> torch.Tensor:
        x, extra = poptorch.set_overlap_for_input((x, extra), self.mode)
        out = self.l(x) + extra["b"]
        return poptorch.set_overlap_for_output(out, self.mode)


def _overlapped(mode: poptorch.OverlapMode, io_tiles: int) -> tuple[poptorch.PoplarExecutor, torch.Tensor]:
    torch.manual_seed(4)
    model = Overlapped(mode)
    x, extra = torch.randn(4, 16), {"b": torch.randn(4, 16)}
    options = poptorch.Options()
    options.TensorLocations.numIOTiles(io_tiles)
    wrapper = poptorch.inferenceModel(model, options)
    out = wrapper(x, extra)
    with torch.no_grad():
        torch.testing.assert_close(out, model(x, extra), **FP32)
    return wrapper, out


def test_overlapped_streams_are_marked_and_copy_from_the_io_tiles() -> None:
    wrapper, _ = _overlapped(poptorch.OverlapMode.OverlapAccumulationLoop, 32)
    streams = _lines(wrapper, "poplar.host_stream")
    assert len(streams) == 3
    assert all('poplar.overlap = "overlap_accumulation_loop"' in s for s in streams)
    plain, _ = _overlapped(poptorch.OverlapMode.NoOverlap, 32)
    copies = [_cycles(line) for line in _lines(wrapper, "poplar.program_stream_copy")]
    plain_copies = [_cycles(line) for line in _lines(plain, "poplar.program_stream_copy")]
    assert len(copies) == len(plain_copies) == 3
    assert sum(copies) < sum(plain_copies)  # no host-link latency on the compute tiles' timeline


def test_overlap_without_io_tiles_is_an_error_that_says_how_to_fix_it() -> None:
    with pytest.raises(Exception, match=r"need(s)? I/O tiles to buffer them, but none are allocated: set "
                                        r"Options.TensorLocations.numIOTiles\(32\)"):
        _overlapped(poptorch.OverlapMode.OverlapDeviceIterationLoop, 0)


def test_io_tiles_are_taken_from_the_compute_tiles() -> None:
    """A weight of 1.5 MiB fits on the 4 tiles of the small IPU (2.4 MiB), not on the 2 left
    beside 2 I/O tiles (1.2 MiB)."""
    model = nn.Linear(768, 512, bias=False)
    x = torch.randn(1, 768)
    options = poptorch.Options().setIpuTarget(SMALL)
    poptorch.inferenceModel(model, options)(x)
    options = poptorch.Options().setIpuTarget(SMALL)
    options.TensorLocations.numIOTiles(2)
    with pytest.raises(Exception, match="does not fit on IPU 0"):
        poptorch.inferenceModel(model, options)(x)


def test_overlap_in_eager_returns_its_input_and_checks_the_mode() -> None:
    x = {"a": torch.ones(2), "b": (torch.zeros(3),)}
    assert poptorch.set_overlap_for_input(x, poptorch.OverlapMode.NoOverlap) is x
    assert poptorch.set_overlap_for_output(x["a"], "OverlapAccumulationLoop") is x["a"]
    with pytest.raises(ValueError, match="OverlapMode"):
        poptorch.set_overlap_for_input(x, "always")
    with pytest.raises(TypeError, match="expected a tensor"):
        poptorch.set_overlap_for_output([1, 2], poptorch.OverlapMode.NoOverlap)


def test_overlap_in_training_marks_the_input_stream() -> None:
    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.l = nn.Linear(4, 3)

        def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
            x = poptorch.set_overlap_for_input(x, poptorch.OverlapMode.OverlapAccumulationLoop)
            return poptorch.identity_loss(((self.l(x) - t) ** 2).mean(), "none")

    torch.manual_seed(5)
    model, reference = Model(), Model()
    reference.load_state_dict(model.state_dict())
    x, t = torch.randn(8, 4), torch.randn(8, 3)
    options = poptorch.Options()
    options.TensorLocations.numIOTiles(32)
    wrapper = poptorch.trainingModel(model, options, optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    loss = wrapper(x, t)
    eager_loss = ((reference.l(x) - t) ** 2).mean()
    torch.testing.assert_close(loss, eager_loss.detach(), **FP32)
    streams = _lines(wrapper, "poplar.host_stream")
    assert [('poplar.overlap = "overlap_accumulation_loop"' in s) for s in streams] == [True, False, False]

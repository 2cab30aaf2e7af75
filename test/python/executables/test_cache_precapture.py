"""The executable cache's pre-capture key (driver/model_key.py): a warm hit skips capture
and the passes, in this process or another, with results identical to the cold run; a
changed forward source (or a function it calls), input shape or compile option misses; a
plain tensor attribute's new value is used on a hit; a model that the key cannot describe
soundly falls back to the post-capture key and says why at INFO."""

from __future__ import annotations

import importlib.util
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import torch
from exe_models import DropoutClassifier
from helpers import EXACT

import poptorch
from ipu_mlir.compiler.frontend import capture as frontend_capture
from ipu_mlir.compiler.frontend import training as frontend_training

HERE = Path(__file__).resolve().parent
NO_CAPTURE = "(capture and passes skipped)"

_SOURCE = '''
import torch

SCALE = {scale}


def activation(x):
    return torch.{activation}(x) * SCALE


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(6, 8)
        self.l2 = torch.nn.Linear(8, 3)
        self.offset = torch.full((3,), 0.5)  # a plain tensor attribute: a constant of the program

    def forward(self, x):
        return self.l2(activation(self.l1(x))) {tail}
'''


def _module(path: Path, monkeypatch: pytest.MonkeyPatch, scale: float = 2.0, activation: str = "relu",
            tail: str = "+ self.offset", extra: str = "") -> ModuleType:
    """Import the model's source from ``path`` (always the same file and module name, so
    that only the source differs between versions)."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    path.write_text(_SOURCE.format(scale=scale, activation=activation, tail=tail) + extra)
    spec = importlib.util.spec_from_file_location("precapture_net", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _net(module: ModuleType) -> torch.nn.Module:
    torch.manual_seed(0)
    return module.Net().eval()


class _Captures:
    """Counts the captures (inference and training) while patched in."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        for owner, name in ((frontend_capture, "capture_inference"), (frontend_training, "capture_training")):
            original = getattr(owner, name)
            monkeypatch.setattr(owner, name, self._counting(original))

    def _counting(self, original: Any) -> Any:
        def capture(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return original(*args, **kwargs)

        return capture


def _infer(model: torch.nn.Module, cache: Path, x: torch.Tensor, **options: Any) -> tuple[torch.Tensor, Any]:
    opts = poptorch.Options().enableExecutableCaching(str(cache))
    if "device_iterations" in options:
        opts.deviceIterations(options["device_iterations"])
    if "half_float_casting" in options:  # applied by hooks on the model while it is captured
        opts.Precision.halfFloatCasting(options["half_float_casting"])
    wrapper = poptorch.inferenceModel(model, opts)
    return wrapper(x), wrapper


def test_warm_hit_in_a_new_process_skips_capture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    cache = tmp_path / "cache"
    child = textwrap.dedent(f"""
        import sys
        sys.path[:0] = [{str(HERE)!r}, {str(HERE.parent)!r}]
        import torch, poptorch
        from exe_models import DropoutClassifier
        torch.manual_seed(0)
        model = DropoutClassifier().eval()
        x = torch.linspace(-1, 1, 24).reshape(4, 6)
        out = poptorch.inferenceModel(model, poptorch.Options().enableExecutableCaching({str(cache)!r}))(x)
        torch.save(out, {str(tmp_path / "cold.pt")!r})
    """)
    result = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    cold = torch.load(tmp_path / "cold.pt", weights_only=True)
    captures = _Captures(monkeypatch)
    torch.manual_seed(0)
    model = DropoutClassifier().eval()
    x = torch.linspace(-1, 1, 24).reshape(4, 6)
    with caplog.at_level(logging.INFO, logger="poptorch"):
        out, wrapper = _infer(model, cache, x)
    assert captures.count == 0
    assert wrapper._compiled.timings["capture"] == 0.0 and wrapper._compiled.timings.get("precaptured") == 1.0
    assert any(NO_CAPTURE in r.getMessage() for r in caplog.records), [r.getMessage() for r in caplog.records]
    assert torch.equal(out, cold)
    torch.testing.assert_close(out, model(x), **EXACT)
    torch.testing.assert_close(wrapper(2 * x), model(2 * x), **EXACT)  # and it keeps running


def test_changed_source_shape_or_option_misses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache, source = tmp_path / "cache", tmp_path / "precapture_net.py"
    x = torch.randn(4, 6)
    captures = _Captures(monkeypatch)

    def run(module: ModuleType, inputs: torch.Tensor = x, **options: Any) -> bool:
        """Runs a fresh model (as eager); whether it was captured."""
        before = captures.count
        model = _net(module)
        out, _ = _infer(model, cache, inputs, **options)
        torch.testing.assert_close(out, model(inputs), **EXACT)
        return captures.count > before

    assert run(_module(source, monkeypatch))  # cold
    assert not run(_module(source, monkeypatch))  # the same source, imported again: a hit
    assert run(_module(source, monkeypatch, activation="sigmoid"))  # a function forward calls changed
    assert run(_module(source, monkeypatch, scale=3.0))  # a global it reads changed
    assert run(_module(source, monkeypatch, tail="- self.offset"))  # forward itself changed
    assert not run(_module(source, monkeypatch, extra="\n\n# a comment\n"))  # a comment after the code: a hit
    module = _module(source, monkeypatch)
    assert run(module, torch.randn(8, 6))  # another input shape
    assert run(module, torch.randn(8, 6), device_iterations=2)  # another compile option
    assert not run(module, torch.randn(8, 6), device_iterations=2)
    assert run(module, torch.randn(8, 6), device_iterations=2,
               half_float_casting=poptorch.HalfFloatCastingBehavior.HalfUpcastToFloat)


def test_changed_line_numbers_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The program's locations carry the source lines, so a shifted forward is another program."""
    cache, source = tmp_path / "cache", tmp_path / "precapture_net.py"
    captures = _Captures(monkeypatch)
    x = torch.randn(4, 6)
    _infer(_net(_module(source, monkeypatch)), cache, x)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    source.write_text("\n" + _SOURCE.format(scale=2.0, activation="relu", tail="+ self.offset"))
    spec = importlib.util.spec_from_file_location("precapture_net", source)
    shifted = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shifted)
    _infer(_net(shifted), cache, x)
    assert captures.count == 2


def test_a_hit_reads_plain_tensor_attributes_from_the_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache, source = tmp_path / "cache", tmp_path / "precapture_net.py"
    module = _module(source, monkeypatch)
    x = torch.randn(4, 6)
    _infer(_net(module), cache, x)
    captures = _Captures(monkeypatch)
    model = _net(module)
    model.offset = torch.full((3,), -7.0)  # same shape and dtype, other values
    out, _ = _infer(model, cache, x)
    assert captures.count == 0
    torch.testing.assert_close(out, model(x), **EXACT)


def test_training_hit_skips_capture_and_trains_as_the_cold_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import copy

    torch.manual_seed(0)
    first = DropoutClassifier()
    second = copy.deepcopy(first)
    x, y = torch.randn(4, 6), torch.randint(0, 3, (4,))
    options = poptorch.Options().enableExecutableCaching(str(tmp_path)).randomSeed(3)
    captures = _Captures(monkeypatch)
    runs = []
    for model in (first, second):
        wrapper = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
        runs.append([wrapper(x, y)[1].as_subclass(torch.Tensor) for _ in range(2)])
    assert captures.count == 1 and wrapper._compiled.timings.get("precaptured") == 1.0
    torch.testing.assert_close(runs[1], runs[0], **EXACT)
    torch.testing.assert_close(second.state_dict(), first.state_dict(), **EXACT)
    # Another optimizer description is another program.
    third = copy.deepcopy(first)
    poptorch.trainingModel(third, options, torch.optim.SGD(third.parameters(), lr=0.1))(x, y)
    assert captures.count == 2


_COUNTER = 0


def _counted() -> int:
    global _COUNTER  # noqa: PLW0603 - the state the key cannot see
    _COUNTER += 1
    return _COUNTER


class GlobalState(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(6, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.lin(x) * (1 if _counted() > 0 else 2)


def test_global_state_falls_back_to_the_post_capture_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    captures = _Captures(monkeypatch)
    x = torch.randn(4, 6)
    model = GlobalState().eval()
    with caplog.at_level(logging.INFO):
        for _ in range(2):
            out, wrapper = _infer(model, tmp_path, x)
            torch.testing.assert_close(out, model(x), **EXACT)
    reasons = [r.getMessage() for r in caplog.records if "keys the captured program" in r.getMessage()]
    assert reasons and all(r.levelno == logging.INFO for r in caplog.records if "keys the captured" in r.getMessage())
    assert "assigns the global '_COUNTER'" in reasons[0], reasons
    assert captures.count == 2  # both captured: the key needs the program
    assert wrapper._compiled.timings.get("cached") == 1.0 and not wrapper._compiled.timings.get("precaptured")
    assert len(os.listdir(tmp_path)) == 1


_TABLE = torch.ones(3)
_EXTERNAL = torch.nn.Linear(3, 3)


class ReadsGlobals(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _EXTERNAL(self.lin(x))[..., :2] + _TABLE[:2]


def test_key_sees_the_values_of_global_tensors_and_modules() -> None:
    """Tensors and modules the forward reads outside the model become constants of the
    program: the key holds their values (the model's own weights only by shape and dtype)."""
    from ipu_mlir.driver.model_key import model_key

    model, x = ReadsGlobals(), torch.randn(2, 3)
    keys = [model_key(model, (x,), {})[0]]
    for change in (model.lin.weight, _EXTERNAL.weight, _TABLE):  # the model's weight: uploaded at run time
        with torch.no_grad():
            change.add_(1.0)
        keys.append(model_key(model, (x,), {})[0])
    keys.append(model_key(model, (torch.randn(2, 3, dtype=torch.float64),), {})[0])
    model.lin.weight.requires_grad_(False)
    keys.append(model_key(model, (x,), {})[0])
    assert None not in keys and keys[0] == keys[1] and len(set(keys[1:])) == 5, keys

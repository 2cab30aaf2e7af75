"""compileAndExport / save / poptorch.load / loadExecutable / rng_state / offline use
(issue 12): a model exported in one process runs in a fresh one with the same results,
training continues bit for bit (weights, optimizer state and random stream), and every
mismatch is an error that says what differs."""

from __future__ import annotations

import copy
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
from exe_models import DropoutClassifier, Wider
from helpers import EXACT
from helpers.models import LayersOverIpus

import poptorch

HERE = Path(__file__).resolve().parent


def _batch(seed: int, n: int = 4) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(n, 6, generator=generator), torch.randint(0, 3, (n,), generator=generator)


def _plain(value: torch.Tensor) -> torch.Tensor:
    return value.as_subclass(torch.Tensor).detach().clone()


_CHILD = """
import sys
sys.path[:0] = [{here!r}, {tests!r}]
import torch, poptorch
x, y = torch.load({inputs!r}, weights_only=True)
inference = poptorch.load({inference!r})
training = poptorch.load({training!r})
losses = [poptorch._executor.TrainingOutput.as_subclass(training(x, y)[1], torch.Tensor) for _ in range(2)]
weights = {{k: v.detach().clone() for k, v in training.model.state_dict().items()}}
torch.save({{"inference": inference(x), "losses": losses, "weights": weights,
            "momentum": [s["momentum_buffer"] for s in training._optimizer.state_dict()["state"].values()]}}, {out!r})
"""


def test_export_then_load_in_a_fresh_process_continues_bit_for_bit(tmp_path: Path) -> None:
    torch.manual_seed(0)
    x, y = _batch(1)
    # Inference: compiled and exported without running.
    eval_model = DropoutClassifier().eval()
    exporter = poptorch.inferenceModel(eval_model)
    exporter.compileAndExport(str(tmp_path / "inference.ipuexe"), x)
    assert not exporter.isAttachedToDevice()
    expected_inference = eval_model(x)
    # Training: one step, save (weights, momentum, random stream), then two more steps here.
    model = DropoutClassifier()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    training = poptorch.trainingModel(model, poptorch.Options().randomSeed(5), optimizer)
    training(x, y)
    training.save(str(tmp_path / "training.ipuexe"))
    losses = [_plain(training(x, y)[1]) for _ in range(2)]
    weights = {k: v.detach().clone() for k, v in model.state_dict().items()}
    momentum = [s["momentum_buffer"] for s in optimizer.state_dict()["state"].values()]
    torch.save((x, y), tmp_path / "inputs.pt")

    script = _CHILD.format(here=str(HERE), tests=str(HERE.parent), inputs=str(tmp_path / "inputs.pt"),
                           inference=str(tmp_path / "inference.ipuexe"), training=str(tmp_path / "training.ipuexe"),
                           out=str(tmp_path / "out.pt"))
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-3000:]
    child = torch.load(tmp_path / "out.pt", weights_only=True)
    torch.testing.assert_close(child["inference"], expected_inference, **EXACT)
    assert losses[0] != losses[1]  # the dropout masks and the weights change between steps
    for mine, theirs in zip(losses, child["losses"], strict=True):
        torch.testing.assert_close(theirs, mine, **EXACT)
    torch.testing.assert_close(child["weights"], weights, **EXACT)
    torch.testing.assert_close(child["momentum"], momentum, **EXACT)


def test_rng_state_replays_the_random_stream() -> None:
    model = DropoutClassifier()
    wrapper = poptorch.trainingModel(model, optimizer=torch.optim.SGD(model.parameters(), lr=0.0))  # dropout on
    x, y = _batch(4)
    wrapper(x, y)
    state = wrapper.rng_state
    first, second = _plain(wrapper(x, y)[0]), _plain(wrapper(x, y)[0])
    assert not torch.equal(first, second)
    wrapper.rng_state = state
    torch.testing.assert_close(_plain(wrapper(x, y)[0]), first, **EXACT)
    assert wrapper.rng_state == [state[0], state[1] + 1]
    with pytest.raises(ValueError, match=r"rng_state must be \[seed, calls\]"):
        wrapper.rng_state = [1.5, 2]


def test_pipelined_two_ipu_training_round_trips(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = LayersOverIpus("block", 2)
    options = poptorch.Options()
    options.Training.gradientAccumulation(3)
    training = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5))
    x, y = torch.randn(12, 8), torch.randint(0, 3, (12,))
    training(x, y)
    training.save(str(tmp_path / "pipelined.ipuexe"))
    loaded = poptorch.load(str(tmp_path / "pipelined.ipuexe"))
    assert loaded._compiled.program.num_ipus == 2
    training.compileAndExport(str(tmp_path / "again.ipuexe"))  # compiled already: writes it, rng state excluded
    assert poptorch.load(str(tmp_path / "again.ipuexe"))._pending_rng_state is None
    assert "pipelined" in loaded.schedule()
    for _ in range(2):
        torch.testing.assert_close(_plain(loaded(x, y)[1]), _plain(training(x, y)[1]), **EXACT)
    torch.testing.assert_close(loaded.model.state_dict(), model.state_dict(), **EXACT)


def test_load_executable_checks_the_model(tmp_path: Path) -> None:
    x, _ = _batch(2)
    model = DropoutClassifier().eval()
    path = str(tmp_path / "plain.ipuexe")
    poptorch.inferenceModel(model).compileAndExport(path, x, export_model=False)
    with pytest.raises(Exception, match="holds no model: it was written with export_model=False"):
        poptorch.load(path)
    # The same architecture with other weights: runs this model's weights, without compiling.
    other = DropoutClassifier().eval()
    wrapper = poptorch.inferenceModel(other)
    wrapper.loadExecutable(path)
    assert wrapper.isCompiled()
    torch.testing.assert_close(wrapper(x), other(x), **EXACT)
    with pytest.raises(ValueError, match=r"'l1.weight' has shape \[9, 6\].*compiled for shape \[8, 6\]"):
        poptorch.inferenceModel(Wider().eval()).loadExecutable(path)
    with pytest.raises(ValueError, match=r"tensor 'l1.weight', which this model does not have"):
        poptorch.inferenceModel(torch.nn.Sequential(torch.nn.Linear(6, 3))).loadExecutable(path)
    with pytest.raises(ValueError, match="other options than this model's: device_iterations: 1 in the file, 2 now"):
        poptorch.inferenceModel(DropoutClassifier(), poptorch.Options().deviceIterations(2)).loadExecutable(path)
    with pytest.raises(ValueError, match="holds a inference program, but this is a training model"):
        poptorch.trainingModel(DropoutClassifier()).loadExecutable(path)
    half = copy.deepcopy(model).half()
    with pytest.raises(ValueError, match="dtype float16, but the executable was compiled for .* float32"):
        poptorch.inferenceModel(half).loadExecutable(path)


def test_offline_compiles_and_exports_but_does_not_run(tmp_path: Path) -> None:
    x, _ = _batch(3)
    model = DropoutClassifier().eval()
    never = poptorch.Options().connectionType(poptorch.ConnectionType.Never)
    wrapper = poptorch.inferenceModel(model, never)
    path = str(tmp_path / "offline.ipuexe")
    wrapper.compileAndExport(path, x)
    with pytest.raises(RuntimeError, match=r"connectionType\(ConnectionType.Never\): it compiles .* but cannot run"):
        wrapper(x)
    offline = poptorch.inferenceModel(model, poptorch.Options().useOfflineIpuTarget(2))
    offline.compile(x)
    offline.save(str(tmp_path / "compiled_only.ipuexe"))  # never ran: no random stream to save
    with pytest.raises(RuntimeError, match=r"useOfflineIpuTarget\(2\).*cannot run"):
        offline(x)
    with pytest.raises(RuntimeError, match="cannot run"):
        poptorch.load(path)(x)  # still offline
    online = poptorch.load(path, edit_opts_fn=lambda o: o.connectionType(poptorch.ConnectionType.Always))
    torch.testing.assert_close(online(x), model(x), **EXACT)
    with pytest.raises(ValueError, match="edit_opts_fn changed compile-time options .*device_iterations"):
        poptorch.load(path, edit_opts_fn=lambda o: o.deviceIterations(2))

"""Round trip of the Poplar C++ emitter (issue 18): compile each model with poptorch, emit
its C++ (wrapper.exportPoplarCpp), build it with the C++ compiler against the host
implementation of the Poplar API (tools/poplar-host), run it on the same weights and inputs
and compare its outputs with the IPU Model's. Skipped only when no C++ compiler is found."""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from torch.nn import functional as F

import poptorch
from helpers import FP32

sys.path.insert(0, str(Path(__file__).parent))
from roundtrip_timing import COMPILE_SECONDS  # noqa: E402
from roundtrip_models import MODELS, TRAINING_MODELS, Draws, DropoutWithLoss, MLPWithLoss, PhasedChain, build, build_training  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
HOST = ROOT / "tools" / "poplar-host"
CXX = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")

pytestmark = pytest.mark.skipif(CXX is None, reason="no C++ compiler (g++ / c++ / $CXX) on PATH: the emitted C++ cannot be built")


_BUILT: list[Path] = []  # the library built in this session, shared by the modules importing this fixture


@pytest.fixture(scope="module")
def host_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tools/poplar-host built once per session, by the first round-trip module that asks
    (-O1, one object per source, in parallel), or the library CMake built
    ($POPLAR_HOST_LIBRARY, set by the CTest test)."""
    if os.environ.get("POPLAR_HOST_LIBRARY"):
        return Path(os.environ["POPLAR_HOST_LIBRARY"])
    if _BUILT:
        return _BUILT[0]
    out = tmp_path_factory.mktemp("poplar-host")
    sources = sorted((HOST / "src").glob("*.cpp"))

    def compile_one(source: Path) -> Path:
        obj = out / (source.stem + ".o")
        subprocess.run([CXX, "-std=c++17", "-O1", f"-I{HOST / 'include'}", "-c", str(source), "-o", str(obj)],
                       check=True, capture_output=True, text=True)
        return obj

    with ThreadPoolExecutor(max_workers=2) as pool:
        objects = list(pool.map(compile_one, sources))
    library = out / "libpoplar-host.a"
    subprocess.run(["ar", "rcs", str(library), *map(str, objects)], check=True)
    _BUILT.append(library)
    return library


# The suite keeps one model of each kind (an MLP, a CNN, device iterations, sharded and
# pipelined IPUs); the longer C++ builds of the op families run under `dev.py slow`.
SLOW_MODELS = {"encoder", "elementwise", "lookup", "indexing", "sorting"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_MODELS else n for n in MODELS])
def test_emitted_cpp_matches_the_ipu_model(name: str, host_library: Path, tmp_path: Path) -> None:
    model, options, x = build(name)
    wrapper = poptorch.inferenceModel(model, options)
    expected = wrapper(x)
    source = tmp_path / "program.cpp"
    wrapper.exportPoplarCpp(str(source))  # also writes weights.bin next to it
    interface = wrapper._compiled.executable.interface
    [spec] = wrapper._compiled.captured.inputs
    (tmp_path / f"{interface.input_stream(spec.name)}.bin").write_bytes(x.numpy().tobytes())

    start = time.perf_counter()
    built = subprocess.run([CXX, "-std=c++17", "-O1", f"-I{HOST / 'include'}", str(source), str(host_library),
                            "-o", str(tmp_path / "program")], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    COMPILE_SECONDS[name] = seconds
    print(f"{name}: C++ compile {seconds:.2f} s")
    assert built.returncode == 0, built.stderr[-4000:]
    ran = subprocess.run([str(tmp_path / "program"), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr

    outputs = expected if isinstance(expected, tuple) else (expected,)
    for index, want in enumerate(outputs):
        raw = np.fromfile(tmp_path / f"{interface.output_stream(index)}.bin", dtype=want.numpy().dtype)
        assert raw.size == want.numel()
        torch.testing.assert_close(torch.from_numpy(raw).reshape(want.shape), want, **FP32, equal_nan=True)  # NaN where the IPU Model has NaN


def _build_and_run(source: Path, host_library: Path, name: str) -> None:
    start = time.perf_counter()
    built = subprocess.run([CXX, "-std=c++17", "-O1", f"-I{HOST / 'include'}", str(source), str(host_library),
                            "-o", str(source.parent / "program")], capture_output=True, text=True)
    COMPILE_SECONDS[name] = time.perf_counter() - start
    print(f"{name}: C++ compile {COMPILE_SECONDS[name]:.2f} s")
    assert built.returncode == 0, built.stderr[-4000:]
    ran = subprocess.run([str(source.parent / "program"), str(source.parent)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr


@pytest.mark.parametrize("off_chip", [False, True], ids=["on chip", "weights off chip"])
def test_emitted_training_step_matches_the_ipu_model(off_chip: bool, host_library: Path, tmp_path: Path) -> None:
    """One SGD step of an MLP with an MSE loss: the outputs, the loss and the updated weights
    (read back by the program into weights.out.bin) match the IPU Model's; with the weights
    off chip (TensorLocations) the program loads them from their remote buffers and stores
    them back, and the host writes and reads the buffers."""
    torch.manual_seed(0)
    model = MLPWithLoss()
    x, target = torch.randn(2, 8), torch.randn(2, 4)
    options = poptorch.Options()
    if off_chip:
        options.TensorLocations.setWeightLocation(poptorch.TensorLocationSettings().useOnChipStorage(False))
    wrapper = poptorch.trainingModel(model, options, optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    wrapper.compile(x, target)
    source = tmp_path / "program.cpp"
    wrapper.exportPoplarCpp(str(source))  # the weights before the step, and the hyper-parameters
    if off_chip:
        text = source.read_text()
        assert "graph.addRemoteBuffer(" in text and "engine.copyToRemoteBuffer(" in text
        assert text.count("poplar::program::Copy(r_") >= 4 and ", r_" in text  # loads and stores of the four parameters
    interface = wrapper._compiled.executable.interface
    for spec, tensor in zip(wrapper._compiled.captured.inputs, (x, target), strict=True):  # training names them by the trace
        (tmp_path / f"{interface.input_stream(spec.name)}.bin").write_bytes(tensor.numpy().tobytes())
    out, loss = wrapper(x, target)
    wrapper.copyWeightsToHost()
    _build_and_run(source, host_library, "training step" + (" off chip" if off_chip else ""))

    read = {stream: np.fromfile(tmp_path / f"{stream}.bin", dtype=np.float32) for stream in interface.outputs}
    torch.testing.assert_close(torch.from_numpy(read[interface.output_stream(0)]).reshape(loss.shape), loss, **FP32)
    torch.testing.assert_close(torch.from_numpy(read[interface.output_stream(1)]).reshape(out.shape), out, **FP32)
    updated = np.fromfile(tmp_path / "weights.out.bin", dtype=np.float32)
    offset = 0
    parameters = dict(model.named_parameters())
    for kind, name in interface.variables:
        if kind != "parameter":
            continue
        expected = parameters[name].detach()
        got = torch.from_numpy(updated[offset:offset + expected.numel()]).reshape(expected.shape)
        torch.testing.assert_close(got, expected, **FP32)
        offset += expected.numel()


@pytest.mark.parametrize("name", [n if n == "cnn training step" else pytest.param(n, marks=pytest.mark.slow)
                                  for n in TRAINING_MODELS])
def test_emitted_training_model_matches_the_ipu_model(name: str, host_library: Path, tmp_path: Path) -> None:
    """One SGD step of a CNN and of a transformer encoder: the outputs, the loss, the updated
    parameters and the updated buffers (batch norm's running statistics) match the IPU Model's."""
    model, inputs = build_training(name)
    wrapper = poptorch.trainingModel(model, poptorch.Options(), optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    assert _emitted_step_matches(wrapper, model, inputs, host_library, tmp_path, name) >= 6


def _emitted_step_matches(wrapper: Any, model: torch.nn.Module, inputs: tuple[torch.Tensor, ...], host_library: Path,
                          tmp_path: Path, name: str) -> int:
    """Compile ``wrapper`` (a training model returning (output, loss)) on ``inputs``, emit and
    run its C++ for one step: the streamed loss and output, every updated parameter and buffer
    (weights.out.bin) and the hyper-parameters as written match the IPU Model's step. Returns
    how many parameters and buffers it compared."""
    wrapper.compile(*inputs)
    source = tmp_path / "program.cpp"
    wrapper.exportPoplarCpp(str(source))
    interface = wrapper._compiled.executable.interface
    for spec, tensor in zip(wrapper._compiled.captured.inputs, inputs, strict=True):
        (tmp_path / f"{interface.input_stream(spec.name)}.bin").write_bytes(tensor.numpy().tobytes())
    out, loss = wrapper(*inputs)
    wrapper.copyWeightsToHost()
    _build_and_run(source, host_library, name)

    for index, want in enumerate((loss, out)):  # the compiled step streams the loss first
        raw = np.fromfile(tmp_path / f"{interface.output_stream(index)}.bin", dtype=want.numpy().dtype)
        torch.testing.assert_close(torch.from_numpy(raw).reshape(want.shape), want, **FP32, equal_nan=True)  # NaN where the IPU Model has NaN
    updated = (tmp_path / "weights.out.bin").read_bytes()
    named = {**dict(model.named_parameters()), **dict(model.named_buffers())}
    offset, checked = 0, 0
    hyper = np.frombuffer((tmp_path / "weights.bin").read_bytes(), dtype=np.uint8)
    for kind, variable in interface.variables:
        want = named[variable].detach() if kind != "hyper" else None
        if want is None:  # an optimizer hyper-parameter (an fp32 scalar): as written
            size = 4
            assert updated[offset:offset + size] == hyper[offset:offset + size].tobytes(), variable
            offset += size
            continue
        size = want.numel() * want.element_size()
        got = torch.from_numpy(np.frombuffer(updated[offset:offset + size], dtype=want.numpy().dtype).copy()).reshape(want.shape)
        offset += size
        if kind in ("parameter", "buffer"):
            torch.testing.assert_close(got, want, **FP32, msg=lambda m, v=variable: f"{v}: {m}")
            checked += 1
    assert offset == len(updated)
    return checked


def test_emitted_off_chip_activations_match_the_ipu_model(host_library: Path, tmp_path: Path) -> None:
    """Off-chip activations (TensorLocations.setActivationLocation): the emitted step stores
    each forward value the backward reads to its remote buffer ('activation.<n>') and loads it
    into a new tensor before its first backward reader; the step matches the IPU Model's."""
    torch.manual_seed(0)
    model = MLPWithLoss()
    options = poptorch.Options()
    options.TensorLocations.setActivationLocation(
        poptorch.TensorLocationSettings().useOnChipStorage(False).minElementsForOffChip(0))
    wrapper = poptorch.trainingModel(model, options, optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    inputs = (torch.randn(2, 8), torch.randn(2, 4))
    assert _emitted_step_matches(wrapper, model, inputs, host_library, tmp_path, "off-chip activations") == 4
    text = (tmp_path / "program.cpp").read_text()
    assert "// pipeline.remote_store" in text and "// loaded from 'activation.0'" in text


def test_emitted_phased_step_matches_the_ipu_model(host_library: Path, tmp_path: Path) -> None:
    """Serial phased execution over 2 IPUs with every tensor off chip between phases
    (Liveness.OffChipAfterEachPhase): the phases' remote stores and loads are emitted and the
    step matches the IPU Model's."""
    torch.manual_seed(0)
    model = PhasedChain()
    strategy = poptorch.SerialPhasedExecution(*[poptorch.Phase(poptorch.Stage(f"b{2 * p}"), poptorch.Stage(f"b{2 * p + 1}")) for p in range(2)])
    for phase in range(2):
        strategy.phase(phase).ipus(0, 1)
    strategy.setTensorsLiveness(poptorch.Liveness.OffChipAfterEachPhase)
    options = poptorch.Options()
    options.setExecutionStrategy(strategy)
    wrapper = poptorch.trainingModel(model, options, optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    inputs = (torch.randn(4, 8), torch.randn(4, 3))
    assert _emitted_step_matches(wrapper, model, inputs, host_library, tmp_path, "phased step") == 10
    assert "// pipeline.remote_load" in (tmp_path / "program.cpp").read_text()


def test_emitted_cpp_names_its_ops_sources() -> None:
    model, options, x = build("mlp")
    wrapper = poptorch.inferenceModel(model, options)
    wrapper(x)
    from ipu_mlir.driver.poplar_cpp import poplar_cpp

    text = poplar_cpp(wrapper._compiled)
    assert "// poplin_linear (l1 at " in text and "roundtrip_models.py:" in text
    assert "poplin::matMul(ipu[0], v_input_x_0, v_l1_weight_0.transpose()" in text


def test_export_before_compiling_is_an_error(tmp_path: Path) -> None:
    model, options, _ = build("mlp")
    wrapper = poptorch.inferenceModel(model, options)
    with pytest.raises(RuntimeError, match="not compiled yet"):
        wrapper.exportPoplarCpp(str(tmp_path / "program.cpp"))


def _run(directory: Path) -> None:
    ran = subprocess.run([str(directory / "program"), str(directory)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr


def test_emitted_random_draws_follow_their_distributions(host_library: Path, tmp_path: Path) -> None:
    """poprand draws cannot give the IPU Model's numbers (poplar-host has its own generator):
    the emitted program's draws have the shapes and types of the IPU Model's, lie in their
    ranges with their distributions' moments, differ between device iterations, repeat with
    the seed exportPoplarCpp writes (Options.randomSeed) and change with another seed."""
    torch.manual_seed(0)
    options = poptorch.Options()
    options.deviceIterations(2)
    options.randomSeed(7)
    wrapper = poptorch.inferenceModel(Draws(), options)
    x = torch.zeros(2, 1)
    expected = wrapper(x)
    source = tmp_path / "program.cpp"
    wrapper.exportPoplarCpp(str(source))
    assert (tmp_path / "randomSeed.bin").read_bytes() == (7).to_bytes(8, "little")
    interface = wrapper._compiled.executable.interface
    [spec] = wrapper._compiled.captured.inputs
    (tmp_path / f"{interface.input_stream(spec.name)}.bin").write_bytes(x.numpy().tobytes())
    _build_and_run(source, host_library, "random draws")

    def outputs() -> list[torch.Tensor]:
        return [torch.from_numpy(np.fromfile(tmp_path / f"{interface.output_stream(i)}.bin", dtype=want.numpy().dtype)).reshape(want.shape)
                for i, want in enumerate(expected)]

    rand, normal, uniform, integers = drawn = outputs()
    assert [t.dtype for t in drawn] == [t.dtype for t in expected]
    assert rand.min() >= 0 and rand.max() < 1 and abs(rand.mean().item() - 0.5) < 0.02
    assert not torch.equal(rand[:64], rand[64:])  # the second device iteration draws new values
    assert abs(normal.mean().item() - 1.0) < 0.1 and abs(normal.std().item() - 2.0) < 0.1
    assert uniform.min() >= -2 and uniform.max() < 3 and abs(uniform.mean().item() - 0.5) < 0.1
    assert set(integers.tolist()) == {0, 1, 2, 3, 4} and min(torch.bincount(integers).tolist()) > 60
    _run(tmp_path)
    assert all(torch.equal(a, b) for a, b in zip(outputs(), drawn, strict=True))  # the same seed, the same draws
    (tmp_path / "randomSeed.bin").write_bytes((8).to_bytes(8, "little"))
    _run(tmp_path)
    assert not torch.equal(outputs()[0], rand)


def test_emitted_dropout_training_step_uses_one_mask(host_library: Path, tmp_path: Path) -> None:
    """One SGD step through dropout: the emitted program's dropped input is 0 or twice the
    input, about half of it kept, and its loss and updated weights are eager's for that mask
    (the gradient used the mask the forward drew)."""
    torch.manual_seed(0)
    model = DropoutWithLoss()
    before = copy.deepcopy(model)
    x, target = torch.randn(8, 16), torch.randn(8, 4)
    options = poptorch.Options()
    options.randomSeed(3)
    wrapper = poptorch.trainingModel(model, options, optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    wrapper.compile(x, target)
    source = tmp_path / "program.cpp"
    wrapper.exportPoplarCpp(str(source))  # the weights before the step, the hyper-parameters, a seed
    interface = wrapper._compiled.executable.interface
    for spec, tensor in zip(wrapper._compiled.captured.inputs, (x, target), strict=True):
        (tmp_path / f"{interface.input_stream(spec.name)}.bin").write_bytes(tensor.numpy().tobytes())
    _build_and_run(source, host_library, "dropout training step")

    loss = torch.from_numpy(np.fromfile(tmp_path / f"{interface.output_stream(0)}.bin", dtype=np.float32)).reshape(())
    dropped = torch.from_numpy(np.fromfile(tmp_path / f"{interface.output_stream(1)}.bin", dtype=np.float32)).reshape(x.shape)
    kept = dropped != 0
    assert torch.equal(dropped[kept], x[kept] * 2) and 0.3 < kept.float().mean().item() < 0.7
    reference = F.mse_loss(before.lin(dropped), target)
    reference.backward()
    torch.testing.assert_close(loss, reference.detach(), **FP32)
    updated = torch.from_numpy(np.fromfile(tmp_path / "weights.out.bin", dtype=np.float32))
    parameters = dict(before.named_parameters())
    names = [name for kind, name in interface.variables if kind == "parameter"]
    assert sorted(names) == sorted(parameters) and [kind for kind, _ in interface.variables][:2] == ["parameter", "parameter"]
    want = torch.cat([(parameters[n] - 0.1 * parameters[n].grad).detach().flatten() for n in names])
    torch.testing.assert_close(updated[:want.numel()], want, **FP32)


def test_emitted_remote_buffer_builds_and_runs(host_library: Path, tmp_path: Path) -> None:
    """A graph declaring a remote buffer (no model makes one yet: the lit case's graph) builds
    against poplar-host and runs, streaming its input back out."""
    from ipu_mlir.compiler.codegen import emit_cpp
    from ipu_mlir.dialects import make_context
    from torch_mlir import ir

    text = (ROOT / "test" / "Translate" / "poplar-to-cpp-remote-buffer.mlir").read_text()
    with make_context():
        source = emit_cpp(ir.Module.parse(text))
    assert 'graph.addRemoteBuffer("fc.weight", poplar::FLOAT, 12, 2);' in source
    (tmp_path / "program.cpp").write_text(source)
    (tmp_path / "weights.bin").write_bytes(b"")
    x = torch.randn(4, 3)
    (tmp_path / "host.input.x.bin").write_bytes(x.numpy().tobytes())
    _build_and_run(tmp_path / "program.cpp", host_library, "remote buffer")
    torch.testing.assert_close(torch.from_numpy(np.fromfile(tmp_path / "host.output.0.bin", dtype=np.float32)).reshape(4, 3), x)

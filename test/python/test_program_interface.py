"""The host side finds a compiled program's streams, the variables it provides and the entry
functions in the executable's metadata (the graph's ``#poplar.interface``, written once by
poplar-build-program), and the IPU Model tells variables apart by their ``kind``, never by their names."""

from __future__ import annotations

import copy
import re

import pytest
import torch
import torch.nn as nn
from helpers import EXACT, FP32
from helpers.checks import assert_parameters_close, eager_accumulated_step, eager_per_micro_batch
from helpers.models import LayersOverIpus, MLPClassifier
from torch_mlir import ir

import poptorch
from ipu_mlir.artifact.executable import Executable
from ipu_mlir.compiler.transforms import poplar_build_program
from ipu_mlir.dialects import make_context
from ipu_mlir.dialects.poplar import Interface, StreamDirection, VariableKind, interface_of, variable_kind
from ipu_mlir.runtime import interpreter


class ScaleAndShift(nn.Module):
    """Two inputs, two outputs: (linear(x) + shift, the sum of x)."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 3)

    def forward(self, x: torch.Tensor, shift: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.linear(x) + shift, x.sum(dim=1)


def _graph(compiled) -> ir.Operation:  # noqa: ANN001
    (graph,) = [op.operation for op in compiled.module.body.operations if op.operation.name == "poplar.graph"]
    return graph


def _host_streams(graph: ir.Operation) -> dict[str, StreamDirection]:
    streams = {}
    for op in graph.regions[0].blocks[0].operations:
        if op.operation.name == "poplar.host_stream":
            attributes = op.operation.attributes
            streams[ir.StringAttr(attributes["name"]).value] = StreamDirection(ir.StringAttr(attributes["direction"]).value)
    return streams


def _functions(graph: ir.Operation) -> set[str]:
    return {ir.StringAttr(op.operation.attributes["name"]).value for op in graph.regions[0].blocks[0].operations
            if op.operation.name == "poplar.function"}


def test_the_metadata_maps_each_input_and_output_to_the_stream_the_graph_declares() -> None:
    torch.manual_seed(0)
    model = ScaleAndShift().eval()
    wrapper = poptorch.inferenceModel(model, poptorch.Options().deviceIterations(2))
    x, shift = torch.randn(4, 4), torch.randn(4, 3)
    out, total = wrapper(x, shift)
    compiled = wrapper._compiled
    interface = compiled.executable.interface
    graph = _graph(compiled)
    streams = _host_streams(graph)
    assert sorted(interface.inputs) == sorted(spec.name for spec in compiled.captured.inputs) == ["shift", "x"]
    assert all(streams[stream] == StreamDirection.HOST_TO_DEVICE for stream in interface.inputs.values())
    assert len(interface.outputs) == 2
    assert all(streams[stream] == StreamDirection.DEVICE_TO_HOST for stream in interface.outputs)
    assert sorted(streams) == sorted([*interface.inputs.values(), *interface.outputs])  # no stream left out
    assert interface.step in _functions(graph) and interface.update is None and interface.main == "main"
    # The executable carries it as plain data (JSON), so a saved executable has it too.
    assert interface == interface_of(graph)
    assert Executable.from_bytes(compiled.executable.to_bytes()).interface == interface
    assert compiled.executable.input_stream("x") == interface.inputs["x"]
    assert compiled.executable.output_stream(1) == interface.outputs[1]
    expected = eager_per_micro_batch(model, 2, x, shift)
    torch.testing.assert_close(out, torch.cat([o for o, _ in expected]), **FP32)
    torch.testing.assert_close(total, torch.cat([t for _, t in expected]), **FP32)


def test_unknown_inputs_and_outputs_are_named_errors() -> None:
    interface = Interface({"x": "feed.x"}, ("fetch.0",), (("parameter", "w"),), "step", None)
    with pytest.raises(KeyError, match="the program has no input 'y'; its inputs: x"):
        interface.input_stream("y")
    with pytest.raises(IndexError, match=r"the program has 1 outputs, not output #1"):
        interface.output_stream(1)
    assert Interface.from_dict(interface.to_dict()) == interface


@pytest.fixture
def renamed_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    """poplar-build-program names its streams unlike any name the host could rebuild."""
    monkeypatch.setattr(poplar_build_program, "_input_stream", lambda name: f"feed[{name}]")
    monkeypatch.setattr(poplar_build_program, "_output_stream", lambda index: f"fetch[{index}]")


@pytest.mark.usefixtures("renamed_streams")
def test_inference_reads_its_stream_names_from_the_interface() -> None:
    torch.manual_seed(1)
    model = ScaleAndShift().eval()
    wrapper = poptorch.inferenceModel(model, poptorch.Options().deviceIterations(2))
    x, shift = torch.randn(4, 4), torch.randn(4, 3)
    out, total = wrapper(x, shift)
    interface = wrapper._compiled.executable.interface
    assert interface.inputs == {"x": "feed[x]", "shift": "feed[shift]"}
    assert interface.outputs == ("fetch[0]", "fetch[1]")
    expected = eager_per_micro_batch(model, 2, x, shift)
    torch.testing.assert_close(out, torch.cat([o for o, _ in expected]), **FP32)
    torch.testing.assert_close(total, torch.cat([t for _, t in expected]), **FP32)


@pytest.mark.usefixtures("renamed_streams")
def test_training_reads_its_stream_names_from_the_interface() -> None:
    generator = torch.Generator().manual_seed(2)
    model = MLPClassifier()
    reference = copy.deepcopy(model)
    options = poptorch.Options()
    options.Training.gradientAccumulation(2)
    training = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1))
    eager = torch.optim.SGD(reference.parameters(), lr=0.1)
    x, y = MLPClassifier.batch(8, generator)
    _, loss = training(x, y)
    losses, _ = eager_accumulated_step(reference, eager, 4, x, y)
    interface = training._compiled.executable.interface
    assert len(interface.inputs) == 2 and interface.update is not None
    assert all(stream == f"feed[{name}]" for name, stream in interface.inputs.items())
    torch.testing.assert_close(loss, torch.stack(losses)[-1], **FP32)
    assert_parameters_close(model, reference)
    training.destroy()


def _state_variables(graph: ir.Operation) -> dict[str, VariableKind]:
    """The graph's variables that outlive a run (the state the host provides), by name."""
    kinds = {}
    for op in graph.regions[0].blocks[0].operations:
        if op.operation.name == "poplar.variable" and variable_kind(op.operation).outlives_a_run:
            kinds[ir.StringAttr(op.operation.attributes["name"]).value] = variable_kind(op.operation)
    return kinds


def test_the_interface_lists_every_variable_a_training_step_needs_from_the_host() -> None:
    """Momentum and gradient accumulation: the parameters, their accumulators and the
    micro-batch count, their velocity and step count, and the hyper-parameters, each
    once; the host fills exactly these, and the step matches eager PyTorch."""
    generator = torch.Generator().manual_seed(4)
    model = MLPClassifier()
    reference = copy.deepcopy(model)
    options = poptorch.Options()
    options.Training.gradientAccumulation(2)
    training = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
    eager = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    for _ in range(2):
        x, y = MLPClassifier.batch(8, generator)
        _, loss = training(x, y)
        losses, _ = eager_accumulated_step(reference, eager, 4, x, y)
        torch.testing.assert_close(loss, torch.stack(losses)[-1], **FP32)
    assert_parameters_close(model, reference)
    compiled = training._compiled
    variables = compiled.executable.interface.variables
    assert compiled.arguments == compiled.executable.arguments == list(variables)
    assert Executable.from_bytes(compiled.executable.to_bytes()).arguments == list(variables)
    names = [path for path, _ in model.named_parameters()]
    by_kind: dict[str, list[str]] = {}
    for kind, name in variables:
        by_kind.setdefault(kind, []).append(name)
    assert by_kind.pop("parameter") == names
    assert sorted(by_kind.pop("accumulator")) == sorted([f"{name}/accum" for name in names] + ["accumulation_count"])
    assert sorted(by_kind.pop("optimizer_state")) == sorted(f"{name}/{state}" for name in names for state in ("velocity", "step"))
    assert sorted(by_kind.pop("hyper")) == sorted(["loss_scaling", "0.lr", "0.momentum", "0.dampening",
                                                   "0.weight_decay", "0.velocity_scaling"])
    assert by_kind == {}  # no inputs: they stream
    # Each is a state variable of the graph, and no state variable is left out.
    state = _state_variables(_graph(compiled))
    assert sorted(state) == sorted(name for _, name in variables)
    assert all(state[name] == VariableKind.WEIGHT for name in names)
    assert len(variables) == len(set(variables))
    training.destroy()


def test_inference_lists_the_weights_buffers_and_constants_it_was_captured_with() -> None:
    torch.manual_seed(5)
    model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4)).eval()
    wrapper = poptorch.inferenceModel(model)
    x = torch.randn(3, 4)
    torch.testing.assert_close(wrapper(x), model(x), **FP32)
    compiled = wrapper._compiled
    captured = [(str(kind), spec.name) for spec, kind in zip(compiled.captured.weights, compiled.captured.weight_kinds, strict=True)]
    assert compiled.arguments == captured == [
        ("parameter", "0.weight"), ("parameter", "0.bias"), ("parameter", "1.weight"), ("parameter", "1.bias"),
        ("buffer", "1.running_mean"), ("buffer", "1.running_var"), ("buffer", "1.num_batches_tracked")]
    assert sorted(_state_variables(_graph(compiled))) == sorted(name for _, name in compiled.arguments)


# The prefixes poplar-build-program gives variable names: inputs, output anchors, Sum
# totals and inter-IPU exchange buffers; each becomes a name that says nothing.
_NAMED = re.compile(r'("poplar\.variable"\(\) \{[^}]*name = ")(input|anchor|sum|exchange)\.')
_NEUTRAL = {"input": "p", "anchor": "q", "sum": "r", "exchange": "s"}


@pytest.mark.parametrize("kind", ["sharded", "pipelined"])
def test_the_ipu_model_tells_variables_apart_by_kind_not_name(kind: str) -> None:
    torch.manual_seed(3)
    model = LayersOverIpus("block", 2).eval()
    options = poptorch.Options().deviceIterations(4)
    options.setExecutionStrategy(LayersOverIpus.strategy(kind, 2))
    wrapper = poptorch.inferenceModel(model, options)
    x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
    wrapper(x, y)
    compiled = wrapper._compiled
    text = compiled.ir_text()
    renamed, count = _NAMED.subn(lambda m: f"{m.group(1)}{_NEUTRAL[m.group(2)]}", text)
    assert count >= 3  # the input, the anchors, and exchange buffers or sends
    interface = compiled.executable.interface
    feeds = {interface.input_stream("x"): list(x.split(4)), interface.input_stream("target"): list(y.split(4))}
    expected = compiled.program.run(wrapper._stores, {k: list(v) for k, v in feeds.items()})
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(renamed)
        program = interpreter.Program(module.body.operations[0].operation)
        try:
            got = program.run(wrapper._stores, feeds)
        finally:
            program.close()
    assert sorted(got) == sorted(expected)
    for stream, values in expected.items():
        for a, b in zip(got[stream], values, strict=True):
            torch.testing.assert_close(a, b, **EXACT)

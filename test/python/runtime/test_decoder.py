"""The decoder runs what the execution passes planned, with the numbers of the program
as lowered: a pipelined step whose stage 0 updates a state variable read two stages
later from a stash, and updates another one in place, runs a linear layer and a max
pool with its gradient; and a training step whose copies share their buffers or not."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch
from torch_mlir import ir

from ipu_mlir.dialects import make_context
from ipu_mlir.dialects.poplar import VariableKind
from ipu_mlir.runtime.interpreter import DeviceStore, Program

PASSES = "poplar-fuse-linear,poplar-plan-in-place,poplar-share-pool-indices,poplar-share-buffers"

# Stage 0 (IPU 0): n = state + x (written back, and stashed for stage 2); u = u + x;
#   y = linear(x) = x @ w^T + b, sent to IPU 1. Stage 1 (IPU 1): relu, sent back.
# Stage 2 (IPU 0): z = relu(y) + n, and the gradient of a max pool of x read from z.
STEP = """
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<1x1x2x2xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<1x1x2x2xf32>} : () -> ()
  %st = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "state", tiles = array<i64>} : () -> tensor<1x1x2x2xf32>
  %u = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "u", tiles = array<i64>} : () -> tensor<1x1x2x2xf32>
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "fc.weight", tiles = array<i64>} : () -> tensor<4x4xf32>
  %b = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "fc.bias", tiles = array<i64>} : () -> tensor<4xf32>
  %e0 = "poplar.variable"() {ipu = 1 : i64, kind = "exchange", name = "exchange.0", tiles = array<i64>} : () -> tensor<1x4xf32>
  %e1 = "poplar.variable"() {ipu = 0 : i64, kind = "exchange", name = "exchange.1", tiles = array<i64>} : () -> tensor<1x4xf32>
  %out = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<1x4xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<1x4xf32>} : () -> ()
  %gout = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.1", tiles = array<i64>} : () -> tensor<1x1x2x2xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.1", type = tensor<1x1x2x2xf32>} : () -> ()
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<1x1x2x2xf32>) -> ()
    %n = "poplar.popops_map"(%st, %x) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
    "poplar.program_copy"(%n, %st) : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> ()
    %un = "poplar.popops_map"(%u, %x) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
    "poplar.program_copy"(%un, %u) : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> ()
    %flat = "poplar.reshape"(%x) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<1x1x2x2xf32>) -> tensor<1x4xf32>
    %t = "poplar.dim_shuffle"(%w) {permutation = array<i64: 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %m = "poplar.poplin_matmul"(%flat, %t) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32>
    %y = "poplar.popops_add"(%m, %b) {pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
    "poplar.program_copy"(%y, %e0) : (tensor<1x4xf32>, tensor<1x4xf32>) -> ()
    %h = "poplar.popnn_nonlinearity"(%e0) {dim = 0 : i64, kind = "relu", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<1x4xf32>) -> tensor<1x4xf32>
    "poplar.program_copy"(%h, %e1) : (tensor<1x4xf32>, tensor<1x4xf32>) -> ()
    %nf = "poplar.reshape"(%n) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<1x1x2x2xf32>) -> tensor<1x4xf32>
    %z = "poplar.popops_add"(%e1, %nf) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    "poplar.program_copy"(%z, %out) : (tensor<1x4xf32>, tensor<1x4xf32>) -> ()
    %p = "poplar.popnn_pool"(%x) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2, 1>, kind = "max", padding = array<i64: 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, stride = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x1x2xf32>
    %pz = "poplar.reshape"(%z) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<1x4xf32>) -> tensor<1x1x2x2xf32>
    %pg = "poplar.slice"(%pz) {begin = array<i64: 0, 0, 0, 0>, end = array<i64: 1, 1, 1, 2>, stride = array<i64: 1, 1, 1, 1>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<1x1x2x2xf32>) -> tensor<1x1x1x2xf32>
    %pgp = "poplar.popops_mul"(%pg, %p) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
    %gx = "poplar.popnn_pool_grad"(%x, %pgp) {ceil_mode = false, count_include_pad = true, kernel = array<i64: 2, 1>, kind = "max", padding = array<i64: 0, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64, stride = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x1x2x2xf32>
    "poplar.program_copy"(%gx, %gout) : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> ()
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 3 : i64, 3 : i64, 2 : i64, array<i64: 0, 1, 0>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
      "poplar.program_stream_copy"(%out) {stream = "host.output.0"} : (tensor<1x4xf32>) -> ()
      "poplar.program_stream_copy"(%gout) {stream = "host.output.1"} : (tensor<1x1x2x2xf32>) -> ()
    }) {count = 4 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
"""


def _ipu_opt(path, passes: str) -> str:  # noqa: ANN001
    return subprocess.run([sys.executable, "-m", "ipu_mlir.tools.ipu_opt", str(path), "-p", passes],
                          capture_output=True, text=True, check=True).stdout


def _run(source: str, weights: dict[str, torch.Tensor], xs: list[torch.Tensor]) -> tuple[dict, dict, Program]:
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(source)
        program = Program(module.body.operations[0].operation)
        stores = {ipu: DeviceStore(ipu) for ipu in range(program.num_ipus)}
        for name, value in weights.items():
            stores[0].put(name, value.clone())
        outputs = program.run(stores, {"host.input.x": xs})
        program.close()
    return outputs, {name: tensor.clone() for store in stores.values() for name, tensor in store.tensors.items()}, program


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> tuple[str, str]:  # noqa: ANN001
    path = tmp_path_factory.mktemp("step") / "step.mlir"
    path.write_text(STEP)
    scheduled = _ipu_opt(path, "pipeline-schedule")
    path.write_text(scheduled)
    return scheduled, _ipu_opt(path, PASSES)


def test_the_passes_planned_each_rewrite(programs) -> None:  # noqa: ANN001
    _, planned = programs
    assert planned.count('"poplar.poplin_linear"') == 1
    assert planned.count('"poplar.popops_map_in_place"') == 1  # u; the stashed state keeps its result
    assert planned.count('"poplar.popnn_max_pool_with_indices"') == 1
    assert planned.count('"poplar.popnn_max_pool_grad_with_indices"') == 1
    # The state's update and both anchors' copies; not the exchange copies (now send/recv).
    assert planned.count('poplar.copy_mode = "share"') == 3


def test_planned_execution_gives_the_numbers_of_the_program_as_lowered(programs) -> None:  # noqa: ANN001
    scheduled, planned = programs
    torch.manual_seed(0)
    weights = {"fc.weight": torch.randn(4, 4), "fc.bias": torch.randn(4)}
    xs = [torch.randn(1, 1, 2, 2) for _ in range(4)]
    outputs, state, _ = _run(scheduled, weights, xs)
    planned_outputs, planned_state, program = _run(planned, weights, xs)
    assert program.sequential_reason is None  # it ran as a pipeline
    for stream in ("host.output.0", "host.output.1"):
        for got, want in zip(planned_outputs[stream], outputs[stream], strict=True):
            torch.testing.assert_close(got, want, rtol=0, atol=0)
    for name in ("state", "u"):
        torch.testing.assert_close(planned_state[name], state[name], rtol=0, atol=0)
    # Each micro-batch reads the state after its own update: z_k = relu(linear(x_k)) + x_1 + ... + x_k.
    running = torch.zeros(1, 4)
    for x, z in zip(xs, planned_outputs["host.output.0"], strict=True):
        running = running + x.reshape(1, 4)
        torch.testing.assert_close(z, torch.relu(torch.nn.functional.linear(x.reshape(1, 4), weights["fc.weight"], weights["fc.bias"])) + running,
                                   rtol=1e-6, atol=0)


def test_variable_kinds(programs) -> None:  # noqa: ANN001
    _, planned = programs
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(planned)
        program = Program(module.body.operations[0].operation)
    kinds = {name: info.kind for name, info in program.variables.items()}
    assert kinds == {"input.x": VariableKind.INPUT, "state": VariableKind.ACCUMULATOR, "u": VariableKind.ACCUMULATOR,
                     "fc.weight": VariableKind.WEIGHT, "fc.bias": VariableKind.WEIGHT, "anchor.0": VariableKind.ANCHOR,
                     "anchor.1": VariableKind.ANCHOR}  # pipeline-schedule turned the exchange buffers into send/recv
    outlive = sorted(name for name, info in program.variables.items() if info.kind.outlives_a_run)
    assert outlive == ["fc.bias", "fc.weight", "state", "u"]


# A training step run over 3 iterations: out0 = relu(x) + w, out1 = w (a weight returned
# as an output: copied, the update must not reach the iteration's output), then
# w = w - x (a fresh result: shared).
UPDATE_STEP = """
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<4xf32>} : () -> ()
  %w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "fc.weight", tiles = array<i64>} : () -> tensor<4xf32>
  %out0 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<4xf32>} : () -> ()
  %out1 = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.1", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.1", type = tensor<4xf32>} : () -> ()
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<4xf32>) -> ()
    %r = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu"} : (tensor<4xf32>) -> tensor<4xf32>
    %y = "poplar.popops_add"(%r, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%y, %out0) : (tensor<4xf32>, tensor<4xf32>) -> ()
    "poplar.program_copy"(%w, %out1) : (tensor<4xf32>, tensor<4xf32>) -> ()
    %w2 = "poplar.popops_map"(%w, %x) {expr = "sub(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%w2, %w) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
      "poplar.program_stream_copy"(%out0) {stream = "host.output.0"} : (tensor<4xf32>) -> ()
      "poplar.program_stream_copy"(%out1) {stream = "host.output.1"} : (tensor<4xf32>) -> ()
    }) {count = 3 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
"""


def test_shared_buffers_give_the_numbers_of_copies(tmp_path) -> None:  # noqa: ANN001
    path = tmp_path / "update.mlir"
    path.write_text(UPDATE_STEP)
    shared = _ipu_opt(path, "poplar-share-buffers")
    assert shared.count('poplar.copy_mode = "share"') == 2  # out0 and the weight update, not out1
    torch.manual_seed(0)
    weight = torch.randn(4)
    xs = [torch.randn(4) for _ in range(3)]
    copied_outputs, copied_state, _ = _run(UPDATE_STEP, {"fc.weight": weight}, xs)
    shared_outputs, shared_state, _ = _run(shared, {"fc.weight": weight}, xs)
    w = weight.clone()
    for k, x in enumerate(xs):
        for outputs in (copied_outputs, shared_outputs):
            torch.testing.assert_close(outputs["host.output.0"][k], torch.relu(x) + w, rtol=0, atol=0)
            torch.testing.assert_close(outputs["host.output.1"][k], w, rtol=0, atol=0)
        w = w - x
    torch.testing.assert_close(copied_state["fc.weight"], w, rtol=0, atol=0)
    torch.testing.assert_close(shared_state["fc.weight"], w, rtol=0, atol=0)

"""The IPU Model runs pipeline.stash / pipeline.restore: each micro-batch gets back its
own value, also when the stashed value is the new contents of a variable that later
micro-batches update before the restoring stage runs."""

from __future__ import annotations

import torch
from helpers import EXACT, IPU_OPT, run_tool
from torch_mlir import ir

from ipu_mlir.dialects import make_context
from ipu_mlir.runtime import interpreter

# Stage 0 adds x to a state variable (n = state + x, written back) and stage 2 reads n:
# pipeline-schedule stashes n at depth 2. Micro-batch k must see the state after its own
# update: z_k = relu(relu(x_k)) + (x_1 + ... + x_k).
STATE_READ_TWO_STAGES_LATER = """
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<2xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<2xf32>} : () -> ()
  %st = "poplar.variable"() {ipu = 0 : i64, kind = "accumulator", name = "state", tiles = array<i64>} : () -> tensor<2xf32>
  %e0 = "poplar.variable"() {ipu = 1 : i64, kind = "exchange", name = "exchange.0", tiles = array<i64>} : () -> tensor<2xf32>
  %e1 = "poplar.variable"() {ipu = 0 : i64, kind = "exchange", name = "exchange.1", tiles = array<i64>} : () -> tensor<2xf32>
  %out = "poplar.variable"() {ipu = 0 : i64, kind = "anchor", name = "anchor.0", tiles = array<i64>} : () -> tensor<2xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<2xf32>} : () -> ()
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<2xf32>) -> ()
    %n = "poplar.popops_map"(%st, %x) {expr = "add(_1, _2)", operandSegmentSizes = array<i32: 1, 1, 0>, pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "poplar.program_copy"(%n, %st) : (tensor<2xf32>, tensor<2xf32>) -> ()
    %h = "poplar.popnn_nonlinearity"(%x) {dim = 0 : i64, kind = "relu", pipeline.ipu = 0 : i64, pipeline.stage = 0 : i64} : (tensor<2xf32>) -> tensor<2xf32>
    "poplar.program_copy"(%h, %e0) : (tensor<2xf32>, tensor<2xf32>) -> ()
    %y = "poplar.popnn_nonlinearity"(%e0) {dim = 0 : i64, kind = "relu", pipeline.ipu = 1 : i64, pipeline.stage = 1 : i64} : (tensor<2xf32>) -> tensor<2xf32>
    "poplar.program_copy"(%y, %e1) : (tensor<2xf32>, tensor<2xf32>) -> ()
    %z = "poplar.popops_add"(%e1, %n) {pipeline.ipu = 0 : i64, pipeline.stage = 2 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "poplar.program_copy"(%z, %out) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }) {name = "step", pipeline.plan = #pipeline.plan<"pipelined", 3 : i64, 3 : i64, 2 : i64, array<i64: 0, 1, 0>>} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
      "poplar.program_stream_copy"(%out) {stream = "host.output.0"} : (tensor<2xf32>) -> ()
    }) {count = 4 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 2 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
"""


def test_a_stashed_update_is_not_overwritten_by_later_micro_batches(tmp_path) -> None:  # noqa: ANN001
    source = tmp_path / "step.mlir"
    source.write_text(STATE_READ_TWO_STAGES_LATER)
    result = run_tool(IPU_OPT, str(source), "-p", "pipeline-schedule")
    assert result.returncode == 0, result.stderr
    scheduled = result.stdout
    assert scheduled.count('"pipeline.stash"') == 1
    with make_context(), ir.Location.unknown():
        module = ir.Module.parse(scheduled)
        program = interpreter.Program(module.body.operations[0].operation)
        stores = {ipu: interpreter.DeviceStore(ipu) for ipu in range(program.num_ipus)}
        xs = [torch.full((2,), float(k + 1)) for k in range(4)]
        outputs = program.run(stores, {"host.input.x": xs})["host.output.0"]
        program.close()
    assert program.sequential_reason is None  # it ran as a pipeline
    assert [out.tolist() for out in outputs] == [[2.0, 2.0], [5.0, 5.0], [9.0, 9.0], [14.0, 14.0]]
    torch.testing.assert_close(stores[0].tensors["state"], torch.full((2,), 10.0), **EXACT)

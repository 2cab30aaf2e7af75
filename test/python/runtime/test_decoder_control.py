"""The IPU Model runs device control flow: a ``poplar.program_repeat`` calling a body
function that updates its carried variable, and a ``poplar.program_if`` that runs only the
branch its device-computed condition picks (poptorch.for_loop / poptorch.cond)."""

from __future__ import annotations

import pytest
import torch
from torch_mlir import ir

from ipu_mlir.dialects import make_context
from ipu_mlir.runtime.interpreter import DeviceStore, Program

# c = x; repeat 3: c = c * 2 + 1; if sum(c) > 0: r = c * c else: r = -c (printed)
GRAPH = """
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<4xf32>} : () -> ()
  %o = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<4xf32>} : () -> ()
  %c = "poplar.variable"() {name = "step.loop0.carried.0", kind = "loop", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %r = "poplar.variable"() {name = "step.cond1.result.0", kind = "loop", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.function"() ({
    %d = "poplar.popops_map"(%c) {expr = "add(mul(_1, 2.0), 1.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%d, %c) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {name = "step.loop0.body"} : () -> ()
  "poplar.function"() ({
    %n = "poplar.popops_mul"(%c, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%n, %r) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {name = "step.cond1.then"} : () -> ()
  "poplar.function"() ({
    %m = "poplar.popops_map"(%c) {expr = "neg(_1)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_print_tensor"(%m) {title = "else"} : (tensor<4xf32>) -> ()
    "poplar.program_copy"(%m, %r) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {name = "step.cond1.else"} : () -> ()
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<4xf32>) -> ()
    "poplar.program_copy"(%x, %c) : (tensor<4xf32>, tensor<4xf32>) -> ()
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step.loop0.body"} : () -> ()
    }) {count = 3 : i64} : () -> ()
    %s = "poplar.popops_reduce"(%c) {op = "add", dims = array<i64: 0>, keep_dims = false, scale = 1.0 : f64} : (tensor<4xf32>) -> tensor<f32>
    %p = "poplar.popops_map"(%s) {expr = "gt(_1, 0.0)", operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<f32>) -> tensor<i1>
    "poplar.program_if"(%p) ({
      "poplar.program_call"() {callee = "step.cond1.then"} : () -> ()
    }, {
      "poplar.program_call"() {callee = "step.cond1.else"} : () -> ()
    }) : (tensor<i1>) -> ()
    "poplar.program_copy"(%r, %o) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
      "poplar.program_stream_copy"(%o) {stream = "host.output.0"} : (tensor<4xf32>) -> ()
    }) {count = 2 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 4 : i64} : () -> ()
"""


def _loop(x: torch.Tensor) -> torch.Tensor:
    c = x
    for _ in range(3):
        c = c * 2 + 1
    return c


def _expected(x: torch.Tensor) -> torch.Tensor:
    c = _loop(x)
    return c * c if c.sum() > 0 else -c


@pytest.mark.parametrize("scale", [1.0, -3.0])
def test_repeat_and_if_run_as_the_program_says(scale: float, capsys: pytest.CaptureFixture[str]) -> None:
    context = make_context()
    module = ir.Module.parse(f'"builtin.module"() ({{\n{GRAPH}\n}}) : () -> ()', context)
    program = Program(module.body.operations[0].operation)
    xs = [torch.tensor([1.0, -2.0, 3.0, 0.5]) * scale, torch.tensor([-4.0, 1.0, -1.0, 0.0]) * scale]
    outputs = program.run({0: DeviceStore(0)}, {"host.input.x": xs})
    got = outputs["host.output.0"]
    assert len(got) == 2
    for value, x in zip(got, xs, strict=True):
        torch.testing.assert_close(value, _expected(x), rtol=0, atol=0)
    printed = capsys.readouterr().out
    # Only the branch taken runs: the else branch prints once per iteration that takes it.
    assert printed.count("else") == sum(1 for x in xs if _loop(x).sum() <= 0)

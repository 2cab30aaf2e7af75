"""The IPU Model's streaming memory: an off-chip variable (``poplar.remote_buffer`` on it)
lives in its IPU's remote store; ``program_remote_load`` copies it on chip, ``program_remote_store``
back; the host reads and writes it there; a buffer of no variable starts at zero."""

from __future__ import annotations

import torch
from torch_mlir import ir

from ipu_mlir.dialects import make_context
from ipu_mlir.runtime.interpreter import DeviceStore, Program

# Per step: m = m + x (m off chip), out = m * w (w on chip); a scratch buffer keeps the last m.
GRAPH = """
"poplar.graph"() ({
  %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<4xf32>} : () -> ()
  %o = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<4xf32>} : () -> ()
  %w = "poplar.variable"() {name = "w", kind = "weight", ipu = 0 : i64, tiles = array<i64>} : () -> tensor<4xf32>
  %m = "poplar.variable"() {name = "m", kind = "optimizer_state", ipu = 0 : i64, poplar.remote_buffer = "remote.m", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.remote_buffer"() {name = "remote.m", type = tensor<4xf32>, repeats = 1 : i64} : () -> ()
  "poplar.remote_buffer"() {name = "scratch", type = tensor<4xf32>, repeats = 1 : i64} : () -> ()
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<4xf32>) -> ()
    "poplar.program_remote_load"(%m) {buffer = "remote.m"} : (tensor<4xf32>) -> ()
    %n = "poplar.popops_add"(%m, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%n, %m) : (tensor<4xf32>, tensor<4xf32>) -> ()
    "poplar.program_remote_store"(%m) {buffer = "remote.m"} : (tensor<4xf32>) -> ()
    "poplar.program_remote_store"(%n) {buffer = "scratch"} : (tensor<4xf32>) -> ()
    %p = "poplar.popops_mul"(%n, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "poplar.program_copy"(%p, %o) : (tensor<4xf32>, tensor<4xf32>) -> ()
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
      "poplar.program_stream_copy"(%o) {stream = "host.output.0"} : (tensor<4xf32>) -> ()
    }) {count = 2 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 4 : i64} : () -> ()
"""


def test_remote_loads_and_stores_copy_through_the_remote_store() -> None:
    context = make_context()
    module = ir.Module.parse(f'"builtin.module"() ({{\n{GRAPH}\n}}) : () -> ()', context)
    program = Program(module.body.operations[0].operation)
    store = DeviceStore(0)
    w, m0 = torch.tensor([1.0, 2.0, 3.0, 4.0]), torch.tensor([0.5, 0.5, -1.0, 2.0])
    store.put("w", w)
    store.put("m", m0.clone())  # before the first run: held on chip until the program binds its buffer
    xs = [torch.tensor([1.0, -2.0, 3.0, 0.5]), torch.tensor([-4.0, 1.0, -1.0, 0.0])]
    outputs = program.run({0: store}, {"host.input.x": xs})["host.output.0"]
    m1 = m0 + xs[0]
    m2 = m1 + xs[1]
    torch.testing.assert_close(outputs[0], m1 * w, rtol=0, atol=0)
    torch.testing.assert_close(outputs[1], m2 * w, rtol=0, atol=0)
    # The off-chip variable lives in streaming memory, not on chip, and the host sees it there.
    assert "m" not in store.tensors and store.homes == {"m": "remote.m"}
    torch.testing.assert_close(store.remote["remote.m"], m2, rtol=0, atol=0)
    torch.testing.assert_close(store.get("m"), m2, rtol=0, atol=0)
    torch.testing.assert_close(store.remote["scratch"], m2, rtol=0, atol=0)
    assert store.streaming_bytes() == 2 * 4 * 4
    # A host write goes to the buffer, and the next run loads it.
    store.put("m", torch.zeros(4))
    again = program.run({0: store}, {"host.input.x": xs[:1] * 2})["host.output.0"]
    torch.testing.assert_close(again[0], xs[0] * w, rtol=0, atol=0)

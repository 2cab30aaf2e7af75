"""The collectives (gcl::*CrossReplica) and replication in the emitted Poplar C++.

tools/poplar-host runs one replica: a program of one replica with collectives (each group
is the replica alone) builds and runs against it, and gives the values the IPU Model gives
(a reduction, gather or broadcast of one value is the value); a replicated model exports
and builds, and poplar-host refuses to run it with a message naming the replication.
Skipped only when no C++ compiler is found."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from torch_mlir import ir

import poptorch
from helpers import FP32
from ipu_mlir.compiler.codegen import emit_cpp
from ipu_mlir.dialects import make_context

sys.path.insert(0, str(Path(__file__).parent))
from test_roundtrip import CXX, HOST, host_library, pytestmark  # noqa: E402,F401  (the library fixture, the skip)

# One replica: x -> mean over the group of all (one) -> max scattered over a consecutive group
# of one -> gathered over an orthogonal group of one -> broadcast from rank 0 of a group of
# none -> + x, so every collective must hand on its input unchanged: 2 x.
_ONE_REPLICA = """
"builtin.module"() ({
  "poplar.graph"() ({
    %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 2>} : () -> tensor<8x3xf32>
    %o = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64: 2, 2>} : () -> tensor<8x3xf32>
    "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<8x3xf32>} : () -> ()
    "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<8x3xf32>} : () -> ()
    "poplar.function"() ({
      %0 = "poplar.gcl_all_reduce"(%x) {op = "mean", group = #poplar.comm_group<"all", 0 : i64>} : (tensor<8x3xf32>) -> tensor<8x3xf32>
      %1 = "poplar.gcl_reduce_scatter"(%0) {op = "max", group = #poplar.comm_group<"consecutive", 1 : i64>} : (tensor<8x3xf32>) -> tensor<8x3xf32>
      %2 = "poplar.gcl_all_gather"(%1) {group = #poplar.comm_group<"orthogonal", 1 : i64>} : (tensor<8x3xf32>) -> tensor<8x3xf32>
      %3 = "poplar.gcl_broadcast"(%2) {root = 0 : i64, group = #poplar.comm_group<"none", 0 : i64>} : (tensor<8x3xf32>) -> tensor<8x3xf32>
      %4 = "poplar.popops_add"(%3, %x) : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
      "poplar.program_copy"(%4, %o) : (tensor<8x3xf32>, tensor<8x3xf32>) -> ()
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_repeat"() ({
        "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<8x3xf32>) -> ()
        "poplar.program_call"() {callee = "step"} : () -> ()
        "poplar.program_stream_copy"(%o) {stream = "host.output.0"} : (tensor<8x3xf32>) -> ()
      }) {count = 2 : i64} : () -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()
"""


def _build(source: Path, host_library: Path) -> Path:
    program = source.parent / "program"
    built = subprocess.run([CXX, "-std=c++17", "-O1", f"-I{HOST / 'include'}", str(source), str(host_library),
                            "-o", str(program)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-4000:]
    return program


def test_collectives_of_one_replica_hand_on_their_input(host_library: Path, tmp_path: Path) -> None:
    text = emit_cpp(ir.Module.parse(_ONE_REPLICA, make_context()))
    assert "gcl::allReduceCrossReplica(graph, " in text and "gcl::broadcastCrossReplica(graph, " in text
    source = tmp_path / "program.cpp"
    source.write_text(text)
    x = torch.randn(2, 8, 3)  # the two transfers of the repeat
    (tmp_path / "host.input.x.bin").write_bytes(x.numpy().tobytes())
    (tmp_path / "weights.bin").write_bytes(b"")
    ran = subprocess.run([str(_build(source, host_library)), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    got = torch.from_numpy(np.fromfile(tmp_path / "host.output.0.bin", dtype=np.float32)).reshape(2, 8, 3)
    torch.testing.assert_close(got, 2 * x, **FP32)


def test_a_replicated_model_exports_and_poplar_host_refuses_to_run_it(host_library: Path, tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 3)
    wrapper = poptorch.inferenceModel(model, poptorch.Options().replicationFactor(2))
    x = torch.randn(4, 4)
    torch.testing.assert_close(wrapper(x), model(x), **FP32)
    source = tmp_path / "program.cpp"
    wrapper.exportPoplarCpp(str(source))
    text = source.read_text()
    assert "constexpr unsigned kReplicas = 2;" in text
    assert "poplar::Graph graph(device.getTarget(), poplar::replication_factor(kReplicas));" in text
    ran = subprocess.run([str(_build(source, host_library)), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 1
    assert ("error: poplar-host: a graph replicated 2 times (replication_factor(2)) needs the Poplar SDK: poplar-host runs "
            "one replica; compile the model with replicationFactor(1) to run it here") in ran.stderr

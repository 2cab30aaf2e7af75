"""The collectives (gcl::*CrossReplica) and replication in the emitted Poplar C++.

tools/poplar-host runs the R replicas of a replicated graph in lock step: a program of one
replica with collectives (each group is the replica alone) gives its input back; a graph of
four replicas gives each replica its group's reduction, scatter, gather and broadcast for
consecutive and orthogonal groups; a replicated inference model (with device iterations)
and a replicated training step (the gradients all-reduced by gcl calls) match the IPU Model,
replica by replica. Skipped only when no C++ compiler is found."""

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
from roundtrip_models import MLP, MLPWithLoss  # noqa: E402
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


# Four replicas, one transfer each: x -> sum over all; consecutive pairs' sum scattered (rows
# [4 rank, 4 rank + 4)); those parts gathered over orthogonal pairs (replicas 2 apart); x of
# rank 1 of each consecutive pair broadcast.
_FOUR_REPLICAS = """
"builtin.module"() ({
  "poplar.graph"() ({
    %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 2>} : () -> tensor<8x3xf32>
    %o0 = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64: 2, 1>} : () -> tensor<8x3xf32>
    %o1 = "poplar.variable"() {name = "anchor.1", kind = "anchor", ipu = 0 : i64, tiles = array<i64: 3, 1>} : () -> tensor<8x3xf32>
    %o2 = "poplar.variable"() {name = "anchor.2", kind = "anchor", ipu = 0 : i64, tiles = array<i64: 4, 1>} : () -> tensor<8x3xf32>
    "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<8x3xf32>} : () -> ()
    "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<8x3xf32>} : () -> ()
    "poplar.host_stream"() {direction = "device_to_host", name = "host.output.1", type = tensor<8x3xf32>} : () -> ()
    "poplar.host_stream"() {direction = "device_to_host", name = "host.output.2", type = tensor<8x3xf32>} : () -> ()
    "poplar.function"() ({
      %0 = "poplar.gcl_all_reduce"(%x) {op = "add", group = #poplar.comm_group<"all", 0 : i64>} : (tensor<8x3xf32>) -> tensor<8x3xf32>
      %1 = "poplar.gcl_reduce_scatter"(%x) {op = "add", group = #poplar.comm_group<"consecutive", 2 : i64>} : (tensor<8x3xf32>) -> tensor<4x3xf32>
      %2 = "poplar.gcl_all_gather"(%1) {group = #poplar.comm_group<"orthogonal", 2 : i64>} : (tensor<4x3xf32>) -> tensor<8x3xf32>
      %3 = "poplar.gcl_broadcast"(%x) {root = 1 : i64, group = #poplar.comm_group<"consecutive", 2 : i64>} : (tensor<8x3xf32>) -> tensor<8x3xf32>
      "poplar.program_copy"(%0, %o0) : (tensor<8x3xf32>, tensor<8x3xf32>) -> ()
      "poplar.program_copy"(%2, %o1) : (tensor<8x3xf32>, tensor<8x3xf32>) -> ()
      "poplar.program_copy"(%3, %o2) : (tensor<8x3xf32>, tensor<8x3xf32>) -> ()
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<8x3xf32>) -> ()
      "poplar.program_call"() {callee = "step"} : () -> ()
      "poplar.program_stream_copy"(%o0) {stream = "host.output.0"} : (tensor<8x3xf32>) -> ()
      "poplar.program_stream_copy"(%o1) {stream = "host.output.1"} : (tensor<8x3xf32>) -> ()
      "poplar.program_stream_copy"(%o2) {stream = "host.output.2"} : (tensor<8x3xf32>) -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 4 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()
"""


def test_collectives_of_four_replicas_combine_their_groups(host_library: Path, tmp_path: Path) -> None:
    source = tmp_path / "program.cpp"
    source.write_text(emit_cpp(ir.Module.parse(_FOUR_REPLICAS, make_context())))
    x = torch.randn(4, 8, 3)  # replica after replica (integers would hide an order of the sum)
    (tmp_path / "host.input.x.bin").write_bytes(x.numpy().tobytes())
    (tmp_path / "weights.bin").write_bytes(b"")
    ran = subprocess.run([str(_build(source, host_library)), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    out = [torch.from_numpy(np.fromfile(tmp_path / f"host.output.{i}.bin", dtype=np.float32)).reshape(4, 8, 3) for i in range(3)]
    total = ((x[0] + x[1]) + x[2]) + x[3]  # group-rank order, as the IPU Model reduces
    pairs = [x[0] + x[1], x[2] + x[3]]
    parts = [pairs[r // 2][4 * (r % 2):4 * (r % 2) + 4] for r in range(4)]
    for r in range(4):
        torch.testing.assert_close(out[0][r], total, rtol=0, atol=0)
        torch.testing.assert_close(out[1][r], torch.cat([parts[r % 2], parts[r % 2 + 2]]), rtol=0, atol=0)
        torch.testing.assert_close(out[2][r], x[2 * (r // 2) + 1], rtol=0, atol=0)


def _run(source: Path, host_library: Path) -> None:
    ran = subprocess.run([str(_build(source, host_library)), str(source.parent)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr


def test_a_replicated_inference_model_matches_the_ipu_model(host_library: Path, tmp_path: Path) -> None:
    """Two replicas, two device iterations: the host's batch [iterations][replicas][micro-batch]
    is each replica's stream, replica after replica, in the program's files."""
    torch.manual_seed(0)
    model, (d, r, b) = MLP(), (2, 2, 2)
    wrapper = poptorch.inferenceModel(model, poptorch.Options().replicationFactor(r).deviceIterations(d))
    x = torch.randn(d * r * b, 8)
    expected = wrapper(x)
    torch.testing.assert_close(expected, model(x), **FP32)
    source = tmp_path / "program.cpp"
    wrapper.exportPoplarCpp(str(source))
    assert "poplar::Graph graph(device.getTarget(), poplar::replication_factor(kReplicas));" in source.read_text()
    interface = wrapper._compiled.executable.interface
    [spec] = wrapper._compiled.captured.inputs
    replica_major = x.reshape(d, r, b, 8).transpose(0, 1).contiguous()
    (tmp_path / f"{interface.input_stream(spec.name)}.bin").write_bytes(replica_major.numpy().tobytes())
    _run(source, host_library)
    raw = torch.from_numpy(np.fromfile(tmp_path / f"{interface.output_stream(0)}.bin", dtype=np.float32))
    torch.testing.assert_close(raw.reshape(r, d, b, 4).transpose(0, 1).reshape(expected.shape), expected, **FP32)


def test_a_replicated_training_step_matches_the_ipu_model(host_library: Path, tmp_path: Path) -> None:
    """One SGD step on two replicas: each replica's loss is the IPU Model's, and the gradients,
    all-reduced across the replicas by gcl::allReduceCrossReplica, leave both replicas with
    the IPU Model's updated weights."""
    torch.manual_seed(0)
    model, r = MLPWithLoss(), 2
    wrapper = poptorch.trainingModel(model, poptorch.Options().replicationFactor(r),
                                     optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    x, target = torch.randn(2 * r, 8), torch.randn(2 * r, 4)
    wrapper.compile(x, target)
    source = tmp_path / "program.cpp"
    wrapper.exportPoplarCpp(str(source))
    assert "gcl::allReduceCrossReplica(graph, " in source.read_text()
    interface = wrapper._compiled.executable.interface
    for spec, tensor in zip(wrapper._compiled.captured.inputs, (x, target), strict=True):
        (tmp_path / f"{interface.input_stream(spec.name)}.bin").write_bytes(tensor.numpy().tobytes())
    out, loss = wrapper(x, target)
    wrapper.copyWeightsToHost()
    _run(source, host_library)

    read = [torch.from_numpy(np.fromfile(tmp_path / f"{stream}.bin", dtype=np.float32)) for stream in interface.outputs]
    assert loss.shape == (r,)  # one loss per replica
    torch.testing.assert_close(read[0], loss, **FP32)
    torch.testing.assert_close(read[1].reshape(out.shape), out, **FP32)
    updated = torch.from_numpy(np.fromfile(tmp_path / "weights.out.bin", dtype=np.float32)).reshape(r, -1)  # per replica
    parameters = dict(model.named_parameters())
    offset, checked = 0, 0
    for kind, name in interface.variables:
        size = parameters[name].numel() if kind == "parameter" else 1  # the hyper-parameters: fp32 scalars
        if kind == "parameter":
            for replica in range(r):
                torch.testing.assert_close(updated[replica, offset:offset + size].reshape(parameters[name].shape),
                                           parameters[name].detach(), **FP32)
            checked += 1
        offset += size
    assert offset == updated.shape[1] and checked == 4


# Replicated tensor sharding takes a replica's part of its own value with
# reduceScatterCrossReplica(LOCAL) (no reduction): replica r gets rows [2r, 2r + 2) of its x.
_LOCAL_SCATTER = """
"builtin.module"() ({
  "poplar.graph"() ({
    %x = "poplar.variable"() {name = "input.x", kind = "input", ipu = 0 : i64, tiles = array<i64: 0, 2>} : () -> tensor<4x3xf32>
    %o = "poplar.variable"() {name = "anchor.0", kind = "anchor", ipu = 0 : i64, tiles = array<i64: 2, 1>} : () -> tensor<2x3xf32>
    "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<4x3xf32>} : () -> ()
    "poplar.host_stream"() {direction = "device_to_host", name = "host.output.0", type = tensor<2x3xf32>} : () -> ()
    "poplar.function"() ({
      %0 = "poplar.gcl_reduce_scatter"(%x) {op = "local", group = #poplar.comm_group<"all", 0 : i64>} : (tensor<4x3xf32>) -> tensor<2x3xf32>
      "poplar.program_copy"(%0, %o) : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()
    }) {name = "step"} : () -> ()
    "poplar.program_sequence"() ({
      "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<4x3xf32>) -> ()
      "poplar.program_call"() {callee = "step"} : () -> ()
      "poplar.program_stream_copy"(%o) {stream = "host.output.0"} : (tensor<2x3xf32>) -> ()
    }) {name = "main"} : () -> ()
  }) {num_ipus = 1 : i64, replication_factor = 2 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
}) : () -> ()
"""


def test_a_local_reduce_scatter_gives_each_replica_its_own_part(host_library: Path, tmp_path: Path) -> None:
    source = tmp_path / "program.cpp"
    text = emit_cpp(ir.Module.parse(_LOCAL_SCATTER, make_context()))
    assert "popops::CollectiveOperator::LOCAL" in text
    source.write_text(text)
    x = torch.randn(2, 4, 3)  # replica after replica
    (tmp_path / "host.input.x.bin").write_bytes(x.numpy().tobytes())
    (tmp_path / "weights.bin").write_bytes(b"")
    _run(source, host_library)
    out = torch.from_numpy(np.fromfile(tmp_path / "host.output.0.bin", dtype=np.float32)).reshape(2, 2, 3)
    for r in range(2):
        torch.testing.assert_close(out[r], x[r][2 * r:2 * r + 2], rtol=0, atol=0)

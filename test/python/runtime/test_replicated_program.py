"""Replicated execution of a hand-written poplar.graph (runtime/replicas.py): four replicas
run concurrently, each collective meets the replicas of its group, and every replica of a
group gets bit-identical values. A failing replica or exchange stops every replica with
that error; nothing waits forever."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import torch
from torch_mlir import ir

from helpers import time_bound
from ipu_mlir.dialects import make_context
from ipu_mlir.runtime.device_store import DeviceStore
from ipu_mlir.runtime.replicas import ReplicaError, ReplicatedProgram

GRAPH = """
"poplar.graph"() ({
  %x = "poplar.variable"() {ipu = 0 : i64, kind = "input", name = "input.x", tiles = array<i64>} : () -> tensor<4xf32>
  "poplar.host_stream"() {direction = "host_to_device", name = "host.input.x", type = tensor<4xf32>} : () -> ()
  OUTPUTS
  "poplar.function"() ({
    "poplar.program_stream_copy"(%x) {stream = "host.input.x"} : (tensor<4xf32>) -> ()
    %sum = "poplar.gcl_all_reduce"(%x) {op = "add", group = #poplar.comm_group<"all", 0 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
    %max = "poplar.gcl_all_reduce"(%x) {op = "max", group = #poplar.comm_group<"consecutive", 2 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
    %mean = "poplar.gcl_all_reduce"(%x) {op = "mean", group = #poplar.comm_group<"orthogonal", 2 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
    %rs = "poplar.gcl_reduce_scatter"(%x) {op = "add", group = #poplar.comm_group<"all", 0 : i64>} : (tensor<4xf32>) -> tensor<1xf32>
    %ag = "poplar.gcl_all_gather"(%x) {group = #poplar.comm_group<"orthogonal", 2 : i64>} : (tensor<4xf32>) -> tensor<8xf32>
    %bc = "poplar.gcl_broadcast"(%x) {root = 1 : i64, group = #poplar.comm_group<"consecutive", 2 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
    %one = "poplar.gcl_all_reduce"(%x) {op = "add", group = #poplar.comm_group<"none", 0 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
    COPIES
  }) {name = "step"} : () -> ()
  "poplar.program_sequence"() ({
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
      STREAMS
    }) {count = 2 : i64} : () -> ()
  }) {name = "main"} : () -> ()
}) {num_ipus = 1 : i64, replication_factor = 4 : i64, tiles_per_ipu = 1472 : i64} : () -> ()
"""
RESULTS = {"sum": 4, "max": 4, "mean": 4, "rs": 1, "ag": 8, "bc": 4, "one": 4}


def _graph_text() -> str:
    outputs, copies, streams = [], [], []
    for name, size in RESULTS.items():
        outputs.append(f'%o_{name} = "poplar.variable"() {{ipu = 0 : i64, kind = "anchor", name = "anchor.{name}", '
                       f'tiles = array<i64>}} : () -> tensor<{size}xf32>\n  "poplar.host_stream"() {{direction = '
                       f'"device_to_host", name = "host.output.{name}", type = tensor<{size}xf32>}} : () -> ()')
        copies.append(f'"poplar.program_copy"(%{name}, %o_{name}) : (tensor<{size}xf32>, tensor<{size}xf32>) -> ()')
        streams.append(f'"poplar.program_stream_copy"(%o_{name}) {{stream = "host.output.{name}"}} : (tensor<{size}xf32>) -> ()')
    return (GRAPH.replace("OUTPUTS", "\n  ".join(outputs)).replace("COPIES", "\n    ".join(copies))
            .replace("STREAMS", "\n      ".join(streams)))


@pytest.fixture(autouse=True)
def bounded_time() -> Iterator[None]:
    with time_bound("the replicas", 60):
        yield


@pytest.fixture
def program() -> Iterator[ReplicatedProgram]:
    context = make_context()
    with context:
        module = ir.Module.parse(_graph_text())
        replicated = ReplicatedProgram(module.body.operations[0].operation, timeout=10.0)
        yield replicated
        replicated.close()
        del module


def _run(program: ReplicatedProgram, inputs: list[list[torch.Tensor]]) -> list[dict[str, list[torch.Tensor]]]:
    stores = [{0: DeviceStore(0)} for _ in program.ranks]
    return program.run_replicas(stores, [{"host.input.x": values} for values in inputs])


def test_collectives_within_their_groups(program: ReplicatedProgram) -> None:
    xs = [[torch.randn(4) for _ in range(2)] for _ in range(4)]  # replica r, step s
    outputs = _run(program, xs)
    assert program.communicator.calls == 2  # the 7 adjacent collectives of a step meet once
    for step in range(2):
        x = [xs[r][step] for r in range(4)]
        for r in range(4):
            got = {name: outputs[r][f"host.output.{name}"][step] for name in RESULTS}
            consecutive = [0, 1] if r < 2 else [2, 3]  # groups of 2 consecutive replicas
            orthogonal = [0, 2] if r % 2 == 0 else [1, 3]  # 2 groups of ranks 2 apart
            torch.testing.assert_close(got["sum"], ((x[0] + x[1]) + x[2]) + x[3], rtol=0, atol=0)
            torch.testing.assert_close(got["max"], torch.maximum(x[consecutive[0]], x[consecutive[1]]), rtol=0, atol=0)
            torch.testing.assert_close(got["mean"], (x[orthogonal[0]] + x[orthogonal[1]]) / 2, rtol=0, atol=0)
            torch.testing.assert_close(got["rs"], (((x[0] + x[1]) + x[2]) + x[3])[r:r + 1], rtol=0, atol=0)
            torch.testing.assert_close(got["ag"], torch.cat([x[orthogonal[0]], x[orthogonal[1]]]), rtol=0, atol=0)
            torch.testing.assert_close(got["bc"], x[consecutive[1]], rtol=0, atol=0)  # root: group rank 1
            torch.testing.assert_close(got["one"], x[r], rtol=0, atol=0)


def test_a_failing_replica_stops_the_others(program: ReplicatedProgram) -> None:
    xs = [[torch.randn(4) for _ in range(2)] for _ in range(4)]
    xs[2] = xs[2][:1]  # replica 2 runs out of input in the second step, before its collectives
    start = time.perf_counter()
    with pytest.raises(RuntimeError, match="host stream 'host.input.x' ran out of data after 1 elements"):
        _run(program, xs)
    assert time.perf_counter() - start < 5  # not the 10 s timeout: the meeting broke at once
    outputs = _run(program, [[torch.randn(4) for _ in range(2)] for _ in range(4)])  # and the program runs again
    assert len(outputs) == 4


class _FailingExchange:
    def exchange(self, tensors: dict[int, torch.Tensor], what: str) -> dict[int, torch.Tensor]:
        raise TimeoutError(f"process 1 did not answer at {what}")


def test_replicas_of_other_processes_need_an_exchange() -> None:
    context = make_context()
    with context:
        module = ir.Module.parse(_graph_text())
        local = ReplicatedProgram(module.body.operations[0].operation, ranks=[0, 1], timeout=10.0)
        try:
            with pytest.raises(ReplicaError, match=r"this process runs replicas \[0, 1\] of 4: the others run in other "
                                                   "processes, so the collectives need an exchange"):
                _run(local, [[torch.randn(4)] * 2] * 2)
            local.set_exchange(_FailingExchange())
            with pytest.raises(TimeoutError, match=r"process 1 did not answer at 7 collectives \('poplar.gcl_all_gather', 'poplar.gcl_all_reduce'"):
                _run(local, [[torch.randn(4)] * 2] * 2)
        finally:
            local.close()

"""Programs whose region has no block, through the passes that plan a ``poplar.graph``.

The generic form ``({ })`` is a region with no block, and the poplar dialect accepts it
(``test/Dialect/poplar/ops.mlir``'s ``empty_function``). The passes read each program's
first block, so a ``poplar.function``, ``program_sequence`` or ``program_repeat`` without
one was an internal IndexError in poplar-plan-memory and in every pass walking the run
blocks (fuse-linear, plan-in-place, share-pool-indices, share-buffers, fuse-elementwise),
estimate-cycles, pipeline-schedule (a planned step) and place-tensors. Such a program
runs nothing; the memory plan of one is in ``test/Transforms/poplar-plan-memory.mlir``.
"""

from __future__ import annotations

import pytest
from helpers import IPU_OPT, run_tool

# The graph passes in pipeline order (compiler/pipelines.py after poplar-build-program).
PASSES = ("pipeline-schedule,poplar-place-tensors,poplar-map-tiles,poplar-plan-memory,poplar-fuse-linear,"
          "poplar-plan-in-place,poplar-share-pool-indices,poplar-share-buffers,poplar-fuse-elementwise,"
          "poplar-estimate-cycles")

_GRAPH = """\
module attributes {{poplar.tensor_locations = #poplar.tensor_locations<{off}, {on}, {on}, {on}>}} {{
"poplar.graph"() ({{
  %w = "poplar.variable"() {{ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64>}} : () -> tensor<64xf32>
  "poplar.function"() ({{
{step}
  }}) {{name = "step", pipeline.plan = #pipeline.plan<"pipelined", 1 : i64, 1 : i64, 1 : i64, array<i64: 0>>}} : () -> ()
  "poplar.program_sequence"() ({{
{main}
  }}) {{name = "main"}} : () -> ()
}}) {{num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64}} : () -> ()
}}
"""
# Weights off chip (from 2 elements), so poplar-place-tensors walks the programs using them.
_LOCATIONS = {"off": "#poplar.tensor_location<0 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>",
              "on": "#poplar.tensor_location<-1 : i64, 2 : i64, 0 : i64, 8192 : i64, 0 : i64, 0 : i64>"}
_UPDATE = """\
    %a = "poplar.popops_add"(%w, %w) : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
    "poplar.program_copy"(%a, %w) : (tensor<64xf32>, tensor<64xf32>) -> ()"""
_CALL = """\
    "poplar.program_repeat"() ({
      "poplar.program_call"() {callee = "step"} : () -> ()
    }) {count = 2 : i64} : () -> ()"""
_EMPTY_REPEAT = """\
    "poplar.program_call"() {callee = "step"} : () -> ()
    "poplar.program_repeat"() ({
    }) {count = 2 : i64} : () -> ()"""

CASES = {
    "function": _GRAPH.format(step="", main=_CALL, **_LOCATIONS),
    "main": _GRAPH.format(step=_UPDATE, main="", **_LOCATIONS),
    "repeat": _GRAPH.format(step=_UPDATE, main=_EMPTY_REPEAT, **_LOCATIONS),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_program_without_a_block_runs_nothing(case: str) -> None:
    text = CASES[case]
    verified = run_tool(IPU_OPT, "-", input=text)
    assert verified.returncode == 0, verified.stderr  # the input verifies
    result = run_tool(IPU_OPT, "-p", PASSES, "-", input=text)
    assert result.returncode == 0, result.stderr
    assert "internal error" not in result.stderr
    assert "poplar.memory = #poplar.memory_plan" in result.stdout

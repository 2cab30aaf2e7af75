"""poplar-estimate-cycles: estimates scale as a model of the chip says they should."""

from __future__ import annotations

import pytest
from torch_mlir import ir

from ipu_mlir.compiler.pass_pipeline import run_pipeline
from ipu_mlir.compiler.transforms.poplar_estimate_cycles import EstimateCycles
from ipu_mlir.dialects import make_context
from ipu_mlir.dialects.poplar import CYCLES_TARGET_ATTR, cycles_of
from ipu_mlir.support.target import BOW, MK2


def _graph(body: str, declarations: str = "") -> str:
    return f'''
"poplar.graph"() ({{
  {declarations}
  "poplar.function"() ({{
    {body}
  }}) {{name = "step"}} : () -> ()
  "poplar.program_sequence"() ({{
    "poplar.program_repeat"() ({{
      "poplar.program_call"() {{callee = "step"}} : () -> ()
    }}) {{count = 2 : i64}} : () -> ()
  }}) {{name = "main"}} : () -> ()
}}) {{num_ipus = 1 : i64, replication_factor = 1 : i64, tiles_per_ipu = 1472 : i64}} : () -> ()
'''


def _estimate(text: str, target: str = MK2.name) -> dict[str, int]:
    """Cycles of each op (by name; the last of a name wins), the step and main."""
    with make_context() as context:
        module = ir.Module.parse(text, context)
        run_pipeline(module, [EstimateCycles(target=target)])
        graph = module.body.operations[0].operation
        assert ir.StringAttr(graph.attributes[CYCLES_TARGET_ATTR]).value == target
        found: dict[str, int] = {}
        for op in graph.regions[0].blocks[0].operations:
            op = op.operation
            if op.name in ("poplar.function", "poplar.program_sequence"):
                found[ir.StringAttr(op.attributes["name"]).value] = cycles_of(op)
                for inner in op.regions[0].blocks[0].operations:
                    found[inner.operation.name] = cycles_of(inner.operation)
        return found


def _matmul(m: int, k: int, n: int, dtype: str = "f32") -> str:
    return _graph(
        f'%c = "poplar.poplin_matmul"(%a, %b) : (tensor<{m}x{k}x{dtype}>, tensor<{k}x{n}x{dtype}>) -> tensor<{m}x{n}x{dtype}>',
        f'%a = "poplar.variable"() {{ipu = 0 : i64, kind = "weight", name = "a", tiles = array<i64>}} : () -> tensor<{m}x{k}x{dtype}>\n'
        f'  %b = "poplar.variable"() {{ipu = 0 : i64, kind = "weight", name = "b", tiles = array<i64>}} : () -> tensor<{k}x{n}x{dtype}>')


def test_matmul_twice_as_big_costs_about_twice_as_much() -> None:
    one = _estimate(_matmul(1024, 1024, 1024))["poplar.poplin_matmul"]
    two = _estimate(_matmul(1024, 2048, 1024))["poplar.poplin_matmul"]
    assert one > 10_000
    assert two / one == pytest.approx(2.0, rel=0.1)


def test_fp16_matmul_is_faster_than_fp32() -> None:
    fp32 = _estimate(_matmul(1024, 1024, 1024, "f32"))["poplar.poplin_matmul"]
    fp16 = _estimate(_matmul(1024, 1024, 1024, "f16"))["poplar.poplin_matmul"]
    assert fp16 < fp32 / 3  # AMP: 4x the FLOPs per cycle, half the bytes to exchange


def test_matmul_cost_is_its_flops_at_the_amp_rate() -> None:
    cycles = _estimate(_matmul(2048, 2048, 2048))["poplar.poplin_matmul"]
    seconds = cycles / MK2.clock_hz
    # 2 * 2048^3 FLOPs at 62.5 TFLOP/s is 275 us; exchange and the sync add a little.
    assert 2 * 2048**3 / MK2.peak_flops_fp32 < seconds < 1.2 * 2 * 2048**3 / MK2.peak_flops_fp32


def test_bow_runs_the_same_program_in_less_time() -> None:
    text = _matmul(1024, 1024, 1024)
    mk2 = _estimate(text, MK2.name)["main"] / MK2.clock_hz
    bow = _estimate(text, BOW.name)["main"] / BOW.clock_hz
    assert bow < mk2 * 0.8


def test_elementwise_is_bounded_by_memory_bandwidth() -> None:
    def add(n: int) -> int:
        return _estimate(_graph(
            f'%c = "poplar.popops_add"(%a, %a) : (tensor<{n}xf32>, tensor<{n}xf32>) -> tensor<{n}xf32>',
            f'%a = "poplar.variable"() {{ipu = 0 : i64, kind = "weight", name = "a", tiles = array<i64>}} : () -> tensor<{n}xf32>'
        ))["poplar.popops_add"]
    small, big, bigger = add(1024), add(64 * 1024 * 1024), add(128 * 1024 * 1024)
    assert small < 300  # one compute set: the data is a few bytes per tile
    # 3 x 256 MiB over 47.5 TB/s: ~17 us = ~22,000 cycles
    assert 3 * 4 * 64 * 1024 * 1024 / MK2.memory_bytes_per_s * MK2.clock_hz == pytest.approx(big, rel=0.05)
    assert bigger / big == pytest.approx(2.0, rel=0.05)


def test_off_chip_loads_add_cost() -> None:
    declarations = ('%w = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "w", tiles = array<i64>} : () -> tensor<1024x1024xf32>\n'
                    '  "poplar.remote_buffer"() {name = "w.remote", type = tensor<1024x1024xf32>, repeats = 1 : i64} : () -> ()')
    compute = '%c = "poplar.popops_add"(%w, %w) : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>'
    on_chip = _estimate(_graph(compute, declarations))
    off_chip = _estimate(_graph(
        '%l = "pipeline.remote_load"() {buffer = "w.remote", ipu_id = 0 : i64} : () -> tensor<1024x1024xf32>\n'
        '    %c = "poplar.popops_add"(%l, %l) : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>\n'
        '    "pipeline.remote_store"(%c) {buffer = "w.remote", ipu_id = 0 : i64} : (tensor<1024x1024xf32>) -> ()',
        declarations))
    load = off_chip["pipeline.remote_load"]
    # 4 MiB at 20 GB/s is 210 us = 279,000 cycles (plus the access latency).
    assert load == pytest.approx(MK2.streaming_latency_cycles + 4 * 1024 * 1024 / MK2.streaming_bytes_per_s * MK2.clock_hz, rel=1e-3)
    assert off_chip["pipeline.remote_store"] == load
    assert off_chip["step"] == on_chip["step"] + 2 * load
    assert off_chip["main"] == 2 * off_chip["step"]


def test_inter_ipu_copy_goes_over_the_ipu_links() -> None:
    declarations = ('%a = "poplar.variable"() {ipu = 0 : i64, kind = "weight", name = "a", tiles = array<i64>} : () -> tensor<1048576xf32>\n'
                    '  %b = "poplar.variable"() {ipu = 1 : i64, kind = "exchange", name = "b", tiles = array<i64>} : () -> tensor<1048576xf32>\n'
                    '  %c = "poplar.variable"() {ipu = 0 : i64, kind = "exchange", name = "c", tiles = array<i64>} : () -> tensor<1048576xf32>')
    across = _estimate(_graph('"poplar.program_copy"(%a, %b) : (tensor<1048576xf32>, tensor<1048576xf32>) -> ()',
                              declarations).replace("num_ipus = 1", "num_ipus = 2"))["poplar.program_copy"]
    within = _estimate(_graph('"poplar.program_copy"(%a, %c) : (tensor<1048576xf32>, tensor<1048576xf32>) -> ()',
                              declarations).replace("num_ipus = 1", "num_ipus = 2"))["poplar.program_copy"]
    assert across - MK2.external_sync_cycles == pytest.approx(4 * 1048576 / MK2.ipu_link_bytes_per_s * MK2.clock_hz, abs=1)
    assert within < across / 10  # the on-chip exchange is much wider than the IPU-Links


def test_unknown_target_names_the_valid_ones() -> None:
    with pytest.raises(Exception, match="ipu-model-bow"):
        _estimate(_matmul(4, 4, 4), "ipu-model-mk3")

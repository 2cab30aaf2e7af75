"""Guards for compile time (issue 19 item 4, ``bench/compile_time.py``): the driver's compile
does not do the known-expensive things it once did, and what it does instead reports the
same errors.

- The driver verifies the module once, after the last pass (``run_pipeline(verify_each=False)``),
  not after each of the 14 passes: the Python verifiers of the poplar ops were most of a
  BERT-base compile. A failing pipeline is rerun verifying every pass, so its error is the
  one a verified run gives.
- Verifying a graph finds each remote buffer, stream and function by name through an index,
  not a scan of the graph per lookup (O(n^2): 4.8 s of BERT-base's passes).
- ``CompiledProgram.timings`` splits capture, passes and decode into their parts.
- Training capture traces the model once (the joint forward + backward trace finds the
  loss), not a torch.export first and the joint trace after it.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import pytest
import torch
from torch_mlir import ir

import poptorch
from ipu_mlir.compiler.pass_base import Diagnostics, ModulePass
from ipu_mlir.compiler.pass_pipeline import PipelineError, run_pipeline, verification_errors
from ipu_mlir.dialects import make_context

_FUNC = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> { return %a : tensor<2xf32> }"


@dataclasses.dataclass(frozen=True)
class _BreakSignature(ModulePass):
    """Leaves a function whose signature disagrees with its block (invalid IR)."""

    name: ClassVar[str] = "test-break-signature"

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        func = module.regions[0].blocks[0].operations[0]
        func.attributes["function_type"] = ir.TypeAttr.get(ir.Type.parse("(tensor<3xf32>) -> tensor<2xf32>"))


@dataclasses.dataclass(frozen=True)
class _Fail(ModulePass):
    """Reports an error of its own (as a pass meeting IR it cannot handle would)."""

    name: ClassVar[str] = "test-fail"

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        diag.error(module, "the second pass gives up")


@dataclasses.dataclass(frozen=True)
class _Nothing(ModulePass):
    name: ClassVar[str] = "test-nothing"

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        pass


def _diagnostics(steps: list[ModulePass], verify_each: bool, tmp_path, monkeypatch) -> list[str]:  # noqa: ANN001
    monkeypatch.setenv("IPU_MLIR_REPRO_DIR", str(tmp_path))
    module = ir.Module.parse(_FUNC, make_context())
    with pytest.raises(PipelineError) as error:
        run_pipeline(module, steps, name="broken", verify_each=verify_each)
    return error.value.diagnostics


@pytest.mark.parametrize("steps", [[_BreakSignature()], [_BreakSignature(), _Fail()], [_BreakSignature(), _Nothing()]],
                         ids=["invalid-at-the-end", "a-later-pass-fails", "a-later-pass-runs"])
def test_unverified_run_reports_what_a_verified_run_reports(steps: list[ModulePass], tmp_path, monkeypatch) -> None:  # noqa: ANN001
    """A pass that leaves invalid IR is reported by the verifier, naming the function, with or
    without verification after each pass, even when a later pass fails on the invalid IR."""
    verified = _diagnostics(steps, True, tmp_path, monkeypatch)
    assert any("type of entry block argument #0" in d for d in verified), verified
    assert _diagnostics(steps, False, tmp_path, monkeypatch) == verified


def test_unverified_run_keeps_a_pass_error(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    """A pass's own error on valid IR is the error in both modes."""
    assert _diagnostics([_Nothing(), _Fail()], False, tmp_path, monkeypatch) == \
        _diagnostics([_Nothing(), _Fail()], True, tmp_path, monkeypatch)
    assert any("the second pass gives up" in d for d in _diagnostics([_Fail()], False, tmp_path, monkeypatch))


def test_timings_of_our_passes_and_the_final_verification() -> None:
    module = ir.Module.parse(_FUNC, make_context())
    timings: dict[str, float] = {}
    run_pipeline(module, [_Nothing(), _Nothing()], verify_each=False, timings=timings)
    assert set(timings) == {"passes.input", "passes.mlir", "passes.test-nothing", "passes.verify"}
    assert all(seconds >= 0 for seconds in timings.values())


class _Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = torch.nn.Sequential(*[torch.nn.Linear(8, 8) for _ in range(6)])

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.layers(x)
        return out, torch.nn.functional.mse_loss(out, target)


def _off_chip_training(model: torch.nn.Module) -> poptorch.PoplarExecutor:
    options = poptorch.Options()
    options.TensorLocations.setWeightLocation(poptorch.TensorLocationSettings().useOnChipStorage(False))
    options.TensorLocations.setOptimizerLocation(poptorch.TensorLocationSettings().useOnChipStorage(False))
    return poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))


def _poplar_ops(module: ir.Module) -> int:
    count = 0

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal count
        count += op.name.startswith("poplar.")
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return count


def test_compile_verifies_the_poplar_ops_once(monkeypatch) -> None:  # noqa: ANN001
    """The poplar ops' Python verifiers run once per op in a compile (the final verification),
    not once per pass after the conversion (12 times)."""
    from ipu_mlir.dialects.poplar.base import PoplarOp

    calls = 0
    real = PoplarOp.verify_invariants

    def counting(self) -> bool:  # noqa: ANN001
        nonlocal calls
        calls += 1
        return real(self)

    monkeypatch.setattr(PoplarOp, "verify_invariants", counting)
    torch.manual_seed(0)
    model = _Mlp()
    wrapper = _off_chip_training(model)
    wrapper.compile(torch.randn(4, 8), torch.randn(4, 8))
    ops = _poplar_ops(wrapper._compiled.module)
    assert ops > 50
    assert calls <= 2 * ops, f"{calls} verifications of {ops} poplar ops"


def test_graph_lookups_by_name_do_not_scan_the_graph_each_time(monkeypatch) -> None:  # noqa: ANN001
    """Verifying a graph whose weights and optimizer state are off chip (a remote load and
    store per use) reads each graph op's name about once, not once per lookup."""
    from ipu_mlir.dialects.poplar import graph

    torch.manual_seed(0)
    wrapper = _off_chip_training(_Mlp())
    wrapper.compile(torch.randn(4, 8), torch.randn(4, 8))
    module = wrapper._compiled.module
    graph_ops = len(next(op for op in module.body.operations if op.operation.name == "poplar.graph")
                    .regions[0].blocks[0].operations)
    lookups = sum(1 for line in wrapper._compiled.ir_text().splitlines()
                  if "poplar.program_remote_" in line or "poplar.program_stream_copy" in line
                  or "poplar.program_call" in line)
    assert lookups > 30
    reads = 0
    real = graph._name_of

    def counting(op: ir.Operation) -> str | None:
        nonlocal reads
        reads += 1
        return real(op)

    monkeypatch.setattr(graph, "_name_of", counting)
    monkeypatch.setattr(graph, "_graph_index", None)
    assert verification_errors(module) == []
    assert reads <= graph_ops * 2 + lookups * 2, f"{reads} name reads for {lookups} lookups in a graph of {graph_ops} ops"


def test_compile_timings_split_capture_passes_and_decode() -> None:
    torch.manual_seed(0)
    wrapper = _off_chip_training(_Mlp())
    wrapper.compile(torch.randn(4, 8), torch.randn(4, 8))
    timings = wrapper._compiled.timings
    assert {"capture.joint", "capture.import", "passes.convert-torch-to-poplar", "passes.verify",
            "decode.artifact"} <= set(timings)
    assert "capture.export" not in timings  # training finds its loss in the joint trace: no export before it
    assert sum(v for k, v in timings.items() if k.startswith("capture.")) <= timings["capture"]
    assert sum(v for k, v in timings.items() if k.startswith("passes.")) <= timings["passes"]
    assert timings["decode.artifact"] <= timings["decode"]


def test_training_capture_traces_the_model_once() -> None:
    """Training capture finds the loss, the outputs' layout and the inputs' names in the joint
    forward + backward trace itself: the model's forward runs twice (aot_autograd's metadata
    pass and the joint graph), not once more for a torch.export before it."""
    runs = 0

    class Counting(_Mlp):
        def forward(self, x: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            nonlocal runs
            runs += 1
            return super().forward(x, target)

    torch.manual_seed(0)
    model = Counting()
    wrapper = poptorch.trainingModel(model, poptorch.Options(), torch.optim.SGD(model.parameters(), lr=0.1))
    wrapper.compile(torch.randn(4, 8), torch.randn(4, 8))
    assert runs == 2
    assert set(wrapper.getTensorNames()) >= {"x", "target", "output.0", "output.1"}


def test_full_collections_during_a_compile_skip_the_objects_alive_before_it() -> None:
    """The compile sets the objects alive before it aside from the cyclic collector
    (``gc.freeze``) and gives them back after (the freeze count is 0 again, after a failed
    compile too); a program that froze objects itself keeps its freeze."""
    import gc

    seen: list[int] = []

    class Watching(_Mlp):
        def forward(self, x: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            seen.append(gc.get_freeze_count())
            return super().forward(x, target)

    torch.manual_seed(0)
    assert gc.get_freeze_count() == 0
    model = Watching()
    poptorch.trainingModel(model, poptorch.Options(), torch.optim.SGD(model.parameters(), lr=0.1)).compile(
        torch.randn(4, 8), torch.randn(4, 8))
    assert seen and min(seen) > 0  # the objects alive before the compile were set aside while it traced
    assert gc.get_freeze_count() == 0

    bad = Watching()
    with pytest.raises(RuntimeError):
        poptorch.trainingModel(bad, poptorch.Options(), torch.optim.SGD(bad.parameters(), lr=0.1)).compile(
            torch.randn(4, 7), torch.randn(4, 8))  # the wrong width: the trace fails
    assert gc.get_freeze_count() == 0

    gc.freeze()  # the program's own freeze (a pre-fork server's)
    try:
        frozen, seen[:] = gc.get_freeze_count(), []
        other = Watching()
        poptorch.trainingModel(other, poptorch.Options(), torch.optim.SGD(other.parameters(), lr=0.1)).compile(
            torch.randn(4, 8), torch.randn(4, 8))
        # Untouched: nothing more was frozen during the compile (the count only falls, as frozen
        # objects die) and the program's objects are still frozen after it.
        assert seen and max(seen) <= frozen and gc.get_freeze_count() > frozen // 2
    finally:
        gc.unfreeze()

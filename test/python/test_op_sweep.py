"""The OpInfo op sweep (bench/ops.py, op_sweep.py, op_workers.py): a fast slice of it,
its failure classes and worker pool, and Core ATen coverage.

The slice runs representative entries of torch's OpInfo database, one per op family,
through the sweep's own check (inferenceModel against eager; for ops with gradients one
SGD step of trainingModel against eager) and asserts that every sample passes. The full
sweep is ``python3 dev.py ops``.
"""

from __future__ import annotations

import importlib.util
import signal
import sys

import pytest
import torch
from helpers import REPO

sys.path.insert(0, str(REPO / "bench"))
import op_sweep  # noqa: E402
import op_workers  # noqa: E402

_spec = importlib.util.spec_from_file_location("bench_ops", REPO / "bench" / "ops.py")
bench_ops = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_ops)

# One or a few entries per op family; each passes with its first SAMPLES samples, forward
# and (where OpInfo says the op has gradients) backward.
SLICE = (
    "sin", "exp", "sigmoid",                                   # unary elementwise
    "add", "mul", "div.floor_rounding", "pow",                 # binary elementwise
    "clamp", "where", "masked_fill",                           # select / clamp
    "argmax", "var", "cumsum",                                 # reductions and scans
    "softmax", "log_softmax", "nn.functional.gelu",            # non-linearities
    "matmul", "addmm", "nn.functional.linear",                 # poplin matmul
    "nn.functional.max_pool2d", "nn.functional.avg_pool2d",    # popnn pooling
    "nn.functional.embedding", "nn.functional.mse_loss",       # embedding, losses
    "cat", "permute", "gather", "scatter_add", "topk",         # data movement, gather/scatter, sort
    "nn.functional.pad.reflect", "repeat",
)
SAMPLES = 2

def _modes(name: str) -> list[str]:
    op = op_sweep.float32_entries()[name]
    return [op_sweep.FORWARD, op_sweep.BACKWARD] if op.supports_autograd else [op_sweep.FORWARD]


@pytest.mark.parametrize("name", SLICE)
def test_opinfo_entry_matches_eager(name: str) -> None:
    for mode in _modes(name):
        result = op_sweep.run_task(name, mode, SAMPLES)
        failed = [s for s in result["samples"] if s["status"] != op_sweep.PASS]
        assert not failed, f"{name} {mode}: " + "; ".join(f"{s['status']}: {s['detail']}" for s in failed)
        assert 1 <= len(result["samples"]) <= SAMPLES
        assert result["aten"], "a passing sample records the ATen ops it compiled"


def test_the_slice_covers_core_aten_families() -> None:
    """The slice is representative: its entries are float32 OpInfo entries, most with gradients."""
    entries = op_sweep.float32_entries()
    assert all(name in entries for name in SLICE)
    assert sum(entries[name].supports_autograd for name in SLICE) >= 25


def test_a_data_dependent_op_is_classified_by_design() -> None:
    result = op_sweep.run_task("nonzero", op_sweep.FORWARD, 1)
    status, _ = op_sweep.entry_status(result)
    assert status == "data-dependent"


def test_random_ops_are_compared_by_shape_and_dtype() -> None:
    """OpInfo reseeds its random ops inside ``op.op``; the IPU Model's stream differs, so
    bernoulli is compared by structure, shapes and dtypes, and passes."""
    result = op_sweep.run_task("bernoulli", op_sweep.FORWARD, 1)
    assert result["random"] is True
    assert op_sweep.entry_status(result) == (op_sweep.PASS, "")


def test_failures_are_classified_by_reason() -> None:
    from ipu_mlir.compiler.frontend.capture import CaptureError

    missing = RuntimeError("pipeline 'M' failed:\n  x.py:3:0: error: 'torch.aten.special_erfcx' has no lowering "
                           "to the poplar dialect (unsupported op)")
    assert op_sweep.classify(missing) == ("unsupported", "unsupported op torch.aten.special_erfcx")
    nonzero = RuntimeError("x.py:3:0: error: 'torch.aten.nonzero' has no lowering to the poplar dialect (unsupported op)")
    assert op_sweep.classify(nonzero)[0] == "data-dependent"
    item = RuntimeError("error: 'torch.aten.Float.Tensor' has no lowering to the poplar dialect (unsupported op)")
    assert op_sweep.classify(item)[0] == "data-dependent"  # .item() as torch-mlir imports it
    use = RuntimeError("error: 'torch.aten.pad' cannot be lowered to the poplar dialect: negative padding")
    assert op_sweep.classify(use) == ("unsupported", "unsupported use of torch.aten.pad: negative padding")
    assert op_sweep.classify(CaptureError("could not capture the model"))[0] == "capture"
    assert op_sweep.classify(ValueError("bad"))[0] == "error"
    with pytest.raises(op_sweep.Mismatch) as mismatch:
        op_sweep.compare(torch.ones(2), torch.zeros(2), values=True)
    assert op_sweep.classify(mismatch.value)[0] == "mismatch"


def test_compare_checks_structure_dtype_shape_and_values() -> None:
    op_sweep.compare((torch.ones(2), 3), (torch.ones(2), 3), values=True)
    for actual, expected, message in [
        ([torch.ones(2)], (torch.ones(2),), "structure"),
        (torch.ones(2, dtype=torch.float64), torch.ones(2), "torch.float64"),
        (torch.ones(3), torch.ones(2), r"\[3\]"),
        (torch.full((2,), 1.001), torch.ones(2), "not close"),
    ]:
        with pytest.raises(op_sweep.Mismatch, match=message):
            op_sweep.compare(actual, expected, values=True)
    op_sweep.compare(torch.full((2,), 5.0), torch.ones(2), values=False)  # random ops: shapes and dtypes only
    op_sweep.compare(torch.tensor([float("nan")]), torch.tensor([float("nan")]), values=True)


_TASKS = [{"op": "a", "mode": "forward", "samples": 1}, {"op": "b", "mode": "backward", "samples": 1}]


def test_a_crashing_worker_is_counted_and_replaced() -> None:
    crash = [sys.executable, "-c", "import os, signal, sys; sys.stdin.readline(); os.kill(os.getpid(), signal.SIGSEGV)"]
    results = list(op_workers.run_pool(_TASKS, command=crash, timeout=60))
    assert sorted(r["op"] for r in results) == ["a", "b"]  # the pool went on after the first crash
    for result in results:
        status, detail = op_sweep.entry_status(result)
        assert status == "crash"
        assert signal.Signals.SIGSEGV.name in detail


def test_a_hanging_worker_times_out() -> None:
    hang = [sys.executable, "-c", "import time; time.sleep(120)"]
    results = list(op_workers.run_pool(_TASKS[:1], command=hang, timeout=1))
    assert op_sweep.entry_status(results[0]) == ("timeout", "no result within 1 s")


def test_the_worker_process_runs_an_entry() -> None:
    (result,) = op_workers.run_pool([{"op": "sin", "mode": "forward", "samples": 1}], timeout=300)
    assert op_sweep.entry_status(result) == (op_sweep.PASS, "")
    assert "sin" in result["aten"]


def test_the_report_counts_entries_by_status() -> None:
    results = [
        {"op": "a", "mode": "forward", "random": False, "aten": ["sin"], "samples": [{"status": "pass", "detail": ""}]},
        {"op": "b", "mode": "forward", "random": False, "aten": [],
         "samples": [{"status": "pass", "detail": ""}, {"status": "mismatch", "detail": "output: not close"}]},
        {"op": "c", "mode": "forward", "random": False, "aten": [],
         "samples": [{"status": "unsupported", "detail": "unsupported op torch.aten.foo"}]},
        {"op": "d", "mode": "forward", "random": False, "aten": [], "samples": [{"status": "skip", "detail": "eager"}]},
    ]
    summary = bench_ops.summarize(results)["forward"]
    assert (summary["entries"], summary["ran"], summary["pass"], summary["unsupported"], summary["failed"]) == (4, 3, 1, 1, 1)
    assert summary["pass_percent"] == 33.3
    assert summary["failures"]["mismatch"] == {"b": "output: not close"}
    assert summary["missing_lowerings"] == {"torch.aten.foo": ["c"]}
    text = bench_ops.report(bench_ops.summarize(results), bench_ops.core_coverage({"sin"}))
    assert "| forward | 4 | 3 | 1 | 1 | 0 | 1 | 33.3% |" in text
    assert "- torch.aten.foo (1): c" in text


def test_core_aten_packets_are_enumerated_from_every_schema() -> None:
    core = bench_ops.core_packets()
    assert {"add", "convolution", "nonzero", "avg_pool1d", "sym_size"} <= set(core)
    assert all(all(torch.Tag.core in o.tags for o in overloads) for overloads in core.values())


def test_every_core_aten_packet_has_a_lowering() -> None:
    """Every torch.Tag.core packet but nonzero, _local_scalar_dense and sym_* lowers
    (each of its core overloads has a pattern in convert-torch-to-poplar)."""
    core = bench_ops.core_coverage()
    assert core["missing"] == {}, "no lowering: " + ", ".join(f"{p} ({', '.join(o)})" for p, o in core["missing"].items())

"""The engine of the OpInfo op sweep (``bench/ops.py`` prints its report).

Torch's OpInfo database (``torch.testing._internal.common_methods_invocations.op_db``)
describes every public op with sample inputs, as torch's own op tests, torch-mlir and
inductor use it. For one entry and one mode this module:

- forward: wraps each float32 sample in a tiny ``nn.Module`` whose ``forward`` takes the
  sample's tensors (those inside lists and dicts too) and calls ``op.op(input, *args,
  **kwargs)`` with the non-tensor arguments baked in; compiles it with
  ``poptorch.inferenceModel`` and compares the result with eager PyTorch: structure,
  dtypes, shapes and (FP32 tolerances) values. An op whose eager result changes with the
  seed, or that OpInfo marks as having nondeterministic output, is compared by structure,
  shapes and dtypes only.
- backward: makes the first differentiable float input an ``nn.Parameter``, takes
  ``poptorch.identity_loss(sum of the float outputs, reduction="sum")`` as the loss and
  runs one SGD step with ``poptorch.trainingModel``; the loss and the updated parameter
  must match eager's ``loss.backward(); SGD.step()``.

A failure is classified by reason (``REASONS``). The sweep runs ``run_task`` in worker
processes (``op_workers.py``), so that a crash (a signal) or a hang is counted, not fatal.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import itertools
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

FP32 = {"rtol": 1e-5, "atol": 1e-6}  # the house fp32 tolerance (test/python/helpers.FP32)
LR = 0.5  # SGD learning rate of the backward check: large, so a wrong gradient shows
FORWARD, BACKWARD = "forward", "backward"
PASS, SKIP = "pass", "skip"
# Failure reasons, most severe first: an entry with several failing samples gets the first.
REASONS = ("crash", "timeout", "mismatch", "error", "capture", "unsupported", "data-dependent")
# Ops that cannot exist in a static IPU program (their output shape or a Python value
# depends on the data): a compile error by design. Float/Int/Bool.Tensor are ``.item()``
# as torch-mlir imports it.
DATA_DEPENDENT_OPS = ("torch.aten.nonzero", "torch.aten._local_scalar_dense", "torch.aten.item",
                      "torch.aten.Float.Tensor", "torch.aten.Int.Tensor", "torch.aten.Bool.Tensor",
                      "torch.aten.ScalarImplicit", "torch.aten.sym_size", "torch.aten.sym_numel",
                      "torch.aten.sym_stride", "torch.aten.sym_storage_offset")
_NO_LOWERING = re.compile(r"'(torch\.[\w.]+)' has no lowering to the poplar dialect")
_CANNOT_LOWER = re.compile(r"'(torch\.[\w.]+)' cannot be lowered to the poplar dialect: ([^\n]*)")
_DATA_DEPENDENT = re.compile(r"data[- ]dependent|depends on (the )?data|GuardOnDataDependent|DataDependentOutput"
                             r"|_local_scalar_dense|\bnonzero\b|\.item\(\)", re.IGNORECASE)


# -- the database -------------------------------------------------------------------------
@functools.cache
def op_db() -> list:
    from torch.testing._internal.common_methods_invocations import op_db as db

    return list(db)


def entry_name(op: Any) -> str:
    """``name`` or ``name.variant`` (``nn.functional.conv2d``, ``max.reduction_with_dim``)."""
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


@functools.cache
def float32_entries() -> dict[str, Any]:
    """The OpInfo entries with float32 samples on the CPU, by entry name."""
    import torch

    return {entry_name(op): op for op in op_db() if torch.float32 in op.supported_dtypes("cpu")}


def samples(op: Any, mode: str, count: int) -> list:
    """The first ``count`` float32 samples (seeded: the same ones every run)."""
    import torch

    torch.manual_seed(0)
    return list(itertools.islice(op.sample_inputs("cpu", torch.float32, requires_grad=mode == BACKWARD), count))


# -- one sample as a module -----------------------------------------------------------------
class NoFloatOutput(Exception):
    """The op returns no float tensor: there is no loss to train."""


class EagerFailure(Exception):
    """Eager PyTorch itself cannot run (or differentiate) the sample: nothing to compare."""


@contextlib.contextmanager
def _eager_reference() -> Iterator[None]:
    try:
        yield
    except NoFloatOutput:
        raise
    except Exception as error:  # noqa: BLE001 - whatever eager raises, the sample is unusable
        raise EagerFailure(f"eager cannot run this sample: {headline(error)}") from error


def _sample_module(op: Any, sample: Any, param: int | None = None) -> tuple[Any, list]:
    """A module calling ``op`` on the sample (tensor leaves as forward inputs; the leaf
    ``param``, if given, as the module's parameter and the float outputs' sum as the
    loss), and the tensors its forward takes."""
    import torch
    import torch.nn as nn
    import torch.utils._pytree as pytree

    import poptorch

    leaves, spec = pytree.tree_flatten((sample.input, sample.args, sample.kwargs))
    slots = [isinstance(leaf, torch.Tensor) for leaf in leaves]
    baked = [None if slot else leaf for slot, leaf in zip(slots, leaves, strict=True)]
    process = sample.output_process_fn_grad

    class Sample(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            if param is not None:
                self.weight = nn.Parameter(leaves[param].detach().clone())

        def forward(self, *tensors: torch.Tensor) -> Any:
            given = iter(tensors)
            values = [self.weight if i == param else next(given) if slot else value
                      for i, (slot, value) in enumerate(zip(slots, baked, strict=True))]
            inp, args, kwargs = pytree.tree_unflatten(values, spec)
            out = op.op(inp, *args, **kwargs)
            if param is None:
                return out
            floats = [t for t in pytree.tree_leaves(process(out)) if isinstance(t, torch.Tensor) and t.is_floating_point()]
            if not floats:
                raise NoFloatOutput("the op returns no float tensor to make a loss of")
            return poptorch.identity_loss(sum(t.sum() for t in floats), reduction="sum")

    inputs = [leaf.detach() for i, leaf in enumerate(leaves) if slots[i] and i != param]
    return Sample(), inputs


def _fresh(tensors: list) -> list:
    return [t.clone() for t in tensors]


class Mismatch(AssertionError):
    """The compiled program's result differs from eager's."""


def compare(actual: Any, expected: Any, *, values: bool, what: str = "output") -> None:
    """Raise ``Mismatch`` unless ``actual`` has eager's structure, dtypes, shapes and (if
    ``values``) values within FP32 tolerances (NaN equal to NaN)."""
    import torch
    import torch.utils._pytree as pytree

    got, got_spec = pytree.tree_flatten(actual)
    want, want_spec = pytree.tree_flatten(expected)
    if got_spec != want_spec:
        raise Mismatch(f"{what} structure: compiled {got_spec}, eager {want_spec}")
    for index, (a, e) in enumerate(zip(got, want, strict=True)):
        name = f"{what}[{index}]" if len(want) > 1 else what
        if isinstance(e, torch.Tensor) != isinstance(a, torch.Tensor):
            raise Mismatch(f"{name}: compiled {type(a).__name__}, eager {type(e).__name__}")
        if not isinstance(e, torch.Tensor):
            if values and a != e:
                raise Mismatch(f"{name}: compiled {a!r}, eager {e!r}")
            continue
        if a.dtype != e.dtype or a.shape != e.shape:
            raise Mismatch(f"{name}: compiled {a.dtype} {list(a.shape)}, eager {e.dtype} {list(e.shape)}")
        if values:
            try:
                torch.testing.assert_close(a.detach(), e.detach(), equal_nan=True, **FP32)
            except AssertionError as error:
                raise Mismatch(f"{name}: {' '.join(str(error).split())}") from None


def _same(a: Any, b: Any) -> bool:
    try:
        compare(a, b, values=True)
        return True
    except Mismatch:
        return False


def _eager(run: Callable[[], Any], seed: int) -> Any:
    import torch

    torch.manual_seed(seed)
    return run()


def is_random(op: Any, run: Callable[[], Any]) -> bool:
    """Whether the op's eager result is not a function of its inputs: OpInfo says so
    (nondeterministic output, or an ``op`` that reseeds through ``wrapper_set_seed``, as
    OpInfo wraps its random ops), or two runs with one seed, or runs with other seeds, differ."""
    code = getattr(op.op, "__code__", None)
    if op.has_nondeterministic_output or (code is not None and "wrapper_set_seed" in code.co_names):
        return True
    first = _eager(run, 0)
    return not all(_same(first, _eager(run, seed)) for seed in (0, 1, 2, 3))


def run_forward(op: Any, sample: Any) -> bool:
    """Compile the sample with inferenceModel and compare with eager; returns whether the
    op is random (compared by structure, shapes and dtypes only)."""
    import torch

    import poptorch

    module, inputs = _sample_module(op, sample)

    def eager() -> Any:
        with torch.no_grad():
            return module(*_fresh(inputs))

    with _eager_reference():
        expected = _eager(eager, 0)
        random = is_random(op, eager)
    torch.manual_seed(0)
    with torch.no_grad():
        actual = poptorch.inferenceModel(module)(*_fresh(inputs))
    compare(actual, expected, values=not random)
    return random


def run_backward(op: Any, sample: Any) -> bool:
    """One SGD step with trainingModel (the first differentiable float input is the
    parameter) against eager's; returns whether the op is random."""
    import torch
    import torch.utils._pytree as pytree

    import poptorch

    leaves = pytree.tree_leaves((sample.input, sample.args, sample.kwargs))
    param = next((i for i, t in enumerate(leaves) if isinstance(t, torch.Tensor) and t.requires_grad
                  and t.is_floating_point()), None)
    if param is None:
        raise NoFloatOutput("the sample has no differentiable float input")
    with _eager_reference():  # sparse layouts, for one, cannot even be copied
        module, inputs = _sample_module(op, sample, param)
        compiled = copy.deepcopy(module)

    def loss_only() -> Any:
        with torch.no_grad():
            return copy.deepcopy(module)(*_fresh(inputs))

    with _eager_reference():
        torch.manual_seed(0)
        loss = module(*_fresh(inputs))
        loss.backward()
        torch.optim.SGD(module.parameters(), lr=LR).step()
        random = is_random(op, loss_only)
    torch.manual_seed(0)
    trainer = poptorch.trainingModel(compiled, optimizer=poptorch.optim.SGD(compiled.parameters(), lr=LR))
    compiled_loss = trainer(*_fresh(inputs))
    trainer.copyWeightsToHost()
    compare(compiled_loss, loss.detach(), values=not random, what="loss")
    compare(compiled.weight.detach(), module.weight.detach(), values=not random, what="updated parameter")
    trainer.destroy()
    return random


# -- failure reasons --------------------------------------------------------------------------
def _chain(error: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    while error is not None and error not in chain:
        chain.append(error)
        error = error.__cause__ or error.__context__
    return chain


def headline(error: BaseException) -> str:
    text = str(error)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    located = [line.split("error: ", 1)[1] for line in lines if "error: " in line]
    head = located[0] if located else (lines[0] if lines else "")
    return f"{type(error).__name__}: {head}"[:300]


def classify(error: BaseException) -> tuple[str, str]:
    """(reason, detail) of a failed sample; the reason is one of ``REASONS``."""
    if isinstance(error, Mismatch):
        return "mismatch", str(error)[:400]
    chain = _chain(error)
    text = "\n".join(f"{type(e).__name__}: {e}" for e in chain)
    missing = sorted(set(_NO_LOWERING.findall(text)))
    if missing:
        by_design = [name for name in missing if name in DATA_DEPENDENT_OPS]
        if len(by_design) == len(missing):
            return "data-dependent", f"{', '.join(by_design)} (output depends on the data)"
        return "unsupported", "unsupported op " + ", ".join(n for n in missing if n not in by_design)
    if _DATA_DEPENDENT.search(text):
        return "data-dependent", headline(error)
    uses = _CANNOT_LOWER.findall(text)
    if uses:
        return "unsupported", f"unsupported use of {uses[0][0]}: {uses[0][1]}"[:300]
    if any(type(e).__name__ == "CaptureError" for e in chain):
        return "capture", headline(chain[0])
    return "error", headline(error)


# -- one task: an entry's samples in one mode -----------------------------------------------------
@contextlib.contextmanager
def recording_imported_ops() -> Iterator[set[str]]:
    """Collect the ATen op packets (``add``, ``convolution_backward``) of every graph the
    frontend imports into MLIR while the block runs: a spy on torch-mlir's
    ``FxImporter.import_stateless_graph``, so the set is what the compiler was given."""
    import torch
    from torch_mlir.extras.fx_importer import FxImporter

    seen: set[str] = set()
    original = FxImporter.import_stateless_graph

    def spy(self: Any, graph: Any, *args: Any, **kwargs: Any) -> Any:
        for node in graph.nodes:
            if node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload):
                if node.target.namespace == "aten":
                    seen.add(node.target._schema.name.split("::")[-1])
        return original(self, graph, *args, **kwargs)

    FxImporter.import_stateless_graph = spy
    try:
        yield seen
    finally:
        FxImporter.import_stateless_graph = original


def run_task(name: str, mode: str, count: int) -> dict:
    """Run up to ``count`` samples of entry ``name`` in ``mode`` in this process.

    Returns ``{"op", "mode", "samples": [{"status", "detail", "seconds"}...], "random",
    "aten"}``: a status is ``pass``, ``skip`` (eager itself cannot run the sample, or
    there is nothing to train) or a reason of ``REASONS``; ``aten`` lists the op packets
    of the programs that passed."""
    op = float32_entries()[name]
    runner = run_forward if mode == FORWARD else run_backward
    result: dict[str, Any] = {"op": name, "mode": mode, "samples": [], "random": False, "aten": []}
    exercised: set[str] = set()
    try:
        chosen = samples(op, mode, count)
    except Exception as error:  # noqa: BLE001 - OpInfo's own sample generator failed
        result["samples"].append({"status": SKIP, "detail": f"sample_inputs failed: {headline(error)}", "seconds": 0.0})
        return result
    for sample in chosen:
        start = time.perf_counter()
        status, detail = PASS, ""
        with recording_imported_ops() as seen:
            try:
                result["random"] |= runner(op, sample)
                exercised |= seen
            except (NoFloatOutput, EagerFailure) as reason:
                status, detail = SKIP, str(reason)
            except Exception as error:  # noqa: BLE001 - every failure is classified and counted
                status, detail = classify(error)
        result["samples"].append({"status": status, "detail": detail, "seconds": round(time.perf_counter() - start, 3)})
    result["aten"] = sorted(exercised)
    return result


def entry_status(result: dict) -> tuple[str, str]:
    """The entry's status in one mode: its most severe failing sample's reason and detail,
    else ``pass`` (or ``skip`` when no sample could run)."""
    statuses = [s["status"] for s in result["samples"]]
    for reason in REASONS:
        if reason in statuses:
            return reason, next(s["detail"] for s in result["samples"] if s["status"] == reason)
    if PASS in statuses:
        return PASS, ""
    return SKIP, next((s["detail"] for s in result["samples"]), "no float32 sample")

"""Textual pass pipelines that mix ipu-mlir passes with MLIR / torch-mlir passes.

``parse_pipeline("ipu-annotate-blocks,canonicalize,func.func(cse)")`` gives a list of
elements; ``build_pass_manager`` turns them into one ``PassManager``. Names in our
registry become Python passes; everything else is handed to MLIR's own parser, so any
pass MLIR or torch-mlir registers can be used. ``run_pipeline`` is the runner the
compiler uses: on failure it writes a reproducer and names the ``ipu-opt`` command.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shlex
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from torch_mlir import ir
from torch_mlir.passmanager import PassManager

from ipu_mlir.support.diagnostics import format_diagnostic, location_label

from . import registry
from .pass_base import MlirPass, ModulePass, PassOptionError


class PipelineSyntaxError(ValueError):
    """The pipeline string is malformed or names an unknown pass."""


@dataclasses.dataclass(frozen=True)
class PipelineElement:
    """One top-level element: a registered ipu-mlir pass, or MLIR pipeline text."""

    text: str
    ours: ModulePass | None = None


def _split_top_level(text: str) -> list[str]:
    """Split on commas that are not inside (), {} or quotes."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
            if depth < 0:
                raise PipelineSyntaxError(f"unbalanced '{ch}' at offset {i} in pipeline '{text}'")
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth != 0 or quote:
        raise PipelineSyntaxError(f"unbalanced brackets or quotes in pipeline '{text}'")
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _parse_options(name: str, text: str) -> dict[str, str]:
    """``"a=1 b='x y' c"`` -> {"a": "1", "b": "'x y'", "c": ""} (MLIR option syntax)."""
    try:
        tokens = shlex.split(text, posix=False)
    except ValueError as error:
        raise PipelineSyntaxError(f"bad options for pass '{name}': {error}") from None
    options: dict[str, str] = {}
    for token in tokens:
        key, _, value = token.partition("=")
        options[key.strip()] = value
    return options


def parse_pipeline(text: str) -> list[PipelineElement]:
    """Parse a pipeline string; raises PipelineSyntaxError / PassOptionError."""
    text = text.strip()
    if text.startswith("builtin.module(") and text.endswith(")"):
        text = text[len("builtin.module(") : -1]
    elements = []
    for part in _split_top_level(text):
        name, brace, rest = part.partition("{")
        name = name.strip()
        if registry.is_registered(name):
            if brace and not rest.endswith("}"):
                raise PipelineSyntaxError(f"unterminated options for pass '{name}': '{part}'")
            options = _parse_options(name, rest[:-1]) if brace else {}
            pass_ = registry.load_pass(name).from_options(options)
            elements.append(PipelineElement(part, pass_))
        else:
            elements.append(PipelineElement(part))
    return elements


def build_pass_manager(elements: list[PipelineElement], context: ir.Context,
                       timings: dict[str, float] | None = None) -> PassManager:
    """One PassManager running ``elements`` in order (anchored on the module); with
    ``timings``, each of our passes adds its seconds to ``timings["passes.<name>"]``."""
    pm = PassManager("builtin.module", context=context)
    for element in elements:
        if element.ours is not None:
            pm.add(element.ours.as_callable(timings), name=element.ours.name, argument=element.ours.name)
            continue
        try:
            pm.add(element.text)
        except ValueError as error:
            message = str(error).strip().splitlines()
            detail = next((line for line in message if "error:" in line), message[0] if message else "")
            detail = detail.split("error:", 1)[-1].strip()
            known = ", ".join(registry.pass_names())
            raise PipelineSyntaxError(
                f"unknown pass or bad pipeline element '{element.text}': {detail} "
                f"(ipu-mlir passes: {known}; MLIR and torch-mlir passes are accepted too)"
            ) from None
    return pm


def pipeline_text(elements: Sequence[PipelineElement | ModulePass | MlirPass]) -> str:
    """The pipeline as ``ipu-opt -p`` text: parsed elements or a typed pipeline."""
    return ",".join(e.pipeline_text() if not isinstance(e, PipelineElement) else e.ours.pipeline_text() if e.ours else e.text
                    for e in elements)


class PipelineError(RuntimeError):
    """A pipeline failed; ``diagnostics`` are the located errors, ``reproducer`` the
    file holding the input IR and ``command`` the ipu-opt command that reproduces it."""

    def __init__(self, name: str, diagnostics: list[str], reproducer: Path, command: str) -> None:
        self.diagnostics = diagnostics
        self.reproducer = reproducer
        self.command = command
        lines = "\n".join(f"  {d}" for d in diagnostics) or "  (no diagnostic)"
        super().__init__(f"pipeline '{name}' failed:\n{lines}\nreproduce with:\n  {command}")


def reproducer_dir() -> Path:
    """Where pipelines write their input IR (``IPU_MLIR_REPRO_DIR`` or the temp dir)."""
    path = Path(os.environ.get("IPU_MLIR_REPRO_DIR") or Path(tempfile.gettempdir()) / "ipu-mlir-repro")
    path.mkdir(parents=True, exist_ok=True)
    return path


def elements_of(steps: Sequence[ModulePass | MlirPass]) -> list[PipelineElement]:
    """The elements of a typed pipeline (a list of pass objects)."""
    return [PipelineElement(step.pipeline_text(), step if isinstance(step, ModulePass) else None) for step in steps]


class InvalidModuleError(PipelineError):
    """The module handed to a pipeline does not verify; no pass ran on it."""

    def __init__(self, name: str, diagnostics: list[str], reproducer: Path, command: str) -> None:
        super().__init__(name, diagnostics, reproducer, command)
        lines = "\n".join(f"  {d}" for d in diagnostics)
        self.args = (
            f"pipeline '{name}' was given an invalid module, so no pass ran (the compiler built IR that does not "
            f"verify; this is a bug: please report it with the reproducer):\n{lines}\nreproduce with:\n  {command}",
        )


def _function_attribute_errors(module: ir.Module) -> list[str]:
    """Functions whose ``arg_attrs`` / ``res_attrs`` do not have one entry per argument /
    result. MLIR's verifier lets an empty array through, and its printer then reads past
    the end of it (a segfault), so this is checked before anything prints the module."""
    errors: list[str] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if "function_type" in op.attributes:
            try:
                function_type = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            except ValueError:
                return ir.WalkResult.ADVANCE
            for key, count, what in (("arg_attrs", len(function_type.inputs), "arguments"),
                                     ("res_attrs", len(function_type.results), "results")):
                if key in op.attributes and len(ir.ArrayAttr(op.attributes[key])) != count:
                    name = ir.StringAttr(op.attributes["sym_name"]).value if "sym_name" in op.attributes else "?"
                    errors.append(f"{location_label(op.location)}: error: '{op.name}' @{name} has "
                                  f"{len(ir.ArrayAttr(op.attributes[key]))} entries in '{key}' for {count} {what}")
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return errors


def verification_errors(module: ir.Module) -> list[str]:
    """The module's verifier errors as ``file:line:col: error: message`` lines (empty: valid).
    Safe on any module: it never prints one that does not verify."""
    errors = _function_attribute_errors(module)
    if errors:
        return errors
    try:
        module.operation.verify()
    except ir.MLIRError as error:
        return [format_diagnostic(d) for d in error.error_diagnostics] or [str(error)]
    return []


def _reproducer(name: str, text: str, elements: list[PipelineElement]) -> tuple[Path, str]:
    """Write ``text`` (the pipeline's input) to the reproducer directory; returns the file
    and the ``ipu-opt`` command that reruns the pipeline on it (also written in the file)."""
    digest = hashlib.sha1(text.encode()).hexdigest()[:10]
    path = reproducer_dir() / f"{name}-{digest}.mlir"
    command = f"ipu-opt {shlex.quote(str(path))} -p {shlex.quote(pipeline_text(elements))} --mlir-print-debuginfo"
    path.write_text(f"{text}\n// reproduce with: {command}\n")
    return path, command


def run_pipeline(module: ir.Module, pipeline: str | Sequence[ModulePass | MlirPass], *, name: str = "pipeline",
                 verify_each: bool = True, timings: dict[str, float] | None = None) -> None:
    """Run ``pipeline`` (text, or a list of pass objects) on ``module`` in place.

    The module is verified first: an invalid one raises :class:`InvalidModuleError` (its
    reproducer printed in the generic form, which is safe on invalid IR) and is never
    handed to the pass manager or printed as verified, which can crash the process. The
    input IR is written to a reproducer file before the pass manager runs, so that even a
    hard crash leaves one; it is removed when the pipeline succeeds. On failure a
    :class:`PipelineError` names the file and the exact ``ipu-opt`` command to rerun it.

    ``verify_each`` (MLIR's default, and ``ipu-opt``'s) verifies the module after every pass.
    Without it (the driver's compile) the module is verified once, after the last pass: the
    Python verifiers of thousands of poplar ops after each of 14 passes were most of a
    BERT-base compile. A failed pass or a module that does not verify at the end then runs
    the pipeline again on the input with ``verify_each``, and its diagnostics are the error:
    the same error, naming the same op, as a run that verified every pass reports.

    ``timings`` (a dict) gets seconds added under ``passes.<name>`` for each of our passes,
    ``passes.input`` (verifying the input and writing it as the reproducer), ``passes.mlir``
    (MLIR's own passes, and with ``verify_each`` the verifier after each pass) and
    ``passes.verify`` (the final verification).
    """
    elements = parse_pipeline(pipeline) if isinstance(pipeline, str) else elements_of(pipeline)
    own = {} if timings is None else timings
    start = time.perf_counter()
    problems = verification_errors(module)
    if problems:
        # The generic form prints function attributes as plain attributes: safe on these modules.
        text = module.operation.get_asm(enable_debug_info=True, print_generic_op_form=True)
        path, command = _reproducer(name, text, elements)
        raise InvalidModuleError(name, problems, path, command)
    before = module.operation.get_asm(enable_debug_info=True, assume_verified=True)
    path, command = _reproducer(name, before, elements)
    _add(own, "passes.input", time.perf_counter() - start)
    ours: dict[str, float] = {}
    pm = build_pass_manager(elements, module.context, ours)
    if not verify_each:  # a PassManager verifies after every pass unless told not to
        pm.enable_verifier(False)
    diagnostics: list[str] | None = None
    start = time.perf_counter()
    try:
        pm.run(module.operation)
    except ir.MLIRError as error:
        diagnostics = [format_diagnostic(d) for d in error.error_diagnostics]
    _add(own, "passes.mlir", time.perf_counter() - start - sum(ours.values()))
    for key, seconds in ours.items():
        _add(own, key, seconds)
    if not verify_each:
        if diagnostics is None:
            start = time.perf_counter()
            diagnostics = verification_errors(module) or None
            _add(own, "passes.verify", time.perf_counter() - start)
        if diagnostics is not None:
            diagnostics = _verified_run_diagnostics(before, elements, module.context) or diagnostics
    if diagnostics is not None:
        if not path.exists():  # a concurrent run of the same input succeeded and removed it
            path, command = _reproducer(name, before, elements)
        raise PipelineError(name, diagnostics, path, command)
    path.unlink(missing_ok=True)


def _add(timings: dict[str, float], key: str, seconds: float) -> None:
    timings[key] = timings.get(key, 0.0) + seconds


def _verified_run_diagnostics(text: str, elements: list[PipelineElement], context: ir.Context) -> list[str]:
    """The diagnostics of running ``elements`` on a fresh parse of ``text`` (a pipeline's
    input) with the module verified after every pass; empty if that run succeeds."""
    try:
        module = ir.Module.parse(text, context)
    except ir.MLIRError:  # pragma: no cover - the printed input parses (it is the reproducer)
        return []
    pm = build_pass_manager(elements, context)
    try:
        pm.run(module.operation)
    except ir.MLIRError as error:
        return [format_diagnostic(d) for d in error.error_diagnostics]
    return []


__all__ = [
    "PassOptionError",
    "PipelineElement",
    "PipelineError",
    "PipelineSyntaxError",
    "InvalidModuleError",
    "build_pass_manager",
    "elements_of",
    "parse_pipeline",
    "pipeline_text",
    "run_pipeline",
    "verification_errors",
]

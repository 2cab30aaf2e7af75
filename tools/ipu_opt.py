"""``ipu-opt``: the mlir-opt style driver for ipu-mlir's dialects and passes.

Reads MLIR (a file or stdin), runs a pass pipeline that mixes ipu-mlir passes with MLIR
and torch-mlir passes, and prints the result in MLIR's generic form. It never imports
torch, so it starts fast. Errors are located one-line diagnostics and a non-zero exit.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ipu_mlir.tools.input_checks import nesting_problem, silent_parse_failure

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2
SPLIT_MARKER = "// -----"


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ipu-opt",
        description="Run ipu-mlir / MLIR passes over MLIR input (mlir-opt conventions).",
        epilog="Passes can also be named as flags, e.g. `ipu-opt --ipu-annotate-blocks in.mlir`.",
    )
    parser.add_argument("input", nargs="?", default="-", help="input file ('-' or nothing for stdin)")
    parser.add_argument("-o", dest="output", default="-", help="output file (default: stdout)")
    parser.add_argument(
        "-p",
        "--pass-pipeline",
        default="",
        help="comma-separated pipeline, e.g. 'ipu-annotate-blocks,canonicalize,func.func(cse)'",
    )
    parser.add_argument("--split-input-file", action="store_true", help=f"process chunks separated by '{SPLIT_MARKER}' independently")
    parser.add_argument("--verify-diagnostics", action="store_true", help="check diagnostics against expected-* comments")
    parser.add_argument("--list-passes", action="store_true", help="list the registered ipu-mlir passes and exit")
    parser.add_argument("--mlir-print-ir-after-all", action="store_true", help="print the IR after every pass (stderr)")
    parser.add_argument("--mlir-print-ir-before-all", action="store_true", help="print the IR before every pass (stderr)")
    parser.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations")
    parser.add_argument("--mlir-print-op-generic", action="store_true", help="generic op form (always on: our dialects have no custom syntax)")
    parser.add_argument("--mlir-timing", action="store_true", help="print the wall time of parse, passes and print (stderr)")
    return parser


def _list_passes(out) -> int:
    from ipu_mlir.compiler import registry

    out.write("ipu-mlir passes:\n")
    for name in registry.pass_names():
        cls = registry.load_pass(name)
        options = cls.option_names()
        suffix = f"  [options: {', '.join(options)}]" if options else ""
        out.write(f"  {name:<28} {cls.summary()}{suffix}\n")
    out.write("MLIR and torch-mlir passes (e.g. canonicalize, cse, torch-function-to-torch-backend-pipeline) are accepted in -p as well.\n")
    return EXIT_OK


def _split(text: str, split: bool) -> list[tuple[int, str]]:
    """(first line number, chunk text) pairs."""
    if not split:
        return [(1, text)]
    chunks, current, start = [], [], 1
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if line.strip().startswith(SPLIT_MARKER):
            chunks.append((start, "".join(current)))
            current, start = [], number + 1
        else:
            current.append(line)
    chunks.append((start, "".join(current)))
    return chunks


class _Chunk:
    """Result of processing one chunk: printed IR or the diagnostics seen."""

    def __init__(self) -> None:
        self.output = ""
        self.diagnostics: list = []
        self.messages: list[str] = []  # errors found outside MLIR, already formatted
        self.failed = False
        self.parse_failed = False


def _process(text: str, first_line: int, pipeline_elements, args, context, filename: str) -> _Chunk:
    from torch_mlir import ir

    from ipu_mlir.compiler.pass_pipeline import build_pass_manager

    result = _Chunk()
    too_deep = nesting_problem(text, first_line)
    if too_deep is not None:
        result.failed = True
        result.messages.append(f"{filename}:{too_deep}")
        return result
    # Pad with blank lines so locations carry the line numbers of the whole file.
    padded = "\n" * (first_line - 1) + text
    timings = []
    start = time.perf_counter()
    try:
        module = ir.Module.parse(padded, context)
    except ir.MLIRError as error:
        result.failed = True
        result.diagnostics.extend(error.error_diagnostics)
        result.parse_failed = True
        return result
    timings.append(("parse", time.perf_counter() - start))
    if pipeline_elements:
        pm = build_pass_manager(pipeline_elements, context)
        if args.mlir_print_ir_after_all or args.mlir_print_ir_before_all:
            pm.enable_ir_printing(
                print_before_all=args.mlir_print_ir_before_all,
                print_after_all=args.mlir_print_ir_after_all,
                print_module_scope=True,
                print_generic_op_form=True,
            )
        start = time.perf_counter()
        try:
            pm.run(module.operation)
        except ir.MLIRError as error:
            result.failed = True
            result.diagnostics.extend(error.error_diagnostics)
            return result
        timings.append(("passes", time.perf_counter() - start))
    start = time.perf_counter()
    result.output = module.operation.get_asm(
        print_generic_op_form=True, enable_debug_info=args.mlir_print_debuginfo
    )
    timings.append(("print", time.perf_counter() - start))
    if args.mlir_timing:
        for what, seconds in timings:
            sys.stderr.write(f"ipu-opt timing: {what}: {seconds * 1000:.1f} ms\n")
    return result


def run(argv: Sequence[str] | None = None, stdout=None, stderr=None) -> int:
    """Entry point; returns the process exit code."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    parser = _build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.list_passes:
        return _list_passes(stdout)

    # Passes named as flags (`--ipu-annotate-blocks`, `--canonicalize=...`) extend -p.
    pipeline_parts = [args.pass_pipeline] if args.pass_pipeline else []
    for flag in extra:
        if not flag.startswith("--"):
            stderr.write(f"ipu-opt: error: unexpected argument '{flag}' (one input file at most)\n")
            return EXIT_USAGE
        name, eq, value = flag[2:].partition("=")
        pipeline_parts.append(f"{name}{{{value}}}" if eq else name)

    from ipu_mlir.compiler.pass_base import PassOptionError
    from ipu_mlir.compiler.pass_pipeline import (
        PipelineSyntaxError,
        build_pass_manager,
        parse_pipeline,
    )
    from ipu_mlir.dialects import make_context

    try:
        elements = parse_pipeline(",".join(pipeline_parts)) if pipeline_parts else []
    except (PipelineSyntaxError, PassOptionError) as error:
        stderr.write(f"ipu-opt: error: {error}\n")
        return EXIT_USAGE

    filename = "<stdin>" if args.input == "-" else args.input
    try:
        data = sys.stdin.buffer.read() if args.input == "-" else Path(args.input).read_bytes()
    except OSError as error:
        stderr.write(f"ipu-opt: error: cannot read '{args.input}': {error.strerror}\n")
        return EXIT_USAGE
    try:
        text = data.decode()
    except UnicodeDecodeError as error:
        hint = " (MLIR bytecode: convert it with `ipu-translate --bytecode-to-mlir`)" if data.startswith(b"ML\xefR") else ""
        stderr.write(f"ipu-opt: error: '{filename}' is not UTF-8 text{hint}: {error.reason} at byte {error.start}\n")
        return EXIT_USAGE

    context = make_context()
    try:
        build_pass_manager(elements, context)  # reject unknown MLIR passes before reading IR
    except PipelineSyntaxError as error:
        stderr.write(f"ipu-opt: error: {error}\n")
        return EXIT_USAGE

    from torch_mlir import ir

    from ipu_mlir.support.diagnostics import (
        MalformedExpectation,
        check_expected,
        expected_diagnostics,
        flatten,
        format_diagnostic,
    )

    rename = {"-": filename}
    # Warnings and remarks do not travel in MLIRError; collect them as they are emitted.
    emitted: list = []

    def handler(diagnostic) -> bool:
        emitted.append(diagnostic)
        return True

    outputs, status = [], EXIT_OK
    with context:
        handle = context.attach_diagnostic_handler(handler)
        try:
            for first_line, chunk in _split(text, args.split_input_file):
                emitted.clear()
                result = _process(chunk, first_line, elements, args, context, filename)
                diagnostics = [*emitted, *result.diagnostics]
                if result.parse_failed and not any(d.severity == ir.DiagnosticSeverity.ERROR for d in diagnostics):
                    # Our dialects' custom-syntax hook fails without a word; never exit silently.
                    result.messages.append(silent_parse_failure(chunk, filename, first_line))
                if args.verify_diagnostics:
                    try:
                        expected = expected_diagnostics(chunk, first_line)
                    except MalformedExpectation as error:
                        stderr.write(f"{filename}:{error.line}: error: {error}\n")
                        status = EXIT_FAILURE
                        continue
                    if result.messages:  # not MLIR diagnostics: no expectation can match them
                        for message in result.messages:
                            stderr.write(message + "\n")
                        status = EXIT_FAILURE
                        continue
                    seen = [s for d in diagnostics for s in flatten(d)]
                    problems = check_expected(expected, seen, filename)
                    for problem in problems:
                        stderr.write(problem + "\n")
                    if problems:
                        status = EXIT_FAILURE
                else:
                    for diagnostic in diagnostics:
                        stderr.write(format_diagnostic(diagnostic, rename) + "\n")
                    for message in result.messages:
                        stderr.write(message + "\n")
                    if result.failed:
                        status = EXIT_FAILURE
                if not result.failed:
                    outputs.append(result.output)
        finally:
            handle.detach()

    rendered = f"\n{SPLIT_MARKER}\n".join(o.rstrip("\n") for o in outputs)
    if rendered:
        rendered += "\n"
    if args.output == "-":
        stdout.write(rendered)
    else:
        try:
            Path(args.output).write_text(rendered)
        except OSError as error:
            stderr.write(f"ipu-opt: error: cannot write '{args.output}': {error.strerror}\n")
            return EXIT_FAILURE
    return status


def main() -> None:
    try:
        code = run()
    except KeyboardInterrupt:
        code = 130
    sys.exit(code)


if __name__ == "__main__":
    main()

"""``ipu-translate``: translations between MLIR and other formats (mlir-translate style).

Available: ``--mlir-to-bytecode`` and ``--bytecode-to-mlir`` (the runtime executable
stores MLIR bytecode), ``--dump-irdl=<dialect>``, ``--schedule-to-text`` and
``--schedule-to-html`` (the pipeline schedule of a ``poplar.graph``: which IPU runs which
stage of which micro-batch at each step, and each IPU's peak memory) and ``--poplar-to-cpp``
(the ``poplar.graph`` as one C++17 translation unit against the Poplar/PopLibs API,
``compiler/codegen``; an op without an emission is an error naming it).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from ipu_mlir.tools.input_checks import nesting_problem, silent_parse_failure

_BYTECODE_MAGIC = b"ML\xefR"


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ipu-translate", description="Translate ipu-mlir IR to and from other formats.")
    parser.add_argument("input", nargs="?", default="-", help="input file ('-' for stdin)")
    parser.add_argument("-o", dest="output", default="-", help="output file (default: stdout)")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--mlir-to-bytecode", action="store_true", help="write MLIR bytecode")
    group.add_argument("--bytecode-to-mlir", action="store_true", help="read MLIR bytecode, print generic MLIR text")
    group.add_argument("--dump-irdl", metavar="DIALECT", choices=("ipu", "pipeline", "poplar"), help="print a dialect's IRDL definition")
    group.add_argument("--schedule-to-text", action="store_true", help="draw the pipeline schedule of a poplar.graph as text")
    group.add_argument("--schedule-to-html", action="store_true", help="draw the pipeline schedule of a poplar.graph as HTML")
    group.add_argument("--poplar-to-cpp", action="store_true", help="emit the poplar.graph as Poplar/PopLibs C++")
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    given = sys.argv[1:] if argv is None else list(argv)
    # argparse reports a missing translation before an unknown flag: name the flag first.
    unknown = [a for a in given if a.startswith("-") and a != "-" and _option_name(a) not in parser._option_string_actions]
    if unknown:
        choices = ", ".join(a for a in parser._option_string_actions if a.startswith("--") and a != "--help")
        sys.stderr.write(f"ipu-translate: error: unknown option '{unknown[0]}' (options: {choices})\n")
        return 2
    args = parser.parse_args(given)
    from ipu_mlir.dialects import irdl_text, make_context

    if args.dump_irdl:
        return _write(args.output, irdl_text(args.dump_irdl).encode())
    try:
        data = sys.stdin.buffer.read() if args.input == "-" else Path(args.input).read_bytes()
    except OSError as error:
        sys.stderr.write(f"ipu-translate: error: cannot read '{args.input}': {error.strerror}\n")
        return 1
    from torch_mlir import ir

    from ipu_mlir.support.diagnostics import format_diagnostic

    filename = "<stdin>" if args.input == "-" else args.input
    if not data.startswith(_BYTECODE_MAGIC):
        try:
            text = data.decode()
        except UnicodeDecodeError as error:
            sys.stderr.write(f"ipu-translate: error: '{filename}' is neither MLIR bytecode nor UTF-8 text: {error.reason} at byte {error.start}\n")
            return 1
        too_deep = nesting_problem(text)
        if too_deep is not None:
            sys.stderr.write(f"{filename}:{too_deep}\n")
            return 1
    context = make_context()
    with context:
        try:
            # MLIR tells bytecode from text by its magic number, so both inputs take bytes.
            module = ir.Module.parse(data, context)
        except ir.MLIRError as error:
            for diagnostic in error.error_diagnostics:
                sys.stderr.write(format_diagnostic(diagnostic, {"-": filename}) + "\n")
            if not error.error_diagnostics:
                sys.stderr.write(silent_parse_failure(data.decode(errors="replace"), filename) + "\n")
            return 1
        if args.schedule_to_text or args.schedule_to_html:
            return _schedule(module, args)
        if args.poplar_to_cpp:
            return _poplar_to_cpp(module, args)
        if args.mlir_to_bytecode:
            import io

            buffer = io.BytesIO()
            module.operation.write_bytecode(buffer)
            return _write(args.output, buffer.getvalue())
        return _write(args.output, module.operation.get_asm(print_generic_op_form=True).encode())


def _option_name(arg: str) -> str:
    """``--dump-irdl=poplar`` -> ``--dump-irdl``; ``-ofile`` -> ``-o``."""
    if arg.startswith("--"):
        return arg.partition("=")[0]
    return arg[:2]


def _schedule(module: object, args: argparse.Namespace) -> int:
    from ipu_mlir.artifact.schedule import summarize

    graphs = [op.operation for op in module.body.operations if op.operation.name == "poplar.graph"]
    try:
        if len(graphs) != 1:
            raise ValueError(f"expected one 'poplar.graph' in the module, found {len(graphs)}: run the poplar pipeline first")
        summary = summarize(graphs[0])
    except ValueError as error:
        sys.stderr.write(f"ipu-translate: error: {error}\n")
        return 1
    return _write(args.output, (summary.html() if args.schedule_to_html else summary.text()).encode())


def _poplar_to_cpp(module: object, args: argparse.Namespace) -> int:
    from ipu_mlir.compiler.codegen import CodegenError, emit_cpp

    try:
        text = emit_cpp(module)
    except CodegenError as error:
        sys.stderr.write(f"ipu-translate: error: {error}\n")
        return 1
    return _write(args.output, text.encode())


def _write(output: str, data: bytes) -> int:
    """Write ``data`` to ``output`` ('-' is stdout); returns the exit code."""
    if output == "-":
        sys.stdout.buffer.write(data)
        return 0
    try:
        Path(output).write_bytes(data)
    except OSError as error:
        sys.stderr.write(f"ipu-translate: error: cannot write '{output}': {error.strerror}\n")
        return 1
    return 0


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()

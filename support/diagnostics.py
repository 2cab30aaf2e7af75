"""Formatting and checking MLIR diagnostics the way ``mlir-opt`` does.

``format_diagnostic`` prints ``file:line:col: error: message``; ``expected_diagnostics``
and ``check_expected`` implement ``--verify-diagnostics`` (``// expected-error@+1 {{...}}``
comments) for ipu-opt, which cannot use MLIR's C++ SourceMgr handler from Python.
"""

from __future__ import annotations

import dataclasses
import re

from torch_mlir import ir

_FILE_LOC = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
_NAME_LOC = re.compile(r'loc\((?:fused(?:<[^>]*>)?\[)?"([^"]*)"\(')
_SEVERITY = {
    ir.DiagnosticSeverity.ERROR: "error",
    ir.DiagnosticSeverity.WARNING: "warning",
    ir.DiagnosticSeverity.NOTE: "note",
    ir.DiagnosticSeverity.REMARK: "remark",
}


@dataclasses.dataclass(frozen=True)
class SourcePosition:
    file: str
    line: int
    column: int


def source_position(location: ir.Location | str) -> SourcePosition | None:
    """The first file:line:col inside a (possibly fused or named) location."""
    match = _FILE_LOC.search(str(location))
    if match is None:
        return None
    return SourcePosition(match.group(1), int(match.group(2)), int(match.group(3)))


def location_label(location: ir.Location | str) -> str:
    """``file:line:col`` of a location, or its name, or ``<unknown>``."""
    position = source_position(location)
    if position is not None:
        return f"{position.file}:{position.line}:{position.column}"
    name = _NAME_LOC.search(str(location))
    return name.group(1) if name else "<unknown>"


def format_diagnostic(diagnostic: ir.DiagnosticInfo | ir.Diagnostic, rename: dict[str, str] | None = None) -> str:
    """One line per diagnostic (and one per attached note), mlir-opt style."""
    label = location_label(diagnostic.location)
    for old, new in (rename or {}).items():
        if label.startswith(old + ":"):
            label = new + label[len(old) :]
    severity = _SEVERITY.get(diagnostic.severity, "error")
    lines = [f"{label}: {severity}: {diagnostic.message}"]
    for note in diagnostic.notes:
        if "see current operation" in note.message:
            continue  # the op dump MLIR attaches to verifier errors; too long for a one-line error
        lines.append(format_diagnostic(note, rename))
    return "\n".join(lines)


@dataclasses.dataclass
class Expected:
    severity: str
    line: int | None  # None: expected at an unknown location (``@unknown``)
    message: str
    source_line: int
    matched: bool = False


# MLIR writes both ``expected-error@+1 {{...}}`` and ``expected-error @+1 {{...}}``;
# ``@unknown`` expects a diagnostic with no location in the file. A comment that names an
# ``expected-...`` severity but does not parse is reported, never silently skipped.
_EXPECTED = re.compile(r"expected-(error|warning|note|remark)\s*(?:@([+-]\d+|above|below|unknown))?\s*\{\{(.*?)\}\}")
_EXPECTED_WORD = re.compile(r"expected-(error|warning|note|remark)\b")


class MalformedExpectation(ValueError):
    """An ``expected-<severity>`` comment that does not parse, on source line ``line``."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def expected_diagnostics(text: str, first_line: int = 1) -> list[Expected]:
    """The ``expected-<severity>[ @+N|@-N|@above|@below|@unknown] {{message}}`` comments
    of a source chunk; raises :class:`MalformedExpectation` for one that does not parse."""
    found: list[Expected] = []
    for offset, line in enumerate(text.splitlines()):
        lineno = first_line + offset
        matches = list(_EXPECTED.finditer(line))
        if len(matches) != len(_EXPECTED_WORD.findall(line)):
            raise MalformedExpectation(lineno, f"cannot read the expectation in '{line.strip()}' "
                                               "(write: expected-error @+1 {{message}})")
        for match in matches:
            severity, where, message = match.groups()
            target: int | None = lineno
            if where == "unknown":
                target = None
            elif where == "above":
                target = lineno - 1
            elif where == "below":
                target = lineno + 1
            elif where:
                target = lineno + int(where)
            found.append(Expected(severity, target, message, lineno))
    return found


@dataclasses.dataclass(frozen=True)
class Seen:
    severity: str
    line: int | None
    message: str


def flatten(diagnostic: ir.DiagnosticInfo | ir.Diagnostic, buffer_name: str = "-") -> list[Seen]:
    """A diagnostic and its notes as (severity, line, message) records.

    Only a position in the checked buffer (``buffer_name``) gives a line; a diagnostic
    located elsewhere (e.g. in the user's model.py) can match no expectation.
    """
    position = source_position(diagnostic.location)
    line = position.line if position is not None and position.file == buffer_name else None
    seen = [Seen(_SEVERITY.get(diagnostic.severity, "error"), line, diagnostic.message)]
    for note in diagnostic.notes:
        if "see current operation" not in note.message:
            seen.extend(flatten(note, buffer_name))
    return seen


def check_expected(expected: list[Expected], seen: list[Seen], file: str) -> list[str]:
    """Match seen diagnostics against expectations; returns mlir-opt style complaints."""
    problems = []
    for diagnostic in seen:
        match = next(
            (
                e
                for e in expected
                if not e.matched
                and e.severity == diagnostic.severity
                and e.line == diagnostic.line
                and e.message in diagnostic.message
            ),
            None,
        )
        if match is not None:
            match.matched = True
        else:
            where = f"{file}:{diagnostic.line}" if diagnostic.line else f"{file} (located outside this file)"
            problems.append(f"{where}: error: unexpected {diagnostic.severity}: {diagnostic.message}")
    for e in expected:
        if not e.matched:
            problems.append(
                f"{file}:{e.source_line}: error: expected {e.severity} \"{e.message}\" "
                f"{'at an unknown location' if e.line is None else f'on line {e.line}'} was not produced"
            )
    return problems

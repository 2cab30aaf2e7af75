"""Checks ``ipu-opt`` and ``ipu-translate`` make on MLIR text before and after MLIR parses it.

``nesting_problem`` refuses text nested deeper than MLIR's recursive parser can take (it
overflows the stack and kills the process with SIGSEGV); ``custom_syntax_op`` names the op
when the parser fails without saying why (an op of our Python-defined dialects written in
a custom assembly format: their parse hook fails without emitting a diagnostic).
"""

from __future__ import annotations

import dataclasses
import re

# Measured (8 MB stack, torch-mlir 20261001): the parser crashed at about 4,000 nested
# `module {` and about 2,400 nested generic-op regions (`({` counts twice: 4,800 levels);
# 2,000 nested regions (4,000 levels) still parsed, printed and ran canonicalize. A quarter
# of the smallest crash leaves room for smaller stacks and deeper frames in the passes.
MAX_NESTING = 1000

# A string (with escapes), a comment, the `->` of function types, or one bracket.
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|->|[{(\[<})\]>]')
_OPEN = "{([<"
_OURS = ("ipu", "pipeline", "poplar")
# An op of our dialects in custom form: its name first on a line or after `=`, unquoted.
_CUSTOM_OP = re.compile(r'(?:^|=)[ \t]*((?:' + "|".join(_OURS) + r')\.[A-Za-z_][\w.]*)\b(?!")', re.MULTILINE)


@dataclasses.dataclass(frozen=True)
class TextPosition:
    line: int
    column: int

    def label(self, filename: str) -> str:
        return f"{filename}:{self.line}:{self.column}"


def _position(text: str, offset: int, first_line: int) -> TextPosition:
    line_start = text.rfind("\n", 0, offset) + 1
    return TextPosition(first_line + text.count("\n", 0, offset), offset - line_start + 1)


def nesting_problem(text: str, first_line: int = 1) -> str | None:
    """A message if brackets (``{ ( [ <``, outside strings and comments) nest deeper than
    :data:`MAX_NESTING` anywhere in ``text``; None otherwise. The message starts with
    ``line:col: error:`` (the first bracket past the limit): prefix the file name."""
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if len(token) != 1:
            continue  # a string, a comment or `->`
        if token in _OPEN:
            depth += 1
            if depth > MAX_NESTING:
                where = _position(text, match.start(), first_line)
                return (
                    f"{where.line}:{where.column}: error: input nests brackets and regions more than {MAX_NESTING} levels deep; "
                    f"MLIR's parser recurses once per level and overflows the stack on deep input, so it is not parsed. "
                    f"Flatten the IR (fewer nested regions, attributes or types)"
                )
        else:
            depth = max(depth - 1, 0)  # unbalanced closers are the parser's to report
    return None


def custom_syntax_op(text: str, first_line: int = 1) -> tuple[TextPosition, str] | None:
    """The position and name of the first op of the ipu, pipeline or poplar dialect written
    in custom assembly form (``%0 = poplar.popops_add %a, %b``), outside comments."""
    for match in _CUSTOM_OP.finditer(text):
        start = match.start(1)
        line_start = text.rfind("\n", 0, start) + 1
        if "//" in text[line_start:start] or text[line_start:start].count('"') % 2:
            continue
        return _position(text, start, first_line), match.group(1)
    return None


def silent_parse_failure(text: str, filename: str, first_line: int = 1) -> str:
    """The message for a parse that failed without a diagnostic."""
    found = custom_syntax_op(text, first_line)
    if found is not None:
        where, name = found
        return (
            f"{where.label(filename)}: error: '{name}' is written in a custom assembly format, which the {name.split('.')[0]} "
            f"dialect does not have (ipu-mlir's dialects are defined in Python): write it in MLIR's generic form, "
            f"'\"{name}\"(operands) {{attributes}} : (operand types) -> (result types)'"
        )
    return (
        f"{filename}: error: MLIR's parser rejected the input without a diagnostic (an op of a dialect without a "
        f"custom assembly format is the usual cause): write ipu, pipeline and poplar ops in MLIR's generic form"
    )

"""The keys, defaults and value rules of a tensor print layout (``poptorch.ipu_print_tensor``'s
formatting arguments, Poplar's ``PrintTensorFmt``); the IR attribute that carries it is in
dialects/print_format.py."""

from __future__ import annotations

from typing import Any

PRINT_FORMAT_DEFAULTS: dict[str, Any] = {
    "summarise_threshold": 1000, "edge_items": 3, "max_line_width": 75, "digits": 8, "float_format": "auto",
    "separator": " ", "open_bracket": "(", "close_bracket": ")",
}
FLOAT_FORMATS = ("auto", "fixed", "scientific", "none")
INTEGER_MINIMUMS = {"summarise_threshold": 0, "edge_items": 0, "max_line_width": 1, "digits": 0}


def check_print_format_value(key: str, value: Any) -> str | None:
    """Why ``value`` is not valid for ``key`` (None when it is)."""
    if key not in PRINT_FORMAT_DEFAULTS:
        return f"unknown key '{key}' (valid: {', '.join(PRINT_FORMAT_DEFAULTS)})"
    if key in INTEGER_MINIMUMS:
        if isinstance(value, bool) or not isinstance(value, int):
            return f"'{key}' must be an integer, got {value!r}"
        if value < INTEGER_MINIMUMS[key]:
            return f"'{key}' must be >= {INTEGER_MINIMUMS[key]}, got {value}"
        return None
    if not isinstance(value, str):
        return f"'{key}' must be a string, got {value!r}"
    if key == "float_format" and value not in FLOAT_FORMATS:
        return f"'float_format' must be one of {', '.join(FLOAT_FORMATS)}, got \"{value}\""
    return None

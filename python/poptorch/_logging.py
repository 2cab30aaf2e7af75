"""The ``poptorch`` logger, built on ``logging``. Its level comes from ``POPTORCH_LOG_LEVEL``
at import, then from ``setLogLevel()``; ``warn_once`` says a thing once per process, such as
an accepted option that has no effect in the IPU Model emulator."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from typing import Any

from .enums import format_value

__all__ = [
    "LOG_LEVEL_ENV_VAR",
    "LOG_LEVELS",
    "OFF",
    "TRACE",
    "logger",
    "reset_warn_once",
    "setLogLevel",
    "trace",
    "warn_no_effect",
    "warn_once",
]

LOG_LEVEL_ENV_VAR = "POPTORCH_LOG_LEVEL"

#: Finer than DEBUG: PopTorch's TRACE level.
TRACE = 5
#: Above CRITICAL, so that nothing is printed.
OFF = logging.CRITICAL + 10

logging.addLevelName(TRACE, "TRACE")
logging.addLevelName(OFF, "OFF")

#: The level names PopTorch documents, mapped to ``logging`` levels. TRACE_ALL is the
#: user guide's alias of TRACE.
LOG_LEVELS: dict[str, int] = {
    "TRACE": TRACE,
    "TRACE_ALL": TRACE,
    "DEBUG": logging.DEBUG,
    "INFO": logging.INFO,
    "WARN": logging.WARNING,
    "ERR": logging.ERROR,
    "OFF": OFF,
}

# PopTorch's own integer numbering of the levels (setLogLevel(int) in PopTorch). Integers
# from 10 upwards are read as standard ``logging`` levels instead (logging.DEBUG, ...).
_POPTORCH_INT_LEVELS: dict[int, int] = {
    0: TRACE,
    1: logging.DEBUG,
    2: logging.INFO,
    3: logging.WARNING,
    4: logging.ERROR,
    5: logging.CRITICAL,
    6: OFF,
}

_DEFAULT_LEVEL = logging.INFO

logger = logging.getLogger("poptorch")


class _ConsoleHandler(logging.StreamHandler):
    """Prints to stderr only when nobody configured the root logger.

    Records always propagate to the root logger, so an application's own logging setup
    (or pytest's ``caplog``) sees them; this handler covers the case where there is no
    such setup, without printing every line twice when there is.
    """

    def emit(self, record: logging.LogRecord) -> None:
        if logging.getLogger().handlers:
            return
        super().emit(record)


# Looked up by name, not class, so that reloading this module does not add a second one.
_HANDLER_NAME = "poptorch-console"
for _old in [h for h in logger.handlers if h.get_name() == _HANDLER_NAME]:
    logger.removeHandler(_old)
_handler = _ConsoleHandler(sys.stderr)
_handler.set_name(_HANDLER_NAME)
_handler.setFormatter(logging.Formatter("[poptorch:%(levelname)s] %(message)s"))
logger.addHandler(_handler)
logger.propagate = True


def _valid_choices() -> str:
    names = ", ".join(name for name in LOG_LEVELS if name != "TRACE_ALL")
    return f"{names} (any case), TRACE_ALL, PopTorch's integers 0-6, or a logging level >= 10"


def _to_logging_level(level: str | int, source: str) -> int:
    """Translate a PopTorch log level (name or integer) to a ``logging`` level."""
    if isinstance(level, bool):
        raise TypeError(
            f"{source}: {level!r} is not a log level. Valid choices: {_valid_choices()}."
        )
    if isinstance(level, int):
        if level in _POPTORCH_INT_LEVELS:
            return _POPTORCH_INT_LEVELS[level]
        if level >= logging.DEBUG:
            return level
        raise ValueError(
            f"{source}: {level} is not a log level: integers 0-6 are PopTorch levels "
            f"(0 TRACE ... 6 OFF) and integers from 10 are logging levels. "
            f"Valid choices: {_valid_choices()}."
        )
    if isinstance(level, str):
        name = level.strip().upper()
        if name in LOG_LEVELS:
            return LOG_LEVELS[name]
        raise ValueError(
            f"{source}: {level!r} is not a log level. Valid choices: {_valid_choices()}."
        )
    raise TypeError(
        f"{source}: expected a level name or an integer, got {type(level).__name__}. "
        f"Valid choices: {_valid_choices()}."
    )


def setLogLevel(level: str | int) -> None:  # noqa: N802 - PopTorch's public name
    """Set how much PopTorch logs: TRACE, DEBUG, INFO, WARN, ERR or OFF (or an integer)."""
    logger.setLevel(_to_logging_level(level, "poptorch.setLogLevel"))


def apply_env_log_level(environ: Mapping[str, str] | None = None) -> None:
    """Set the level from ``POPTORCH_LOG_LEVEL`` (INFO when unset).

    Runs once at import. A bad value does not break ``import poptorch``: the level stays
    at INFO and a warning names the variable, the value and the valid choices.
    """
    env = os.environ if environ is None else environ
    raw = env.get(LOG_LEVEL_ENV_VAR)
    logger.setLevel(_DEFAULT_LEVEL)
    if raw is None or raw.strip() == "":
        return
    try:
        logger.setLevel(_to_logging_level(raw, f"environment variable {LOG_LEVEL_ENV_VAR}"))
    except ValueError as err:
        logger.warning("%s; using INFO instead.", err)


def trace(message: str, *args: Any) -> None:
    """Log ``message`` at PopTorch's TRACE level."""
    logger.log(TRACE, message, *args)


_warned_keys: set[str] = set()


def warn_once(key: str, message: str) -> None:
    """Log ``message`` as a warning the first time ``key`` is seen in this process."""
    if key in _warned_keys:
        return
    _warned_keys.add(key)
    logger.warning(message)


def warn_no_effect(option: str, value: Any, reason: str = "") -> None:
    """Say once per option that it was accepted but has no effect in the IPU Model emulator."""
    why = f" ({reason})" if reason else ""
    warn_once(
        option,
        f"{option}({format_value(value)}) was accepted but has no effect in the IPU Model emulator{why}; "
        f"the model runs as if the option had its default value.",
    )


def reset_warn_once() -> None:
    """Forget which ``warn_once`` keys were seen, so tests can observe first warnings again."""
    _warned_keys.clear()


apply_env_log_level()

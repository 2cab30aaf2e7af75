"""The base class of every ipu-mlir pass and its adapter to MLIR's PassManager.

A pass is a frozen dataclass whose fields are its command-line options; ``run`` walks
the module and reports problems through :class:`Diagnostics`. ``add_to`` installs it in
a ``torch_mlir.passmanager.PassManager`` next to MLIR's own textual passes.
"""

from __future__ import annotations

import dataclasses
import time
import typing
from collections.abc import Callable
from typing import Any, ClassVar

from torch_mlir import ir


class Diagnostics:
    """Collects a pass's located errors; the pass fails if any were reported.

    ``error`` accepts an op (its location is used) or a location. All errors are
    emitted, so one run reports every offender, not only the first.
    """

    def __init__(self) -> None:
        self.failed = False

    @staticmethod
    def _location(where: ir.Operation | ir.OpView | ir.Location) -> ir.Location:
        return where if isinstance(where, ir.Location) else where.location

    def error(self, where: ir.Operation | ir.OpView | ir.Location, message: str) -> None:
        self._location(where).emit_error(message)
        self.failed = True


class PassFailure(Exception):
    """Raised inside ``run`` to stop a pass at once after an error was reported."""


class PassOptionError(ValueError):
    """A pass option given on the command line or in a pipeline is invalid."""


@dataclasses.dataclass(frozen=True)
class MlirPass:
    """A pass of MLIR or torch-mlir in a typed pipeline, by its textual form
    (``MlirPass("canonicalize")``, ``MlirPass("func.func(cse)")``)."""

    text: str

    def pipeline_text(self) -> str:
        return self.text


@dataclasses.dataclass(frozen=True)
class ModulePass:
    """Base of ipu-mlir passes; subclasses set ``name`` and implement ``run``.

    The first line of the subclass docstring is the summary shown by
    ``ipu-opt --list-passes``; its ``Arguments:`` section documents the options.
    """

    name: ClassVar[str] = ""

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:  # pragma: no cover
        raise NotImplementedError

    # -- metadata -------------------------------------------------------------------
    @classmethod
    def summary(cls) -> str:
        doc = (cls.__doc__ or "").strip()
        return doc.splitlines()[0] if doc else ""

    @classmethod
    def option_names(cls) -> list[str]:
        return [f.name.replace("_", "-") for f in dataclasses.fields(cls)]

    @classmethod
    def from_options(cls, options: dict[str, str]) -> ModulePass:
        """Build the pass from ``{"opt-name": "text"}`` as written in a pipeline."""
        fields = {f.name.replace("_", "-"): f for f in dataclasses.fields(cls)}
        hints = typing.get_type_hints(cls)
        kwargs: dict[str, Any] = {}
        for key, text in options.items():
            if key not in fields:
                valid = ", ".join(fields) or "none"
                raise PassOptionError(f"pass '{cls.name}' has no option '{key}' (options: {valid})")
            field = fields[key]
            kwargs[field.name] = _convert(cls.name, key, text, hints[field.name])
        return cls(**kwargs)

    def pipeline_text(self) -> str:
        """This pass with its non-default options, as written in a pipeline string."""
        parts = []
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.default is not dataclasses.MISSING and value == field.default:
                continue
            if isinstance(value, bool):
                text = "true" if value else "false"
            elif isinstance(value, tuple | list):
                text = ",".join(str(v) for v in value)
            else:
                text = str(value)
            if not text or any(c in text for c in " {}"):
                text = "'" + text + "'"
            parts.append(f"{field.name.replace('_', '-')}={text}")
        return self.name + ("{" + " ".join(parts) + "}" if parts else "")

    # -- PassManager adapter --------------------------------------------------------
    def as_callable(self, timings: dict[str, float] | None = None) -> Callable[[ir.Operation, Any], None]:
        """The pass as a PassManager callable; with ``timings``, each run adds its seconds
        to ``timings["passes.<name>"]``."""

        def run(op: ir.Operation, pass_: Any) -> None:
            start = time.perf_counter()
            diag = Diagnostics()
            try:
                # Python passes run without a current context; builders need one.
                with op.context, ir.Location.unknown(op.context):
                    self.run(op, diag)
            except PassFailure:
                diag.failed = True
            except Exception as error:  # a bug in the pass: report it, never crash the driver
                import traceback

                where = traceback.extract_tb(error.__traceback__)[-1]
                op.location.emit_error(
                    f"internal error in pass '{self.name}': {type(error).__name__}: {error} "
                    f"(at {where.filename}:{where.lineno}); please report it with the reproducer"
                )
                diag.failed = True
            if timings is not None:
                key = f"passes.{self.name}"
                timings[key] = timings.get(key, 0.0) + time.perf_counter() - start
            if diag.failed:
                pass_.signal_pass_failure()

        run.__name__ = self.name
        return run


def _convert(pass_name: str, key: str, text: str, hint: Any) -> Any:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    origin = typing.get_origin(hint)
    try:
        if hint is bool:
            lowered = text.lower()
            if lowered in ("true", "1", ""):
                return True
            if lowered in ("false", "0"):
                return False
            raise ValueError
        if hint is int:
            return int(text, 0)
        if hint is float:
            return float(text)
        if hint is str:
            return text
        if origin is tuple:
            (inner, *_rest) = typing.get_args(hint)
            items = [t for t in text.split(",") if t.strip()]
            return tuple(_convert(pass_name, key, t, inner) for t in items)
    except ValueError:
        raise PassOptionError(
            f"pass '{pass_name}' option '{key}' expects {getattr(hint, '__name__', hint)}, got '{text}'"
        ) from None
    raise PassOptionError(f"pass '{pass_name}' option '{key}' has an unsupported type {hint}")

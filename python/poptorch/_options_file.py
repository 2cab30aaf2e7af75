"""``Options.loadFromFile``: one option call per line, written as in a Python script without the
``options.`` prefix, applied without evaluating any Python code.

A line is a setter call on ``Options`` or an option group (``Training.gradientAccumulation(2)``),
possibly chained as in a script (``deviceIterations(2).randomSeed(1)``). Arguments are literals
(also lists / tuples / dicts of them), poptorch enum members (``OutputMode.All``), ``torch.float`` /
``torch.half``, and the option objects with their setters chained: ``TensorLocationSettings()``,
``ShardedExecution(...)``, ``PipelinedExecution(...)``, ``SerialPhasedExecution(...)``,
``ParallelPhasedExecution(...)``, ``Stage(...)`` and ``Phase(...)``. ``poptorch.`` prefixes are
allowed everywhere.
"""

from __future__ import annotations

import ast
import os
from typing import Any

from . import enums, execution_strategy

__all__ = ["load_options_file"]

_TORCH_DTYPES = {"float": "float32", "float32": "float32", "half": "float16", "float16": "float16"}
_USAGE = ("Each line must be a single option call such as deviceIterations(4), "
          "Training.gradientAccumulation(2) or setExecutionStrategy(ShardedExecution()).")
_ALLOWED = ("Arguments may be literals, poptorch enum members such as OutputMode.All, torch.float / torch.half, "
            "or TensorLocationSettings(), ShardedExecution(...), PipelinedExecution(...), SerialPhasedExecution(...), "
            "ParallelPhasedExecution(...), Stage(...) and Phase(...) with their setters.")


def _constructors() -> dict[str, type]:
    from .options import TensorLocationSettings

    names = ("ShardedExecution", "PipelinedExecution", "SerialPhasedExecution", "ParallelPhasedExecution",
             "Stage", "Phase")
    found = {name: getattr(execution_strategy, name) for name in names}
    found["TensorLocationSettings"] = TensorLocationSettings
    return found


def load_options_file(options: Any, filepath: str | os.PathLike[str], groups: tuple[str, ...],
                      not_setters: frozenset[str]) -> None:
    """Apply every line of ``filepath`` to ``options`` (see the module docstring)."""
    path = os.fspath(filepath)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as err:  # keep the type (FileNotFoundError, ...), say who was reading what
        raise type(err)(err.errno, f"loadFromFile: cannot read the options file ({err.strerror})", path) from None
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise ValueError(
            f"loadFromFile: {path}:{line}: the file is not UTF-8 text (byte {err.start} is 0x{data[err.start]:02x}); "
            f"an options file holds one option call per line, such as deviceIterations(4). Check the path: "
            f"it may name a binary file (an executable or a checkpoint)."
        ) from None
    for line_number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        _Line(options, groups, not_setters, f"{path}:{line_number}", text).apply()


class _Line:
    def __init__(self, options: Any, groups: tuple[str, ...], not_setters: frozenset[str], where: str,
                 text: str) -> None:
        self.options, self.groups, self.not_setters = options, groups, not_setters
        self.where, self.text = where, text

    def fail(self, message: str) -> ValueError:
        return ValueError(f"{self.where}: {self.text}: {message}")

    def apply(self) -> None:
        try:
            tree = ast.parse(self.text, mode="eval")
        except SyntaxError as err:
            raise self.fail(f"cannot be parsed ({err.msg}). {_USAGE}") from None
        if not isinstance(tree.body, ast.Call):
            raise self.fail(f"this is not an option call. {_USAGE}")
        self.setter_call(tree.body)

    def call(self, function: Any, label: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        try:
            return function(*args, **kwargs)
        except (TypeError, ValueError) as err:
            kind = ValueError if isinstance(err, ValueError) else TypeError
            raise kind(f"{self.where}: {self.text}: {err}") from err

    def arguments(self, call: ast.Call) -> tuple[list[Any], dict[str, Any]]:
        if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
            raise self.fail(f"* and ** arguments are not allowed. {_USAGE}")
        return [self.value(a) for a in call.args], {kw.arg: self.value(kw.value) for kw in call.keywords}

    def setter_call(self, call: ast.Call) -> Any:
        """Apply one setter call (the last link of a chain); returns what the setter returned."""
        func = call.func
        if isinstance(func, ast.Name):
            target, method = self.options, func.id
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in self.groups:
            target, method = getattr(self.options, func.value.id), func.attr
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
            target, method = self.setter_call(func.value), func.attr  # a chain: options.a(1).b(2)
        else:
            raise self.fail(f"the called name must be an Options method or <group>.<method> with group one of "
                            f"{', '.join(self.groups)} (without an 'options.' prefix). {_USAGE}")
        attribute = getattr(type(target), method, None)
        if method.startswith("_") or method in self.not_setters or not callable(attribute):
            prefix = getattr(target, "_prefix", type(target).__name__)
            raise self.fail(f"{method!r} is not an option setter of {prefix}. {_USAGE}")
        args, kwargs = self.arguments(call)
        return self.call(getattr(target, method), method, args, kwargs)

    def value(self, node: ast.AST) -> Any:
        """One argument, evaluated without running any code."""
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError):
            pass
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.value(item) for item in node.elts]
            return items if isinstance(node, ast.List) else tuple(items)
        dotted = _dotted(node)
        if dotted is not None:
            return self.name(dotted)
        if isinstance(node, ast.Call):
            constructors = _constructors()
            func_name = _dotted(node.func)
            if func_name is not None and func_name.removeprefix("poptorch.") in constructors:
                cls = constructors[func_name.removeprefix("poptorch.")]
                args, kwargs = self.arguments(node)
                return self.call(cls, cls.__name__, args, kwargs)
            if isinstance(node.func, ast.Attribute):
                owner = self.value(node.func.value)
                method = node.func.attr
                if (isinstance(owner, tuple(constructors.values())) and not method.startswith("_")
                        and callable(getattr(type(owner), method, None)) and method not in ("to_dict", "validate")):
                    args, kwargs = self.arguments(node)
                    return self.call(getattr(owner, method), method, args, kwargs)
        raise self.fail(f"unsupported argument {ast.unparse(node)!r}. {_ALLOWED}")

    def name(self, dotted: str) -> Any:
        parts = dotted.removeprefix("poptorch.").split(".")
        if len(parts) == 2 and parts[0] in enums.__all__:
            enum_class = getattr(enums, parts[0])
            if parts[1] in enum_class.__members__:
                return enum_class[parts[1]]
            raise self.fail(f"{parts[0]} has no member {parts[1]!r}. Valid choices are "
                            f"{', '.join(enum_class.choices())}.")
        if len(parts) == 2 and parts[0] == "torch" and parts[1] in _TORCH_DTYPES:
            import torch  # only for files that name a dtype

            return getattr(torch, _TORCH_DTYPES[parts[1]])
        raise self.fail(f"unknown name {dotted!r}. {_ALLOWED}")


def _dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of names, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None

"""The executable cache's pre-capture key: a digest of everything that decides what
``torch.export`` captures, computed from the Python objects without capturing.

``model_key(model, args, kwargs)`` describes:

- every module of the model (``named_modules``, shared ones by their first path): its
  class and every non-parameter attribute in its ``__dict__`` (``training``, hooks,
  configuration objects, plain values, tensor attributes by shape and dtype: their
  values are read from the model when a cached executable is loaded);
- every parameter and buffer (``remove_duplicate=False``, so tied weights count): name,
  shape, dtype, stride, device, requires_grad and which of them are the same tensor;
- the input pytree: its structure, each tensor's shape, dtype, stride and requires_grad,
  each non-tensor value;
- the torch state a capture reads: grad mode, inference mode, default dtype, autocast,
  the fast path of ``nn.MultiheadAttention``.

A class of a library (torch, torch-mlir, ipu-mlir, poptorch, the standard library and
installed packages) is its module, qualified name and package version; any other class
is every function, property and value of its ``__dict__``, and a function is its
bytecode (instructions, constants, names, line table: a change of its source, even of a
line number, changes the key), its defaults, its closure and the globals its code names,
followed into the user functions and classes it calls. Tensors that are not a module's
attribute (globals, closures, nested in other values) are described by their values.

What cannot be described this way makes the key unsound, and ``model_key`` returns
``None`` with the reason: a function that assigns a global (``global x``), a value of a
type with no known description (an open file, a lock...), or a description too large.
The cache then falls back to the post-capture key (``cache.cache_key``).
"""

from __future__ import annotations

import enum
import functools
import hashlib
import importlib.metadata
import inspect
import logging
import math
import sys
import sysconfig
import types
from typing import Any

import torch
import torch.utils._pytree as pytree

_LIBRARY_PACKAGES = frozenset({"torch", "torch_mlir", "ipu_mlir", "poptorch", "builtins", "functools", "typing",
                               "collections", "math", "operator", "abc", "enum", "dataclasses", "contextlib",
                               "itertools", "numpy", "transformers", "logging", "warnings", "inspect", "copy"})
_LIBRARY_DIRS = tuple(sorted({path for name in ("stdlib", "platstdlib", "purelib", "platlib")
                              if (path := sysconfig.get_paths().get(name))}))
_MAX_NODES = 200_000  # description nodes before the key gives up (a huge object graph)
_MAX_TENSOR_BYTES = 64 * 1024**2  # a tensor described by value beyond this: unsound
_STORE_GLOBAL = {"STORE_GLOBAL", "DELETE_GLOBAL"}
_MODULE_SKIP = frozenset({"_parameters", "_buffers", "_modules"})
# poptorch's bookkeeping on a training model's modules (host weight sync: a weakref to the
# wrapper, the class before poptorch's subclass), which no forward reads.
_POPTORCH_BOOKKEEPING = frozenset({"_poptorch_host_sync", "_poptorch_original_class"})


class Unsound(Exception):
    """The model holds something the pre-capture key cannot describe."""


@functools.cache
def _package_version(package: str) -> str:
    """The installed distribution's version of a top-level package ("" for the standard
    library: ``sys.version`` is in the key)."""
    try:
        return importlib.metadata.version(package)
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return ""


def _class_file(cls: type) -> str | None:
    try:
        return inspect.getfile(cls)
    except (TypeError, OSError):  # a built-in class
        return None


def _is_library(module_name: str | None, filename: str | None = None) -> bool:
    top = (module_name or "").partition(".")[0]
    if top in _LIBRARY_PACKAGES:
        return True
    if filename and filename.startswith(_LIBRARY_DIRS):
        return True
    return False


class _Describer:
    def __init__(self) -> None:
        self.digest = hashlib.sha256()
        self.nodes = 0
        self.seen: dict[int, int] = {}  # id -> index of the first description (cycles, shared objects)
        self.keep: list[Any] = []  # keeps described objects alive, so ids stay unique

    def emit(self, *parts: Any) -> None:
        self.nodes += 1
        if self.nodes > _MAX_NODES:
            raise Unsound(f"the model's description exceeds {_MAX_NODES} values")
        self.digest.update(repr(parts).encode())
        self.digest.update(b"\0")

    def _once(self, value: Any) -> bool:
        """True the first time ``value`` is described; afterwards emits a reference to it."""
        index = self.seen.get(id(value))
        if index is not None:
            self.emit("ref", index)
            return False
        self.seen[id(value)] = len(self.seen)
        self.keep.append(value)
        return True

    def value(self, value: Any, where: str) -> None:  # noqa: C901, PLR0912 - one case per kind of value
        if value is None or isinstance(value, bool | int | str | bytes | complex):
            self.emit(type(value).__name__, value)
        elif value is Ellipsis or value is NotImplemented or isinstance(value, slice | range):
            self.emit(type(value).__name__, repr(value))
        elif isinstance(value, float):
            self.emit("float", value.hex() if math.isfinite(value) else repr(value))
        elif isinstance(value, torch.dtype | torch.device | torch.layout | torch.memory_format | torch.Size):
            self.emit("torch", repr(value))
        elif isinstance(value, enum.Enum):
            self.emit("enum", type(value).__module__, type(value).__qualname__, value.name)
        elif isinstance(value, torch.Tensor):
            self.tensor_value(value, where)
        elif isinstance(value, torch.nn.Module):
            if self._once(value):  # a module outside the model (a global, a closure): its weights are constants
                self.external_module(value, where)
        elif isinstance(value, types.ModuleType):
            self.emit("module", value.__name__)
        elif isinstance(value, type):
            self.cls(value)
        elif isinstance(value, types.FunctionType):
            self.function(value, where)
        elif isinstance(value, types.MethodType):
            self.emit("method")
            self.function(value.__func__, where) if isinstance(value.__func__, types.FunctionType) else \
                self.value(value.__func__, where)
            self.emit("bound to")
            self.value(value.__self__, f"{where} (its object)")
        elif isinstance(value, types.BuiltinFunctionType | types.BuiltinMethodType | types.WrapperDescriptorType
                        | types.MethodWrapperType | types.MethodDescriptorType | types.ClassMethodDescriptorType
                        | types.GetSetDescriptorType | types.MemberDescriptorType):
            self.emit("builtin", getattr(value, "__module__", None), getattr(value, "__qualname__", repr(value)))
        elif isinstance(value, torch._ops.OpOverload | torch._ops.OpOverloadPacket):
            self.emit("op", str(value))
        elif isinstance(value, staticmethod | classmethod):
            self.emit(type(value).__name__)
            self.value(value.__func__, where)
        elif isinstance(value, property):
            self.emit("property")
            for part in (value.fget, value.fset, value.fdel):
                self.value(part, where)
        elif isinstance(value, functools.partial):
            self.emit("partial")
            self.value(value.func, where)
            self.value(value.args, where)
            self.value(value.keywords, where)
        elif isinstance(value, logging.Logger):
            self.emit("logger", value.name)
        elif isinstance(value, tuple | list):
            if self._once(value):
                self.emit(type(value).__name__, len(value))
                for index, item in enumerate(value):
                    self.value(item, f"{where}[{index}]")
        elif isinstance(value, dict):
            if self._once(value):
                self.emit(type(value).__name__, len(value))
                for key, item in value.items():
                    self.value(key, where)
                    self.value(item, f"{where}[{key!r}]")
        elif isinstance(value, set | frozenset):
            if self._once(value):
                self.emit(type(value).__name__, sorted(repr(item) for item in value))
        elif hasattr(value, "__dict__"):
            if self._once(value):  # a configuration object, a dataclass, a callable object...: class and state
                self.cls(type(value))
                for key, item in sorted(vars(value).items()):
                    self.emit("attr", key)
                    self.value(item, f"{where}.{key}")
        else:
            raise Unsound(f"{where} is a {type(value).__module__}.{type(value).__qualname__}, which the cache key "
                          "cannot describe")

    def tensor_value(self, tensor: torch.Tensor, where: str) -> None:
        """A tensor that is no module attribute: a capture may lift it as a constant, so
        its values count."""
        if not self._once(tensor):
            return
        if tensor.layout != torch.strided or tensor.device.type != "cpu" or type(tensor) not in (torch.Tensor,
                                                                                                 torch.nn.Parameter):
            raise Unsound(f"{where} is a {type(tensor).__name__} ({tensor.layout}, {tensor.device}) that the cache "
                          "key cannot describe by value")
        size = tensor.numel() * tensor.element_size()
        if size > _MAX_TENSOR_BYTES:
            raise Unsound(f"{where} is a tensor of {size} bytes read by the model outside its parameters and buffers")
        self.emit("tensor", tuple(tensor.shape), str(tensor.dtype), tensor.requires_grad)
        if size:
            self.digest.update(tensor.detach().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes())

    def cls(self, cls: type) -> None:
        if not self._once(cls):
            return
        self.emit("class", cls.__module__, cls.__qualname__, len(cls.__mro__))
        for base in cls.__mro__:
            if base is object:
                continue
            if _is_library(base.__module__, _class_file(base)):
                self.emit("library class", base.__module__, base.__qualname__,
                          _package_version(base.__module__.partition(".")[0]))
                continue
            self.emit("user class", base.__module__, base.__qualname__)
            for key, item in base.__dict__.items():
                if key in ("__dict__", "__weakref__", "__doc__", "__module__", "__qualname__", "__annotations__"):
                    continue
                self.emit("member", key)
                self.value(item, f"{base.__qualname__}.{key}")

    def function(self, function: types.FunctionType, where: str) -> None:
        if not self._once(function):
            return
        code = function.__code__
        if _is_library(function.__module__, code.co_filename):
            top = (function.__module__ or "").partition(".")[0]
            self.emit("library function", function.__module__, function.__qualname__, _package_version(top))
            self.closure(function, where)  # a hook poptorch made for this model holds its settings there
            return
        self.emit("function", function.__module__, function.__qualname__)
        names = self.code(code, where)
        self.value(function.__defaults__, f"{where} (defaults)")
        self.value(function.__kwdefaults__, f"{where} (keyword defaults)")
        self.closure(function, where)
        scope = function.__globals__
        builtins = scope.get("__builtins__", {})
        for name in sorted(names):
            if name in scope:
                self.emit("global", name)
                self.value(scope[name], f"{where}: the global '{name}'")
            elif (builtins if isinstance(builtins, dict) else vars(builtins)).get(name) is not None:
                self.emit("builtin name", name)

    def closure(self, function: types.FunctionType, where: str) -> None:
        for name, cell in zip(function.__code__.co_freevars, function.__closure__ or (), strict=True):
            try:
                content = cell.cell_contents
            except ValueError:  # an empty cell
                self.emit("empty cell", name)
                continue
            self.emit("cell", name)
            self.value(content, f"{where}: the closure variable '{name}'")

    def code(self, code: types.CodeType, where: str) -> set[str]:
        """Describe ``code`` and its nested code; the names it may read as globals."""
        import dis

        self.emit("code", code.co_filename, code.co_firstlineno, code.co_code, code.co_linetable, code.co_names,
                  code.co_varnames, code.co_freevars, code.co_cellvars, code.co_flags, code.co_argcount,
                  code.co_kwonlyargcount)
        names = set(code.co_names)
        for instruction in dis.get_instructions(code):
            if instruction.opname in _STORE_GLOBAL:
                raise Unsound(f"{where} assigns the global '{instruction.argval}' (global state a capture may read)")
        for constant in code.co_consts:
            if isinstance(constant, types.CodeType):
                names |= self.code(constant, where)
            else:
                self.value(constant, where)
        return names

    def external_module(self, module: torch.nn.Module, where: str) -> None:
        """A module the model reads that is not one of its modules: its structure, state and
        weights by value (a capture lifts them as constants)."""
        for path, inner in module.named_modules():
            self.emit("external module", path)
            if inner is not module:
                self._once(inner)
            self.module(inner, f"{where}.{path}" if path else where)
        for name, tensor in [*module.named_parameters(remove_duplicate=False),
                             *module.named_buffers(remove_duplicate=False)]:
            self.emit("external weight", name)
            self.tensor_value(tensor, f"{where}.{name}")

    def module(self, module: torch.nn.Module, where: str) -> None:
        """One module's class and state (not its parameters, buffers or submodules)."""
        self.cls(type(module))
        for key, item in module.__dict__.items():
            if key in _POPTORCH_BOOKKEEPING:
                continue
            if key in _MODULE_SKIP:
                self.emit("names", key, list(item))
                continue
            self.emit("attr", key)
            if "hook" in key and isinstance(item, dict):  # keyed by handle ids, a process-wide counter
                self.value(list(item.values()), f"{where or type(module).__name__}.{key}")
            elif isinstance(item, torch.Tensor):  # a plain tensor attribute: a constant read from the model
                self.emit("tensor attribute", tuple(item.shape), str(item.dtype), tuple(item.stride()),
                          str(item.device), item.requires_grad)
            else:
                self.value(item, f"{where or type(module).__name__}.{key}")


def _tensor_spec(tensor: torch.Tensor) -> tuple[Any, ...]:
    return (tuple(tensor.shape), str(tensor.dtype), tuple(tensor.stride()), str(tensor.device), str(tensor.layout),
            tensor.requires_grad, type(tensor).__qualname__)


def model_key(model: torch.nn.Module, args: tuple, kwargs: dict[str, Any]) -> tuple[str | None, str]:
    """(the hex digest describing what capturing ``model(*args, **kwargs)`` reads, "") or
    (None, why the model cannot be described soundly)."""
    describer = _Describer()
    try:
        modules = list(model.named_modules(remove_duplicate=True))
        for _, module in modules:  # known before any hook or global refers to one of them
            describer._once(module)
        for path, module in modules:
            describer.emit("module", path)
            describer.module(module, path)
        seen: dict[int, str] = {}
        for name, tensor in [*model.named_parameters(remove_duplicate=False), *model.named_buffers(remove_duplicate=False)]:
            describer.emit("weight", name, _tensor_spec(tensor), seen.setdefault(id(tensor), name))
        leaves, spec = pytree.tree_flatten((args, kwargs))
        describer.emit("inputs", str(spec))
        for index, leaf in enumerate(leaves):
            if isinstance(leaf, torch.Tensor):
                describer.emit("input", _tensor_spec(leaf))
            else:
                describer.value(leaf, f"input {index}")
        describer.emit("state", torch.is_grad_enabled(), torch.is_inference_mode_enabled(), str(torch.get_default_dtype()),
                       torch.is_autocast_enabled(), torch.backends.mha.get_fastpath_enabled(), sys.version)
    except Unsound as reason:
        return None, str(reason)
    except RecursionError:
        return None, "the model's description nests too deeply"
    except (TypeError, ValueError, RuntimeError, AttributeError) as error:  # a value that resists description
        return None, f"describing the model failed ({type(error).__name__}: {error})"
    return describer.digest.hexdigest(), ""


__all__ = ["model_key"]

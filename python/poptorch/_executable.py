"""Executables on file: ``compileAndExport``, ``save``, ``loadExecutable`` (methods of
``PoplarExecutor``) and ``poptorch.load``.

The file (``ipu_mlir.artifact.executable_file``) holds the compiled program, the host's
view of the capture, the compile-time options and, optionally, the random generator's
position and the pickled model. ``loadExecutable`` reads no pickle: the wrapper brings its
own model, whose parameters must match the file's by name, shape and dtype.
``poptorch.load`` unpickles the exported model, optimizer and options (``torch.load``
with ``weights_only=False``): load only files you trust.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import torch

from . import _logging

if TYPE_CHECKING:
    from ._executor import PoplarExecutor
    from .options import Options

# Options that change how a compiled program is run, not what is compiled: poptorch.load's
# edit_opts_fn may change them, and loadExecutable ignores them.
RUN_TIME_OPTIONS = frozenset({
    "random_seed", "use_ipu_model", "ipu_model_devices", "connection_type", "sync_pattern", "ipu_id",
    "offline_ipu_version", "executable_cache_dir", "profile_dir", "log_cycle_count", "log_dir", "max_repeat_logs",
    "model_name", "show_compilation_progress_bar", "relax_optimizer_attributes_checks", "Distributed.process_id",
    "Distributed.num_processes", "Distributed.timeout",
})


def compile_time_options(options: Options) -> dict[str, Any]:
    """Every option that changes the compiled program, as plain data."""
    values = {key: value for key, value in options.toDict().items() if key not in RUN_TIME_OPTIONS}
    values["_Popart"] = options._Popart._to_dict()
    return _plain(values)


def _plain(value: Any) -> Any:
    """JSON's view of ``value`` (tuples as lists, other objects as their str)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or type(value) in (bool, int, float, str):
        return value
    return str(value)


def _differences(saved: dict[str, Any], current: dict[str, Any]) -> list[str]:
    keys = sorted(set(saved) | set(current))
    return [f"{key}: {saved.get(key)!r} in the file, {current.get(key)!r} now" for key in keys
            if saved.get(key) != current.get(key)]


@contextlib.contextmanager
def _picklable(executor: PoplarExecutor) -> Iterator[None]:
    """While the model and optimizer are pickled: the user's modules without the host-sync
    subclasses, the optimizer without the executor's state_dict hooks."""
    from . import _host_sync

    optimizer = executor._optimizer if executor._training else None
    hooks = {}
    if optimizer is not None:
        for name in ("state_dict", "load_state_dict", "_poptorch_executor"):
            if name in optimizer.__dict__:
                hooks[name] = optimizer.__dict__.pop(name)
    if executor._training:
        _host_sync.uninstall(executor._user_model)
    try:
        yield
    finally:
        if executor._training:
            _host_sync.install(executor._user_model, executor)
        if optimizer is not None:
            optimizer.__dict__.update(hooks)


def save(executor: PoplarExecutor, filename: str | os.PathLike[str], export_model: bool, save_rng_state: bool) -> None:
    from ipu_mlir.driver.executable_io import export_compiled, plain_value

    executor._check_alive()
    if executor._compiled is None:
        raise RuntimeError("save() needs a compiled model: call it or .compile(...) with inputs first, or use "
                           "compileAndExport(filename, *inputs)")
    if executor._training:
        executor.copyWeightsToHostIfNeeded()
        executor._download_optimizer_state()
    file = export_compiled(executor._compiled)
    file.host["poptorch"] = {
        "options": compile_time_options(executor._options),
        "signature": [[name, description] for name, description in executor._host_signature or []],
        "leaf_is_tensor": list(executor._leaf_is_tensor),
        "leaf_values": [plain_value(v, "a non-tensor input") for v in executor._leaf_values],
        "updates": executor._updates,
    }
    if save_rng_state and (executor._attached or executor._pending_rng_state is not None):
        file.rng_state = executor.rng_state  # (a model that never ran has no stream yet: it starts fresh)
    if export_model:
        buffer = io.BytesIO()
        with _picklable(executor):
            torch.save({"model": executor._user_model, "optimizer": executor._optimizer if executor._training else None,
                        "options": executor._options, "training": executor._training}, buffer)
        file.model_bytes = buffer.getvalue()
    file.write(filename)


def load_executable(executor: PoplarExecutor, filename: str | os.PathLike[str]) -> None:
    from ipu_mlir.driver.executable_io import ExecutableFile

    executor._check_alive()
    attach_file(executor, ExecutableFile.read(filename))


def attach_file(executor: PoplarExecutor, file: Any) -> None:
    """Make ``file``'s program the wrapper's executable, after checking that it fits."""
    from ipu_mlir.driver import RoleKind
    from ipu_mlir.driver.executable_io import load_compiled

    where = f"executable file '{file.path}'"
    kind = file.executable.metadata.get("kind")
    wanted = "training" if executor._training else "inference"
    if kind != wanted:
        raise ValueError(f"{where} holds a {kind} program, but this is a {wanted} model; wrap the model with "
                         f"poptorch.{'trainingModel' if kind == 'training' else 'inferenceModel'}")
    host = file.host.get("poptorch")
    if host is None:
        raise ValueError(f"{where} was not written by poptorch (it has no host signature): use compileAndExport() "
                         "or save()")
    differences = _differences(host["options"], compile_time_options(executor._options))
    if differences:
        raise ValueError(f"{where} was compiled with other options than this model's: {'; '.join(differences[:4])}. "
                         "Use the options the file was compiled with")
    _check_weights(executor, file, where)
    compiled = load_compiled(file)
    if executor._training:
        _check_optimizer(executor, file, where)
    if executor._compiled is not None:
        executor.copyWeightsToHostIfNeeded()
        executor._compiled.program.close()
    executor._compiled = compiled
    executor._argument_roles = [(RoleKind.parse(k, "argument kind"), name) for k, name in compiled.arguments]
    executor._host_signature = [(name, description) for name, description in host["signature"]]
    executor._leaf_is_tensor = list(host["leaf_is_tensor"])
    executor._leaf_values = list(host["leaf_values"])
    executor._updates = int(host.get("updates", 0))
    executor._stores, executor._attached, executor._recompile_needed = None, False, False
    executor._pending_rng_state = file.rng_state
    _logging.logger.info("loaded the executable of %s from %s", type(executor._model).__name__, file.path)


def _check_weights(executor: PoplarExecutor, file: Any, where: str) -> None:
    captured = file.host["capture"]
    named = executor._named_tensors()
    for spec in captured["weights"]:
        tensor = named.get(spec["name"])
        if tensor is None:
            raise ValueError(f"{where} was compiled for a model with the tensor '{spec['name']}', which this model does "
                             "not have: load it into a wrapper of the same model")
        dtype = str(tensor.dtype).removeprefix("torch.")
        if list(tensor.shape) != spec["shape"] or dtype != spec["dtype"]:
            raise ValueError(f"{where}: the model's '{spec['name']}' has shape {list(tensor.shape)} and dtype {dtype}, "
                             f"but the executable was compiled for shape {spec['shape']} and dtype {spec['dtype']}")
    known = {spec["name"] for spec in captured["weights"]}
    extra = [name for name, _ in executor._model.named_parameters() if name not in known]
    if extra:
        raise ValueError(f"{where}: the model has the parameter '{extra[0]}', which the executable does not know: "
                         "load it into a wrapper of the model it was compiled from")


def _check_optimizer(executor: PoplarExecutor, file: Any, where: str) -> None:
    from .optim import describe

    saved = file.executable.metadata.get("optimizer") or {}
    described = describe(executor._optimizer, executor._parameter_names())
    mine = {"type": str(described.type), "flags": _plain(dict(described.flags)), "groups": len(described.groups),
            "param_groups": dict(described.param_groups)}
    theirs = {"type": str(saved.get("type")), "flags": _plain(saved.get("flags", {})), "groups": saved.get("groups"),
              "param_groups": saved.get("param_groups")}
    if mine != theirs:
        raise ValueError(f"{where} was compiled for another optimizer (type, flags or parameter groups: "
                         f"{theirs['type']} {theirs['flags']}, now {mine['type']} {mine['flags']}); use the optimizer "
                         "the file was compiled with")
    executor._ipu_optimizer = described


def load(filename: str | os.PathLike[str], edit_opts_fn: Callable[[Options], Any] | None = None) -> PoplarExecutor:
    from ipu_mlir.driver.executable_io import ExecutableFile

    from ._executor import wrap_inference, wrap_training

    file = ExecutableFile.read(filename)
    content = file.load_model()  # unpickles: the user asked for the exported model
    options = content["options"].clone()
    if edit_opts_fn is not None:
        before = compile_time_options(options)
        edit_opts_fn(options)
        differences = _differences(before, compile_time_options(options))
        if differences:
            raise ValueError(f"poptorch.load('{file.path}'): edit_opts_fn changed compile-time options "
                             f"({'; '.join(differences[:4])}); it may only change run-time options (connectionType, "
                             "randomSeed, setIpuModelDevices...). Compile the model again to change the others")
    if content["training"]:
        executor = wrap_training(content["model"], options, content["optimizer"])
    else:
        executor = wrap_inference(content["model"], options)
    attach_file(executor, file)
    return executor


__all__ = ["compile_time_options", "load"]

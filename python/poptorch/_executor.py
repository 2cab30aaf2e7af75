"""PoplarExecutor: the wrapper ``inferenceModel`` returns; compiles on first call, then runs.

It owns the host side of a compiled model: splitting host batches into the device
iterations' micro-batches (SEMANTICS "Batching"), checking later calls against the
compiled signature, the device copy of the weights, and assembling outputs per output
mode.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch
import torch.utils._pytree as pytree

from . import _logging, _precision
from ._anchors import anchored_value, check_anchors, collect, compile_anchors, tensor_names
from ._counters import CountersMixin
from .enums import MeanReductionStrategy, OutputMode, ReductionType
from .options import Options

if TYPE_CHECKING:
    from ipu_mlir.driver import OutputMode as CompiledOutputMode
    from ipu_mlir.driver import RoleKind


class _Leaf:
    """One flattened argument leaf: its display name and value."""

    __slots__ = ("name", "value")

    def __init__(self, name: str, value: Any) -> None:
        self.name = name
        self.value = value


def _path_suffix(path: tuple) -> str:
    out = ""
    for key in path:
        if isinstance(key, pytree.SequenceKey):
            out += f"[{key.idx}]"
        elif isinstance(key, pytree.MappingKey):
            out += f"[{key.key!r}]"
        elif isinstance(key, pytree.GetAttrKey):
            out += f".{key.name}"
        else:
            out += str(key)
    return out


def normalize_kwargs(forward: Callable, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments in the order of forward's signature (then call order for **kwargs),
    so that a later call may name them in any order."""
    params = _parameters(forward)
    order = {name: index for index, name in enumerate(params)}
    return {key: kwargs[key] for key in sorted(kwargs, key=lambda k: order.get(k, len(order)))}


# forward's parameter names by function: bound methods (self dropped) and plain callables apart.
_PARAMETERS = {True: weakref.WeakKeyDictionary(), False: weakref.WeakKeyDictionary()}


def _parameters(forward: Callable) -> list[str]:
    """forward's parameter names (without ``self``), looked up once per function: every
    call binds its arguments by them."""
    bound = inspect.ismethod(forward)
    function = getattr(forward, "__func__", None) if bound else forward
    try:
        cached = _PARAMETERS[bound].get(function) if function is not None else None
    except TypeError:  # an unhashable or not weakly referenceable callable
        function, cached = None, None
    if cached is not None:
        return cached
    try:
        params = list(inspect.signature(forward).parameters)
    except (TypeError, ValueError):
        params = []
    if function is not None:
        try:
            _PARAMETERS[bound][function] = params
        except TypeError:
            pass
    return params


def _bind(forward: Callable, args: tuple, kwargs: dict[str, Any]) -> list[_Leaf]:
    """The call's leaves in pytree order of (args, kwargs), named after forward's parameters.

    ``kwargs`` must already be normalised with :func:`normalize_kwargs`.
    """
    params = _parameters(forward)
    leaves = []
    for index, value in enumerate(args):
        name = params[index] if index < len(params) and params[index] not in ("args", "kwargs") else f"args[{index}]"
        for path, leaf in pytree.tree_flatten_with_path(value)[0]:
            leaves.append(_Leaf(name + _path_suffix(path), leaf))
    for key, value in kwargs.items():
        for path, leaf in pytree.tree_flatten_with_path(value)[0]:
            leaves.append(_Leaf(key + _path_suffix(path), leaf))
    return leaves


class PoplarExecutor(CountersMixin):
    """A model wrapped for the emulated IPU (``poptorch.inferenceModel``).

    The first call (or :meth:`compile`) captures and compiles the model; later calls run
    the compiled program. Unknown attributes are looked up on the wrapped model.
    """

    def __init__(self, model: torch.nn.Module, options: Options | None, *, training: bool, user_model: torch.nn.Module,
                 optimizer: torch.optim.Optimizer | None = None) -> None:
        if options is None:
            options = Options()
        if not isinstance(options, Options):
            raise TypeError(f"options must be a poptorch.Options, got {type(options).__name__}")
        options.validate(training=training)
        if options._use_ipu_model is False:  # an explicit request; unset means "the default device"
            _logging.warn_once(
                "useIpuModel(False)",
                "physical IPU hardware was requested with useIpuModel(False), but none is available here: "
                "the model runs on the IPU Model emulator",
            )
        self._options = options.clone()
        self._options._freeze()
        self._model = model
        self._user_model = user_model
        self._training = training
        self._compiled: Any = None
        self._argument_roles: list[tuple[RoleKind, str]] = []  # the compiled program's, parsed once
        self._replica_stores: list[dict[int, Any]] | None = None  # each local replica's IPUs
        self._attached = False
        self._host_signature: list[tuple[str, Any]] | None = None
        self._destroyed = False
        self._optimizer = optimizer
        self._ipu_optimizer: Any = None
        self._device_newer = False  # training changed the device weights since the last host sync
        self._uploaded_version = -1  # weights version (see _host_sync) the device holds
        self._syncing = False
        self._recompile_needed = False
        self._host_newer = False  # the user loaded weights into the model after training
        self._updates = 0  # optimizer steps applied on the device (torch's 'step' for RMSprop)
        self._pending_rng_state: list[int] | None = None  # rng_state set (or loaded) before attaching
        self._replica_groupings: dict[str, Any] = {}  # parameter -> its WeightGrouping (param.replicaGrouping)
        from . import _replica_grouping

        _replica_grouping.install(self)
        if training:
            from . import _host_sync

            _host_sync.install(user_model, self)

    # -- device stores ----------------------------------------------------------------
    @property
    def _stores(self) -> dict[int, Any] | None:
        """The first local replica's stores: where the host reads weights and state back
        (every replica holds the same values, except weights grouped per replica)."""
        return None if self._replica_stores is None else self._replica_stores[0]

    @_stores.setter
    def _stores(self, value: None) -> None:
        if value is not None:
            raise TypeError("set _replica_stores, one store set per replica")
        self._replica_stores = None

    def _put(self, name: str, value: torch.Tensor) -> None:
        """Hold ``value`` as device variable ``name`` on every local replica (each its own
        copy; a weight grouped across replicas: each replica its group's value)."""
        from . import _replica_grouping

        ipu = self._compiled.program.variables[name].ipu
        shard = self._compiled.program.shards.get(name)
        if shard is not None:  # replicated tensor sharding: each replica its part
            from . import _replica_sharding

            parts = _replica_sharding.split(shard, value)
            for stores, rank in zip(self._replica_stores, _Replicas.of(self._options).global_ranks, strict=True):
                stores[ipu].put(name, parts[rank])
            return
        grouping = _replica_grouping.owner(self, name)
        if grouping is not None:
            replicas = _Replicas.of(self._options)
            values = _replica_grouping.split(grouping, value, replicas.global_ranks, replicas.total)
            for stores, part in zip(self._replica_stores, values, strict=True):
                stores[ipu].put(name, part)
            return
        # The other replicas get plain clones, not copy-on-write copies: the replicas run in
        # threads, and a copy-on-write storage shared by several threads' first writes is a
        # path torch 2.13 does not promise to be safe (a crash seen once, not reproduced).
        for index, stores in enumerate(self._replica_stores):
            stores[ipu].put(name, value if index == 0 else value.detach().clone())

    def _get(self, name: str) -> torch.Tensor:
        """Device variable ``name`` as the host sees it: the first replica's (all hold the
        same), or a grouped weight's value per group or per replica."""
        from . import _replica_grouping

        ipu = self._compiled.program.variables[name].ipu
        shard = self._compiled.program.shards.get(name)
        if shard is not None:  # replicated tensor sharding: every replica's part, joined
            from . import _replica_sharding

            if _Replicas.of(self._options).ranks is not None:
                raise RuntimeError(f"'{name}' is sharded across replicas (useReplicatedTensorSharding), and reading it "
                                   "back from replicas of several processes is not supported; read it with one process")
            return _replica_sharding.join(shard, [stores[ipu].get(name) for stores in self._replica_stores])
        grouping = _replica_grouping.owner(self, name)
        if grouping is None:
            return self._replica_stores[0][ipu].get(name)
        replicas = _Replicas.of(self._options)
        if replicas.ranks is not None:
            raise RuntimeError(f"'{name}' is grouped across replicas (replicaGrouping), and reading it back from "
                               "replicas of several processes is not supported; read it with one process")
        values = {rank: stores[ipu].get(name) for rank, stores in zip(replicas.global_ranks, self._replica_stores,
                                                                           strict=True)}
        return _replica_grouping.join(grouping, values, replicas.total)

    # -- PopTorch API ---------------------------------------------------------------
    @property
    def model(self) -> torch.nn.Module:
        """The wrapped model (a shallow copy of the user's; parameters are shared)."""
        return self._model

    @property
    def options(self) -> Options:
        return self._options

    def isCompiled(self) -> bool:  # noqa: N802 - PopTorch's name
        return self._compiled is not None

    def schedule(self, format: str = "text") -> str:  # noqa: A002 - mirrors ipu-translate's formats
        """A picture of the compiled schedule: which IPU runs which stage of which
        micro-batch at each step, and each IPU's peak memory; ``format`` is ``"text"``
        or ``"html"`` (a self-contained page). ``ipu-translate --schedule-to-text`` /
        ``--schedule-to-html`` draw the same from poplar-level IR."""
        self._check_alive()
        if format not in ("text", "html"):
            raise ValueError(f"schedule(format={format!r}): the format must be 'text' or 'html'")
        if self._compiled is None:
            raise RuntimeError("the model is not compiled yet: call it or .compile(...) with inputs before schedule()")
        from ipu_mlir.driver import ScheduleKind

        summary = self._compiled.schedule()
        reason = self._compiled.program.sequential_reason
        if reason is not None and summary.kind == ScheduleKind.PIPELINED:  # what the IPU Model really runs
            summary = dataclasses.replace(summary, kind=ScheduleKind.SHARDED.value,
                                          note=f"the pipelined stages run one micro-batch at a time: {reason}")
        return summary.text() if format == "text" else summary.html()

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """Capture and compile for these inputs without running."""
        self._check_alive()
        kwargs = normalize_kwargs(self._model.forward, kwargs)
        leaves = _bind(self._model.forward, args, kwargs)
        self._compile(args, kwargs, leaves)

    def compileAndExport(self, filename: str, *args: Any, export_model: bool = True, **kwargs: Any) -> None:  # noqa: N802
        """Compile for these inputs without running and write the executable to ``filename``
        (with the pickled model, optimizer and options when ``export_model``: see save())."""
        self._check_alive()
        if self._compiled is None:
            self.compile(*args, **kwargs)
        self.save(filename, export_model=export_model, save_rng_state=False)

    def save(self, filename: str, export_model: bool = True, save_rng_state: bool = True) -> None:
        """Write the compiled model to ``filename``: the executable, its host signature and,
        with ``export_model``, the model with its current weights, the optimizer with its
        state and the options (pickled: ``poptorch.load`` restores them); with
        ``save_rng_state``, the random stream's position, which a loaded model continues."""
        from . import _executable

        _executable.save(self, filename, export_model, save_rng_state)

    def loadExecutable(self, filename: str) -> None:  # noqa: N802
        """Use the executable in ``filename`` (from compileAndExport or save) instead of
        compiling. The model's parameters must match the file's by name, shape and dtype,
        and the compile-time options must be the same; the weights are this model's."""
        from . import _executable

        _executable.load_executable(self, filename)

    def exportPoplarCpp(self, path: str, write_weights: bool = True) -> None:  # noqa: N802
        """Write the compiled program as Poplar/PopLibs C++ to ``path`` (``ipu-translate
        --poplar-to-cpp`` of its poplar.graph) and, with ``write_weights``, the model's
        current parameters and buffers as ``weights.bin`` next to it (what the program's
        ``main`` reads; for training also the optimizer's hyper-parameters). Compile (or run)
        the model first."""
        self._check_alive()
        if self._compiled is None:
            raise RuntimeError("exportPoplarCpp: the model is not compiled yet; call compile(...) or run it first")
        from ipu_mlir.driver.poplar_cpp import write_poplar_cpp

        if write_weights and self._training:
            self.copyWeightsToHostIfNeeded()
        values = self._named_tensors() if write_weights else None
        if values is not None and self._training:
            for kind, name in self._compiled.executable.interface.variables:
                if kind == "hyper":
                    values[name] = torch.tensor(self._hyper_value(name), dtype=torch.float32)
        write_poplar_cpp(self._compiled, path, self._per_replica_values(values) if values is not None else None)

    def _per_replica_values(self, values: dict[str, torch.Tensor]) -> dict[str, torch.Tensor] | list[dict[str, torch.Tensor]]:
        """``values`` as every replica starts from them: one dict, or, with weights grouped
        across replicas, one per replica (each with its group's value)."""
        from . import _replica_grouping

        grouped = {name: g for name, g in self._replica_groupings.items() if g.per_replica and name in values}
        if not grouped:
            return values
        replicas = _Replicas.of(self._options)
        ranks = list(range(replicas.total))
        parts = {name: _replica_grouping.split(g, values[name], ranks, replicas.total) for name, g in grouped.items()}
        return [{**values, **{name: part[rank] for name, part in parts.items()}} for rank in ranks]

    @property
    def rng_state(self) -> list[int]:
        """The random generator's seed and position, ``[seed, calls]``; set it to continue
        (or replay) a random stream."""
        if self._attached and self._compiled is not None:
            return self._compiled.program.rng_state
        if self._pending_rng_state is not None:
            return list(self._pending_rng_state)
        raise RuntimeError("rng_state: the model has not run yet, so its random generator is not seeded; call the "
                           "model first (or set rng_state)")

    @rng_state.setter
    def rng_state(self, state: list[int]) -> None:
        if (not isinstance(state, list | tuple) or len(state) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in state)):
            raise ValueError(f"rng_state must be [seed, calls] (two non-negative ints) as read from rng_state; got {state!r}")
        if self._attached and self._compiled is not None:
            self._compiled.program.set_rng_state(list(state))
        else:
            self._pending_rng_state = list(state)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._check_alive()
        kwargs = normalize_kwargs(self._model.forward, kwargs)
        leaves = _bind(self._model.forward, args, kwargs)
        if self._compiled is not None and self._recompile_needed:
            self.copyWeightsToHostIfNeeded()
            self._compiled.program.close()
            self._compiled, self._stores, self._attached, self._recompile_needed = None, None, False, False
        if self._compiled is None:
            self._compile(args, kwargs, leaves)
        else:
            self._check_signature(leaves)
        if not self._attached:
            self.attachToDevice()
        elif self._host_newer:
            self.copyWeightsToDevice()
        return self._run(leaves)

    def copyWeightsToDevice(self) -> None:  # noqa: N802
        """Upload the model's parameters and buffers (and the optimizer's state and
        hyper-parameters when training) to the emulated IPU."""
        self._check_alive()
        if self._compiled is None:
            return  # the first run uploads them
        from ipu_mlir.driver import DeviceStore, RoleKind, device_copy

        from . import _host_sync

        if self._training and self._stores is not None:
            # The device may hold newer weights and optimizer state than the host knows:
            # bring them back first, so re-uploading keeps the training (and the momentum).
            self.copyWeightsToHostIfNeeded()
            self._download_optimizer_state()
        _host_sync.sync_host(self._user_model)  # a training wrapper of the same model may be newer
        first_upload = self._replica_stores is None
        if self._replica_stores is None:
            num_ipus = self._compiled.program.num_ipus
            unused = sorted(ipu for ipu in self._options.ipu_model_devices if ipu is not None and ipu >= num_ipus)
            if unused:
                raise ValueError(f"Options.setIpuModelDevices places IPU{unused[0]}, but the model runs on {num_ipus} "
                                 f"IPU(s) (IPU0-IPU{num_ipus - 1}); name only the IPUs its blocks use")
            placed = bool(self._options.ipu_model_devices)
            self._replica_stores = [{ipu: DeviceStore(ipu, self._options.ipu_model_device(ipu) if placed else None)
                                     for ipu in range(num_ipus)} for _ in self._compiled.program.ranks]
        if first_upload and _Replicas.of(self._options).ranks is not None:
            from . import _distributed

            _distributed.broadcast_weights(self)  # every process starts from process 0's weights
        named = self._named_tensors()
        for kind, name in self._arguments():
            if kind in (RoleKind.PARAMETER, RoleKind.BUFFER, RoleKind.CONSTANT):
                if kind == RoleKind.CONSTANT:
                    value = self._compiled.captured.constants[name]
                elif name in named:
                    value = named[name]
                else:
                    raise RuntimeError(f"the compiled model uses '{name}', which the model no longer has")
                self._put(name, device_copy(value))  # copy on write: no copy unless a side writes
            elif kind == RoleKind.HYPER:
                self._put(name, torch.tensor(self._hyper_value(name), dtype=torch.float32))
            elif kind in (RoleKind.OPTIMIZER_STATE, RoleKind.ACCUMULATOR):
                self._put(name, self._initial_state(name, self._compiled.program.variables[name]))
        self._device_newer = False
        self._host_newer = False
        self._uploaded_version = _host_sync.version(self._user_model)

    def load_state_dict(self, state_dict: dict[str, Any], strict: bool = True) -> Any:
        """Load ``state_dict`` into the model and upload it to the device."""
        self._check_alive()
        result = self._user_model.load_state_dict(state_dict, strict=strict)
        if self._compiled is not None and self._stores is not None:
            self._device_newer = False
            self.copyWeightsToDevice()
        return result

    def _host_changed(self) -> None:
        """The user loaded weights into the model: they win over the device's."""
        self._device_newer = False
        self._host_newer = True

    def copyWeightsToHost(self) -> None:  # noqa: N802
        """Download the device's weights and buffers into the model."""
        self._check_alive()
        if self._compiled is None or self._stores is None:
            return
        from ipu_mlir.driver import RoleKind

        raw = _raw_named_tensors(self._model)
        self._syncing = True
        try:
            with torch.no_grad():
                for kind, name in self._arguments():
                    if kind in (RoleKind.PARAMETER, RoleKind.BUFFER) and name in raw:
                        value = self._get(name)
                        if value.shape != raw[name].shape:  # a grouped weight read back per replica (AllReplicas)
                            raw[name].data = value.to(raw[name].device, copy=True)
                        else:
                            raw[name].copy_(value)
        finally:
            self._syncing = False
        self._device_newer = False

    def copyWeightsToHostIfNeeded(self) -> bool:  # noqa: N802
        """Download weights if the device copy is newer; returns whether it did."""
        if self._destroyed or self._syncing or not self._device_newer:
            return False
        self.copyWeightsToHost()
        return True

    def getTensorNames(self) -> list[str]:  # noqa: N802
        """Names of the compiled program's tensors, sorted: activations (``fc1/linear``: module path /
        op node name; ``relu`` at top level), inputs (``x``), outputs (``output.0``), weights and
        buffers (``fc1.weight``), optimizer state and hyper-parameters. See ``_anchors.py``."""
        if self._compiled is None:
            raise RuntimeError("getTensorNames() needs a compiled model: call the model or .compile(...) first")
        return tensor_names(self)

    def getAnchoredTensor(self, short_name: str) -> torch.Tensor:  # noqa: N802
        """The tensor anchored as ``short_name`` (Options.anchorTensor) after the last call, under
        the anchor's output mode (``_anchors.py``)."""
        return anchored_value(self, short_name)

    def isAttachedToDevice(self) -> bool:  # noqa: N802
        return self._attached

    def attachToDevice(self) -> None:  # noqa: N802
        """Attach to the emulated IPU and upload the weights."""
        self._check_alive()
        if self._compiled is None:
            raise RuntimeError("attachToDevice() needs a compiled model: call the model or .compile(...) first")
        if self._attached:
            raise RuntimeError("the model is already attached to a device; call detachFromDevice() first")
        from .enums import ConnectionType

        if self._options.connection_type is ConnectionType.Never or self._options.offline_ipu_version is not None:
            setting = ("connectionType(ConnectionType.Never)" if self._options.connection_type is ConnectionType.Never
                       else f"useOfflineIpuTarget({self._options.offline_ipu_version})")
            raise RuntimeError(
                f"the model was wrapped with Options.{setting}: it compiles (compile(), compileAndExport()) but "
                "cannot run. Load the exported executable with poptorch.load(filename, edit_opts_fn=...) and set "
                "connectionType(ConnectionType.Always) there, or wrap the model with options that attach")
        self.copyWeightsToDevice()
        # Random ops (dropout) draw from the device's seed: Options.randomSeed makes them
        # repeatable; without it the seed comes from torch's own generator.
        seed = self._options.random_seed
        if seed is None:
            seed = int(torch.randint(0, 2**62, ()).item())
            if _Replicas.of(self._options).ranks is not None:
                from . import _distributed

                seed = _distributed.agree_seed(self._options, seed)  # process 0's
        self._compiled.program.set_seed(seed)
        if self._pending_rng_state is not None:  # set with rng_state, or loaded from a file
            self._compiled.program.set_rng_state(self._pending_rng_state)
            self._pending_rng_state = None
        self._attached = True

    def detachFromDevice(self) -> None:  # noqa: N802
        """Release the emulated IPU; the next call attaches again and re-uploads weights."""
        self._check_alive()
        if not self._attached:
            raise RuntimeError("the model is not attached to a device")
        self._attached = False
        self._stores = None

    def destroy(self) -> None:
        """Free the compiled program and the device; the wrapper cannot run afterwards.

        A training wrapper first brings its newer weights back to the model."""
        if self._training and not self._destroyed:
            from . import _host_sync

            self.copyWeightsToHostIfNeeded()
            _host_sync.uninstall(self._user_model)
            _WRAPPED_FOR_TRAINING.discard(self._user_model)
        if self._compiled is not None:
            self._compiled.program.close()
        self._compiled = None
        self._stores = None
        self._attached = False
        self._destroyed = True

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._model, name)

    def __repr__(self) -> str:
        state = "compiled" if self._compiled is not None else "not compiled"
        return f"PoplarExecutor({type(self._model).__name__}, {'training' if self._training else 'inference'}, {state})"

    # -- internals ------------------------------------------------------------------
    def _check_alive(self) -> None:
        if self._destroyed:
            raise RuntimeError("this model was destroyed with destroy(); wrap the model again to use it")

    def _named_tensors(self) -> dict[str, torch.Tensor]:
        named = dict(self._model.named_parameters(remove_duplicate=False))
        named.update(dict(self._model.named_buffers(remove_duplicate=False)))
        return named

    def _arguments(self) -> list[tuple[RoleKind, str]]:
        """(kind, name) of every device variable the host provides."""
        return self._argument_roles

    def _hyper_value(self, name: str) -> float:
        described = self._ipu_optimizer
        if name == "loss_scaling":
            return float(described.loss_scaling)
        group, _, hyper = name.partition(".")
        return float(described.groups[int(group)][hyper])

    def _parameter_names(self) -> dict[int, str]:
        # A tied parameter is named by its first path, as named_parameters() and the compiled program name it.
        names: dict[int, str] = {}
        for name, tensor in _raw_named_tensors(self._model).items():
            if isinstance(tensor, torch.nn.Parameter):
                names.setdefault(id(tensor), name)
        return names

    # -- optimizer ------------------------------------------------------------------
    def setOptimizer(self, optimizer: torch.optim.Optimizer) -> None:  # noqa: N802
        """Use ``optimizer``'s hyper-parameters from the next run, without recompiling.

        The optimizer must have the same type, flags and parameter groups as the one the
        model was compiled with. Changing a hyper-parameter marked constant
        (``variable_attrs.markAsConstant``) recompiles the model at the next call.
        """
        self._check_alive()
        if not self._training:
            raise RuntimeError("setOptimizer() applies to training models (poptorch.trainingModel) only")
        from .optim import check_optimizer, describe

        check_optimizer("setOptimizer()", optimizer)

        if self._compiled is None:
            self._optimizer = optimizer
            self._install_state_sync()
            return
        new = describe(optimizer, self._parameter_names())
        old = self._ipu_optimizer
        if (new.type, new.flags, len(new.groups), new.param_groups, new.max_grad_norm) != (
            old.type, old.flags, len(old.groups), old.param_groups, old.max_grad_norm
        ):
            raise ValueError(
                "setOptimizer(): the new optimizer differs from the compiled one in its type, structural flags "
                "(momentum on/off, nesterov, variant...), parameter groups or max_grad_norm, which are compiled into the "
                "program. Keep them the same, or destroy() this model and wrap it again with the new optimizer."
            )
        changed_constants = _constants(new) != _constants(old)
        self._optimizer, self._ipu_optimizer = optimizer, new
        self._install_state_sync()
        if changed_constants:
            _logging.logger.warning(
                "setOptimizer(): a hyper-parameter marked constant changed its value; the model is recompiled at the next call"
            )
            self._recompile_needed = True
            return
        if self._stores is not None:
            from ipu_mlir.driver import RoleKind

            for kind, name in self._arguments():
                if kind == RoleKind.HYPER:
                    self._put(name, torch.tensor(self._hyper_value(name), dtype=torch.float32))

    def _install_state_sync(self) -> None:
        """The optimizer's state_dict() / load_state_dict() read and write the device's state."""
        optimizer = self._optimizer
        if getattr(optimizer, "_poptorch_executor", None) is self:
            return
        original_state_dict, original_load = optimizer.state_dict, optimizer.load_state_dict
        executor = self

        def state_dict() -> dict[str, Any]:
            executor._download_optimizer_state()
            return original_state_dict()

        def load_state_dict(state: dict[str, Any]) -> None:
            original_load(state)
            executor._upload_optimizer_state()

        optimizer.state_dict = state_dict
        optimizer.load_state_dict = load_state_dict
        optimizer._poptorch_executor = self

    _TORCH_STATE = {"velocity": "momentum_buffer"}

    def _state_slots(self) -> list[tuple[str, str, str]]:
        """(device variable, parameter path, torch state key) of each optimizer state tensor."""
        from ipu_mlir.driver import RoleKind

        slots = []
        for kind, name in self._arguments():
            if kind == RoleKind.OPTIMIZER_STATE:
                path, _, key = name.rpartition("/")
                slots.append((name, path, self._TORCH_STATE.get(key, key)))
        return slots

    def _velocity_scale(self, path: str) -> float:
        from ipu_mlir.driver import OptimizerType, SgdVariant

        described = self._ipu_optimizer
        if described.type == OptimizerType.SGD and described.flags.get("variant") == SgdVariant.COMBINED:
            return float(described.groups[described.param_groups.get(path, 0)]["velocity_scaling"])
        return 1.0

    def _download_optimizer_state(self) -> None:
        if self._compiled is None or self._stores is None:
            return
        from ipu_mlir.driver import OptimizerType

        params = {n: p for n, p in _raw_named_tensors(self._model).items()}
        if self._ipu_optimizer.type == OptimizerType.RMSPROP:  # torch's RMSprop counts steps; ours needs no count
            for name in self._ipu_optimizer.param_groups:
                self._optimizer.state[params[name]]["step"] = torch.tensor(float(self._updates))
        for variable, path, key in self._state_slots():
            if key == "step" and self._ipu_optimizer.type == OptimizerType.SGD:
                continue  # torch's SGD keeps no step count; ours only tells the first step apart
            value = self._get(variable).detach().to("cpu", copy=True)
            if key == "momentum_buffer":
                value = value / self._velocity_scale(path)
            self._optimizer.state[params[path]][key] = value

    def _upload_optimizer_state(self) -> None:
        if self._compiled is None or self._stores is None:
            return
        program = self._compiled.program
        for variable, _path, _key in self._state_slots():
            self._put(variable, self._initial_state(variable, program.variables[variable]))

    def _initial_state(self, name: str, info: Any) -> torch.Tensor:
        """Optimizer state starts at zero (velocity, moments, step count), except the
        squared-gradient average of RMSprop's TensorFlow variant, which starts at one."""
        from ipu_mlir.driver import OptimizerType

        from . import _replica_grouping

        described = self._ipu_optimizer
        path, _, key = name.rpartition("/")
        params = _raw_named_tensors(self._model)
        shape = info.shape
        if name in self._compiled.program.shards:  # sharded across replicas: the whole tensor's shape
            shape = self._compiled.program.shards[name].shape
        if _replica_grouping.owner(self, name) is not None:  # the state of a grouped weight: one per group
            shape = (params[path].shape[0], *shape)
        existing = self._optimizer.state.get(params.get(path)) if path in params else None
        torch_key = self._TORCH_STATE.get(key, key)
        if existing and key == "step" and "step" not in existing and "momentum_buffer" in existing:
            return torch.ones(shape, dtype=info.dtype)  # torch's SGD counts no steps: past the first
        if existing and torch_key in existing and isinstance(existing[torch_key], torch.Tensor):
            # State the optimizer already has (trained on the CPU, or load_state_dict) carries on.
            value = existing[torch_key].detach().to(info.dtype).reshape(shape).clone()
            return value * self._velocity_scale(path) if torch_key == "momentum_buffer" else value
        if described.type == OptimizerType.RMSPROP and described.flags.get("use_tf_variant") and key == "square_avg":
            return torch.ones(shape, dtype=info.dtype)
        return torch.zeros(shape, dtype=info.dtype)

    def _factor(self) -> int:
        """N = D x (R / I) x G: micro-batches per host batch."""
        options = self._options
        group = options.input_group_size or 1
        accumulation = options.Training.gradient_accumulation if self._training else 1
        return options.device_iterations * (options.replication_factor // group) * accumulation

    def _factor_text(self) -> str:
        options = self._options
        group = options.input_group_size or 1
        accumulation = options.Training.gradient_accumulation if self._training else 1
        return (
            f"deviceIterations ({options.device_iterations}) x replicationFactor ({options.replication_factor}) / "
            f"input group size ({group}) x gradientAccumulation ({accumulation}) = {self._factor()}"
        )

    def _compile(self, args: tuple, kwargs: dict[str, Any], leaves: list[_Leaf]) -> None:
        from ipu_mlir.driver import (
            CompileOptions,
            MeanStrategy,
            OptimizerDescription,
            Reduction,
            RoleKind,
            ScheduleKind,
            compile_program,
        )

        factor = self._factor()
        for leaf in leaves:
            if isinstance(leaf.value, torch.Tensor) and leaf.value.layout != torch.strided:
                raise ValueError(
                    f"input '{leaf.name}' is a tensor with the {str(leaf.value.layout).removeprefix('torch.')} layout: "
                    f"sparse layouts are not supported on the IPU. Pass dense tensors ({leaf.name}.to_dense())")
            if isinstance(leaf.value, torch.Tensor):
                batch = leaf.value.shape[0] if leaf.value.dim() else 1
                if batch % factor and leaf.value.dim() == 0:
                    raise ValueError(
                        f"input '{leaf.name}' is a 0-d tensor (a scalar), which counts as a batch of 1, but each call "
                        f"takes {self._factor_text()} micro-batches of every input. Give it a dim 0 of {factor} (one "
                        f"value per micro-batch, e.g. {leaf.name}.expand({factor})), or make a value that is the same "
                        "for every micro-batch a constant or buffer of the model instead of an input."
                    )
                if batch % factor:
                    raise ValueError(
                        f"input '{leaf.name}' has {batch} as its first dimension (batch), which is not a multiple of "
                        f"{self._factor_text()}. Every input's dim 0 must be the micro-batch size times {factor}; "
                        f"pass a batch of a multiple of {factor}, or change deviceIterations / replicationFactor / "
                        "gradientAccumulation. (A poptorch.DataLoader with the same options yields batches of its "
                        "combinedBatchSize, a multiple of that, unless drop_last=False leaves a short last batch.)"
                    )
        replicas = _Replicas.of(self._options)
        from . import _replica_grouping

        _replica_grouping.check(self, replicas.total)
        self._options.TensorLocations._check_sharding(replicas.total, self._training,
                                                      self._options.Training.gradient_accumulation)
        if replicas.ranks is not None:  # several processes: torch.distributed carries the collectives
            from . import _distributed

            _distributed.connect(self._options)
        micro_args, micro_kwargs = pytree.tree_map(lambda t: self._micro(t, factor), (args, kwargs))
        mode = self._options.resolved_output_mode(self._training)
        settings: dict[str, Any] = {
            "device_iterations": self._options.device_iterations,
            "output_mode": _compiled_output_mode(mode),
            "return_period": self._options.output_return_period or 1,
            "execution": _strategy_data(self._options),
            # Planning: read by the memory plan and the cost model (I/O tiles, temporaries, partials).
            "io_tiles": self._options.TensorLocations.num_io_tiles,
            "available_memory": _available_memory(self._options.available_memory_proportion),
            "partials_type": self._options.Precision._partials_type or "",
            "floating_point_exceptions": self._options.Precision.floating_point_traps,
            "replication_factor": replicas.total,
            "replica_groups": _replica_grouping.compile_groups(self),
            "broadcast_buffers": self._options.broadcast_buffers,
            # Where weights, optimizer state and accumulators live (poplar-place-tensors).
            "tensor_locations": self._options.TensorLocations._placed(),
            # Options.anchorTensor: model tensors the program streams out under their mode (_anchors.py).
            "anchors": compile_anchors(self._options, self._training),
        }
        if self._options.ipu_target is not None:  # Options.setIpuTarget: the cost model's IPU
            from ipu_mlir.support.target import target_named

            settings["target"] = target_named(self._options.ipu_target)
        description = None
        if self._training:
            from .optim import describe

            self._ipu_optimizer = describe(self._optimizer, self._parameter_names())
            described = self._ipu_optimizer
            description = OptimizerDescription(
                described.type, dict(described.flags), len(described.groups), dict(described.param_groups),
                constants=_constants(described), max_grad_norm=described.max_grad_norm,
            )
            training = self._options.Training
            strategy = training.mean_accumulation_and_replication_reduction_strategy
            running = strategy == MeanReductionStrategy.Running or any(
                dtype == torch.float16 for dtype in described.accum_types.values()
            )  # SEMANTICS: a float16 accumulator forces the running mean
            settings.update(
                gradient_accumulation=training.gradient_accumulation,
                reduction=Reduction.SUM if training.accumulation_and_replication_reduction_type == ReductionType.Sum
                else Reduction.MEAN,
                strategy=MeanStrategy.RUNNING if running else MeanStrategy.POST,
                state_types=tuple(f"{state}:{dtype}" for state, dtype in described.state_types.items()),
                auto_loss_scaling=bool(training.auto_loss_scaling),
                recompute=self._options._Popart.recompute_pipeline,
            )
        # A grouped weight is captured as one replica's; mixed float16 / float32 ops are cast as
        # Precision.halfFloatCasting says (_precision.py).
        with _replica_grouping.per_replica_shapes(self), \
                _precision.mixed_float_casting(self._model, self._options.Precision.half_float_casting):
            if self._options.auto_balance_ipus:  # Options.autoBalancePipeline: probe on one IPU, split, compile
                from ._auto_balance import compile_balanced

                self._compiled, self.balance_plan = compile_balanced(self, micro_args, micro_kwargs, settings, description)
            else:
                self._compiled = compile_program(self._model, micro_args, micro_kwargs, CompileOptions(**settings),
                                                 description, cache_dir=self._options.executable_cache_dir,
                                                 replica_ranks=replicas.ranks)
        if replicas.ranks is not None:
            _distributed.attach_exchange(self, replicas.local)
        self._argument_roles = [(RoleKind.parse(kind, "argument kind"), name) for kind, name in self._compiled.arguments]
        self._options.TensorLocations._check_compiled({kind for kind, _ in self._compiled.arguments})
        check_anchors(self, self._training)  # Options.anchorTensor names exist (_anchors.py)
        if self._options._Popart.recompute_pipeline and (
                not self._training or self._compiled.schedule().kind != ScheduleKind.PIPELINED):
            _logging.warn_once("autoRecomputation", (
                "Options._Popart.set('autoRecomputation', 3) has no effect here: only pipelined training "
                "(PipelinedExecution over several stages) recomputes activations; the model stashes nothing to recompute."))
        _warn_float64(self._compiled.captured)
        self._host_signature = [(leaf.name, _describe(leaf.value)) for leaf in leaves]
        self._leaf_is_tensor = [isinstance(leaf.value, torch.Tensor) for leaf in leaves]
        self._leaf_values = [None if isinstance(leaf.value, torch.Tensor) else leaf.value for leaf in leaves]
        if self._compiled.timings.get("precaptured"):
            _logging.logger.info("%s: the executable came from the cache in %s (capture and passes skipped)",
                                 type(self._model).__name__, self._options.executable_cache_dir)
        elif self._compiled.timings.get("cached"):
            _logging.logger.info("%s: the executable came from the cache in %s (capture %.2f s, passes skipped)",
                                 type(self._model).__name__, self._options.executable_cache_dir,
                                 self._compiled.timings["capture"])
        else:
            _logging.logger.info(
                "compiled %s: capture %.2f s, passes %.2f s, decode %.2f s",
                type(self._model).__name__,
                *(self._compiled.timings[k] for k in ("capture", "passes", "decode")),
            )

    @staticmethod
    def _micro(value: Any, factor: int) -> Any:
        if not isinstance(value, torch.Tensor) or value.dim() == 0:
            return value
        return value[: value.shape[0] // factor]

    def _check_signature(self, leaves: list[_Leaf]) -> None:
        expected = self._host_signature or []
        if len(leaves) != len(expected):
            names = ", ".join(name for name, _ in expected)
            raise ValueError(
                f"the model was compiled with {len(expected)} inputs ({names}) but this call passes {len(leaves)}; "
                "pass the same arguments as the first call"
            )
        for leaf, (name, description), was_tensor, value in zip(leaves, expected, self._leaf_is_tensor, self._leaf_values, strict=True):
            if leaf.name != name:
                raise ValueError(
                    f"input '{leaf.name}' is given where the model was compiled with input '{name}': "
                    "pass the same arguments (names, dict keys and order) as the first call"
                )
            given = _describe(leaf.value)
            if was_tensor != isinstance(leaf.value, torch.Tensor):
                raise ValueError(f"input '{leaf.name}': compiled as {description}, got {given}")
            if was_tensor and given != description:
                raise ValueError(
                    f"input '{leaf.name}': the model was compiled for {description}, got {given}; "
                    "shapes and dtypes cannot change between calls (compile a new model for new shapes; batches "
                    "from a poptorch.DataLoader all hold its combinedBatchSize samples, except a short last batch "
                    "that drop_last=False keeps: use drop_last=True)"
                )
            if not was_tensor and not _same_value(value, leaf.value):
                raise ValueError(
                    f"input '{leaf.name}' was {value!r} when the model was compiled, got {leaf.value!r}: "
                    "non-tensor arguments are compiled into the program and cannot change between calls"
                )

    def _run(self, leaves: list[_Leaf]) -> Any:
        compiled = self._compiled
        factor = self._factor()
        tensors = [leaf.value for leaf in leaves if isinstance(leaf.value, torch.Tensor)]
        interface = compiled.executable.interface  # each input's and output's host stream
        replicas = _Replicas.of(self._options)
        feeds: list[dict[str, list[torch.Tensor]]] = [{} for _ in range(replicas.local)]
        for spec, tensor in zip(compiled.captured.inputs, tensors, strict=True):
            if tensor.dim() == 0:
                chunks = [tensor] * factor
            elif factor == 1:
                chunks = [tensor]
            else:
                size = tensor.shape[0] // factor  # views; exact even for an empty batch (torch.split(t, 0) gives one chunk)
                chunks = [tensor[i * size:(i + 1) * size] for i in range(factor)]
            for index, chunk_indices in enumerate(replicas.feeds(factor)):
                feeds[index][interface.input_stream(spec.name)] = [chunks[i] for i in chunk_indices]
        from . import _host_sync

        if not self._training and self._uploaded_version != _host_sync.version(self._user_model):
            self.copyWeightsToDevice()  # a training wrapper of the same model changed the weights
        with torch.no_grad():
            per_replica = compiled.program.run_replicas(self._replica_stores, feeds)
        streams = replicas.interleave(per_replica)
        collect(self, streams, _assemble)  # Options.anchorTensor's model tensors of this call
        # An input the model updated in place: from the first replica of each input group.
        updated = replicas.interleave(per_replica, first_of_input_groups=True) if replicas.input_group > 1 else streams
        self._after_call()  # the cost model's counters, cycle count log and profiling report
        captured = compiled.captured
        layout = captured.layout
        if not self._training:
            outputs = [_assemble(streams[interface.output_stream(i)]) for i in range(len(captured.outputs))]
            _write_back_inputs(updated, interface, len(outputs), captured, tensors)
            return _unflatten(layout.assemble(outputs, tensors), captured.out_spec)
        self._device_newer = True
        self._updates += self._options.device_iterations
        self._uploaded_version = _host_sync.bump_version(self._user_model)
        results = [_guard(_assemble(streams[interface.output_stream(i)])) for i in range(captured.num_outputs)]
        _write_back_inputs(updated, interface, captured.num_outputs, captured, tensors)
        loss, others = results[0], results[1:]
        at = layout.tensor_positions.index(captured.loss_index)  # the loss among the tensor outputs
        outputs = others[:at] + [loss] + others[at:]
        return _unflatten(layout.assemble(outputs, tensors), captured.out_spec)


@dataclasses.dataclass(frozen=True)
class _Replicas:
    """The replicas of this process: ``local`` (Options.replicationFactor) of ``total`` in
    all processes (x Options.Distributed.numProcesses); ``ranks`` are their global ranks
    (None: one process, all of them); each input group of ``input_group`` replicas
    (Options.inputReplicaGrouping) gets the same micro-batches."""

    local: int
    total: int
    ranks: list[int] | None
    input_group: int
    orthogonal: bool

    @classmethod
    def of(cls, options: Options) -> _Replicas:
        from .enums import CommGroupType

        local = options.replication_factor
        processes, process = options.Distributed.numProcesses, options.Distributed.processId
        group = options.input_group_size or 1  # a factor of local: Options.validate checks it
        ranks = None if processes == 1 else list(range(process * local, (process + 1) * local))
        return cls(local, local * processes, ranks, group, options.input_group_type == CommGroupType.Orthogonal)

    @property
    def global_ranks(self) -> list[int]:
        """The global ranks of this process's replicas."""
        return list(range(self.local)) if self.ranks is None else self.ranks

    def _input_group_of(self, index: int) -> int:
        """The input group of local replica ``index`` (CommGroupType: Consecutive groups
        0..k-1, k..2k-1, ...; Orthogonal groups {0, m, 2m, ...}, {1, m+1, ...})."""
        distinct = self.local // self.input_group
        return index % distinct if self.orthogonal else index // self.input_group

    def feeds(self, factor: int) -> list[list[int]]:
        """Each local replica's micro-batches among a host batch's ``factor``: micro-batch
        k = step x G' + q goes to input group q (G' = R / I groups), so consecutive
        micro-batches go to consecutive groups, as PopTorch lays out [D, G, R, B]."""
        distinct = self.local // self.input_group
        steps = factor // distinct
        return [[step * distinct + self._input_group_of(index) for step in range(steps)] for index in range(self.local)]

    def interleave(self, results: list[dict[str, list[torch.Tensor]]], first_of_input_groups: bool = False
                   ) -> dict[str, list[torch.Tensor]]:
        """One list of chunks per stream from every replica's: step by step, replica by
        replica (with ``first_of_input_groups``: one replica per input group, by group)."""
        if first_of_input_groups:
            firsts: dict[int, int] = {}
            for index in range(self.local):
                firsts.setdefault(self._input_group_of(index), index)
            chosen = [firsts[q] for q in sorted(firsts)]
        else:
            chosen = list(range(self.local))
        if len(chosen) == 1:
            return results[chosen[0]]
        return {name: [chunk for step in zip(*(results[i][name] for i in chosen), strict=True) for chunk in step]
                for name in results[0]}


def _unflatten(leaves: list[Any], spec: pytree.TreeSpec) -> Any:
    """``pytree.tree_unflatten``, except that a ``torch.Size`` comes back as a torch.Size
    (torch's pytree rebuilds it as a plain tuple), as eager returns it."""
    values = iter(leaves)

    def build(node: pytree.TreeSpec) -> Any:
        if node.is_leaf():
            return next(values)
        children = [build(child) for child in node.children()]
        if node.type is torch.Size:
            return torch.Size(children)
        leaf = pytree.tree_structure(0)
        return pytree.tree_unflatten(children, pytree.TreeSpec(node.type, node.context, [leaf] * len(children)))

    return build(spec)


def _write_back_inputs(streams: dict[str, list[torch.Tensor]], interface: Any, first: int, captured: Any,
                       tensors: list[torch.Tensor]) -> None:
    """Write the new value of each input the model updated in place (results ``first``...,
    one chunk per step) into the caller's tensor, as eager mutates it: each micro-batch's
    slice gets that micro-batch's update (a 0-d input, fed whole to every step, the last)."""
    names = [spec.name for spec in captured.inputs]
    with torch.no_grad():
        for offset, name in enumerate(captured.layout.input_updates):
            chunks = streams[interface.output_stream(first + offset)]
            target = tensors[names.index(name)]
            value = chunks[-1] if target.dim() == 0 else _assemble(chunks)
            if value.shape != target.shape:  # pragma: no cover - the program streams every step's slice
                raise RuntimeError(f"input '{name}' was updated as shape {list(value.shape)}, "
                                   f"but the caller's tensor has shape {list(target.shape)}")
            if value.data_ptr() != target.data_ptr():
                target.copy_(value)


def _raw_named_tensors(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """Parameters and buffers by path, read without triggering the host-sync hooks."""
    out: dict[str, torch.Tensor] = {}
    for prefix, module in model.named_modules(remove_duplicate=False):
        for table in ("_parameters", "_buffers"):
            for name, tensor in module.__dict__.get(table, {}).items():
                if tensor is not None:
                    out[f"{prefix}.{name}" if prefix else name] = tensor
    return out


class TrainingOutput(torch.Tensor):
    """An output of a PopTorch training model: a plain tensor, except that .backward() is
    our error (the program already ran the backward pass and the optimizer)."""

    __torch_function__ = torch._C._disabled_torch_function_impl  # ops on it give plain tensors

    def __repr__(self, *args: Any, **kwargs: Any) -> str:
        return torch.Tensor.__repr__(self.as_subclass(torch.Tensor), *args, **kwargs)

    def backward(self, *args: Any, **kwargs: Any) -> None:  # noqa: ARG002
        raise RuntimeError(
            "backward() was called on an output of a PopTorch training model. The compiled program already "
            "computes the gradients and applies the optimizer on the IPU at every call: remove the .backward() "
            "and optimizer.step() calls from the training loop."
        )


def _guard(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.as_subclass(TrainingOutput)


# Models wrapped for training (weakly held: an id could be reused once a model is gone).
_WRAPPED_FOR_TRAINING: weakref.WeakSet[torch.nn.Module] = weakref.WeakSet()


def _check_wrappable(model: Any, api: str) -> None:
    if isinstance(model, PoplarExecutor):
        raise TypeError(
            "this model is already a PopTorch model (a PoplarExecutor); wrap the original torch.nn.Module, "
            "or call destroy() on the existing wrapper first"
        )
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"{api} expects a torch.nn.Module, got {type(model).__name__}")


def wrap_training(model: torch.nn.Module, options: Options | None, optimizer: torch.optim.Optimizer | None) -> PoplarExecutor:
    _check_wrappable(model, "trainingModel")
    if model in _WRAPPED_FOR_TRAINING:
        raise RuntimeError(
            "this model is already wrapped by poptorch.trainingModel; call destroy() on that wrapper before "
            "wrapping the model for training again"
        )
    if optimizer is None and next(model.parameters(), None) is None:
        raise ValueError(f"poptorch.trainingModel: {type(model).__name__} has no parameters, so there is nothing to "
                         "train; use poptorch.inferenceModel to run it")
    if optimizer is None:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    from .optim import check_optimizer

    check_optimizer("poptorch.trainingModel", optimizer)
    executor = PoplarExecutor(copy.copy(model), options, training=True, user_model=model, optimizer=optimizer)
    executor._install_state_sync()
    _WRAPPED_FOR_TRAINING.add(model)
    return executor


def _strategy_data(options: Options) -> dict[str, Any]:
    """The execution strategy as the compiler's ipu-assign-stages reads it."""
    from ipu_mlir.driver import AutoStage as CompiledAutoStage
    from ipu_mlir.driver import StrategyKind

    from .enums import AutoStage, Liveness
    from .execution_strategy import ParallelPhasedExecution, PipelinedExecution, SerialPhasedExecution, ShardedExecution

    strategy = options.execution_strategy
    data: dict[str, Any] = {"replication_factor": options.replication_factor,
                            "auto_round_num_ipus": bool(options.auto_round_num_ipus)}
    if strategy is None:
        data.update(kind=StrategyKind.PIPELINED, auto_stage=CompiledAutoStage.SAME_AS_IPU, stages=[])
        return data
    if isinstance(strategy, (SerialPhasedExecution, ParallelPhasedExecution)):  # stages phase by phase
        stages = [(stage, phase.phase_id) for phase in strategy.phases for stage in phase.stages]
        data.update(
            kind=StrategyKind.SERIAL_PHASED if isinstance(strategy, SerialPhasedExecution) else StrategyKind.PARALLEL_PHASED,
            auto_stage=CompiledAutoStage.SAME_AS_IPU,
            stages=[{"blocks": list(stage.blocks), "ipu": -1 if stage.ipu_id is None else int(stage.ipu_id)}
                    for stage, _ in stages],
            phases=[phase for _, phase in stages],
            liveness={Liveness.AlwaysLive: "always_live", Liveness.OffChipAfterFwd: "off_chip_after_fwd",
                      Liveness.OffChipAfterFwdNoOverlap: "off_chip_after_fwd_no_overlap",
                      Liveness.OffChipAfterEachPhase: "off_chip_after_each_phase"}[strategy.tensors_liveness],
            separate_backward_phase=strategy.separate_backward_phase,
        )
        return data
    if isinstance(strategy, PipelinedExecution):
        kind = StrategyKind.PIPELINED
    else:
        kind = StrategyKind.SHARDED
    auto = strategy.auto_stage
    data.update(
        kind=kind,
        auto_stage=CompiledAutoStage.AUTO_INCREMENT if auto == AutoStage.AutoIncrement
        else CompiledAutoStage.SAME_AS_IPU,
        stages=[{"blocks": list(stage.blocks), "ipu": -1 if stage.ipu_id is None else int(stage.ipu_id)}
                for stage in strategy.stages],
    )
    return data


def _warn_float64(captured: Any) -> None:
    """IPUs have no float64 arithmetic: say once what the IPU Model does with it instead."""
    specs = [*captured.weights, *captured.inputs, *getattr(captured, "outputs", [])]
    doubles = [spec.name for spec in specs if spec.dtype == torch.float64]
    if doubles:
        shown = ", ".join(doubles[:3]) + (f" and {len(doubles) - 3} more" if len(doubles) > 3 else "")
        _logging.warn_once("float64", (
            f"float64 tensors ({shown}): IPUs have no 64-bit floating-point arithmetic. The IPU Model computes "
            "them in float64, as eager PyTorch does, so results match eager; PopTorch on IPU hardware would run "
            "them in float32. Convert the model and inputs to float32 (model.float(), x.float()) to run as the "
            "hardware does."))


def _available_memory(proportions: dict[int, float]) -> tuple[float, ...]:
    """``setAvailableMemoryProportion``'s proportions by IPU number (PopLibs' 0.6 for the IPUs it skips)."""
    return tuple(proportions.get(ipu, 0.6) for ipu in range(max(proportions, default=-1) + 1))


def _compiled_output_mode(mode: OutputMode) -> CompiledOutputMode:
    """PopTorch's OutputMode as the compiler's (``poplar-build-program``'s output-mode)."""
    from ipu_mlir.driver import OutputMode as CompiledOutputMode

    return {
        OutputMode.All: CompiledOutputMode.ALL,
        OutputMode.Final: CompiledOutputMode.FINAL,
        OutputMode.Sum: CompiledOutputMode.SUM,
        OutputMode.EveryN: CompiledOutputMode.EVERY_N,
    }[mode]


def _constants(described: Any) -> dict[str, float]:
    """The hyper-parameters marked constant, as "<group>.<name>" (or "loss_scaling") -> value."""
    out: dict[str, float] = {}
    for name in sorted(described.constant):
        if name == "loss_scaling":
            out["loss_scaling"] = float(described.loss_scaling)
            continue
        for index, group in enumerate(described.groups):
            if name in group:
                out[f"{index}.{name}"] = float(group[name])
    return out


def _assemble(chunks: list[torch.Tensor]) -> torch.Tensor:
    """One host tensor from the per-iteration outputs: dim 0 gains the factor."""
    if len(chunks) == 1:
        return chunks[0]
    if chunks[0].dim() == 0:
        return torch.stack(chunks)
    return torch.cat(chunks)


def _describe(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"a tensor of shape {list(value.shape)} and dtype {value.dtype}"
    return f"a {type(value).__name__} ({value!r})"


def _same_value(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:  # noqa: BLE001 - objects with odd __eq__ compare as different
        return False


def wrap_inference(model: torch.nn.Module, options: Options | None) -> PoplarExecutor:
    _check_wrappable(model, "inferenceModel")
    return PoplarExecutor(copy.copy(model), options, training=False, user_model=model)


__all__ = ["PoplarExecutor", "wrap_inference", "wrap_training"]

"""The compiler driver: model + example inputs -> executable + decoded runtime program.

``compile_program`` chains the frontend capture (inference, or the joint forward and
backward for training), the compile pipeline (``compiler/pipelines.py``), the artifact
and the runtime decoder. It is what ``poptorch.inferenceModel`` / ``trainingModel`` call
on the first run, and what ``ipu_mlir.compile_inference`` exposes for direct use. It is
the only layer that calls both the compiler and the runtime.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import time
from collections.abc import Iterator
from typing import Any

import torch
from torch_mlir import ir

from ipu_mlir.artifact.executable import INTERFACE_KEY, Executable
from ipu_mlir.artifact.schedule import ScheduleSummary, memory_report, summarize
from ipu_mlir.compiler.pipelines import CompileOptions
from ipu_mlir.dialects import make_context
from ipu_mlir.dialects.ipu import OPTIMIZER_ATTR, STRATEGY_ATTR, OptimizerAttr, StrategyAttr
from ipu_mlir.dialects.poplar import CYCLES_TARGET_ATTR, cycles_of, interface_of
from ipu_mlir.dialects.poplar.program_order import graphs_of
from ipu_mlir.runtime.counters import PerfCounters
from ipu_mlir.runtime.interpreter import Program, ReplicatedProgram, load_program

# The passes, the pass runner and the report writer are imported where they are used: a
# warm executable cache hit (driver/cache.py) runs none of them, and their imports were a
# tenth of what that hit costs.


@dataclasses.dataclass
class CompiledProgram:
    """A compiled model: its captured signature, the serializable executable and the
    decoded program, for inference or for a training step.

    ``captured`` is the frontend's ``CapturedProgram`` (inference) or ``TrainingCapture``
    (training); ``arguments`` are the (kind, name) of the step function's device
    variables that the host provides (weights, buffers, optimizer state ...), as the
    graph's ``#poplar.interface`` lists them.
    """

    captured: Any
    executable: Executable
    program: Program | ReplicatedProgram
    context: ir.Context
    module: ir.Module
    timings: dict[str, float]
    arguments: list[tuple[str, str]]
    training: bool

    def memory_per_ipu(self) -> dict[int, dict[str, int]]:
        return memory_report(_graph_of(self.module))

    def schedule(self) -> ScheduleSummary:
        return summarize(_graph_of(self.module))

    def ir_text(self) -> str:
        return self.module.operation.get_asm(print_generic_op_form=True)

    def perf_counters(self) -> PerfCounters:
        """Fresh emulated performance counters of this program (runtime/counters.py)."""
        return PerfCounters(self._estimated_graph())

    def write_profile(self, directory: str, host_spans: list[dict[str, Any]] | None = None, calls: int = 0) -> dict[str, str]:
        """Write the profiling report (profile.json, profile.html) into ``directory``; their paths."""
        from ipu_mlir.artifact.report import write_report

        return write_report(directory, self._estimated_graph(), host_spans, calls)

    def cycles_by_module(self) -> list[tuple[str | None, int]]:
        """(nn.Module path of the op's location, estimated cycles) of every compute op of the
        graph's functions, in program order: what autoBalancePipeline sums per module. Program
        steps (host streams, copies, syncs) belong to no module and are left out."""
        from ipu_mlir.compiler.location_metadata import module_path

        found: list[tuple[str | None, int]] = []

        def visit(op: ir.Operation) -> ir.WalkResult:
            if not len(op.regions) and not op.name.startswith(("poplar.program_", "pipeline.")):
                cycles = cycles_of(op)
                if cycles:
                    found.append((module_path(op), cycles))
            return ir.WalkResult.ADVANCE

        for op in self._estimated_graph().regions[0].blocks[0].operations:
            if op.operation.name == "poplar.function":
                op.operation.walk(visit)
        return found

    def _estimated_graph(self) -> ir.Operation:
        """The graph with its cycle estimates; an executable exported before the compile
        pipeline estimated cycles gets them now, for the default target."""
        graph = _graph_of(self.module)
        if CYCLES_TARGET_ATTR not in graph.attributes:
            from ipu_mlir.compiler.pass_pipeline import run_pipeline
            from ipu_mlir.compiler.transforms.poplar_estimate_cycles import EstimateCycles
            from ipu_mlir.support.target import default_target

            run_pipeline(self.module, [EstimateCycles(target=default_target().name)], name="estimate-cycles")
        return graph


def _attach_strategy(module: ir.Module, options: CompileOptions, training: bool) -> None:
    """Record the execution strategy (``options.execution``: kind, auto_stage, stages as
    {blocks, ipu}, replication_factor, auto_round_num_ipus; None: the default
    PipelinedExecution(AutoStage.SameAsIpu)) on the function for ipu-assign-stages."""
    execution = dict(options.execution or {})
    stages = [(list(stage["blocks"]), int(stage.get("ipu", -1))) for stage in execution.pop("stages", [])]
    func = module.body.operations[0]
    with module.context, ir.Location.unknown(module.context):
        func.attributes[STRATEGY_ATTR] = StrategyAttr.build(
            **execution, stages=stages, training=training, device_iterations=options.device_iterations,
            gradient_accumulation=options.gradient_accumulation)


def _attach_tensor_locations(module: ir.Module, options: CompileOptions) -> None:
    """Write where each tensor class lives (``options.tensor_locations``) on the module as
    ``#poplar.tensor_locations``, for poplar-place-tensors."""
    if not options.tensor_locations:
        return
    from ipu_mlir.dialects.poplar import TENSOR_LOCATIONS_ATTR, TensorLocation, TensorLocations

    def location(settings: dict[str, Any]) -> TensorLocation:
        on_chip = settings.get("on_chip")
        return TensorLocation(-1 if on_chip is None else int(on_chip), settings.get("min_elements_for_off_chip", 2),
                              bool(settings.get("replicated_tensor_sharding", False)),
                              settings.get("min_elements_for_replicated_tensor_sharding", 8192),
                              bool(settings.get("io_tiles_to_load", False)), bool(settings.get("io_tiles_to_store", False)))

    locations = TensorLocations(**{kind: location(settings) for kind, settings in options.tensor_locations.items()})
    with module.context, ir.Location.unknown(module.context):
        module.operation.attributes[TENSOR_LOCATIONS_ATTR] = locations.attr()


def _attach_replica_groups(module: ir.Module, options: CompileOptions) -> None:
    """Write each grouped weight's replica group (``options.replica_groups``) on its
    parameter argument as ``ipu.replica_group``, for ipu-insert-training."""
    if not options.replica_groups:
        return
    from ipu_mlir.dialects.ipu import ARGUMENTS, RoleKind, read_roles
    from ipu_mlir.dialects.ipu_training import REPLICA_GROUP_ATTR
    from ipu_mlir.dialects.poplar import CommGroupAttr

    func = module.body.operations[0]
    roles = read_roles(func, ARGUMENTS)
    found = set()
    with module.context:
        entries = []
        for index, role in enumerate(roles):
            entry = _arg_dict(func, index)
            if role is not None and role.kind == RoleKind.PARAMETER and role.name in options.replica_groups:
                kind, size = options.replica_groups[role.name]
                entry[REPLICA_GROUP_ATTR] = CommGroupAttr.build(kind, size)
                found.add(role.name)
            entries.append(ir.DictAttr.get(entry))
        func.attributes[ARGUMENTS] = ir.ArrayAttr.get(entries)
    missing = sorted(set(options.replica_groups) - found)
    if missing:
        raise ValueError(f"replicaGrouping was set on {', '.join(missing)}, which the compiled step does not train "
                         "(not a trainable parameter of the model)")


def _attach_anchor_modes(module: ir.Module, options: CompileOptions, tensor_names: list[str]) -> None:
    """Give each ``anchor`` result of the captured function (one per ``options.anchors`` entry
    naming a tensor of the graph, in that order) its ``#ipu.output_mode``, for poplar-build-program."""
    from ipu_mlir.dialects.ipu import RESULTS, RoleKind, read_roles
    from ipu_mlir.dialects.ipu_anchor import AnchorMode, set_result_output_mode
    from ipu_mlir.dialects.poplar import OutputMode

    known = set(tensor_names)
    wanted = [(name, mode, period) for name, mode, period in options.anchors if name in known]
    func = module.body.operations[0]
    positions = [i for i, role in enumerate(read_roles(func, RESULTS)) if role is not None and role.kind == RoleKind.ANCHOR]
    if len(positions) != len(wanted):  # pragma: no cover - the frontend returns one result per entry
        raise RuntimeError(f"the captured function has {len(positions)} anchored results for {len(wanted)} anchors")
    with module.context, ir.Location.unknown(module.context):
        for position, (_, mode, period) in zip(positions, wanted, strict=True):
            set_result_output_mode(func, position, AnchorMode(OutputMode(mode), period))


def _state_anchors(options: CompileOptions, tensor_names: list[str]) -> list[Any]:
    """The ``options.anchors`` entries the program streams as state: those naming no model tensor,
    with several steps per call and a mode other than ``final``. A final one, or any over a single
    step (where every mode gives the final value), is read from the device after the call."""
    from ipu_mlir.dialects.ipu_anchor import AnchorMode, StateAnchor
    from ipu_mlir.dialects.poplar import OutputMode

    if options.device_iterations * options.gradient_accumulation == 1:
        return []
    known = set(tensor_names)
    return [StateAnchor(name, AnchorMode(OutputMode(mode), period)) for name, mode, period in options.anchors
            if name not in known and mode != OutputMode.FINAL.value]


def _run_passes(module: ir.Module, options: CompileOptions, training: bool, name: str, state: list[Any],
                timings: dict[str, float]) -> None:
    """The compile pipeline. With anchored state, it runs in two parts: up to poplar-build-program
    (ipu-insert-training has made the optimizer state and accumulators variables by then), then,
    after the module's ``ipu.anchored_state`` lists the entries naming a variable, the rest.
    The other names are left out: poptorch reports them after compiling, with the close matches
    among every tensor name (``_anchors.check_anchors``). The module is verified after the
    last pass, not after each (``run_pipeline``'s ``verify_each``); ``timings`` gets each
    pass's seconds (``passes.<name>``)."""
    from ipu_mlir.compiler.pass_pipeline import run_pipeline
    from ipu_mlir.compiler.pipelines import compile_pipeline
    from ipu_mlir.dialects.ipu import ARGUMENTS, RoleKind, read_roles
    from ipu_mlir.dialects.ipu_anchor import set_anchored_state

    steps = compile_pipeline(options, training=training)
    at = next((i for i, step in enumerate(steps) if getattr(step, "name", None) == "poplar-build-program"), None)
    if not state or at is None:
        run_pipeline(module, steps, name=name, verify_each=False, timings=timings)
        return
    run_pipeline(module, steps[:at], name=name, verify_each=False, timings=timings)
    kinds = (RoleKind.PARAMETER, RoleKind.BUFFER, RoleKind.CONSTANT, RoleKind.HYPER, RoleKind.OPTIMIZER_STATE,
             RoleKind.ACCUMULATOR)
    variables = {role.name for op in module.body.operations if op.operation.name == "func.func"
                 for role in read_roles(op.operation, ARGUMENTS) if role is not None and role.kind in kinds}
    with module.context, ir.Location.unknown(module.context):
        set_anchored_state(module.operation, [anchor for anchor in state if anchor.name in variables])
    run_pipeline(module, steps[at:], name=name, verify_each=False, timings=timings)


def _arg_dict(func: ir.Operation, index: int) -> dict[str, ir.Attribute]:
    """Argument ``index``'s attributes (``arg_attrs``), as a dict."""
    from ipu_mlir.dialects.ipu import ARGUMENTS

    entry = ir.DictAttr(ir.ArrayAttr(func.attributes[ARGUMENTS])[index])
    return {entry[i].name: entry[i].attr for i in range(len(entry))}


def _graph_of(module: ir.Module) -> ir.Operation:
    graph = next(graphs_of(module.operation), None)
    if graph is None:
        raise RuntimeError("the compiled module holds no poplar.graph")
    return graph


@dataclasses.dataclass
class OptimizerDescription:
    """The optimizer as the compiler needs it (values live on the device, not in the IR).

    Arguments:
      type: "sgd", "adam", "rmsprop" or "lamb" (AdamW is "adam" with flags variant="adamw").
      flags: structural choices that change the program (with_momentum, nesterov, variant...).
      groups: number of parameter groups.
      param_groups: parameter path -> group index.
      constants: hyper-parameters compiled in ("<group>.<name>" or "loss_scaling" -> value).
      max_grad_norm: clip gradients by their global norm (None: no clipping).
    """

    type: str
    flags: dict[str, Any]
    groups: int
    param_groups: dict[str, int]
    constants: dict[str, float] = dataclasses.field(default_factory=dict)
    max_grad_norm: float | None = None

    def attribute(self) -> ir.Attribute:
        """The ``#ipu.optimizer`` that ipu-insert-training reads."""
        return OptimizerAttr.build(kind=self.type, flags=self.flags, groups=self.groups, param_groups=self.param_groups,
                                   constants=self.constants, max_grad_norm=self.max_grad_norm)


def _check_some_parameter_trains(model: torch.nn.Module) -> None:
    """CaptureError, before capture, when no parameter of the model requires a gradient: the
    capture could not even tell the loss (an output made of losses without a gradient is
    not linked to them)."""
    from ipu_mlir.compiler.frontend.capture import CaptureError

    if not any(p.requires_grad for p in model.parameters()):
        raise CaptureError(
            f"trainingModel({type(model).__name__}): no parameter of the model requires a gradient (every parameter "
            "is frozen with requires_grad=False, or the model has none), so a training step would change nothing. "
            "Unfreeze the parameters to train (p.requires_grad_(True)), or use poptorch.inferenceModel to only run "
            "the model"
        )


def _check_trainable(model: torch.nn.Module, captured: Any) -> None:
    """ValueError, before any pass runs, when the captured step has no gradient to seed: a
    loss without a gradient (integer-valued, or computed from no trainable parameter)."""
    from ipu_mlir.compiler.frontend.capture import CaptureError
    from ipu_mlir.dialects.ipu import RoleKind
    from ipu_mlir.support.torch_types import vtensor_shape_dtype

    if any(kind == RoleKind.LOSS_GRAD for kind, _, _ in captured.arguments):
        return
    name = type(model).__name__
    func = captured.module.body.operations[0]
    results = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value).results
    loss = next((i for i, (kind, _) in enumerate(captured.results) if kind == RoleKind.LOSS), None)
    parsed = vtensor_shape_dtype(results[loss]) if loss is not None else None
    dtype = parsed[1] if parsed else "?"
    if not (dtype.startswith("f") or dtype.startswith("bf")):
        raise CaptureError(
            f"trainingModel({name}): the loss is a tensor of element type {dtype} (integer or boolean values, from "
            "argmax, a comparison or an integer cast, for example), which has no gradient to train with. Compute "
            "the loss from floating-point values, for example F.cross_entropy(logits, target) instead of "
            "(logits.argmax(-1) != target).float().mean()"
        )
    raise CaptureError(
        f"trainingModel({name}): the loss does not depend on any trainable parameter (it is computed from the "
        "inputs, constants or detached values only), so it has no gradient to train with. Compute the loss from "
        "the model's outputs, without .detach() or torch.no_grad() on the way"
    )


@contextlib.contextmanager
def _collecting_new_objects_only() -> Iterator[None]:
    """While a model compiles, Python's full garbage collections traverse only the objects
    the compile creates: the objects alive before it (torch's modules, the user's model and
    data) are set aside with ``gc.freeze()`` and given back to the collector afterwards.

    The trace and the passes allocate hundreds of thousands of objects, which set off a few
    full collections; each one walked every object of the process again (BERT-base training:
    0.62 s of the compile's CPU time in full collections, 0.23-0.26 s with this; garbage of
    the compile itself is still collected as it goes). Nothing is done when the program froze
    objects itself (``gc.get_freeze_count()``): unfreezing would undo its freeze. Or when it
    turned the collector off."""
    if not gc.isenabled() or gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def compile_program(model: torch.nn.Module, args: tuple, kwargs: dict[str, Any], options: CompileOptions,
                    optimizer: OptimizerDescription | None = None, cache_dir: str | None = None,
                    replica_ranks: list[int] | None = None) -> CompiledProgram:
    """Capture ``model(*args, **kwargs)`` (micro-batch inputs) and compile it for the IPU
    Model (:func:`_compile_program`), collecting only the compile's own garbage as it goes
    (:func:`_collecting_new_objects_only`)."""
    with _collecting_new_objects_only():
        return _compile_program(model, args, kwargs, options, optimizer, cache_dir, replica_ranks)


def _compile_program(model: torch.nn.Module, args: tuple, kwargs: dict[str, Any], options: CompileOptions,
                     optimizer: OptimizerDescription | None = None, cache_dir: str | None = None,
                     replica_ranks: list[int] | None = None) -> CompiledProgram:
    """Capture ``model(*args, **kwargs)`` (micro-batch inputs) and compile it for the IPU
    Model: for inference, or with ``optimizer`` a training step (forward, backward and
    the optimizer's update in one program). With ``cache_dir``, capture and the passes are
    skipped when the executable cache (``driver/cache.py``) holds the model's entry under the
    pre-capture key (``timings["cached"]`` and ``["precaptured"]`` are 1.0), or the passes
    only under the post-capture key (``["cached"]`` 1.0). ``timings`` holds the seconds of
    ``capture``, ``passes`` and ``decode`` and their parts: ``capture.<part>`` (the frontend's
    export, joint trace and import), ``passes.<pass name>`` (and ``passes.input``, ``.mlir``,
    ``.verify``: ``run_pipeline``), ``decode.artifact`` (the executable's bytecode). ``replica_ranks`` are the global ranks of
    the replicas this process runs (None: all ``options.replication_factor`` of them)."""
    training = optimizer is not None
    name = type(model).__name__
    timings: dict[str, float] = {}
    cache = key = prekey = None
    if cache_dir is not None:
        from .cache import ExecutableCache, load_precaptured, precapture_key

        cache = ExecutableCache(cache_dir)
        if cache.usable:  # the pre-capture key: a hit skips capture too
            start = time.perf_counter()
            prekey = precapture_key(model, args, kwargs, options, optimizer, training, name)
            timings["key"] = time.perf_counter() - start
            hit = load_precaptured(cache, prekey, model, replica_ranks) if prekey is not None else None
            if hit is not None:
                hit.timings["key"] = timings["key"]
                return hit
    start = time.perf_counter()
    context = make_context()
    if training:
        from ipu_mlir.compiler.frontend.training import capture_training

        _check_some_parameter_trains(model)
        captured = capture_training(model, args, kwargs, context, anchors=[name for name, _, _ in options.anchors],
                                    timings=timings)
        _check_trainable(model, captured)
    else:
        from ipu_mlir.compiler.frontend.capture import capture_inference  # here: a cache hit needs no torch.export

        captured = capture_inference(model, args, kwargs, context, anchors=[name for name, _, _ in options.anchors],
                                     timings=timings)
    timings["capture"] = time.perf_counter() - start

    start = time.perf_counter()
    module = captured.module
    if optimizer is not None:
        func = module.body.operations[0]
        with context, ir.Location.unknown(context):
            func.attributes[OPTIMIZER_ATTR] = optimizer.attribute()
    _attach_strategy(module, options, training=training)
    _attach_replica_groups(module, options)
    _attach_tensor_locations(module, options)
    _attach_anchor_modes(module, options, captured.tensor_names)
    if prekey is not None and not _storable(captured, training, name):
        prekey = None
    if cache is not None and cache.usable and prekey is None:  # the post-capture key
        from .cache import cache_key

        key = cache_key(module, options, captured.inputs, training)
    cached = cache.get(key) if key is not None else None
    if cached is not None:
        timings["passes"] = time.perf_counter() - start
        start = time.perf_counter()
        module = cached.module(context)
        program = load_program(_graph_of(module), replica_ranks)
        timings["decode"], timings["cached"] = time.perf_counter() - start, 1.0
        return CompiledProgram(captured, cached, program, context, module, timings, cached.arguments, training)
    _run_passes(module, options, training, name, _state_anchors(options, captured.tensor_names), timings)
    timings["passes"] = time.perf_counter() - start

    start = time.perf_counter()
    graph = _graph_of(module)
    interface = interface_of(graph)  # streams, host-provided variables and entry functions, as poplar-build-program named them
    if interface is None:
        raise RuntimeError("the compiled graph has no 'poplar.interface': the pipeline did not run poplar-build-program")
    metadata: dict[str, Any] = {
        "kind": "training" if training else "inference",
        "device_iterations": options.device_iterations,
        "output_mode": options.output_mode,
        "return_period": options.return_period,
        "target": options.target.to_dict(),
    }
    if optimizer is not None:
        metadata["optimizer"] = dataclasses.asdict(optimizer)
    else:
        metadata.update(inputs=[i.name for i in captured.inputs], outputs=len(captured.outputs),
                        input_updates=list(captured.layout.input_updates))  # streamed after the outputs
    metadata[INTERFACE_KEY] = interface.to_dict()
    metadata["tensor_names"] = list(captured.tensor_names)  # getTensorNames(), beside the graph's variables
    executable = Executable.from_module(module, metadata)
    if key is not None:
        cache.put(key, executable)
    timings["decode.artifact"] = time.perf_counter() - start
    program = load_program(graph, replica_ranks)
    timings["decode"] = time.perf_counter() - start
    compiled = CompiledProgram(captured, executable, program, context, module, timings, executable.arguments, training)
    if prekey is not None:
        from .executable_io import export_compiled

        cache.put_file(prekey, export_compiled(compiled))
    return compiled


def _storable(captured: Any, training: bool, name: str) -> bool:
    """Whether a cache entry can hold what the host needs of ``captured`` (its output
    structure and non-tensor outputs), so that a hit needs no capture; if not, the cache
    falls back to the post-capture key and logs why."""
    from .cache import logger
    from .executable_io import ExportError, host_record

    try:
        host_record(captured, training)
    except ExportError as error:
        logger.info("%s: the executable cache keys the captured program (capture runs on a hit): %s", name, error)
        return False
    return True


__all__ = ["CompileOptions", "CompiledProgram", "OptimizerDescription", "compile_program"]

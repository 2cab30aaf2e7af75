"""The compiler driver: model + example inputs -> executable + decoded runtime program.

``compile_inference`` chains the frontend capture, the inference pass pipeline and the
runtime decoder. It is what ``poptorch.inferenceModel`` calls on the first run, and what
``ipu_mlir.compile_inference`` exposes for direct use.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import torch
from torch_mlir import ir

from ipu_mlir.dialects import make_context
from ipu_mlir.dialects.ipu import STRATEGY_ATTR, strategy_attribute
from ipu_mlir.runtime.interpreter import Program
from ipu_mlir.artifact.schedule import ScheduleSummary, memory_report, summarize
from ipu_mlir.support.target import IpuTarget, default_target

from ipu_mlir.artifact.executable import Executable
from ipu_mlir.compiler.frontend.capture import CapturedProgram, capture_inference
from ipu_mlir.compiler.pass_pipeline import run_pipeline
from ipu_mlir.compiler.pipelines import inference_pipeline, training_pipeline


@dataclasses.dataclass
class CompileOptions:
    """What the inference pipeline needs to know.

    Arguments:
      device_iterations: iterations of the on-device loop per host call (D).
      output_mode: "all", "final", "sum" or "every_n".
      return_period: n of every_n.
      target: the emulated IPU (Mk2 by default).
      gradient_accumulation, reduction, strategy: training only (G, Mean/Sum, Post/Running).
      recompute: training only: pipelined stages recompute activations instead of stashing them.
    """

    device_iterations: int = 1
    output_mode: str = "all"
    return_period: int = 1
    target: IpuTarget = dataclasses.field(default_factory=default_target)
    gradient_accumulation: int = 1
    reduction: str = "mean"  # accumulated gradients: "mean" or "sum"
    strategy: str = "post"  # mean strategy: "post" or "running"
    auto_loss_scaling: bool = False
    # Pipelined training recomputes forward activations in the backward stages
    # (PopART's RecomputationType.Pipeline) instead of stashing them.
    recompute: bool = False
    # The execution strategy as ipu-assign-stages reads it (see its Strategy); None: the
    # default PipelinedExecution(AutoStage.SameAsIpu), which changes nothing without blocks.
    execution: dict[str, Any] | None = None


@dataclasses.dataclass
class CompiledModel:
    """A compiled model: its signature, the serializable executable and the decoded program."""

    captured: CapturedProgram
    executable: Executable
    program: Program
    context: ir.Context
    module: ir.Module
    timings: dict[str, float]

    def memory_per_ipu(self) -> dict[int, dict[str, int]]:
        return memory_report(_graph_of(self.module))

    def schedule(self) -> ScheduleSummary:
        return summarize(_graph_of(self.module))

    def ir_text(self) -> str:
        return self.module.operation.get_asm(print_generic_op_form=True)


def _attach_strategy(module: ir.Module, options: CompileOptions, training: bool) -> None:
    """Record the execution strategy on the function for ipu-assign-stages."""
    data = dict(options.execution or {"kind": "pipelined", "auto_stage": "same_as_ipu", "stages": []})
    data.update({
        "training": training,
        "device_iterations": options.device_iterations,
        "gradient_accumulation": options.gradient_accumulation,
    })
    data.setdefault("replication_factor", 1)
    data.setdefault("auto_round_num_ipus", False)
    func = module.body.operations[0]
    with module.context, ir.Location.unknown(module.context):
        func.attributes[STRATEGY_ATTR] = strategy_attribute(data)


def _graph_of(module: ir.Module) -> ir.Operation:
    for op in module.body.operations:
        if op.operation.name == "poplar.graph":
            return op.operation
    raise RuntimeError("the compiled module holds no poplar.graph")


def compile_inference(model: torch.nn.Module, args: tuple, kwargs: dict[str, Any], options: CompileOptions) -> CompiledModel:
    """Capture ``model(*args, **kwargs)`` (micro-batch inputs) and compile it for the IPU Model."""
    timings: dict[str, float] = {}
    start = time.perf_counter()
    context = make_context()
    captured = capture_inference(model, args, kwargs, context)
    timings["capture"] = time.perf_counter() - start

    start = time.perf_counter()
    _attach_strategy(captured.module, options, training=False)
    pipeline = "ipu-raise-custom-ops," + inference_pipeline(
        target=options.target,
        device_iterations=options.device_iterations,
        output_mode=options.output_mode,
        return_period=options.return_period,
    )
    run_pipeline(captured.module, pipeline, name=type(model).__name__)
    timings["passes"] = time.perf_counter() - start

    start = time.perf_counter()
    metadata = {
        "kind": "inference",
        "weights": [w.name for w in captured.weights],
        "inputs": [i.name for i in captured.inputs],
        "outputs": len(captured.outputs),
        "device_iterations": options.device_iterations,
        "output_mode": options.output_mode,
        "return_period": options.return_period,
        "target": options.target.to_dict(),
    }
    executable = Executable.from_module(captured.module, metadata)
    program = Program(_graph_of(captured.module))
    timings["decode"] = time.perf_counter() - start
    return CompiledModel(captured, executable, program, context, captured.module, timings)


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
        def value(v: Any) -> ir.Attribute:
            if isinstance(v, bool):
                return ir.BoolAttr.get(v)
            if isinstance(v, int):
                return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), v)
            if isinstance(v, float):
                return ir.FloatAttr.get(ir.F64Type.get(), v)
            return ir.StringAttr.get(str(v))

        entries = {
            "type": ir.StringAttr.get(self.type),
            "flags": ir.DictAttr.get({k: value(v) for k, v in self.flags.items()}),
            "groups": value(self.groups),
            "param_groups": ir.DictAttr.get({k: value(v) for k, v in self.param_groups.items()}),
            "constants": ir.DictAttr.get({k: value(float(v)) for k, v in self.constants.items()}),
        }
        if self.max_grad_norm is not None:
            entries["max_grad_norm"] = value(float(self.max_grad_norm))
        return ir.DictAttr.get(entries)


@dataclasses.dataclass
class CompiledTraining:
    """A compiled training step: the joint capture's roles, the executable and the program."""

    captured: Any  # compiler.frontend.training.TrainingCapture
    executable: Executable
    program: Program
    context: ir.Context
    module: ir.Module
    timings: dict[str, float]
    arguments: list[tuple[str, str]]  # (kind, name) of the step function's arguments after training insertion

    memory_per_ipu = CompiledModel.memory_per_ipu
    schedule = CompiledModel.schedule
    ir_text = CompiledModel.ir_text


def compile_training(model: torch.nn.Module, args: tuple, kwargs: dict[str, Any], options: CompileOptions,
                     optimizer: OptimizerDescription) -> CompiledTraining:
    """Capture the joint forward + backward of ``model(*args, **kwargs)`` and compile a training step."""
    from ipu_mlir.compiler.frontend.training import capture_training

    timings: dict[str, float] = {}
    start = time.perf_counter()
    context = make_context()
    captured = capture_training(model, args, kwargs, context)
    timings["capture"] = time.perf_counter() - start

    start = time.perf_counter()
    func = captured.module.body.operations[0]
    with context, ir.Location.unknown(context):
        func.attributes["ipu.optimizer"] = optimizer.attribute()
    _attach_strategy(captured.module, options, training=True)
    pipeline = training_pipeline(
        target=options.target,
        device_iterations=options.device_iterations,
        output_mode=options.output_mode,
        return_period=options.return_period,
        gradient_accumulation=options.gradient_accumulation,
        reduction=options.reduction,
        strategy=options.strategy,
        auto_loss_scaling=options.auto_loss_scaling,
        recompute=options.recompute,
    )
    # The argument roles after ipu-insert-training, read before poplar-build-program
    # consumes the function: run the pipeline in two parts.
    split = pipeline.index("poplar-build-program")
    run_pipeline(captured.module, pipeline[:split].rstrip(","), name=type(model).__name__)
    arguments: list[tuple[str, str]] = []
    for func in captured.module.body.operations:  # @main, and @update with gradient accumulation
        for attr in ir.ArrayAttr(func.attributes["arg_attrs"]):
            entry = ir.DictAttr(attr)
            role = (ir.StringAttr(entry["ipu.kind"]).value, ir.StringAttr(entry["ipu.name"]).value)
            if role not in arguments:
                arguments.append(role)
    run_pipeline(captured.module, pipeline[split:], name=type(model).__name__)
    timings["passes"] = time.perf_counter() - start

    start = time.perf_counter()
    metadata = {
        "kind": "training",
        "arguments": arguments,
        "device_iterations": options.device_iterations,
        "output_mode": options.output_mode,
        "optimizer": dataclasses.asdict(optimizer),
        "target": options.target.to_dict(),
    }
    executable = Executable.from_module(captured.module, metadata)
    program = Program(_graph_of(captured.module))
    timings["decode"] = time.perf_counter() - start
    return CompiledTraining(captured, executable, program, context, captured.module, timings, arguments)

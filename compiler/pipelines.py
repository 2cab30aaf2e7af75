"""The compile pipeline: which passes run, in which order, with which typed options.

A pipeline is a list of pass objects (``BuildProgram(device_iterations=4)``) and MLIR
passes (``MlirPass("canonicalize")``); :func:`ipu_mlir.compiler.pass_pipeline.pipeline_text`
prints it as the text ``ipu-opt -p`` takes, for reproducers. One function builds the
inference and the training pipeline; the comments say why each step is there.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ipu_mlir.support.target import IpuTarget, default_target

from .pass_base import MlirPass, ModulePass

PipelineStep = ModulePass | MlirPass


@dataclasses.dataclass(frozen=True)
class CompileOptions:
    """Everything that changes what the compiler produces (and only that).

    Arguments:
      device_iterations: iterations of the on-device loop per host call (D).
      output_mode: "all", "final", "sum" or "every_n".
      return_period: n of every_n.
      target: the emulated IPU (Mk2 by default, or ``IPU_MLIR_TARGET``).
      gradient_accumulation: training only: micro-batches per weight update (G).
      reduction: training only: accumulated gradients are the "mean" or the "sum".
      strategy: training only: the mean is taken "post" accumulation or "running".
      auto_loss_scaling: training only: adapt the loss scale to gradient overflow.
      recompute: training only: pipelined stages recompute forward activations
        (PopART's RecomputationType.Pipeline) instead of stashing them.
      execution: the execution strategy as ``ipu-assign-stages`` reads it; None is the
        default PipelinedExecution(AutoStage.SameAsIpu), which changes nothing without blocks.
      io_tiles: tiles of each IPU set aside for overlapped host I/O (TensorLocations.numIOTiles).
      available_memory: the available memory proportion of each IPU's matmuls and convolutions
        by IPU number (setAvailableMemoryProportion; () for PopLibs' 0.6).
      partials_type: "float" or "half", the partials of matmuls and convolutions
        (Precision.setPartialsType; "" for PopLibs' default, float).
      floating_point_exceptions: what the engine raises on ("invalid", "divide_by_zero",
        "overflow"; Precision.enableFloatingPointExceptions / setFloatingPointBehaviour).
      replication_factor: replicas of the graph in all processes (the graph's
        replication_factor; training reduces gradients across them).
      replica_groups: parameter name -> (#poplar.comm_group kind, size) of a weight whose
        replica groups hold their own values (param.replicaGrouping); the driver writes it
        on the parameter's argument (``ipu.replica_group``), where ipu-insert-training
        reads it. Other weights are one value over all replicas.
      broadcast_buffers: with replicas, every replica takes replica 0's buffers after each
        update (BatchNorm statistics stay in sync, Options.broadcastBuffers).
      tensor_locations: where each tensor class lives (Options.TensorLocations): "weight",
        "optimizer", "accumulator", "activation" -> TensorLocationSettings.to_dict(); the
        driver writes them on the module (#poplar.tensor_locations) for poplar-place-tensors.
      anchors: the tensors Options.anchorTensor keeps, (name, output mode, return period)
        each, once; the frontend returns each tensor of the captured graph so named as a result
        with role "anchor", the driver writes its #ipu.output_mode, poplar-build-program streams it.
    """

    device_iterations: int = 1
    output_mode: str = "all"
    return_period: int = 1
    target: IpuTarget = dataclasses.field(default_factory=default_target)
    gradient_accumulation: int = 1
    reduction: str = "mean"
    strategy: str = "post"
    state_types: tuple[str, ...] = ()  # "<state>:<dtype>": optimizer state / accumulator dtypes (accum_type & co.)
    auto_loss_scaling: bool = False
    recompute: bool = False
    execution: Any = None
    io_tiles: int = 0
    available_memory: tuple[float, ...] = ()
    partials_type: str = ""
    floating_point_exceptions: tuple[str, ...] = ()
    replication_factor: int = 1
    replica_groups: dict[str, tuple[str, int]] = dataclasses.field(default_factory=dict)
    broadcast_buffers: bool = True
    tensor_locations: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    anchors: tuple[tuple[str, str, int], ...] = ()


def compile_pipeline(options: CompileOptions, *, training: bool) -> list[PipelineStep]:
    """Torch dialect as imported -> a tile-mapped, memory-planned ``poplar.graph``."""
    # The passes are imported here, not with CompileOptions: a process that loads a cached
    # executable builds CompileOptions but runs no pass.
    from .transforms.convert_ipu_to_poplar import ConvertIpuToPoplar
    from .transforms.convert_torch_to_poplar import ConvertTorchToPoplar
    from .transforms.ipu_annotate_blocks import AnnotateBlocks
    from .transforms.ipu_assign_stages import AssignStages
    from .transforms.ipu_insert_training import InsertTraining
    from .transforms.ipu_raise_custom_ops import RaiseCustomOps
    from .transforms.pipeline_schedule import PipelineSchedule
    from .transforms.poplar_build_program import BuildProgram
    from .transforms.poplar_estimate_cycles import EstimateCycles
    from .transforms.poplar_fuse_elementwise import FuseElementwise
    from .transforms.poplar_fuse_linear import FuseLinear
    from .transforms.poplar_map_tiles import MapTiles
    from .transforms.poplar_place_tensors import PlaceTensors
    from .transforms.poplar_plan_in_place import PlanInPlace
    from .transforms.poplar_plan_memory import PlanMemory
    from .transforms.poplar_share_buffers import ShareBuffers
    from .transforms.poplar_share_pool_indices import SharePoolIndices

    target = options.target
    steps: list[PipelineStep] = [
        # poptorch:: custom ops -> ipu ops (identity_loss, print_tensor, ...).
        RaiseCustomOps(),
        # Block metadata from locations -> ipu.block attributes, read by later passes.
        AnnotateBlocks(),
        # Blocks + execution strategy -> pipeline stage and IPU of every op (rule checks).
        AssignStages(),
    ]
    if training:
        # Loss scale as the backward seed; one optimizer update op per parameter
        # (with G > 1: gradient accumulators and an @update function).
        steps.append(InsertTraining(gradient_accumulation=options.gradient_accumulation, reduction=options.reduction,
                                    strategy=options.strategy, auto_loss_scaling=options.auto_loss_scaling,
                                    replication_factor=options.replication_factor,
                                    broadcast_buffers=options.broadcast_buffers, state_types=options.state_types))
    steps += [
        # Compute ops -> popops / poplin / popnn (training: dropout draws masks); fails
        # listing every unsupported op.
        ConvertTorchToPoplar(training=training),
        # Training: the optimizer updates and gradient accumulation it kept -> poplar ops.
        *([ConvertIpuToPoplar()] if training else []),
        # Drop dead values (e.g. unused list constants) and merge duplicate constants.
        MlirPass("canonicalize"),
        MlirPass("cse"),
        # The graph: variables, host streams, the device loop and the output mode.
        BuildProgram(device_iterations=options.device_iterations,
                     gradient_accumulation=options.gradient_accumulation if training else 1,
                     output_mode=options.output_mode, return_period=options.return_period,
                     tiles_per_ipu=target.tiles_per_ipu, replication_factor=options.replication_factor,
                     floating_point_exceptions=options.floating_point_exceptions),
        # Every op of a multi-IPU step gets its pipeline stage (checked stage order); a
        # pipelined step becomes pipeline.stage regions joined by send/recv and
        # stash/restore of activations (or their recomputation).
        PipelineSchedule(recompute=options.recompute and training, device_iterations=options.device_iterations,
                         gradient_accumulation=options.gradient_accumulation if training else 0),
        # Variables of off-chip tensor classes (Options.TensorLocations) move to remote
        # buffers, loaded before use and stored after update; before the memory plan,
        # which counts them on chip only while loaded.
        PlaceTensors(io_tiles=options.io_tiles),
        # Tile mapping, then memory per IPU from sizes and liveness (compile error if too big).
        MapTiles(tiles_per_ipu=target.tiles_per_ipu, min_bytes_per_tile=target.min_bytes_per_tile),
        PlanMemory(bytes_per_tile=target.bytes_per_tile, tiles_per_ipu=target.tiles_per_ipu, io_tiles=options.io_tiles,
                   available_memory=options.available_memory, partials_type=options.partials_type),
        # How the IPU Model executes the program, in the IR: linear layers as one op,
        # variable updates in place, a max pool's argmax kept for its gradient, copies
        # whose destination takes the source's buffer. They run after the memory plan,
        # which stays the plan of the ops as lowered (it does not count the bias-add and
        # update results these passes save, the kept indices, nor the copies shared).
        FuseLinear(),
        PlanInPlace(),
        SharePoolIndices(),
        # After poplar-plan-in-place, which erases the copies of in-place updates.
        ShareBuffers(),
        # Chains of element-wise ops -> one popops_map each (run without materialising
        # intermediates); after poplar-fuse-linear (a bias add fused here would no longer
        # be a linear layer's) and poplar-plan-in-place (an update expression grown here
        # would no longer run in place).
        FuseElementwise(),
        # Estimated cycles of every op and program step, and of one host call, from the
        # target's numbers (the cost model behind cycleCount, the latencies and the report).
        EstimateCycles(target=target.name, io_tiles=options.io_tiles),
    ]
    return steps


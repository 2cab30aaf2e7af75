"""Named pass pipelines: the order in which the compiler runs its passes.

Each pipeline is a textual pipeline for ``ipu-opt -p`` and ``run_pipeline``; the
comments say why each step is there.
"""

from __future__ import annotations

from ipu_mlir.support.target import IpuTarget


def inference_pipeline(
    *,
    target: IpuTarget,
    device_iterations: int,
    output_mode: str,
    return_period: int,
    replication_factor: int = 1,
    num_ipus: int = 1,
) -> str:
    """Torch dialect (as imported) -> tile-mapped, memory-planned poplar.graph."""
    steps = [
        # Block metadata from locations -> ipu.block attributes, read by later passes.
        "ipu-annotate-blocks",
        # Blocks + execution strategy -> pipeline stage and IPU of every op (rule checks).
        "ipu-assign-stages",
        # Compute ops -> popops / poplin / popnn; fails listing every unsupported op.
        "convert-torch-to-poplar",
        # Drop dead values (e.g. unused list constants) and merge duplicate constants.
        "canonicalize",
        "cse",
        # The graph: variables, host streams, the device loop and the output mode.
        (
            f"poplar-build-program{{device-iterations={device_iterations} output-mode={output_mode} "
            f"return-period={return_period} replication-factor={replication_factor} num-ipus={num_ipus} "
            f"tiles-per-ipu={target.tiles_per_ipu}}}"
        ),
        # Every op of a multi-IPU step gets its pipeline stage (checked stage order); a
        # pipelined step becomes pipeline.stage regions joined by send/recv and stash/restore.
        f"pipeline-schedule{{device-iterations={device_iterations}}}",
        # Tile mapping, then memory per IPU from sizes and liveness (compile error if too big).
        f"poplar-map-tiles{{tiles-per-ipu={target.tiles_per_ipu} min-bytes-per-tile={target.min_bytes_per_tile}}}",
        f"poplar-plan-memory{{bytes-per-tile={target.bytes_per_tile} tiles-per-ipu={target.tiles_per_ipu}}}",
    ]
    return ",".join(steps)


def training_pipeline(
    *,
    target: IpuTarget,
    device_iterations: int,
    output_mode: str,
    return_period: int,
    gradient_accumulation: int = 1,
    reduction: str = "mean",
    strategy: str = "post",
    auto_loss_scaling: bool = False,
    recompute: bool = False,
) -> str:
    """Joint forward + backward Torch function -> training step in a poplar.graph."""
    steps = [
        # poptorch:: custom ops -> ipu ops (identity_loss, print_tensor, ...).
        "ipu-raise-custom-ops",
        "ipu-annotate-blocks",
        "ipu-assign-stages",
        # Loss scale as the backward seed; one optimizer update op per parameter
        # (with G > 1: gradient accumulators and an @update function).
        f"ipu-insert-training{{gradient-accumulation={gradient_accumulation} reduction={reduction} strategy={strategy} "
        f"auto-loss-scaling={'true' if auto_loss_scaling else 'false'}}}",
        # Forward, backward and update ops -> poplar ops; dropout draws masks.
        "convert-torch-to-poplar{training=true}",
        "canonicalize",
        "cse",
        (
            f"poplar-build-program{{device-iterations={device_iterations} gradient-accumulation={gradient_accumulation} "
            f"output-mode={output_mode} return-period={return_period} tiles-per-ipu={target.tiles_per_ipu}}}"
        ),
        # Stage regions, send/recv, stash/restore of activations (or their recomputation).
        (
            f"pipeline-schedule{{recompute={str(recompute).lower()} device-iterations={device_iterations} "
            f"gradient-accumulation={gradient_accumulation}}}"
        ),
        f"poplar-map-tiles{{tiles-per-ipu={target.tiles_per_ipu} min-bytes-per-tile={target.min_bytes_per_tile}}}",
        f"poplar-plan-memory{{bytes-per-tile={target.bytes_per_tile} tiles-per-ipu={target.tiles_per_ipu}}}",
    ]
    return ",".join(steps)

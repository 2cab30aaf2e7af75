"""Names shared by the multi-IPU passes and the runtime: the attributes that carry an
op's pipeline stage and IPU and a function's pipeline plan, the program ops that only
move data, and which variables hold one micro-batch's data."""

from __future__ import annotations

from torch_mlir import ir

STAGE_ATTR = "pipeline.stage"  # i64 on an op: its pipeline stage (ipu-assign-stages, pipeline-schedule)
IPU_ATTR = "pipeline.ipu"  # i64 on an op: the IPU running it (ipu-assign-stages, poplar-build-program)
# i64 array on an op: the results poptorch.recomputationCheckpoint keeps (stashed, never
# recomputed) when pipelined training recomputes activations.
CHECKPOINT_ATTR = "pipeline.checkpoint"
PLAN_ATTR = "pipeline.plan"  # dict on a function: the strategy kind, forward stages, stage IPUs
# Program ops that move data instead of computing: they run where their data is.
DATA_MOVES = ("poplar.program_copy", "poplar.program_stream_copy", "poplar.program_sync")


def holds_one_micro_batch(kind: str, name: str) -> bool:
    """Whether a ``poplar.variable`` of this kind and name carries one micro-batch's
    data (an input, an inter-IPU exchange buffer, an output anchor) rather than state
    that outlives a micro-batch (weights, accumulators, optimizer state, scalars)."""
    return kind in ("input", "activation") or name.startswith("anchor.")


def ipu_of(op: ir.Operation) -> int:
    """The IPU an op runs on or a variable or constant lives on: its ``ipu`` attribute
    (variables, constants) or ``pipeline.ipu`` (compute ops, ipu-assign-stages and
    poplar-build-program), else IPU 0."""
    for key in ("ipu", IPU_ATTR):
        if key in op.attributes:
            return ir.IntegerAttr(op.attributes[key]).value
    return 0

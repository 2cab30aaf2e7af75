"""Names shared by the multi-IPU passes and the runtime: the attributes that carry an
op's pipeline stage and IPU and a function's pipeline plan (``#pipeline.plan``, declared
with its reader in ``pipeline.py``), and the program ops that only move data."""

from __future__ import annotations

from torch_mlir import ir

STAGE_ATTR = "pipeline.stage"  # i64 on an op: its pipeline stage (ipu-assign-stages, pipeline-schedule)
IPU_ATTR = "pipeline.ipu"  # i64 on an op: the IPU running it (ipu-assign-stages, poplar-build-program)
# i64 array on an op: the results poptorch.recomputationCheckpoint keeps (stashed, never
# recomputed) when pipelined training recomputes activations.
CHECKPOINT_ATTR = "pipeline.checkpoint"
PLAN_ATTR = "pipeline.plan"  # #pipeline.plan on a step function: schedule kind, stages, IPUs (pipeline.Plan)
# Program ops that move data instead of computing: they run where their data is.
DATA_MOVES = ("poplar.program_copy", "poplar.program_stream_copy", "poplar.program_sync")


def ipu_of(op: ir.Operation) -> int:
    """The IPU an op runs on or a variable or constant lives on: its ``ipu`` attribute
    (variables, constants) or ``pipeline.ipu`` (compute ops, ipu-assign-stages and
    poplar-build-program), else IPU 0."""
    for key in ("ipu", IPU_ATTR):
        if key in op.attributes:
            return ir.IntegerAttr(op.attributes[key]).value
    return 0

"""The ``pipeline`` dialect: stages, phases and schedules over several IPUs.

``ipu-assign-stages`` groups ops into ``pipeline.stage`` regions (one IPU each) inside a
``pipeline.schedule``; ``pipeline-schedule`` then makes the inter-IPU data movement
explicit (``send``/``recv``, ``stash``/``restore``, ``remote_store``/``remote_load``)
before ``convert-torch-to-poplar`` and ``poplar-build-program`` lower it further.
"""

from collections.abc import Sequence
from typing import Any

from torch_mlir import ir
from torch_mlir.dialects import ext

from ._base import Rules, verify_with_rules


class Pipeline(ext.Dialect, name="pipeline"):
    pass


class PipelineOp(Pipeline.Operation):
    """Base of every ``pipeline`` op: runs the op's ``check`` rules as its verifier."""

    def verify_invariants(self) -> bool:
        return verify_with_rules(self, self.check)

    def check(self, v: Rules) -> None:  # pragma: no cover - overridden
        pass


SCHEDULE_KINDS = ("sharded", "pipelined", "phased_serial", "phased_parallel")


def _check_yield_matches(v: Rules, op: ir.OpView) -> None:
    """The op has one body region whose terminator yields values of the op's result types."""
    regions = list(op.operation.regions)
    v.require(len(regions) == 1, f"expects one body region, got {len(regions)}")
    blocks = list(regions[0].blocks)
    v.require(len(blocks) == 1, f"expects a body region with one block, got {len(blocks)}")
    ops = list(blocks[0].operations)
    v.require(bool(ops) and ops[-1].operation.name == "pipeline.yield", "body must end with 'pipeline.yield'")
    yielded = [value.type for value in ops[-1].operation.operands]
    results = [value.type for value in op.operation.results]
    v.require(
        yielded == results,
        f"yields ({', '.join(map(str, yielded))}) but the op returns ({', '.join(map(str, results))})",
    )


def _check_ipus(v: Rules, src: str, dst: str) -> None:
    a, b = v.int(src, min=0), v.int(dst, min=0)
    v.require(a != b, f"'{src}' and '{dst}' must differ for an inter-IPU copy, both are {a}")


class ScheduleOp(PipelineOp, name="schedule"):
    """The execution strategy of a multi-IPU program and the stages it runs.

    Semantics: ``kind`` is ``"sharded"`` (stages in order, one IPU busy at a time),
    ``"pipelined"`` (stages overlap on successive micro-batches: ramp-up, steady state,
    ramp-down), ``"phased_serial"`` or ``"phased_parallel"``. ``num_stages`` counts all
    stages (2p - 1 for pipelined training with p forward stages), ``num_ipus`` the IPUs
    of one replica. A pipelined schedule needs ``device_iterations >= num_stages`` for
    inference and ``gradient_accumulation >= num_stages`` for training.

    Example:
      %r = "pipeline.schedule"(%x) ({ ... "pipeline.yield"(%y) : (tensor<4xf32>) -> () })
             {kind = "pipelined", num_stages = 2 : i64, num_ipus = 2 : i64, training = false,
              device_iterations = 4 : i64, gradient_accumulation = 1 : i64}
             : (tensor<4xf32>) -> tensor<4xf32>
    """

    inputs: Sequence[ext.Operand[Any]]
    kind: ir.StringAttr
    num_stages: ir.IntegerAttr
    num_ipus: ir.IntegerAttr
    training: ir.IntegerAttr
    device_iterations: ir.IntegerAttr
    gradient_accumulation: ir.IntegerAttr
    outputs: Sequence[ext.Result[Any]]
    body: ext.Region

    def check(self, v: Rules) -> None:
        kind = v.string("kind", choices=SCHEDULE_KINDS)
        stages = v.int("num_stages", min=1)
        ipus = v.int("num_ipus", min=1, max=64)
        v.require(ipus & (ipus - 1) == 0, f"attribute 'num_ipus' must be a power of 2, got {ipus}")
        training = v.bool("training")
        iterations = v.int("device_iterations", min=1)
        accumulation = v.int("gradient_accumulation", min=1)
        v.require(training or accumulation == 1, f"gradient_accumulation must be 1 for inference, got {accumulation}")
        if kind == "pipelined" and training:
            v.require(
                accumulation >= stages,
                f"pipelined training over {stages} stages needs gradient_accumulation >= {stages}, got {accumulation}",
            )
        if kind == "pipelined" and not training:
            v.require(
                iterations >= stages,
                f"pipelined inference over {stages} stages needs device_iterations >= {stages}, got {iterations}",
            )
        _check_yield_matches(v, self)


class StageOp(PipelineOp, name="stage"):
    """A region of the model run on one IPU as one pipeline stage.

    Semantics: ``stage_id`` (>= 0) orders stages; ``ipu_id`` (>= 0) is the IPU
    running it. Values enter as operands and leave through ``pipeline.yield``. Must be
    nested in a ``pipeline.schedule`` or a ``pipeline.phase``.

    Example:
      %h = "pipeline.stage"(%x) ({ ... "pipeline.yield"(%y) : (tensor<4xf32>) -> () })
             {stage_id = 0 : i64, ipu_id = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    """

    inputs: Sequence[ext.Operand[Any]]
    stage_id: ir.IntegerAttr
    ipu_id: ir.IntegerAttr
    outputs: Sequence[ext.Result[Any]]
    body: ext.Region

    def check(self, v: Rules) -> None:
        v.int("stage_id", min=0)
        v.int("ipu_id", min=0)
        parent = self.operation.parent
        parent_name = parent.name if parent is not None else None
        v.require(
            parent_name in ("pipeline.schedule", "pipeline.phase"),
            f"must be nested in 'pipeline.schedule' or 'pipeline.phase', got {parent_name or 'no parent'}",
        )
        _check_yield_matches(v, self)


class PhaseOp(PipelineOp, name="phase"):
    """A phase of phased execution: stages that run in parallel on their IPUs.

    Semantics: ``phase_id`` (>= 0) orders phases; tensors crossing a phase boundary go
    through streaming memory or a direct IPU-to-IPU copy. Must be nested in a
    phased ``pipeline.schedule``.

    Example:
      %h = "pipeline.phase"(%x) ({ ... }) {phase_id = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    """

    inputs: Sequence[ext.Operand[Any]]
    phase_id: ir.IntegerAttr
    outputs: Sequence[ext.Result[Any]]
    body: ext.Region

    def check(self, v: Rules) -> None:
        v.int("phase_id", min=0)
        parent = self.operation.parent
        # The parent's own verifier checks its 'kind'; here a missing or non-string kind
        # only means "not phased" (reading it blindly would raise instead of diagnosing).
        kind = parent.attributes["kind"] if parent is not None and "kind" in parent.attributes else None
        is_phased = (
            parent is not None
            and parent.name == "pipeline.schedule"
            and isinstance(kind, ir.StringAttr)
            and ir.StringAttr(kind).value.startswith("phased")
        )
        v.require(is_phased, "must be nested in a phased 'pipeline.schedule'")
        _check_yield_matches(v, self)


class YieldOp(PipelineOp, name="yield", traits=[ext.Pure]):
    """Terminator of ``pipeline.schedule``, ``pipeline.stage`` and ``pipeline.phase``:
    returns the region's values to the enclosing op.

    Example:
      "pipeline.yield"(%y) : (tensor<4xf32>) -> ()
    """

    values: Sequence[ext.Operand[Any]]

    PARENTS = ("pipeline.schedule", "pipeline.stage", "pipeline.phase")

    def check(self, v: Rules) -> None:
        parent = self.operation.parent
        parent_name = parent.name if parent is not None else None
        v.require(
            parent_name in self.PARENTS,
            "must terminate a 'pipeline.schedule', 'pipeline.stage' or 'pipeline.phase' body, "
            f"got {parent_name or 'no parent'}",
        )


class SendOp(PipelineOp, name="send"):
    """Sends a tensor from IPU ``src_ipu`` to ``dst_ipu`` over ``channel``.

    Semantics: paired with the ``pipeline.recv`` of the same channel; lowered to a
    ``poplar.program_copy`` between the two IPUs' tensors.

    Example:
      "pipeline.send"(%x) {channel = "s0_to_s1", src_ipu = 0 : i64, dst_ipu = 1 : i64} : (tensor<4xf32>) -> ()
    """

    value: ext.Operand[Any]
    channel: ir.StringAttr
    src_ipu: ir.IntegerAttr
    dst_ipu: ir.IntegerAttr

    def check(self, v: Rules) -> None:
        v.string("channel", nonempty=True)
        _check_ipus(v, "src_ipu", "dst_ipu")


class RecvOp(PipelineOp, name="recv"):
    """Receives on ``dst_ipu`` the tensor sent by ``src_ipu`` over ``channel``.

    Example:
      %y = "pipeline.recv"() {channel = "s0_to_s1", src_ipu = 0 : i64, dst_ipu = 1 : i64} : () -> tensor<4xf32>
    """

    channel: ir.StringAttr
    src_ipu: ir.IntegerAttr
    dst_ipu: ir.IntegerAttr
    value: ext.Result[Any]

    def check(self, v: Rules) -> None:
        v.string("channel", nonempty=True)
        _check_ipus(v, "src_ipu", "dst_ipu")


class StashOp(PipelineOp, name="stash"):
    """Keeps a forward activation of a micro-batch until its backward stage runs.

    Semantics: a FIFO of ``depth`` (>= 1) entries named ``stash_id``; each forward
    execution pushes, each ``pipeline.restore`` of the same id pops the oldest.

    Example:
      "pipeline.stash"(%act) {stash_id = "s0.act0", depth = 3 : i64} : (tensor<4xf32>) -> ()
    """

    value: ext.Operand[Any]
    stash_id: ir.StringAttr
    depth: ir.IntegerAttr

    def check(self, v: Rules) -> None:
        v.string("stash_id", nonempty=True)
        v.int("depth", min=1)


class RestoreOp(PipelineOp, name="restore"):
    """Pops the oldest value of stash ``stash_id`` for the backward stage.

    Example:
      %act = "pipeline.restore"() {stash_id = "s0.act0", depth = 3 : i64} : () -> tensor<4xf32>
    """

    stash_id: ir.StringAttr
    depth: ir.IntegerAttr
    value: ext.Result[Any]

    def check(self, v: Rules) -> None:
        v.string("stash_id", nonempty=True)
        v.int("depth", min=1)


class RemoteStoreOp(PipelineOp, name="remote_store"):
    """Writes a tensor from IPU ``ipu_id`` to streaming memory ``buffer`` (off-chip).

    Example:
      "pipeline.remote_store"(%w) {buffer = "fc1.weight", ipu_id = 0 : i64} : (tensor<4xf32>) -> ()
    """

    value: ext.Operand[Any]
    buffer: ir.StringAttr
    ipu_id: ir.IntegerAttr

    def check(self, v: Rules) -> None:
        v.string("buffer", nonempty=True)
        v.int("ipu_id", min=0)


class RemoteLoadOp(PipelineOp, name="remote_load"):
    """Reads streaming memory ``buffer`` onto IPU ``ipu_id``.

    Example:
      %w = "pipeline.remote_load"() {buffer = "fc1.weight", ipu_id = 0 : i64} : () -> tensor<4xf32>
    """

    buffer: ir.StringAttr
    ipu_id: ir.IntegerAttr
    value: ext.Result[Any]

    def check(self, v: Rules) -> None:
        v.string("buffer", nonempty=True)
        v.int("ipu_id", min=0)


def register_traits() -> None:
    """Attach the traits ``ext`` cannot declare: the region terminator."""
    ir.IsTerminatorTrait.attach("pipeline.yield")

"""The ``pipeline`` dialect: stages, phases and schedules over several IPUs.

A ``pipeline.schedule`` holds ``pipeline.stage`` regions (one IPU each) that exchange
values through ``send``/``recv`` (different IPUs), ``stash``/``restore`` (same IPU, later
stage) and ``remote_store``/``remote_load`` (streaming memory). ``ipu-assign-stages``
gives every op its stage and IPU as attributes; ``pipeline-schedule`` builds the
schedule of a pipelined step function over poplar ops (after ``poplar-build-program``),
which the memory plan and the IPU Model read. (ARCHITECTURE places the schedule before
``convert-torch-to-poplar``; it is built on the poplar step instead, where the compiler's
own copies, accumulations and write-backs already exist and can be staged too.)

The ``#pipeline.plan`` attribute carries the stage plan from ``ipu-assign-stages`` to
``poplar-build-program``, ``pipeline-schedule``, ``poplar-plan-memory`` and the IPU Model
(builder :meth:`Plan.attr`, checked reader :func:`plan_of`).
"""

import dataclasses
from collections.abc import Sequence
from typing import Any, Self

from torch_mlir import ir
from torch_mlir.dialects import ext

from ipu_mlir.support.ir_build import i64, string

from ._base import I64ArrayAttr, Rules, verify_with_rules
from .enums import DialectEnum
from .pipeline_attrs import PLAN_ATTR


class Pipeline(ext.Dialect, name="pipeline"):
    pass


class PipelineOp(Pipeline.Operation):
    """Base of every ``pipeline`` op: runs the op's ``check`` rules as its verifier."""

    def verify_invariants(self) -> bool:
        return verify_with_rules(self, self.check)

    def check(self, v: Rules) -> None:  # pragma: no cover - overridden
        pass


class ScheduleKind(DialectEnum):
    """How the stages of a multi-IPU program run (``pipeline.schedule``, ``#pipeline.plan``)."""

    SHARDED = "sharded"  # stages in order, one IPU busy at a time
    PIPELINED = "pipelined"  # stages overlap on successive micro-batches
    PHASED_SERIAL = "phased_serial"
    PHASED_PARALLEL = "phased_parallel"

    @property
    def is_phased(self) -> bool:
        return self in (ScheduleKind.PHASED_SERIAL, ScheduleKind.PHASED_PARALLEL)


class Liveness(DialectEnum):
    """Where tensors crossing a phase boundary stay (``poptorch.Liveness``; ``#pipeline.phases``)."""

    ALWAYS_LIVE = "always_live"  # on the IPU (an inter-IPU copy when the reader is on another IPU)
    OFF_CHIP_AFTER_FWD = "off_chip_after_fwd"  # forward values read by the backward pass go off chip
    OFF_CHIP_AFTER_FWD_NO_OVERLAP = "off_chip_after_fwd_no_overlap"  # the same, loads just before their reader
    OFF_CHIP_AFTER_EACH_PHASE = "off_chip_after_each_phase"  # every value read in a later phase goes off chip


PHASES_ATTR = "pipeline.phases"  # #pipeline.phases on a phased step function
PHASE_ATTR = "pipeline.phase"  # i64 on an op of a phased step: its phase (pipeline-schedule)


class PhasesAttr(Pipeline.Attribute, name="phases"):
    """The phases of a phased step: ``#pipeline.phases<"always_live", 2 : i64, array<i64: 0, 1, 3, 2>>``.

    Parameters: the tensors' :class:`Liveness`, the number of forward phases, and the
    phase of each stage of the ``#pipeline.plan`` (forward stages first, then the
    backward stage of each forward stage in reverse order). Backward phases follow
    SEMANTICS: forward phases 0, 1, 2 run backward as 4, 3, 2 (the last one shared), or
    6, 5, 4 with a separate backward phase. Set by ``ipu-assign-stages`` on the function
    and carried to the step by ``poplar-build-program``; read by ``pipeline-schedule``.
    """

    liveness: ir.StringAttr
    forward_phases: ir.IntegerAttr
    stage_phases: I64ArrayAttr


@dataclasses.dataclass(frozen=True)
class Phases:
    """What ``#pipeline.phases`` says, checked (see :class:`PhasesAttr`)."""

    liveness: Liveness
    forward_phases: int
    stage_phases: tuple[int, ...]

    def attr(self) -> PhasesAttr:
        return PhasesAttr.get(string(self.liveness.value), i64(self.forward_phases),
                              ir.DenseI64ArrayAttr.get(list(self.stage_phases)))

    @classmethod
    def from_attr(cls, attr: ir.Attribute) -> Self:
        where = f"'{PHASES_ATTR}'"
        if not isinstance(attr, PhasesAttr):
            raise ValueError(f"{where} must be a #pipeline.phases<liveness, forward_phases, stage_phases>, got {attr}")
        liveness = Liveness.parse(ir.StringAttr(attr.liveness).value, f"{where} liveness")
        forward = ir.IntegerAttr(attr.forward_phases).value
        stage_phases = tuple(ir.DenseI64ArrayAttr(attr.stage_phases))
        if forward < 1:
            raise ValueError(f"{where} forward_phases must be >= 1, got {forward}")
        if any(phase < 0 for phase in stage_phases):
            raise ValueError(f"{where} stage_phases must be >= 0, got {list(stage_phases)}")
        return cls(liveness, forward, stage_phases)


def phases_of(op: ir.Operation) -> Phases | None:
    """The op's ``#pipeline.phases`` (a phased step function's), or None; ValueError if malformed."""
    return Phases.from_attr(op.attributes[PHASES_ATTR]) if PHASES_ATTR in op.attributes else None


class PlanAttr(Pipeline.Attribute, name="plan"):
    """The stage plan of a step function: ``#pipeline.plan<"pipelined", 2 : i64, 3 : i64, 2 : i64, array<i64: 0, 1, 0>>``.

    Parameters: the schedule kind (:class:`ScheduleKind`), the forward stages p, all
    stages (2p - 1 for pipelined training, else p), the IPUs of one replica, and the IPU
    of each stage (``array<i64>`` until ``poplar-build-program`` fills it from the staged
    ops). Set on the ``func.func`` by ``ipu-assign-stages`` and on the ``poplar.function``
    of the step by ``poplar-build-program``, under ``pipeline.plan``.
    """

    kind: ir.StringAttr
    forward_stages: ir.IntegerAttr
    num_stages: ir.IntegerAttr
    num_ipus: ir.IntegerAttr
    stage_ipus: I64ArrayAttr


@dataclasses.dataclass(frozen=True)
class Plan:
    """What ``#pipeline.plan`` says, checked (see :class:`PlanAttr`)."""

    kind: ScheduleKind
    forward_stages: int
    num_stages: int
    num_ipus: int
    stage_ipus: tuple[int, ...] = ()  # empty until poplar-build-program places the stages

    @property
    def pipelined(self) -> bool:
        return self.kind == ScheduleKind.PIPELINED

    @property
    def training(self) -> bool:
        """Backward stages follow the forward ones."""
        return self.num_stages > self.forward_stages

    def with_stage_ipus(self, stage_ipus: Sequence[int]) -> Self:
        return dataclasses.replace(self, stage_ipus=tuple(stage_ipus))

    def attr(self) -> PlanAttr:
        return PlanAttr.get(string(self.kind.value), i64(self.forward_stages), i64(self.num_stages),
                            i64(self.num_ipus), ir.DenseI64ArrayAttr.get(list(self.stage_ipus)))

    @classmethod
    def from_attr(cls, attr: ir.Attribute) -> Self:
        where = f"'{PLAN_ATTR}'"
        if not isinstance(attr, PlanAttr):
            raise ValueError(f"{where} must be a #pipeline.plan<kind, forward_stages, num_stages, num_ipus, stage_ipus>, got {attr}")
        kind = ScheduleKind.parse(ir.StringAttr(attr.kind).value, f"{where} kind")
        forward, stages, ipus = (ir.IntegerAttr(getattr(attr, name)).value for name in ("forward_stages", "num_stages", "num_ipus"))
        stage_ipus = tuple(ir.DenseI64ArrayAttr(attr.stage_ipus))
        if forward < 1 or stages < forward:
            raise ValueError(f"{where} needs 1 <= forward_stages <= num_stages, got {forward} and {stages}")
        if ipus < 1:
            raise ValueError(f"{where} num_ipus must be >= 1, got {ipus}")
        if stage_ipus and len(stage_ipus) != stages:
            raise ValueError(f"{where} stage_ipus must be empty or name the IPU of each of the {stages} stages, got {list(stage_ipus)}")
        if any(not 0 <= ipu < ipus for ipu in stage_ipus):
            raise ValueError(f"{where} stage_ipus must be IPUs in [0, {ipus}), got {list(stage_ipus)}")
        return cls(kind, forward, stages, ipus, stage_ipus)


def plan_of(op: ir.Operation) -> Plan | None:
    """The op's ``#pipeline.plan`` (a step function's), or None without one; ValueError if malformed."""
    return Plan.from_attr(op.attributes[PLAN_ATTR]) if PLAN_ATTR in op.attributes else None


def set_plan(op: ir.Operation, plan: Plan) -> None:
    op.attributes[PLAN_ATTR] = plan.attr()


def _single_block_body(v: Rules, op: ir.OpView) -> list[ir.Operation]:
    """The ops of the op's one body region, which has one block."""
    regions = list(op.operation.regions)
    v.require(len(regions) == 1, f"expects one body region, got {len(regions)}")
    blocks = list(regions[0].blocks)
    v.require(len(blocks) == 1, f"expects a body region with one block, got {len(blocks)}")
    v.require(len(list(blocks[0].arguments)) == 0, "body block must have no arguments: values enter by capture or pipeline.recv")
    return [o.operation for o in blocks[0].operations]


def _enclosing(op: ir.Operation, name: str) -> ir.Operation | None:
    parent = op.parent
    while parent is not None and parent.name != name:
        parent = parent.parent
    return parent


def _check_ipus(v: Rules, src: str, dst: str) -> None:
    a, b = v.int(src, min=0), v.int(dst, min=0)
    v.require(a != b, f"'{src}' and '{dst}' must differ for an inter-IPU copy, both are {a}")


def _int(op: ir.Operation, name: str) -> int:
    return ir.IntegerAttr(op.attributes[name]).value


def _str(op: ir.Operation, name: str) -> str:
    return ir.StringAttr(op.attributes[name]).value


def _well_formed(op: ir.Operation, ints: tuple[str, ...] = (), strings: tuple[str, ...] = (), operands: int = 0, results: int = 0) -> bool:
    """Whether ``op`` has the attribute kinds and value counts the schedule's checks read.

    The schedule is verified before the ops of its body, so it leaves an op that its own
    verifier (or the IRDL one) rejects to that verifier instead of failing on it first.
    """
    attrs = op.attributes
    for name in ints:
        if name not in attrs or not isinstance(attrs[name], ir.IntegerAttr) or isinstance(attrs[name], ir.BoolAttr):
            return False
    for name in strings:
        if name not in attrs or not isinstance(attrs[name], ir.StringAttr):
            return False
    return len(op.operands) == operands and len(op.results) == results


_MOVES = {  # op -> (integer attributes, string attributes, operands, results) the schedule reads
    "pipeline.send": (("src_ipu", "dst_ipu"), ("channel",), 1, 0),
    "pipeline.recv": (("src_ipu", "dst_ipu"), ("channel",), 0, 1),
    "pipeline.stash": (("depth",), ("stash_id",), 1, 0),
    "pipeline.restore": (("depth",), ("stash_id",), 0, 1),
}


def _walk(op: ir.Operation, names: tuple[str, ...]) -> list[ir.Operation]:
    found: list[ir.Operation] = []

    def visit(inner: ir.Operation) -> ir.WalkResult:
        if inner.name in names:
            found.append(inner)
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    return found


class ScheduleOp(PipelineOp, name="schedule"):
    """The execution strategy of a multi-IPU program and the stages it runs.

    Semantics: ``kind`` is ``"sharded"`` (stages in order, one IPU busy at a time),
    ``"pipelined"`` (stages overlap on successive micro-batches: ramp-up, steady state,
    ramp-down), ``"phased_serial"`` or ``"phased_parallel"``. ``num_stages`` counts all
    stages (2p - 1 for pipelined training with p forward stages), ``num_ipus`` the IPUs
    of one replica (a power of 2, at most 64). A pipelined schedule needs
    ``device_iterations >= num_stages`` for inference and ``gradient_accumulation >=
    num_stages`` for training.

    The body holds the stages (or phases of stages). Stages exchange values only
    through ``pipeline.send`` / ``pipeline.recv`` (different IPUs) and
    ``pipeline.stash`` / ``pipeline.restore`` (same IPU, later stage); values defined
    before the schedule (weights, inputs) are captured. ``pipeline.output`` marks the
    program's results. Every channel has exactly one send and one recv with the same
    IPUs and type; every stash id has one stash and one restore with the same depth.

    Example:
      "pipeline.schedule"() ({
        "pipeline.stage"() ({ ... "pipeline.send"(%h) {channel = "c0", src_ipu = 0 : i64, dst_ipu = 1 : i64} ... })
            {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
        "pipeline.stage"() ({ %h = "pipeline.recv"() {...} ... "pipeline.output"(%y) {index = 0 : i64} ... })
            {stage_id = 1 : i64, ipu_id = 1 : i64} : () -> ()
      }) {kind = "pipelined", num_stages = 2 : i64, num_ipus = 2 : i64, training = false,
          device_iterations = 4 : i64, gradient_accumulation = 1 : i64} : () -> ()
    """

    kind: ir.StringAttr
    num_stages: ir.IntegerAttr
    num_ipus: ir.IntegerAttr
    training: ir.IntegerAttr
    device_iterations: ir.IntegerAttr
    gradient_accumulation: ir.IntegerAttr
    body: ext.Region

    def check(self, v: Rules) -> None:
        kind = v.enum("kind", ScheduleKind)
        stages = v.int("num_stages", min=1)
        ipus = v.int("num_ipus", min=1, max=64)
        v.require(ipus & (ipus - 1) == 0, f"attribute 'num_ipus' must be a power of 2, got {ipus}")
        training = v.bool("training")
        iterations = v.int("device_iterations", min=1)
        accumulation = v.int("gradient_accumulation", min=1)
        v.require(training or accumulation == 1, f"gradient_accumulation must be 1 for inference, got {accumulation}")
        if kind == ScheduleKind.PIPELINED and training:
            v.require(
                accumulation >= stages,
                f"pipelined training over {stages} stages needs gradient_accumulation >= {stages}, got {accumulation}",
            )
        if kind == ScheduleKind.PIPELINED and not training:
            v.require(
                iterations >= stages,
                f"pipelined inference over {stages} stages needs device_iterations >= {stages}, got {iterations}",
            )
        _single_block_body(v, self)
        self._check_stages(v, stages, ipus)
        self._check_channels(v)
        self._check_stashes(v)

    def _check_stages(self, v: Rules, stages: int, ipus: int) -> None:
        seen: set[int] = set()
        for stage in _walk(self.operation, ("pipeline.stage",)):
            if not _well_formed(stage, ints=("stage_id", "ipu_id")):
                continue  # the stage's own verifier reports it
            stage_id, ipu_id = _int(stage, "stage_id"), _int(stage, "ipu_id")
            v.require(stage_id < stages, f"stage {stage_id} is out of range: the schedule has num_stages = {stages}")
            v.require(ipu_id < ipus, f"stage {stage_id} runs on IPU {ipu_id} but the schedule has num_ipus = {ipus}")
            v.require(stage_id not in seen, f"stage {stage_id} appears twice")
            seen.add(stage_id)

    def _check_channels(self, v: Rules) -> None:
        _check_pairs(v, self.operation, ("pipeline.send", "pipeline.recv"), "channel", "channel", ("sent", "received"),
                     lambda a, b: (_int(a, "src_ipu"), _int(a, "dst_ipu")) == (_int(b, "src_ipu"), _int(b, "dst_ipu")),
                     "send and recv disagree on src_ipu/dst_ipu", ("sends", "receives"))

    def _check_stashes(self, v: Rules) -> None:
        _check_pairs(v, self.operation, ("pipeline.stash", "pipeline.restore"), "stash_id", "stash", ("stashed", "restored"),
                     lambda a, b: _int(a, "depth") == _int(b, "depth"),
                     "stash and restore disagree on depth", ("stashes", "restores"))


def _check_pairs(v: Rules, schedule: ir.Operation, names: tuple[str, str], key: str, what: str,
                 verbs: tuple[str, str], agree, disagreement: str, type_verbs: tuple[str, str]) -> None:
    """Each ``key`` value names exactly one producer op (``names[0]``) and one consumer
    (``names[1]``) that ``agree`` and carry the same type."""
    ops = _walk(schedule, names)
    if not all(_well_formed(op, *_MOVES[op.name]) for op in ops):
        return  # a malformed op: its own verifier reports it
    producers: dict[str, ir.Operation] = {}
    consumers: dict[str, ir.Operation] = {}
    for op in ops:
        table = producers if op.name == names[0] else consumers
        name = _str(op, key)
        v.require(name not in table, f"{what} \"{name}\" has two '{op.name}' ops")
        table[name] = op
    for name in sorted(set(producers) | set(consumers)):
        v.require(name in producers, f"{what} \"{name}\" is {verbs[1]} but never {verbs[0]}")
        v.require(name in consumers, f"{what} \"{name}\" is {verbs[0]} but never {verbs[1]}")
        producer, consumer = producers[name], consumers[name]
        v.require(agree(producer, consumer), f"{what} \"{name}\": {disagreement}")
        v.require(producer.operands[0].type == consumer.results[0].type,
                  f"{what} \"{name}\": {type_verbs[0]} {producer.operands[0].type} but {type_verbs[1]} {consumer.results[0].type}")


class StageOp(PipelineOp, name="stage"):
    """A region of the model run on one IPU as one pipeline stage.

    Semantics: ``stage_id`` (>= 0) orders stages; ``ipu_id`` (>= 0) is the IPU running
    it. The body reads values captured from before the schedule or received with
    ``pipeline.recv`` / ``pipeline.restore``, and hands values on with
    ``pipeline.send`` / ``pipeline.stash`` / ``pipeline.output``. Must be nested in a
    ``pipeline.schedule`` or a ``pipeline.phase``.

    Example:
      "pipeline.stage"() ({ ... }) {stage_id = 0 : i64, ipu_id = 0 : i64} : () -> ()
    """

    stage_id: ir.IntegerAttr
    ipu_id: ir.IntegerAttr
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
        v.require(_enclosing(self.operation, "pipeline.stage") is None, "must not be nested in another 'pipeline.stage'")
        _single_block_body(v, self)


class PhaseOp(PipelineOp, name="phase"):
    """A phase of phased execution: stages that run in parallel on their IPUs.

    Semantics: ``phase_id`` (>= 0) orders phases; tensors crossing a phase boundary go
    through streaming memory or a direct IPU-to-IPU copy. Must be nested in a phased
    ``pipeline.schedule``.

    Example:
      "pipeline.phase"() ({ "pipeline.stage"() ({ ... }) {...} : () -> () }) {phase_id = 0 : i64} : () -> ()
    """

    phase_id: ir.IntegerAttr
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
            and ir.StringAttr(kind).value in {k.value for k in ScheduleKind if k.is_phased}
        )
        v.require(is_phased, "must be nested in a phased 'pipeline.schedule'")
        body = _single_block_body(v, self)
        v.require(all(op.name == "pipeline.stage" for op in body), "body may hold only 'pipeline.stage' ops")


class OutputOp(PipelineOp, name="output"):
    """Marks ``value`` as program result number ``index`` (>= 0).

    Semantics: results leave the schedule through these ops (stage regions cannot
    return values); ``poplar-build-program`` streams them to the host. Must be inside a
    ``pipeline.stage``.

    Example:
      "pipeline.output"(%y) {index = 0 : i64} : (tensor<4xf32>) -> ()
    """

    value: ext.Operand[Any]
    index: ir.IntegerAttr

    def check(self, v: Rules) -> None:
        v.int("index", min=0)
        v.require(_enclosing(self.operation, "pipeline.stage") is not None, "must be inside a 'pipeline.stage'")


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
        _check_stage_ipu(v, self.operation, "src_ipu")


def _check_stage_ipu(v: Rules, op: ir.Operation, attribute: str) -> None:
    """An op inside a stage must name that stage's IPU in ``attribute``."""
    stage = _enclosing(op, "pipeline.stage")
    if stage is None or "ipu_id" not in stage.attributes:
        return
    stage_ipu, named = _int(stage, "ipu_id"), _int(op, attribute)
    v.require(stage_ipu == named, f"'{attribute}' is {named} but the enclosing stage runs on IPU {stage_ipu}")


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
        _check_stage_ipu(v, self.operation, "dst_ipu")


class _StashFifoOp(PipelineOp):
    """``pipeline.stash`` and ``pipeline.restore``: the FIFO ``stash_id`` of ``depth`` entries."""

    stash_id: ir.StringAttr
    depth: ir.IntegerAttr

    def check(self, v: Rules) -> None:
        v.string("stash_id", nonempty=True)
        v.int("depth", min=1)


class StashOp(_StashFifoOp, name="stash"):
    """Keeps a forward activation of a micro-batch until its backward stage runs.

    Semantics: a FIFO of ``depth`` (>= 1) entries named ``stash_id``; each forward
    execution pushes, each ``pipeline.restore`` of the same id pops the oldest.

    Example:
      "pipeline.stash"(%act) {stash_id = "s0.act0", depth = 3 : i64} : (tensor<4xf32>) -> ()
    """

    value: ext.Operand[Any]


class RestoreOp(_StashFifoOp, name="restore"):
    """Pops the oldest value of stash ``stash_id`` for the backward stage.

    Example:
      %act = "pipeline.restore"() {stash_id = "s0.act0", depth = 3 : i64} : () -> tensor<4xf32>
    """

    value: ext.Result[Any]


class _RemoteBufferOp(PipelineOp):
    """``pipeline.remote_store`` and ``pipeline.remote_load``: streaming memory ``buffer``
    and the IPU ``ipu_id`` (that of the op's stage) on the other side."""

    buffer: ir.StringAttr
    ipu_id: ir.IntegerAttr

    def check(self, v: Rules) -> None:
        v.string("buffer", nonempty=True)
        v.int("ipu_id", min=0)
        _check_stage_ipu(v, self.operation, "ipu_id")


class RemoteStoreOp(_RemoteBufferOp, name="remote_store"):
    """Writes a tensor from IPU ``ipu_id`` to streaming memory ``buffer`` (off-chip).

    Example:
      "pipeline.remote_store"(%w) {buffer = "fc1.weight", ipu_id = 0 : i64} : (tensor<4xf32>) -> ()
    """

    value: ext.Operand[Any]


class RemoteLoadOp(_RemoteBufferOp, name="remote_load"):
    """Reads streaming memory ``buffer`` onto IPU ``ipu_id``.

    Example:
      %w = "pipeline.remote_load"() {buffer = "fc1.weight", ipu_id = 0 : i64} : () -> tensor<4xf32>
    """

    value: ext.Result[Any]


def register_traits() -> None:
    """Attach the traits ``ext`` cannot declare: bodies without terminators.

    Region ops take no operands and return no values because IRDL requires all values
    of a variadic group to share one type; stages exchange values by message passing
    (send/recv, stash/restore) instead, as IPUs do.
    """
    for name in ("pipeline.schedule", "pipeline.stage", "pipeline.phase"):
        ir.NoTerminatorTrait.attach(name)

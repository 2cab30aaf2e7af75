"""The ``ipu`` dialect: IPU-specific semantics above the hardware.

It carries what the user wrote with the PopTorch API into the compiler: block placement
(``#ipu.block``), tensor locations (``#ipu.tensor_location``), the typed contracts between
the driver, the frontend and the ipu passes (``#ipu.role``, ``#ipu.strategy``,
``#ipu.optimizer``; enumerations in ``ipu_enums.py``), the model ops of
``poptorch`` (``print_tensor``, ``identity_loss``, ``nop``, ...) and the training ops
(optimizer updates, gradient accumulation, replica reduction, loss scaling; declared in
``ipu_training.py`` and re-exported here). Its ops sit beside Torch-dialect ops, so
operand types are left open (``!torch.vtensor`` or ``tensor``).
"""


import dataclasses
from collections.abc import Sequence
from typing import Any, Self

from torch_mlir import ir
from torch_mlir.dialects import ext

from ipu_mlir.support.ir_build import boolean, i64, string

from ._base import I64ArrayAttr, Rules
from .print_format import read_print_format
from .poplar.planning import HostOverlap, MultiConvPlan, PartialsType
from .pipeline import Liveness
from .ipu_base import Ipu, IpuOp, check_arity, check_same_type, static_rank
from .ipu_enums import (
    AdamVariant,
    AutoStage,
    IpuEnum,
    LossReduction,
    LossScaleMode,
    MeanStrategy,
    OptimizerType,
    Reduction,
    RoleKind,
    SgdVariant,
    StrategyKind,
)
from . import ipu_anchor, ipu_control, ipu_sharding  # noqa: F401 - ipu_anchor: #ipu.output_mode
from .ipu_sharding import ReplicaShardOp, ReplicaUnshardOp
from .ipu_control import CarriedOp, ForLoopOp, IfOp, RegionResultOp, RegionYieldOp
from .ipu_training import (
    GLOBAL_HYPER_PARAMETERS,
    OPTIMIZER_ATTR,
    OPTIMIZER_HYPER_PARAMETERS,
    UPDATE_FUNC,
    UPDATE_OPS,
    AccumulateGradOp,
    AdamUpdateOp,
    LambUpdateOp,
    LossScaleOp,
    Optimizer,
    OptimizerAttr,
    ReplicaReduceOp,
    RmspropUpdateOp,
    SgdUpdateOp,
    UpdateOp,
    group_hyper_parameters,
    optimizer_of,
)

# ---------------------------------------------------------------------------------------
# Attributes
# ---------------------------------------------------------------------------------------


class BlockAttr(Ipu.Attribute, name="block"):
    """Placement of an op in a user block: ``#ipu.block<"user_id", ipu_id : i64>``.

    Set by ``ipu-annotate-blocks`` from the ``poptorch.Block`` / ``BeginBlock``
    metadata that the frontend stores in each op's location. Ops are placed on IPU
    ``ipu_id``; ops with the same ``user_id`` form one block.
    """

    user_id: ir.StringAttr
    ipu_id: ir.IntegerAttr


class TensorLocationAttr(Ipu.Attribute, name="tensor_location"):
    """Where a tensor lives: ``#ipu.tensor_location<"off_chip", false, false>``.

    Parameters: storage (``"on_chip"`` or ``"off_chip"``), replicated tensor sharding
    (bool) and loading through IO tiles (bool), as set with
    ``poptorch.TensorLocationSettings``.
    """

    storage: ir.StringAttr
    replicated_sharding: ir.IntegerAttr
    io_tiles: ir.IntegerAttr


BLOCK_ATTR = "ipu.block"
UNASSIGNED_IPU = -1  # the user gave the block no ipu_id; the execution strategy decides


def block_of(op: ir.Operation) -> tuple[str, int] | None:
    """(user_id, ipu_id) of an op annotated by this pass, or None."""
    if BLOCK_ATTR not in op.attributes:
        return None
    attr = op.attributes[BLOCK_ATTR]
    return ir.StringAttr(attr.user_id).value, ir.IntegerAttr(attr.ipu_id).value


def make_block_attr(user_id: str, ipu_id: int) -> ir.Attribute:
    return BlockAttr.get(string(user_id), i64(ipu_id))


# Role, strategy and optimizer: what the driver and the frontend tell the ipu passes.
# Each attribute has a builder from plain Python values and a reader that checks it
# and returns a frozen dataclass, so no pass reads these attributes by string key.

ROLE_ATTR = "ipu.role"  # in arg_attrs / res_attrs: the argument's or result's #ipu.role
ARGUMENTS, RESULTS = "arg_attrs", "res_attrs"
# The func.func the frontend imports the model (one micro-batch: forward, and for
# training the backward) into; read by ipu-insert-training and poplar-build-program.
MAIN_FUNC = "main"


class RoleAttr(Ipu.Attribute, name="role"):
    """The role of a function argument or result: ``#ipu.role<"parameter", "fc.weight">``.

    Parameters: the kind (:class:`RoleKind`) and the name (a parameter or buffer path,
    an input's name, ``"<group>.<name>"`` of a hyper-parameter, ...). Set by the frontend
    (``ipu.role`` in ``arg_attrs`` / ``res_attrs``) and ``ipu-insert-training``; read by
    ``ipu-assign-stages``, ``ipu-insert-training``, ``poplar-build-program`` and the driver.
    """

    kind: ir.StringAttr
    name: ir.StringAttr


@dataclasses.dataclass(frozen=True)
class Role:
    """What an ``#ipu.role`` says, checked (see :class:`RoleAttr`)."""

    kind: RoleKind
    name: str

    @classmethod
    def from_attr(cls, attr: ir.Attribute) -> Self:
        if not isinstance(attr, RoleAttr):
            raise ValueError(f"'{ROLE_ATTR}' must be an #ipu.role<kind, name>, got {attr}")
        kind = RoleKind.parse(ir.StringAttr(attr.kind).value, f"'{ROLE_ATTR}' kind")
        return cls(kind, ir.StringAttr(attr.name).value)

    def attr(self) -> RoleAttr:
        return RoleAttr.get(string(self.kind.value), string(self.name))


def role_attr(kind: RoleKind | str, name: str) -> RoleAttr:
    """``#ipu.role<kind, name>``; ValueError for an unknown kind."""
    return Role(RoleKind.parse(kind, "role kind"), name).attr()


def read_roles(func: ir.Operation, which: str) -> list[Role | None]:
    """The role of each argument (``which = ARGUMENTS``) or result (``RESULTS``) of a
    ``func.func``, None where it has none; ValueError naming the position if one is malformed."""
    function_type = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    count = len(function_type.inputs if which == ARGUMENTS else function_type.results)
    entries = list(ir.ArrayAttr(func.attributes[which])) if which in func.attributes else []
    what = "argument" if which == ARGUMENTS else "result"
    roles: list[Role | None] = []
    for index in range(count):
        entry = ir.DictAttr(entries[index]) if index < len(entries) else None
        if entry is None or ROLE_ATTR not in entry:
            roles.append(None)
            continue
        try:
            roles.append(Role.from_attr(entry[ROLE_ATTR]))
        except ValueError as error:
            raise ValueError(f"{what} #{index}: {error}") from None
    return roles


def write_roles(func: ir.Operation, which: str, roles: Sequence[Role | tuple[str, str]]) -> None:
    """Set ``arg_attrs`` (``ARGUMENTS``) or ``res_attrs`` (``RESULTS``): one ``ipu.role`` per
    position, from a :class:`Role` or a ``(kind, name)`` pair. ValueError unless there is
    exactly one role per argument / result (a short array makes MLIR's printer crash)."""
    function_type = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    count = len(function_type.inputs if which == ARGUMENTS else function_type.results)
    if len(roles) != count:
        what = "arguments" if which == ARGUMENTS else "results"
        raise ValueError(f"{len(roles)} roles given for the function's {count} {what}; give one role per position")
    attrs = [role.attr() if isinstance(role, Role) else role_attr(*role) for role in roles]
    func.attributes[which] = ir.ArrayAttr.get([ir.DictAttr.get({ROLE_ATTR: attr}) for attr in attrs])


STRATEGY_ATTR = "ipu.strategy"  # on the step function: its #ipu.strategy (read by ipu-assign-stages)


class StageAttr(Ipu.Attribute, name="stage"):
    """One explicit stage of an execution strategy: ``#ipu.stage<["enc", "mid"], 1 : i64>``.

    Parameters: the ``poptorch.Block`` user ids in the stage and its IPU (``-1``: the
    blocks' own ``ipu_id``), as ``poptorch.Stage(...).ipu(n)`` sets them.
    """

    blocks: ir.ArrayAttr
    ipu: ir.IntegerAttr


class StrategyAttr(Ipu.Attribute, name="strategy"):
    """The execution strategy of a step, as ``ipu-assign-stages`` reads it.

    ``#ipu.strategy<"pipelined", "same_as_ipu", [#ipu.stage<...>, ...], false, 4 : i64, 1 : i64, 1 : i64, false, array<i64>, "always_live", false>``:
    kind (:class:`StrategyKind`), auto_stage (:class:`AutoStage`, used when there are no
    explicit stages), the explicit stages, training, device iterations, gradient
    accumulation, replication factor and ``autoRoundNumIPUs``; for the phased kinds, the
    phase of each explicit stage (``array<i64>``, empty otherwise), where tensors stay
    between phases (``pipeline.Liveness``) and whether the backward pass has phases of its
    own (``useSeparateBackwardPhase``). Set by the driver from
    ``Options.setExecutionStrategy`` (default: pipelined, same_as_ipu, no stages).
    """

    kind: ir.StringAttr
    auto_stage: ir.StringAttr
    stages: ir.ArrayAttr
    training: ir.IntegerAttr
    device_iterations: ir.IntegerAttr
    gradient_accumulation: ir.IntegerAttr
    replication_factor: ir.IntegerAttr
    auto_round_num_ipus: ir.IntegerAttr
    phases: I64ArrayAttr
    liveness: ir.StringAttr
    separate_backward_phase: ir.IntegerAttr

    @classmethod
    def build(
        cls,
        *,
        kind: StrategyKind | str = StrategyKind.PIPELINED,
        auto_stage: AutoStage | str = AutoStage.SAME_AS_IPU,
        stages: Sequence[tuple[Sequence[str], int]] = (),
        training: bool = False,
        device_iterations: int = 1,
        gradient_accumulation: int = 1,
        replication_factor: int = 1,
        auto_round_num_ipus: bool = False,
        phases: Sequence[int] = (),
        liveness: Liveness | str = Liveness.ALWAYS_LIVE,
        separate_backward_phase: bool = False,
    ) -> Self:
        """The attribute from plain values; ``stages`` are (block ids, IPU or -1) pairs,
        ``phases`` the phase of each stage (phased kinds only)."""
        stage_attrs = [
            StageAttr.get(ir.ArrayAttr.get([string(b) for b in blocks]), i64(ipu)) for blocks, ipu in stages
        ]
        return cls.get(
            string(StrategyKind.parse(kind, f"'{STRATEGY_ATTR}' kind").value),
            string(AutoStage.parse(auto_stage, f"'{STRATEGY_ATTR}' auto_stage").value),
            ir.ArrayAttr.get(stage_attrs),
            boolean(training),
            i64(device_iterations),
            i64(gradient_accumulation),
            i64(replication_factor),
            boolean(auto_round_num_ipus),
            ir.DenseI64ArrayAttr.get([int(p) for p in phases]),
            string(Liveness.parse(liveness, f"'{STRATEGY_ATTR}' liveness").value),
            boolean(separate_backward_phase),
        )


@dataclasses.dataclass(frozen=True)
class Strategy:
    """What ``#ipu.strategy`` says, checked (see :class:`StrategyAttr`)."""

    kind: StrategyKind
    auto_stage: AutoStage
    stages: tuple[tuple[tuple[str, ...], int], ...]  # (block ids, IPU or -1) per explicit stage
    training: bool
    device_iterations: int
    gradient_accumulation: int
    replication_factor: int
    auto_round_num_ipus: bool
    phases: tuple[int, ...] = ()  # the phase of each explicit stage (phased kinds)
    liveness: Liveness = Liveness.ALWAYS_LIVE
    separate_backward_phase: bool = False

    @property
    def phased(self) -> bool:
        return self.kind in (StrategyKind.SERIAL_PHASED, StrategyKind.PARALLEL_PHASED)

    @classmethod
    def from_attr(cls, attr: ir.Attribute) -> Self:
        where = f"'{STRATEGY_ATTR}'"
        if not isinstance(attr, StrategyAttr):
            raise ValueError(f"{where} must be an #ipu.strategy<...>, got {attr}")
        stages = []
        for index, stage in enumerate(ir.ArrayAttr(attr.stages)):
            if not isinstance(stage, StageAttr) or not all(isinstance(b, ir.StringAttr) for b in ir.ArrayAttr(stage.blocks)):
                raise ValueError(f"{where} stage #{index} must be an #ipu.stage<[block ids], ipu>, got {stage}")
            stages.append((tuple(ir.StringAttr(b).value for b in ir.ArrayAttr(stage.blocks)), ir.IntegerAttr(stage.ipu).value))
        phases = tuple(ir.DenseI64ArrayAttr(attr.phases))
        kind = StrategyKind.parse(ir.StringAttr(attr.kind).value, f"{where} kind")
        if kind in (StrategyKind.SERIAL_PHASED, StrategyKind.PARALLEL_PHASED):
            if len(phases) != len(stages) or not stages:
                raise ValueError(f"{where} a phased strategy needs explicit stages and the phase of each, got "
                                 f"{len(stages)} stage(s) and phases {list(phases)}")
            if any(b < a for a, b in zip(phases, phases[1:])) or phases[0] != 0 or any(b - a > 1 for a, b in zip(phases, phases[1:])):
                raise ValueError(f"{where} stage phases must start at 0 and rise by at most 1 from stage to stage, got {list(phases)}")
        elif phases:
            raise ValueError(f"{where} phases are only for the phased kinds, got {list(phases)} for '{kind.value}'")
        counts = {name: ir.IntegerAttr(getattr(attr, name)).value
                  for name in ("device_iterations", "gradient_accumulation", "replication_factor")}
        for name, value in counts.items():
            if value < 1:
                raise ValueError(f"{where} {name} must be >= 1, got {value}")
        return cls(
            StrategyKind.parse(ir.StringAttr(attr.kind).value, f"{where} kind"),
            AutoStage.parse(ir.StringAttr(attr.auto_stage).value, f"{where} auto_stage"),
            tuple(stages),
            bool(ir.IntegerAttr(attr.training).value),
            auto_round_num_ipus=bool(ir.IntegerAttr(attr.auto_round_num_ipus).value),
            phases=phases,
            liveness=Liveness.parse(ir.StringAttr(attr.liveness).value, f"{where} liveness"),
            separate_backward_phase=bool(ir.IntegerAttr(attr.separate_backward_phase).value),
            **counts,
        )


def strategy_of(func: ir.Operation) -> Strategy | None:
    """The function's execution strategy, or None without ``ipu.strategy``; ValueError if malformed."""
    return Strategy.from_attr(func.attributes[STRATEGY_ATTR]) if STRATEGY_ATTR in func.attributes else None


# ---------------------------------------------------------------------------------------
# Model ops
# ---------------------------------------------------------------------------------------


class _ForwardingOp(IpuOp):
    """A model op that forwards its ``input`` unchanged: ``output`` has the input's type."""

    input: ext.Operand[Any]
    output: ext.Result[Any]

    def check(self, v: Rules) -> None:
        check_arity(v, self, 1, 1)
        self.check_attributes(v)
        check_same_type(v, self.input, self.output, self.OPERATION_NAME.removeprefix("ipu."))

    def check_attributes(self, v: Rules) -> None:
        """The op's own attributes (none by default)."""


PRINT_FORMAT_ATTR = "ipu.print_format"


class PrintTensorOp(_ForwardingOp, name="print_tensor"):
    """Prints a tensor when the program executes it, then forwards it unchanged.

    Semantics: identity with a side effect (``poptorch.ipu_print_tensor(t, title, ...)``).
    The optional discardable ``ipu.print_format`` lays the values out (see
    ``dialects/print_format.py``: summarise threshold, edge items, line width, digits,
    float format, separator and brackets). The gradient print of ``print_gradient=True`` is a
    second ``ipu.print_tensor`` in the backward graph, titled ``<title>_gradient``.

    Example:
      %1 = "ipu.print_tensor"(%0) {title = "act"} : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
      %2 = "ipu.print_tensor"(%0) {title = "act", ipu.print_format = {digits = 2 : i64}} : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
    """

    title: ir.StringAttr

    def check_attributes(self, v: Rules) -> None:
        v.string("title")
        read_print_format(self.operation, PRINT_FORMAT_ATTR)


class IdentityLossOp(IpuOp, name="identity_loss"):
    """Marks the model's loss (``poptorch.identity_loss(x, reduction)``).

    Semantics: reduces ``input`` with ``reduction`` (``"sum"``, ``"mean"``: a scalar
    result; ``"none"``: the input unchanged) and makes the result the value the
    backward pass starts from.

    Example:
      %1 = "ipu.identity_loss"(%0) {reduction = "mean"} : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[],f32>
    """

    input: ext.Operand[Any]
    reduction: ir.StringAttr
    output: ext.Result[Any]

    def check(self, v: Rules) -> None:
        check_arity(v, self, 1, 1)
        reduction = v.enum("reduction", LossReduction)
        if reduction == LossReduction.NONE:
            check_same_type(v, self.input, self.output, "identity_loss with reduction \"none\"")
        else:
            rank = static_rank(self.output.type)
            v.require(rank in (None, 0), f"result must be a scalar (rank 0) for reduction \"{reduction}\", got rank {rank}")


class NopOp(_ForwardingOp, name="nop"):
    """An identity that no optimisation removes (``poptorch.nop``).

    Example:
      %1 = "ipu.nop"(%0) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
    """


class RecomputationCheckpointOp(_ForwardingOp, name="recomputation_checkpoint"):
    """Marks a tensor to keep (not recompute) in pipelined training.

    Semantics: identity (``poptorch.recomputationCheckpoint``; one op per checkpointed
    tensor); the pipeline scheduler stashes these values and recomputes the ops between
    checkpoints.

    Example:
      %1 = "ipu.recomputation_checkpoint"(%a) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
    """


class SetAvailableMemoryOp(_ForwardingOp, name="set_available_memory"):
    """Sets the proportion of tile memory the producing matmul/conv may use for temporaries.

    Semantics: identity (``poptorch.set_available_memory(t, proportion)``); the
    ``proportion`` (in (0, 1]) is read by the planner of the op producing ``input``.

    Example:
      %1 = "ipu.set_available_memory"(%0) {proportion = 0.3 : f64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    """

    proportion: ir.FloatAttr

    def check_attributes(self, v: Rules) -> None:
        v.float("proportion", min=0.0, max=1.0, min_exclusive=True)


class SetOverlapOp(_ForwardingOp, name="set_overlap"):
    """Sets how far the host I/O of a model input or output overlaps computation.

    Semantics: identity (``poptorch.set_overlap_for_input`` / ``set_overlap_for_output``);
    ``direction`` ("input": ``input`` is a function argument; "output": the result is
    returned) and ``mode`` (a ``poplar.overlap`` spelling: no_overlap,
    overlap_accumulation_loop, overlap_device_iteration_loop) go to the host stream.

    Example:
      %1 = "ipu.set_overlap"(%0) {direction = "input", mode = "overlap_accumulation_loop"} : (tensor<4xf32>) -> tensor<4xf32>
    """

    direction: ir.StringAttr
    mode: ir.StringAttr

    def check_attributes(self, v: Rules) -> None:
        v.string("direction", choices=("input", "output"))
        v.enum("mode", HostOverlap)


class MultiConvOp(_ForwardingOp, name="multi_conv"):
    """Marks the convolution producing ``input`` as member ``index`` of multi-convolution
    ``group`` (``with poptorch.MultiConv():``).

    Semantics: identity; the lowering moves the group's plan onto the convolution as
    ``poplar.multi_conv`` (``plan_type``: parallel or serial; optional
    ``per_conv_reserved_tiles`` >= 1, ``cycle_back_off`` in [0, 1], ``enable_conv_dithering``)
    and the member's ``available_memory`` (in [0, 1]) and ``partials_type`` (float or half)
    as ``poplar.available_memory`` / ``poplar.partials_type``.

    Example:
      %1 = "ipu.multi_conv"(%0) {group = 0 : i64, index = 1 : i64, plan_type = "parallel", partials_type = "half"}
             : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    """

    group: ir.IntegerAttr
    index: ir.IntegerAttr
    plan_type: ir.StringAttr

    def check_attributes(self, v: Rules) -> None:
        v.int("group", min=0)
        v.int("index", min=0)
        v.enum("plan_type", MultiConvPlan)
        if v.has("available_memory"):
            v.float("available_memory", min=0.0, max=1.0)
        if v.has("partials_type"):
            v.enum("partials_type", PartialsType)
        if v.has("enable_conv_dithering"):
            v.bool("enable_conv_dithering")
        if v.has("per_conv_reserved_tiles"):
            v.int("per_conv_reserved_tiles", min=1)
        if v.has("cycle_back_off"):
            v.float("cycle_back_off", min=0.0, max=1.0)


def register_traits() -> None:
    """Attach the traits that ``ext`` cannot declare: region bodies without terminators."""
    ipu_control.register_traits()


# The dialect's public names, from this file, ipu_base.py, ipu_enums.py and ipu_training.py.
__all__ = [
    "ARGUMENTS", "BLOCK_ATTR", "GLOBAL_HYPER_PARAMETERS", "MAIN_FUNC", "OPTIMIZER_ATTR", "OPTIMIZER_HYPER_PARAMETERS",
    "RESULTS", "ROLE_ATTR", "STRATEGY_ATTR", "UNASSIGNED_IPU", "UPDATE_FUNC", "UPDATE_OPS",
    "AccumulateGradOp", "AdamUpdateOp", "CarriedOp", "ForLoopOp", "IfOp", "RegionResultOp", "RegionYieldOp", "AdamVariant", "AutoStage", "BlockAttr", "IdentityLossOp", "Ipu", "IpuEnum",
    "IpuOp", "LambUpdateOp", "LossReduction", "LossScaleMode", "LossScaleOp", "MeanStrategy", "NopOp", "Optimizer",
    "OptimizerAttr", "OptimizerType", "PRINT_FORMAT_ATTR", "PrintTensorOp", "RecomputationCheckpointOp", "Reduction", "ReplicaReduceOp", "ReplicaShardOp", "ReplicaUnshardOp",
    "MultiConvOp", "RmspropUpdateOp", "Role", "RoleAttr", "RoleKind", "SetAvailableMemoryOp", "SetOverlapOp", "SgdUpdateOp", "SgdVariant",
    "StageAttr", "Strategy", "StrategyAttr", "StrategyKind", "TensorLocationAttr", "UpdateOp",
    "block_of", "group_hyper_parameters", "make_block_attr", "optimizer_of", "read_roles", "register_traits",
    "role_attr", "static_rank", "strategy_of", "write_roles",
]

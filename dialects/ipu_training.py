"""The training half of the ``ipu`` dialect: the ``#ipu.optimizer`` contract (what the
driver tells ``ipu-insert-training``) and the ops it inserts (optimizer updates, gradient
accumulation, replica reduction, loss scaling). Registered on the same ``Ipu`` dialect and
re-exported by ``dialects/ipu.py``; each update op declares its hyper-parameters, flags
and state once."""

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Self

from torch_mlir import ir
from torch_mlir.dialects import ext

from ipu_mlir.support.ir_build import boolean, f64, i64, string

from ._base import Rules, build
from .poplar.gcl import CommGroup, CommGroupAttr
from .ipu_base import Ipu, IpuOp, check_arity, check_same_type, static_rank
from .ipu_enums import (
    AdamVariant,
    IpuEnum,
    LossScaleMode,
    MeanStrategy,
    OptimizerType,
    Reduction,
    SgdVariant,
)

OPTIMIZER_ATTR = "ipu.optimizer"  # on the joint training function: its #ipu.optimizer (read by ipu-insert-training)

# With gradient accumulation, the func.func that applies the optimizer once per G
# micro-batches (written by ipu-insert-training, read by poplar-build-program).
UPDATE_FUNC = "update"


class OptimizerAttr(Ipu.Attribute, name="optimizer"):
    """The optimizer of a training step, as ``ipu-insert-training`` reads it.

    ``#ipu.optimizer<"sgd", {with_momentum = true}, 2 : i64, {"fc.weight" = 1 : i64}, {"0.lr" = 1.0e-02 : f64}, []>``:
    the kind (:class:`OptimizerType`), its flags (attributes of its update op that
    select the update's form; absent ones take the op's defaults), the number of param
    groups, each parameter's group (absent: group 0), the hyper-parameters compiled in
    (``"<group>.<name>"`` or ``"loss_scaling"`` -> value; the others are arguments the
    host can change) and ``max_grad_norm``: ``[]`` for no gradient clipping, else one
    f64. Hyper-parameter values are not in the IR: they live on the device.
    """

    kind: ir.StringAttr
    flags: ir.DictAttr
    groups: ir.IntegerAttr
    param_groups: ir.DictAttr
    constants: ir.DictAttr
    max_grad_norm: ir.ArrayAttr

    @classmethod
    def build(
        cls,
        *,
        kind: OptimizerType | str,
        flags: Mapping[str, bool | str],
        groups: int,
        param_groups: Mapping[str, int],
        constants: Mapping[str, float] | None = None,
        max_grad_norm: float | None = None,
    ) -> Self:
        """The attribute from plain values (flag values are bools or enum spellings)."""
        optimizer = OptimizerType.parse(kind, f"'{OPTIMIZER_ATTR}' kind")
        flag_attrs = {name: boolean(value) if isinstance(value, bool) else string(str(value))
                      for name, value in flags.items()}
        return cls.get(
            string(optimizer.value),
            ir.DictAttr.get(flag_attrs),
            i64(groups),
            ir.DictAttr.get({name: i64(group) for name, group in param_groups.items()}),
            ir.DictAttr.get({name: f64(v) for name, v in (constants or {}).items()}),
            ir.ArrayAttr.get([] if max_grad_norm is None else [f64(max_grad_norm)]),
        )


@dataclasses.dataclass(frozen=True)
class Optimizer:
    """What ``#ipu.optimizer`` says, checked; ``flags`` holds every flag of the update op."""

    kind: OptimizerType
    flags: Mapping[str, bool | IpuEnum]
    groups: int
    param_groups: Mapping[str, int]
    constants: Mapping[str, float]
    max_grad_norm: float | None

    @property
    def update_op(self) -> "type[UpdateOp]":
        return UPDATE_OPS[self.kind]

    @classmethod
    def from_attr(cls, attr: ir.Attribute) -> Self:
        where = f"'{OPTIMIZER_ATTR}'"
        if not isinstance(attr, OptimizerAttr):
            raise ValueError(f"{where} must be an #ipu.optimizer<...>, got {attr}")
        optimizer = OptimizerType.parse(ir.StringAttr(attr.kind).value, f"{where} kind")
        op = UPDATE_OPS[optimizer]
        flags: dict[str, bool | IpuEnum] = dict(op.FLAGS)
        for named in ir.DictAttr(attr.flags):
            name, value = named.name, named.attr
            if name not in op.FLAGS:
                raise ValueError(f"{where} flag '{name}' is not a flag of {optimizer}; its flags: {', '.join(op.FLAGS)}")
            default = op.FLAGS[name]
            if isinstance(default, bool):
                if not isinstance(value, ir.BoolAttr):
                    raise ValueError(f"{where} flag '{name}' must be a bool (true/false), got {value}")
                flags[name] = ir.BoolAttr(value).value
            else:
                text = ir.StringAttr(value).value if isinstance(value, ir.StringAttr) else str(value)
                flags[name] = type(default).parse(text, f"{where} flag '{name}'")
        problem = op.flag_problem(flags)
        if problem is not None:
            raise ValueError(f"{where} flags: {problem}")
        groups = ir.IntegerAttr(attr.groups).value
        if groups < 1:
            raise ValueError(f"{where} needs groups >= 1, got {groups}")
        param_groups = _entries(attr.param_groups, ir.IntegerAttr, f"{where} param_groups")
        bad = {name: group for name, group in param_groups.items() if not 0 <= group < groups}
        if bad:
            raise ValueError(f"{where} puts parameters in groups that do not exist: {bad} (groups = {groups})")
        constants = _entries(attr.constants, ir.FloatAttr, f"{where} constants")
        norms = [ir.FloatAttr(a).value if isinstance(a, ir.FloatAttr) else str(a) for a in ir.ArrayAttr(attr.max_grad_norm)]
        if len(norms) > 1 or (norms and not (isinstance(norms[0], float) and norms[0] > 0)):
            raise ValueError(f"{where} needs max_grad_norm [] (no clipping) or one value > 0, got {norms}")
        return cls(optimizer, flags, groups, param_groups, constants, norms[0] if norms else None)


def _entries(dictionary: ir.Attribute, kind: type[ir.IntegerAttr] | type[ir.FloatAttr], what: str) -> dict[str, Any]:
    """The values of a dictionary attribute whose entries must all be integers (or floats)."""
    found = {}
    for named in ir.DictAttr(dictionary):
        if not isinstance(named.attr, kind) or isinstance(named.attr, ir.BoolAttr):
            raise ValueError(f"{what} '{named.name}' must be {'an integer' if kind is ir.IntegerAttr else 'a float'}, "
                             f"got {named.attr}")
        found[named.name] = kind(named.attr).value
    return found


def optimizer_of(func: ir.Operation) -> Optimizer:
    """The function's optimizer; ValueError if it has none or it is malformed."""
    if OPTIMIZER_ATTR not in func.attributes:
        raise ValueError(f"the function has no '{OPTIMIZER_ATTR}' attribute (set by the training frontend)")
    return Optimizer.from_attr(func.attributes[OPTIMIZER_ATTR])




class UpdateOp(IpuOp):
    """Common shape of the optimizer update ops.

    Operands: ``weight``, ``grad``, the optimizer ``state`` tensors (each of the weight's
    type; order fixed per op), the scalar ``step`` count (Adam, LAMB, and SGD with
    momentum) and the
    scalar ``hyper`` parameters named by ``hyper_names`` (all of one type). A
    hyper-parameter produced by a constant is compiled in; one read from a variable can
    change between runs (``setOptimizer``) without recompiling. Results: the new weight,
    the new state (operand order) and the new step.

    Groups are split this way because IRDL requires every value of a variadic group to
    have the same type.

    Each subclass declares, once for the whole tree: ``OPTIMIZER``, its
    ``HYPER_PARAMETERS`` (in the operand order ``ipu-insert-training`` passes them; the
    verifier requires only ``lr``), its ``FLAGS`` (the attributes that select the
    update's form, with their defaults, in declaration order) and the state tensors
    the flags imply (``state_names``).
    """

    # ext puts these fields before each subclass's own (its flag attributes): operands,
    # results and IRDL keep this order, and ``create`` builds by field name.
    weight: ext.Operand[Any]
    grad: ext.Operand[Any]
    state: Sequence[ext.Operand[Any]]
    step: Sequence[ext.Operand[Any]]
    hyper: Sequence[ext.Operand[Any]]
    hyper_names: ir.ArrayAttr
    new_weight: ext.Result[Any]
    new_state: Sequence[ext.Result[Any]]
    new_step: Sequence[ext.Result[Any]]

    # Unannotated: ext would take annotated class attributes for op fields.
    OPTIMIZER = None  # the OptimizerType
    HYPER_PARAMETERS = ()  # every hyper-parameter name, in operand order
    REQUIRED_HYPER = ("lr",)
    FLAGS = {}  # flag attribute -> default (a bool or an IpuEnum member)

    @classmethod
    def state_names(cls, flags: Mapping[str, Any]) -> tuple[str, ...]:  # pragma: no cover - overridden
        """The state tensors per weight, in operand order, for these flags."""
        raise NotImplementedError

    @classmethod
    def counts_steps(cls, flags: Mapping[str, Any]) -> bool:
        """Whether the update takes the step count (bias correction, SGD's first step)."""
        return False

    @classmethod
    def flag_problem(cls, flags: Mapping[str, Any]) -> str | None:
        """Why these flags do not go together, or None."""
        return None

    @classmethod
    def create(cls, weight: ir.Value, grad: ir.Value, state: Sequence[ir.Value], step: Sequence[ir.Value],
               hyper: Mapping[str, ir.Value], flags: Mapping[str, bool | IpuEnum]) -> ir.OpView:
        """Build the op at the current insertion point; ``hyper`` by name, ``flags`` by
        attribute (missing ones take the defaults)."""
        values: dict[str, Any] = {
            "weight": weight, "grad": grad, "state": list(state), "step": list(step), "hyper": list(hyper.values()),
            "hyper_names": ir.ArrayAttr.get([string(n) for n in hyper]),
            "new_weight": weight.type, "new_state": [s.type for s in state], "new_step": [s.type for s in step],
        }
        for name, default in cls.FLAGS.items():
            value = flags.get(name, default)
            values[name] = boolean(value) if isinstance(value, bool) else string(value.value)
        return build(cls, *(values[field.name] for field in cls._fields if field.name in values))

    def _flags(self, v: Rules) -> dict[str, bool | IpuEnum]:
        flags = {name: v.bool(name) if isinstance(default, bool) else v.enum(name, type(default))
                 for name, default in self.FLAGS.items()}
        problem = self.flag_problem(flags)
        v.require(problem is None, str(problem))
        return flags

    def _segments(self, v: Rules, attribute: str, what: str, size: int, total: int) -> list[int]:
        v.require(v.has(attribute), f"requires attribute '{attribute}' ({what} counts)")
        attr = self.operation.attributes[attribute]
        v.require(isinstance(attr, ir.DenseI32ArrayAttr), f"attribute '{attribute}' must be an array<i32: ...>, got {attr}")
        sizes = list(ir.DenseI32ArrayAttr(attr))
        v.require(len(sizes) == size, f"attribute '{attribute}' must have {size} elements ({what}), got {len(sizes)}")
        v.require(min(sizes) >= 0, f"attribute '{attribute}' elements must be >= 0, got {sizes}")
        v.require(sum(sizes) == total, f"attribute '{attribute}' sums to {sum(sizes)} but the op has {total}")
        return sizes

    def check(self, v: Rules) -> None:
        op = self.operation
        operands = self._segments(v, "operandSegmentSizes", "weight, grad, state, step, hyper", 5, len(op.operands))
        results = self._segments(v, "resultSegmentSizes", "new_weight, new_state, new_step", 3, len(op.results))
        v.require(operands[0] == 1 and operands[1] == 1, f"expects exactly one weight and one grad operand, got segment sizes {operands}")
        names = v.strings("hyper_names")
        n_state, n_step, n_hyper = operands[2], operands[3], operands[4]
        v.require(len(names) == n_hyper, f"expects one name in 'hyper_names' per hyper-parameter operand ({n_hyper}), got {len(names)}")
        v.require(len(set(names)) == len(names), f"'hyper_names' has duplicates: {names}")
        for name in names:
            v.require(name in self.HYPER_PARAMETERS, f"unknown hyper-parameter \"{name}\"; allowed: {', '.join(self.HYPER_PARAMETERS)}")
        for name in self.REQUIRED_HYPER:
            v.require(name in names, f"requires hyper-parameter \"{name}\"")
        flags = self._flags(v)
        expected_state = len(self.state_names(flags))
        v.require(n_state == expected_state, f"expects {expected_state} state operands, got {n_state}")
        steps = int(self.counts_steps(flags))
        v.require(n_step == steps, f"expects {steps} step operands, got {n_step}")
        v.require(results == [1, n_state, n_step], f"expects results (new_weight, new_state, new_step) sized [1, {n_state}, {n_step}], got {results}")
        values = list(op.operands)
        weight, grad = values[0], values[1]
        v.require(weight.type == grad.type, f"grad type {grad.type} must equal weight type {weight.type}")
        v.require(op.results[0].type == weight.type, f"new weight type {op.results[0].type} must equal weight type {weight.type}")
        for i, state in enumerate(values[2 : 2 + n_state]):
            v.require(state.type == weight.type, f"state #{i} type {state.type} must equal weight type {weight.type}")
        for i, new_state in enumerate(list(op.results)[1 : 1 + n_state]):
            v.require(new_state.type == weight.type, f"new state #{i} type {new_state.type} must equal weight type {weight.type}")
        scalars = values[2 + n_state :]
        for i, scalar in enumerate(scalars):
            rank = static_rank(scalar.type)
            v.require(rank in (None, 0), f"step and hyper-parameter operands must be scalars (rank 0); operand #{2 + n_state + i} has rank {rank}")
        if n_step:
            v.require(op.results[1 + n_state].type == values[2 + n_state].type, "new step type must equal step type")


class SgdUpdateOp(UpdateOp, name="sgd_update"):
    """SGD weight update (``poptorch.optim.SGD`` / ``torch.optim.SGD``).

    Semantics: with ``with_momentum``, one velocity state tensor and a step count (the
    first step sets the velocity to the gradient, as torch.optim.SGD does); ``variant`` is
    ``"separate"`` (accumulator and velocity apart, the default) or ``"combined"``
    (``use_combined_accum``: one tensor serves as both). Hyper-parameters: lr,
    momentum, dampening, weight_decay, velocity_scaling, loss_scaling.

    Example:
      %w1 = "ipu.sgd_update"(%w, %g, %lr) {hyper_names = ["lr"], nesterov = false,
              variant = "separate", with_momentum = false,
              operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>,
              resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    """

    variant: ir.StringAttr
    with_momentum: ir.IntegerAttr
    nesterov: ir.IntegerAttr

    OPTIMIZER = OptimizerType.SGD
    HYPER_PARAMETERS = ("lr", "momentum", "dampening", "weight_decay", "velocity_scaling", "loss_scaling")
    FLAGS = {"variant": SgdVariant.SEPARATE, "with_momentum": False, "nesterov": False}

    @classmethod
    def state_names(cls, flags: Mapping[str, Any]) -> tuple[str, ...]:
        return ("velocity",) if flags["with_momentum"] else ()

    @classmethod
    def counts_steps(cls, flags: Mapping[str, Any]) -> bool:
        # With momentum, the first step sets the velocity to the gradient (no dampening),
        # as torch.optim.SGD does: the step count tells the first step apart.
        return bool(flags["with_momentum"])

    @classmethod
    def flag_problem(cls, flags: Mapping[str, Any]) -> str | None:
        return "nesterov requires with_momentum" if flags["nesterov"] and not flags["with_momentum"] else None


class _MomentUpdateOp(UpdateOp):
    """Adam-style updates: first and second moments per weight, and the step count."""

    @classmethod
    def state_names(cls, flags: Mapping[str, Any]) -> tuple[str, ...]:
        return ("exp_avg", "exp_avg_sq")

    @classmethod
    def counts_steps(cls, flags: Mapping[str, Any]) -> bool:
        return True


class AdamUpdateOp(_MomentUpdateOp, name="adam_update"):
    """Adam / AdamW weight update (``poptorch.optim.Adam``, ``AdamW``).

    Semantics: state is (first moment, second moment), plus the step count; ``variant`` is
    ``"adam"`` (L2 weight decay into the gradient) or ``"adamw"`` (decoupled weight
    decay); ``bias_correction`` applies the usual 1 - beta^t corrections.
    Hyper-parameters: lr, beta1, beta2, eps, weight_decay, loss_scaling.

    Example:
      %w1, %m1, %v1, %t1 = "ipu.adam_update"(%w, %g, %m, %v, %t, %lr) {hyper_names = ["lr"],
              variant = "adam", bias_correction = true, operandSegmentSizes = array<i32: 1, 1, 2, 1, 1>,
              resultSegmentSizes = array<i32: 1, 2, 1>} : (...) -> (...)
    """

    variant: ir.StringAttr
    bias_correction: ir.IntegerAttr

    OPTIMIZER = OptimizerType.ADAM
    HYPER_PARAMETERS = ("lr", "beta1", "beta2", "eps", "weight_decay", "loss_scaling")
    FLAGS = {"variant": AdamVariant.ADAM, "bias_correction": True}


class RmspropUpdateOp(UpdateOp, name="rmsprop_update"):
    """RMSprop weight update (``poptorch.optim.RMSprop``).

    Semantics: state is (squared-gradient average, [momentum buffer if
    ``with_momentum``], [gradient average if ``centered``]). ``use_tf_variant``
    starts the squared average at 1, puts eps inside the square root and folds the
    learning rate into the momentum. Hyper-parameters: lr, alpha, eps, momentum,
    weight_decay, loss_scaling.

    Example:
      %w1, %sq1 = "ipu.rmsprop_update"(%w, %g, %sq, %lr, %alpha) {hyper_names = ["lr", "alpha"],
              centered = false, with_momentum = false, use_tf_variant = false,
              operandSegmentSizes = array<i32: 1, 1, 1, 0, 2>, resultSegmentSizes = array<i32: 1, 1, 0>}
              : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
    """

    centered: ir.IntegerAttr
    with_momentum: ir.IntegerAttr
    use_tf_variant: ir.IntegerAttr

    OPTIMIZER = OptimizerType.RMSPROP
    HYPER_PARAMETERS = ("lr", "alpha", "eps", "momentum", "weight_decay", "loss_scaling")
    FLAGS = {"centered": False, "with_momentum": False, "use_tf_variant": False}

    @classmethod
    def state_names(cls, flags: Mapping[str, Any]) -> tuple[str, ...]:
        return ("square_avg",) + (("momentum_buffer",) if flags["with_momentum"] else ()) + (
            ("grad_avg",) if flags["centered"] else ())


class LambUpdateOp(_MomentUpdateOp, name="lamb_update"):
    """LAMB weight update (``poptorch.optim.LAMB``).

    Semantics: Adam-style moments (state: first moment, second moment; plus the step count),
    then the layer-wise trust ratio phi(||w||) / ||update|| with
    phi(z) = min(z, max_weight_norm); ``bias_correction`` as in Adam.
    Hyper-parameters: lr, beta1, beta2, eps, weight_decay, max_weight_norm, loss_scaling.

    Example:
      %w1, %m1, %v1, %t1 = "ipu.lamb_update"(%w, %g, %m, %v, %t, %lr) {hyper_names = ["lr"],
              bias_correction = true, operandSegmentSizes = array<i32: 1, 1, 2, 1, 1>,
              resultSegmentSizes = array<i32: 1, 2, 1>} : (...) -> (...)
    """

    bias_correction: ir.IntegerAttr

    OPTIMIZER = OptimizerType.LAMB
    HYPER_PARAMETERS = ("lr", "beta1", "beta2", "eps", "weight_decay", "max_weight_norm", "loss_scaling")
    FLAGS = {"bias_correction": True}


UPDATE_OPS: dict[OptimizerType, type[UpdateOp]] = {
    op.OPTIMIZER: op for op in (SgdUpdateOp, AdamUpdateOp, RmspropUpdateOp, LambUpdateOp)
}
# The one list of each optimizer's hyper-parameters, in update-op operand order.
OPTIMIZER_HYPER_PARAMETERS: dict[OptimizerType, tuple[str, ...]] = {
    kind: op.HYPER_PARAMETERS for kind, op in UPDATE_OPS.items()
}
GLOBAL_HYPER_PARAMETERS = ("loss_scaling",)  # one value for the whole model; the others are per param group


def group_hyper_parameters(kind: OptimizerType | str) -> tuple[str, ...]:
    """The hyper-parameters an optimizer reads per param group (``"<group>.<name>"``), in operand order."""
    names = OPTIMIZER_HYPER_PARAMETERS[OptimizerType.parse(kind, "optimizer kind")]
    return tuple(name for name in names if name not in GLOBAL_HYPER_PARAMETERS)


class AccumulateGradOp(IpuOp, name="accumulate_grad"):
    """Adds one micro-batch gradient into its accumulator (gradient accumulation, G > 1).

    Semantics: ``reduction`` ``"sum"`` adds; ``"mean"`` with ``strategy``
    ``"running"`` keeps a running mean (acc + (g - acc) / count, count from 1), with
    ``"post"`` adds and leaves the division by G to the update.

    Example:
      %a1 = "ipu.accumulate_grad"(%a, %g, %count) {reduction = "mean", strategy = "post"} : (...) -> tensor<4xf32>
    """

    accumulator: ext.Operand[Any]
    grad: ext.Operand[Any]
    count: ext.Operand[Any]
    reduction: ir.StringAttr
    strategy: ir.StringAttr
    output: ext.Result[Any]

    def check(self, v: Rules) -> None:
        check_arity(v, self, 3, 1)
        v.enum("reduction", Reduction)
        v.enum("strategy", MeanStrategy)
        v.require(self.accumulator.type == self.grad.type, f"grad type {self.grad.type} must equal accumulator type {self.accumulator.type}")
        check_same_type(v, self.accumulator, self.output, "accumulate_grad")


# On a parameter argument of the training step: the #poplar.comm_group of a weight whose
# replica groups each hold their own value (param.replicaGrouping); set by the driver, read
# by ipu-insert-training. A weight without it is one value over all replicas.
REPLICA_GROUP_ATTR = "ipu.replica_group"


def _check_group(v: Rules, replication_factor: int) -> None:
    try:
        CommGroup.from_attr(v._attr("group")).group_size(replication_factor)
    except ValueError as error:
        v.require(False, f"attribute 'group' {error}")


class ReplicaReduceOp(IpuOp, name="replica_reduce"):
    """Reduces a tensor across the replicas of each group (gradients before the update).

    Semantics: ``kind`` ``"sum"`` or ``"mean"`` over the replicas of ``group``
    (``#poplar.comm_group``: all replicas, or the groups of a weight grouped across
    replicas) of ``replication_factor`` (>= 1) in all; every replica of a group receives
    the result. Lowered to ``poplar.gcl_all_reduce``.

    Example:
      %1 = "ipu.replica_reduce"(%0) {kind = "mean", replication_factor = 2 : i64,
                                     group = #poplar.comm_group<"all", 0 : i64>} : (tensor<4xf32>) -> tensor<4xf32>
    """

    input: ext.Operand[Any]
    kind: ir.StringAttr
    replication_factor: ir.IntegerAttr
    group: Any  # a #poplar.comm_group: IRDL cannot name another dialect's attribute; the verifier checks it
    output: ext.Result[Any]

    def check(self, v: Rules) -> None:
        check_arity(v, self, 1, 1)
        v.enum("kind", Reduction)
        replicas = v.int("replication_factor", min=1)
        _check_group(v, replicas)
        check_same_type(v, self.input, self.output, "replica_reduce")


class ReplicaBroadcastOp(IpuOp, name="replica_broadcast"):
    """Every replica takes replica 0's value (buffers after an update, Options.broadcastBuffers).

    Semantics: over ``replication_factor`` (>= 1) replicas; the result has the input's
    type. Lowered to ``poplar.gcl_broadcast`` from rank 0 of the group of all replicas.

    Example:
      %1 = "ipu.replica_broadcast"(%0) {replication_factor = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    """

    input: ext.Operand[Any]
    replication_factor: ir.IntegerAttr
    output: ext.Result[Any]

    def check(self, v: Rules) -> None:
        check_arity(v, self, 1, 1)
        v.int("replication_factor", min=1)
        check_same_type(v, self.input, self.output, "replica_broadcast")


class LossScaleOp(IpuOp, name="loss_scale"):
    """Multiplies (``mode = "scale"``) or divides (``"unscale"``) by the loss scale.

    Semantics: the loss is scaled before the backward pass and gradients unscaled
    before the update, so training is unchanged mathematically. ``scale`` is a scalar
    operand so automatic loss scaling can update it on the device.

    Example:
      %1 = "ipu.loss_scale"(%loss, %s) {mode = "scale"} : (tensor<f32>, tensor<f32>) -> tensor<f32>
    """

    input: ext.Operand[Any]
    scale: ext.Operand[Any]
    mode: ir.StringAttr
    output: ext.Result[Any]

    def check(self, v: Rules) -> None:
        check_arity(v, self, 2, 1)
        v.enum("mode", LossScaleMode)
        rank = static_rank(self.scale.type)
        v.require(rank in (None, 0), f"scale must be a scalar (rank 0), got rank {rank}")
        check_same_type(v, self.input, self.output, "loss_scale")

"""The ``ipu`` dialect: IPU-specific semantics above the hardware.

It carries what the user wrote with the PopTorch API into the compiler: block placement
(``#ipu.block``), tensor locations (``#ipu.tensor_location``), the model ops of
``poptorch`` (``print_tensor``, ``identity_loss``, ``nop``, ...) and the training ops
(optimizer updates, gradient accumulation, replica reduction, loss scaling). Its ops sit
beside Torch-dialect ops, so operand types are left open (``!torch.vtensor`` or ``tensor``).
"""


import re
from collections.abc import Sequence
from typing import Any

from torch_mlir import ir
from torch_mlir.dialects import ext

from ._base import Rules, verify_with_rules


class Ipu(ext.Dialect, name="ipu"):
    pass


class IpuOp(Ipu.Operation):
    """Base of every ``ipu`` op: runs the op's ``check`` rules as its verifier."""

    def verify_invariants(self) -> bool:
        return verify_with_rules(self, self.check)

    def check(self, v: Rules) -> None:  # pragma: no cover - overridden
        pass


_TORCH_SHAPE = re.compile(r"^!torch\.vtensor<\[([^\]]*)\],")


def static_rank(type_: ir.Type) -> int | None:
    """Rank of a builtin ranked tensor or a ``!torch.vtensor<[...],dt>``; None if unknown."""
    if isinstance(type_, ir.RankedTensorType):
        return ir.RankedTensorType(type_).rank
    match = _TORCH_SHAPE.match(str(type_))
    if match is None:
        return None
    dims = match.group(1).strip()
    return 0 if not dims else len(dims.split(","))


def _arity(v: Rules, op: ir.OpView, operands: int, results: int) -> None:
    """Operand and result counts, checked before the rules read ``op.input`` and friends.

    Our verifier runs before the IRDL one, so a wrong count would otherwise surface as
    an IndexError from the generated accessors instead of a diagnostic.
    """
    v.count(list(op.operation.operands), operands, "operands")
    v.count(list(op.operation.results), results, "results")


def _same_type(v: Rules, a: ir.Value, b: ir.Value, what: str) -> None:
    v.require(a.type == b.type, f"{what}: result type {b.type} must equal input type {a.type}")


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
    return BlockAttr.get(ir.StringAttr.get(user_id), ir.IntegerAttr.get(ir.IntegerType.get_signless(64), ipu_id))


STRATEGY_ATTR = "ipu.strategy"  # on the step function: the execution strategy (read by ipu-assign-stages)


def strategy_attribute(data: dict[str, Any]) -> ir.Attribute:
    """Build ``ipu.strategy`` from plain Python data (used by the driver)."""

    def value(v: Any) -> ir.Attribute:
        if isinstance(v, bool):
            return ir.BoolAttr.get(v)
        if isinstance(v, int):
            return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), v)
        if isinstance(v, str):
            return ir.StringAttr.get(v)
        if isinstance(v, list | tuple):
            return ir.ArrayAttr.get([value(x) for x in v])
        if isinstance(v, dict):
            return ir.DictAttr.get({k: value(x) for k, x in v.items()})
        raise TypeError(f"cannot store {v!r} in ipu.strategy")

    return value(data)


# ---------------------------------------------------------------------------------------
# Model ops
# ---------------------------------------------------------------------------------------


class PrintTensorOp(IpuOp, name="print_tensor"):
    """Prints a tensor when the program executes it, then forwards it unchanged.

    Semantics: identity with a side effect (``poptorch.ipu_print_tensor(t, title)``).
    In the backward pass the gradient is printed with the title suffixed ``"_grad"``.

    Example:
      %1 = "ipu.print_tensor"(%0) {title = "act"} : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
    """

    input: ext.Operand[Any]
    title: ir.StringAttr
    output: ext.Result[Any]

    def check(self, v: Rules) -> None:
        _arity(v, self, 1, 1)
        v.string("title")
        _same_type(v, self.input, self.output, "print_tensor")


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
        _arity(v, self, 1, 1)
        reduction = v.string("reduction", choices=("sum", "mean", "none"))
        if reduction == "none":
            _same_type(v, self.input, self.output, "identity_loss with reduction \"none\"")
        else:
            rank = static_rank(self.output.type)
            v.require(rank in (None, 0), f"result must be a scalar (rank 0) for reduction \"{reduction}\", got rank {rank}")


class NopOp(IpuOp, name="nop"):
    """An identity that no optimisation removes (``poptorch.nop``).

    Example:
      %1 = "ipu.nop"(%0) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
    """

    input: ext.Operand[Any]
    output: ext.Result[Any]

    def check(self, v: Rules) -> None:
        _arity(v, self, 1, 1)
        _same_type(v, self.input, self.output, "nop")


class RecomputationCheckpointOp(IpuOp, name="recomputation_checkpoint"):
    """Marks a tensor to keep (not recompute) in pipelined training.

    Semantics: identity (``poptorch.recomputationCheckpoint``; one op per checkpointed
    tensor); the pipeline scheduler stashes these values and recomputes the ops between
    checkpoints.

    Example:
      %1 = "ipu.recomputation_checkpoint"(%a) : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
    """

    input: ext.Operand[Any]
    output: ext.Result[Any]

    def check(self, v: Rules) -> None:
        _arity(v, self, 1, 1)
        _same_type(v, self.input, self.output, "recomputation_checkpoint")


class SetAvailableMemoryOp(IpuOp, name="set_available_memory"):
    """Sets the proportion of tile memory the producing matmul/conv may use for temporaries.

    Semantics: identity (``poptorch.set_available_memory(t, proportion)``); the
    ``proportion`` (in (0, 1]) is read by the planner of the op producing ``input``.

    Example:
      %1 = "ipu.set_available_memory"(%0) {proportion = 0.3 : f64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    """

    input: ext.Operand[Any]
    proportion: ir.FloatAttr
    output: ext.Result[Any]

    def check(self, v: Rules) -> None:
        _arity(v, self, 1, 1)
        v.float("proportion", min=0.0, max=1.0, min_exclusive=True)
        _same_type(v, self.input, self.output, "set_available_memory")


# ---------------------------------------------------------------------------------------
# Training ops
# ---------------------------------------------------------------------------------------


class _UpdateOp(IpuOp):
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
    """

    REQUIRED_HYPER = ("lr",)
    ALLOWED_HYPER = ()
    STEPS = 0  # 1 for the optimizers that count steps (bias correction)

    def state_count(self, v: Rules) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    def step_count(self, v: Rules) -> int:
        return self.STEPS

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
            v.require(name in self.ALLOWED_HYPER, f"unknown hyper-parameter \"{name}\"; allowed: {', '.join(self.ALLOWED_HYPER)}")
        for name in self.REQUIRED_HYPER:
            v.require(name in names, f"requires hyper-parameter \"{name}\"")
        expected_state = self.state_count(v)
        v.require(n_state == expected_state, f"expects {expected_state} state operands, got {n_state}")
        steps = self.step_count(v)
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


class SgdUpdateOp(_UpdateOp, name="sgd_update"):
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

    weight: ext.Operand[Any]
    grad: ext.Operand[Any]
    state: Sequence[ext.Operand[Any]]
    step: Sequence[ext.Operand[Any]]
    hyper: Sequence[ext.Operand[Any]]
    hyper_names: ir.ArrayAttr
    variant: ir.StringAttr
    with_momentum: ir.IntegerAttr
    nesterov: ir.IntegerAttr
    new_weight: ext.Result[Any]
    new_state: Sequence[ext.Result[Any]]
    new_step: Sequence[ext.Result[Any]]

    ALLOWED_HYPER = ("lr", "momentum", "dampening", "weight_decay", "velocity_scaling", "loss_scaling")

    def state_count(self, v: Rules) -> int:
        v.string("variant", choices=("separate", "combined"))
        momentum = v.bool("with_momentum")
        nesterov = v.bool("nesterov")
        v.require(not nesterov or momentum, "nesterov requires with_momentum")
        return 1 if momentum else 0

    def step_count(self, v: Rules) -> int:
        # With momentum, the first step sets the velocity to the gradient (no dampening),
        # as torch.optim.SGD does: the step count tells the first step apart.
        return 1 if v.bool("with_momentum") else 0


class AdamUpdateOp(_UpdateOp, name="adam_update"):
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

    weight: ext.Operand[Any]
    grad: ext.Operand[Any]
    state: Sequence[ext.Operand[Any]]
    step: Sequence[ext.Operand[Any]]
    hyper: Sequence[ext.Operand[Any]]
    hyper_names: ir.ArrayAttr
    variant: ir.StringAttr
    bias_correction: ir.IntegerAttr
    new_weight: ext.Result[Any]
    new_state: Sequence[ext.Result[Any]]
    new_step: Sequence[ext.Result[Any]]

    ALLOWED_HYPER = ("lr", "beta1", "beta2", "eps", "weight_decay", "loss_scaling")
    STEPS = 1

    def state_count(self, v: Rules) -> int:
        v.string("variant", choices=("adam", "adamw"))
        v.bool("bias_correction")
        return 2


class RmspropUpdateOp(_UpdateOp, name="rmsprop_update"):
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

    weight: ext.Operand[Any]
    grad: ext.Operand[Any]
    state: Sequence[ext.Operand[Any]]
    step: Sequence[ext.Operand[Any]]
    hyper: Sequence[ext.Operand[Any]]
    hyper_names: ir.ArrayAttr
    centered: ir.IntegerAttr
    with_momentum: ir.IntegerAttr
    use_tf_variant: ir.IntegerAttr
    new_weight: ext.Result[Any]
    new_state: Sequence[ext.Result[Any]]
    new_step: Sequence[ext.Result[Any]]

    ALLOWED_HYPER = ("lr", "alpha", "eps", "momentum", "weight_decay", "loss_scaling")

    def state_count(self, v: Rules) -> int:
        v.bool("use_tf_variant")
        return 1 + int(v.bool("with_momentum")) + int(v.bool("centered"))


class LambUpdateOp(_UpdateOp, name="lamb_update"):
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

    weight: ext.Operand[Any]
    grad: ext.Operand[Any]
    state: Sequence[ext.Operand[Any]]
    step: Sequence[ext.Operand[Any]]
    hyper: Sequence[ext.Operand[Any]]
    hyper_names: ir.ArrayAttr
    bias_correction: ir.IntegerAttr
    new_weight: ext.Result[Any]
    new_state: Sequence[ext.Result[Any]]
    new_step: Sequence[ext.Result[Any]]

    ALLOWED_HYPER = ("lr", "beta1", "beta2", "eps", "weight_decay", "max_weight_norm", "loss_scaling")
    STEPS = 1

    def state_count(self, v: Rules) -> int:
        v.bool("bias_correction")
        return 2


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
        _arity(v, self, 3, 1)
        v.string("reduction", choices=("sum", "mean"))
        v.string("strategy", choices=("running", "post"))
        v.require(self.accumulator.type == self.grad.type, f"grad type {self.grad.type} must equal accumulator type {self.accumulator.type}")
        _same_type(v, self.accumulator, self.output, "accumulate_grad")


class ReplicaReduceOp(IpuOp, name="replica_reduce"):
    """Reduces a tensor across the R replicas (gradients before the update).

    Semantics: ``kind`` ``"sum"`` or ``"mean"`` over ``replication_factor`` (>= 1)
    replicas; every replica receives the result. Lowered to ``poplar.gcl_all_reduce``.

    Example:
      %1 = "ipu.replica_reduce"(%0) {kind = "mean", replication_factor = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    """

    input: ext.Operand[Any]
    kind: ir.StringAttr
    replication_factor: ir.IntegerAttr
    output: ext.Result[Any]

    def check(self, v: Rules) -> None:
        _arity(v, self, 1, 1)
        v.string("kind", choices=("sum", "mean"))
        v.int("replication_factor", min=1)
        _same_type(v, self.input, self.output, "replica_reduce")


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
        _arity(v, self, 2, 1)
        v.string("mode", choices=("scale", "unscale"))
        rank = static_rank(self.scale.type)
        v.require(rank in (None, 0), f"scale must be a scalar (rank 0), got rank {rank}")
        _same_type(v, self.input, self.output, "loss_scale")


def register_traits() -> None:
    """Attach the traits that ``ext`` cannot declare (none for ``ipu`` yet)."""

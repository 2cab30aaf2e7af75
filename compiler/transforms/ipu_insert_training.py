"""ipu-insert-training: turns a joint forward + backward function into a training step.

Input: the Torch-dialect joint function from ``capture_training`` (argument and result
roles in ``#ipu.role``) with an ``#ipu.optimizer``.
Output: a function that seeds the backward pass with the loss scale and ends with one
``ipu`` optimizer update op per trainable parameter. Gradients leave the function's
results; new weights (``weight_update``) and optimizer state (``state_update``) take
their place, and the optimizer's hyper-parameters (``hyper``) and state
(``optimizer_state``) become arguments that the runtime keeps on the device.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from torch_mlir import ir
from torch_mlir.dialects import func as func_d

from ipu_mlir.dialects import ipu as ipu_d
from ipu_mlir.dialects._base import build
from ipu_mlir.dialects.ipu import (
    ARGUMENTS,
    OPTIMIZER_ATTR,
    RESULTS,
    ROLE_ATTR,
    UPDATE_FUNC,
    MeanStrategy,
    Optimizer,
    Reduction,
    RoleKind,
    optimizer_of,
    read_roles,
    write_roles,
)

from ipu_mlir.dialects import ipu_training
from ipu_mlir.dialects.ipu_anchor import result_output_modes, set_result_output_mode
from ipu_mlir.dialects.ipu_training import REPLICA_GROUP_ATTR
from ipu_mlir.dialects.pipeline import plan_of
from ipu_mlir.dialects.poplar import TensorLocations, tensor_locations_of
from ipu_mlir.dialects.poplar.gcl import CommGroup, CommGroupAttr, CommGroupKind
from ipu_mlir.support.ir_build import i64, string

from .. import replica_sharding
from ..replica_sharding import ShardPlan
from ..gradient_math import (
    STATE_DTYPES,
    TORCH_DTYPE_CODES,
    auto_loss_scale,
    cast,
    clip_by_global_norm,
    literal,
    scalar_type,
    torch_bool,
    torch_int,
    torch_none,
    torch_op,
    widest,
    with_dtype,
)
from ..pass_base import Diagnostics, ModulePass, PassFailure
from ..torch_ir import vtensor_shape_dtype

COUNTER = "accumulation_count"  # micro-batches accumulated since the last update


def _roles(func: ir.Operation, which: str) -> list[tuple[RoleKind, str]]:
    """(kind, name) of every argument or result; ValueError if one has no role."""
    roles = read_roles(func, which)
    what = "argument" if which == ARGUMENTS else "result"
    for index, role in enumerate(roles):
        if role is None:
            raise ValueError(f"{what} #{index} has no '{ROLE_ATTR}' (set by the training frontend)")
    return [(role.kind, role.name) for role in roles]


@dataclasses.dataclass(frozen=True)
class InsertTraining(ModulePass):
    """Seed the backward pass with the loss scale and apply the optimizer to every gradient.

    Preconditions: one ``func.func`` whose arguments and results have ``#ipu.role``s
    (``parameter``, ``buffer``, ``input``, one ``loss_grad``; ``buffer_update``,
    ``loss``, ``output``, ``grad``) and an ``#ipu.optimizer`` (kind, flags, groups,
    param_groups, constants, max_grad_norm). Its ``constants`` (``"<group>.<name>" =
    value``) compiles those hyper-parameters in; its ``max_grad_norm`` clips all gradients
    by their global norm before the updates.

    The loss-gradient argument becomes the loss scale (the hyper-parameter
    ``loss_scaling``, broadcast to the loss's shape): the loss is scaled before the
    backward pass and the update ops divide by the same scale. Hyper-parameters are
    arguments named ``<group>.<name>`` (``loss_scaling`` is global), so the host can
    change them between runs without recompiling.

    With gradient accumulation (G > 1) the step instead adds each gradient into an
    accumulator (``ipu.accumulate_grad``: Sum, Mean with the Running strategy, or Mean
    with the Post strategy dividing by G in the update), and a new function ``@update``
    applies the optimizer to the accumulators and zeroes them; the program runs it
    once per G steps.

    Arguments:
      gradient-accumulation: micro-batches per optimizer step (G, default 1).
      reduction: mean | sum (how accumulated gradients combine; default mean).
      strategy: post | running (mean strategy; default post).
      auto-loss-scaling: adjust the loss scale after every update from the gradients'
        statistics (see auto_loss_scale); default false.
      replication-factor: replicas of the step, in all processes (R, default 1). With R > 1
        every gradient is reduced across the replicas (``ipu.replica_reduce``, the mean or
        the sum as ``reduction`` says) before clipping, loss scaling and the update: after
        accumulation with G > 1, in ``@update``, so a step reduces once. Mean divides by
        R, so the update uses the mean over G x R micro-batches, as SEMANTICS says. A
        parameter whose argument has ``ipu.replica_group`` (a weight grouped across
        replicas) is reduced within its groups only.
      broadcast-buffers: with R > 1, each updated buffer (``buffer_update``) is replica 0's
        on every replica (``ipu.replica_broadcast``); default true.
      state-types: ``<state>:<dtype>`` entries (dtype f16 | f32) giving the element type of
        an optimizer state tensor (``velocity``, ``exp_avg``, ``exp_avg_sq``, ``square_avg``,
        ``momentum_buffer``, ``grad_avg``) or of the gradient accumulators (``accum``), as
        the optimizer's ``accum_type`` / ``*_accum_type`` say; unnamed state takes its
        weight's type. The update op itself runs in the widest of the weight's, gradient's
        and state's types (its operands cast there), and casts each result back to the type
        it is stored in; a gradient is cast to its accumulator's type before it is added.
    """

    name: ClassVar[str] = "ipu-insert-training"
    gradient_accumulation: int = 1
    reduction: str = "mean"
    strategy: str = "post"
    auto_loss_scaling: bool = False
    replication_factor: int = 1
    broadcast_buffers: bool = True
    state_types: tuple[str, ...] = ()

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        problems = []
        if self.gradient_accumulation < 1:
            problems.append(f"gradient-accumulation must be >= 1, got {self.gradient_accumulation}")
        if self.replication_factor < 1:
            problems.append(f"replication-factor must be >= 1, got {self.replication_factor}")
        for parse in (lambda: Reduction.parse(self.reduction, "reduction"),
                      lambda: MeanStrategy.parse(self.strategy, "strategy")):
            try:
                parse()
            except ValueError as error:
                problems.append(str(error))
        try:
            self._state_dtypes()
        except ValueError as error:
            problems.append(str(error))
        for problem in problems:
            diag.error(module, f"ipu-insert-training: {problem}")
        if problems:
            return
        funcs = [op.operation for op in module.regions[0].blocks[0].operations if op.operation.name == "func.func"]
        if len(funcs) != 1:
            diag.error(module, f"ipu-insert-training expects one func.func, found {len(funcs)}")
            return
        try:
            self._rewrite(funcs[0], diag, tensor_locations_of(module))
        except ValueError as error:
            diag.error(funcs[0], f"ipu-insert-training: {error}")

    def _state_dtypes(self) -> dict[str, str]:
        """``state-types`` as state name -> element type; ValueError if malformed."""
        found = {}
        for entry in self.state_types:
            name, sep, dtype = entry.partition(":")
            if not sep or not name or dtype not in STATE_DTYPES:
                raise ValueError(f"state-types entry '{entry}' must be <state>:<dtype> with dtype one of "
                                 f"{', '.join(STATE_DTYPES)}")
            found[name] = dtype
        return found

    def _rewrite(self, func: ir.Operation, diag: Diagnostics, locations: TensorLocations) -> None:
        spec = optimizer_of(func)
        body = func.regions[0].blocks[0]
        args = list(body.arguments)
        arg_roles = _roles(func, ARGUMENTS)
        terminator = list(body.operations)[-1].operation
        results = list(terminator.operands)
        res_roles = _roles(func, RESULTS)
        loss_grads = [i for i, (kind, _) in enumerate(arg_roles) if kind == RoleKind.LOSS_GRAD]
        if len(loss_grads) != 1:
            raise ValueError(f"expects exactly one 'loss_grad' argument, found {len(loss_grads)}")
        params = {name: args[i] for i, (kind, name) in enumerate(arg_roles) if kind == RoleKind.PARAMETER}
        grads = {name: results[i] for i, (kind, name) in enumerate(res_roles) if kind == RoleKind.GRAD}
        for name in grads:
            if name not in params:
                raise ValueError(f"result 'grad' of '{name}' has no matching 'parameter' argument")
        groups = _replica_groups(func, arg_roles)
        # Replicated tensor sharding (compiler/replica_sharding.py): weight -> what is sharded
        # of it; ``sharded`` holds the weights whose update runs on the replica's parts.
        plans = replica_sharding.plan_sharding(locations, spec, params, grads, groups, self.replication_factor,
                                               self.gradient_accumulation)
        replica_sharding.check_pipelined(plans, plan_of(func))
        sharded = {name: plan for name, plan in plans.items() if plan.on_parts}
        for name, plan in plans.items():
            if plan.weight:  # the argument becomes the part, gathered where the passes read it
                replica_sharding.gather_weight(body, params[name], plan.shard)
        # Clipping and automatic loss scaling need whole gradients: reduced whole, then each
        # replica takes its part; otherwise the gradient is reduce-scattered.
        scatter = spec.max_grad_norm is None and not self.auto_loss_scaling
        state_shards = replica_sharding.sharded_arguments(plans, spec.update_op.state_names(spec.flags))

        scalar = scalar_type()
        new_args: list[tuple[RoleKind, str, ir.Type]] = []  # appended arguments
        hyper_values: dict[str, ir.Value] = {}

        def add_arg(kind: RoleKind, name: str, type_: ir.Type) -> ir.Value:
            value = body.add_argument(type_, func.location)
            new_args.append((kind, name, type_))
            return value

        def hyper(group: int, name: str) -> ir.Value:
            key = "loss_scaling" if name == "loss_scaling" else f"{group}.{name}"
            if key not in hyper_values:
                if key in spec.constants:  # marked constant: compiled in, changing it recompiles
                    hyper_values[key] = literal(spec.constants[key], body)
                else:
                    hyper_values[key] = add_arg(RoleKind.HYPER, key, scalar)
            return hyper_values[key]

        # The backward pass starts from the loss scale instead of d loss / d loss = 1.
        seed = args[loss_grads[0]]
        loss_scale = hyper(0, "loss_scaling")
        if seed.type != scalar:
            first_use = next(iter(seed.uses)).owner if list(seed.uses) else terminator
            with func.location, ir.InsertionPoint(first_use):
                shape, dtype = vtensor_shape_dtype(seed.type)
                value = loss_scale
                if dtype != "f32":  # e.g. a float16 loss: the seed takes the loss's type
                    value = torch_op("torch.aten.to.dtype", ir.Type.parse(f"!torch.vtensor<[],{dtype}>"), value,
                                      torch_int(TORCH_DTYPE_CODES[dtype]), torch_bool(False), torch_bool(False), torch_none())
                if shape:
                    sizes = [torch_int(d) for d in shape]
                    size_list = ir.Operation.create("torch.prim.ListConstruct", results=[ir.Type.parse("!torch.list<int>")], operands=sizes)
                    value = torch_op("torch.aten.expand", seed.type, value, size_list.result, torch_bool(False))
            seed.replace_all_uses_with(value)
        else:
            seed.replace_all_uses_with(loss_scale)
        # Read the results again: one of them may have been the seed itself.
        results = list(terminator.operands)
        grads = {name: results[i] for i, (kind, name) in enumerate(res_roles) if kind == RoleKind.GRAD}

        if self.gradient_accumulation == 1:
            with terminator.location, ir.InsertionPoint(terminator):
                grads = self._reduce_across_replicas(grads, groups, sharded if scatter else {})
                new_scale = auto_loss_scale(grads, loss_scale) if self.auto_loss_scaling else None
                if spec.max_grad_norm is not None:
                    grads = clip_by_global_norm(grads, spec.max_grad_norm, loss_scale)
                grads = _local_parts(grads, {} if scatter else sharded)
                updates = _apply_updates(spec, params, grads, add_arg, hyper, self._state_dtypes(), sharded)
                if new_scale is not None:
                    updates.append((RoleKind.STATE_UPDATE, "loss_scaling", new_scale))
        else:
            updates = self._accumulate(func, spec, params, grads, add_arg, terminator, groups, plans, scatter)

        kept = [(role, value) for role, value in zip(res_roles, results, strict=True) if role[0] != RoleKind.GRAD]
        # An anchored result keeps its #ipu.output_mode (the signature below writes roles only).
        kept_modes = [mode for role, mode in zip(res_roles, result_output_modes(func), strict=True) if role[0] != RoleKind.GRAD]
        if self.replication_factor > 1 and self.broadcast_buffers:
            with terminator.location, ir.InsertionPoint(terminator):
                kept = [(role, build(ipu_training.ReplicaBroadcastOp, value, i64(self.replication_factor), value.type).result
                         if role[0] == RoleKind.BUFFER_UPDATE else value) for role, value in kept]
        new_results = [value for _, value in kept] + [value for _, _, value in updates]
        new_res_roles = [role for role, _ in kept] + [(kind, name) for kind, name, _ in updates]
        with terminator.location, ir.InsertionPoint(terminator):
            func_d.ReturnOp(new_results)
        terminator.erase()
        body.erase_argument(loss_grads[0])
        all_args = [role for i, role in enumerate(arg_roles) if i != loss_grads[0]] + [(k, n) for k, n, _ in new_args]
        _set_signature(func, all_args, new_res_roles, new_results)
        replica_sharding.mark_sharded_arguments(func, state_shards)
        for index, mode in enumerate(kept_modes):
            if mode is not None:
                set_result_output_mode(func, index, mode)
        del func.attributes[OPTIMIZER_ATTR]
        if diag.failed:
            raise PassFailure()

    def _accumulate(self, func: ir.Operation, spec: Optimizer, params: dict[str, ir.Value], grads: dict[str, ir.Value],
                    add_arg: Any, terminator: ir.Operation, groups: dict[str, ir.Attribute],
                    plans: dict[str, ShardPlan], scatter: bool) -> list[tuple[str, str, ir.Value]]:
        """G > 1: the step adds its gradients into accumulators; a second function,
        ``@update``, applies the optimizer to them once per G steps and zeroes them. A sharded
        accumulator adds the replica's part of each micro-batch's reduced gradient."""
        sharded = {name: plan for name, plan in plans.items() if plan.on_parts}
        scalar = scalar_type()
        updates: list[tuple[RoleKind, str, ir.Value]] = []
        count = add_arg(RoleKind.ACCUMULATOR, COUNTER, scalar)
        accum_dtype = self._state_dtypes().get("accum")
        accum_types: dict[str, ir.Type] = {}
        with terminator.location, ir.InsertionPoint(terminator):
            one = torch_int(1)
            new_count = ir.Operation.create("torch.aten.add.Scalar", results=[scalar], operands=[count, one, one]).result
            updates.append((RoleKind.ACCUMULATOR_UPDATE, COUNTER, new_count))
            for name, grad in grads.items():
                grad = cast(grad, accum_dtype)
                if name in plans and plans[name].accumulator:  # reduce-scattered per micro-batch
                    grad = replica_sharding.shard(grad, self.reduction, plans[name].shard)
                accumulator = add_arg(RoleKind.ACCUMULATOR, f"{name}/accum", grad.type)
                accum_types[name] = grad.type
                op = build(ipu_d.AccumulateGradOp, accumulator, grad, new_count, string(self.reduction),
                           string(self.strategy), grad.type)
                updates.append((RoleKind.ACCUMULATOR_UPDATE, f"{name}/accum", op.result))

        # @update(parameters, accumulators, state, hyper) -> new weights, state, zeroed accumulators
        roles: list[tuple[RoleKind, str]] = []
        types: list[ir.Type] = []
        for name, weight in params.items():
            if name in grads:
                roles.append((RoleKind.PARAMETER, name))
                types.append(weight.type)
        for name in grads:
            roles.append((RoleKind.ACCUMULATOR, f"{name}/accum"))
            types.append(accum_types[name])
        with func.location, ir.InsertionPoint(func):
            update = func_d.FuncOp(UPDATE_FUNC, (types, []))
        block = update.add_entry_block()
        extra: list[tuple[RoleKind, str]] = []

        def add_update_arg(kind: RoleKind, name: str, type_: ir.Type) -> ir.Value:
            extra.append((kind, name))
            return block.add_argument(type_, func.location)

        hypers: dict[str, ir.Value] = {}

        def update_hyper(group: int, name: str) -> ir.Value:
            key = "loss_scaling" if name == "loss_scaling" else f"{group}.{name}"
            if key not in hypers:
                if key in spec.constants:
                    hypers[key] = literal(spec.constants[key], block)
                else:
                    hypers[key] = add_update_arg(RoleKind.HYPER, key, scalar)
            return hypers[key]

        arguments = list(block.arguments)
        update_params = {name: arguments[i] for i, (kind, name) in enumerate(roles) if kind == RoleKind.PARAMETER}
        accumulators = {name[: -len("/accum")]: arguments[i] for i, (kind, name) in enumerate(roles)
                        if kind == RoleKind.ACCUMULATOR}
        results: list[tuple[RoleKind, str, ir.Value]] = []
        with func.location, ir.InsertionPoint(block):
            effective = {}
            for name, accumulator in accumulators.items():
                if self.reduction == Reduction.MEAN and self.strategy == MeanStrategy.POST:
                    factor = torch_int(self.gradient_accumulation)
                    effective[name] = ir.Operation.create("torch.aten.div.Scalar", results=[accumulator.type],
                                                          operands=[accumulator, factor]).result
                else:
                    effective[name] = accumulator
            effective = replica_sharding.reduce_accumulated(
                effective, plans, scatter, lambda grads, scattered: self._reduce_across_replicas(grads, groups, scattered))
            new_scale = auto_loss_scale(effective, update_hyper(0, "loss_scaling")) if self.auto_loss_scaling else None
            if spec.max_grad_norm is not None:
                effective = clip_by_global_norm(effective, spec.max_grad_norm, update_hyper(0, "loss_scaling"))
            effective = _local_parts(effective, {} if scatter else sharded)
            results.extend(_apply_updates(spec, update_params, effective, add_update_arg, update_hyper,
                                          self._state_dtypes(), sharded))
            if new_scale is not None:
                results.append((RoleKind.STATE_UPDATE, "loss_scaling", new_scale))
            none = torch_none()
            for name, accumulator in accumulators.items():
                zero = ir.Operation.create("torch.aten.zeros_like", results=[accumulator.type],
                                           operands=[accumulator, none, none, none, none, none]).result
                results.append((RoleKind.ACCUMULATOR_UPDATE, f"{name}/accum", zero))
            count_arg = add_update_arg(RoleKind.ACCUMULATOR, COUNTER, scalar)
            zero_count = ir.Operation.create("torch.aten.zeros_like", results=[scalar],
                                             operands=[count_arg, none, none, none, none, none]).result
            results.append((RoleKind.ACCUMULATOR_UPDATE, COUNTER, zero_count))
            func_d.ReturnOp([value for _, _, value in results])
        _set_signature(update.operation, roles + extra, [(k, n) for k, n, _ in results], [v for _, _, v in results])
        replica_sharding.mark_sharded_arguments(update.operation,
                                                replica_sharding.sharded_arguments(plans, spec.update_op.state_names(spec.flags)))
        return updates

    def _reduce_across_replicas(self, grads: dict[str, ir.Value], groups: dict[str, ir.Attribute],
                                sharded: dict[str, ShardPlan]) -> dict[str, ir.Value]:
        """Each gradient reduced across the replicas of its groups (at the current insertion
        point): all replicas, or a grouped weight's groups; a group of one needs nothing. A
        gradient in ``sharded`` is reduce-scattered: the replica's part of the reduction."""
        if self.replication_factor == 1:
            return grads
        everyone = CommGroupAttr.build(CommGroupKind.ALL, 0)
        reduced = {}
        for name, grad in grads.items():
            if name in sharded:
                reduced[name] = replica_sharding.shard(grad, self.reduction, sharded[name].shard)
                continue
            group = groups.get(name, everyone)
            if CommGroup.from_attr(group).group_size(self.replication_factor) == 1:
                reduced[name] = grad
                continue
            reduced[name] = build(ipu_d.ReplicaReduceOp, grad, string(self.reduction), i64(self.replication_factor),
                                  group, grad.type).result
        return reduced


def _replica_groups(func: ir.Operation, arg_roles: list[tuple[RoleKind, str]]) -> dict[str, ir.Attribute]:
    """Parameter name -> its ``ipu.replica_group`` (a weight grouped across replicas)."""
    found = {}
    for index, (kind, name) in enumerate(arg_roles):
        entry = ir.DictAttr(ir.ArrayAttr(func.attributes[ARGUMENTS])[index])
        if kind == RoleKind.PARAMETER and REPLICA_GROUP_ATTR in entry:
            found[name] = entry[REPLICA_GROUP_ATTR]
    return found


def _set_signature(func: ir.Operation, arg_roles: list[tuple[RoleKind, str]], res_roles: list[tuple[RoleKind, str]],
                   results: list[ir.Value]) -> None:
    body = func.regions[0].blocks[0]
    arg_types = [a.type for a in body.arguments]
    func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(arg_types, [v.type for v in results]))
    write_roles(func, ARGUMENTS, arg_roles)
    write_roles(func, RESULTS, res_roles)


def _local_parts(grads: dict[str, ir.Value], sharded: dict[str, ShardPlan]) -> dict[str, ir.Value]:
    """Each (whole, reduced) gradient in ``sharded`` as the replica's part of it."""
    return {name: replica_sharding.shard(grad, "local", sharded[name].shard) if name in sharded else grad
            for name, grad in grads.items()}


def _apply_updates(spec: Optimizer, params: dict[str, ir.Value], grads: dict[str, ir.Value], add_arg: Any,
                   hyper: Any, state_dtypes: dict[str, str],
                   sharded: dict[str, ShardPlan]) -> list[tuple[RoleKind, str, ir.Value]]:
    """One update op per gradient (at the current insertion point); returns the results' roles.
    Each state argument has the element type ``state_dtypes`` gives it (default: its weight's);
    the op runs in the widest type of weight, gradient and state, and its results are cast
    back to the types they are stored in. A weight in ``sharded`` (its gradient already the
    replica's part) updates the replica's part of itself with its state parts; the parts are
    gathered into the whole new weight, unless the weight itself is sharded (its argument is
    the part, which the replica keeps)."""
    scalar = scalar_type()
    update_op = spec.update_op
    state_names = update_op.state_names(spec.flags)
    with_step = update_op.counts_steps(spec.flags)
    updates: list[tuple[RoleKind, str, ir.Value]] = []
    for name, grad in grads.items():
        whole = weight = params[name]
        local = name in sharded and not sharded[name].weight  # a whole weight, updated part by part
        if local:
            weight = replica_sharding.shard(whole, "local", sharded[name].shard)
        group = spec.param_groups.get(name, 0)
        weight_dtype = vtensor_shape_dtype(weight.type)[1]
        stored = [state_dtypes.get(s, weight_dtype) for s in state_names]
        state = [add_arg(RoleKind.OPTIMIZER_STATE, f"{name}/{s}", with_dtype(weight.type, dtype))
                 for s, dtype in zip(state_names, stored, strict=True)]
        step = [add_arg(RoleKind.OPTIMIZER_STATE, f"{name}/step", scalar)] if with_step else []
        hyper_values = {h: hyper(group, h) for h in update_op.HYPER_PARAMETERS}
        compute = widest([weight_dtype, vtensor_shape_dtype(grad.type)[1], *stored])
        op = update_op.create(cast(weight, compute), cast(grad, compute), [cast(s, compute) for s in state],
                              step, hyper_values, spec.flags)
        outs = list(op.operation.results)
        new_weight = cast(outs[0], weight_dtype)
        if local:
            new_weight = replica_sharding.unshard(new_weight, whole.type, sharded[name].shard)
        updates.append((RoleKind.WEIGHT_UPDATE, name, new_weight))
        for state_name, dtype, value in zip(state_names, stored, outs[1 : 1 + len(state)], strict=True):
            updates.append((RoleKind.STATE_UPDATE, f"{name}/{state_name}", cast(value, dtype)))
        if with_step:
            updates.append((RoleKind.STATE_UPDATE, f"{name}/step", outs[-1]))
    return updates

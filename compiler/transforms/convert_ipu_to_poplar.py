"""convert-ipu-to-poplar: the ipu optimizer updates, gradient accumulation and replica reduction that
``convert-torch-to-poplar`` kept -> ``poplar.popops_*`` ops in their place, computing what
``torch.optim`` computes."""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any, ClassVar

from torch_mlir import ir

from ipu_mlir.dialects import ipu as ipu_d
from ipu_mlir.support.ir_build import i64, i64_array, tensor_type
from ipu_mlir.support.registry import Registry

from ..lowering import Lowering, Pattern, Unsupported, carry_placement, element_of, shape_of
from ..pass_base import Diagnostics, ModulePass


class ConvertedOperands(Lowering):
    """Builds before the op being replaced; its operands are already builtin tensors."""

    def v(self, value: ir.Value) -> ir.Value:
        if not isinstance(value.type, ir.RankedTensorType):
            raise Unsupported(f"operand {value.get_name()} is {value.type}, not a converted tensor "
                              "(run convert-torch-to-poplar first)")
        return value


# The update ops by IR name; each declares its optimizer's hyper-parameters once.
_UPDATE_OPS = {op.OPERATION_NAME: op for op in ipu_d.UPDATE_OPS.values()}


def _is_combined_sgd(op: ir.Operation) -> bool:
    return op.name == "ipu.sgd_update" and ir.StringAttr(op.attributes["variant"]).value == ipu_d.SgdVariant.COMBINED


def _needed_hyper(op: ir.Operation) -> list[str]:
    """The hyper-parameters the lowering of ``op`` reads (the dialect requires only lr):
    all its optimizer declares, but velocity_scaling only for PopTorch's combined SGD."""
    combined = _is_combined_sgd(op)
    return [name for name in _UPDATE_OPS[op.name].HYPER_PARAMETERS if name != "velocity_scaling" or combined]


def _update_operands(op: ir.Operation) -> tuple[ir.Value, ir.Value, list[ir.Value], list[ir.Value], dict[str, ir.Value]]:
    """(weight, grad, state, step, hyper by name) of an ipu update op, unconverted."""
    sizes = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    values = list(op.operands)
    state = values[2 : 2 + sizes[2]]
    step = values[2 + sizes[2] : 2 + sizes[2] + sizes[3]]
    hyper_values = values[2 + sizes[2] + sizes[3] :]
    names = [ir.StringAttr(a).value for a in ir.ArrayAttr(op.attributes["hyper_names"])]
    hyper = dict(zip(names, hyper_values, strict=True))
    missing = [name for name in _needed_hyper(op) if name not in hyper]
    if missing:
        raise Unsupported(f"the update needs the hyper-parameters {', '.join(missing)} as operands "
                          "(ipu-insert-training passes all of them)")
    return values[0], values[1], state, step, hyper


def lower_sgd_update(lw: Lowering, op: ir.Operation) -> list[Any]:
    """SGD as torch.optim.SGD computes it (PopTorch's separate variant):
    g = grad / loss_scaling + weight_decay * w; v = momentum * v + (1 - dampening) * g
    (velocity starts at zero); d = g + momentum * v (nesterov) or v; w = w - lr * d."""
    weight, grad, state, step, hyper = _update_operands(op)
    w, g = lw.v(weight), lw.v(grad)
    wtype = w.type
    h = {name: lw.v(value) for name, value in hyper.items()}
    if _is_combined_sgd(op) and state:
        return _combined_sgd(lw, op, w, g, lw.v(state[0]), lw.v(step[0]), h)
    g = _scaled_grad(lw, g, h, w)
    results = []
    if state:
        count = lw.v(step[0])
        v = _velocity(lw, lw.v(state[0]), g, count, h)
        nesterov = ir.BoolAttr(op.attributes["nesterov"]).value
        direction = lw.map("add(_1, mul(_2, _3))", [g, v, h["momentum"]], wtype) if nesterov else v
        results += [v, lw.scalar("add(_1, 1.0)", [count])]
    else:
        direction = g
    new_w = lw.map("sub(_1, mul(_2, _3))", [w, direction, h["lr"]], wtype)
    return [new_w, *results]


def _velocity(lw: Lowering, v: ir.Value, g: ir.Value, count: ir.Value, h: dict[str, ir.Value]) -> ir.Value:
    """v * momentum + (1 - dampening) * g, except on the first step (count 0), where the
    velocity becomes the gradient itself (torch.optim.SGD): there momentum and dampening
    count as 0 (v starts at zero), so one expression serves every step and updates v in
    place."""
    first = lw.map("eq(_1, 0.0)", [count], tensor_type([], ir.IntegerType.get_signless(1)))
    momentum = lw.scalar("select(_1, 0.0, _2)", [first, h["momentum"]])
    keep = lw.scalar("select(_1, 1.0, sub(1.0, _2))", [first, h["dampening"]])
    damped = lw.map("mul(_1, _2)", [g, keep], g.type)
    return lw.map("add(mul(_1, _2), _3)", [v, momentum, damped], g.type)


def _combined_sgd(lw: Lowering, op: ir.Operation, w: ir.Value, g: ir.Value, v: ir.Value, count: ir.Value, h: dict[str, ir.Value]) -> list[Any]:
    """PopTorch's combined variant: one velocity tensor kept scaled by velocity_scaling
    (vs); mathematically the separate variant's update.
    g' = vs / ls * g + vs * wd * w; v = momentum * v + (1 - dampening) * g';
    w = w - lr / vs * (nesterov ? g' + momentum * v : v)."""
    wtype = w.type
    scale = lw.scalar("div(_1, _2)", [h["velocity_scaling"], h["loss_scaling"]])
    g = lw.map("mul(_1, _2)", [g, scale], wtype)
    decay = lw.scalar("mul(_1, _2)", [h["velocity_scaling"], h["weight_decay"]])
    g = lw.map("add(_1, mul(_2, _3))", [g, w, decay], wtype)
    v = _velocity(lw, v, g, count, h)
    nesterov = ir.BoolAttr(op.attributes["nesterov"]).value
    direction = lw.map("add(_1, mul(_2, _3))", [g, v, h["momentum"]], wtype) if nesterov else v
    step = lw.scalar("div(_1, _2)", [h["lr"], h["velocity_scaling"]])
    return [lw.map("sub(_1, mul(_2, _3))", [w, direction, step], wtype), v, lw.scalar("add(_1, 1.0)", [count])]


def lower_accumulate_grad(lw: Lowering, op: ir.Operation) -> list[Any]:
    """acc + g (Sum, or Mean with the Post strategy: the update divides by G), or the
    running mean acc + (g - acc) / count (Mean with the Running strategy)."""
    accumulator, grad, count = (lw.v(v) for v in op.operands)
    grad = lw.cast(grad, element_of(accumulator))
    reduction, strategy = (ir.StringAttr(op.attributes[name]).value for name in ("reduction", "strategy"))
    if reduction == ipu_d.Reduction.MEAN and strategy == ipu_d.MeanStrategy.RUNNING:
        return [lw.map("add(_1, div(sub(_2, _1), _3))", [accumulator, grad, count], accumulator.type)]
    return [lw.map("add(_1, _2)", [accumulator, grad], accumulator.type)]


def lower_replica_reduce(lw: Lowering, op: ir.Operation) -> list[Any]:
    """The gradient's sum or mean over the replicas of its group: ``poplar.gcl_all_reduce``
    (``gcl::allReduceCrossReplica``)."""
    from ipu_mlir.dialects.poplar import AllReduceOp

    x = lw.v(op.operands[0])
    kind = ir.StringAttr(op.attributes["kind"]).value
    reduction = "mean" if kind == ipu_d.Reduction.MEAN else "add"
    return [lw.emit(AllReduceOp, x, ir.StringAttr.get(reduction), op.attributes["group"], x.type)]


def lower_replica_broadcast(lw: Lowering, op: ir.Operation) -> list[Any]:
    """Replica 0's value on every replica: ``poplar.gcl_broadcast`` from rank 0 of all replicas."""
    from ipu_mlir.dialects.poplar import CrossReplicaBroadcastOp, CommGroupAttr, CommGroupKind

    x = lw.v(op.operands[0])
    return [lw.emit(CrossReplicaBroadcastOp, x, i64(0), CommGroupAttr.build(CommGroupKind.ALL, 0), x.type)]


def lower_replica_shard(lw: Lowering, op: ir.Operation) -> list[Any]:
    """This replica's part (replicated tensor sharding): the input flattened, zero-padded to
    R * s and reduce-scattered over all replicas (``gcl_reduce_scatter``, op add, mean or local)."""
    from ipu_mlir.dialects.poplar import CommGroupAttr, CommGroupKind, ReduceScatterOp

    x = lw.v(op.operands[0])
    replicas = ir.IntegerAttr(op.attributes["replication_factor"]).value
    part = shape_of(op.results[0])[0]
    flat = lw.reshape(x, [math.prod(shape_of(x))])
    if part * replicas > shape_of(flat)[0]:
        flat = lw.concat([flat, lw.zeros_or_ones(0.0, [part * replicas - shape_of(flat)[0]], element_of(x))], 0)
    kind = ir.StringAttr(op.attributes["kind"]).value
    reduction = {"sum": "add", "mean": "mean", "local": "local"}[kind]
    return [lw.emit(ReduceScatterOp, flat, ir.StringAttr.get(reduction), CommGroupAttr.build(CommGroupKind.ALL, 0),
                    tensor_type([part], element_of(x)))]


def lower_replica_unshard(lw: Lowering, op: ir.Operation) -> list[Any]:
    """The whole tensor from every replica's part: ``gcl_all_gather`` over all replicas, the
    padding sliced off, reshaped."""
    from ipu_mlir.dialects.poplar import AllGatherOp, CommGroupAttr, CommGroupKind, SliceOp

    x = lw.v(op.operands[0])
    replicas = ir.IntegerAttr(op.attributes["replication_factor"]).value
    shape = shape_of(op.results[0])
    elements, padded = math.prod(shape), shape_of(x)[0] * replicas
    whole = lw.emit(AllGatherOp, x, CommGroupAttr.build(CommGroupKind.ALL, 0), tensor_type([padded], element_of(x)))
    if padded > elements:
        whole = lw.emit(SliceOp, whole, i64_array([0]), i64_array([elements]), i64_array([1]),
                        tensor_type([elements], element_of(x)))
    return [lw.reshape(whole, shape)]


def _scaled_grad(lw: Lowering, g: ir.Value, h: dict[str, ir.Value], w: ir.Value | None) -> ir.Value:
    """grad / loss_scaling (+ weight_decay * w when ``w`` is given: L2 decay into the gradient)."""
    if "loss_scaling" in h:
        g = lw.map("div(_1, _2)", [g, h["loss_scaling"]], g.type)
    if w is not None and "weight_decay" in h:
        g = lw.map("add(_1, mul(_2, _3))", [g, w, h["weight_decay"]], g.type)
    return g


def _moments(lw: Lowering, g: ir.Value, m: ir.Value, v: ir.Value, beta1: ir.Value, beta2: ir.Value, lerp: bool) -> tuple[ir.Value, ir.Value]:
    """First and second moments: m = beta1 m + (1 - beta1) g (as a lerp for Adam), v = beta2 v + (1 - beta2) g^2."""
    if lerp:
        m = lw.map("add(_1, mul(sub(1.0, _3), sub(_2, _1)))", [m, g, beta1], m.type)
    else:
        m = lw.map("add(mul(_1, _3), mul(_2, sub(1.0, _3)))", [m, g, beta1], m.type)
    v = lw.map("mul(_1, _2)", [v, beta2], v.type)
    v = lw.map("add(_1, mul(mul(_2, _2), sub(1.0, _3)))", [v, g, beta2], v.type)
    return m, v


def lower_adam_update(lw: Lowering, op: ir.Operation) -> list[Any]:
    """Adam / AdamW as torch.optim computes them (single-tensor path):
    AdamW first decays w by (1 - lr wd), Adam adds wd w to the gradient; then the
    moments, the bias corrections 1 - beta^t and w -= lr / bc1 * m / (sqrt(v) / sqrt(bc2) + eps)."""
    weight, grad, state, step, hyper = _update_operands(op)
    variant = ir.StringAttr(op.attributes["variant"]).value
    correct = ir.BoolAttr(op.attributes["bias_correction"]).value
    w, g = lw.v(weight), lw.v(grad)
    h = {name: lw.v(value) for name, value in hyper.items()}
    m, v = lw.v(state[0]), lw.v(state[1])
    t = lw.scalar("add(_1, 1.0)", [lw.v(step[0])])
    if variant == ipu_d.AdamVariant.ADAMW:
        w = lw.map("mul(_1, sub(1.0, mul(_2, _3)))", [w, h["lr"], h["weight_decay"]], w.type)
        g = _scaled_grad(lw, g, h, None)
    else:
        g = _scaled_grad(lw, g, h, w)
    m, v = _moments(lw, g, m, v, h["beta1"], h["beta2"], lerp=True)
    if correct:
        step_size = lw.scalar("div(_1, sub(1.0, pow(_2, _3)))", [h["lr"], h["beta1"], t])
        bc2_sqrt = lw.scalar("sqrt(sub(1.0, pow(_1, _2)))", [h["beta2"], t])
        denom = lw.map("add(div(sqrt(_1), _2), _3)", [v, bc2_sqrt, h["eps"]], v.type)
    else:
        step_size = h["lr"]
        denom = lw.map("add(sqrt(_1), _2)", [v, h["eps"]], v.type)
    ratio = lw.map("div(_1, _2)", [m, denom], m.type)
    new_w = lw.map("sub(_1, mul(_2, _3))", [w, ratio, step_size], w.type)
    return [new_w, m, v, t]


def lower_rmsprop_update(lw: Lowering, op: ir.Operation) -> list[Any]:
    """RMSprop as torch.optim computes it, or TensorFlow's form (use_tf_variant: the
    squared average starts at 1, eps inside the square root, lr folded into momentum)."""
    weight, grad, state, _, hyper = _update_operands(op)
    centered = ir.BoolAttr(op.attributes["centered"]).value
    with_momentum = ir.BoolAttr(op.attributes["with_momentum"]).value
    tf = ir.BoolAttr(op.attributes["use_tf_variant"]).value
    w = lw.v(weight)
    h = {name: lw.v(value) for name, value in hyper.items()}
    g = _scaled_grad(lw, lw.v(grad), h, w)
    values = [lw.v(s) for s in state]
    square = lw.map("mul(_1, _2)", [values[0], h["alpha"]], w.type)
    square = lw.map("add(_1, mul(mul(_2, _2), sub(1.0, _3)))", [square, g, h["alpha"]], w.type)
    new_state = [square]
    buf = values[1] if with_momentum else None
    if centered:
        grad_avg = values[-1]
        grad_avg = lw.map("add(_1, mul(sub(1.0, _3), sub(_2, _1)))", [grad_avg, g, h["alpha"]], w.type)
        variance = lw.map("sub(_1, mul(_2, _2))", [square, grad_avg], w.type)
    else:
        grad_avg, variance = None, square
    if tf:
        avg = lw.map("sqrt(add(_1, _2))", [variance, h["eps"]], w.type)
    else:
        avg = lw.map("add(sqrt(_1), _2)", [variance, h["eps"]], w.type)
    quotient = lw.map("div(_1, _2)", [g, avg], w.type)
    if with_momentum:
        if tf:
            scaled = lw.map("mul(_1, _2)", [quotient, h["lr"]], w.type)
            buf = lw.map("add(mul(_1, _2), _3)", [buf, h["momentum"], scaled], w.type)
            new_w = lw.map("sub(_1, _2)", [w, buf], w.type)
        else:
            buf = lw.map("add(mul(_1, _2), _3)", [buf, h["momentum"], quotient], w.type)
            new_w = lw.map("sub(_1, mul(_2, _3))", [w, buf, h["lr"]], w.type)
        new_state.append(buf)
    else:
        new_w = lw.map("sub(_1, mul(_2, _3))", [w, quotient, h["lr"]], w.type)
    if centered:
        new_state.append(grad_avg)
    return [new_w, *new_state]


def lower_lamb_update(lw: Lowering, op: ir.Operation) -> list[Any]:
    """LAMB (You et al. 2019): Adam-style moments, u = m^ / (sqrt(v^) + eps) + wd w, then
    w -= lr * phi(||w||) / ||u|| * u with phi(z) = min(z, max_weight_norm) (ratio 1 when
    a norm is 0)."""
    weight, grad, state, step, hyper = _update_operands(op)
    correct = ir.BoolAttr(op.attributes["bias_correction"]).value
    w = lw.v(weight)
    h = {name: lw.v(value) for name, value in hyper.items()}
    g = _scaled_grad(lw, lw.v(grad), h, None)
    t = lw.scalar("add(_1, 1.0)", [lw.v(step[0])])
    m, v = _moments(lw, g, lw.v(state[0]), lw.v(state[1]), h["beta1"], h["beta2"], lerp=False)
    if correct:
        m_hat = lw.map("div(_1, sub(1.0, pow(_2, _3)))", [m, h["beta1"], t], m.type)
        v_hat = lw.map("div(_1, sub(1.0, pow(_2, _3)))", [v, h["beta2"], t], v.type)
    else:
        m_hat, v_hat = m, v
    update = lw.map("div(_1, add(sqrt(_2), _3))", [m_hat, v_hat, h["eps"]], w.type)
    update = lw.map("add(_1, mul(_2, _3))", [update, w, h["weight_decay"]], w.type)
    rank = len(shape_of(w))
    f32 = tensor_type([], element_of(w))
    weight_norm = lw.scalar("sqrt(_1)", [lw.reduce(w, "square_add", list(range(rank)), False, 1.0, f32)])
    weight_norm = lw.scalar("min(_1, _2)", [weight_norm, h["max_weight_norm"]])
    update_norm = lw.scalar("sqrt(_1)", [lw.reduce(update, "square_add", list(range(rank)), False, 1.0, f32)])
    ratio = lw.scalar("select(or(eq(_1, 0.0), eq(_2, 0.0)), 1.0, div(_1, _2))", [weight_norm, update_norm])
    scale = lw.scalar("mul(_1, _2)", [h["lr"], ratio])
    new_w = lw.map("sub(_1, mul(_2, _3))", [w, update, scale], w.type)
    return [new_w, m, v, t]


@functools.cache
def lowering_patterns() -> Registry[Pattern]:
    """The patterns of this pass by op name (one per training op of the ipu dialect)."""
    patterns: Registry[Pattern] = Registry("lowering")
    patterns.register("ipu.sgd_update")(lower_sgd_update)
    patterns.register("ipu.adam_update")(lower_adam_update)
    patterns.register("ipu.rmsprop_update")(lower_rmsprop_update)
    patterns.register("ipu.lamb_update")(lower_lamb_update)
    patterns.register("ipu.accumulate_grad")(lower_accumulate_grad)
    patterns.register("ipu.replica_reduce")(lower_replica_reduce)
    patterns.register("ipu.replica_broadcast")(lower_replica_broadcast)
    patterns.register("ipu.replica_shard")(lower_replica_shard)
    patterns.register("ipu.replica_unshard")(lower_replica_unshard)
    return patterns


def _convert(op: ir.Operation, pattern: Pattern, diag: Diagnostics) -> None:
    """Replace ``op`` by the poplar ops ``pattern`` builds before it (they inherit its placement)."""
    lw = ConvertedOperands(op.block, before=op)
    lw.location = op.location
    try:
        produced = pattern(lw, op)
    except Unsupported as reason:
        for emitted in reversed(lw.emitted):
            emitted.erase()
        diag.error(op, f"'{op.name}' cannot be lowered to the poplar dialect: {reason}")
        return
    carry_placement(op, lw.emitted)
    for old, new in zip(op.results, produced, strict=True):
        old.replace_all_uses_with(new)
    op.erase()


@dataclasses.dataclass(frozen=True)
class ConvertIpuToPoplar(ModulePass):
    """Lower the ipu dialect's optimizer updates and gradient accumulation to poplar ops.

    Preconditions: ``convert-torch-to-poplar`` ran, so the ops' operands are builtin
    tensors; each update op carries every hyper-parameter its optimizer reads (as
    ``ipu-insert-training`` passes them). The replacing ops inherit the op's placement
    attributes (``ipu.block``, ``pipeline.stage``, ``pipeline.ipu``). An op that cannot
    be lowered is a located error naming what is missing.

    Arguments: none.
    """

    name: ClassVar[str] = "convert-ipu-to-poplar"

    def run(self, module: ir.Operation, diag: Diagnostics) -> None:
        patterns = lowering_patterns()
        found: list[ir.Operation] = []

        def collect(op: ir.Operation) -> ir.WalkResult:
            op = op.operation
            if op.name in patterns:
                found.append(op)
            return ir.WalkResult.ADVANCE

        module.walk(collect)
        for op in found:
            _convert(op, patterns[op.name], diag)

"""Random-op lowerings: dropout draws a ``poplar.poprand_dropout`` mask in training
programs and is the identity in inference; ``rand`` / ``randn`` / ``randint`` /
``randperm``, ``multinomial`` and the in-place draws ``uniform_`` / ``normal_`` draw with
``poplar.poprand_*`` (a permutation sorts random keys; multinomial inverts the CDF or takes
the top-k of exponential keys) from the program's generator (seeded by ``Options.randomSeed``), in
inference and training alike."""

from __future__ import annotations

from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import boolean, f64, i64, i64_array, tensor_type
from ipu_mlir.support.registry import Registry

from ... import torch_ir
from ...lowering import (
    Lowering,
    Pattern,
    Unsupported,
    base_name,
    element_of,
    is_float,
    literal,
    result_type,
    shape_of,
)


def lower_native_dropout(lw: Lowering, op: ir.Operation) -> list[Any]:
    """Dropout draws a mask in training programs; in inference it is the identity (mask all true)."""
    x = lw.v(op.operands[0])
    p = lw.const(op.operands[1], "p")
    train = lw.const(op.operands[2], "train")
    mask = result_type(op, 1)
    if lw.training and train and p > 0:
        dropout = lw.emit(pd.DropoutOp, x, f64(p), x.type, tensor_type(mask.shape, ir.IntegerType.get_signless(1)))
        y, keep = list(dropout.operation.results)
        return [y, keep]
    return [x, lw.zeros_or_ones(True, mask.shape, mask.element_type)]


def lower_dropout(lw: Lowering, op: ir.Operation) -> list[Any]:
    """Dropout is the identity in inference (SEMANTICS: "dropout (identity in
    inference)"); training programs replace it before this pass runs."""
    return [lw.v(op.operands[0])]


def _names(op: ir.Operation) -> tuple[str, str]:
    """(``torch.aten.normal``, ``Tensor_float``): the op's packet and overload (registered
    ops and ``torch.operator`` alike)."""
    name = torch_ir.aten_name(op)
    base = base_name(name)
    return base, name.removeprefix(base).lstrip(".")


def _draw(lw: Lowering, cls: type, first: float, second: float, out: ir.RankedTensorType) -> ir.Value:
    """A ``poprand_uniform`` (bounds) or ``poprand_normal`` (mean, std) draw of type ``out``."""
    return lw.emit(cls, f64(first), f64(second), out)


def _float_result(op: ir.Operation) -> ir.RankedTensorType:
    out = result_type(op)
    if not is_float(out.element_type):
        raise Unsupported(f"{_names(op)[0]} with {out.element_type} elements (eager draws floats here; use torch.randint for integers)")
    return out


def _scalars(lw: Lowering, values: list[ir.Value], what: str) -> list[float]:
    return [float(lw.const(v, what)) for v in values]


def lower_uniform_draw(lw: Lowering, op: ir.Operation) -> list[Any]:
    """rand / rand_like (in [0, 1)) and uniform (self, from, to): ``poprand_uniform``."""
    out = _float_result(op)
    low, high = _scalars(lw, list(op.operands[1:3]), "uniform's bounds") if _names(op)[0] == "torch.aten.uniform" else (0.0, 1.0)
    if low > high:
        raise Unsupported(f"uniform_ with from={low} > to={high}")
    return [_draw(lw, pd.UniformOp, low, high, out)]


def lower_randint(lw: Lowering, op: ir.Operation) -> list[Any]:
    """randint (high, size) / randint.low (low, high, size), randint_like (self, high) /
    randint_like.low_dtype (self, low, high): integers in [low, high) from ``poprand_uniform``."""
    name, overload = _names(op)
    first = 1 if name == "torch.aten.randint_like" else 0  # operand 0 of randint_like is self
    count = 2 if overload in ("low", "low_dtype", "low_generator") else 1
    values = [lw.const(v, "randint's bounds") for v in op.operands[first : first + count]]
    if any(not isinstance(v, int) or isinstance(v, bool) for v in values):
        raise Unsupported(f"randint bounds must be integers, got {values}")
    low, high = values if count == 2 else (0, values[0])
    if low >= high:
        raise Unsupported(f"randint needs low < high, got [{low}, {high})")
    out = result_type(op)
    if not is_float(out.element_type):
        return [_draw(lw, pd.UniformOp, low, high, out)]
    # A float randint (randint_like of a float tensor) holds integers: draw them, then convert.
    integers = _draw(lw, pd.UniformOp, low, high, tensor_type(list(out.shape), ir.IntegerType.get_signless(64)))
    return [lw.cast(integers, out.element_type)]


def lower_normal_draw(lw: Lowering, op: ir.Operation) -> list[Any]:
    """randn / randn_like (mean 0, std 1), normal_functional (self, mean, std) and
    normal.float_float (mean, std, size): ``poprand_normal``. normal with a tensor mean or
    std (normal.Tensor_float, .float_Tensor, .Tensor_Tensor) draws a standard normal and
    scales it element-wise: ``mean + std * z``."""
    out = _float_result(op)
    name, overload = _names(op)
    if name in ("torch.aten.randn", "torch.aten.randn_like"):
        return [_draw(lw, pd.NormalOp, 0.0, 1.0, out)]
    first = 1 if name == "torch.aten.normal_functional" else 0  # operand 0 of normal_functional is self
    mean, std = op.operands[first], op.operands[first + 1]
    if not any(torch_ir.is_vtensor(v.type) for v in (mean, std)):
        mean_value, std_value = _scalars(lw, [mean, std], "normal's mean and std")
        if std_value < 0:
            raise Unsupported(f"normal with std {std_value} (it must be >= 0)")
        return [_draw(lw, pd.NormalOp, mean_value, std_value, out)]
    if overload not in ("Tensor_float", "float_Tensor", "Tensor_Tensor"):
        raise Unsupported(f"normal.{overload} (expected a float or tensor mean and std)")
    z = _draw(lw, pd.NormalOp, 0.0, 1.0, out)
    operands = [z]
    terms = []
    for value in (mean, std):
        if torch_ir.is_vtensor(value.type):
            operands.append(lw.cast(lw.v(value), out.element_type))
            terms.append(f"_{len(operands)}")
        else:
            terms.append(literal(float(lw.const(value, "normal's mean and std"))))
    return [lw.map(f"add({terms[0]}, mul({terms[1]}, _1))", operands, out)]


def lower_bernoulli(lw: Lowering, op: ir.Operation) -> list[Any]:
    """bernoulli.p (self, p) and bernoulli.Tensor (self, p: Tensor): 1 where a uniform
    draw in [0, 1) is below ``p``, else 0, in self's dtype (as eager's ``bernoulli_(p)``)."""
    out = _float_result(op)
    u = _draw(lw, pd.UniformOp, 0.0, 1.0, out)
    operands = [u]
    p = op.operands[1]
    if torch_ir.is_vtensor(p.type):
        operands.append(lw.cast(lw.v(p), out.element_type))
        term = "_2"
    else:
        value = float(lw.const(p, "bernoulli's p"))
        if not 0.0 <= value <= 1.0:
            raise Unsupported(f"bernoulli with p={value} (it must be in [0, 1])")
        term = literal(value)
    return [lw.map(f"lt(_1, {term})", operands, out)]


def lower_exponential(lw: Lowering, op: ir.Operation) -> list[Any]:
    """exponential (self, lambd): ``-log1p(-u) / lambd`` of a uniform draw ``u`` in [0, 1)."""
    out = _float_result(op)
    (rate,) = _scalars(lw, [op.operands[1]], "exponential's lambd")
    if rate <= 0:
        raise Unsupported(f"exponential with lambd={rate} (it must be > 0)")
    u = _draw(lw, pd.UniformOp, 0.0, 1.0, out)
    return [lw.map(f"div(neg(log1p(neg(_1))), {literal(rate)})", [u], out)]


def lower_randperm(lw: Lowering, op: ir.Operation) -> list[Any]:
    """randperm (n, dtype=int64), as PopLibs would draw a permutation: ``n`` uniform keys
    (``poprand_uniform``) sorted with ``popops_sort_key_value``, which carries the iota
    ``0 .. n-1`` (a constant in the result's dtype) into the keys' random order. The sort is
    stable, so even equal keys give a permutation."""
    out = result_type(op)
    (n,) = out.shape
    keys = _draw(lw, pd.UniformOp, 0.0, 1.0, tensor_type([n], ir.F32Type.get()))
    make = (lambda i: ir.FloatAttr.get(out.element_type, float(i))) if is_float(out.element_type) else (lambda i: ir.IntegerAttr.get(out.element_type, i))
    iota = lw.emit(pd.ConstantOp, ir.DenseElementsAttr.get([make(i) for i in range(n)], type=out), i64(0), out)
    sort = lw.emit(pd.SortKeyValueOp, keys, iota, i64(0), boolean(False), boolean(True), keys.type, out)
    return [sort.operation.results[1]]


def lower_multinomial(lw: Lowering, op: ir.Operation) -> list[Any]:
    """multinomial (self, num_samples, replacement): ``num_samples`` category indices per row
    of the (unnormalised) weights ``self``, int64.

    With replacement, each sample counts the categories whose running weight
    (``popops_cumulative_sum``) is at most ``u * total`` for a uniform ``u`` in [0, 1)
    (``popops_search_sorted``: the inverse of the CDF). Without replacement, as eager draws it: the ``num_samples`` largest
    keys ``p / e`` (``popops_top_k``) for exponential draws ``e = -log1p(-u)``, which picks
    categories one after another with probability proportional to the weights left."""
    probs, out = lw.v(op.operands[0]), result_type(op)
    count, replacement = lw.const(op.operands[1], "num_samples"), lw.const(op.operands[2], "replacement")
    element = element_of(probs)
    if not is_float(element):
        raise Unsupported(f"multinomial of {element} weights (eager takes float weights)")
    shape = shape_of(probs)
    batch, categories = shape[:-1], shape[-1]
    last = len(shape) - 1
    if not replacement:
        if count > categories:
            raise Unsupported(f"multinomial of {count} samples without replacement from {categories} categories")
        u = _draw(lw, pd.UniformOp, 0.0, 1.0, probs.type)
        keys = lw.map("div(_2, neg(log1p(neg(_1))))", [u, probs], probs.type)
        top = lw.emit(pd.TopKOp, keys, i64(last), i64(count), boolean(True), boolean(True),
                      tensor_type([*batch, count], element), out)
        return [top.operation.results[1]]
    running = lw.emit(pd.CumulativeSumOp, probs, i64(last), probs.type)
    total = lw.emit(pd.SliceOp, running, i64_array([0] * last + [categories - 1]), i64_array(shape), i64_array([1] * len(shape)),
                    tensor_type([*batch, 1], element))
    u = _draw(lw, pd.UniformOp, 0.0, 1.0, tensor_type([*batch, count], element))
    threshold = lw.map("mul(_1, _2)", [u, total], u.type)
    passed = lw.emit(pd.SearchSortedOp, running, threshold, [], boolean(True), out)  # running weights <= threshold
    return [lw.map(f"min(_1, {categories - 1})", [passed], out)]  # u * total rounding up to the total


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: dropout and random draws."""
    patterns.register("torch.aten.native_dropout")(lower_native_dropout)
    patterns.register("torch.aten.dropout", "torch.aten.feature_dropout")(lower_dropout)
    patterns.register("torch.aten.rand", "torch.aten.rand_like", "torch.aten.uniform")(lower_uniform_draw)
    patterns.register("torch.aten.randint", "torch.aten.randint_like")(lower_randint)
    patterns.register("torch.aten.randn", "torch.aten.randn_like", "torch.aten.normal", "torch.aten.normal_functional")(lower_normal_draw)
    patterns.register("torch.aten.bernoulli.p", "torch.aten.bernoulli.Tensor")(lower_bernoulli)
    patterns.register("torch.aten.exponential")(lower_exponential)
    patterns.register("torch.aten.randperm")(lower_randperm)
    patterns.register("torch.aten.multinomial")(lower_multinomial)

"""``popops`` ops of the ``poplar`` dialect: element-wise operations (with the
``popops_map`` expression language and its parser), casts, reductions, slicing,
gathers and scatters, out of place and in place.
"""

import re
from collections.abc import Sequence

from torch_mlir import ir
from torch_mlir.dialects import ext

from .._base import I64ArrayAttr, Rules, RuleViolation
from .base import (
    PoplarOp,
    Tensor,
    TensorResult,
    broadcast_shapes,
    check_broadcast,
    check_dim,
    element_of,
    shape_of,
)

# Element-wise functions usable in ``popops_map`` expressions, with their arity.
MAP_FUNCTIONS: dict[str, int] = {
    # unary
    "neg": 1, "abs": 1, "exp": 1, "expm1": 1, "log": 1, "log1p": 1, "sqrt": 1, "rsqrt": 1,
    "sin": 1, "cos": 1, "tan": 1, "tanh": 1, "sigmoid": 1, "relu": 1, "erf": 1, "floor": 1,
    "ceil": 1, "round": 1, "trunc": 1, "sign": 1, "reciprocal": 1, "square": 1, "not": 1,
    "bitwise_not": 1, "isnan": 1, "isinf": 1, "atan": 1, "asin": 1, "acos": 1,
    "asinh": 1, "acosh": 1, "atanh": 1, "sinh": 1, "cosh": 1, "log2": 1, "log10": 1,
    # binary
    "add": 2, "sub": 2, "mul": 2, "div": 2, "floor_div": 2, "trunc_div": 2, "pow": 2,
    "max": 2, "min": 2, "rem": 2, "fmod": 2, "atan2": 2, "eq": 2, "ne": 2, "lt": 2,
    "le": 2, "gt": 2, "ge": 2, "and": 2, "or": 2, "xor": 2, "bitwise_and": 2,
    "bitwise_or": 2, "bitwise_xor": 2,
    # special functions and the remaining element-wise math (the unary ones as
    # torch.special names them; ``frexp_mantissa`` / ``frexp_exponent`` are frexp's two
    # results; polygamma's first argument is the order n, an integer literal)
    "lgamma": 1, "digamma": 1, "erfc": 1, "erfcx": 1, "erfinv": 1, "exp2": 1, "i0": 1,
    "i0e": 1, "i1": 1, "i1e": 1, "ndtri": 1, "log_ndtr": 1, "bessel_j0": 1, "bessel_j1": 1,
    "bessel_y0": 1, "bessel_y1": 1, "modified_bessel_i0": 1, "modified_bessel_i1": 1,
    "modified_bessel_k0": 1, "modified_bessel_k1": 1, "scaled_modified_bessel_k0": 1,
    "scaled_modified_bessel_k1": 1, "spherical_bessel_j0": 1, "airy_ai": 1, "signbit": 1,
    "frexp_mantissa": 1, "frexp_exponent": 1,
    "polygamma": 2, "igamma": 2, "igammac": 2, "zeta": 2, "hypot": 2, "copysign": 2,
    "nextafter": 2, "fmax": 2, "fmin": 2, "ldexp": 2,
    "chebyshev_polynomial_t": 2, "chebyshev_polynomial_u": 2, "chebyshev_polynomial_v": 2,
    "chebyshev_polynomial_w": 2, "shifted_chebyshev_polynomial_t": 2,
    "shifted_chebyshev_polynomial_u": 2, "shifted_chebyshev_polynomial_v": 2,
    "shifted_chebyshev_polynomial_w": 2, "hermite_polynomial_h": 2, "hermite_polynomial_he": 2,
    "laguerre_polynomial_l": 2, "legendre_polynomial_p": 2,
    # ternary
    "select": 3, "clamp": 3,
}


_TOKEN = re.compile(r"\s*(?:(?P<arg>_\d+)|(?P<num>-?(?:\d+\.?\d*(?:e[-+]?\d+)?|inf|nan))|(?P<name>[a-z_][a-z0-9_]*)|(?P<punct>[(),]))", re.I)


def parse_map_expression(expr: str) -> tuple:
    """Parse a ``popops_map`` expression into nested tuples.

    Grammar: ``expr := _N | number | name(expr, ...)``. ``_1`` is the first operand.
    Returns ``("arg", n)``, ``("const", float)`` or ``("call", name, [args])``.
    Raises ValueError with the position of the first problem.
    """
    tokens: list[tuple[str, str, int]] = []
    pos = 0
    while pos < len(expr):
        match = _TOKEN.match(expr, pos)
        if match is None or match.end() == pos:
            if expr[pos:].strip() == "":
                break
            raise ValueError(f"unexpected character {expr[pos]!r} at offset {pos}")
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind), match.start(kind)))
        pos = match.end()
    index = 0

    def parse() -> tuple:
        nonlocal index
        if index >= len(tokens):
            raise ValueError("expression ends early")
        kind, text, at = tokens[index]
        index += 1
        if kind == "arg":
            return ("arg", int(text[1:]))
        if kind == "num":
            return ("const", float(text))
        if kind == "name":
            if text not in MAP_FUNCTIONS:
                raise ValueError(f"unknown function '{text}' at offset {at}")
            if index >= len(tokens) or tokens[index][1] != "(":
                raise ValueError(f"expected '(' after '{text}' at offset {at}")
            index += 1
            args = [parse()]
            while index < len(tokens) and tokens[index][1] == ",":
                index += 1
                args.append(parse())
            if index >= len(tokens) or tokens[index][1] != ")":
                raise ValueError(f"expected ')' to close '{text}' at offset {at}")
            index += 1
            if len(args) != MAP_FUNCTIONS[text]:
                raise ValueError(f"'{text}' takes {MAP_FUNCTIONS[text]} arguments, got {len(args)}")
            if text == "polygamma" and not (args[0][0] == "const" and args[0][1] >= 0 and args[0][1].is_integer()):
                raise ValueError(f"'polygamma' takes its order n as a non-negative integer literal (at offset {at})")
            return ("call", text, args)
        raise ValueError(f"unexpected '{text}' at offset {at}")

    tree = parse()
    if index != len(tokens):
        raise ValueError(f"unexpected '{tokens[index][1]}' at offset {tokens[index][2]}")
    return tree


def format_map_expression(tree: tuple) -> str:
    """The text of a parsed ``popops_map`` expression, the inverse of
    ``parse_map_expression``: a literal prints as Python's shortest round-trip form
    (``0.7978845608028654``, ``-inf``), so parsing the text gives the same tree."""
    if tree[0] == "arg":
        return f"_{tree[1]}"
    if tree[0] == "const":
        return repr(float(tree[1]))
    return f"{tree[1]}({', '.join(format_map_expression(a) for a in tree[2])})"


def map_expression_args(tree: tuple) -> set[int]:
    """Operand numbers (1-based) an expression reads."""
    if tree[0] == "arg":
        return {tree[1]}
    if tree[0] == "call":
        return set().union(*(map_expression_args(a) for a in tree[2]))
    return set()


class _BinaryOp(PoplarOp):
    """Element-wise binary op with NumPy broadcasting; operands and result share the
    element type."""

    lhs: Tensor
    rhs: Tensor
    result: TensorResult

    def check(self, v: Rules) -> None:
        check_broadcast(v, [self.lhs, self.rhs], self.result)
        types = {str(element_of(self.lhs)), str(element_of(self.rhs)), str(element_of(self.result))}
        v.require(len(types) == 1, f"operands and result must share one element type, got {', '.join(sorted(types))}")


class AddOp(_BinaryOp, name="popops_add", traits=[ext.Pure]):
    """``lhs + rhs`` (``popops::add``).

    Example:
      %r = "poplar.popops_add"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    """


class SubOp(_BinaryOp, name="popops_sub", traits=[ext.Pure]):
    """``lhs - rhs`` (``popops::sub``).

    Example:
      %r = "poplar.popops_sub"(%a, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    """


class MulOp(_BinaryOp, name="popops_mul", traits=[ext.Pure]):
    """``lhs * rhs`` (``popops::mul``).

    Example:
      %r = "poplar.popops_mul"(%a, %b) : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xf32>
    """


class DivOp(_BinaryOp, name="popops_div", traits=[ext.Pure]):
    """``lhs / rhs`` (``popops::div``); true division for floats.

    Example:
      %r = "poplar.popops_div"(%a, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    """


class MapOp(PoplarOp, name="popops_map", traits=[ext.Pure]):
    """An element-wise expression over up to three broadcast operands, run as one compute
    set (``popops::map`` with a ``popops::expr`` tree).

    Semantics: ``expr`` uses ``_1``, ``_2``, ``_3`` for the operands, numeric literals,
    and the functions of ``MAP_FUNCTIONS`` (e.g. ``select(gt(_1, 0.0), _1, mul(_1, 0.1))``).
    Each step computes in the operands' element type; comparisons give ``i1``. The
    operands sit in three groups (``in1``, then at most one each in ``in2`` and ``in3``)
    because IRDL makes all values of one variadic group share a type, and map operands
    differ (broadcast shapes, ``i1`` conditions).

    Example:
      %r = "poplar.popops_map"(%a, %b) {expr = "add(mul(_1, _2), 1.0)", operandSegmentSizes = array<i32: 1, 1, 0>}
             : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    """

    in1: Tensor
    in2: Sequence[Tensor]
    in3: Sequence[Tensor]
    expr: ir.StringAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        operands = _map_operands(v, self.in1, self.in2, self.in3)
        check_broadcast(v, operands, self.result)


def _map_operands(v: Rules, in1: ir.Value, in2: Sequence[ir.Value], in3: Sequence[ir.Value]) -> list[ir.Value]:
    """Check a map's ``expr`` and operand groups; returns the operands in order."""
    expr = v.string("expr", nonempty=True)
    try:
        tree = parse_map_expression(expr)
        # Walking the tree recurses too (two frames a level): it overflows first.
        used = map_expression_args(tree)
    except ValueError as error:
        raise RuleViolation(f"has an invalid expression \"{expr}\": {error}") from None
    except RecursionError:
        raise RuleViolation(f"has an expression nested too deeply ({len(expr)} characters)") from None
    second, third = list(in2), list(in3)
    v.require(len(second) <= 1 and len(third) <= 1, f"expects at most one operand in each of in2 and in3, got {len(second)} and {len(third)}")
    v.require(second or not third, "in3 needs an operand in in2")
    operands = [in1, *second, *third]
    v.require(all(1 <= n <= len(operands) for n in used), f"expression \"{expr}\" reads {sorted(used)} but the op has {len(operands)} operands")
    return operands


# The update expressions of eager optimizers (w - d*lr, w + d*s, v*m + g, v*m, v + g)
# that poplar-plan-in-place turns into ``popops_map_in_place`` and the IPU Model runs as
# eager's fused in-place torch calls.
IN_PLACE_UPDATES = ("sub(_1, mul(_2, _3))", "add(_1, mul(_2, _3))", "add(mul(_1, _2), _3)", "mul(_1, _2)", "add(_1, _2)")


class MapInPlaceOp(PoplarOp, name="popops_map_in_place"):
    """An element-wise expression written into its first operand (``popops::mapInPlace``).

    Semantics: as ``popops_map``, but instead of making a new tensor the value of
    ``expr`` overwrites ``in1``, converted to ``in1``'s element type; the broadcast shape
    of the operands must be ``in1``'s shape, and no other operand may be ``in1`` itself.
    Ops after this one that read ``in1`` (or a view of it) see the new contents.
    ``poplar-plan-in-place`` forms it from a ``popops_map`` whose result is only copied
    back into its first operand, a variable, as optimizers update their parameters.

    Example:
      "poplar.popops_map_in_place"(%w, %g, %lr) {expr = "sub(_1, mul(_2, _3))", operandSegmentSizes = array<i32: 1, 1, 1>}
             : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> ()
    """

    in1: Tensor
    in2: Sequence[Tensor]
    in3: Sequence[Tensor]
    expr: ir.StringAttr

    def check(self, v: Rules) -> None:
        operands = _map_operands(v, self.in1, self.in2, self.in3)
        shapes = [shape_of(o, f"operand #{i}") for i, o in enumerate(operands)]
        out = broadcast_shapes(shapes)
        v.require(out is not None, f"operand shapes {shapes} do not broadcast")
        v.require(out == shapes[0], f"the broadcast shape {out} of the operands must be in1's shape {shapes[0]}: the result is written into in1")
        v.require(all(o != self.in1 for o in operands[1:]), "in1 is overwritten, so it must not also be in2 or in3")


class CastOp(PoplarOp, name="popops_cast", traits=[ext.Pure]):
    """Converts ``input`` to the result's element type (``popops::cast``); the shape is kept.

    Example:
      %r = "poplar.popops_cast"(%a) : (tensor<3xf32>) -> tensor<3xf16>
    """

    input: Tensor
    result: TensorResult

    def check(self, v: Rules) -> None:
        v.require(shape_of(self.input, "input") == shape_of(self.result, "result"), "result shape must equal input shape")


class ReduceOp(PoplarOp, name="popops_reduce", traits=[ext.Pure]):
    """Reduces ``dims`` of ``input`` with ``op`` then multiplies by ``scale``
    (``popops::reduce`` with ``ReduceParams(op, false, scale)``).

    Semantics: ``op`` is ``"add"``, ``"mul"``, ``"min"``, ``"max"``, ``"square_add"``,
    ``"logical_and"`` or ``"logical_or"``; ``dims`` are distinct and in range;
    ``keep_dims`` keeps reduced dims as size 1. A mean is ``add`` with scale 1/N.

    Example:
      %r = "poplar.popops_reduce"(%a) {op = "add", dims = array<i64: 1>, keep_dims = false,
                                       scale = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2xf32>
    """

    input: Tensor
    op: ir.StringAttr
    dims: I64ArrayAttr
    keep_dims: ir.IntegerAttr
    scale: ir.FloatAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        v.string("op", choices=("add", "mul", "min", "max", "square_add", "logical_and", "logical_or"))
        shape = shape_of(self.input, "input")
        dims = v.i64_array("dims", min=0)
        v.require(len(set(dims)) == len(dims), f"attribute 'dims' has duplicates: {dims}")
        v.require(all(d < len(shape) for d in dims), f"attribute 'dims' {dims} out of range for rank {len(shape)}")
        keep = v.bool("keep_dims")
        v.float("scale")
        expected = [1 if i in dims else s for i, s in enumerate(shape)] if keep else [s for i, s in enumerate(shape) if i not in dims]
        v.require(shape_of(self.result, "result") == expected, f"result shape must be {expected}, got {shape_of(self.result, 'result')}")


class _ArgReduceOp(PoplarOp):
    """Index of the extreme element along ``dim``; the result has ``i32`` or ``i64`` elements."""

    input: Tensor
    dim: ir.IntegerAttr
    keep_dims: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = shape_of(self.input, "input")
        dim = v.int("dim", min=0)
        check_dim(v, dim, len(shape))
        keep = v.bool("keep_dims")
        element = element_of(self.result)
        v.require(isinstance(element, ir.IntegerType), f"result must have integer elements, got {element}")
        if shape:
            expected = [1 if i == dim else s for i, s in enumerate(shape)] if keep else [s for i, s in enumerate(shape) if i != dim]
        else:
            expected = []
        v.require(shape_of(self.result, "result") == expected, f"result shape must be {expected}, got {shape_of(self.result, 'result')}")


class ArgMaxOp(_ArgReduceOp, name="popops_arg_max", traits=[ext.Pure]):
    """Index of the maximum along ``dim`` (``popops::argMax``); first index on ties.

    Example:
      %i = "poplar.popops_arg_max"(%a) {dim = 1 : i64, keep_dims = false} : (tensor<2x3xf32>) -> tensor<2xi64>
    """


class ArgMinOp(_ArgReduceOp, name="popops_arg_min", traits=[ext.Pure]):
    """Index of the minimum along ``dim`` (``popops::argMin``); first index on ties.

    Example:
      %i = "poplar.popops_arg_min"(%a) {dim = 0 : i64, keep_dims = true} : (tensor<2x3xf32>) -> tensor<1x3xi64>
    """


class MultiSliceOp(PoplarOp, name="popops_multi_slice", traits=[ext.Pure]):
    """Picks slices of ``table`` along ``dim`` at ``indices`` (``popops::multiSlice``):
    embedding lookups and ``index_select``.

    Semantics: result shape = table shape with dim ``dim`` replaced by the indices'
    shape.

    Example:
      %e = "poplar.popops_multi_slice"(%table, %ids) {dim = 0 : i64} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
    """

    table: Tensor
    indices: Tensor
    dim: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        table = shape_of(self.table, "table")
        index_shape = shape_of(self.indices, "indices")
        dim = v.int("dim", min=0)
        check_dim(v, dim, len(table))
        v.require(isinstance(element_of(self.indices), ir.IntegerType), "indices must have integer elements")
        expected = table[:dim] + index_shape + table[dim + 1 :]
        v.require(shape_of(self.result, "result") == expected, f"result shape must be {expected}, got {shape_of(self.result, 'result')}")


class GatherOp(PoplarOp, name="popops_gather", traits=[ext.Pure]):
    """Element-wise gather along ``dim`` (``popops::gather``, torch.gather semantics):
    ``result[i][j] = input[indices[i][j]][j]`` for ``dim = 0``.

    Example:
      %g = "poplar.popops_gather"(%a, %idx) {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
    """

    input: Tensor
    indices: Tensor
    dim: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = shape_of(self.input, "input")
        dim = v.int("dim", min=0)
        check_dim(v, dim, len(shape))
        index_shape = shape_of(self.indices, "indices")
        v.require(isinstance(element_of(self.indices), ir.IntegerType), "indices must have integer elements")
        v.require(len(index_shape) == len(shape), f"indices rank {len(index_shape)} must equal input rank {len(shape)}")
        v.require(
            all(i <= s for d, (i, s) in enumerate(zip(index_shape, shape, strict=True)) if d != dim),
            f"indices shape {index_shape} must not exceed input shape {shape} outside dim {dim}",
        )
        v.require(shape_of(self.result, "result") == index_shape, "result shape must equal the indices' shape")


class ScaledAddToOp(PoplarOp, name="popops_scaled_add_to"):
    """In place: ``destination += scale * source`` (``popops::scaledAddTo``).

    Example:
      "poplar.popops_scaled_add_to"(%w, %g) {scale = -0.01 : f64} : (tensor<4xf32>, tensor<4xf32>) -> ()
    """

    destination: Tensor
    source: Tensor
    scale: ir.FloatAttr

    def check(self, v: Rules) -> None:
        v.float("scale")
        v.require(self.destination.type == self.source.type, f"source type {self.source.type} must equal destination type {self.destination.type}")


class PadOp(PoplarOp, name="popops_pad", traits=[ext.Pure]):
    """Pads each dim with ``low``/``high`` elements of ``value`` (``popops::pad``).

    Example:
      %p = "poplar.popops_pad"(%a) {low = array<i64: 0, 1>, high = array<i64: 0, 1>, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x5xf32>
    """

    input: Tensor
    low: I64ArrayAttr
    high: I64ArrayAttr
    value: ir.FloatAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = shape_of(self.input, "input")
        low = v.i64_array("low", size=len(shape), min=0)
        high = v.i64_array("high", size=len(shape), min=0)
        v.float("value")
        expected = [s + a + b for s, a, b in zip(shape, low, high, strict=True)]
        v.require(shape_of(self.result, "result") == expected, f"result shape must be {expected}, got {shape_of(self.result, 'result')}")


class MultiUpdateAddOp(PoplarOp, name="popops_multi_update_add", traits=[ext.Pure]):
    """Sums rows of ``updates`` into a zero table at ``indices`` (``popops::multiUpdateAdd``):
    the weight gradient of an embedding.

    Semantics: result ``[num_rows, *row]`` from ``updates`` ``[*indices.shape, *row]``;
    rows at ``padding_index`` (if >= 0) get no gradient.

    Example:
      %gw = "poplar.popops_multi_update_add"(%g, %ids) {padding_index = -1 : i64} : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<10x4xf32>
    """

    updates: Tensor
    indices: Tensor
    padding_index: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        v.int("padding_index", min=-1)
        u, i, r = shape_of(self.updates, "updates"), shape_of(self.indices, "indices"), shape_of(self.result, "result")
        v.require(isinstance(element_of(self.indices), ir.IntegerType), "indices must have integer elements")
        v.require(u[: len(i)] == i, f"updates {u} must start with the indices' shape {i}")
        v.require(len(r) >= 1 and r[1:] == u[len(i) :], f"result rows {r[1:]} must match the update rows {u[len(i):]}")
        v.require(element_of(self.updates) == element_of(self.result), "updates and result must share one element type")

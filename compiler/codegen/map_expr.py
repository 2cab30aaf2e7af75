"""``popops_map`` expressions as ``popops::expr`` trees (``namespace pe = popops::expr``).

``mul(_1, 0.5)`` becomes ``pe::BinaryOp(pe::BinaryOpType::MULTIPLY, pe::_1, pe::Const(0.5f))``.
The type rules follow the IPU Model's kernel (PyTorch's: a literal takes the tensor's type,
a float literal makes an integer operation float); when the expression's own type is not
the result type, the tree is wrapped in ``pe::Cast``. A function Poplar's expression
language lacks is a :class:`CodegenError` naming it.
"""

from __future__ import annotations

from ipu_mlir.dialects.poplar import parse_map_expression

from .errors import CodegenError

UNARY = {
    "neg": "NEGATE", "abs": "ABSOLUTE", "exp": "EXPONENT", "expm1": "EXPONENT_MINUS_ONE", "log": "LOGARITHM",
    "log1p": "LOGARITHM_ONE_PLUS", "sqrt": "SQRT", "rsqrt": "RSQRT", "sin": "SIN", "cos": "COS", "tan": "TAN",
    "tanh": "TANH", "sigmoid": "SIGMOID", "relu": "RELU", "erf": "ERF", "floor": "FLOOR", "ceil": "CEILING",
    "round": "ROUND", "trunc": "TRUNC", "sign": "SIGNUM", "reciprocal": "INVERSE", "square": "SQUARE",
    "not": "LOGICAL_NOT", "bitwise_not": "BITWISE_NOT", "isnan": "IS_NAN", "isinf": "IS_INF", "asin": "ASIN",
}
BINARY = {
    "add": "ADD", "sub": "SUBTRACT", "mul": "MULTIPLY", "div": "DIVIDE", "pow": "POWER", "max": "MAXIMUM",
    "min": "MINIMUM", "fmod": "REMAINDER", "atan2": "ATAN2", "eq": "EQUAL", "ne": "NOT_EQUAL", "lt": "LESS_THAN",
    "le": "LESS_THAN_EQUAL", "gt": "GREATER_THAN", "ge": "GREATER_THAN_EQUAL", "and": "LOGICAL_AND",
    "or": "LOGICAL_OR", "bitwise_and": "BITWISE_AND", "bitwise_or": "BITWISE_OR", "bitwise_xor": "BITWISE_XOR",
}
TERNARY = {"select": "SELECT", "clamp": "CLAMP"}
_LOGICAL = {"eq", "ne", "lt", "le", "gt", "ge", "and", "or", "not", "isnan", "isinf"}
_REAL = {"exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid", "erf", "reciprocal",
         "asin", "pow", "atan2"}
_RANK = {"BOOL": 0, "CHAR": 1, "INT": 1, "UNSIGNED_INT": 1, "LONGLONG": 2, "HALF": 3, "FLOAT": 3}


def _promote(a: tuple[str, bool], b: tuple[str, bool]) -> tuple[str, bool]:
    (ta, wa), (tb, wb) = a, b
    if wa != wb:
        tensor, literal = (b, a) if wa else (a, b)
        if _RANK[literal[0]] == 3 and _RANK[tensor[0]] < 3:
            return "FLOAT", False
        return tensor[0], False
    return (ta if _RANK[ta] >= _RANK[tb] else tb), wa


def map_expression(expr: str, operand_types: list[str], result_type: str, where: str) -> str:
    """The ``popops::expr`` tree of ``expr`` whose operands have the Poplar types
    ``operand_types`` (``"FLOAT"`` ...) and whose result must be ``result_type``."""
    try:
        tree = parse_map_expression(expr)
    except ValueError as error:
        raise CodegenError(f"{where}: cannot read the map expression '{expr}': {error}") from None
    integer = all(_RANK[t] < 3 for t in operand_types)

    def build(node: tuple) -> tuple[str, str, bool]:
        if node[0] == "arg":
            index = node[1]
            if not 1 <= index <= len(operand_types):
                raise CodegenError(f"{where}: '{expr}' reads _{index} but the map has {len(operand_types)} operands")
            return f"pe::_{index}", operand_types[index - 1], False
        if node[0] == "const":
            value = float(node[1])
            if integer and value.is_integer():
                return f"pe::Const({int(value)})", "INT", True
            return f"pe::Const({_float_literal(value)})", "FLOAT", True
        name, args = node[1], [build(child) for child in node[2]]
        if name == "div" and all(_RANK[t] < 3 for _, t, _ in args):
            raise CodegenError(f"{where}: integer 'div' in '{expr}': Poplar's DIVIDE truncates where PyTorch's "
                               "true division gives a float; no emission yet")
        if name in UNARY:
            (text, t, weak), = args
            kind = "BOOL" if name in _LOGICAL else ("FLOAT" if name in _REAL and _RANK[t] < 3 else t)
            return f"pe::UnaryOp(pe::UnaryOpType::{UNARY[name]}, {text})", kind, weak and kind != "BOOL"
        if name in BINARY:
            (ta, a_t, a_w), (tb, b_t, b_w) = args
            kind, weak = _promote((a_t, a_w), (b_t, b_w))
            if name in _LOGICAL:
                kind, weak = "BOOL", False
            elif name in _REAL and _RANK[kind] < 3:
                kind = "FLOAT"
            return f"pe::BinaryOp(pe::BinaryOpType::{BINARY[name]}, {ta}, {tb})", kind, weak
        if name in TERNARY:
            (ta, a_t, a_w), (tb, b_t, b_w), (tc, _, _) = args
            if name == "select":  # the dialect's select(cond, a, b); Poplar's SELECT(a, b, cond)
                (tc, _, _), (ta, a_t, a_w), (tb, b_t, b_w) = args
                kind, weak = _promote((a_t, a_w), (b_t, b_w))
                return f"pe::TernaryOp(pe::TernaryOpType::SELECT, {ta}, {tb}, {tc})", kind, weak
            return f"pe::TernaryOp(pe::TernaryOpType::CLAMP, {ta}, {tb}, {tc})", a_t, a_w
        raise CodegenError(f"{where}: map function '{name}' in '{expr}' has no popops::expr emission "
                           f"(emitted: {', '.join(sorted([*UNARY, *BINARY, *TERNARY]))})")

    text, kind, _ = build(tree)
    if kind != result_type:
        text = f"pe::Cast({text}, poplar::{result_type})"
    return text


def _float_literal(value: float) -> str:
    """A C++ float literal that reads back as the float nearest ``value`` (PyTorch rounds a
    Python scalar to the tensor's float type before the operation)."""
    if value != value:
        return "NAN"
    if value in (float("inf"), float("-inf")):
        return "INFINITY" if value > 0 else "-INFINITY"
    return f"{value!r}f" if "e" in repr(value) or "." in repr(value) else f"{value!r}.0f"

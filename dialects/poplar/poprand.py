"""Random ``poplar`` ops (``poprand``): dropout, uniform and normal draws."""

from torch_mlir import ir

from .._base import Rules
from .base import PoplarOp, Tensor, TensorResult, check_same_type, element_of, shape_of


class DropoutOp(PoplarOp, name="poprand_dropout"):
    """Zeroes elements with probability ``p`` and scales the rest by 1 / (1 - p)
    (``poprand::dropout``).

    Semantics: draws from the program's random generator (seeded by
    ``Options.randomSeed``), so the same seed gives the same masks; ``mask`` (``i1``,
    input's shape) records the kept elements for the gradient. Not pure: every
    execution draws a new mask.

    Example:
      %y, %m = "poplar.poprand_dropout"(%x) {p = 0.1 : f64} : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi1>)
    """

    input: Tensor
    p: ir.FloatAttr
    result: TensorResult
    mask: TensorResult

    def check(self, v: Rules) -> None:
        p = v.float("p", min=0.0)
        v.require(p < 1.0, f"attribute 'p' must be < 1, got {p}")
        check_same_type(v, self.result, self.input, "result", "input")
        v.require(shape_of(self.mask, "mask") == shape_of(self.input, "input"), "mask must have the input's shape")
        element = element_of(self.mask)
        v.require(isinstance(element, ir.IntegerType) and ir.IntegerType(element).width == 1, f"mask must have i1 elements, got {element}")


def _check_draw(v: Rules, result: ir.Value) -> ir.Type:
    """The element type of a random draw's result: numbers, not booleans."""
    shape_of(result, "result")
    element = element_of(result)
    v.require(not (isinstance(element, ir.IntegerType) and ir.IntegerType(element).width == 1),
              "result must have numeric elements, got i1 (draw numbers, then compare them)")
    return element


class UniformOp(PoplarOp, name="poprand_uniform"):
    """Draws every element of ``result`` uniformly from ``[min_val, max_val)``
    (``poprand::uniform``): ``torch.rand``, ``rand_like``, ``uniform_``, ``randint``.

    Semantics: a float result draws reals in ``[min_val, max_val)``; an integer result draws
    integers in ``[min_val, max_val)``, as ``torch.randint`` (both bounds integral,
    ``min_val < max_val``). Draws from the program's random generator (seeded by
    ``Options.randomSeed``): the same seed gives the same values, and every execution draws
    new ones, so the op is not pure.

    Example:
      %r = "poplar.poprand_uniform"() {min_val = 0.0 : f64, max_val = 1.0 : f64} : () -> tensor<3x4xf32>
    """

    min_val: ir.FloatAttr
    max_val: ir.FloatAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        low, high = v.float("min_val"), v.float("max_val")
        element = _check_draw(v, self.result)
        if isinstance(element, ir.IntegerType):
            v.require(low.is_integer() and high.is_integer(), f"an integer draw needs integral bounds, got [{low}, {high})")
            v.require(low < high, f"attribute 'min_val' ({low}) must be < 'max_val' ({high}) for an integer draw")
        else:
            v.require(low <= high, f"attribute 'min_val' ({low}) must be <= 'max_val' ({high})")


class NormalOp(PoplarOp, name="poprand_normal"):
    """Draws every element of ``result`` from a normal distribution with ``mean`` and
    ``std_dev`` (``poprand::normal``): ``torch.randn``, ``randn_like``, ``normal_``.

    Semantics: float results only; ``std_dev >= 0``. Draws from the program's random
    generator as ``poprand_uniform`` does (not pure).

    Example:
      %r = "poplar.poprand_normal"() {mean = 0.0 : f64, std_dev = 1.0 : f64} : () -> tensor<3x4xf32>
    """

    mean: ir.FloatAttr
    std_dev: ir.FloatAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        v.float("mean")
        v.float("std_dev", min=0.0)
        element = _check_draw(v, self.result)
        v.require(not isinstance(element, ir.IntegerType), f"result must have float elements, got {element}")


"""Random ``poplar`` ops (``poprand``): dropout."""

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

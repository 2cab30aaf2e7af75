"""Collective ``poplar`` ops (GCL): reductions across replicas."""

from torch_mlir import ir

from .._base import Rules
from .base import PoplarOp, Tensor, TensorResult


class AllReduceOp(PoplarOp, name="gcl_all_reduce"):
    """Reduces a tensor across replicas; every replica gets the result (``gcl::allReduce``).

    Semantics: ``op`` is ``"add"``, ``"mean"``, ``"mul"``, ``"min"`` or ``"max"``.

    Example:
      %r = "poplar.gcl_all_reduce"(%g) {op = "mean"} : (tensor<4xf32>) -> tensor<4xf32>
    """

    input: Tensor
    op: ir.StringAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        v.string("op", choices=("add", "mean", "mul", "min", "max"))
        v.require(self.input.type == self.result.type, f"result type {self.result.type} must equal input type {self.input.type}")

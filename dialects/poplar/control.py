"""Control programs chosen on the device: ``poplar.program_if`` (``poplar::program::If``).

(``poplar.program_repeat``, the fixed-count loop, is in ``graph.py`` with the other
programs; ``poptorch.for_loop`` becomes one around a call of the body's function.)
"""

from torch_mlir import ir
from torch_mlir.dialects import ext

from .._base import Rules
from .base import PoplarOp, Tensor


class IfOp(PoplarOp, name="program_if"):
    """Runs ``then_body`` if ``condition`` is true, ``else_body`` otherwise
    (``poplar::program::If``): the device conditional of ``poptorch.cond``.

    Semantics: ``condition`` is a one-element ``i1`` tensor (rank 0 or all dims 1)
    computed on the device; it is read when the program reaches the op, and only the
    chosen body runs. The bodies are programs (typically a ``poplar.program_call`` of
    the branch's function, which writes the branch's results into shared variables);
    either may be empty.

    Example:
      "poplar.program_if"(%c) ({
        "poplar.program_call"() {callee = "step.cond0.then"} : () -> ()
      }, {
        "poplar.program_call"() {callee = "step.cond0.else"} : () -> ()
      }) : (tensor<i1>) -> ()
    """

    condition: Tensor
    then_body: ext.Region
    else_body: ext.Region

    def check(self, v: Rules) -> None:
        type_ = ir.RankedTensorType(self.condition.type)
        v.require(str(type_.element_type) == "i1" and all(d == 1 for d in type_.shape),
                  f"condition must be a one-element i1 tensor (rank 0 or all dims 1), got {type_}")
        for index, what in ((0, "then_body"), (1, "else_body")):
            v.require(len(self.operation.regions[index].blocks) <= 1, f"{what} must have at most one block")

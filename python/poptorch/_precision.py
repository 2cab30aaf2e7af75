"""How ops that mix float16 and float32 inputs are cast while a model is compiled
(``Options.Precision.halfFloatCasting`` / ``Options.GraphProcessing.halfFloatCasting``).

PopTorch's default (``HalfFloatCastingBehavior.Default`` = ``FloatDowncastToHalf``), as its
user guide describes: "When PyTorch encounters a mix of float 16 and float 32 inputs for a given
operation, it will usually cast all inputs to float 32. PopTorch differs and will cast all inputs
to float 16." So float32 weights used with float16 inputs are cast to float16 and the op's
result is float16. ``HalfUpcastToFloat`` follows PyTorch: float16 inputs are cast to float32 (also
where eager PyTorch refuses the mix, as ``F.linear`` does), and the result is float32.

While the model's forward is traced, a ``TorchFunctionMode`` looks at each torch call: when its
tensor arguments of at least one dimension include both float16 and float32 tensors, the ones of
the other type are cast first (the casts are ops of the compiled program). Explicit conversions
(``.to``, ``.float()``, ``type_as``, ``copy_`` ...) are left alone, so are the running statistics
of batch and instance norms (kept in float32), and ``self`` of an in-place method.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch
import torch.nn.functional as F
import torch.utils._pytree as pytree
from torch.overrides import TorchFunctionMode

from .enums import HalfFloatCastingBehavior

_CONVERSIONS = frozenset({
    torch.Tensor.to, torch.Tensor.type, torch.Tensor.type_as, torch.Tensor.half, torch.Tensor.float,
    torch.Tensor.double, torch.Tensor.bfloat16, torch.Tensor.copy_, torch.Tensor.__setitem__,
})
_NORMS_WITH_STATISTICS = frozenset({F.batch_norm, F.instance_norm, torch.batch_norm, torch.instance_norm})


def _tracing() -> bool:
    from ipu_mlir.compiler.frontend.tracing import is_tracing

    return is_tracing()


class _MixedFloatCasting(TorchFunctionMode):
    """Casts the float32 (``to_half``) or float16 tensors of a call mixing both."""

    def __init__(self, to_half: bool) -> None:
        super().__init__()
        self.source, self.target = (torch.float32, torch.float16) if to_half else (torch.float16, torch.float32)

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        if func not in _CONVERSIONS and func not in _NORMS_WITH_STATISTICS:
            dtypes = {t.dtype for t in pytree.tree_leaves((args, kwargs)) if isinstance(t, torch.Tensor) and t.dim() > 0}
            if torch.float16 in dtypes and torch.float32 in dtypes:
                name = getattr(func, "__name__", "")
                in_place = name.endswith("_") and not name.endswith("__")
                first = args[:1] if in_place else ()
                rest = args[1:] if in_place else args
                args, kwargs = first + self._cast(rest), self._cast(kwargs)
        return func(*args, **kwargs)

    def _cast(self, tree: Any) -> Any:
        return pytree.tree_map(
            lambda t: t.to(self.target) if isinstance(t, torch.Tensor) and t.dtype == self.source else t, tree)


@contextlib.contextmanager
def mixed_float_casting(model: torch.nn.Module, behaviour: HalfFloatCastingBehavior) -> Iterator[None]:
    """While active, each traced forward of ``model`` casts mixed float16 / float32 calls as
    ``behaviour`` says (eager calls of the model are untouched)."""
    to_half = behaviour is not HalfFloatCastingBehavior.HalfUpcastToFloat
    modes: list[_MixedFloatCasting] = []

    def enter(_module: Any, _args: Any) -> None:
        if _tracing():
            mode = _MixedFloatCasting(to_half)
            mode.__enter__()
            modes.append(mode)

    def leave(_module: Any, _args: Any, _output: Any) -> None:
        if modes:
            modes.pop().__exit__(None, None, None)

    before = model.register_forward_pre_hook(enter)
    after = model.register_forward_hook(leave, always_call=True)
    try:
        yield
    finally:
        before.remove()
        after.remove()
        while modes:  # a forward that never returned
            modes.pop().__exit__(None, None, None)

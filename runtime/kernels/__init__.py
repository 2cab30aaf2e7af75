"""The IPU Model's kernels: how each poplar op is computed on the host with torch.

One module per op family (elementwise, reductions, data_movement, indexing, linear, linalg,
normalization, pooling, fft, losses, random, backward, collectives, sorting, histograms, custom) registers its factories in
:data:`KERNELS`, which refuses a name registered twice. Kernels call the ATen functions
eager PyTorch uses, so results match eager bit for bit where the op structure is the same.
"""

from . import (
    backward,
    collectives,
    custom,
    data_movement,
    elementwise,
    fft,
    histograms,
    indexing,
    linalg,
    linear,
    losses,
    normalization,
    pooling,
    random,
    reductions,
    sorting,
)
from .base import (
    KERNELS,
    Factory,
    Kernel,
    KernelError,
    attr,
    constant_tensor,
    tensor_type,
    torch_dtype,
)
from .elementwise import compile_expression, in_place_expression

FAMILIES = (elementwise, reductions, data_movement, indexing, linear, linalg, normalization, pooling, fft, losses, random,
            backward, collectives, sorting, histograms, custom)

__all__ = [
    "FAMILIES", "KERNELS", "Factory", "Kernel", "KernelError", "attr", "compile_expression", "constant_tensor",
    "in_place_expression", "tensor_type", "torch_dtype",
]

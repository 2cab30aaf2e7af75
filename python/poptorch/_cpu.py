"""``poptorch.CPU``: a host function called in the middle of an inference program.

In a compiled model each call is one ``poplar.program_host_call``: its inputs stream to
the host, the function runs there, and its outputs stream back (``runtime/kernels/custom.py``
calls :meth:`CPU.host_call`). While the model is captured, the function runs once on zeros
of the inputs' shapes and dtypes to learn its outputs' (as PopTorch does): keep it free of
side effects that matter, or guard them with ``poptorch.isRunningOnIpu()``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from ipu_mlir.support.host_functions import register_host_call

from .ops import _tracing


class CPU:
    """Run ``layer_to_call`` on the host (CPU) where the model calls this object; the
    arguments are forwarded to it. Inference only: a training model that calls a CPU op is
    a compile error. ``ID`` names the op in the IR and in messages.

    >>> class Model(torch.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.cpu = poptorch.CPU(self.myCpuOp, "MyCPUOp")
    ...     def myCpuOp(self, x):
    ...         return x * 2.0
    ...     def forward(self, x):
    ...         return self.cpu(self.cpu(x))
    """

    def __init__(self, layer_to_call: Callable[..., Any], ID: str) -> None:  # noqa: N803 - PopTorch's name
        if not callable(layer_to_call):
            raise TypeError(f"CPU: layer_to_call must be callable, got {type(layer_to_call).__name__}")
        if not isinstance(ID, str) or not ID:
            raise TypeError(f"CPU: ID must be a non-empty str, got {ID!r}")
        self._layer_to_call = layer_to_call
        self.ID = ID
        self._handle = register_host_call(ID, self)
        self.inputs: list[torch.Tensor] | None = None   # the host side of the streams, see registerPersistentData
        self.outputs: list[torch.Tensor] | None = None
        self._signature: list[tuple[torch.Size, torch.dtype]] | None = None

    def _call_layer(self, inputs: list[torch.Tensor]) -> tuple[list[torch.Tensor], bool]:
        outputs = self._layer_to_call(*inputs)
        single = isinstance(outputs, torch.Tensor)
        outputs = [outputs] if single else list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]
        if not outputs or not all(isinstance(o, torch.Tensor) for o in outputs):
            raise TypeError(f"CPU op \"{self.ID}\": the function must return a tensor or a tuple of tensors, got "
                            f"{[type(o).__name__ for o in outputs]}")
        return outputs, single

    def __call__(self, *inputs: Any, **kwargs: Any) -> Any:
        if not _tracing():
            return self._layer_to_call(*inputs, **kwargs)
        if kwargs or not all(isinstance(x, torch.Tensor) for x in inputs):
            raise TypeError(f"CPU op \"{self.ID}\": in a compiled model the arguments must be tensors, passed by "
                            f"position (they stream to the host); got {[type(x).__name__ for x in inputs]}"
                            f"{' and keywords ' + str(sorted(kwargs)) if kwargs else ''}")
        from torch.utils._python_dispatch import _disable_current_modes

        from ipu_mlir.compiler.frontend import host_ops

        signature = [(x.shape, x.dtype) for x in inputs]
        with _disable_current_modes(), torch.no_grad():  # real tensors, outside the capture
            outputs, single = self._call_layer([torch.zeros(shape, dtype=dtype) for shape, dtype in signature])
        streamed = host_ops.host_call_op(list(inputs), self._handle, host_ops.encode_outputs(outputs))
        return streamed[0] if single else tuple(streamed)

    def registerPersistentData(self) -> None:  # noqa: N802 - PopTorch's name
        """Allocate the host buffers the streams fill (``inputs``) and read (``outputs``), for
        the inputs of the last call (zeros)."""
        if self._signature is None:
            raise RuntimeError(f"CPU op \"{self.ID}\": registerPersistentData needs the inputs' shapes; the compiled "
                               "program provides them on its first host call")
        self.inputs = [torch.zeros(shape, dtype=dtype) for shape, dtype in self._signature]
        with torch.no_grad():
            outputs, _ = self._call_layer([x.clone() for x in self.inputs])
        self.outputs = [torch.zeros_like(o) for o in outputs]

    def execute(self) -> None:
        """Run the function on the host buffers ``inputs`` and copy its results into ``outputs``."""
        if self.inputs is None or self.outputs is None:
            raise RuntimeError(f"CPU op \"{self.ID}\": call registerPersistentData() before execute()")
        with torch.no_grad():
            outputs, _ = self._call_layer(self.inputs)
        if len(outputs) != len(self.outputs):
            raise RuntimeError(f"CPU op \"{self.ID}\" returned {len(outputs)} tensors, the program expects {len(self.outputs)}")
        for buffer, output in zip(self.outputs, outputs, strict=True):
            if buffer.shape != output.shape or buffer.dtype != output.dtype:
                raise RuntimeError(f"CPU op \"{self.ID}\" returned {output.dtype} {list(output.shape)}, the program "
                                   f"expects {buffer.dtype} {list(buffer.shape)}")
            buffer.copy_(output)

    def host_call(self, inputs: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
        """One ``poplar.program_host_call``: the streamed inputs into ``inputs``, :meth:`execute`,
        and ``outputs`` streamed back (copies: the buffers are reused by the next call)."""
        signature = [(x.shape, x.dtype) for x in inputs]
        if signature != self._signature or self.inputs is None:
            self._signature = signature
            self.registerPersistentData()
        assert self.inputs is not None and self.outputs is not None
        for buffer, value in zip(self.inputs, inputs, strict=True):
            buffer.copy_(value.to(buffer.device))
        self.execute()
        device = inputs[0].device if inputs else torch.device("cpu")
        return tuple(o.clone().to(device) for o in self.outputs)

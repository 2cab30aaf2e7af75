"""ipu-mlir: a PopTorch-compatible compiler from PyTorch through MLIR to an emulated IPU.

Sub-packages (docs/ARCHITECTURE.md): ``support`` and ``dialects`` (ipu / pipeline / poplar)
under everything, ``compiler`` (frontend, passes, pipelines), ``artifact`` (the compiled
executable), ``runtime`` (the IPU Model), ``driver`` (compile = capture + passes + runtime
program) and ``tools`` (ipu-opt, ipu-translate).
Nothing heavy is imported here, so ``ipu-opt`` starts fast; :func:`compile_inference`
loads the compiler on first use.

Direct use, without the poptorch API::

    import ipu_mlir
    compiled = ipu_mlir.compile_inference(model, (x,), device_iterations=1)
    print(compiled.ir_text())          # the poplar dialect program
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ipu_mlir.driver import CompiledProgram

__version__ = "0.1.0"


def compile_inference(model: Any, args: tuple, kwargs: dict[str, Any] | None = None, **options: Any) -> CompiledProgram:
    """Compile ``model(*args, **kwargs)`` (micro-batch inputs) for the IPU Model.

    ``options`` are the fields of :class:`ipu_mlir.driver.CompileOptions`
    (device_iterations, output_mode, return_period, target).
    """
    from ipu_mlir.driver import CompileOptions, compile_program

    return compile_program(model, args, kwargs or {}, CompileOptions(**options))


__all__ = ["compile_inference", "__version__"]

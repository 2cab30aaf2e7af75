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

# The fields of CompileOptions that only a training step reads: an inference program would
# silently ignore them.
_TRAINING_ONLY_OPTIONS = ("gradient_accumulation", "reduction", "strategy", "auto_loss_scaling", "recompute")


def compile_inference(model: Any, args: tuple, kwargs: dict[str, Any] | None = None, **options: Any) -> CompiledProgram:
    """Compile ``model(*args, **kwargs)`` (micro-batch inputs) for the IPU Model.

    ``options`` are the inference fields of :class:`ipu_mlir.driver.CompileOptions`
    (device_iterations, output_mode, return_period, target, execution); a training-only
    field is a TypeError.
    """
    training_only = [name for name in _TRAINING_ONLY_OPTIONS if name in options]
    if training_only:
        raise TypeError(f"compile_inference: {', '.join(training_only)} only apply to a training step; "
                        "compile an inference program without them (poptorch.trainingModel compiles training)")
    from ipu_mlir.driver import CompileOptions, compile_program

    return compile_program(model, args, kwargs or {}, CompileOptions(**options))


__all__ = ["compile_inference", "__version__"]

"""The driver: model + example inputs -> capture -> pass pipeline -> artifact -> a
runtime program. It is the one layer that calls both the compiler and the runtime;
``poptorch`` calls it."""

from ipu_mlir.runtime.interpreter import DeviceStore

from .compile import (
    CompiledModel,
    CompiledTraining,
    CompileOptions,
    OptimizerDescription,
    compile_inference,
    compile_training,
)

__all__ = [
    "CompileOptions",
    "CompiledModel",
    "CompiledTraining",
    "DeviceStore",
    "OptimizerDescription",
    "compile_inference",
    "compile_training",
]

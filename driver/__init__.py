"""The driver: model + example inputs -> capture -> pass pipeline -> artifact -> a
runtime program. It is the one layer that calls both the compiler and the runtime;
``poptorch`` calls it."""

from ipu_mlir.runtime.interpreter import DeviceStore

from .compile import CompiledProgram, CompileOptions, OptimizerDescription, compile_program

__all__ = ["CompileOptions", "CompiledProgram", "DeviceStore", "OptimizerDescription", "compile_program"]

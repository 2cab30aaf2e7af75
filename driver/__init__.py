"""The driver: model + example inputs -> capture -> pass pipeline -> artifact -> a
runtime program. It is the one layer that calls both the compiler and the runtime;
``poptorch`` calls it, and compares against the compiler's enumerations it re-exports."""

# group_hyper_parameters: for poptorch.optim (the ipu dialect declares the names once).
from ipu_mlir.dialects.ipu import group_hyper_parameters
from ipu_mlir.dialects.ipu_enums import (
    AdamVariant,
    AutoStage,
    MeanStrategy,
    OptimizerType,
    Reduction,
    RoleKind,
    SgdVariant,
    StrategyKind,
)
from ipu_mlir.dialects.pipeline import ScheduleKind
from ipu_mlir.dialects.poplar.enums import OutputMode
from ipu_mlir.runtime.interpreter import DeviceStore, device_copy

from .compile import CompiledProgram, CompileOptions, OptimizerDescription, compile_program

__all__ = [
    "AdamVariant",
    "AutoStage",
    "CompileOptions",
    "CompiledProgram",
    "DeviceStore",
    "MeanStrategy",
    "OptimizerDescription",
    "OptimizerType",
    "OutputMode",
    "Reduction",
    "RoleKind",
    "ScheduleKind",
    "SgdVariant",
    "StrategyKind",
    "compile_program",
    "device_copy",
    "group_hyper_parameters",
]

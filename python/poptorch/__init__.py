"""poptorch: the PopTorch API on top of ipu-mlir (MLIR compiler + IPU Model emulator).

``import poptorch`` is cheap: the compiler (torch.export, MLIR) loads on first compile.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from . import enums, optim, profiling  # noqa: F401
from ._async_accessor import AsynchronousDataAccessor
from ._dataloader import DataLoader
from ._executor import PoplarExecutor
from ._logging import setLogLevel
from .annotations import BeginBlock, Block, BlockFunction, removeBlocks
from .enums import *  # noqa: F403 - PopTorch exposes its enums at top level
from .execution_strategy import (
    ExecutionStrategy,
    ParallelPhasedExecution,
    Phase,
    PipelinedExecution,
    SerialPhasedExecution,
    ShardedExecution,
    Stage,
)
from .ops import (
    NameScope,
    ctc_beam_search_decoder,
    dynamic_slice,
    identity_loss,
    ipu_print_tensor,
    ipuHardwareIsAvailable,
    ipuHardwareVersion,
    isRunningOnIpu,
    nop,
    recomputationCheckpoint,
    serializedMatMul,
    set_available_memory,
)
from ._multiconv import MultiConv, set_overlap_for_input, set_overlap_for_output
from ._control_flow import cond, for_loop
from ._cpu import CPU
from ._custom_ops import custom_op, register_custom_op
from .options import Options, TensorLocationSettings

__version__ = "3.4.0+ipu_mlir.0.1.0"


def inferenceModel(model: torch.nn.Module, options: Options | None = None) -> PoplarExecutor:  # noqa: N802
    """Wrap ``model`` for inference on the emulated IPU.

    The wrapper holds a shallow copy of the model: parameters are shared, plain Python
    attributes (such as ``.training``) are not. Call ``model.eval()`` first if needed.
    """
    from ._executor import wrap_inference

    return wrap_inference(model, options)


def trainingModel(  # noqa: N802
    model: torch.nn.Module, options: Options | None = None, optimizer: torch.optim.Optimizer | None = None
) -> PoplarExecutor:
    """Wrap ``model`` for training on the emulated IPU.

    The forward must produce a loss (a loss module's output or ``identity_loss``). Each
    call runs forward, backward and the optimizer on the device; with no optimizer,
    SGD with lr 0.01. Reading the model's weights on the host syncs them back first.
    """
    from ._executor import wrap_training

    return wrap_training(model, options, optimizer)


def load(filename: str, edit_opts_fn: Callable[[Options], Any] | None = None) -> PoplarExecutor:
    """Restore a model saved with ``compileAndExport`` / ``save`` (``export_model=True``):
    the Torch model, the PopTorch wrapper and its executable, ready to run. ``edit_opts_fn``
    may change run-time options (connectionType, randomSeed...); changing an option that
    the program was compiled with is an error. The model is unpickled from the file: load
    only files you trust."""
    from ._executable import load as load_file

    return load_file(filename, edit_opts_fn)


__all__ = [
    "AsynchronousDataAccessor",
    "BeginBlock",
    "Block",
    "BlockFunction",
    "CPU",
    "DataLoader",
    "ExecutionStrategy",
    "NameScope",
    "Options",
    "ParallelPhasedExecution",
    "Phase",
    "PipelinedExecution",
    "PoplarExecutor",
    "SerialPhasedExecution",
    "ShardedExecution",
    "Stage",
    "TensorLocationSettings",
    "cond",
    "ctc_beam_search_decoder",
    "custom_op",
    "for_loop",
    "register_custom_op",
    "identity_loss",
    "inferenceModel",
    "trainingModel",
    "ipuHardwareIsAvailable",
    "ipuHardwareVersion",
    "ipu_print_tensor",
    "isRunningOnIpu",
    "load",
    "nop",
    "dynamic_slice",
    "serializedMatMul",
    "recomputationCheckpoint",
    "removeBlocks",
    "setLogLevel",
    "set_available_memory",
    "MultiConv",
    "set_overlap_for_input",
    "set_overlap_for_output",
]

"""ipu-mlir: a PopTorch-compatible compiler from PyTorch through MLIR to an emulated IPU.

Sub-packages: ``dialects`` (ipu / pipeline / poplar), ``compiler`` (frontend, passes,
pipelines, codegen), ``runtime`` (the IPU Model) and ``tools`` (ipu-opt, ipu-translate).
Nothing heavy is imported here, so ``ipu-opt`` starts fast.
"""

__version__ = "0.1.0"

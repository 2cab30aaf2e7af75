"""Passes of ipu-mlir, one per file, each registered in ``ipu_mlir.compiler.registry``."""

"""Helpers shared by every layer of ipu-mlir: the IPU target description, small walks
over MLIR attributes and ops, diagnostics formatting, and the name registry. This
package imports no other ipu-mlir package and never imports torch."""

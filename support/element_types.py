"""The element types the IPU Model supports, in one table: their name in the Torch
dialect, as a builtin MLIR type, and as a torch dtype (by name: this module never imports
torch). The frontend's type conversion and the runtime's kernels both read it."""

from __future__ import annotations

# (Torch-dialect element type, builtin element type, torch dtype attribute name).
# Signed torch integers become signless builtin integers (Poplar has no signed/unsigned
# split for the types we emulate); unsigned bytes keep ``ui8``.
ELEMENT_TYPES: tuple[tuple[str, str, str], ...] = (
    ("f32", "f32", "float32"),
    ("f16", "f16", "float16"),
    ("bf16", "bf16", "bfloat16"),
    ("f64", "f64", "float64"),
    ("si64", "i64", "int64"),
    ("si32", "i32", "int32"),
    ("si16", "i16", "int16"),
    ("si8", "i8", "int8"),
    ("ui8", "ui8", "uint8"),
    ("i1", "i1", "bool"),
    # Complex tensors (the FFT's spectra); Poplar holds them as pairs of real planes.
    ("complex<f32>", "complex<f32>", "complex64"),
    ("complex<f64>", "complex<f64>", "complex128"),
)

BUILTIN_OF_TORCH_DIALECT: dict[str, str] = {torch_d: builtin for torch_d, builtin, _ in ELEMENT_TYPES}
TORCH_DTYPE_NAME_OF_BUILTIN: dict[str, str] = {builtin: dtype for _, builtin, dtype in ELEMENT_TYPES}

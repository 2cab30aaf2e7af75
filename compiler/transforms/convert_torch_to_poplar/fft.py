"""FFT lowerings (``torch.fft``): ATen's ``_fft_r2c``, ``_fft_c2r`` and ``_fft_c2c`` on the
``poplin_dft_*`` ops (a Poplar program computes them as matmuls by DFT matrices; see
``dialects/poplar/poplin_fft.py``), ``view_as_real`` / ``view_as_complex``, and the
conjugate and angle of complex tensors. Complex values have the ``complex<f32>`` element
type."""

from __future__ import annotations

from typing import Any

from torch_mlir import ir

from ipu_mlir.dialects import poplar as pd
from ipu_mlir.support.ir_build import boolean, i64, i64_array, string, tensor_type
from ipu_mlir.support.registry import Registry

from ... import torch_ir
from ...lowering import Lowering, Pattern, Unsupported, dim_arg, element_of, result_type, shape_of

# ATen's fft_norm_mode -> the ops' normalization names.
_NORMALIZATIONS = {0: "none", 1: "by_root_n", 2: "by_n"}


def _dims_and_norm(lw: Lowering, op: ir.Operation, rank: int) -> tuple[Any, Any]:
    dims = lw.const(op.operands[1], "dim")
    dims = [dim_arg(d, rank) for d in (dims if isinstance(dims, list) else [dims])]
    if not dims:
        raise Unsupported("an FFT over no dims")
    mode = lw.const(op.operands[2], "normalization")
    if mode not in _NORMALIZATIONS:
        raise Unsupported(f"FFT normalization mode {mode} (0 none, 1 by 1/sqrt(n), 2 by 1/n)")
    return i64_array(dims), string(_NORMALIZATIONS[mode])


def lower_fft_r2c(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_fft_r2c(self, dim, normalization, onesided)``."""
    x = lw.v(op.operands[0])
    out = result_type(op)
    real = ir.ComplexType(out.element_type).element_type
    dims, norm = _dims_and_norm(lw, op, len(shape_of(x)))
    onesided = lw.const(op.operands[3], "onesided")
    return [lw.emit(pd.DftRealToComplexOp, lw.cast(x, real), dims, norm, boolean(onesided), out)]


def lower_fft_c2r(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_fft_c2r(self, dim, normalization, last_dim_size)``."""
    x = lw.v(op.operands[0])
    dims, norm = _dims_and_norm(lw, op, len(shape_of(x)))
    size = lw.const(op.operands[3], "last_dim_size")
    return [lw.emit(pd.DftComplexToRealOp, x, dims, norm, i64(size), result_type(op))]


def lower_fft_c2c(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``_fft_c2c(self, dim, normalization, forward)``."""
    x = lw.v(op.operands[0])
    dims, norm = _dims_and_norm(lw, op, len(shape_of(x)))
    forward = lw.const(op.operands[3], "forward")
    return [lw.emit(pd.DftComplexToComplexOp, lw.cast(x, result_type(op).element_type), dims, norm, boolean(forward), result_type(op))]


def lower_view_as_real(lw: Lowering, op: ir.Operation) -> list[Any]:
    return [lw.emit(pd.ViewAsRealOp, lw.v(op.operands[0]), result_type(op))]


def lower_view_as_complex(lw: Lowering, op: ir.Operation) -> list[Any]:
    return [lw.emit(pd.ViewAsComplexOp, lw.v(op.operands[0]), result_type(op))]


def _planes(lw: Lowering, z: ir.Value) -> tuple[ir.Value, ir.RankedTensorType]:
    """``z``'s (real, imaginary) pairs ``[*shape, 2]`` and their real element type."""
    real = ir.ComplexType(element_of(z)).element_type
    pairs = lw.emit(pd.ViewAsRealOp, z, tensor_type([*shape_of(z), 2], real))
    return pairs, real


def lower_conj(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``conj`` / ``_conj`` / ``conj_physical`` / ``resolve_conj``: the imaginary plane
    negated (a real tensor is its own conjugate)."""
    z = lw.v(op.operands[0])
    if not isinstance(element_of(z), ir.ComplexType):
        return [z]
    if torch_ir.aten_name(op).startswith("torch.aten.resolve_conj"):  # conjugation is never lazy here
        return [z]
    pairs, real = _planes(lw, z)
    signs = lw.concat([lw.zeros_or_ones(1.0, [1], real), lw.zeros_or_ones(-1.0, [1], real)], 0)
    return [lw.emit(pd.ViewAsComplexOp, lw.map("mul(_1, _2)", [pairs, signs], pairs.type), z.type)]


def lower_angle(lw: Lowering, op: ir.Operation) -> list[Any]:
    """``angle``: atan2(imaginary, real) of a complex tensor; pi for negative reals, 0 for the others."""
    out = result_type(op)
    z = lw.v(op.operands[0])
    if not isinstance(element_of(z), ir.ComplexType):
        return [lw.map("select(isnan(_1), _1, select(lt(_1, 0.0), 3.141592653589793, 0.0))", [lw.cast(z, out.element_type)], out)]
    pairs, real = _planes(lw, z)
    shape = shape_of(z)
    rank = len(shape)
    plane = tensor_type([*shape, 1], real)
    re, im = (lw.emit(pd.SliceOp, pairs, i64_array([0] * rank + [i]), i64_array([*shape, i + 1]), i64_array([1] * (rank + 1)), plane)
              for i in (0, 1))
    return [lw.reshape(lw.map("atan2(_1, _2)", [im, re], plane), list(out.shape))]


def populate(patterns: Registry[Pattern]) -> None:
    """Register the lowerings of this family: the FFTs."""
    patterns.register("torch.aten._fft_r2c")(lower_fft_r2c)
    patterns.register("torch.aten._fft_c2r")(lower_fft_c2r)
    patterns.register("torch.aten._fft_c2c")(lower_fft_c2c)
    patterns.register("torch.aten.view_as_real")(lower_view_as_real)
    patterns.register("torch.aten.view_as_complex")(lower_view_as_complex)
    patterns.register("torch.aten.conj", "torch.aten._conj", "torch.aten.conj_physical", "torch.aten._conj_physical",
                      "torch.aten.resolve_conj")(lower_conj)
    patterns.register("torch.aten.angle")(lower_angle)

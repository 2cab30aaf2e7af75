"""The C++ of the DFT ops and the complex views (``poplin_dft_r2c`` / ``_c2c`` / ``_c2r``,
``view_as_real``, ``view_as_complex``). Registered in ``compute.EMITTERS``.

Poplar has no complex type. A ``complex<f32>`` tensor of shape S is a FLOAT tensor of shape
``[*S, 2]`` holding (real, imaginary) pairs in its last dimension: the layout
``torch.view_as_real`` gives and complex64 has in host memory, so ``view_as_real`` and
``view_as_complex`` are the same tensor, and complex variables and streams are FLOAT ones
with twice the elements (``emitter.py``). Other ops on complex values are refused by name.

PopLibs has no FFT: a DFT along a dim of length n is ``poplin::matMul`` of the tensor's rows
along that dim (the dim moved last; complex rows as interleaved pairs, 2n values) by the
DFT's real matrix, which the emitted helper ``dftMatrix`` computes on the host when the
graph is built (twiddles ``cos`` / ``sin`` of ``2 pi (j k mod n) / n`` in double, rounded to
float once) with the normalisation folded in (1/n or 1/sqrt(n) per transformed dim). One
matmul per transformed dim, in ATen's order: the real-to-complex transform on the last of
``dims`` first, the complex-to-real one last.
"""

from __future__ import annotations

import math
from typing import Any

from torch_mlir import ir

from .compute import _dims, emits
from .errors import CodegenError

# the ops whose emission handles complex values (the others are refused when they meet one)
COMPLEX_OPS = frozenset({"poplar.poplin_dft_r2c", "poplar.poplin_dft_c2c", "poplar.poplin_dft_c2r",
                         "poplar.view_as_real", "poplar.view_as_complex",
                         "poplar.poplin_eig"})  # (compute_linalg2.py: a real matrix's complex eigenpairs)

# kinds of dftMatrix (C++ enum values)
_R2C, _C2C, _C2R = "DftKind::REAL_TO_COMPLEX", "DftKind::COMPLEX_TO_COMPLEX", "DftKind::COMPLEX_TO_REAL"

DFT_HELPER = tuple(r"""
// The real matrix of a DFT of length n along one dimension, for poplin::matMul of the rows
// of a tensor (that dimension last) by it; constant, computed on the host when the graph is
// built. Complex rows are interleaved (real, imaginary) pairs. REAL_TO_COMPLEX: [n] real ->
// [outSize][2] (outSize n, or n / 2 + 1 for a one-sided spectrum), exponent sign * 2 pi i.
// COMPLEX_TO_COMPLEX: [n][2] -> [n][2]. COMPLEX_TO_REAL: the inverse transform of a Hermitian
// spectrum, [inSize][2] (its first n / 2 + 1 bins are read) -> [n] real: the bins strictly
// between 0 and n / 2 count twice, the imaginary parts of bins 0 and n / 2 are ignored.
// Every entry is multiplied by `scale` (the normalisation of this dimension).
enum class DftKind { REAL_TO_COMPLEX, COMPLEX_TO_COMPLEX, COMPLEX_TO_REAL };

poplar::Tensor dftMatrix(poplar::Graph &g, DftKind kind, std::size_t n, std::size_t inSize, std::size_t outSize, double sign,
                         double scale, const std::string &debug) {
  const double pi = 3.14159265358979323846;
  std::size_t rows = kind == DftKind::REAL_TO_COMPLEX ? inSize : 2 * inSize;
  std::size_t cols = kind == DftKind::COMPLEX_TO_REAL ? outSize : 2 * outSize;
  std::vector<float> m(rows * cols, 0.0f);
  for (std::size_t j = 0; j < inSize; ++j)
    for (std::size_t k = 0; k < outSize; ++k) {
      double angle = 2.0 * pi * static_cast<double>((j * k) % n) / static_cast<double>(n);
      double c = scale * std::cos(angle), s = scale * sign * std::sin(angle);
      if (kind == DftKind::REAL_TO_COMPLEX) {  // x[j] -> (x cos, x sign sin)
        m[j * cols + 2 * k] = static_cast<float>(c);
        m[j * cols + 2 * k + 1] = static_cast<float>(s);
      } else if (kind == DftKind::COMPLEX_TO_COMPLEX) {  // (a + ib)(cos + i sign sin)
        m[2 * j * cols + 2 * k] = static_cast<float>(c);
        m[2 * j * cols + 2 * k + 1] = static_cast<float>(s);
        m[(2 * j + 1) * cols + 2 * k] = static_cast<float>(-s);
        m[(2 * j + 1) * cols + 2 * k + 1] = static_cast<float>(c);
      } else if (j <= n / 2) {  // bin j of the half spectrum -> x[k]: weight * (a cos - b sin)
        bool single = j == 0 || 2 * j == n;
        double weight = single ? 1.0 : 2.0;
        m[2 * j * cols + k] = static_cast<float>(weight * c);
        m[(2 * j + 1) * cols + k] = single ? 0.0f : static_cast<float>(-weight * s);
      }
    }
  poplar::Tensor t = g.addConstant<float>(poplar::FLOAT, {rows, cols}, m.data(), debug);
  mapLinearly(g, t, 0, 1);
  return t;
}
""".strip("\n").split("\n")) + ("",)


def is_complex(value: Any) -> bool:
    """Whether ``value`` is a tensor of complex elements."""
    return isinstance(value.type, ir.RankedTensorType) and isinstance(ir.RankedTensorType(value.type).element_type, ir.ComplexType)


def _check_f32(cx: Any, op: Any) -> None:
    for value in [*op.operands, *op.results]:
        element = ir.RankedTensorType(value.type).element_type
        real = ir.ComplexType(element).element_type if isinstance(element, ir.ComplexType) else element
        if str(real) != "f32":
            raise CodegenError(f"{cx.where(op)} of {element} values has no emission (emitted: f32 and complex<f32>)")


def _scale(normalization: str, n: int) -> str:
    return {"none": "1.0", "by_n": f"1.0 / {n}", "by_root_n": f"1.0 / std::sqrt({n}.0)"}[normalization]


def _along(cx: Any, op: Any, text: str, shape: list[int], dim: int, kind: str, n: int, out_size: int, sign: int,
           normalization: str) -> tuple[list[str], str, list[int]]:
    """The transform of kind ``kind`` along ``dim`` of the tensor ``text`` (logical shape
    ``shape``: without the pair dimension of complex values), giving ``out_size`` values
    there: the lines, the result's text and its logical shape."""
    g, rank = cx.graph(op), len(shape)
    complex_in, complex_out = kind != _R2C, kind != _C2R
    in_size = shape[dim]
    others = [d for d in range(rank) if d != dim]
    rows = math.prod(shape[d] for d in others)
    perm = others + [dim] + ([rank] if complex_in else [])
    view = text if perm == list(range(len(perm))) else f"{text}.dimShuffle({_dims(perm)})"
    matrix, out = cx.fresh("dft"), cx.fresh("spectrum" if complex_out else "signal")
    out_shape = [out_size if d == dim else shape[d] for d in range(rank)]
    moved = [shape[d] for d in others] + [out_size] + ([2] if complex_out else [])
    perm_out = others + [dim] + ([rank] if complex_out else [])
    back = [perm_out.index(d) for d in range(len(perm_out))]
    result = out if back == list(range(len(back))) else f"{out}.dimShuffle({_dims(back)})"
    lines = [f"poplar::Tensor {matrix} = dftMatrix({g}, {kind}, {n}, {in_size}, {out_size}, {sign}.0, {_scale(normalization, n)}, "
             f"{cx.debug(op, f'matrix{dim}')});",
             f"poplar::Tensor {out} = poplin::matMul({g}, {view}.reshape({_dims([rows, in_size * (2 if complex_in else 1)])}), "
             f"{matrix}, {cx.prog}, poplar::FLOAT, {cx.debug(op, f'dim{dim}')}).reshape({_dims(moved)});"]
    return lines, result, out_shape


def _finish(cx: Any, op: Any, lines: list[str], text: str) -> list[str]:
    cx.helpers.setdefault("dftMatrix", DFT_HELPER)
    return lines + [f"poplar::Tensor {cx.define(op.results[0])} = {text};"]


@emits("poplar.poplin_dft_r2c")
def emit_dft_r2c(cx: Any, op: Any) -> list[str]:
    _check_f32(cx, op)
    dims, norm, onesided = cx.attr(op, "dims"), cx.attr(op, "normalization"), cx.attr(op, "onesided")
    shape = cx.shape(op.operands[0])
    last = dims[-1]
    n = shape[last]
    lines = [f"// DFT: real to complex along dim {last} ({'one-sided: ' + str(n // 2 + 1) + ' bins' if onesided else 'all bins'})"
             + (f", then complex to complex along {dims[:-1]}" if len(dims) > 1 else "") + " as matmuls by DFT matrices"]
    step, text, shape = _along(cx, op, cx.name(op.operands[0]), shape, last, _R2C, n, n // 2 + 1 if onesided else n, -1, norm)
    lines += step
    for dim in dims[:-1]:
        step, text, shape = _along(cx, op, text, shape, dim, _C2C, shape[dim], shape[dim], -1, norm)
        lines += step
    return _finish(cx, op, lines, text)


@emits("poplar.poplin_dft_c2c")
def emit_dft_c2c(cx: Any, op: Any) -> list[str]:
    _check_f32(cx, op)
    dims, norm, forward = cx.attr(op, "dims"), cx.attr(op, "normalization"), cx.attr(op, "forward")
    sign = -1 if forward else 1
    text, shape = cx.name(op.operands[0]), cx.shape(op.operands[0])
    lines = [f"// DFT: complex to complex ({'forward' if forward else 'inverse'}) along dims {dims} as matmuls by DFT matrices"]
    for dim in dims:
        step, text, shape = _along(cx, op, text, shape, dim, _C2C, shape[dim], shape[dim], sign, norm)
        lines += step
    return _finish(cx, op, lines, text)


@emits("poplar.poplin_dft_c2r")
def emit_dft_c2r(cx: Any, op: Any) -> list[str]:
    _check_f32(cx, op)
    dims, norm, size = cx.attr(op, "dims"), cx.attr(op, "normalization"), cx.attr(op, "last_dim_size")
    text, shape = cx.name(op.operands[0]), cx.shape(op.operands[0])
    last = dims[-1]
    if shape[last] not in (size, size // 2 + 1):
        raise CodegenError(f"{cx.where(op)}: the last transformed dim has {shape[last]} bins, which is neither the "
                           f"signal's {size} samples nor its {size // 2 + 1} non-negative frequencies")
    lines = [f"// DFT: complex to real (inverse of a Hermitian spectrum) along dim {last}, {size} samples"
             + (f", after complex to complex along {dims[:-1]}" if len(dims) > 1 else "") + ", as matmuls by DFT matrices"]
    for dim in dims[:-1]:
        step, text, shape = _along(cx, op, text, shape, dim, _C2C, shape[dim], shape[dim], 1, norm)
        lines += step
    step, text, shape = _along(cx, op, text, shape, last, _C2R, size, size, 1, norm)
    return _finish(cx, op, lines + step, text)


@emits("poplar.view_as_real", "poplar.view_as_complex")
def emit_complex_view(cx: Any, op: Any) -> list[str]:
    _check_f32(cx, op)
    return [f"poplar::Tensor {cx.define(op.results[0])} = {cx.name(op.operands[0])};  "
            "// the same tensor: complex values are (real, imaginary) pairs in the last dimension"]

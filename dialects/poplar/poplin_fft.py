"""Discrete Fourier transforms of the ``poplar`` dialect (``torch.fft``): real to complex,
complex to real and complex to complex, over a list of dims.

PopLibs has no FFT. A Poplar program computes a DFT along a dim of length n as
``poplin::matMul`` by the n x n DFT matrix, split into its cosine and sine planes, over the
real and imaginary planes of the input (complex values live as pairs of real tensors);
one matmul pair per transformed dim, then the normalisation as a ``popops`` scale. The ops
keep ATen's parameters so that plan can be made from them; complex tensors have the
builtin ``complex<f32>`` element type here.

``normalization``: ``"none"``, ``"by_root_n"`` (1/sqrt(n)) or ``"by_n"`` (1/n), n the
product of the transformed sizes (of the signal, for the complex-to-real transform).
"""

from torch_mlir import ir
from torch_mlir.dialects import ext

from .._base import I64ArrayAttr, Rules
from .base import PoplarOp, Tensor, TensorResult, element_of, shape_of

NORMALIZATIONS = ("none", "by_root_n", "by_n")


def _real_of(element: ir.Type) -> ir.Type | None:
    """The real element type of a complex one, or None when ``element`` is not complex."""
    return ir.ComplexType(element).element_type if isinstance(element, ir.ComplexType) else None


def _check_dims(v: Rules, rank: int) -> list[int]:
    dims = v.i64_array("dims", min=0)
    v.require(len(dims) >= 1, "attribute 'dims' must name at least one dim")
    v.require(len(set(dims)) == len(dims), f"attribute 'dims' has duplicates: {dims}")
    v.require(all(d < rank for d in dims), f"attribute 'dims' {dims} out of range for rank {rank}")
    v.string("normalization", choices=NORMALIZATIONS)
    return dims


class DftRealToComplexOp(PoplarOp, name="poplin_dft_r2c", traits=[ext.Pure]):
    """DFT of a real tensor (ATen ``_fft_r2c``, ``torch.fft.rfft`` / ``fft`` of real input).

    Semantics: the forward transform (exponent -2 pi i) over ``dims`` of the real
    ``input``; the result has the complex type of the input's element type and the input's
    shape, except that with ``onesided`` the last of ``dims`` keeps only its
    ``n // 2 + 1`` non-negative frequencies.

    Example:
      %s = "poplar.poplin_dft_r2c"(%x) {dims = array<i64: 2>, normalization = "none", onesided = true}
             : (tensor<2x4x9xf32>) -> tensor<2x4x5xcomplex<f32>>
    """

    input: Tensor
    dims: I64ArrayAttr
    normalization: ir.StringAttr
    onesided: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = shape_of(self.input, "input")
        dims = _check_dims(v, len(shape))
        onesided = v.bool("onesided")
        real = element_of(self.input)
        v.require(isinstance(real, ir.F32Type | ir.F64Type), f"input must have f32 or f64 elements, got {real}")
        v.require(_real_of(element_of(self.result)) == real, f"result must have complex<{real}> elements, got {element_of(self.result)}")
        expected = list(shape)
        if onesided:
            expected[dims[-1]] = shape[dims[-1]] // 2 + 1
        v.require(shape_of(self.result, "result") == expected, f"result shape must be {expected}, got {shape_of(self.result, 'result')}")


class DftComplexToRealOp(PoplarOp, name="poplin_dft_c2r", traits=[ext.Pure]):
    """Inverse DFT of a Hermitian spectrum to a real signal (ATen ``_fft_c2r``,
    ``torch.fft.irfft``).

    Semantics: the inverse transform (exponent +2 pi i) over ``dims`` of the complex
    ``input``, whose last transformed dim holds the non-negative frequencies of a signal of
    ``last_dim_size`` samples (the negative ones are their conjugates); the imaginary parts
    the symmetry fixes are ignored. The result is real, of the input's shape with the last
    of ``dims`` of size ``last_dim_size``.

    Example:
      %x = "poplar.poplin_dft_c2r"(%s) {dims = array<i64: 2>, normalization = "by_n", last_dim_size = 8 : i64}
             : (tensor<2x4x5xcomplex<f32>>) -> tensor<2x4x8xf32>
    """

    input: Tensor
    dims: I64ArrayAttr
    normalization: ir.StringAttr
    last_dim_size: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = shape_of(self.input, "input")
        dims = _check_dims(v, len(shape))
        size = v.int("last_dim_size", min=1)
        real = _real_of(element_of(self.input))
        v.require(real is not None, f"input must have complex elements, got {element_of(self.input)}")
        v.require(element_of(self.result) == real, f"result must have {real} elements, got {element_of(self.result)}")
        expected = list(shape)
        expected[dims[-1]] = size
        v.require(shape_of(self.result, "result") == expected, f"result shape must be {expected}, got {shape_of(self.result, 'result')}")


class DftComplexToComplexOp(PoplarOp, name="poplin_dft_c2c", traits=[ext.Pure]):
    """DFT of a complex tensor, forward or inverse (ATen ``_fft_c2c``, ``torch.fft.fft`` /
    ``ifft`` of complex input, and the gradients of the real transforms).

    Semantics: over ``dims`` of the complex ``input``, with exponent -2 pi i when
    ``forward``, +2 pi i otherwise; the result has the input's type.

    Example:
      %t = "poplar.poplin_dft_c2c"(%s) {dims = array<i64: 1, 2>, normalization = "by_root_n", forward = false}
             : (tensor<2x4x5xcomplex<f32>>) -> tensor<2x4x5xcomplex<f32>>
    """

    input: Tensor
    dims: I64ArrayAttr
    normalization: ir.StringAttr
    forward: ir.IntegerAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        _check_dims(v, len(shape_of(self.input, "input")))
        v.bool("forward")
        v.require(_real_of(element_of(self.input)) is not None, f"input must have complex elements, got {element_of(self.input)}")
        v.require(self.result.type == self.input.type, f"result type {self.result.type} must equal input type {self.input.type}")


class ViewAsRealOp(PoplarOp, name="view_as_real", traits=[ext.Pure]):
    """The (real, imaginary) planes of a complex tensor as a trailing dim of size 2
    (``torch.view_as_real``). Poplar holds a complex tensor as these two planes, so it is a
    view there; the IPU Model gives a new tensor (nothing it returns aliases its input).

    Example:
      %r = "poplar.view_as_real"(%s) : (tensor<2x5xcomplex<f32>>) -> tensor<2x5x2xf32>
    """

    input: Tensor
    result: TensorResult

    def check(self, v: Rules) -> None:
        real = _real_of(element_of(self.input))
        v.require(real is not None, f"input must have complex elements, got {element_of(self.input)}")
        v.require(element_of(self.result) == real, f"result must have {real} elements, got {element_of(self.result)}")
        expected = [*shape_of(self.input, "input"), 2]
        v.require(shape_of(self.result, "result") == expected, f"result shape must be {expected}, got {shape_of(self.result, 'result')}")


class ViewAsComplexOp(PoplarOp, name="view_as_complex", traits=[ext.Pure]):
    """A real tensor whose last dim (of size 2) holds (real, imaginary) pairs as a complex
    tensor (``torch.view_as_complex``); the inverse of ``view_as_real``.

    Example:
      %s = "poplar.view_as_complex"(%r) : (tensor<2x5x2xf32>) -> tensor<2x5xcomplex<f32>>
    """

    input: Tensor
    result: TensorResult

    def check(self, v: Rules) -> None:
        shape = shape_of(self.input, "input")
        v.require(len(shape) >= 1 and shape[-1] == 2, f"input must have a last dim of size 2, got shape {shape}")
        real = _real_of(element_of(self.result))
        v.require(real is not None and element_of(self.input) == real,
                  f"result must have the complex type of the input's {element_of(self.input)} elements, got {element_of(self.result)}")
        v.require(shape_of(self.result, "result") == shape[:-1], f"result shape must be {shape[:-1]}, got {shape_of(self.result, 'result')}")

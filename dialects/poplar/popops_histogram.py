"""Histogram and segment ``popops`` ops of the ``poplar`` dialect: counts of elements in
equal-width bins (``popops::histogram``: ``torch.histc`` / ``histogram`` /
``histogramdd``) and reductions over runs of consecutive elements (``torch.segment_reduce``
and its gradient). Lowered from the Torch dialect by the sorting family and run by the
IPU Model's histogram kernels."""

from collections.abc import Sequence

from torch_mlir import ir
from torch_mlir.dialects import ext

from .._base import I64ArrayAttr, Rules
from .base import PoplarOp, Tensor, TensorResult, check_dim, element_of, shape_of

# How the bins are placed and counted: as torch.histc, torch.histogram (one dim, the
# input flattened) or torch.histogramdd (samples along the last dim).
HISTOGRAM_CONVENTIONS = ("histc", "histogram", "histogramdd")
SEGMENT_REDUCTIONS = ("sum", "mean", "max", "min", "prod")
SEGMENT_KINDS = ("lengths", "offsets")


def _floats(v: Rules, name: str) -> list[float]:
    attr = v.op.operation.attributes[name] if v.has(name) else None
    v.require(attr is not None, f"requires attribute '{name}'")
    v.require(isinstance(attr, ir.ArrayAttr) and all(isinstance(a, ir.FloatAttr) for a in attr),
              f"attribute '{name}' must be an array of floats, got {attr}")
    return [ir.FloatAttr(a).value for a in attr]


class HistogramOp(PoplarOp, name="popops_histogram", traits=[ext.Pure]):
    """Counts (or weight sums) of the input's elements in equal-width bins, and the bin
    edges (``popops::histogram``; ``torch.histc``, ``torch.histogram`` with a bin count,
    ``torch.histogramdd`` with bin counts).

    Semantics: ``convention`` says what the samples are and how the edges are placed:
      - ``histc``: every element is a sample; ``range`` is ``[min, max]``: both 0 takes
        the data's minimum and maximum, equal ends are widened by 1 on each side;
        elements outside are not counted; no ``weight``, no ``density``, no edges;
      - ``histogram``: every element is a sample; ``range`` is ``[]`` (the data's
        minimum and maximum, equal ends widened by 0.5) or ``[min, max]``;
      - ``histogramdd``: the input is ``[..., D]``, each row a D-dim sample; ``bins``
        has one entry per dim, ``range`` is ``[]`` or ``[min_0, max_0, ..., min_D-1,
        max_D-1]``.
    ``bin_edges`` (one result but for ``histc``) holds the edges of every dim one after
    the other: ``bins[0] + 1`` edges of dim 0, then those of dim 1, ... (one tensor,
    since the edges of different dims differ in size). ``given_edges`` (none, or one
    such tensor, with ``range`` ``[]``; not for ``histc``) are edges the user gave,
    increasing, of any widths: they replace the equal-width ones and are the
    ``bin_edges`` result. ``hist`` has shape ``bins`` (one size per dim) and the input's
    element type. The last bin includes its right edge. ``weight`` (zero or one operand,
    one per sample) adds the sample's weight instead of 1; ``density`` divides by the
    total and the bin volume. Edges are computed as torch computes them (``linspace`` of
    the range) and an element goes to the bin torch puts it in.

    Example:
      %h, %e = "poplar.popops_histogram"(%x) {convention = "histogram", bins = array<i64: 4>, range = [0.0, 1.0],
             density = false, operandSegmentSizes = array<i32: 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1>}
             : (tensor<10xf32>) -> (tensor<4xf32>, tensor<5xf32>)
    """

    input: Tensor
    weight: Sequence[Tensor]
    given_edges: Sequence[Tensor]
    convention: ir.StringAttr
    bins: I64ArrayAttr
    range: ir.ArrayAttr
    density: ir.IntegerAttr
    hist: TensorResult
    bin_edges: Sequence[TensorResult]

    def check(self, v: Rules) -> None:
        shape = shape_of(self.input, "input")
        convention = v.string("convention", choices=HISTOGRAM_CONVENTIONS)
        element = element_of(self.input)
        v.require(isinstance(element, ir.FloatType), f"input must have floating-point elements, got {element}")
        dims = shape[-1] if convention == "histogramdd" and shape else 1
        v.require(convention != "histogramdd" or len(shape) >= 1, "a histogramdd input must be [..., D] (rank >= 1)")
        bins = v.i64_array("bins", size=dims, min=1)
        bounds = _floats(v, "range")
        density = v.bool("density")
        weight, edges, given = list(self.weight), list(self.bin_edges), list(self.given_edges)
        v.require(len(weight) <= 1, f"expects at most one weight, got {len(weight)}")
        edge_count = sum(b + 1 for b in bins)
        if convention == "histc":
            v.require(len(bounds) == 2, f"attribute 'range' of a histc must be [min, max], got {bounds}")
            v.require(not weight and not density and not given, "a histc takes no weight, no density and no given_edges")
            v.require(not edges, f"a histc has no bin_edges result, got {len(edges)}")
        else:
            v.require(len(bounds) in (0, 2 * dims), f"attribute 'range' must be [] or {2 * dims} floats, got {bounds}")
            v.require(len(edges) == 1, f"expects one bin_edges result, got {len(edges)}")
            v.require(shape_of(edges[0], "bin_edges") == [edge_count] and element_of(edges[0]) == element,
                      f"bin_edges must be tensor<{edge_count}x{element}> (every dim's edges), got {edges[0].type}")
            v.require(len(given) <= 1, f"expects at most one given_edges, got {len(given)}")
            if given:
                v.require(not bounds, f"attribute 'range' must be [] with given_edges, got {bounds}")
                v.require(given[0].type == edges[0].type, f"given_edges type {given[0].type} must equal the bin_edges type {edges[0].type}")
        for lo, hi in zip(bounds[::2], bounds[1::2], strict=True):
            v.require(lo <= hi, f"attribute 'range' must give min <= max, got [{lo}, {hi}]")
        if weight:
            samples = shape[:-1] if convention == "histogramdd" else shape
            v.require(shape_of(weight[0], "weight") == samples and element_of(weight[0]) == element,
                      f"weight must be tensor<{'x'.join(map(str, samples))}x{element}> (one per sample), got {weight[0].type}")
        v.require(shape_of(self.hist, "hist") == bins and element_of(self.hist) == element,
                  f"hist must be tensor<{'x'.join(map(str, bins))}x{element}>, got {self.hist.type}")


def _segment_shape(v: Rules, data: list[int], segments: ir.Value, kind: str, axis: int) -> list[int]:
    """The result shape of a segment reduction: the data's with ``axis`` replaced by the
    number of segments, which ``segments`` (lengths ``[..., S]`` or offsets ``[..., S+1]``,
    its leading dims those of the data before ``axis``) gives."""
    shape = shape_of(segments, kind)
    element = element_of(segments)
    v.require(isinstance(element, ir.IntegerType) and ir.IntegerType(element).width in (32, 64),
              f"{kind} must have i32 or i64 elements, got {element}")
    v.require(len(shape) == axis + 1 and shape[:-1] == data[:axis],
              f"{kind} shape {shape} must be the data's dims before axis {axis} ({data[:axis]}) and the segments")
    count = shape[-1] - (1 if kind == "offsets" else 0) if shape else 0
    v.require(count >= 0, "offsets must hold at least one element (the start of the first segment)")
    return [count if d == axis else s for d, s in enumerate(data)]


class _SegmentOp(PoplarOp):
    """Shared attributes of a segment reduction and its gradient."""

    def check_attributes(self, v: Rules, data: list[int]) -> list[int]:
        v.string("reduce", choices=SEGMENT_REDUCTIONS)
        kind = v.string("segments_by", choices=SEGMENT_KINDS)
        axis = v.int("axis", min=0)
        check_dim(v, axis, len(data), "axis")
        initial = _floats(v, "initial")
        v.require(len(initial) <= 1, f"attribute 'initial' must be [] or [value], got {initial}")
        element = element_of(self.data)
        v.require(isinstance(element, ir.FloatType), f"data must have floating-point elements, got {element}")
        return _segment_shape(v, data, self.segments, kind, axis)


class SegmentReduceOp(_SegmentOp, name="popops_segment_reduce", traits=[ext.Pure]):
    """Reduces consecutive runs (segments) of ``data`` along ``axis``
    (``torch.segment_reduce``).

    Semantics: ``segments`` are the segments' lengths (``segments_by = "lengths"``,
    ``[..., S]``) or their start offsets and the end (``"offsets"``, ``[..., S+1]``), one
    line per position of the data's dims before ``axis``. Segment ``s`` of the result is
    the ``reduce`` (sum, mean, max, min, prod) of its elements; an empty segment gives
    ``initial`` when given (``[value]``), else 0 for sum, 1 for prod, NaN for mean,
    -inf for max and +inf for min. NaN propagates through max and min. The result has the data's shape
    with ``axis`` of size S. On the IPU: a ``popops::multiUpdate`` reduction of each
    element into its segment, the segment of each element being the count of offsets
    at or below it.

    Example:
      %r = "poplar.popops_segment_reduce"(%data, %lengths) {reduce = "max", segments_by = "lengths", axis = 0 : i64,
             initial = []} : (tensor<6x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
    """

    data: Tensor
    segments: Tensor
    reduce: ir.StringAttr
    segments_by: ir.StringAttr
    axis: ir.IntegerAttr
    initial: ir.ArrayAttr
    result: TensorResult

    def check(self, v: Rules) -> None:
        expected = self.check_attributes(v, shape_of(self.data, "data"))
        v.require(shape_of(self.result, "result") == expected and element_of(self.result) == element_of(self.data),
                  f"result must be tensor<{'x'.join(map(str, expected))}x{element_of(self.data)}>, got {self.result.type}")


class SegmentReduceGradOp(_SegmentOp, name="popops_segment_reduce_grad", traits=[ext.Pure]):
    """The gradient of ``popops_segment_reduce`` with respect to its data
    (``torch.ops.aten._segment_reduce_backward``).

    Semantics: from the result gradient ``grad`` and the forward's ``output``, ``data``
    and ``segments`` (same attributes as the forward): sum gives each element its
    segment's gradient, mean that divided by the segment length, max and min split it
    evenly among the elements equal to the segment's extremum, prod gives it times the
    product of the other elements of the segment (handling zeros as eager does).

    Example:
      %g = "poplar.popops_segment_reduce_grad"(%grad, %out, %data, %lengths) {reduce = "sum", segments_by = "lengths",
             axis = 0 : i64, initial = []} : (tensor<3x2xf32>, tensor<3x2xf32>, tensor<6x2xf32>, tensor<3xi64>) -> tensor<6x2xf32>
    """

    grad: Tensor
    output: Tensor
    data: Tensor
    segments: Tensor
    reduce: ir.StringAttr
    segments_by: ir.StringAttr
    axis: ir.IntegerAttr
    initial: ir.ArrayAttr
    grad_data: TensorResult

    def check(self, v: Rules) -> None:
        expected = self.check_attributes(v, shape_of(self.data, "data"))
        for what, value in (("grad", self.grad), ("output", self.output)):
            v.require(shape_of(value, what) == expected and element_of(value) == element_of(self.data),
                      f"{what} must be tensor<{'x'.join(map(str, expected))}x{element_of(self.data)}>, got {value.type}")
        v.require(self.grad_data.type == self.data.type, f"grad_data type {self.grad_data.type} must equal the data type {self.data.type}")

"""Scan, histogram and segment kernels against torch: popops_cumulative_log_sum_exp /
_max / _min (ties, NaN, infinities), popops_histogram in its three conventions (bin
counts or given edges, range, weight, density; the edges of every dim in one tensor) and
popops_segment_reduce with its gradient (lengths or offsets, empty segments, initial)."""

from __future__ import annotations

import torch

EXACT = {"rtol": 0, "atol": 0}


def test_cumulative_log_sum_exp_is_stable(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<2x4xf32>",
                   '%0 = "poplar.popops_cumulative_log_sum_exp"(%a) {dim = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>')
    x = torch.tensor([[1000.0, 1000.0, -1000.0, 3.0], [-float("inf"), 0.0, float("inf"), float("nan")]])
    got = fn(x)
    torch.testing.assert_close(got, torch.logcumsumexp(x, 1), **EXACT, equal_nan=True)
    assert abs(got[0, 1].item() - (1000.0 + 0.6931471805599453)) < 1e-3  # finite: no exp(1000) overflow


def test_cumulative_max_and_min_take_the_last_tie_and_nan(kernel_of) -> None:  # noqa: ANN001
    x = torch.tensor([[1.0, 3.0, 3.0, 0.0, float("nan"), 5.0, float("nan")], [2.0, 1.0, 1.0, 4.0, 1.0, 0.0, 0.0]])
    for name, fn_ref in (("max", torch.cummax), ("min", torch.cummin)):
        fn = kernel_of("%a: tensor<2x7xf32>",
                       f'%0:2 = "poplar.popops_cumulative_{name}"(%a) {{dim = 1 : i64}} : (tensor<2x7xf32>) -> (tensor<2x7xf32>, tensor<2x7xi32>)')
        values, indices = fn(x)
        want_values, want_indices = fn_ref(x, 1)
        torch.testing.assert_close(values, want_values, **EXACT, equal_nan=True)
        assert indices.dtype == torch.int32 and torch.equal(indices, want_indices.int())
    assert torch.cummax(x, 1).indices[0].tolist() == [0, 1, 2, 2, 4, 4, 6]


def test_histc_widens_equal_ends(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<6xf32>",
                   '%0 = "poplar.popops_histogram"(%a) {convention = "histc", bins = array<i64: 4>, range = [0.0, 0.0], density = false, '
                   "operandSegmentSizes = array<i32: 1, 0, 0>, resultSegmentSizes = array<i32: 1, 0>} : (tensor<6xf32>) -> tensor<4xf32>")
    x = torch.full((6,), 2.0)
    torch.testing.assert_close(fn(x), torch.histc(x, 4), **EXACT)
    y = torch.tensor([0.0, 1.0, 1.0, 3.0, 4.0, 4.0])
    torch.testing.assert_close(fn(y), torch.histc(y, 4), **EXACT)


def test_histogram_weighted_density_and_given_edges(kernel_of) -> None:  # noqa: ANN001
    x, w = torch.randn(10), torch.rand(10)
    fn = kernel_of("%a: tensor<10xf32>, %w: tensor<10xf32>",
                   '%0:2 = "poplar.popops_histogram"(%a, %w) {convention = "histogram", bins = array<i64: 4>, range = [-1.0, 1.0], '
                   "density = true, operandSegmentSizes = array<i32: 1, 1, 0>, resultSegmentSizes = array<i32: 1, 1>}"
                   " : (tensor<10xf32>, tensor<10xf32>) -> (tensor<4xf32>, tensor<5xf32>)")
    hist, edges = fn(x, w)
    want = torch.histogram(x, 4, range=(-1.0, 1.0), weight=w, density=True)
    torch.testing.assert_close(hist, want.hist, **EXACT)
    torch.testing.assert_close(edges, want.bin_edges, **EXACT)
    given = torch.tensor([-3.0, -0.2, 0.0, 3.0])
    fn = kernel_of("%a: tensor<10xf32>, %e: tensor<4xf32>",
                   '%0:2 = "poplar.popops_histogram"(%a, %e) {convention = "histogram", bins = array<i64: 3>, range = [], '
                   "density = false, operandSegmentSizes = array<i32: 1, 0, 1>, resultSegmentSizes = array<i32: 1, 1>}"
                   " : (tensor<10xf32>, tensor<4xf32>) -> (tensor<3xf32>, tensor<4xf32>)")
    hist, edges = fn(x, given)
    torch.testing.assert_close(hist, torch.histogram(x, given).hist, **EXACT)
    torch.testing.assert_close(edges, given, **EXACT)


def test_histogramdd_puts_every_dims_edges_in_one_tensor(kernel_of) -> None:  # noqa: ANN001
    x = torch.randn(12, 2)
    fn = kernel_of("%a: tensor<12x2xf32>",
                   '%0:2 = "poplar.popops_histogram"(%a) {convention = "histogramdd", bins = array<i64: 3, 2>, range = [], '
                   "density = false, operandSegmentSizes = array<i32: 1, 0, 0>, resultSegmentSizes = array<i32: 1, 1>}"
                   " : (tensor<12x2xf32>) -> (tensor<3x2xf32>, tensor<7xf32>)")
    hist, edges = fn(x)
    want = torch.histogramdd(x, [3, 2])
    torch.testing.assert_close(hist, want.hist, **EXACT)
    torch.testing.assert_close(edges, torch.cat(want.bin_edges), **EXACT)


def test_segment_reduce_and_its_gradient(kernel_of) -> None:  # noqa: ANN001
    data, lengths = torch.randn(6, 2), torch.tensor([2, 0, 4])
    for reduce in ("sum", "mean", "max", "min", "prod"):
        attributes = f'{{reduce = "{reduce}", segments_by = "lengths", axis = 0 : i64, initial = []}}'
        fn = kernel_of("%d: tensor<6x2xf32>, %n: tensor<3xi64>",
                       f'%0 = "poplar.popops_segment_reduce"(%d, %n) {attributes} : (tensor<6x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>')
        out = fn(data, lengths)
        torch.testing.assert_close(out, torch.segment_reduce(data, reduce, lengths=lengths), **EXACT, equal_nan=True, msg=reduce)
        grad_fn = kernel_of("%g: tensor<3x2xf32>, %o: tensor<3x2xf32>, %d: tensor<6x2xf32>, %n: tensor<3xi64>",
                            f'%0 = "poplar.popops_segment_reduce_grad"(%g, %o, %d, %n) {attributes}'
                            " : (tensor<3x2xf32>, tensor<3x2xf32>, tensor<6x2xf32>, tensor<3xi64>) -> tensor<6x2xf32>")
        grad = torch.ones(3, 2)
        want = torch.ops.aten._segment_reduce_backward(grad, out, data, reduce, lengths=lengths)
        torch.testing.assert_close(grad_fn(grad, out, data, lengths), want, **EXACT, equal_nan=True, msg=reduce)


def test_segment_reduce_by_offsets_with_an_initial_value(kernel_of) -> None:  # noqa: ANN001
    data, offsets = torch.randn(2, 5), torch.tensor([[0, 2, 2, 5], [0, 1, 3, 5]], dtype=torch.int32)
    fn = kernel_of("%d: tensor<2x5xf32>, %o: tensor<2x4xi32>",
                   '%0 = "poplar.popops_segment_reduce"(%d, %o) {reduce = "max", segments_by = "offsets", axis = 1 : i64, '
                   "initial = [2.5]} : (tensor<2x5xf32>, tensor<2x4xi32>) -> tensor<2x3xf32>")
    got = fn(data, offsets)
    torch.testing.assert_close(got, torch.segment_reduce(data, "max", offsets=offsets, axis=1, initial=2.5), **EXACT)
    assert got[0, 1].item() == 2.5

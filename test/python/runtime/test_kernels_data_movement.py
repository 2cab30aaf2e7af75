"""Data movement kernels against torch: views, padding, multi_slice and gather."""

from __future__ import annotations

import torch
import torch.nn.functional as F

EXACT = {"rtol": 0, "atol": 0}


def test_views(kernel_of) -> None:  # noqa: ANN001
    a = torch.randn(2, 3)
    reshape = kernel_of("%a: tensor<2x3xf32>", '%0 = "poplar.reshape"(%a) : (tensor<2x3xf32>) -> tensor<3x2xf32>')
    shuffle = kernel_of("%a: tensor<2x3xf32>", '%0 = "poplar.dim_shuffle"(%a) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>')
    strided = kernel_of("%a: tensor<2x3xf32>",
                        '%0 = "poplar.slice"(%a) {begin = array<i64: 0, 0>, end = array<i64: 2, 3>, stride = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<2x2xf32>')
    broadcast = kernel_of("%a: tensor<2x3xf32>", '%0 = "poplar.broadcast"(%a) : (tensor<2x3xf32>) -> tensor<4x2x3xf32>')
    torch.testing.assert_close(reshape(a), a.reshape(3, 2), **EXACT)
    torch.testing.assert_close(shuffle(a), a.t(), **EXACT)
    torch.testing.assert_close(strided(a), a[:, ::2], **EXACT)
    torch.testing.assert_close(broadcast(a), a.expand(4, 2, 3), **EXACT)


def test_concat(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<2x3xf32>, %b: tensor<1x3xf32>",
                   '%0 = "poplar.concat"(%a, %b) {dim = 0 : i64} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>')
    a, b = torch.randn(2, 3), torch.randn(1, 3)
    torch.testing.assert_close(fn(a, b), torch.cat((a, b)), **EXACT)


def test_pad_low_and_high_per_dim(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<2x3xf32>",
                   '%0 = "poplar.popops_pad"(%a) {low = array<i64: 1, 0>, high = array<i64: 0, 2>, value = -1.0 : f64} : (tensor<2x3xf32>) -> tensor<3x5xf32>')
    a = torch.randn(2, 3)
    torch.testing.assert_close(fn(a), F.pad(a, [0, 2, 1, 0], value=-1.0), **EXACT)


def test_multi_slice_is_an_embedding_lookup(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%t: tensor<10x4xf32>, %i: tensor<2x3xi64>",
                   '%0 = "poplar.popops_multi_slice"(%t, %i) {dim = 0 : i64} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>')
    table, ids = torch.randn(10, 4), torch.randint(0, 10, (2, 3))
    torch.testing.assert_close(fn(table, ids), F.embedding(ids, table), **EXACT)


def test_multi_slice_along_another_dim_is_index_select(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%t: tensor<3x4xf32>, %i: tensor<2xi64>",
                   '%0 = "poplar.popops_multi_slice"(%t, %i) {dim = 1 : i64} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<3x2xf32>')
    table, ids = torch.randn(3, 4), torch.tensor([3, 0])
    torch.testing.assert_close(fn(table, ids), table.index_select(1, ids), **EXACT)


def test_gather(kernel_of) -> None:  # noqa: ANN001
    fn = kernel_of("%a: tensor<2x3xf32>, %i: tensor<2x2xi64>",
                   '%0 = "poplar.popops_gather"(%a, %i) {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>')
    a, idx = torch.randn(2, 3), torch.tensor([[2, 0], [1, 1]])
    torch.testing.assert_close(fn(a, idx), torch.gather(a, 1, idx), **EXACT)

"""The classic ``torch.nn`` layers users build models from, inference and training
against eager: recurrent layers, attention, transformer decoder, transposed convolution,
upsampling, embedding bags and weight norm. Each layer sits in a tiny model whose loss is
the sum of squares of its output, trained a few SGD steps on the IPU Model and in eager on
copies of the same weights."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
import torch
import torch.nn as nn

import poptorch
from helpers import FP32

# Recurrent layers and attention sum over time steps / keys in an order that may differ
# from eager's fused CPU kernels by a few ulps; a few SGD steps keep that within 1e-5
# relative for values of order 1, so FP32 holds for the weights too.
STEPS = 3


class _First(nn.Module):
    """The first output of a layer returning a tuple (RNN: output, state; MHA: output, weights)."""

    def __init__(self, layer: nn.Module) -> None:
        super().__init__()
        self.layer = layer

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        out = self.layer(*inputs)
        return out[0] if isinstance(out, tuple) else out


def _randn(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _weight_normed() -> nn.Module:
    return nn.Sequential(nn.utils.parametrizations.weight_norm(nn.Conv1d(3, 4, 3), dim=0),
                         nn.utils.parametrizations.weight_norm(nn.Linear(6, 5), dim=1))


LAYERS: dict[str, Callable[[], tuple[nn.Module, tuple[torch.Tensor, ...]]]] = {
    "lstm": lambda: (_First(nn.LSTM(4, 8, num_layers=2, batch_first=True)), (_randn(2, 5, 4),)),
    "gru_bidirectional": lambda: (_First(nn.GRU(4, 8, batch_first=True, bidirectional=True)), (_randn(2, 5, 4),)),
    "rnn_tanh": lambda: (_First(nn.RNN(4, 8)), (_randn(5, 2, 4),)),
    "multihead_attention": lambda: (_First(nn.MultiheadAttention(16, 4, batch_first=True)),
                                    (_randn(2, 5, 16), _randn(2, 6, 16, seed=1), _randn(2, 6, 16, seed=2))),
    "transformer_decoder": lambda: (
        nn.TransformerDecoder(nn.TransformerDecoderLayer(16, 4, 32, batch_first=True, dropout=0.0), 2),
        (_randn(2, 5, 16), _randn(2, 6, 16, seed=1))),
    "conv_transpose1d": lambda: (nn.ConvTranspose1d(3, 4, 3, stride=2, padding=1), (_randn(2, 3, 7),)),
    "conv_transpose2d": lambda: (nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1),
                                 (_randn(2, 3, 6, 6),)),
    "conv_transpose3d": lambda: (nn.ConvTranspose3d(2, 3, 2, stride=2, bias=False), (_randn(1, 2, 3, 3, 3),)),
    "upsample_nearest": lambda: (nn.Sequential(nn.Conv2d(3, 3, 1), nn.Upsample(scale_factor=2)), (_randn(2, 3, 4, 4),)),
    "upsample_bilinear": lambda: (nn.Sequential(nn.Conv2d(3, 3, 1), nn.Upsample(scale_factor=2, mode="bilinear")),
                                  (_randn(2, 3, 4, 4),)),
    "embedding_bag": lambda: (nn.EmbeddingBag(10, 4, mode="mean"), (torch.tensor([[1, 2, 4], [4, 3, 9]]),)),
    "weight_norm": lambda: (_weight_normed(), (_randn(2, 3, 8),)),
}


class _Loss(nn.Module):
    def __init__(self, body: nn.Module) -> None:
        super().__init__()
        self.body = body

    def forward(self, *inputs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.body(*inputs)
        return out, poptorch.identity_loss(out.square().sum(), reduction="sum")


@pytest.mark.parametrize("name", LAYERS)
def test_inference_matches_eager(name: str) -> None:
    torch.manual_seed(0)
    model, inputs = LAYERS[name]()
    model.eval()
    with torch.no_grad():
        expected = model(*inputs)
    torch.testing.assert_close(poptorch.inferenceModel(model)(*inputs), expected, **FP32)


@pytest.mark.parametrize("name", LAYERS)
def test_training_matches_eager(name: str) -> None:
    torch.manual_seed(0)
    body, inputs = LAYERS[name]()
    model = _Loss(body)
    reference = copy.deepcopy(model)
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.01)
    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(model.parameters(), lr=0.01))
    for _ in range(STEPS):
        _, loss = training(*inputs)
        optimizer.zero_grad()
        _, expected = reference(*inputs)
        expected.backward()
        optimizer.step()
        torch.testing.assert_close(loss, expected.detach(), **FP32)
    training.copyWeightsToHost()
    for (key, actual), (_, want) in zip(model.named_parameters(), reference.named_parameters(), strict=True):
        torch.testing.assert_close(actual, want, **FP32, msg=lambda m, k=key: f"{name}.{key}: {m}")

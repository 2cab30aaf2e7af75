"""The model zoo: real ``transformers`` model families, built from small configs (nothing
is downloaded), run through ``poptorch.inferenceModel`` and trained a few steps with
``poptorch.trainingModel``, against eager PyTorch on copies of the same weights.

Each family is as a user would run it: the model's own loss (``labels=...``), its own
masks and caches, its Python taking the path it takes under ``torch.export``. Dropout is
off in the configs so that eager and the IPU Model draw nothing at random.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from typing import Any

import pytest
import torch

import poptorch
from helpers import FP32

transformers = pytest.importorskip("transformers")

VOCAB, BATCH, SEQ = 64, 2, 8

# Trained weights drift by float rounding over the steps: the device and eager sum the
# same terms in a different order in a few reductions (softmax / layer-norm backward),
# and Adam-style normalisation amplifies relative differences of near-zero gradients; a
# few SGD steps keep the comparison at fp32 precision.
TRAINED = {"rtol": 1e-4, "atol": 1e-5}


def _tokens(seed: int = 0, low: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(low, VOCAB, (BATCH, SEQ), generator=generator)


def _images(size: int = 16, seed: int = 0) -> torch.Tensor:
    return torch.randn(BATCH, 3, size, size, generator=torch.Generator().manual_seed(seed))


def _decoder_lm(config_cls: str, model_cls: str, **extra: Any) -> Callable[[], tuple]:
    def build() -> tuple:
        config = getattr(transformers, config_cls)(
            vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, max_position_embeddings=64, **extra)
        model = getattr(transformers, model_cls)(config)
        ids = _tokens()
        return model, {"input_ids": ids}, {"input_ids": ids, "labels": _tokens(1)}

    return build


def _gpt2() -> tuple:
    config = transformers.GPT2Config(vocab_size=VOCAB, n_positions=32, n_embd=32, n_layer=2, n_head=4,
                                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=0, eos_token_id=0)
    ids = _tokens()
    return transformers.GPT2LMHeadModel(config), {"input_ids": ids}, {"input_ids": ids, "labels": _tokens(1)}


def _bert_like(config_cls: str, model_cls: str, low: int = 0, **extra: Any) -> Callable[[], tuple]:
    def build() -> tuple:
        config = getattr(transformers, config_cls)(
            vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
            max_position_embeddings=64, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, num_labels=3,
            **extra)
        model = getattr(transformers, model_cls)(config)
        ids = _tokens(low=low)
        mask = torch.ones(BATCH, SEQ, dtype=torch.long)
        mask[1, -3:] = 0  # padding in the second sequence: the mask reaches attention
        labels = torch.tensor([0, 2])
        return model, {"input_ids": ids, "attention_mask": mask}, {"input_ids": ids, "attention_mask": mask, "labels": labels}

    return build


def _distilbert() -> tuple:
    config = transformers.DistilBertConfig(vocab_size=VOCAB, dim=32, n_layers=2, n_heads=4, hidden_dim=64,
                                           max_position_embeddings=64, dropout=0.0, attention_dropout=0.0,
                                           seq_classif_dropout=0.0, num_labels=3)
    ids = _tokens()
    mask = torch.ones(BATCH, SEQ, dtype=torch.long)
    mask[0, -2:] = 0
    return (transformers.DistilBertForSequenceClassification(config), {"input_ids": ids, "attention_mask": mask},
            {"input_ids": ids, "attention_mask": mask, "labels": torch.tensor([1, 0])})


def _t5() -> tuple:
    config = transformers.T5Config(vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                                   dropout_rate=0.0, decoder_start_token_id=0, pad_token_id=0)
    ids, labels = _tokens(), _tokens(1)
    return (transformers.T5ForConditionalGeneration(config), {"input_ids": ids, "decoder_input_ids": _tokens(2)},
            {"input_ids": ids, "labels": labels})


def _vit() -> tuple:
    config = transformers.ViTConfig(image_size=16, patch_size=4, num_channels=3, hidden_size=32, num_hidden_layers=2,
                                    num_attention_heads=4, intermediate_size=64, num_labels=5,
                                    hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    images = _images()
    return (transformers.ViTForImageClassification(config), {"pixel_values": images},
            {"pixel_values": images, "labels": torch.tensor([1, 4])})


def _resnet() -> tuple:
    config = transformers.ResNetConfig(num_channels=3, embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1],
                                       num_labels=5)
    images = _images(32)
    return (transformers.ResNetForImageClassification(config), {"pixel_values": images},
            {"pixel_values": images, "labels": torch.tensor([3, 0])})


def _wav2vec2() -> tuple:
    # Its positional convolution uses weight norm (aten._weight_norm, decomposed).
    config = transformers.Wav2Vec2Config(
        vocab_size=32, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
        conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16,
        num_conv_pos_embedding_groups=4, hidden_dropout=0.0, attention_dropout=0.0, activation_dropout=0.0,
        feat_proj_dropout=0.0, layerdrop=0.0, final_dropout=0.0, mask_time_prob=0.0, num_labels=3,
        classifier_proj_size=16)
    audio = torch.randn(BATCH, 400, generator=torch.Generator().manual_seed(0))
    return (transformers.Wav2Vec2ForSequenceClassification(config), {"input_values": audio},
            {"input_values": audio, "labels": torch.tensor([2, 0])})


FAMILIES: dict[str, Callable[[], tuple]] = {
    "gpt2": _gpt2,
    "llama": _decoder_lm("LlamaConfig", "LlamaForCausalLM"),
    "mistral": _decoder_lm("MistralConfig", "MistralForCausalLM"),
    "qwen2": _decoder_lm("Qwen2Config", "Qwen2ForCausalLM"),
    "bert": _bert_like("BertConfig", "BertForSequenceClassification"),
    "roberta": _bert_like("RobertaConfig", "RobertaForSequenceClassification", low=2, pad_token_id=1),
    "distilbert": _distilbert,
    "t5": _t5,
    "vit": _vit,
    "resnet": _resnet,
    "wav2vec2": _wav2vec2,
}


def _first_tensor(output: Any) -> torch.Tensor:
    if isinstance(output, torch.Tensor):
        return output
    if hasattr(output, "to_tuple"):
        output = output.to_tuple()
    return next(t for t in output if isinstance(t, torch.Tensor))


def _build(name: str) -> tuple:
    torch.manual_seed(0)
    return FAMILIES[name]()


@pytest.mark.parametrize("name", FAMILIES)
def test_inference_matches_eager(name: str) -> None:
    model, inputs, _ = _build(name)
    model.eval()
    with torch.no_grad():
        expected = model(**inputs)
    start = time.perf_counter()
    actual = poptorch.inferenceModel(model)(**inputs)
    assert time.perf_counter() - start < 60
    assert type(actual) is type(expected)
    torch.testing.assert_close(_first_tensor(actual), _first_tensor(expected), **FP32)


STEPS = 3


@pytest.mark.parametrize("name", FAMILIES)
def test_training_matches_eager(name: str) -> None:
    model, _, batch = _build(name)
    model.train()
    reference = copy.deepcopy(model)
    eager_optimizer = torch.optim.SGD(reference.parameters(), lr=0.05, momentum=0.9)
    expected_losses = []
    for _ in range(STEPS):
        eager_optimizer.zero_grad()
        loss = reference(**batch).loss
        loss.backward()
        eager_optimizer.step()
        expected_losses.append(loss.detach())

    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9))
    start = time.perf_counter()
    losses = [training(**batch).loss for _ in range(STEPS)]
    assert time.perf_counter() - start < 60
    torch.testing.assert_close(torch.stack(losses), torch.stack(expected_losses), **TRAINED)
    training.copyWeightsToHost()
    for (key, actual), (_, want) in zip(model.named_parameters(), reference.named_parameters(), strict=True):
        torch.testing.assert_close(actual, want, **TRAINED, msg=lambda m, k=key: f"{name}.{key}: {m}")

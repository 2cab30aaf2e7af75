"""Training benchmark: one training step on the IPU Model against eager PyTorch.

For an MLP, a CNN, a TransformerEncoder of BERT-base-sized layers and a Hugging Face GPT-2
with GPT-2 small's sizes it prints the compile time
and the median time of one step — forward, backward and optimizer update — for eager
PyTorch (zero_grad, forward, loss.backward(), optimizer.step()) and for one call of a
``poptorch.trainingModel`` (the same work compiled into one program), with the ratio.
Usage: ``python bench/training.py [--quick]``.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time

import torch
import torch.nn as nn

import poptorch


class WithLoss(nn.Module):
    def __init__(self, body: nn.Module, loss: nn.Module) -> None:
        super().__init__()
        self.body = body
        self.loss = loss

    def forward(self, x: torch.Tensor, target: torch.Tensor):  # noqa: ANN201
        out = self.body(x)
        return out, self.loss(out, target)


def mlp() -> tuple[nn.Module, tuple[torch.Tensor, torch.Tensor]]:
    layers: list[nn.Module] = []
    for _ in range(4):
        layers += [nn.Linear(1024, 1024), nn.ReLU()]
    body = nn.Sequential(*layers, nn.Linear(1024, 10))
    return WithLoss(body, nn.CrossEntropyLoss()), (torch.randn(64, 1024), torch.randint(0, 10, (64,)))


def cnn() -> tuple[nn.Module, tuple[torch.Tensor, torch.Tensor]]:
    body = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        nn.Flatten(), nn.Linear(128, 10),
    )
    return WithLoss(body, nn.CrossEntropyLoss()), (torch.randn(16, 3, 32, 32), torch.randint(0, 10, (16,)))


def bert(layers: int) -> tuple[nn.Module, tuple[torch.Tensor, torch.Tensor]]:
    layer = nn.TransformerEncoderLayer(768, 12, 3072, batch_first=True, dropout=0.0)
    body = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
    return WithLoss(body, nn.MSELoss()), (torch.randn(4, 128, 768), torch.randn(4, 128, 768))


class CausalLM(nn.Module):
    """A Hugging Face causal language model returning (logits, loss), its own loss from ``labels``."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, labels: torch.Tensor):  # noqa: ANN201
        out = self.model(input_ids=input_ids, labels=labels, use_cache=False)
        return out.logits, out.loss


def gpt2(layers: int) -> tuple[nn.Module, tuple[torch.Tensor, torch.Tensor]]:
    """GPT-2 small's block sizes (768 wide, 12 heads, 3072 MLP, 1024 positions, the token
    table tied to the output layer) with ``layers`` of its 12 blocks, dropout off, and an
    8192-token vocabulary: GPT-2's 50257-token table with its gradient and SGD velocity
    needs 1.05 GB even with two blocks, more than one IPU's 900 MB (the compiler says so
    and names the tensors)."""
    import transformers

    config = transformers.GPT2Config(n_layer=layers, vocab_size=8192, resid_pdrop=0.0, embd_pdrop=0.0,
                                     attn_pdrop=0.0, bos_token_id=0, eos_token_id=0)
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(0, config.vocab_size, (2, 128), generator=generator)
    return CausalLM(transformers.GPT2LMHeadModel(config)), (ids, ids)


def run(name: str, model: nn.Module, inputs: tuple[torch.Tensor, ...], repeats: int) -> float:
    torch.manual_seed(0)
    eager_model = copy.deepcopy(model)
    eager_optimizer = torch.optim.SGD(eager_model.parameters(), lr=1e-3, momentum=0.9)
    ipu = poptorch.trainingModel(model, poptorch.Options(), torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9))
    start = time.perf_counter()
    ipu(*inputs)
    first = time.perf_counter() - start

    def eager_step() -> None:
        eager_optimizer.zero_grad()
        _, loss = eager_model(*inputs)
        loss.backward()
        eager_optimizer.step()

    eager_step()
    ipu(*inputs)
    eager_times, ipu_times = [], []
    for _ in range(repeats):  # interleaved, so machine noise hits both alike
        start = time.perf_counter()
        eager_step()
        eager_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        ipu(*inputs)
        ipu_times.append(time.perf_counter() - start)
    eager, emulated = statistics.median(eager_times), statistics.median(ipu_times)
    ratio = emulated / eager
    print(f"{name:<10} compile+first step {first:6.2f} s | eager {eager * 1e3:8.2f} ms | IPU Model {emulated * 1e3:8.2f} ms | ratio {ratio:5.3f}")
    ipu.destroy()
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats and a 2-layer encoder")
    args = parser.parse_args()
    repeats = 5 if args.quick else 21
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; one training step (SGD + momentum), median of {repeats}")
    run("MLP", *mlp(), repeats)
    run("CNN", *cnn(), repeats)
    # BERT-base-sized layers (768 hidden, 12 heads, 3072 FFN). Four of them: all twelve need
    # 1.37 GB with SGD momentum (weights, velocity, live activations), more than one
    # 900 MB IPU; the compiler says so. Twelve layers need several IPUs (pipelining).
    run("BERT-base x4", *bert(2 if args.quick else 4), max(3, repeats // 3))
    # GPT-2 small through transformers, with its tied embedding / output layer and its own
    # cross-entropy loss. Four of its twelve blocks, for the same reason as BERT above.
    run("GPT-2 small x4", *gpt2(2 if args.quick else 4), max(3, repeats // 3))


if __name__ == "__main__":
    main()

"""The cost model against Graphcore's published training throughput (Bow Pod16 = 16 Bow IPUs).

Each workload compiles one representative piece for the Bow target (``setIpuTarget("ipu-model-bow")``)
in fp16, takes the cost model's cycles of its compute ops (``CompiledProgram.cycles_by_module``:
forward, backward and the SGD update, no host transfers) and composes a training step the
way the published runs are configured (below), then prints estimate / published.

- BERT-Large pre-training phase 1 (sequence length 128), PyTorch, published 5,600 sequences/s.
  Assumed configuration (Graphcore's BERT-Large recipe as we know it; not checked here):
  4 replicas of a 4-IPU pipeline with [3, 7, 7, 7] encoder layers per IPU (embeddings with the
  first 3), micro-batch 32, gradient accumulation 512 (global batch 65,536). One BertLayer is
  compiled at micro-batch 32; an IPU's stage is 7 of them plus sending the activations and
  their gradients over the IPU-Links and a sync; a step is (G + 2p - 2) time steps of the
  slowest stage plus a ring all-reduce of the stage's fp16 gradients over the 4 replicas.
- ResNet-50 (224 x 224), published 37,061 images/s. Assumed configuration: the 16 IPUs each
  train their share of the batch (data parallel or balanced pipeline stages: the same
  images per IPU-second); the network is compiled whole at a small micro-batch that fits
  one IPU and the gradient all-reduce is amortised over the accumulated batch.

Usage: ``python bench/costmodel.py [--resnet-batch N]``.
"""

from __future__ import annotations

import argparse
import time

import torch
from torch import nn

import poptorch
from ipu_mlir.support.target import BOW

BERT_PUBLISHED = 5600.0
RESNET_PUBLISHED = 37061.0


class _Trained(nn.Module):
    """``body`` with a scalar loss, so trainingModel compiles forward + backward + update."""

    def __init__(self, body: nn.Module) -> None:
        super().__init__()
        self.body = body

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.body(x)
        out = out[0] if isinstance(out, tuple) else out
        return poptorch.identity_loss(out.float().square().mean(), reduction="none")


def _compute_cycles(body: nn.Module, example: torch.Tensor) -> tuple[int, float]:
    """Estimated cycles of one fp16 training micro-batch of ``body`` on a Bow IPU, and compile seconds."""
    model = _Trained(body.half())
    options = poptorch.Options().setIpuTarget(BOW.name)
    wrapper = poptorch.trainingModel(model, options, torch.optim.SGD(model.parameters(), lr=0.01))
    start = time.perf_counter()
    wrapper.compile(example.half())
    seconds = time.perf_counter() - start
    return sum(cycles for _, cycles in wrapper._compiled.cycles_by_module()), seconds


def _ring_all_reduce_cycles(nbytes: int, replicas: int) -> float:
    return 2 * (replicas - 1) / replicas * nbytes / BOW.bytes_per_cycle("ipu_link") + BOW.external_sync_cycles


def bert_large() -> float:
    from transformers import BertConfig
    from transformers.models.bert.modeling_bert import BertLayer

    config = BertConfig(hidden_size=1024, num_attention_heads=16, intermediate_size=4096,
                        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    micro_batch, sequence, hidden = 32, 128, 1024
    replicas, ipus, accumulation, layers_per_ipu = 4, 4, 512, 7
    layer = BertLayer(config)
    layer_cycles, seconds = _compute_cycles(layer, torch.randn(micro_batch, sequence, hidden))
    activation_bytes = micro_batch * sequence * hidden * 2  # fp16, forward and its gradient back
    stage = (layers_per_ipu * layer_cycles + 2 * (activation_bytes / BOW.bytes_per_cycle("ipu_link"))
             + BOW.external_sync_cycles)
    step = (accumulation + 2 * ipus - 2) * stage
    step += _ring_all_reduce_cycles(layers_per_ipu * sum(p.numel() for p in layer.parameters()) * 2, replicas)
    throughput = replicas * accumulation * micro_batch / (step / BOW.clock_hz)
    print(f"BERT-Large phase 1 (Bow Pod16): one layer, micro-batch {micro_batch}: {layer_cycles:,} cycles "
          f"({1e3 * layer_cycles / BOW.clock_hz:.3f} ms; compiled in {seconds:.1f} s); stage of {layers_per_ipu} layers "
          f"{1e3 * stage / BOW.clock_hz:.2f} ms; step {step / BOW.clock_hz:.2f} s")
    print(f"  estimate {throughput:,.0f} sequences/s, published {BERT_PUBLISHED:,.0f}: "
          f"ratio {throughput / BERT_PUBLISHED:.2f}")
    return throughput / BERT_PUBLISHED


class _Bottleneck(nn.Module):
    def __init__(self, inputs: int, width: int, stride: int) -> None:
        super().__init__()
        outputs = width * 4
        self.body = nn.Sequential(
            nn.Conv2d(inputs, width, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, outputs, 1, bias=False), nn.BatchNorm2d(outputs))
        self.skip = (nn.Sequential(nn.Conv2d(inputs, outputs, 1, stride, bias=False), nn.BatchNorm2d(outputs))
                     if stride != 1 or inputs != outputs else nn.Identity())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.body(x) + self.skip(x))


def resnet50() -> nn.Module:
    """ResNet-50 (He et al. 2016, torchvision's layout: stride in the 3x3 conv)."""
    layers: list[nn.Module] = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
    inputs = 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for index in range(blocks):
            layers.append(_Bottleneck(inputs, width, stride if index == 0 else 1))
            inputs = width * 4
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2048, 1000)]
    return nn.Sequential(*layers)


def resnet(micro_batch: int) -> float:
    ipus, global_batch = 16, 16 * 1024
    model = resnet50()
    cycles, seconds = _compute_cycles(model, torch.randn(micro_batch, 3, 224, 224))
    per_image = cycles / micro_batch
    reduce = _ring_all_reduce_cycles(sum(p.numel() for p in model.parameters()) * 2, ipus)
    per_ipu = global_batch // ipus
    throughput = ipus * per_ipu / ((per_ipu * per_image + reduce) / BOW.clock_hz)
    print(f"ResNet-50 (Bow Pod16): micro-batch {micro_batch}: {cycles:,} cycles ({1e3 * cycles / BOW.clock_hz:.3f} ms; "
          f"compiled in {seconds:.1f} s), {per_image:,.0f} cycles per image")
    print(f"  estimate {throughput:,.0f} images/s, published {RESNET_PUBLISHED:,.0f}: "
          f"ratio {throughput / RESNET_PUBLISHED:.2f}")
    return throughput / RESNET_PUBLISHED


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resnet-batch", type=int, default=4, help="ResNet-50 micro-batch compiled (default 4)")
    args = parser.parse_args()
    torch.manual_seed(0)
    bert = bert_large()
    rn = resnet(args.resnet_batch)
    print(f"ratios (estimate / published): BERT-Large {bert:.2f}, ResNet-50 {rn:.2f}")


if __name__ == "__main__":
    main()

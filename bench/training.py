"""Training benchmark: one training step on the IPU Model against eager PyTorch.

For an MLP, a CNN, a TransformerEncoder of BERT-base-sized layers and a Hugging Face GPT-2
with GPT-2 small's sizes (four of its blocks on one IPU, and all twelve with the
50257-token vocabulary over four IPUs) it prints the compile time and the median time of one step — forward, backward and optimizer update — for eager
PyTorch (zero_grad, forward, loss.backward(), optimizer.step()) and for one call of a
``poptorch.trainingModel`` (the same work compiled into one program), with the ratio, and how far the
first step is from eager: the largest absolute difference of the outputs and, after
``copyWeightsToHost``, of the updated parameters.
Usage: ``python bench/training.py [--quick] [--models mlp,cnn,bert,gpt2,gpt2-small]
[--launch both|dev.py|plain|here]`` (``--quick`` leaves out the 12-block GPT-2).

By default (``--launch both``) each model runs twice, each time in its own process: in the
environment ``dev.py`` gives (``MALLOC_*_`` exported) and as a plain ``python`` run with no
``MALLOC_*`` variable (only the settings the runtime applies itself); eager is measured in
the same process as its IPU Model. ``--launch here`` runs the models in this process only.
"""

from __future__ import annotations

import argparse
import copy
import resource
import statistics
import sys
import time
from pathlib import Path

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


def gpt2_over_ipus(config: object) -> nn.Module:
    """A ``GPT2LMHeadModel`` of ``config`` (a multiple of 3 blocks) placed over four IPUs
    with ``ShardedExecution``: the embeddings on IPU 0, a third of the blocks on each of
    IPUs 1-3, then the final layer norm, the language-model head and the loss back on IPU 0,
    because the head's weight is the token table (tied) and layers that share a weight must
    sit on one IPU (the compiler refuses the pair on two IPUs). ``AutoStage.AutoIncrement``
    numbers the five blocks 0-4 in execution order. The 50257 x 768 table with its gradient
    and SGD velocity (463 MB) and the 2 x 128 x 50257 logits with their gradient are IPU 0's
    share; four blocks of weights, velocities and activations fit each of the others."""
    import transformers

    model = transformers.GPT2LMHeadModel(config)
    body = model.transformer
    if model.lm_head.weight is not body.wte.weight or len(body.h) % 3:
        raise ValueError("gpt2_over_ipus needs a tied head and a multiple of 3 blocks")
    per_ipu = len(body.h) // 3
    poptorch.BeginBlock(body.wte, "embeddings", ipu_id=0)
    for ipu in range(1, 4):
        poptorch.BeginBlock(body.h[(ipu - 1) * per_ipu], f"blocks{ipu}", ipu_id=ipu)
    poptorch.BeginBlock(body.ln_f, "head", ipu_id=0)
    return CausalLM(model)


def gpt2_small() -> tuple[nn.Module, tuple[torch.Tensor, torch.Tensor], poptorch.Options]:
    """The real GPT-2 small (``transformers.GPT2Config()``: 12 blocks, 50257-token vocabulary,
    124 M parameters) with dropout off, over four IPUs (``gpt2_over_ipus``)."""
    import transformers

    config = transformers.GPT2Config(resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(0, config.vocab_size, (2, 128), generator=generator)
    options = poptorch.Options()
    options.setExecutionStrategy(poptorch.ShardedExecution(poptorch.AutoStage.AutoIncrement))
    return gpt2_over_ipus(config), (ids, ids), options


def _max_diff(got: object, want: object) -> float:
    if isinstance(got, torch.Tensor):
        return (got.detach().float() - want.detach().float()).abs().max().item()
    return max(_max_diff(g, w) for g, w in zip(got, want, strict=True))


def run(name: str, model: nn.Module, inputs: tuple[torch.Tensor, ...], repeats: int,
        options: poptorch.Options | None = None) -> dict[str, float | str]:
    torch.manual_seed(0)
    eager_model = copy.deepcopy(model)
    eager_optimizer = torch.optim.SGD(eager_model.parameters(), lr=1e-3, momentum=0.9)
    ipu = poptorch.trainingModel(model, options or poptorch.Options(),
                                 torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9))
    start = time.perf_counter()
    got = ipu(*inputs)
    first = time.perf_counter() - start

    def eager_step() -> object:
        eager_optimizer.zero_grad()
        out = eager_model(*inputs)
        out[-1].backward()
        eager_optimizer.step()
        return out

    want = eager_step()
    outputs_diff = _max_diff(got, want)
    ipu.copyWeightsToHost()
    weights_diff = _max_diff(list(model.parameters()), list(eager_model.parameters()))
    ipu(*inputs)
    eager_times, ipu_times, faults = [], [], []
    for _ in range(repeats):  # interleaved, so machine noise hits both alike
        start = time.perf_counter()
        eager_step()
        eager_times.append(time.perf_counter() - start)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        start = time.perf_counter()
        ipu(*inputs)
        ipu_times.append(time.perf_counter() - start)
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    eager, emulated = statistics.median(eager_times), statistics.median(ipu_times)
    ratio = emulated / eager
    print(f"{name:<10} compile+first step {first:6.2f} s | eager {eager * 1e3:8.2f} ms | IPU Model {emulated * 1e3:8.2f} ms | ratio {ratio:5.3f}"
          f" | first step vs eager: max |diff| outputs {outputs_diff:.1e}, parameters {weights_diff:.1e}"
          f" | page faults per step {statistics.median(faults):.0f}")
    ipu.destroy()
    return {"name": name, "first": first, "eager": eager, "ipu": emulated, "ratio": ratio,
            "faults": statistics.median(faults)}


def _run_gpt2_small(repeats: int) -> dict[str, float | str]:
    model, inputs, options = gpt2_small()
    return run("GPT-2 small (12 blocks, 50257 vocab)", model, inputs, repeats, options)


MODELS = ("mlp", "cnn", "bert", "gpt2", "gpt2-small")
LAUNCH = {"both": None, "dev.py": "dev.py", "plain": "plain python"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repeats, 2-layer BERT and GPT-2, no 12-block GPT-2 small")
    parser.add_argument("--models", default=None,
                        help=f"comma-separated, of {', '.join(MODELS)} (default: all; --quick: all but gpt2-small)")
    parser.add_argument("--launch", choices=[*LAUNCH, "here"], default="both",
                        help="both: each model through dev.py's environment and as a plain python run (default); "
                             "dev.py / plain: one of them; here: in this process")
    parser.add_argument("--emit-results", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    default = MODELS[:-1] if args.quick else MODELS
    models = [m.strip() for m in (args.models or ",".join(default)).split(",") if m.strip()]
    if unknown := [m for m in models if m not in MODELS]:
        parser.error(f"unknown model(s) {', '.join(unknown)}; the models are {', '.join(MODELS)}")
    if args.launch != "here":
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from launch_modes import run_both

        common = ["--quick"] if args.quick else []
        run_both(Path(__file__).resolve(), models, common, "compile+first step", LAUNCH[args.launch])
        return
    repeats = 5 if args.quick else 21
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; one training step (SGD + momentum), median of {repeats}")
    # BERT-base-sized layers (768 hidden, 12 heads, 3072 FFN). Four of them: all twelve need
    # 1.37 GB with SGD momentum (weights, velocity, live activations), more than one
    # 900 MB IPU; the compiler says so. Twelve layers need several IPUs (pipelining).
    # GPT-2 small through transformers, with its tied embedding / output layer and its own
    # cross-entropy loss. Four of its twelve blocks, for the same reason as BERT.
    # The real GPT-2 small over four IPUs (ShardedExecution; the tied token table and
    # head together on IPU 0). One step takes ~13 s on the IPU Model, ~10 s eager.
    cases = {"mlp": lambda: run("MLP", *mlp(), repeats),
             "cnn": lambda: run("CNN", *cnn(), repeats),
             "bert": lambda: run("BERT-base x4", *bert(2 if args.quick else 4), max(3, repeats // 3)),
             "gpt2": lambda: run("GPT-2 small x4", *gpt2(2 if args.quick else 4), max(3, repeats // 3)),
             "gpt2-small": lambda: _run_gpt2_small(repeats=3)}
    for model in models:
        result = cases[model]()
        if args.emit_results:
            from launch_modes import emit

            emit(result)


if __name__ == "__main__":
    main()

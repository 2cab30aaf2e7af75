"""poplar-fuse-elementwise in the compile pipeline: what it fuses in a model's program, and
that the fused program with the generated kernels loaded (runtime/kernels/fused_map.py)
computes what the program without the pass computes with torch calls only, bit for bit,
so training matches eager as before (fp32 tolerance: the IPU Model's training was never
bit-exact against eager).
"""

from __future__ import annotations

import copy
import re

import pytest
import torch
import torch.nn as nn

import poptorch
from helpers import FP32, run_poisoned
from ipu_mlir.compiler import pipelines
from ipu_mlir.compiler.transforms.poplar_fuse_elementwise import FuseElementwise
from ipu_mlir.runtime.kernels import fused_map, native_build

transformers = pytest.importorskip("transformers")


@pytest.fixture(autouse=True)
def _kernel_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IPU_MLIR_KERNEL_CACHE", str(tmp_path_factory.getbasetemp() / "kernels"))


class _CausalLM(nn.Module):
    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, ids: torch.Tensor, labels: torch.Tensor):  # noqa: ANN201
        out = self.model(input_ids=ids, labels=labels, use_cache=False)
        return out.logits, out.loss


class _WithLoss(nn.Module):
    def __init__(self, body: nn.Module) -> None:
        super().__init__()
        self.body = body
        self.loss = nn.CrossEntropyLoss()

    def forward(self, x: torch.Tensor, target: torch.Tensor):  # noqa: ANN201
        out = self.body(x)
        return out, self.loss(out, target)


def _gpt2() -> tuple[nn.Module, tuple[torch.Tensor, torch.Tensor]]:
    """A GPT-2 block (gelu_new's chains) big enough for the kernels (2 x 16 x 128 MLP)."""
    config = transformers.GPT2Config(vocab_size=64, n_positions=16, n_embd=32, n_layer=1, n_head=2, resid_pdrop=0.0,
                                     embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=0, eos_token_id=0)
    ids = torch.randint(0, 64, (2, 16), generator=torch.Generator().manual_seed(0))
    return _CausalLM(transformers.GPT2LMHeadModel(config)), (ids, ids)


def _mlp() -> tuple[nn.Module, tuple[torch.Tensor, torch.Tensor]]:
    body = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    return _WithLoss(body), (torch.randn(32, 64), torch.randint(0, 10, (32,)))


def _cnn() -> tuple[nn.Module, tuple[torch.Tensor, torch.Tensor]]:
    body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Linear(8, 10))
    return _WithLoss(body), (torch.randn(4, 3, 16, 16), torch.randint(0, 10, (4,)))


def _compile(model: nn.Module, inputs: tuple, fused: bool, monkeypatch: pytest.MonkeyPatch) -> poptorch.PoplarExecutor:
    original = pipelines.compile_pipeline

    def without(options: pipelines.CompileOptions, *, training: bool) -> list:
        return [step for step in original(options, training=training) if not isinstance(step, FuseElementwise)]

    with monkeypatch.context() as patch:
        if not fused:  # the program and the IPU Model as they were: no pass, no generated kernel
            patch.setattr(pipelines, "compile_pipeline", without)
            patch.setenv("IPU_MLIR_NATIVE_KERNELS", "0")
        for name in ("MIN_ELEMENTS", "MIN_ELEMENTS_TWO_CALLS", "MIN_ELEMENTS_IN_PLACE"):  # kernels for these small models
            patch.setattr(fused_map, name, 1024)
        wrapper = poptorch.trainingModel(model, poptorch.Options(), torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
        wrapper.compile(*inputs)
    return wrapper


def test_gelu_new_chains_are_fused_in_the_program(monkeypatch: pytest.MonkeyPatch) -> None:
    torch.manual_seed(0)
    model, inputs = _gpt2()
    wrapper = _compile(model, inputs, True, monkeypatch)
    expressions = re.findall(r'expr = "([^"]*)"', wrapper._compiled.ir_text())
    assert "tanh(mul(add(mul(pow(_1, 3.0), 0.044715), _1), 0.7978845608028654))" in expressions
    assert "add(add(mul(mul(_2, 0.044715), mul(pow(_3, 2.0), 3.0)), _2), _1)" in expressions
    assert "pow(_1, 3.0)" not in expressions  # one op of the chain, alone before the pass
    assert not re.search(r'"poplar.popnn_nonlinearity"\([^)]*\) \{dim = 0 : i64, kind = "tanh"', wrapper._compiled.ir_text())
    wrapper.destroy()


@pytest.mark.parametrize("make", [_mlp, _cnn, _gpt2], ids=["mlp", "cnn", "gpt2-block"])
def test_training_with_fusion_is_the_program_without_it(make, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """Two steps: the fused program's outputs and weights (its momentum updates in
    generated kernels too) are the unfused torch-only program's, bit for bit, and eager's
    within fp32 tolerance."""
    torch.manual_seed(0)
    model, inputs = make()
    models = [model, copy.deepcopy(model), copy.deepcopy(model)]
    fused = _compile(models[0], inputs, True, monkeypatch)
    unfused = _compile(models[1], inputs, False, monkeypatch)
    assert fused_map.wait_for_kernels()
    eager = torch.optim.SGD(models[2].parameters(), lr=0.1, momentum=0.9)
    for _ in range(2):
        got, want = fused(*inputs), unfused(*inputs)
        for a, b in zip(got, want, strict=True):
            assert torch.equal(a, b)
        eager.zero_grad()
        reference = models[2](*inputs)
        reference[1].backward()
        eager.step()
        for a, b in zip(got, reference, strict=True):
            torch.testing.assert_close(a.detach(), b.detach(), **FP32)
    fused.copyWeightsToHost()
    unfused.copyWeightsToHost()
    for (name, a), b, c in zip(models[0].named_parameters(), models[1].parameters(), models[2].parameters(), strict=True):
        assert torch.equal(a, b), name
        torch.testing.assert_close(a, c, **FP32)
    if native_build.enabled():  # the fused program ran generated kernels, built or from the cache
        assert native_build._KERNELS and all(k.function is not None for k in native_build._KERNELS.values())
    fused.destroy()
    unfused.destroy()


def test_fusing_erases_no_op_it_reads_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pass on a GPT-2 block's training program, in a child whose freed memory is
    poisoned (a read through a stale handle of an erased op crashes there)."""
    torch.manual_seed(0)
    model, inputs = _gpt2()
    unfused = _compile(model, inputs, False, monkeypatch)
    text = unfused._compiled.ir_text()
    unfused.destroy()
    script = f"""
from torch_mlir import ir
from ipu_mlir.compiler.pass_pipeline import run_pipeline
from ipu_mlir.compiler.transforms.poplar_fuse_elementwise import FuseElementwise
from ipu_mlir.dialects import make_context
module = ir.Module.parse({text!r}, make_context())
run_pipeline(module, [FuseElementwise()], name="fuse_elementwise")
assert module.operation.verify()
print(str(module).count("tanh(mul(add(mul(pow(_1, 3.0)"))
"""
    done = run_poisoned(script)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "1"

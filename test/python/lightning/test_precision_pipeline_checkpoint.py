"""Half precision, a pipelined LightningModule, and checkpoints that resume exactly."""

# ruff: noqa: E402 - the imports below need lightning, checked first
from __future__ import annotations

import pytest

pytest.importorskip("lightning", reason="lightning is not installed: pip install -e '.[test]'")

import poptorch
import torch
import torch.nn.functional as F
from _models import Regressor, loader, trainer
from helpers import FP32
from lightning.pytorch.callbacks import ModelCheckpoint


def _epoch_losses(t) -> float:
    return float(t.callback_metrics["train_loss_epoch"])


@pytest.mark.parametrize("precision", ["16-mixed", 16])
def test_mixed_precision_trains_with_float32_weights(precision) -> None:
    model = Regressor(lr=0.02, momentum=0.9)
    t = trainer(max_epochs=1, precision=precision)
    t.fit(model, loader())
    first = _epoch_losses(t)
    t = trainer(max_epochs=2, precision=precision)
    t.fit(model, loader())
    assert _epoch_losses(t) < first
    assert all(p.dtype == torch.float32 for p in model.parameters())
    # float16 compute: close to, but not exactly, the float32 run
    reference = Regressor(lr=0.02, momentum=0.9)
    trainer(max_epochs=1).fit(reference, loader())
    trainer(max_epochs=2).fit(reference, loader())
    for a, b in zip(model.parameters(), reference.parameters(), strict=True):
        torch.testing.assert_close(a, b, rtol=0.05, atol=0.02)


def test_16_true_and_convert_model_to_half_train_in_float16() -> None:
    from ipu_mlir.lightning import IPUStrategy

    for kwargs in ({"precision": "16-true"}, {"strategy": IPUStrategy(convert_model_to_half=True)}):
        model = Regressor(lr=0.02, momentum=0.9)
        before = {n: p.detach().clone() for n, p in model.named_parameters()}
        t = trainer(max_epochs=1, **kwargs)
        t.fit(model, loader())
        assert all(p.dtype == torch.float16 for p in model.parameters())
        assert all(not torch.equal(p.float(), before[n]) for n, p in model.named_parameters())
        assert torch.isfinite(t.callback_metrics["train_loss_epoch"])


class Pipelined(Regressor):
    """Two stages: net[0] on IPU0, the rest on IPU1 (BeginBlock inside the LightningModule)."""

    def __init__(self) -> None:
        super().__init__(lr=0.02, momentum=0.9)
        poptorch.BeginBlock(self.net[0], "first", ipu_id=0)
        poptorch.BeginBlock(self.net[1], "second", ipu_id=1)


def test_pipelined_lightning_module_trains_over_two_ipus_without_options() -> None:
    # The strategy reads the BeginBlock layers (2 stages) and uses PopTorch's default,
    # PipelinedExecution, with gradientAccumulation(2 x 2 - 1): each step averages the
    # gradients of 3 micro-batches of 4, the same update as a batch of 12 on the CPU.
    # Validation runs pipelined too, with 2 device iterations per call.
    model, cpu = Pipelined(), Regressor(lr=0.02, momentum=0.9)
    t = trainer(max_epochs=2)
    assert t.strategy.training_opts.Training.gradient_accumulation == 1  # no module yet: nothing to read
    t.fit(model, loader(48, batch_size=4), loader(16, batch_size=4))
    tc = trainer("cpu", max_epochs=2)
    tc.fit(cpu, loader(48, batch_size=12), loader(16, batch_size=8))
    schedule = t.strategy.compiled_schedules["train"]
    assert schedule.startswith("pipelined schedule: 3 stages on 2 IPUs, 3 micro-batches"), schedule
    assert t.strategy.compiled_schedules["val"].startswith("pipelined schedule: 2 stages on 2 IPUs, 2 micro-batches")
    assert t.global_step == 8  # 48 samples in combined batches of 12, twice
    for (name, a), b in zip(model.named_parameters(), cpu.parameters(), strict=True):
        torch.testing.assert_close(a, b, **FP32, msg=name)
    assert float(t.callback_metrics["val_loss"]) == pytest.approx(float(tc.callback_metrics["val_loss"]), rel=1e-5)


def test_pipelining_with_user_options_without_enough_accumulation_says_what_to_do() -> None:
    from ipu_mlir.lightning import IPUStrategy

    options = poptorch.Options()
    options.setExecutionStrategy(poptorch.PipelinedExecution())
    options.Training.gradientAccumulation(2)  # the user's own options are used as given
    with pytest.raises(Exception, match=r"gradientAccumulation >= 2 x 2 - 1") as caught:
        trainer(max_epochs=1, strategy=IPUStrategy(training_opts=options)).fit(Pipelined(), loader())
    notes = "".join(getattr(caught.value, "__notes__", []))
    assert "IPUStrategy(training_opts=...)" in notes and "Or leave training_opts out" in notes


def test_checkpoint_round_trip_resumes_training_exactly(tmp_path) -> None:
    whole = Regressor(lr=0.02, momentum=0.9, scheduler=True)
    trainer(max_epochs=3).fit(whole, loader())

    first = Regressor(lr=0.02, momentum=0.9, scheduler=True)
    checkpoints = ModelCheckpoint(dirpath=tmp_path, save_top_k=-1, every_n_epochs=1)
    t = trainer(max_epochs=2, enable_checkpointing=True, callbacks=[checkpoints])
    t.fit(first, loader())
    path = tmp_path / "epoch=1-step=16.ckpt"
    assert path.exists()
    saved = torch.load(path, weights_only=False)
    for name, value in first.state_dict().items():  # the device's weights were copied first
        torch.testing.assert_close(saved["state_dict"][name], value, rtol=0, atol=0)
    assert saved["optimizer_states"][0]["state"]  # the momentum came back from the device

    resumed = Regressor(lr=0.02, momentum=0.9, scheduler=True)
    trainer(max_epochs=3).fit(resumed, loader(), ckpt_path=path)
    for (name, a), b in zip(resumed.state_dict().items(), whole.state_dict().values(), strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0, msg=name)
